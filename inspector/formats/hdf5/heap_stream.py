"""A variable-length string attribute too large to read whole, read in pages from its heap.

HDF5 reads an attribute whole: a 1 GB variable-length string is a 1 GB allocation
(and copies) before anything is written.  Its bytes are one object of a global heap
collection, named by the attribute's 16-byte descriptor (length, collection address,
object index: HDF5 File Format Specification 3.0, III.E "Global Heap" and IV.A.2.d
"Variable-Length" datatypes).  :func:`heap_text` finds that object from the
attribute message and the collection's object headers (after the checks HDF5 would
crash or loop without: :mod:`.hdf5_heap`), and :meth:`HeapText.pages` reads its
bytes :data:`PAGE` at a time with ``pread``, never through HDF5, so that
``inspector dump FILE::/path@name --all --out FILE`` writes it in bounded memory.
Nothing here imports Qt.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import h5py

from inspector.formats.hdf5.heap import (
    MAX_VALUE_BYTES,
    CorruptGlobalHeap,
    HeapGuard,
    guard_of,
)
from inspector.formats.hdf5.vds_guard import _heap_object

#: Bytes read (and written) at a time.
PAGE = 1 << 20


@dataclass(frozen=True)
class HeapText:
    """The stored bytes of one variable-length string: ``size`` bytes at file offset
    ``offset`` (absolute), read through ``guard``."""

    guard: HeapGuard
    offset: int
    size: int

    def pages(self) -> Iterator[bytes]:
        """The bytes in order, :data:`PAGE` at a time.

        Raises:
            OSError: the file cannot be read, or ends before the value does.
        """
        done = 0
        while done < self.size:
            n = min(PAGE, self.size - done)
            with self.guard._lock:
                data = self.guard._read(self.offset + done, n)
            if len(data) != n:
                raise OSError(f"the value's bytes end at byte {self.offset + done + len(data)} "
                              f"of the file, {self.size - done - len(data):,} bytes early")
            yield data
            done += n


def heap_text(obj: Any, raw_name: bytes) -> HeapText | None:
    """The :class:`HeapText` of the scalar variable-length string attribute ``raw_name``
    of ``obj`` when its value is over :data:`~.hdf5_heap.MAX_VALUE_BYTES` (the values
    read whole are read by HDF5), stored in the object header (not in dense attribute
    storage) of a file with 8-byte addresses; None otherwise.

    Raises:
        CorruptGlobalHeap, CorruptDatatype: as :func:`~.hdf5_heap.check_attribute`.
        OSError, RuntimeError, KeyError: HDF5 cannot open the attribute.
    """
    guard = guard_of(obj)
    if guard is None or guard.layout.sizeof_addr != 8:
        return None
    aid = h5py.h5a.open(obj.id, raw_name)
    tid = aid.get_type()
    if aid.shape != () or not isinstance(tid, h5py.h5t.TypeStringID) \
            or not tid.is_variable_str():
        return None
    guard.check_datatype(obj, raw_name)
    with guard._lock:
        data = guard._attribute_data(obj, raw_name)
        problem = guard._data_problem(data, None) if data is not None else None
    if problem is not None:
        raise CorruptGlobalHeap(problem)
    if data is None or len(data) != 16:
        return None
    size, addr, index = struct.unpack("<IQI", data)
    if size <= MAX_VALUE_BYTES:
        return None
    with guard._lock:
        found = _heap_object(guard, addr + guard.layout.base, index)
    if found is None or found[1] < size:
        return None
    return HeapText(guard, found[0], size)
