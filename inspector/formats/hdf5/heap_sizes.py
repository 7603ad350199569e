"""The sizes of variable-length values, read from their heap descriptors without reading
the values: an attribute's or a dataset's descriptors (contiguous or chunked, the
chunks inflated only as far as their descriptors go), and the global heap collections
they point into, walked object by object (:mod:`.heap` checks them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import h5py
import numpy as np

from inspector.formats.decoding.inflate import inflate_prefix
from inspector.formats.hdf5.filters import create_plist
from inspector.formats.hdf5.object_header import (
    HeaderSource,
)


class HeapReader(HeaderSource, Protocol):
    """What reads heap descriptors and collections: an object header source that also
    lists an object's header messages and knows where the file ends
    (:class:`~inspector.formats.hdf5.heap.HeapGuard`)."""

    def messages(self, addr: int) -> list[tuple[int, bytes]]: ...

    def _limit(self) -> int: ...


#: Bytes of a global heap collection this guard walks; larger ones are left to HDF5.
MAX_COLLECTION_BYTES = 64 << 20


#: Raw bytes of one variable-length dataset examined (its first bytes beyond that).
MAX_DATASET_BYTES = 16 << 20


#: Chunks of one variable-length dataset examined.
MAX_DATASET_CHUNKS = 1024


_LAYOUT_MSG = 0x0008


_HEAP_MINSIZE = 4096


@dataclass(frozen=True)
class CollectionWalk:
    """What one walk of a global heap collection found.

    ``problem`` is None when HDF5 can decode the collection (or cannot read it
    at all and says so itself); ``sizes`` maps each object index walked before
    any problem to its data size in bytes.
    """

    problem: str | None
    sizes: dict[int, int] = field(default_factory=dict)


def walk_collection(guard: HeapReader, addr: int) -> CollectionWalk:
    """Read the collection at ``addr`` once and walk its objects as HDF5 does."""
    lay = guard.layout
    head = guard._read(addr + lay.base, 8 + lay.sizeof_size)
    if len(head) < 8 + lay.sizeof_size:
        return CollectionWalk(None)  # HDF5 fails to read it and says so
    size = int.from_bytes(head[8:8 + lay.sizeof_size], "little")
    where = f"the global heap collection at byte {addr + lay.base}"
    if size < _HEAP_MINSIZE:
        return CollectionWalk(
            f"{where} records a size of {size} bytes, below the minimum of {_HEAP_MINSIZE}")
    if addr + size > guard._limit():  # HDF5 would allocate all of it before failing to read
        return CollectionWalk(f"{where} records a size of {size} bytes, past the end of the file")
    if size > MAX_COLLECTION_BYTES:
        return CollectionWalk(None)
    chunk = guard._read(addr + lay.base, size)
    if len(chunk) < size:
        return CollectionWalk(None)
    return walk_objects(chunk, lay.sizeof_size, where)


def walk_objects(chunk: bytes, sizeof_size: int, where: str) -> CollectionWalk:
    """Walk the objects of one collection; the first that would stop HDF5 is the problem.

    ``chunk`` is the whole collection (its ``GCOL`` header first), ``sizeof_size`` the
    file's size of lengths (bytes), ``where`` the collection's place for the problem's text.
    Each object is a 2-byte index, a 2-byte reference count, 4 reserved bytes, a
    ``sizeof_size`` length and its data padded to 8 bytes; index 0 is the free space,
    whose length counts its header (HDF5 file format specification, "Global Heap").
    Returns the lengths by index of the objects walked, and the problem (None when HDF5
    can walk them all).
    """
    objhdr = 8 + sizeof_size
    pos, end = 8 + sizeof_size, len(chunk)
    sizes: dict[int, int] = {}
    while pos + objhdr <= end:  # a shorter tail is free space
        index = int.from_bytes(chunk[pos:pos + 2], "little")
        size = int.from_bytes(chunk[pos + 8:pos + 8 + sizeof_size], "little")
        need = size if index == 0 else objhdr + ((size + 7) & ~7)
        if need == 0:
            return CollectionWalk(f"{where} holds a free-space object of size 0 at offset "
                                   f"{pos}: HDF5 would loop on it", sizes)
        if need > end - pos:
            return CollectionWalk(f"{where} holds object {index} at offset {pos} whose size "
                                   f"({size} bytes) runs past the collection's end", sizes)
        if index:
            sizes[index] = size
        pos += need
    return CollectionWalk(None, sizes)


def dataset_bytes(guard: HeapReader, ds: Any, addr: int) -> bytes | None:
    """The stored bytes of a dataset's values, as far as they can be read raw."""
    dsid = ds.id
    dcpl = dsid.get_create_plist()
    layout = dcpl.get_layout()
    if layout == h5py.h5d.CONTIGUOUS:
        offset = dsid.get_offset()
        if offset is None:
            return None
        return guard._read(int(offset), min(int(dsid.get_storage_size()), MAX_DATASET_BYTES))
    if layout == h5py.h5d.COMPACT:
        for mtype, body in guard.messages(addr):
            if mtype == _LAYOUT_MSG and len(body) >= 4 and body[0] == 3 and body[1] == 0:
                return body[4:4 + int.from_bytes(body[2:4], "little")]
        return None
    if layout == h5py.h5d.CHUNKED:
        return _chunk_bytes(dsid, dcpl)
    return None


