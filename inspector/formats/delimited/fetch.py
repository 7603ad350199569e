"""A delimited source at a URL: fetched whole (size-capped) into a temporary folder.

A CSV/TSV scan table is small and read whole anyway, so a URL naming a
manifest or a data file is copied, with what it needs beside it (the
manifests a data file may have in its folder, the data file a manifest
names), into a temporary folder named like the URL's folder, imported from
there like a local source, and the copy removed.  Each file is at most
``RemoteOptions.whole_cap`` bytes (``remote.too-large``); a sibling the
server does not have is simply absent.  See docs/architecture.md, "Remote
sources".  Nothing here imports Qt.
"""

from __future__ import annotations

import json
import posixpath
import tempfile
from pathlib import Path
from typing import Any

import yaml

from inspector.formats.document import FORMAT_DELIMITED, Document
from inspector.formats.remote import rules as remote_rules
from inspector.formats.remote.path import RemotePath
from inspector.formats.remote.transport import RemoteError

#: Manifest file names looked for beside a data file (manifest-v1.md, "Discovery").
MANIFEST_NAMES = ("manifest.json", "manifest.yaml", "manifest.yml")


def open_remote(url: RemotePath) -> Document:
    """Fetch the source at ``url`` and import it; never raises for bad input.

    Returns the document of the local copy with ``path`` set to ``url``, or
    a document with the network fault as its finding.
    """
    from inspector.formats.delimited.loader import run_import
    from inspector.formats.delimited.view import build_document

    with tempfile.TemporaryDirectory(prefix="inspector-remote-") as tmp:
        folder = Path(tmp) / (url.parent.name or "source")
        folder.mkdir()
        try:
            local = _mirror(url, folder)
        except RemoteError as exc:
            doc = Document(url, format=FORMAT_DELIMITED, kind_label="CSV/TSV AUC scan table")
            doc.report(exc.rule, exc.message)
            return doc
        result = run_import(local)
        prefix, where = str(folder), str(url.parent).rstrip("/")
        if result.experiment is not None and isinstance(result.experiment.provenance, dict):
            result.experiment.provenance = _relocated(result.experiment.provenance, prefix,
                                                      where)
        doc = build_document(result)
    doc.summary = _relocated(doc.summary, prefix, where)
    doc.path = url
    return doc


def _relocated(value: Any, prefix: str, url: str) -> Any:
    """``value`` with every string starting with the copy's folder naming the URL instead
    (the provenance's ``source_path``: where the data came from)."""
    if isinstance(value, str) and value.startswith(prefix + "/"):
        return url + value[len(prefix):]
    if isinstance(value, dict):
        return {k: _relocated(v, prefix, url) for k, v in value.items()}
    if isinstance(value, list):
        return [_relocated(v, prefix, url) for v in value]
    return value


def _fetch(url: RemotePath, dest: Path, *, optional: bool) -> bytes | None:
    """Copy ``url`` to ``dest``; None when ``optional`` and the server has no such object.

    Raises:
        RemoteError: any other fault.
    """
    try:
        data = url.resource.fetch_whole()
    except RemoteError as exc:
        if optional and exc.rule is remote_rules.NOT_FOUND:
            return None
        raise
    dest.write_bytes(data)
    return data


def _mirror(url: RemotePath, folder: Path) -> Path:
    """Copy the source at ``url`` into ``folder``; the local path to import."""
    name = url.name or "source"
    target = folder / name
    data = _fetch(url, target, optional=False)
    if name in MANIFEST_NAMES:
        data_file = _data_file(data or b"")
        if data_file is not None:
            _fetch(url.parent / data_file, folder / data_file, optional=True)
        return target
    for sibling in MANIFEST_NAMES:
        _fetch(url.parent / sibling, folder / sibling, optional=True)
    return target


def _data_file(text: bytes) -> str | None:
    """The manifest's ``data_file`` when it is a plain name in the same folder, else None."""
    data: Any = None
    try:
        data = json.loads(text)
    except ValueError:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return None
    value = data.get("data_file") if isinstance(data, dict) else None
    if not isinstance(value, str) or not value or posixpath.basename(value) != value:
        return None
    return value if value not in (".", "..") else None
