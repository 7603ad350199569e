"""Whether an HDF5 file is a VneuroTK recording, from its root alone.

The VneuroTK format document (seed 000), "Format header": "The root
attributes identify the file and select the reader before recording data is
interpreted."  A file is read as a recording when:

* it declares itself one: the root attribute ``vneurotk_format`` or
  ``vneurotk_schema_version`` (schema 1; a partial header, a wrong magic or a
  bad version is then a broken recording, "rejected rather than guessed");
* or it is a historical schema-0 recording, which has no header at all
  ("Compatibility policy"): it is known by what the schema-0 writer (vneurotk
  0.0.1, ``io/h5_persistence.py``) always stores beside its neural data:
  the neural data itself (the dataset ``neuro``, or the COO datasets
  ``neuro_row``/``neuro_col``/``neuro_data``), the root attribute
  ``neuro_format`` that says how it is stored, or the root attribute
  ``data_mode`` together with the trial arrays it is written with
  (``trial``, ``trial_starts``, ``trial_ends``, ``vision_onsets``).

Any other HDF5 file (NWB, NeXus, AnnData, MATLAB 7.3, PyTables, a file of
one's own) is not a recording: the generic HDF5 reader
(:mod:`inspector.formats.hdf5`) opens it, and :func:`why_not` says why it is
not a recording.  The reference reader would open such a file as schema 0 and
fail for the missing ``neuro`` dataset; :func:`~.reader.open_recording`,
asked directly, still does.

Only the root group's link and attribute names are read (no object is
opened, no link followed); the file is opened through
:class:`~inspector.formats.hdf5.source.H5Source`, with its guards.
"""

from __future__ import annotations

from pathlib import Path

import h5py

from inspector.formats.hdf5.source import H5Source, OpenError

#: Root attributes of the schema-1 format header that declare a recording.
HEADER_ATTRS = ("vneurotk_format", "vneurotk_schema_version")
#: Root datasets holding a recording's neural data (dense, or COO components).
NEURAL_DATA = ("neuro", "neuro_row", "neuro_col", "neuro_data")
#: Root datasets the writer stores with ``data_mode`` (``_write_trial_arrays``).
TRIAL_ARRAYS = ("trial", "trial_starts", "trial_ends", "vision_onsets")

NOT_A_RECORDING = (
    "not a VneuroTK recording: no VneuroTK header (root attribute vneurotk_format or "
    "vneurotk_schema_version) and none of a historical (schema 0) recording's marks "
    "(neural data /neuro or /neuro_row, /neuro_col, /neuro_data; root attribute "
    "neuro_format; root attribute data_mode with trial arrays)")


def _has_attr(f: h5py.File, name: str) -> bool:
    return bool(h5py.h5a.exists(f.id, name.encode()))


def _has_link(f: h5py.File, name: str) -> bool:
    """True when the root group has a link ``name`` (of any kind; not followed)."""
    return bool(f.id.links.exists(name.encode()))


def recording_mark(f: h5py.File) -> str | None:
    """What marks the open file ``f`` as a recording (``"root attribute
    vneurotk_format"``), or None when nothing does.

    Raises:
        OSError, RuntimeError, ValueError: HDF5 cannot read the root group's names.
    """
    for name in HEADER_ATTRS:
        if _has_attr(f, name):
            return f"root attribute {name}"
    for name in NEURAL_DATA:
        if _has_link(f, name):
            return f"neural data /{name}"
    if _has_attr(f, "neuro_format"):
        return "root attribute neuro_format"
    if _has_attr(f, "data_mode"):
        arrays = [n for n in TRIAL_ARRAYS if _has_link(f, n)]
        if arrays:
            return f"root attribute data_mode with /{arrays[0]}"
    return None


def _mark(path: Path) -> str | None:
    """The mark :func:`recording_mark` finds in the file ``path``, or None (also when HDF5
    cannot open the file or read its root's names)."""
    try:
        src = H5Source(path)
    except (OpenError, OSError, RuntimeError, ValueError):
        return None
    try:
        return recording_mark(src.file)
    except (OSError, RuntimeError, ValueError, KeyError, TypeError):
        return None
    finally:
        src.close()


def is_recording(path: Path) -> bool:
    """True when the HDF5 file ``path`` is a VneuroTK recording by the rules above.

    False when HDF5 cannot open the file or read its root's names (truncated,
    locked, damaged): nothing in it says it is a recording, and the generic
    HDF5 reader reports why it cannot be read.  Never raises.
    """
    return _mark(path) is not None


def why_not(path: Path) -> str:
    """Why the HDF5 file ``path``, which :func:`is_recording` declined, is not read as a
    recording (one phrase, for a note).  Never raises; does not open the file again (the
    document the note belongs to has it open)."""
    return NOT_A_RECORDING
