"""Check compressed chunks before HDF5 decodes them: none may inflate past its size.

HDF5's deflate filter inflates a chunk's whole stream, growing its buffer until the
stream ends, and then keeps the chunk's declared bytes: a chunk of 25 600 bytes
whose stream inflates to 4 GiB costs 4 GiB of memory and reads as valid data
(HDF5 2.0.0, ``H5Z__filter_deflate``).  So before HDF5 reads a selection of a
chunked dataset whose filter pipeline holds deflate (with shuffle and Fletcher-32,
which do not change the size), :func:`check_selection` inflates each stored chunk
the selection touches once itself, in blocks, counting the bytes and discarding
them, and stops at the chunk's declared size (shape x element size, HDF5 File
Format Specification 3.0, "Data Storage - Chunked"): a stream with more is a
:class:`~inspector.formats.analysis.trial_average.ChunkOverflow` naming the dataset and chunk
offset, and HDF5 is never asked.  Chunks found sound are remembered per open file.

Pipelines with other filters (szip, LZF, Blosc...) are left to HDF5, and so are
datasets of variable-length or reference types (their stored element size is not
numpy's; :mod:`.hdf5_heap` reads their descriptors itself, bounded).
"""

from __future__ import annotations

import threading
from typing import Any

import h5py
import numpy as np

from inspector.formats.decoding import inflate
from inspector.formats.decoding.inflate import ChunkOverflow

#: Bytes inflated per step while counting (the memory one check holds).
COUNT_BLOCK = 1 << 20
#: Stored chunks of one dataset listed to find those a selection touches.
MAX_LISTED_CHUNKS = 1 << 20
#: Chunks remembered as checked (then checked again if asked).
MAX_REMEMBERED = 1 << 20

_SIZE_NEUTRAL = {h5py.h5z.FILTER_SHUFFLE, h5py.h5z.FILTER_FLETCHER32}
#: Datasets whose stored chunks are remembered.
MAX_LISTED_DATASETS = 64
_checked: set[tuple[Any, ...]] = set()
_listed: dict[tuple[Any, ...], list[tuple[tuple[int, ...], int]]] = {}
_lock = threading.Lock()


def _pipeline(dsid: Any) -> tuple[int, ...] | None:
    """The filter ids of a chunked dataset's pipeline when it holds deflate and only
    size-neutral filters besides, else None."""
    dcpl = dsid.get_create_plist()
    if dcpl.get_layout() != h5py.h5d.CHUNKED:
        return None
    filters = tuple(int(dcpl.get_filter(i)[0]) for i in range(dcpl.get_nfilters()))
    if h5py.h5z.FILTER_DEFLATE not in filters or \
            any(f != h5py.h5z.FILTER_DEFLATE and f not in _SIZE_NEUTRAL for f in filters):
        return None
    return filters


