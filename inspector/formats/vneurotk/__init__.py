"""VneuroTK HDF5 recording reader (schema 0 and 1), lazy and diagnostic.

Entry point: :func:`open_recording`.  Every finding comes from a rule of
:mod:`.rules` (sources: the seed document ``seeds/000_e18c8503e755d934.txt``,
the working notes ``spec/vneurotk-recording.md`` and the HDF5
specification).  Modules:

* :mod:`.rules`: the rule catalogue (codes, severities, sources).
* :mod:`.source`: read-only HDF5 handle, locking fallback, replacement guard,
  capped reads.
* :mod:`.header`: format header and data-mode rules.
* :mod:`.neuro`: the neural array (dense or COO), ``neuro_info``, hashing.
* :mod:`.arrays`: lazy dense and COO array references.
* :mod:`.chunks`, :mod:`.chunk_summary`: raw HDF5 chunk reads and decoding, and
  the per-chunk min/max summaries behind fast envelopes of large datasets.
* :mod:`.checks`: deferred checks (COO coordinate range, image decoding).
* :mod:`.labels`, :mod:`.trials`: stimulus labels and trial structure.
* :mod:`.trial_meta`: trial metadata as a DataFrame.
* :mod:`.vision`: visual representations and stimulus images.
* :mod:`.tree`: raw HDF5 object tree, links and virtual datasets.
* :mod:`.summary`: header/provenance trees and table facts.
* :mod:`.reader`: the orchestration.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.formats.document import Document, FormatId
from inspector.formats.reader_api import OpenOptions
from inspector.formats.signatures import has_hdf5_signature

if TYPE_CHECKING:
    from inspector.formats.vneurotk.reader import SUMMARY_KEYS, open_recording

__all__ = ["READER", "SUMMARY_KEYS", "RecordingReader", "open_recording"]


def __getattr__(name: str) -> Any:
    """``open_recording`` and ``SUMMARY_KEYS``, imported with h5py on first use (PEP 562):
    the registry imports this package for ``READER`` alone."""
    if name in ("SUMMARY_KEYS", "open_recording"):
        return getattr(importlib.import_module(f"{__name__}.reader"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RecordingReader:
    """The registry's reader for VneuroTK recordings (any file with an HDF5 signature)."""

    format_id = str(FormatId.RECORDING)
    display_name = "VneuroTK recordings"
    file_patterns = ("*.h5", "*.hdf5", "*.nwb")
    #: Names a folder walk reports whatever the file holds (:mod:`inspector.formats.discovery`).
    walk_patterns = file_patterns
    priority = 10
    opens_folders = False

    def sniff(self, path: Path) -> bool:
        """True for any file with the HDF5 superblock signature (HDF5 specification)."""
        return has_hdf5_signature(path)

    def open(self, path: Path, options: OpenOptions) -> Document:
        """See :func:`open_recording`; never raises for bad input."""
        from inspector.formats.vneurotk.reader import open_recording

        return open_recording(path, hash_arrays=options.hash_arrays, only=options.only)

    def mismatch_reason(self, path: Path) -> str:
        """Why a file is not read as a recording."""
        return "not an HDF5 file (no HDF5 signature)"


READER = RecordingReader()
