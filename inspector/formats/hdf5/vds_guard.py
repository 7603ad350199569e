"""Virtual datasets with too many mappings, refused before HDF5 opens them.

HDF5 decodes every mapping of a virtual dataset (its source file and dataset names
and two selections each) when it opens the dataset, and copies them all again for
its creation property list: 100 000 mappings cost gigabytes inside HDF5, where no
limit of ours reaches.  So before a dataset is opened, :func:`member_refusal` (or
:func:`path_refusal`, for a path) counts its mappings from the file's bytes:

- the object header of the dataset is found by its hard link's address
  (``H5Lget_info``, which opens nothing) and parsed by :mod:`.hdf5_heap`'s bounded
  header parser;
- its *Data Layout Message* (version 4 or later, layout class 3, "virtual") names
  the global heap object holding the mappings: a collection address and an object
  index (HDF5 File Format Specification 3.0, IV.A.2.i "Data Layout Message");
- that object starts with a version byte and the number of mappings, a
  size-of-lengths integer (III.E "Global Heap", and the VDS global heap block of the
  same message).

A dataset with more than :data:`MAX_MAPPINGS` mappings is refused
(``vds.too-many-mappings``, naming the dataset and the count) and never opened.
What cannot be parsed (another layout, a header or heap this parser does not follow,
a file not opened through :func:`.hdf5_heap.register`) is left to HDF5 as before.
Nothing here imports Qt.
"""

from __future__ import annotations

from typing import Any

import h5py

from inspector.formats.hdf5.heap import HeapGuard, guard_of

#: Mappings of one virtual dataset above which it is not opened (the number of source
#: datasets :mod:`.external_guard` checks for one dataset).
MAX_MAPPINGS = 16384
#: Objects of one global heap collection walked to find the mapping block.
MAX_HEAP_OBJECTS = 1 << 16
#: Soft links followed from one path (HDF5's own default, ``H5L_NUM_LINKS``).
MAX_SOFT_LINKS = 16
_LAYOUT_MSG = 0x0008
_VIRTUAL = 3
_GCOL = b"GCOL"


class TooManyMappings(OSError):
    """A virtual dataset with more mappings than are opened; ``count`` is how many."""

    def __init__(self, location: str, count: int) -> None:
        super().__init__(message(location, count))
        self.location = location
        self.count = count


def message(location: str, count: int) -> str:
    """The finding's text for the dataset at ``location`` with ``count`` mappings."""
    return (f"{location}: a virtual dataset of {count:,} mappings, more than the "
            f"{MAX_MAPPINGS:,} opened (HDF5 would decode them all into memory); not opened")


def mapping_count(guard: HeapGuard, addr: int) -> int | None:
    """The number of mappings of the virtual dataset whose object header is at ``addr``
    (relative to the base), read from its layout message and global heap; None when it
    is not a virtual dataset or its bytes are not understood here."""
    with guard._lock:
        for mtype, body in guard.messages(addr):
            if mtype == _LAYOUT_MSG:
                return _layout_count(guard, body)
    return None


def _layout_count(guard: HeapGuard, body: bytes) -> int | None:
    """The mapping count of a layout message ``body`` (None unless version >= 4, class 3)."""
    lay = guard.layout
    width = lay.sizeof_addr
    if len(body) < 6 + width or body[0] < 4 or body[1] != _VIRTUAL:
        return None
    addr = int.from_bytes(body[2:2 + width], "little")
    if addr == (1 << 8 * width) - 1:
        return 0  # no mappings stored (the undefined address)
    index = int.from_bytes(body[2 + width:6 + width], "little")
    found = _heap_object(guard, addr + lay.base, index)
    if found is None or found[1] < 1 + lay.sizeof_size:
        return None
    head = guard._read(found[0], 1 + lay.sizeof_size)
    if len(head) < 1 + lay.sizeof_size or head[0] > 1:
        return None
    return int.from_bytes(head[1:], "little")


def _heap_object(guard: HeapGuard, start: int, index: int) -> tuple[int, int] | None:
    """``(byte offset of its data, its size)`` of object ``index`` of the global heap
    collection at byte ``start``, walking the object headers only (bounded by the
    collection's recorded size and :data:`MAX_HEAP_OBJECTS`)."""
    length = guard.layout.sizeof_size
    head = guard._read(start, 8 + length)
    if len(head) < 8 + length or head[:4] != _GCOL:
        return None
    end = start + int.from_bytes(head[8:8 + length], "little")
    objhdr = 8 + length
    pos = start + objhdr
    for _ in range(MAX_HEAP_OBJECTS):
        if pos + objhdr > end:
            return None
        raw = guard._read(pos, objhdr)
        if len(raw) < objhdr:
            return None
        found = int.from_bytes(raw[:2], "little")
        size = int.from_bytes(raw[8:8 + length], "little")
        if found == index:
            return pos + objhdr, size
        if found == 0:
            return None  # free space: the rest of the collection
        pos += objhdr + ((size + 7) & ~7)
    return None


def member_refusal(group: Any, raw_name: bytes, location: str) -> TooManyMappings | None:
    """The refusal of member ``raw_name`` of ``group`` (a hard link to a virtual dataset
    of too many mappings, or a soft link to one in the same file), or None; nothing is
    opened but the groups on a soft link's way."""
    return _refusal(group, raw_name, location, 0)


def path_refusal(f: Any, path: bytes, location: str) -> TooManyMappings | None:
    """:func:`member_refusal` of the object at the absolute ``path`` of the file ``f``."""
    parent, _, name = path.rstrip(b"/").rpartition(b"/")
    if not name:
        return None
    try:
        group = f[parent or b"/"]
    except (KeyError, OSError, RuntimeError, ValueError):
        return None
    if not isinstance(group, h5py.Group):
        return None
    return _refusal(group, name, location, 0)


def _refusal(group: Any, raw_name: bytes, location: str, hops: int) -> TooManyMappings | None:
    guard = guard_of(group)
    if guard is None:
        return None
    try:
        info = group.id.links.get_info(raw_name)
        if info.type == h5py.h5l.TYPE_SOFT:
            value = group.id.links.get_val(raw_name)
            base = h5py.h5i.get_name(group.id) or b"/"
        elif info.type != h5py.h5l.TYPE_HARD:
            return None  # another file: checked when its own document opens it
    except (AttributeError, KeyError, OSError, RuntimeError, TypeError, ValueError):
        return None
    if info.type == h5py.h5l.TYPE_SOFT:
        if hops >= MAX_SOFT_LINKS:
            return None  # HDF5 refuses the path itself
        target = value if value.startswith(b"/") else base.rstrip(b"/") + b"/" + value
        parent, _, name = target.rstrip(b"/").rpartition(b"/")
        try:
            owner = group.file[parent or b"/"]
        except (KeyError, OSError, RuntimeError, ValueError):
            return None
        return _refusal(owner, name, location, hops + 1) if isinstance(owner, h5py.Group) \
            else None
    return refusal_at(guard, int(info.u), location)


def refusal_at(guard: HeapGuard, addr: int, location: str) -> TooManyMappings | None:
    """The refusal of the object whose header is at ``addr`` (relative to the base: a
    hard link's address, ``H5Lget_info``) when it is a virtual dataset of more than
    :data:`MAX_MAPPINGS` mappings, or None (:func:`member_refusal` once the link is
    known to be a hard one; the tree asks for the link once and shares it)."""
    count = mapping_count(guard, addr)
    return TooManyMappings(location, count) if count is not None and count > MAX_MAPPINGS \
        else None
