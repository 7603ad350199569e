"""Recognise an AUCX archive by content: a ZIP whose directory lists ``manifest.json``
(AUCX 1.0 format document, "Members")."""

from __future__ import annotations

import zipfile
from pathlib import Path

from inspector.formats.signatures import ZIP_SIGNATURES, looks_like_zip


def is_zip_with_manifest(path: Path) -> bool:
    """True if ``path`` starts with a ZIP signature and lists ``manifest.json``.

    A damaged ZIP that still starts like one counts as an archive, so that
    the AUCX reader explains what is wrong rather than calling it unrecognised.
    """
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
        return True


def mismatch_reason(path: Path) -> str:
    """Why ``path`` is not an AUCX archive."""
    if looks_like_zip(path):
        return ("a ZIP archive without a manifest.json member, so not an AUCX archive "
                "(AUCX 1.0 format, 'Members')")
    return "not an AUCX archive (no ZIP signature)"
