"""Block minima and maxima of one stored HDF5 chunk, without holding its decoded samples.

:func:`stored_block_minmax` answers what a chunk summary needs of a chunk
(:mod:`inspector.formats.hdf5.chunk_summary`): the minimum and maximum
of every block of ``block`` samples along axis 0, for every position of the
other axes.  The chunk is inflated whole by the one decoder
(:func:`inspector.formats.decoding.inflate.undo_filters`) but its shuffle (HDF5
``H5Zshuffle.c``: byte ``j`` of every element stored as plane ``j``) is undone
a slab of rows at a time into a small per-thread buffer, each slab reduced
at once while it is still in the processor's cache: the decoded chunk is
never written out whole, and no buffer is allocated per chunk.

The result is the one ``numpy`` gives for the decoded chunk
(``v.reshape(-1, block, ...).min(axis=1)``); floating-point blocks holding a
NaN or an infinity are left to the caller (None), which reduces over finite
values only.

Nothing here imports Qt.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from inspector.formats.decoding.inflate import undo_filters

#: Bytes of decoded samples unshuffled and reduced at once (fits a core's L2 cache).
SLAB_BYTES = 256 << 10

_scratch = threading.local()


def _buffer(nbytes: int) -> np.ndarray:
    """A uint8 buffer of at least ``nbytes`` owned by this thread (reused)."""
    buf = getattr(_scratch, "buf", None)
    if buf is None or buf.size < nbytes:
        buf = _scratch.buf = np.empty(nbytes, dtype=np.uint8)
    return buf


def _slab_rows(row_bytes: int, block: int, length: int) -> int:
    """Rows per slab: whole blocks, about :data:`SLAB_BYTES`, at most ``length``."""
    per = max(1, SLAB_BYTES // max(row_bytes * block, 1)) * block
    return min(per, length)


def stored_block_minmax(data: bytes | bytearray | memoryview, mask: int,
                        filters: Sequence[str], dtype: np.dtype, chunks: tuple[int, ...],
                        block: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Min and max of each block of ``block`` rows of one stored chunk.

    Args:
        data, mask: the chunk's stored bytes and HDF5 filter mask.
        filters: the pipeline in write order (see :func:`undo_filters`).
        dtype: the stored element type (numbers only).
        chunks: the chunk shape; ``block`` must divide ``chunks[0]``.
        block: rows per block.

    Returns:
        ``(lo, hi)`` of shape ``(chunks[0] // block, *chunks[1:])`` in ``dtype``
        (native byte order), or None when a float block holds a NaN or an
        infinity (the caller reduces over finite values).

    Raises:
        ChunkOverflow: the deflate stream holds more than the chunk's size.
        OSError: corrupt data, a failed checksum or another filter.
    """
    dtype = np.dtype(dtype)
    length, rest = int(chunks[0]), tuple(int(c) for c in chunks[1:])
    row = int(np.prod(rest, dtype=np.int64))
    size = length * row * dtype.itemsize
    raw, shuffled = undo_filters(data, mask, filters, dtype.itemsize, size, keep_shuffled=True)
    nblocks = length // block
    native = dtype.newbyteorder("=")
    lo = np.empty((nblocks, *rest), dtype=native)
    hi = np.empty((nblocks, *rest), dtype=native)
    rows = _slab_rows(row * dtype.itemsize, block, length)
    planes = raw.reshape(dtype.itemsize, -1) if shuffled and dtype.itemsize > 1 else None
    scratch = _buffer(rows * row * dtype.itemsize) if planes is not None else None
    for r0 in range(0, length, rows):
        r1 = min(length, r0 + rows)
        n = (r1 - r0) * row
        if planes is not None and scratch is not None:
            dst = scratch[: n * dtype.itemsize].reshape(n, dtype.itemsize)
            for j in range(dtype.itemsize):
                dst[:, j] = planes[j, r0 * row: r1 * row]
            values = dst.reshape(-1).view(dtype)
        else:
            values = raw[r0 * row * dtype.itemsize: r1 * row * dtype.itemsize].view(dtype)
        v = values.reshape((r1 - r0) // block, block, *rest)
        b0, b1 = r0 // block, r1 // block
        np.minimum.reduce(v, axis=1, out=lo[b0:b1])
        np.maximum.reduce(v, axis=1, out=hi[b0:b1])
    if dtype.kind == "f" and not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        return None
    return lo, hi
