"""Recognise an AUCX archive by content: a ZIP whose directory lists ``manifest.json``
(AUCX 1.0 format document, "Members")."""

from __future__ import annotations

from pathlib import Path

from inspector.formats.aucx.layout import MANIFEST
from inspector.formats.aucx.zipscan import lists_member
from inspector.formats.sources.signatures import ZIP_SIGNATURES, looks_like_zip


def is_zip_with_manifest(path: Path) -> bool:
    """True if ``path`` starts with a ZIP signature and lists ``manifest.json``.

    A damaged ZIP that still starts like one (or one whose directory is
    beyond the reader's limits) counts as an archive, so that the AUCX
    reader explains what is wrong rather than calling it unrecognised.
    Only the central directory's names are read, within the reader's
    limits (:func:`.zipscan.lists_member`).  Never raises.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(4)
        if head not in ZIP_SIGNATURES:
            return False
        listed = lists_member(path, MANIFEST)
    except OSError:
        return False
    return listed is not False


def mismatch_reason(path: Path) -> str:
    """Why ``path`` is not an AUCX archive."""
    if looks_like_zip(path):
        return ("a ZIP archive without a manifest.json member, so not an AUCX archive "
                "(AUCX 1.0 format, 'Members')")
    return "not an AUCX archive (no ZIP signature)"