def _chunk_bytes(dsid: Any, dcpl: Any) -> bytes | None:
    filters = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
    if any(f != h5py.h5z.FILTER_DEFLATE for f in filters):
        return None
    parts: list[bytes] = []
    total = 0
    for i in range(min(int(dsid.get_num_chunks()), MAX_DATASET_CHUNKS)):
        info = dsid.get_chunk_info(i)
        if info.byte_offset is None or info.size > MAX_DATASET_BYTES:
            continue
        mask, raw = dsid.read_direct_chunk(info.chunk_offset)
        data = _inflate_at_most(raw, MAX_DATASET_BYTES) if filters and not mask & 1 else raw
        parts.append(data[:MAX_DATASET_BYTES - total])
        total += len(parts[-1])
        if total >= MAX_DATASET_BYTES:
            break
    return b"".join(parts)


def _inflate_at_most(raw: bytes, limit: int) -> bytes:
    """The first ``limit`` bytes a zlib stream inflates to (never more are made).

    Raises:
        OSError: the stream is corrupt.
    """
    return inflate_prefix(raw, limit)


# -- sizes of variable-length values ---------------------------------------------------------
def value_sizes(data: bytes, element: int, sizeof_addr: int) -> np.ndarray | None:
    """The bytes of each value whose descriptor (length, collection address, index)
    is in ``data``: length x ``element`` (int64); None for other address sizes."""
    if sizeof_addr != 8 or len(data) % 16:
        return None
    desc = np.frombuffer(data, dtype=[("n", "<u4"), ("addr", "<u8"), ("index", "<u4")])
    return desc["n"].astype(np.int64) * element


def selected_sizes(sizes: np.ndarray, selection: Any) -> np.ndarray:
    try:
        return np.asarray(sizes[selection])
    except (IndexError, TypeError, ValueError):
        return sizes  # the read itself refuses the selection


#: Descriptors of one dataset read to size its values (16 bytes each).
MAX_SIZED_BYTES = 64 << 20


def descriptor_sizes(guard: HeapReader, ds: Any, addr: int, element: int) -> np.ndarray | None:
    """The bytes of every value of ``ds`` (its shape), read from its raw descriptors:
    contiguous and compact layouts, and chunked ones without filters or with deflate
    only; None otherwise, or when they are not all stored (or over the bounds)."""
    shape = tuple(int(n) for n in ds.shape or ())
    count = int(np.prod(shape, dtype=np.int64))
    if guard.layout.sizeof_addr != 8 or count * 16 > MAX_SIZED_BYTES:
        return None
    dcpl = create_plist(ds)
    layout = dcpl.get_layout()
    if layout == h5py.h5d.CHUNKED:
        return _chunked_sizes(ds, dcpl, shape, element)
    if layout == h5py.h5d.CONTIGUOUS:
        offset = ds.id.get_offset()
        raw = b"" if offset is None else guard._read(int(offset), count * 16)
    elif layout == h5py.h5d.COMPACT:
        raw = dataset_bytes(guard, ds, addr) or b""
    else:
        return None
    sizes = value_sizes(raw, element, 8)
    if sizes is None or sizes.size != count:
        return np.zeros(shape, np.int64) if offset_unset(ds, layout) else None
    return sizes.reshape(shape)


def offset_unset(ds: Any, layout: int) -> bool:
    """True for a contiguous dataset with no storage allocated (it reads as empty)."""
    return layout == h5py.h5d.CONTIGUOUS and ds.id.get_offset() is None


def _chunked_sizes(ds: Any, dcpl: Any, shape: tuple[int, ...], element: int
                   ) -> np.ndarray | None:
    filters = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
    if any(f != h5py.h5z.FILTER_DEFLATE for f in filters):
        return None
    chunk = tuple(int(c) for c in dcpl.get_chunk())
    need = int(np.prod(chunk, dtype=np.int64)) * 16
    out = np.zeros(shape, np.int64)
    dsid = ds.id
    if int(dsid.get_num_chunks()) > MAX_DATASET_CHUNKS:
        return None
    for i in range(int(dsid.get_num_chunks())):
        info = dsid.get_chunk_info(i)
        if info.byte_offset is None:
            continue
        mask, raw = dsid.read_direct_chunk(info.chunk_offset)
        data = _inflate_at_most(raw, need) if filters and not mask & 1 else raw[:need]
        sizes = value_sizes(data, element, 8)
        if sizes is None or sizes.size != need // 16:
            return None
        start = tuple(int(o) for o in info.chunk_offset)
        box = tuple(slice(o, min(o + c, n)) for o, c, n in zip(start, chunk, shape, strict=True))
        out[box] = sizes.reshape(chunk)[tuple(slice(0, b.stop - b.start) for b in box)]
    return out
