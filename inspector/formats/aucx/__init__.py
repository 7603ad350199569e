"""AUCX 1.0 archives: reading, streamed verification and byte-exact writing.

Entry points:

* :func:`open_archive` ``(path) -> Document`` (format ``"aucx"``; never raises
  for bad input; call ``doc.verify()`` for the streamed checksum pass);
* :func:`read_experiment` ``(path) -> AucExperiment`` (a fully verified
  archive; raises :class:`ArchiveReadError` listing every finding otherwise);
* :func:`write_aucx` ``(experiment, path, ...) -> Path`` (deterministic,
  atomic export verified by read-back).

Rules: seed ``002_59993c7ffff01d56.txt`` and spec ``aucx-archive.md``.
"""

from __future__ import annotations

from inspector.formats.aucx.experiment import ArchiveReadError, read_experiment
from inspector.formats.aucx.layout import AUCX_FORMAT_VERSION
from inspector.formats.aucx.reader import open_archive
from inspector.formats.aucx.writer import ArchiveWriteError, write_aucx

__all__ = [
    "AUCX_FORMAT_VERSION",
    "ArchiveReadError",
    "ArchiveWriteError",
    "open_archive",
    "read_experiment",
    "write_aucx",
]
