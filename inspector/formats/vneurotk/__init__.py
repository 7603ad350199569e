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
* :mod:`.checks`: deferred checks (COO coordinate range, image decoding).
* :mod:`.labels`, :mod:`.trials`: stimulus labels and trial structure.
* :mod:`.trial_meta`: trial metadata as a DataFrame.
* :mod:`.vision`: visual representations and stimulus images.
* :mod:`.tree`: raw HDF5 object tree, links and virtual datasets.
* :mod:`.summary`: header/provenance trees and table facts.
* :mod:`.reader`: the orchestration.
"""

from __future__ import annotations

from pathlib import Path

from inspector.formats.document import Document, FormatId
from inspector.formats.reader_api import OpenOptions
from inspector.formats.signatures import has_hdf5_signature
from inspector.formats.vneurotk.reader import SUMMARY_KEYS, open_recording

__all__ = ["READER", "SUMMARY_KEYS", "RecordingReader", "open_recording"]


class RecordingReader:
    """The registry's reader for VneuroTK recordings (any file with an HDF5 signature)."""

    format_id = str(FormatId.RECORDING)
    display_name = "VneuroTK recordings"
    file_patterns = ("*.h5", "*.hdf5")
    priority = 10
    opens_folders = False

    def sniff(self, path: Path) -> bool:
        return has_hdf5_signature(path)

    def open(self, path: Path, options: OpenOptions) -> Document:
        return open_recording(path, hash_arrays=options.hash_arrays)

    def mismatch_reason(self, path: Path) -> str:
        return "not an HDF5 file (no HDF5 signature)"


READER = RecordingReader()
