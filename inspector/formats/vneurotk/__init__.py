"""VneuroTK HDF5 recording reader (schema 0 and 1), lazy and diagnostic.

Entry point: :func:`open_recording`.  Every finding comes from a rule of
:mod:`.rules` (sources: the seed document ``seeds/000_e18c8503e755d934.txt``,
the working notes ``spec/vneurotk-recording.md`` and the HDF5
specification).  The HDF5 file itself (opening it read-only, its object tree,
links, stored values, chunks and every guard against hostile files) is read by
the library of the generic HDF5 reader, :mod:`inspector.formats.hdf5`.
Modules:

* :mod:`.identify`: whether an HDF5 file is a recording at all (the reader's sniff).
* :mod:`.rules`: the rule catalogue (codes, severities, sources).
* :mod:`.header`: format header and data-mode rules.
* :mod:`.neuro`: the neural array (dense or COO), ``neuro_info``, hashing.
* :mod:`.coo`: the lazy COO neural array.
* :mod:`.checks`: deferred checks (COO coordinate range, image decoding).
* :mod:`.labels`, :mod:`.label_check`, :mod:`.trials`: stimulus labels and trial structure.
* :mod:`.scalars`: typed scalar sequences.
* :mod:`.trial_meta`: trial metadata as a DataFrame.
* :mod:`.vision`: visual representations and stimulus images.
* :mod:`.summary`: header/provenance trees and table facts.
* :mod:`.reader`: the orchestration.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.formats.document import Document, FormatId
from inspector.formats.reader_api import OpenOptions
from inspector.formats.sources.signatures import has_hdf5_signature

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
    """The registry's reader for VneuroTK recordings: HDF5 files that are recordings by the
    format document's rules (:mod:`.identify`); any other HDF5 file is left to the generic
    HDF5 reader (:mod:`inspector.formats.hdf5`)."""

    format_id = str(FormatId.RECORDING)
    display_name = "VneuroTK recordings"
    file_patterns = ("*.h5", "*.hdf5")
    #: Names a folder walk reports whatever the file holds
    #: (:mod:`inspector.formats.sources.discovery`).
    walk_patterns = file_patterns
    priority = 10
    opens_folders = False
    #: The container this format is a kind of: a file of it that is not a recording is
    #: opened by that container's reader, with :meth:`mismatch_reason` as a note.
    builds_on = "hdf5"

    def sniff(self, path: Path) -> bool:
        """True for an HDF5 file (superblock signature) that is a recording by its root
        (:func:`~.identify.is_recording`)."""
        if not has_hdf5_signature(path):
            return False
        from inspector.formats.vneurotk.identify import is_recording

        return is_recording(path)

    def open(self, path: Path, options: OpenOptions) -> Document:
        """See :func:`open_recording`; never raises for bad input."""
        from inspector.formats.vneurotk.reader import open_recording

        return open_recording(path, hash_arrays=options.hash_arrays, only=options.only)

    def mismatch_reason(self, path: Path) -> str:
        """Why a file is not read as a recording."""
        if not has_hdf5_signature(path):
            return "not an HDF5 file (no HDF5 signature)"
        from inspector.formats.vneurotk.identify import why_not

        return why_not(path)


READER = RecordingReader()