def _box(selection: Any, shape: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """``(start, stop)`` per axis of the smallest box holding ``selection`` (numpy basic
    indexing); the whole dataset for anything else."""
    whole = tuple((0, n) for n in shape)
    sel = selection if isinstance(selection, tuple) else (selection,)
    if any(s is Ellipsis for s in sel) or len(sel) > len(shape):
        return whole
    out = []
    for s, n in zip(sel + (slice(None),) * (len(shape) - len(sel)), shape, strict=True):
        if isinstance(s, (int, np.integer)):
            i = int(s) + (n if int(s) < 0 else 0)
            out.append((i, i + 1))
        elif isinstance(s, slice):
            start, stop, step = s.indices(n)
            lo, hi = (start, stop) if step > 0 else (stop + 1, start + 1)
            out.append((max(0, lo), min(n, max(lo, hi))))
        else:
            return whole
    return tuple(out)


def _stored_chunks(dsid: Any, key: tuple[Any, ...]) -> list[tuple[tuple[int, ...], int]]:
    """``(offset, stored size)`` of each stored chunk (at most :data:`MAX_LISTED_CHUNKS`),
    listed once per dataset (the file is read-only)."""
    with _lock:
        found = _listed.get(key)
    if found is not None:
        return found
    found = []

    def take(info: Any) -> int | None:
        found.append((tuple(int(o) for o in info.chunk_offset), int(info.size)))
        return 1 if len(found) >= MAX_LISTED_CHUNKS else None

    dsid.chunk_iter(take)
    with _lock:
        if len(_listed) >= MAX_LISTED_DATASETS:
            _listed.clear()
        _listed[key] = found
    return found


def count_inflated(raw: bytes, declared: int) -> int:
    """Bytes the zlib stream ``raw`` inflates to, counted in blocks of
    :data:`COUNT_BLOCK` and never past ``declared + 1``
    (:func:`inspector.formats.decoding.inflate.count_inflated`).

    Raises:
        OSError: the stream is corrupt.
    """
    return inflate.count_inflated(raw, declared, COUNT_BLOCK)


def _check_chunk(dataset: Any, offset: tuple[int, ...], filters: tuple[int, ...],
                 declared: int) -> None:
    mask, raw = dataset.id.read_direct_chunk(offset)
    if mask & (1 << filters.index(h5py.h5z.FILTER_DEFLATE)):
        return  # deflate was skipped for this chunk: its size is what is stored
    if h5py.h5z.FILTER_FLETCHER32 in filters and \
            filters.index(h5py.h5z.FILTER_FLETCHER32) > filters.index(h5py.h5z.FILTER_DEFLATE):
        raw = raw[:-4]
    try:
        total = count_inflated(raw, declared)
    except OSError:
        return  # HDF5's own read reports a corrupt stream
    if total > declared:
        raise ChunkOverflow(declared).at(str(dataset.name), offset)


def check_selection(dataset: Any, selection: Any = Ellipsis) -> None:
    """Refuse to let HDF5 decode ``dataset[selection]`` when a stored chunk it touches
    inflates past its declared size (see the module notes).

    Raises:
        ChunkOverflow: the first such chunk (dataset name and chunk offset).
    """
    try:
        dsid = dataset.id
        filters = _pipeline(dsid)
        if filters is None or not dataset.shape or dataset.dtype.hasobject:
            return
        chunk = tuple(int(c) for c in dataset.chunks)
        declared = int(np.prod(chunk, dtype=np.int64)) * int(dataset.dtype.itemsize)
        box = _box(selection, tuple(int(n) for n in dataset.shape))
        key0 = (dsid.fileno, h5py.h5g.get_objinfo(dsid).objno[0])
        stored = _stored_chunks(dsid, key0)
    except (OSError, RuntimeError, ValueError, TypeError, KeyError, AttributeError):
        return  # HDF5's own read says what is wrong
    for offset, _size in stored:
        if any(o + c <= lo or o >= hi for o, c, (lo, hi) in zip(offset, chunk, box,
                                                                  strict=True)):
            continue
        key = (*key0, offset)
        with _lock:
            if key in _checked:
                continue
        try:
            _check_chunk(dataset, offset, filters, declared)
        except (RuntimeError, ValueError, KeyError):
            continue
        with _lock:
            if len(_checked) >= MAX_REMEMBERED:
                _checked.clear()
            _checked.add(key)


#: Suspect chunks (stored larger than deflate makes of their size) inflated by
#: :func:`stored_overflow`.
MAX_SUSPECTS = 64


def deflate_bound(size: int) -> int:
    """Most bytes a zlib stream of ``size`` bytes can take (zlib's ``compressBound``)."""
    return size + (size >> 12) + (size >> 14) + (size >> 25) + 13


def stored_overflow(dataset: Any) -> ChunkOverflow | None:
    """The first stored chunk of ``dataset`` that inflates past its declared size among
    those stored in more bytes than deflate can make of that size (a cheap test, run at
    open: only such chunks are inflated, each at most to its size plus one), or None.
    Chunks stored small enough are checked when read (:func:`check_selection`)."""
    try:
        dsid = dataset.id
        filters = _pipeline(dsid)
        if filters is None or not dataset.shape or dataset.dtype.hasobject:
            return None
        chunk = tuple(int(c) for c in dataset.chunks)
        declared = int(np.prod(chunk, dtype=np.int64)) * int(dataset.dtype.itemsize)
        stored = _stored_chunks(dsid, (dsid.fileno, h5py.h5g.get_objinfo(dsid).objno[0]))
    except (OSError, RuntimeError, ValueError, TypeError, KeyError, AttributeError):
        return None
    bound = deflate_bound(declared) + 4  # a Fletcher-32 checksum
    suspects = [offset for offset, size in stored if size > bound][:MAX_SUSPECTS]
    for offset in suspects:
        try:
            _check_chunk(dataset, offset, filters, declared)
        except ChunkOverflow as exc:
            return exc
        except (OSError, RuntimeError, ValueError, KeyError):
            continue
    return None
