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

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.formats.document import Document, FormatId
from inspector.formats.reader_api import OpenOptions

if TYPE_CHECKING:
    from inspector.formats.aucx.archive import ArchiveReadError, open_archive, read_experiment
    from inspector.formats.aucx.layout import AUCX_FORMAT_VERSION
    from inspector.formats.aucx.writer import ArchiveWriteError, write_aucx

#: Where the public names live; imported on first use (PEP 562): the registry
#: imports this package for ``READER`` alone.
_HOMES = {"ArchiveReadError": "archive", "open_archive": "archive",
          "read_experiment": "archive", "AUCX_FORMAT_VERSION": "layout",
          "ArchiveWriteError": "writer", "write_aucx": "writer"}


def __getattr__(name: str) -> Any:
    """A public name of the package, imported from its module when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


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
    #: Names a folder walk reports whatever the file holds
    #: (:mod:`inspector.formats.sources.discovery`).
    #: a ``.zip`` is reported only when it lists ``manifest.json``.
    walk_patterns = ("*.aucx",)
    priority = 20
    opens_folders = False

    def sniff(self, path: Path) -> bool:
        """A ZIP whose directory lists ``manifest.json`` (or a damaged ZIP); never raises."""
        from inspector.formats.aucx import sniff

        return sniff.is_zip_with_manifest(path)

    def open(self, path: Path, options: OpenOptions) -> Document:
        """:func:`open_archive`; ``options.auc_overview_columns`` asks the verification
        for the experiment's overview (``AucScans.overview``)."""
        from inspector.formats.aucx.archive import open_archive

        return open_archive(path, overview_columns=options.auc_overview_columns)

    def mismatch_reason(self, path: Path) -> str:
        """Why ``path`` is not an AUCX archive."""
        from inspector.formats.aucx import sniff

        return sniff.mismatch_reason(path)


READER = AucxReader()
