"""AUCX 1.0 archives: reading, streamed verification and byte-exact writing.

Entry points:

* :func:`open_archive` ``(path) -> Document`` (format ``"aucx"``; never raises
  for bad input; the streamed checksum pass is the deferred check in
  ``doc.checks``, run headless by ``doc.verify()``);
* :func:`read_experiment` ``(path) -> AucExperiment`` (a fully verified
  archive; raises :class:`ArchiveReadError` listing every finding otherwise);
* :func:`write_aucx` ``(experiment, path, ...) -> Path`` (deterministic,
  atomic export verified by read-back).

Rules: :mod:`.rules` (AUCX 1.0 format document, seed
``002_59993c7ffff01d56.txt``; AUCX on-disk notes, ``spec/aucx-archive.md``).
"""

from __future__ import annotations

from pathlib import Path

from inspector.formats.aucx import sniff as _sniff
from inspector.formats.aucx.archive import ArchiveReadError, open_archive, read_experiment
from inspector.formats.aucx.layout import AUCX_FORMAT_VERSION
from inspector.formats.aucx.writer import ArchiveWriteError, write_aucx
from inspector.formats.document import Document, FormatId
from inspector.formats.reader_api import OpenOptions

__all__ = [
    "AUCX_FORMAT_VERSION",
    "READER",
    "ArchiveReadError",
    "ArchiveWriteError",
    "AucxReader",
    "open_archive",
    "read_experiment",
    "write_aucx",
]


class AucxReader:
    """The registry's reader for AUCX archives (a ZIP listing ``manifest.json``)."""

    format_id = str(FormatId.AUCX)
    display_name = "AUCX archives"
    file_patterns = ("*.aucx", "*.zip")
    priority = 20
    opens_folders = False

    def sniff(self, path: Path) -> bool:
        """A ZIP whose directory lists ``manifest.json`` (or a damaged ZIP); never raises."""
        return _sniff.is_zip_with_manifest(path)

    def open(self, path: Path, options: OpenOptions) -> Document:
        """:func:`open_archive` (``options`` have nothing for archives)."""
        return open_archive(path)

    def mismatch_reason(self, path: Path) -> str:
        """Why ``path`` is not an AUCX archive."""
        return _sniff.mismatch_reason(path)


READER = AucxReader()
