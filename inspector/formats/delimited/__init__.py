"""Generic CSV/TSV AUC scan tables with a manifest (format id ``auc-delimited``).

Reads the two generic layouts of the reference library ``openauc==0.1.0a1``
(``generic-long``, ``generic-wide``; documents ``docs/formats/
generic-delimited.md``, ``manifest-v1.md`` and ``parser-detection.md`` of
``ronfinn/openauc-io``) into the shared :class:`~inspector.formats.auc.model.
AucExperiment`, with the import provenance the reference records.  Everything
the reference rejects is an error finding (rules in :mod:`.rules`) located at
the file and the line, column or manifest key; nothing is guessed.

Two entry points:

* :func:`open_delimited` -> :class:`~inspector.formats.document.Document`;
  never raises.
* :func:`load_delimited` -> ``AucExperiment``; raises a
  :class:`DelimitedError` subclass whose ``findings`` list every problem.
"""

from __future__ import annotations

import importlib
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.formats.delimited.errors import (
    AmbiguousSourceError,
    DataConflictError,
    DelimitedError,
    InvalidValueError,
    ManifestInvalidError,
    SourceParseError,
    UnsupportedLayoutError,
)
from inspector.formats.document import Document, FormatId
from inspector.formats.reader_api import OpenOptions

if TYPE_CHECKING:
    from inspector.formats.auc.model import AucExperiment
    from inspector.formats.delimited.loader import ImportResult, run_import
    from inspector.formats.delimited.resolve import MANIFEST_NAMES

#: Where the public names live; imported (with yaml, numpy, pandas) on first
#: use (PEP 562): the registry imports this package for ``READER`` alone.
_HOMES = {"ImportResult": "loader", "run_import": "loader", "MANIFEST_NAMES": "resolve"}


def __getattr__(name: str) -> Any:
    """A public name of the package, imported from its module when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)

__all__ = [
    "MANIFEST_NAMES",
    "READER",
    "DelimitedReader",
    "AmbiguousSourceError",
    "DataConflictError",
    "DelimitedError",
    "ImportResult",
    "InvalidValueError",
    "ManifestInvalidError",
    "SourceParseError",
    "UnsupportedLayoutError",
    "load_delimited",
    "open_delimited",
    "run_import",
]


def open_delimited(path: str | os.PathLike[str]) -> Document:
    """Open a delimited AUC source as a :class:`Document` (format ``"auc-delimited"``).

    Args:
        path: a folder holding one manifest and its data file, a manifest file
            (``.json``/``.yaml``/``.yml``), or a data file with a manifest
            beside it.

    Returns:
        The document: ``header``, ``tree`` (source files with sizes and
        SHA-256), ``provenance`` (import record), ``tables["scans"]``,
        ``arrays`` (``radius`` float64 ``(points,)`` or ``(scans, points)``
        NaN-padded, ``signal`` float64 ``(scans, points)``, ``mask`` bool
        ``(scans, points)``), ``auc`` (the experiment), ``export`` and ``summary`` (keys
        ``experiment_id``, ``radius_axis_mode``, ``n_scans``, ``n_points``,
        ``scan_ids``, ``radius_unit``, ``signal_unit``, ``parser``,
        ``source_files`` and ``model``: the reference ``to_dict()`` form).
        A rejected source has error findings and no experiment.

    Never raises for bad input: every problem is a finding.  (A bug raises;
    :func:`inspector.formats.registry.open_document` reports it as
    ``internal.reader-failed``.)
    """
    from inspector.formats.delimited.loader import run_import
    from inspector.formats.delimited.view import build_document
    from inspector.formats.remote.path import RemotePath

    if isinstance(path, RemotePath):
        from inspector.formats.delimited.fetch import open_remote

        return open_remote(path)
    return build_document(run_import(Path(path)))


def load_delimited(path: str | os.PathLike[str], *,
                   imported_at: datetime | None = None) -> AucExperiment:
    """Import a delimited AUC source (strict API).

    Args:
        path: folder, manifest file or data file (see :func:`open_delimited`).
        imported_at: the provenance import time; now (UTC) when omitted.

    Returns:
        The experiment with its import provenance (parser ``generic-long`` or
        ``generic-wide``, parser version ``inspector.__version__``).

    Raises:
        DelimitedError: a subclass for the first rule broken
            (:class:`SourceParseError`, :class:`ManifestInvalidError`,
            :class:`AmbiguousSourceError`, :class:`DataConflictError`,
            :class:`UnsupportedLayoutError`, :class:`InvalidValueError`);
            its ``findings`` list every error found.
    """
    from inspector.formats.delimited.loader import run_import

    result = run_import(Path(path), imported_at=imported_at)
    if not result.ok:
        raise result.error()
    assert result.experiment is not None
    return result.experiment


class DelimitedReader:
    """The registry's reader for CSV/TSV AUC scan tables with a manifest."""

    format_id = str(FormatId.DELIMITED)
    display_name = "CSV/TSV AUC scan tables"
    file_patterns = ("*.csv", "*.tsv", "*.txt", "*.json", "*.yaml", "*.yml")
    priority = 30
    opens_folders = True

    def sniff(self, path: Path) -> bool:
        """True for a folder, a manifest, or a text table (see :mod:`.sniff`)."""
        from inspector.formats.delimited.sniff import is_delimited_source

        return is_delimited_source(path)

    def recognises_in_folder(self, path: Path) -> bool:
        """During a walk of folders (:mod:`inspector.formats.sources.discovery`): a folder
        holding a manifest (generic-delimited.md, "Loading"); files never, since their
        folder is the source."""
        from inspector.formats.delimited.sniff import MANIFEST_NAMES

        return path.is_dir() and any((path / n).is_file() for n in MANIFEST_NAMES)

    def open(self, path: Path, options: OpenOptions) -> Document:
        """:func:`open_delimited` (``options`` has nothing for this format)."""
        return open_delimited(path)

    def mismatch_reason(self, path: Path) -> str:
        """Why ``path`` is not a delimited source, for ``format.unrecognised``."""
        return "not a CSV/TSV AUC scan table with a manifest"


READER = DelimitedReader()
