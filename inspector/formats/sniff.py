"""Recognise a file's format from its content, never from its extension.

Rules (issue 2 item 3): the HDF5 superblock signature ``\\x89HDF\\r\\n\\x1a\\n``
at offset 0, 512, 1024, 2048... (HDF5 file format specification, "Format
Signature"); a ZIP local-file signature ``PK\\x03\\x04`` (or an empty-archive
``PK\\x05\\x06``) whose central directory names ``manifest.json`` is an AUCX
archive; a folder, a manifest (a JSON or YAML mapping with a
``schema_version`` or ``data_file`` key, manifest-v1.md), or a text file with
a ``manifest.json``/``.yaml``/``.yml`` beside it is a delimited AUC source.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from inspector.formats.document import (
    FORMAT_AUCX,
    FORMAT_DELIMITED,
    FORMAT_RECORDING,
    FORMAT_UNKNOWN,
)

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")
DELIMITED_SUFFIXES = (".csv", ".tsv", ".txt")


def has_hdf5_signature(path: Path) -> bool:
    """True if the HDF5 signature is at offset 0 or a power-of-two multiple of 512."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            offset = 0
            while offset + 8 <= size:
                fh.seek(offset)
                if fh.read(8) == HDF5_SIGNATURE:
                    return True
                offset = 512 if offset == 0 else offset * 2
    except OSError:
        return False
    return False


def is_zip_with_manifest(path: Path) -> bool:
    """True if ``path`` starts with a ZIP signature and lists ``manifest.json``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return False
    if head not in ZIP_SIGNATURES:
        return False
    try:
        with zipfile.ZipFile(path) as zf:
            return any(i.filename == "manifest.json" for i in zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
        # A damaged ZIP that still starts like one: let the AUCX reader
        # explain what is wrong rather than calling it unrecognised.
        return True


def looks_like_zip(path: Path) -> bool:
    """True if ``path`` starts with a ZIP signature."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) in ZIP_SIGNATURES
    except OSError:
        return False


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
            import yaml

            data = yaml.safe_load(text)
        except Exception:  # noqa: BLE001 - any YAML failure: not recognised here
            data = None
    return isinstance(data, dict) and any(k in data for k in MANIFEST_KEYS)


def is_text_beside_manifest(path: Path) -> bool:
    """True if ``path`` is a text file (no NUL in its first 4 KiB) with a manifest beside it."""
    try:
        with open(path, "rb") as fh:
            if b"\x00" in fh.read(4096):
                return False
    except OSError:
        return False
    return any((path.parent / n).is_file() for n in MANIFEST_NAMES)


def sniff(path: Path) -> str:
    """Return the format id of ``path`` (see :mod:`inspector.formats.document`)."""
    path = Path(path)
    if path.is_dir():
        return FORMAT_DELIMITED
    if not path.is_file():
        return FORMAT_UNKNOWN
    if has_hdf5_signature(path):
        return FORMAT_RECORDING
    if looks_like_zip(path):
        return FORMAT_AUCX if is_zip_with_manifest(path) else FORMAT_UNKNOWN
    if looks_like_manifest(path) or is_text_beside_manifest(path):
        return FORMAT_DELIMITED
    if path.suffix.lower() in DELIMITED_SUFFIXES:
        return FORMAT_DELIMITED
    return FORMAT_UNKNOWN
