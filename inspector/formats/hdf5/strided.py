"""Hyperslab reads of deflate/shuffle/Fletcher-32 chunked datasets, chunks decoded in parallel.

HDF5 decodes the chunks of one read one after the other, under h5py's lock.
For a selection that touches many chunks (an image sampled every 20th row
and column, a page of a table spanning chunks) :func:`parallel_read` fetches
each touched chunk's stored bytes (``read_direct_chunk``, HDF5 File Format
Specification, "Data Storage - Chunked") and inflates, unshuffles and
samples it on the shared worker pool (:mod:`inspector.formats.decoding.workers`) with
the one decoder (:mod:`inspector.formats.decoding.inflate`), without the GIL.  Only the
selected elements of each chunk are kept; chunks outside the selection are
never read, unallocated chunks read as the fill value.  A chunk the pool has
not started when the reader waits for it is decoded by the reader itself (no
deadlock on a busy pool).

Only plain numbers stored with deflate, shuffle and Fletcher-32 (any of them,
none included) take this path; anything else is left to HDF5 (None).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from typing import Any

import h5py
import numpy as np

from inspector.formats.decoding.inflate import ChunkOverflow
from inspector.formats.decoding.workers import pool
from inspector.formats.hdf5.chunks import (
    ChunkLayout,
    allocated_chunks,
    chunk_layout,
    decode_chunk,
    read_raw_chunk,
)

#: Fewer touched chunks than this are left to HDF5 (no gain in parallel).
MIN_CHUNKS = 4
#: About this many tasks per read (each decodes several chunks: less overhead).
TASKS = 64
#: Filters decoded here without HDF5 (:func:`inspector.formats.decoding.inflate.undo_filters`).
FAST_FILTERS = ("shuffle", "gzip", "fletcher32")

#: ``(chunk start, output positions, positions within the chunk)`` along one axis.
_Part = tuple[int, np.ndarray, np.ndarray]


def _parts(r: range, chunk: int) -> list[_Part]:
    """The selected positions of ``r`` (step > 0) grouped by the chunk holding them."""
    pos = np.arange(r.start, r.stop, r.step, dtype=np.int64)
    if pos.size == 0:
        return []
    which = pos // chunk
    cuts = np.flatnonzero(np.diff(which)) + 1
    out = []
    for idx in np.split(np.arange(pos.size), cuts):
        start = int(which[idx[0]]) * chunk
        out.append((start, idx, pos[idx] - start))
    return out


class _Reader:
    """One parallel read: the output, the layout and which chunks exist."""

    def __init__(self, ds: h5py.Dataset, layout: ChunkLayout, out: np.ndarray,
                 allocated: set[tuple[int, ...]] | None) -> None:
        self.ds, self.layout, self.out, self.allocated = ds, layout, out, allocated

    def piece(self, parts: tuple[_Part, ...]) -> None:
        """Decode one chunk and copy its selected elements into the output."""
        offset = tuple(p[0] for p in parts)
        dest = np.ix_(*[p[1] for p in parts])
        if self.allocated is not None and offset not in self.allocated:
            if self.layout.fill is not None:
                self.out[dest] = self.layout.fill
                return
            self.out[dest] = self._by_hdf5(parts)
            return
        try:
            mask, data = read_raw_chunk(self.ds, offset)
        except OSError:
            if self.allocated is not None:
                raise
            self.out[dest] = self._by_hdf5(parts)  # not known to exist: HDF5 decides
            return
        try:
            chunk = decode_chunk(data, mask, self.layout)
        except ChunkOverflow as exc:
            raise exc.at(str(self.ds.name), offset) from None
        self.out[dest] = chunk[np.ix_(*[p[2] for p in parts])]

    def _by_hdf5(self, parts: tuple[_Part, ...]) -> np.ndarray:
        """The piece read by HDF5 itself (an unallocated chunk of unknown fill value)."""
        sel = []
        for start, _dest, local in parts:
            step = int(local[1] - local[0]) if local.size > 1 else 1
            sel.append(slice(start + int(local[0]), start + int(local[-1]) + 1, step))
        return np.asarray(self.ds[tuple(sel)])


def _run_pieces(reader: _Reader, outer: tuple[_Part, ...], lasts: list[_Part]) -> None:
    """Decode the chunks ``outer x lasts`` (one task of the pool)."""
    for last in lasts:
        reader.piece((*outer, last))


def _wait(futures: list[tuple[Future[None], Callable[[], None]]]) -> None:
    try:
        for future, run in futures:
            if future.cancel():
                run()  # not started: do it here rather than wait behind other work
            else:
                future.result()
    finally:
        for future, _run in futures:
            future.cancel()


def fast_layout(ds: h5py.Dataset, identity: tuple[Any, ...] | None = None) -> ChunkLayout | None:
    """The chunk layout of ``ds`` when :func:`parallel_read` can decode it, else None
    (not chunked, other filters or types, virtual or external storage)."""
    try:
        if ds.shape is None or ds.is_virtual or ds.external:
            return None
        layout = chunk_layout(ds, identity)
    except (OSError, RuntimeError, ValueError, AttributeError, TypeError):
        return None
    if layout is None or not all(f in FAST_FILTERS for f in layout.filters) or \
            np.dtype(layout.dtype).kind not in "biuf":
        return None
    return layout


def existing_chunks(ds: h5py.Dataset, layout: ChunkLayout) -> set[tuple[int, ...]] | None:
    """The offsets of the chunks stored in the file, or None when every chunk is stored
    (counted without listing them: cheap for 10^5 chunks) or that is unknown."""
    total = math.prod(-(-int(n) // c) for n, c in zip(ds.shape, layout.chunks, strict=True))
    try:
        if int(ds.id.get_num_chunks()) == total:
            return None
    except (OSError, RuntimeError, ValueError, AttributeError):
        pass
    return allocated_chunks(ds)


def parallel_read(ds: h5py.Dataset, layout: ChunkLayout, box: tuple[slice, ...],
                  allocated: set[tuple[int, ...]] | None) -> np.ndarray | None:
    """``ds[box]`` (forward slices, one per axis) with its chunks decoded in parallel.

    Args:
        layout: from :func:`fast_layout`.
        allocated: from :func:`existing_chunks` (None: every chunk is read).

    Returns:
        The array in the stored dtype, or None when HDF5 should read it instead:
        fewer than :data:`MIN_CHUNKS` chunks touched, or no worker pool open.

    Raises:
        OSError: a chunk cannot be read or decoded (damaged file).
    """
    if len(box) != len(layout.chunks):
        return None
    ranges = [range(*s.indices(n)) for s, n in zip(box, ds.shape, strict=True)]
    per_axis = [_parts(r, c) for r, c in zip(ranges, layout.chunks, strict=True)]
    if math.prod(len(p) for p in per_axis) < MIN_CHUNKS:
        return None
    try:
        executor = pool()
    except RuntimeError:
        return None
    out = np.empty([len(r) for r in ranges], dtype=layout.dtype)
    reader = _Reader(ds, layout, out, allocated)
    rows = math.prod(len(p) for p in per_axis[:-1])
    lasts = per_axis[-1]
    per_task = max(1, -(-len(lasts) * rows // TASKS))  # whole rows of chunks, or pieces
    futures: list[tuple[Future[None], Callable[[], None]]] = []
    for outer in itertools.product(*per_axis[:-1]):
        for k in range(0, len(lasts), per_task):
            run = partial(_run_pieces, reader, outer, lasts[k:k + per_task])
            futures.append((executor.submit(run), run))
    _wait(futures)
    return out
