"""The generic HDF5 reader, and the library the HDF5-based formats build on.

As a format, any file with the HDF5 superblock signature that no more specific
HDF5-based format claims (NWB, NeXus, AnnData, MATLAB 7.3, PyTables, a file of
one's own) opens as an "HDF5 file": its object tree, attributes and stored
values, with the findings about the file itself (:mod:`.rules`) and a note
from each format built on HDF5 saying why the file is not of it (the
registry's ``format.container-only``).  Entry point: :func:`open_hdf5`.

As a library (used by :mod:`inspector.formats.vneurotk`), every module reads
HDF5 with the guards against damaged and hostile files:

* :mod:`.source`: the read-only handle (locking fallback, replacement guard,
  remote sources, capped reads).
* :mod:`.tree`: the object tree, links, external storage and virtual datasets;
  :mod:`.filters`: filters that are not installed.
* :mod:`.data`, :mod:`.dtypes`, :mod:`.decode`, :mod:`.values`: the stored
  values of any dataset or attribute, decoded for display.
* :mod:`.arrays`, :mod:`.chunks`, :mod:`.chunk_summary`, :mod:`.strided`:
  lazy array references, raw chunk reads and per-chunk envelopes.
* :mod:`.heap`, :mod:`.chunk_guard`, :mod:`.elink_guard`,
  :mod:`.external_guard`, :mod:`.vds_guard`, :mod:`.read_watch`: the guards
  (heaps HDF5 would loop on, oversized values and chunks, external links,
  external storage, virtual datasets, reads that would block).
* :mod:`.rules`: every rule about an HDF5 file as such.

This ``__init__`` imports neither h5py nor numpy: the registry imports it for
``READER`` alone.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.formats.document import Document, FormatId
from inspector.formats.reader_api import OpenOptions
from inspector.formats.sources.signatures import has_hdf5_signature

if TYPE_CHECKING:
    from inspector.formats.hdf5.reader import open_hdf5

__all__ = ["FILE_PATTERNS", "READER", "Hdf5Reader", "open_hdf5"]

#: Names of HDF5 files, for the Open dialog: HDF5 itself (``.h5``, ``.hdf5``, ``.he5``
#: HDF-EOS5), NWB, NeXus, AnnData, MATLAB 7.3 (``.mat``, which is also MATLAB's older,
#: non-HDF5 format), Keras/PyTables conventions.  Recognition is by content.
FILE_PATTERNS = ("*.h5", "*.hdf5", "*.hdf", "*.he5", "*.nwb", "*.nxs", "*.h5ad", "*.mat",
                 "*.h5py", "*.hd5", "*.keras", "*.loom")
#: Names that are HDF5 whatever the file holds (a folder walk reports such a file even
#: when it is damaged); ``.mat``, ``.hdf``, ``.keras`` are also other formats' names.
WALK_PATTERNS = ("*.h5", "*.hdf5", "*.he5", "*.nwb", "*.nxs", "*.h5ad")


def __getattr__(name: str) -> Any:
    """``open_hdf5``, imported with h5py on first use (PEP 562)."""
    if name == "open_hdf5":
        return getattr(importlib.import_module(f"{__name__}.reader"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Hdf5Reader:
    """The registry's reader for any HDF5 file no more specific format claims."""

    format_id = str(FormatId.HDF5)
    display_name = "HDF5 files"
    file_patterns = FILE_PATTERNS
    walk_patterns = WALK_PATTERNS
    #: After every format built on HDF5 (a VneuroTK recording is asked first).
    priority = 90
    opens_folders = False

    def sniff(self, path: Path) -> bool:
        """True for any file with the HDF5 superblock signature (HDF5 specification)."""
        return has_hdf5_signature(path)

    def open(self, path: Path, options: OpenOptions) -> Document:
        """See :func:`open_hdf5`; never raises for bad input."""
        from inspector.formats.hdf5.reader import open_hdf5

        return open_hdf5(path, only=options.only)

    def mismatch_reason(self, path: Path) -> str:
        """Why a file is not read as HDF5."""
        return "not an HDF5 file (no HDF5 signature)"


READER = Hdf5Reader()
