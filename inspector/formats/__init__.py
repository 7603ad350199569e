"""Pure-Python readers for VneuroTK recordings, AUCX archives and AUC sources.

This package never imports Qt (DESIGN.md, "Layers").  Its entry point is
:func:`open_document`, which never raises for bad input.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path

from inspector.formats.document import (
    FORMAT_AUCX,
    FORMAT_DELIMITED,
    FORMAT_RECORDING,
    FORMAT_UNKNOWN,
    Document,
    Finding,
    MemberCheck,
    Node,
)
from inspector.formats.sniff import sniff

__all__ = ["Document", "Finding", "MemberCheck", "Node", "open_document", "sniff"]


def open_document(path: str | os.PathLike[str], *, hash_arrays: bool = False) -> Document:
    """Open ``path`` read-only and return its :class:`Document`.

    The format is recognised from content (:func:`sniff`).  Opening reads
    headers and small metadata only; arrays stay lazy.  With
    ``hash_arrays=True`` recordings also add ``neuro.sha256`` and ``neuro.sum``
    to the summary (this materialises the neural array).

    Never raises for bad input: a file that cannot be read, or a reader bug,
    becomes an error finding on a document of format ``"unknown"`` or the
    sniffed format.
    """
    p = Path(path)
    try:
        os.stat(p)
    except OSError as exc:
        doc = Document(p)
        if p.is_symlink():
            doc.error("file.bad-link", f"{p}: a symbolic link that cannot be followed "
                      f"({exc.strerror or exc})", "")
        elif isinstance(exc, FileNotFoundError):
            doc.error("file.not-found", f"{p}: no such file or folder", "")
        else:
            doc.error("file.unreadable", f"{p}: cannot be read ({exc.strerror or exc})", "")
        return doc
    fmt = sniff(p)
    try:
        if fmt == FORMAT_RECORDING:
            from inspector.formats.vneurotk import open_recording

            return open_recording(p, hash_arrays=hash_arrays)
        if fmt == FORMAT_AUCX:
            from inspector.formats.aucx import open_archive

            return open_archive(p)
        if fmt == FORMAT_DELIMITED:
            from inspector.formats.delimited import open_delimited

            return open_delimited(p)
    except Exception as exc:  # noqa: BLE001 - the contract is: never raise
        doc = Document(p, format=fmt)
        doc.error(
            "internal.reader-failed",
            f"{p.name}: the {fmt} reader failed unexpectedly: {type(exc).__name__}: {exc}",
            "",
        )
        doc.extra["traceback"] = traceback.format_exc()
        return doc
    doc = Document(p, format=FORMAT_UNKNOWN)
    from inspector.formats.sniff import looks_like_zip

    if looks_like_zip(p):
        reason = ("a ZIP archive without a manifest.json member, so not an AUCX archive "
                  "(AUCX 1.0 format, 'Members')")
    else:
        reason = ("not an HDF5 file (no HDF5 signature), not an AUCX archive (no ZIP signature), "
                  "and not a CSV/TSV AUC scan table with a manifest")
    doc.error("format.unrecognised", f"{p.name}: unrecognised format: {reason}", "")
    size = p.stat().st_size if p.is_file() else 0
    doc.header.add("format", "unknown")
    doc.header.add("size", f"{size} bytes")
    doc.summary = {"size": size}
    return doc
