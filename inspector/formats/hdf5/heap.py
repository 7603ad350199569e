"""Check a variable-length attribute's global heap before HDF5 decodes it.

Variable-length strings and sequences, and region references, live in the
file's global heap: an attribute holds, per element, a descriptor naming a
*global heap collection* (signature ``GCOL``) and an object index in it.  To
read such a value, HDF5 decodes the whole collection, walking its objects by
their recorded sizes (HDF5 File Format Specification 3.0, III.E "Global Heap";
``H5HG__cache_heap_deserialize`` in HDF5 2.0.0).  A free-space object of size
0, or a size running past the collection's end, makes that walk never end:
HDF5 loops inside C, where no timeout can reach it.

So before a variable-length attribute is read, :class:`HeapGuard` finds the
attribute message in its object's header (read with our own bounded parser,
version 1 and 2 headers with their continuation chunks), takes the collection
addresses its descriptors name, and walks each collection itself with the
same rules, bounded by the collection's size.  A collection whose walk would
not end is refused with :class:`CorruptGlobalHeap` (an ``OSError``, so callers
report it as an unreadable attribute).  What cannot be located (attributes in
dense storage, a header this parser does not follow) is left to HDF5 as before.

The same header parser gives each attribute's (and variable-length dataset's)
stored datatype, which :func:`datatype_problem` checks before HDF5 converts a
value: a variable-length datatype of a reserved type crashes HDF5 (refused with
:class:`CorruptDatatype`, an ``OSError`` too).  Objects are located by their
header address from ``H5Gget_objinfo`` (:func:`object_identity`), which, unlike
``H5Oget_info``, does not read their attribute storage.
"""

from __future__ import annotations

import os
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from inspector.formats.hdf5.heap_sizes import (
    MAX_COLLECTION_BYTES,
    CollectionWalk,
    dataset_bytes,
    descriptor_sizes,
    selected_sizes,
    value_sizes,
    walk_collection,
)
from inspector.formats.hdf5.object_header import (
    attribute_body,
    datatype_problem,
    header_messages,
    object_address,
)

#: Object headers kept parsed (an object's attributes are checked one by one).
MAX_CACHED_HEADERS = 256
#: Attribute data scanned byte by byte in Python (larger data: with NumPy).
SMALL_DATA_BYTES = 256
#: Distinct candidate collection addresses checked per attribute.
MAX_CANDIDATES = 4096
#: Bytes of one variable-length value (a string or a sequence) read: a larger one is
#: not read (``hdf5.value-too-large``); ``inspector dump --all`` writes it.
MAX_VALUE_BYTES = 1 << 20
#: Bytes of variable-length data read at once (an attribute, or a page of a dataset).
MAX_READ_BYTES = 16 << 20

_DATATYPE_MSG = 0x0003
_ATTRIBUTE_MSG = 0x000C
_SYMBOL_TABLE_MSG = 0x0011
_HEAP = b"HEAP"
_FREE_NULL = 1  # the free list's end (HDF5 File Format Specification 3.0, III.D)
_GCOL = b"GCOL"


class CorruptGlobalHeap(OSError):
    """A global heap collection that HDF5 could not decode without looping.

    ``str()`` names the collection's byte offset and the rule broken (HDF5
    File Format Specification 3.0, III.E "Global Heap").
    """


class ValueTooLarge(OSError):
    """Variable-length values declaring more bytes than are read at once.

    Raised before HDF5 reads anything: the sizes come from the values' descriptors
    (each records its element count; HDF5 allocates that much before copying from
    the global heap, HDF5 File Format Specification 3.0, III.E "Global Heap").
    ``str()`` says what is too large; ``largest`` is the largest value's size and
    ``total`` the bytes of every value of the read, both in bytes.
    """

    def __init__(self, message: str, largest: int, total: int) -> None:
        super().__init__(message)
        self.largest = largest
        self.total = total


