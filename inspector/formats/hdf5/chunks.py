"""HDF5 chunk access without HDF5's filter pipeline: layout, raw reads, decoding.

A chunked, compressed HDF5 dataset (the neural array of a recording, as the
reference writer stores it: gzip level 4 + shuffle, VneuroTK format document,
"Schema 1 layout") can be decoded faster than through ``Dataset.__getitem__``:
:func:`read_raw_chunk` fetches a chunk's stored bytes with HDF5's
``read_direct_chunk`` (one call under h5py's lock; :class:`ChunkFile` reads
them with ``os.pread`` outside it, in parallel) and
:func:`decode_chunk` undoes deflate, shuffle and Fletcher-32 with the one
decoder (:mod:`inspector.formats.decoding.inflate`) and numpy, which release the GIL,
so several chunks decode at once on the worker pool
(:mod:`inspector.formats.decoding.workers`).

:func:`allocated_chunks` lists the chunks that exist in the file (HDF5
File Format Specification, "Data Storage - Chunked"): the others are
unallocated and read as the dataset's fill value, so a mostly empty dataset
is summarised without reading them.

Nothing here imports Qt.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

import h5py
import numpy as np

from inspector.formats.decoding.inflate import undo_filters
from inspector.formats.hdf5.chunk_index import ChunkIndex

_FILTER_NAMES = {h5py.h5z.FILTER_DEFLATE: "gzip", h5py.h5z.FILTER_SHUFFLE: "shuffle",
                 h5py.h5z.FILTER_FLETCHER32: "fletcher32"}


@dataclass(frozen=True)
class ChunkLayout:
    """How a dataset is stored: equally shaped, individually filtered chunks.

    Attributes:
        chunks: chunk shape, one entry per axis (HDF5 ``Dataset.chunks``).
        dtype: the stored element dtype, including its byte order.
        filters: the filter pipeline in write order, as HDF5 applies it:
            names among ``"shuffle"``, ``"gzip"`` (deflate) and
            ``"fletcher32"``; any other filter is ``"other"`` and the chunks
            are then decoded by HDF5 (``ArrayRef.read``).
        identity: hashable key naming this exact data, used to cache a
            summary on disk: ``(st_dev, st_ino, st_size, st_mtime_ns,
            dataset_path)`` of the file; None disables the disk cache.
        fill: the value of unallocated chunks, or None when HDF5 must be
            asked (fill time "never", or no fill value defined).
    """

    chunks: tuple[int, ...]
    dtype: np.dtype
    filters: tuple[str, ...] = ()
    identity: tuple[Any, ...] | None = None
    fill: float | None = None

    @property
    def decodable(self) -> bool:
        """True when every filter can be undone without HDF5 (:func:`undo_filters`)."""
        return all(f in ("shuffle", "gzip", "fletcher32") for f in self.filters) and (
            np.dtype(self.dtype).kind in "biuf"
        )


def _fill_value(dataset: h5py.Dataset, dcpl: Any) -> float | None:
    """The value HDF5 returns for unallocated chunks, when it is certain."""
    if dcpl.get_fill_time() == h5py.h5d.FILL_TIME_NEVER:
        return None
    if dcpl.fill_value_defined() not in (h5py.h5d.FILL_VALUE_DEFAULT,
                                         h5py.h5d.FILL_VALUE_USER_DEFINED):
        return None
    if dataset.id.get_type().get_size() > 16:  # not a number: never read a wide element
        return None
    value = np.asarray(dataset.fillvalue)
    if value.shape != () or value.dtype.kind not in "biuf":
        return None
    return float(value)


def chunk_layout(dataset: h5py.Dataset,
                 identity: tuple[Any, ...] | None = None) -> ChunkLayout | None:
    """The :class:`ChunkLayout` of an ``h5py.Dataset``, or None if it is not chunked.

    Args:
        dataset: an open dataset.
        identity: ``(st_dev, st_ino, st_size, st_mtime_ns)`` of the file;
            the dataset path is appended.  None disables the disk cache.
    """
    chunks = dataset.chunks
    if not chunks:
        return None
    filters: list[str] = []
    fill = None
    try:
        dcpl = dataset.id.get_create_plist()
        for i in range(dcpl.get_nfilters()):
            filters.append(_FILTER_NAMES.get(int(dcpl.get_filter(i)[0]), "other"))
        fill = _fill_value(dataset, dcpl)
    except (OSError, RuntimeError, ValueError, TypeError):
        filters.append("other")
    ident = None if identity is None else (*tuple(identity), str(dataset.name))
    return ChunkLayout(tuple(int(c) for c in chunks), np.dtype(dataset.dtype), tuple(filters),
                       ident, fill)


def allocated_chunks(dataset: h5py.Dataset) -> set[tuple[int, ...]] | None:
    """Offsets of the chunks stored in the file, or None when HDF5 cannot list them.

    Uses ``H5Dchunk_iter`` (one pass over the chunk index) when available,
    else ``H5Dget_chunk_info`` per chunk.
    """
    found: set[tuple[int, ...]] = set()
    dsid = dataset.id
    try:
        if hasattr(dsid, "chunk_iter"):
            dsid.chunk_iter(lambda info: found.add(tuple(int(o) for o in info.chunk_offset)))
        else:
            for i in range(dsid.get_num_chunks()):
                found.add(tuple(int(o) for o in dsid.get_chunk_info(i).chunk_offset))
    except (OSError, RuntimeError, ValueError, TypeError):
        return None
    return found


def read_raw_chunk(dataset: h5py.Dataset, offset: tuple[int, ...]) -> tuple[int, bytes]:
    """``(filter_mask, stored bytes)`` of the chunk at ``offset`` (``read_direct_chunk``).

    Bit ``i`` of ``filter_mask`` set means filter ``i`` was skipped for this chunk.

    Raises:
        OSError: the chunk cannot be read (unallocated, damaged index), or its
            stored size cannot be allocated (h5py raises ``MemoryError`` for an
            unallocated chunk of a dataset declaring billions of them, and for a
            stored size that the chunk index overstates).
    """
    try:
        mask, data = dataset.id.read_direct_chunk(tuple(int(o) for o in offset))
    except (KeyError, ValueError, RuntimeError, OSError) as exc:
        raise OSError(f"cannot read chunk {offset} of {dataset.name}: {exc}") from exc
    except MemoryError as exc:
        raise OSError(f"cannot read chunk {offset} of {dataset.name}: "
                      "its stored size cannot be allocated") from exc
    return int(mask), data if isinstance(data, bytes) else bytes(data)


#: Most chunk locations :meth:`ChunkFile.prefetch` keeps for reads to come.
PREFETCH_MAX = 1024
#: A chunk read taking at most ``WARM_READ_S + size / WARM_BYTES_PER_S`` seconds is
#: taken to have come from memory (the page cache: microseconds and several GB/s)
#: rather than from a disk (a tenth of a millisecond or more per read).
WARM_BYTES_PER_S = 2e9
WARM_READ_S = 30e-6
#: Chunks located by HDF5 one at a time before a :class:`ChunkIndex` of them all is
#: built (a few chunks of a window are not worth listing every chunk).
LOOKUPS_BEFORE_INDEX = 8


class ChunkFile:
    """Stored chunk bytes read with ``os.pread``, outside h5py's lock.

    ``read_direct_chunk`` holds h5py's global lock while HDF5 copies the
    bytes, so chunk reads on several threads queue behind each other.  Here
    HDF5 is asked only where a chunk lies (``H5Dget_chunk_info_by_coord``, a
    short index lookup under the lock) and the bytes are read with
    ``os.pread`` from a descriptor of our own on the file HDF5's ``sec2``
    driver has open (same device and inode; a separate open file, so it
    holds none of HDF5's file locks), which releases the GIL, so reads run
    in parallel with each other and with decoding (HDF5 File Format Specification, "Data Storage -
    Chunked": a chunk is ``size`` contiguous bytes at ``byte_offset``).  After
    :data:`LOOKUPS_BEFORE_INDEX` lookups, every stored chunk is listed at once
    (:class:`~inspector.formats.hdf5.chunk_index.ChunkIndex`): HDF5's lookup by
    offset walks its index from the start each time.

    :meth:`open` returns None (callers use :func:`read_raw_chunk`) for other
    drivers (in-memory, remote, file objects), systems without ``os.pread``
    (Windows), h5py without the lookup, a
    dataset with no chunk stored, or when the first chunk read this way
    differs from ``read_direct_chunk``'s bytes.  The descriptor is closed
    with the object; once the HDF5 file is closed, the index lookup fails
    and :meth:`read` raises OSError.
    """

    def __init__(self, dataset: h5py.Dataset, fd: int) -> None:
        self._dsid = dataset.id
        self._name = dataset.name
        self._fd = fd
        self._shape = tuple(int(n) for n in dataset.shape)
        self._chunks = tuple(int(c) for c in dataset.chunks or ())
        self._lookups = 0
        self._index: ChunkIndex | None = None
        self._index_known = False
        self._index_lock = threading.Lock()
        #: Where chunks :meth:`prefetch` looked up lie, until :meth:`read` takes them.
        self._where: dict[tuple[int, ...], tuple[int, int, int]] = {}
        #: The last chunk read without a hint came from memory (see :meth:`prefetch`).
        self.warm = False

    @classmethod
    def open(cls, dataset: h5py.Dataset) -> ChunkFile | None:
        """The reader of ``dataset``'s chunks, or None (see the class notes)."""
        try:
            if (dataset.file.driver != "sec2" or not hasattr(os, "pread")  # not on Windows
                    or not hasattr(dataset.id, "get_chunk_info_by_coord")):
                return None
            first = dataset.id.get_chunk_info(0) if dataset.id.get_num_chunks() else None
            handle = dataset.file.id.get_vfd_handle()
            theirs = os.fstat(int(handle[0] if isinstance(handle, tuple) else handle))
            fd = os.open(dataset.file.filename, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except (OSError, RuntimeError, ValueError, TypeError, AttributeError, KeyError):
            return None
        out = cls(dataset, fd)
        mine = os.fstat(fd)
        if (mine.st_dev, mine.st_ino) != (theirs.st_dev, theirs.st_ino):
            out.close()  # the path names another file now
            return None
        try:
            offset = tuple(int(o) for o in first.chunk_offset) if first is not None else None
            same = offset is not None and out.read(offset) == read_raw_chunk(dataset, offset)
        except OSError:
            same = False
        if not same:
            out.close()
            return None
        return out

    def read(self, offset: tuple[int, ...]) -> tuple[int, bytes]:
        """``(filter_mask, stored bytes)`` of the chunk at ``offset``, as
        :func:`read_raw_chunk` returns them.

        Raises:
            OSError: unallocated chunk, damaged index, closed reader, or fewer
                bytes in the file than the index records.
        """
        key = tuple(int(o) for o in offset)
        hinted = self._where.pop(key, None)
        byte_offset, size, mask = hinted or self._locate(key)
        if self._fd < 0:
            raise OSError("the chunk reader was closed")
        t0 = time.perf_counter()
        data = os.pread(self._fd, size, byte_offset)
        if hinted is None:  # (a hinted chunk's speed says how well the hint worked)
            took = time.perf_counter() - t0
            self.warm = took <= WARM_READ_S + len(data) / WARM_BYTES_PER_S
        if len(data) != size:
            raise OSError(f"chunk {offset} of {self._name}: the file holds {len(data)} of its "
                          f"{size} bytes")
        return mask, data

    def chunk_index(self) -> ChunkIndex | None:
        """The list of every stored chunk (built once, now if not yet; None when HDF5
        cannot list them or there are too many)."""
        if not self._index_known:
            with self._index_lock:
                if not self._index_known:
                    self._index = ChunkIndex.build(self._dsid, self._shape, self._chunks)
                    self._index_known = True
        return self._index

    def _chunk_index(self) -> ChunkIndex | None:
        """:meth:`chunk_index` once :data:`LOOKUPS_BEFORE_INDEX` lookups were made."""
        self._lookups += 1
        if self._index_known or self._lookups > LOOKUPS_BEFORE_INDEX:
            return self.chunk_index()
        return None

    def _locate(self, offset: tuple[int, ...]) -> tuple[int, int, int]:
        """``(byte offset, stored size, filter mask)`` of the chunk at ``offset``."""
        index = self._chunk_index()
        key = index.key(offset) if index is not None else None
        if index is not None and key is not None:
            if not self._dsid.valid:  # (as HDF5's own lookup fails once the file is closed)
                raise OSError(f"cannot locate chunk {offset} of {self._name}: the file is closed")
            where = index.locate(key)
            if where is None:
                raise OSError(f"chunk {offset} of {self._name} is not stored")
            return where
        try:
            info = self._dsid.get_chunk_info_by_coord(offset)
        except (KeyError, ValueError, RuntimeError, OSError, TypeError) as exc:
            raise OSError(f"cannot locate chunk {offset} of {self._name}: {exc}") from exc
        if info.byte_offset is None or info.size is None:
            raise OSError(f"chunk {offset} of {self._name} is not stored")
        return int(info.byte_offset), int(info.size), int(info.filter_mask)

    def prefetch(self, offset: tuple[int, ...]) -> None:
        """Ask the system to start reading the chunk at ``offset`` from disk now
        (``posix_fadvise(POSIX_FADV_WILLNEED)``), so that a later :meth:`read` finds its
        bytes in memory: a cold file's reads then overlap the decoding.  A hint only:
        nothing is raised (a chunk that cannot be located is left to :meth:`read`).
        Nothing is done while the file's pages are in memory (:attr:`warm`: the last
        chunk read without a hint came as fast as from memory, :data:`WARM_READ_S`), where the
        hint would only cost the system a walk over pages it already holds."""
        if self.warm:
            return
        key = tuple(int(o) for o in offset)
        try:
            where = self._locate(key)
        except OSError:
            return
        if len(self._where) >= PREFETCH_MAX:
            self._where.clear()  # (chunks looked up and never read: a cancelled visit)
        self._where[key] = where
        advise = getattr(os, "posix_fadvise", None)
        if advise is not None and self._fd >= 0:
            try:
                advise(self._fd, where[0], where[1], os.POSIX_FADV_WILLNEED)
            except OSError:
                pass

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass

    def __del__(self) -> None:
        self.close()


def decode_chunk(data: bytes, filter_mask: int, layout: ChunkLayout) -> np.ndarray:
    """Decode one stored chunk into an array of shape ``layout.chunks``.

    Filters are undone in reverse write order; a set bit ``i`` of
    ``filter_mask`` means filter ``i`` was not applied to this chunk.

    Raises:
        ChunkOverflow: the deflate stream holds more than the chunk's size.
        OSError: corrupt data (deflate error, failed Fletcher-32 check, wrong
            decoded size) or a filter that cannot be undone here.
    """
    dtype = np.dtype(layout.dtype)
    expected = int(np.prod(layout.chunks, dtype=np.int64)) * dtype.itemsize
    arr, _ = undo_filters(data, filter_mask, layout.filters, dtype.itemsize, expected)
    return arr.view(dtype).reshape(layout.chunks)
