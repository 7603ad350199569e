"""What the window says about a file it could not open: what failed, where, what to try.

A document "could not be opened" when it has an error and nothing to show
(no structure, tables, arrays, trials, AUC experiment or checksum rows): a
truncated recording, a file no reader recognises, a path that does not
exist, a reader bug.  Its tab then shows a page built from
:func:`open_failure` instead of empty views.  The advice depends only on the
reader contract's own rules (:mod:`inspector.formats.registry`), never on a
format name.  Nothing here imports Qt.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields

from inspector.formats import core_rules as core
from inspector.formats.document import Document
from inspector.formats.findings import Finding, Severity
from inspector.formats.registry import open_filters
from inspector.formats.remote.path import is_url

#: ``Document.kind_label`` of a document no reader described.
_UNDESCRIBED = next(f.default for f in fields(Document) if f.name == "kind_label")

#: The last line of every advice list: the same report as text.
VERIFY_HINT = "Run  inspector verify \"{path}\"  for the same report as text."


@dataclass(frozen=True)
class OpenFailure:
    """The page shown instead of a document's views.

    Attributes:
        title: one line (``"Could not open truncated_half.h5"``).
        what: the error findings' messages, most relevant first.
        where: the full path, and the locations in the file when known.
        tries: what the user can do, one sentence each.
        details: the reader's traceback for a reader bug, else ``""``.
        errors: the error findings the page is about.
    """

    title: str
    what: tuple[str, ...]
    where: tuple[str, ...]
    tries: tuple[str, ...]
    details: str
    errors: tuple[Finding, ...]


def has_content(doc: Document) -> bool:
    """True when ``doc`` has anything to show beyond its header and findings."""
    return bool(
        (doc.tree is not None and doc.tree.children)
        or doc.tables or doc.arrays or doc.stimuli
        or (doc.provenance is not None and doc.provenance.children)
        or (doc.checksums is not None and doc.checksums.members)
        or doc.trials is not None or doc.auc is not None)


def _advice(doc: Document, codes: set[str]) -> list[str]:
    if any(code.startswith("remote.") for code in codes):
        return ["The file could not be read over the network: check the URL, your access "
                "to it (credentials for s3://) and the connection, then File > Reload (F5).",
                "A file that changed while open is read again by File > Reload (F5)."]
    if core.READER_FAILED.code in codes:
        return ["This is a bug in Inspector, not a verdict on the file: please report it "
                "with the details below (Copy details).",
                "File > Reload (F5) opens the file again."]
    if core.FILE_NOT_FOUND.code in codes:
        return ["Check the path: the file may have been moved, renamed or deleted.",
                "File > Open (Ctrl+O) to pick it again."]
    if core.FILE_BAD_LINK.code in codes:
        return ["The path is a symbolic link whose target is missing or loops: open the "
                "target itself, or fix the link."]
    if core.FILE_UNREADABLE.code in codes:
        return ["Check that you may read the file (its permissions, or whether another "
                "program holds it locked), then File > Reload (F5)."]
    if core.FORMAT_UNRECOGNISED.code in codes:
        kinds = ", ".join(name for name, _ in open_filters()) or "no format"
        return [f"Inspector recognises files by their content, not their name; it reads: {kinds}.",
                "If this file should be one of them, it is damaged or was written by "
                "another program: ask for a fresh copy."]
    kind = f" ({doc.kind_label})" if doc.kind_label != _UNDESCRIBED else ""
    if doc.path.is_dir():  # nothing was interrupted: the folder is not what it was taken for
        return [f"The folder was taken for one document by its content{kind}, but it cannot be "
                "read as one: What failed says why.",
                "A folder opens as a single document; to open the files in it one by one, "
                "select them in File > Open (Ctrl+O)."]
    return [f"The file was recognised by its content{kind}, but it is incomplete or damaged: "
            "it may still be being written, or a copy or download was interrupted.",
            "Copy it again from its source, then File > Reload (F5)."]


def open_failure(doc: Document) -> OpenFailure | None:
    """The page for ``doc`` when it could not be opened, else None (see module doc)."""
    errors = tuple(f for f in doc.file_findings() if f.severity is Severity.ERROR)
    if doc.ok or has_content(doc) or not errors:
        return None  # (no errors about the file: one of another kind, e.g. an empty HDF5 file)
    path = str(doc.path) if is_url(doc.path) else os.path.abspath(doc.path)
    inside = "in the folder at" if not is_url(doc.path) and doc.path.is_dir() \
        else "in the file at"
    where = [path] + [f"{inside} {loc}" for loc in  # (the document itself is the path above)
                      dict.fromkeys(f.location for f in errors if f.location not in ("", doc.name))]
    tries = _advice(doc, {f.code for f in errors}) + [VERIFY_HINT.format(path=path)]
    return OpenFailure(
        title=f"Could not open {doc.name}",
        what=tuple(f.message for f in errors),
        where=tuple(where),
        tries=tuple(tries),
        details=doc.traceback or "",
        errors=errors,
    )