class CorruptDatatype(OSError):
    """An attribute's datatype that HDF5 would crash on when converting its values.

    ``str()`` names the datatype field and the rule broken (HDF5 File Format
    Specification 3.0, IV.A.2.d "Datatype Message").
    """


@dataclass
class _Layout:
    base: int
    sizeof_addr: int
    sizeof_size: int


@dataclass
class HeapGuard:
    """The global heap checks of one open HDF5 file (thread-safe).

    Args:
        path: the file, opened again read-only for raw reads (``os.pread``), or a
            remote path (``RemotePath``) read through another handle of its range reader.
        layout: the superblock's base address and address/length sizes (bytes).
    """

    path: Any
    layout: _Layout
    _fd: int | None = None
    _handle: Any = None
    _size: int = 0
    _collections: dict[int, CollectionWalk] = field(default_factory=dict)
    _headers: dict[int, list[tuple[int, bytes]]] = field(default_factory=dict)
    _datasets: dict[int, str | None] = field(default_factory=dict)
    _attributes: dict[int, dict[bytes, tuple[bytes | None, bytes]]] = field(
        default_factory=dict)
    _groups: dict[int, str | None] = field(default_factory=dict)
    _sizes: dict[int, np.ndarray | None] = field(default_factory=dict)
    _corrupt: bool = False  # a group checked so far has a heap HDF5 would loop on
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        """Close the raw file descriptor (idempotent)."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            if self._handle is not None:
                self._handle.close()
                self._handle = None

    def check_attribute(self, obj: Any, raw_name: bytes, element: int | None = None) -> None:
        """Refuse an attribute whose variable-length values point into a corrupt collection.

        Args:
            obj: the h5py object holding the attribute.
            raw_name: the attribute's name as stored (bytes).
            element: for a plain variable-length type (its values are
                descriptors only), the bytes of one element of a sequence (1 for
                a string); each descriptor's length is then checked against its
                heap object, since HDF5 allocates what the length says first.

        Raises:
            CorruptGlobalHeap: a collection named by the attribute would make
                HDF5 loop (its byte offset and the broken rule in the message).
        """
        with self._lock:
            data = self._attribute_data(obj, raw_name)
            if data is None:
                return
            problem = self._data_problem(data, element)
        if problem is not None:
            raise CorruptGlobalHeap(problem)
        if element and len(data) == 16 and self.layout.sizeof_addr == 8:  # one value
            size = int.from_bytes(data[:4], "little") * element  # (its length, first)
            if size <= min(MAX_VALUE_BYTES, MAX_READ_BYTES):
                return
        sizes = value_sizes(data, element, self.layout.sizeof_addr) if element else None
        if sizes is not None:
            size_check(sizes, "the attribute")

    def check_datatype(self, obj: Any, raw_name: bytes) -> None:
        """Refuse an attribute whose stored datatype HDF5 would crash on (see
        :func:`datatype_problem`); read from the attribute message, before HDF5 reads
        the value.

        Raises:
            CorruptDatatype: the datatype field and the broken rule in the message.
        """
        with self._lock:
            stored = self._attribute_message(obj, raw_name)
        problem = datatype_problem(stored[0]) if stored is not None and stored[0] else None
        if problem is not None:
            raise CorruptDatatype(f"its datatype {problem}: HDF5 would crash reading it")

    def _data_problem(self, data: bytes, element: int | None) -> str | None:
        """The first problem of the collections (and descriptors) ``data`` names."""
        for addr in self._candidates(data):
            problem = self._collection_problem(addr)
            if problem is not None:
                return problem
        return self._length_problem(data, element) if element else None

    def _length_problem(self, data: bytes, element: int) -> str | None:
        """A descriptor whose length is more than its heap object holds."""
        width = 8 + self.layout.sizeof_addr
        if self.layout.sizeof_addr != 8 or len(data) % width:
            return None
        desc = np.frombuffer(data, dtype=[("n", "<u4"), ("addr", "<u8"), ("index", "<u4")])
        for n, addr, index in desc[desc["n"] > 0].tolist()[:MAX_CANDIDATES]:
            if self._read(int(addr) + self.layout.base, 4) != _GCOL:
                return (f"a variable-length value of {n * element} bytes points at byte "
                        f"{int(addr) + self.layout.base}, where there is no global heap "
                        "collection")
            walk = self._collection(int(addr))
            held = walk.sizes.get(int(index)) if walk.problem is None else None
            if held is not None and n * element > held:
                return (f"a variable-length value declares {n * element} bytes but its object "
                        f"({index}) in the global heap collection at byte "
                        f"{int(addr) + self.layout.base} holds {held}")
        return None

    def group_problem(self, group: Any) -> str | None:
        """What is wrong with the local heap holding the member names of ``group`` (a
        group stored with a symbol table), or None (see :meth:`problem_at`)."""
        addr = object_address(group)
        return None if addr is None else self.problem_at(addr)

    def problem_at(self, addr: int) -> str | None:
        """The same for the object whose header is at ``addr`` (relative to the base),
        read before HDF5 opens it; cached per object.

        HDF5 loads a group's local heap, its whole data segment and its free list,
        before it looks up or counts one name (HDF5 File Format Specification 3.0,
        III.D "Local Heaps"), and follows the free list without checking for a cycle: a
        free block naming itself as the next one makes it allocate until memory runs
        out.  Even asking HDF5 for the group's object info does so.
        """
        with self._lock:
            if addr not in self._groups:
                if len(self._groups) >= MAX_CACHED_HEADERS * 16:
                    self._groups.clear()
                self._groups[addr] = next(
                    (self._local_heap_problem(body) for mtype, body in self.messages(addr)
                     if mtype == _SYMBOL_TABLE_MSG), None)
                if self._groups[addr] is not None:
                    self._corrupt = True
            return self._groups[addr]

    def _local_heap_problem(self, body: bytes) -> str | None:
        lay = self.layout
        width, length = lay.sizeof_addr, lay.sizeof_size
        if len(body) < 2 * width:
            return None
        heap = int.from_bytes(body[width:2 * width], "little") + lay.base
        head = self._read(heap, 8 + 2 * length + width)
        if len(head) < 8 + 2 * length + width or head[:4] != _HEAP:
            return None  # HDF5 reports a heap it cannot find itself
        size = int.from_bytes(head[8:8 + length], "little")
        free = int.from_bytes(head[8 + length:8 + 2 * length], "little")
        data = int.from_bytes(head[8 + 2 * length:8 + 2 * length + width], "little") + lay.base
        where = f"the local heap at byte {heap}"
        if data + size > self._limit() + lay.base:
            return (f"{where} records a data segment of {size} bytes at byte {data}, past "
                    "the end of the file")
        if size > MAX_COLLECTION_BYTES:
            return None
        return _free_list_problem(self._read(data, size), free, length, where)

    def check_dataset(self, ds: Any, selection: Any = Ellipsis) -> None:
        """Refuse a variable-length dataset whose values point into a corrupt collection,
        or whose ``selection`` declares too many bytes (:func:`size_check`).

        Its stored descriptors are read raw (contiguous, compact, or chunked
        without filters or with deflate only; at most :data:`MAX_DATASET_BYTES`).

        Its stored datatype is checked first (see :func:`datatype_problem`).

        Raises:
            CorruptDatatype: its datatype would crash HDF5.
            CorruptGlobalHeap: see :meth:`check_attribute`.
            ValueTooLarge: see :func:`size_check`.
        """
        self._check_dataset(ds)
        sizes = self.dataset_sizes(ds)
        if sizes is not None:
            size_check(selected_sizes(sizes, selection), "the selection")

    def dataset_sizes(self, ds: Any) -> np.ndarray | None:
        """The bytes of each value of a plain variable-length dataset (int64, the
        dataset's shape), from its stored descriptors; None when they cannot all be
        read raw (see :func:`descriptor_sizes`).  Cached per dataset."""
        element = element_bytes(ds.dtype)
        addr = object_address(ds)
        if element is None or addr is None:
            return None
        with self._lock:
            if addr not in self._sizes:
                if len(self._sizes) >= MAX_CACHED_HEADERS:
                    self._sizes.clear()
                try:
                    self._sizes[addr] = descriptor_sizes(self, ds, addr, element)
                except (OSError, RuntimeError, ValueError, TypeError, zlib.error):
                    self._sizes[addr] = None
            return self._sizes[addr]

    def _check_dataset(self, ds: Any) -> None:
        with self._lock:
            addr = object_address(ds)
            if addr is None:
                return
            problem = next((datatype_problem(body) for mtype, body in self.messages(addr)
                            if mtype == _DATATYPE_MSG), None)
            if problem is not None:
                raise CorruptDatatype(f"its datatype {problem}: HDF5 would crash reading it")
            if addr not in self._datasets:
                self._datasets[addr] = self._dataset_problem(ds, addr)
            problem = self._datasets[addr]
        if problem is not None:
            raise CorruptGlobalHeap(problem)

    def _dataset_problem(self, ds: Any, addr: int) -> str | None:
        try:
            data = dataset_bytes(self, ds, addr)
        except (OSError, RuntimeError, ValueError, zlib.error):
            return None  # HDF5's own read reports what is wrong with the storage
        return self._data_problem(data or b"", element_bytes(ds.dtype))

    def messages(self, addr: int) -> list[tuple[int, bytes]]:
        """The parsed header messages of the object at ``addr`` (cached)."""
        messages = self._headers.get(addr)
        if messages is None:
            if len(self._headers) >= MAX_CACHED_HEADERS:
                self._headers.clear()
            messages = self._headers[addr] = header_messages(self, addr + self.layout.base)
        return messages

    # -- raw reads -------------------------------------------------------------------
    def _read(self, offset: int, length: int) -> bytes:
        if not isinstance(self.path, Path):
            return self._read_remote(offset, length)
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY)
            self._size = os.fstat(self._fd).st_size
        if offset < 0 or offset >= self._size:
            return b""
        return os.pread(self._fd, min(length, self._size - offset), offset)

    def _read_remote(self, offset: int, length: int) -> bytes:
        """The same through a handle of the URL's range reader (its block cache is shared)."""
        if self._handle is None:
            self._handle = self.path.open("rb")
            self._size = int(self._handle.seek(0, os.SEEK_END))
        if offset < 0 or offset >= self._size:
            return b""
        self._handle.seek(offset)
        return bytes(self._handle.read(min(length, self._size - offset)))

    # -- the attribute message ---------------------------------------------------
    def _attribute_data(self, obj: Any, raw_name: bytes) -> bytes | None:
        stored = self._attribute_message(obj, raw_name)
        return None if stored is None else stored[1]

    def _attribute_message(self, obj: Any, raw_name: bytes) -> tuple[bytes | None, bytes] | None:
        """(datatype, data) of the attribute message ``raw_name`` in ``obj``'s header
        (datatype None when shared), or None when not found there (dense storage)."""
        addr = object_address(obj)
        if addr is None:
            return None
        index = self._attributes.get(addr)
        if index is None:
            if len(self._attributes) >= MAX_CACHED_HEADERS:
                self._attributes.clear()
            index = self._attributes[addr] = {
                name: (dtype, data) for mtype, body in self.messages(addr)
                if mtype == _ATTRIBUTE_MSG
                for name, dtype, data in [attribute_body(body)] if name is not None}
        return index.get(raw_name.rstrip(b"\x00"))

    def _candidates(self, data: bytes) -> list[int]:
        """Every byte offset's address-sized value that names a ``GCOL`` signature."""
        width = self.layout.sizeof_addr
        if width != 8 or len(data) < width:
            return []
        limit = self._limit()
        seen: set[int] = set()
        if len(data) <= SMALL_DATA_BYTES:  # most attributes: a few descriptors
            for start in range(len(data) - width + 1):
                value = int.from_bytes(data[start:start + width], "little")
                if value < limit:
                    seen.add(value)
        else:
            for start in range(width):
                n = (len(data) - start) // width
                values = np.frombuffer(data, dtype="<u8", count=n, offset=start)
                seen.update(int(v) for v in np.unique(values[values < limit]))
                if len(seen) > MAX_CANDIDATES:
                    break
        return [a for a in sorted(seen)[:MAX_CANDIDATES]
                if self._read(a + self.layout.base, 4) == _GCOL]

    def _limit(self) -> int:
        self._read(0, 0)
        return max(0, self._size - self.layout.base)

    # -- the collection ----------------------------------------------------------
    def _collection_problem(self, addr: int) -> str | None:
        return self._collection(addr).problem

    def _collection(self, addr: int) -> CollectionWalk:
        """The one walk of the collection at ``addr`` (cached)."""
        walk = self._collections.get(addr)
        if walk is None:
            if len(self._collections) >= MAX_CACHED_HEADERS:
                self._collections.clear()
            walk = self._collections[addr] = walk_collection(self, addr)
        return walk


def size_check(sizes: np.ndarray, what: str) -> None:
    """Refuse variable-length values too large to read at once.

    Args:
        sizes: the bytes of each value to be read (from their descriptors).
        what: names them in the message ("the attribute", "the selection").

    Raises:
        ValueTooLarge: a value over :data:`MAX_VALUE_BYTES`, or more than
            :data:`MAX_READ_BYTES` in all.
    """
    if sizes.size == 0:
        return
    flat = sizes.reshape(-1)
    largest, total = int(flat.max()), int(flat.sum())
    if largest > MAX_VALUE_BYTES:
        where = "" if flat.size == 1 else f" (element {int(flat.argmax())} of the read)"
        raise ValueTooLarge(
            f"{what} holds a variable-length value of {largest:,} bytes{where}, above the "
            f"limit of {MAX_VALUE_BYTES:,} bytes per value: it is not read", largest, total)
    if total > MAX_READ_BYTES:
        raise ValueTooLarge(
            f"{what} holds {flat.size:,} variable-length values of {total:,} bytes in all, "
            f"above the {MAX_READ_BYTES:,} bytes read at once: read it in parts",
            largest, total)


# -- per file -------------------------------------------------------------------------------
_GUARDS: dict[Any, HeapGuard] = {}
#: How many open handles share each guarded file: HDF5 opens a file already open in this
#: process as the same file (one file number), so a second document of it, or a sniffer's
#: look at its root, must not end the guard of the first when it closes.
_USERS: dict[Any, int] = {}
_GUARDS_LOCK = threading.Lock()


def register(f: h5py.File, path: Any) -> None:
    """Start guarding the open file ``f`` (read from ``path``: a local ``Path`` or a
    ``RemotePath``); a file already guarded keeps its guard, with one more user."""
    try:
        sizeof_addr, sizeof_size = f.id.get_create_plist().get_sizes()
        layout = _Layout(int(f.userblock_size), int(sizeof_addr), int(sizeof_size))
        key = f.id.fileno
    except (AttributeError, OSError, RuntimeError, ValueError):
        return
    with _GUARDS_LOCK:
        if key in _GUARDS:
            _USERS[key] = _USERS.get(key, 1) + 1
            return
        _GUARDS[key] = HeapGuard(path if not isinstance(path, str) else Path(path), layout)
        _USERS[key] = 1


def unregister(f: h5py.File) -> None:
    """One user of ``f`` less; the last one stops guarding it and closes the guard's
    descriptor (call before closing ``f``)."""
    try:
        key = f.id.fileno
    except (AttributeError, OSError, RuntimeError, ValueError):
        return
    with _GUARDS_LOCK:
        users = _USERS.pop(key, 1) - 1
        if users > 0:
            _USERS[key] = users
            return
        guard = _GUARDS.pop(key, None)
    if guard is not None:
        guard.close()


def _free_list_problem(segment: bytes, first: int, length: int, where: str) -> str | None:
    """Walk a local heap's free list as HDF5 does; report a block outside the data
    segment or a cycle (HDF5 File Format Specification 3.0, III.D "Local Heaps")."""
    seen: set[int] = set()
    offset = first
    while offset != _FREE_NULL:
        if offset in seen:
            return f"{where} has a free list that returns to offset {offset}: HDF5 would loop"
        if offset + 2 * length > len(segment):
            return None  # HDF5 checks this itself
        seen.add(offset)
        offset = int.from_bytes(segment[offset:offset + length], "little")
    return None


def _guard_of(obj: Any) -> HeapGuard | None:
    try:
        key = obj.id.fileno
    except (AttributeError, OSError, RuntimeError, ValueError):
        return None
    with _GUARDS_LOCK:
        return _GUARDS.get(key)


def guard_of(obj: Any) -> HeapGuard | None:
    """The :class:`HeapGuard` of the file holding the h5py object ``obj``, or None when
    that file was not opened through :func:`register`."""
    return _guard_of(obj)


def member_problem(group: Any, raw_name: bytes) -> str | None:
    """What stops the member ``raw_name`` of ``group`` (a hard link) being opened
    safely, read from its object header before HDF5 opens it (see
    :meth:`HeapGuard.problem_at`), or None."""
    guard = _guard_of(group)
    if guard is None:
        return None
    try:
        info = group.id.links.get_info(raw_name)
        if info.type != h5py.h5l.TYPE_HARD:
            return None
        addr = int(info.u)
    except (AttributeError, KeyError, OSError, RuntimeError, TypeError, ValueError):
        return None
    return guard.problem_at(addr)


#: Soft links HDF5 follows on one path before it gives up (``H5L_NUM_LINKS``, the HDF5
#: library's default link traversal limit).
MAX_SOFT_LINKS = 16


def path_problem(f: Any, path: bytes, _hops: int = 0) -> str | None:
    """What stops the object at the absolute ``path`` of ``f`` being reached safely:
    the problem (:func:`member_problem`) of the first object on the way that HDF5
    would open or look names up in (the object itself included), or None.

    Soft links on the way are followed as HDF5 follows them, at most
    :data:`MAX_SOFT_LINKS`; an external link ends the check (its file is
    another file, checked when opened).
    """
    current, here = f, b""
    for part in (p for p in path.split(b"/") if p and p != b"."):
        try:
            info = current.id.links.get_info(part)
            value = current.id.links.get_val(part) if info.type == h5py.h5l.TYPE_SOFT else b""
        except (AttributeError, KeyError, OSError, RuntimeError, TypeError, ValueError):
            return None
        if info.type == h5py.h5l.TYPE_SOFT:
            if _hops >= MAX_SOFT_LINKS:
                return None  # HDF5 refuses the path itself
            problem = path_problem(f, value if value.startswith(b"/") else here + b"/" + value,
                                   _hops + 1)
        elif info.type == h5py.h5l.TYPE_HARD:
            problem = member_problem(current, part)
        else:
            return None
        if problem is not None:
            return problem
        try:
            current = current[part]
        except (KeyError, OSError, RuntimeError, ValueError):
            return None
        if not isinstance(current, h5py.Group):
            return None
        here += b"/" + part
    return None


def soft_link_problem(group: Any, raw_name: bytes) -> str | None:
    """:func:`path_problem` of the target of the soft link ``raw_name`` of ``group``
    (a relative value is resolved from ``group``), or None."""
    try:
        value = group.id.links.get_val(raw_name)
        base = h5py.h5i.get_name(group.id) or b"/"
    except (AttributeError, KeyError, OSError, RuntimeError, TypeError, ValueError):
        return None
    target = value if value.startswith(b"/") else base.rstrip(b"/") + b"/" + value
    return path_problem(group.file, target, 1)


def corrupt_groups(f: Any) -> bool:
    """True when a group of ``f`` checked so far has a local heap HDF5 would loop on:
    then no name in it may be looked up, and nothing beyond the tree is read."""
    guard = _guard_of(f)
    return guard is not None and guard._corrupt


def group_problem(group: Any) -> str | None:
    """What stops ``group``'s member names being looked up safely (see
    :meth:`HeapGuard.group_problem`), or None; files not opened through
    :func:`register` are not checked."""
    guard = _guard_of(group)
    return guard.group_problem(group) if guard is not None else None


def check_attribute(obj: Any, raw_name: bytes | str, aid: Any = None) -> None:
    """Refuse to read a variable-length attribute whose global heap would make HDF5 loop.

    First its stored datatype is checked (:meth:`HeapGuard.check_datatype`); then,
    when it holds variable-length data or references, its global heap.  Files not
    opened through :func:`register` are not checked.  ``aid``: the attribute already
    opened by the caller (``h5py.h5a.open``), whose datatype is then not asked again.

    Raises:
        CorruptDatatype: see :meth:`HeapGuard.check_datatype`.
        CorruptGlobalHeap: see :meth:`HeapGuard.check_attribute`.
    """
    raw = raw_name.encode("utf-8", "surrogateescape") if isinstance(raw_name, str) else raw_name
    guard = _guard_of(obj)
    if guard is not None:
        guard.check_datatype(obj, raw)
    try:
        dtype = (aid if aid is not None else h5py.h5a.open(obj.id, raw)).dtype
        if not dtype.hasobject:
            return
        key = obj.id.fileno
    except (KeyError, OSError, RuntimeError, TypeError, ValueError):
        return  # the caller's own read reports it
    with _GUARDS_LOCK:
        guard = _GUARDS.get(key)
    if guard is not None:
        guard.check_attribute(obj, raw, element_bytes(dtype))


def element_bytes(dtype: np.dtype) -> int | None:
    """For a plain variable-length type (string or sequence, not inside a compound or an
    array type), the bytes of one element of a value (1 for a string); else None."""
    string = h5py.check_string_dtype(dtype)
    if string is not None:
        return 1 if string.length is None else None
    base = h5py.check_vlen_dtype(dtype)
    try:
        base = np.dtype(base) if base is not None else None
    except TypeError:
        return None
    return int(base.itemsize) if base is not None and not base.hasobject else None


_MISSING = object()


def read_attribute(obj: Any, name: bytes | str, default: Any = _MISSING) -> Any:
    """``obj.attrs[name]`` after :func:`check_attribute`; ``default`` when absent.

    Raises:
        CorruptGlobalHeap: the value's global heap collection is corrupt.
        KeyError: ``name`` is absent and no ``default`` was given.
        OSError, TypeError, ValueError: h5py's errors for an unreadable value.
    """
    if default is not _MISSING and name not in obj.attrs:
        return default
    check_attribute(obj, name)
    return obj.attrs[name]


def check_dataset(ds: Any, selection: Any = Ellipsis) -> None:
    """Refuse to read a variable-length dataset whose global heap would make HDF5 loop,
    or ``ds[selection]`` when its values declare too many bytes.

    Only datasets whose datatype holds variable-length data or references are
    examined (once per dataset); files not opened through :func:`register`
    are not checked.

    Raises:
        CorruptDatatype, CorruptGlobalHeap, ValueTooLarge: see
            :meth:`HeapGuard.check_dataset`.
    """
    try:
        if not ds.dtype.hasobject:
            return
        key = ds.id.fileno
    except (AttributeError, OSError, RuntimeError, TypeError, ValueError):
        return
    with _GUARDS_LOCK:
        guard = _GUARDS.get(key)
    if guard is not None:
        guard.check_dataset(ds, selection)


def dataset_sizes(ds: Any) -> np.ndarray | None:
    """The bytes of each value of a plain variable-length dataset (see
    :meth:`HeapGuard.dataset_sizes`); None when unknown or not guarded."""
    guard = _guard_of(ds)
    return guard.dataset_sizes(ds) if guard is not None else None
