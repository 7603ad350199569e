"""Recognise a delimited AUC source by content (manifest-v1.md, "Top-level fields").

A folder, a manifest (a JSON or YAML mapping with a ``schema_version`` or
``data_file`` key), a text file with a ``manifest.json``/``.yaml``/``.yml``
beside it, or a ``.csv``/``.tsv``/``.txt`` file that is neither HDF5 nor ZIP.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from inspector.formats.sources.signatures import has_hdf5_signature, looks_like_zip

DELIMITED_SUFFIXES = (".csv", ".tsv", ".txt")
MANIFEST_NAMES = ("manifest.json", "manifest.yaml", "manifest.yml")
MANIFEST_KEYS = ("schema_version", "data_file")
MANIFEST_SNIFF_BYTES = 1 << 20
_YAML_KEY_LINE = re.compile(r"^(schema_version|data_file)\s*:", re.MULTILINE)


def _read_text_head(path: Path, limit: int) -> str | None:
    """The file as UTF-8 text if it is at most ``limit`` bytes and has no NUL; else None."""
    try:
        if path.stat().st_size > limit:
            return None
        raw = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def looks_like_manifest(path: Path) -> bool:
    """True if ``path`` is a delimited-source manifest by content.

    A JSON object, or a YAML mapping, of at most 1 MiB with a
    ``schema_version`` or ``data_file`` key (manifest-v1.md, "Top-level
    fields").  YAML is only tried when such a key starts a line.
    """
    text = _read_text_head(path, MANIFEST_SNIFF_BYTES)
    if text is None:
        return False
    data = None
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
    if data is None and _YAML_KEY_LINE.search(text):
        try:
            data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (yaml.YAMLError, RecursionError, ValueError):  # not YAML; deep; huge int
            data = None
    return isinstance(data, dict) and any(k in data for k in MANIFEST_KEYS)


def is_text_beside_manifest(path: Path) -> bool:
    """True if ``path`` is a text file (no NUL in its first 4 KiB) with a manifest beside it."""
    try:
        with path.open("rb") as fh:
            if b"\x00" in fh.read(4096):
                return False
    except OSError:
        return False
    return any((path.parent / n).is_file() for n in MANIFEST_NAMES)


def is_delimited_source(path: Path) -> bool:
    """True if ``path`` is a delimited AUC source by the rules above."""
    if path.is_dir():
        return True
    if not path.is_file() or has_hdf5_signature(path) or looks_like_zip(path):
        return False
    if looks_like_manifest(path) or is_text_beside_manifest(path):
        return True
    return path.suffix.lower() in DELIMITED_SUFFIXES
