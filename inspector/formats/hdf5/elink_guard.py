"""External links are never followed into a named pipe, socket or device.

HDF5 follows an external link by opening the file it names with ``open(2)``
(HDF5 library, ``H5Lcreate_external``): a named pipe there waits for a writer
forever and a device never ends, so one link would hang the reader (the
architecture's contract: a bad file never hangs the app).  HDF5 asks an
external-link callback (``H5Pset_elink_cb``) before it opens the target; h5py
does not expose it, so :func:`install` sets it through ``ctypes`` on a link
access property list and makes that list the one h5py's high-level objects use
(``h5py._hl.base.dlapl``, ``None`` = the library default otherwise).  The
callback refuses targets that exist and are not regular files, and regular files
outside the linking document's folder tree (unless allowed:
:func:`.external_guard.link_refusal`); HDF5 then reports the link as unresolvable,
which the reader already turns into ``link.dangling`` (the tree reports a target out
of bounds as ``external.outside`` before it asks HDF5).

A file read from a URL (through h5py's file-object driver) has no folder on
this machine: HDF5 would look for the target of its external links relative
to the working directory.  Its HDF5 name is registered with
:func:`refuse_from`, and the callback refuses every external link it holds
(the tree shows them resolved against the URL instead,
docs/architecture.md "Remote sources").

Where the loaded HDF5 library cannot be found (not Linux, or a build without
the symbol) nothing is installed and links behave as before.
"""

from __future__ import annotations

import ctypes
import os
import stat
import threading
from typing import Any

import h5py
import h5py._hl.base as h5py_base

from inspector.formats.hdf5 import external_guard

#: ``herr_t (*H5L_elink_traverse_t)(const char *parent_file_name, const char *parent_group_name,
#: const char *child_file_name, const char *child_object_name, unsigned *acc_flags,
#: hid_t fapl_id, void *op_data)`` (hid_t is 64-bit since HDF5 1.10).
_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                             ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint), ctypes.c_int64,
                             ctypes.c_void_p)

_lock = threading.Lock()
_state: dict[str, Any] = {}
#: HDF5 names of open files whose external links are never followed (files read from URLs).
_refused: set[str] = set()


def refuse_from(filename: str) -> None:
    """Refuse every external link of the open file HDF5 names ``filename``
    (``h5py.File.filename``; a file object's repr for a file read from a URL)."""
    with _lock:
        _refused.add(filename)


def allow_from(filename: str) -> None:
    """Forget :func:`refuse_from` for ``filename`` (its file was closed)."""
    with _lock:
        _refused.discard(filename)


def special_target(parent_file: str, child_file: str) -> bool:
    """True when ``child_file`` (as HDF5 looks for it: beside ``parent_file``, then as given)
    exists and is not a regular file (a named pipe, socket or device)."""
    candidates = [child_file]
    if not os.path.isabs(child_file):
        candidates.insert(0, os.path.join(os.path.dirname(parent_file), child_file))
    for candidate in candidates:
        try:
            mode = os.stat(candidate).st_mode
        except (OSError, ValueError):
            continue
        return not stat.S_ISREG(mode)
    return False


def _traverse(parent_file: bytes | None, _group: bytes | None, child_file: bytes | None,
              _obj: bytes | None, _flags: Any, _fapl: int, _data: Any) -> int:
    try:
        parent = os.fsdecode(parent_file or b"")
        child = os.fsdecode(child_file or b"")
        if parent in _refused or special_target(parent, child):
            return -1
        return -1 if external_guard.link_refusal(parent, child) is not None else 0
    except Exception:  # noqa: BLE001 - an exception must never cross into C
        return -1


def _hdf5_library() -> ctypes.CDLL | None:
    """The HDF5 library h5py loaded (the same handle: property list ids are shared)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split()[-1] for line in maps if "libhdf5" in line}
    except OSError:
        return None
    for path in sorted(paths):
        name = os.path.basename(path)
        if name.startswith("libhdf5") and not name.startswith("libhdf5_hl"):
            try:
                lib = ctypes.CDLL(path)
                lib.H5Pset_elink_cb  # noqa: B018 - the symbol must be there
            except (OSError, AttributeError):
                continue
            return lib
    return None


def install() -> bool:
    """Set the callback on h5py's default link access list, once per process.

    Returns:
        True when the guard is in place (now or before), False where it cannot be.
    """
    with _lock:
        if "lapl" in _state:
            return True
        if h5py_base.dlapl is not None:  # someone else's list: leave it alone
            return False
        lib = _hdf5_library()
        if lib is None:
            return False
        lapl = h5py.h5p.create(h5py.h5p.LINK_ACCESS)
        callback = _CALLBACK(_traverse)
        lib.H5Pset_elink_cb.argtypes = [ctypes.c_int64, _CALLBACK, ctypes.c_void_p]
        lib.H5Pset_elink_cb.restype = ctypes.c_int
        if lib.H5Pset_elink_cb(lapl.id, callback, None) < 0:
            return False
        _state.update(lapl=lapl, callback=callback)  # kept alive while h5py uses them
        h5py_base.dlapl = lapl
        return True
