"""Where each stored chunk of a dataset lies, listed in one pass over HDF5's chunk index.

HDF5 (2.0.0 here) answers "where is the chunk at this offset"
(``H5Dget_chunk_info_by_coord``) by iterating over its chunk index, so one lookup
costs more the further the chunk lies: on a 16 378-chunk recording (v1 B-tree) a
lookup near the end takes 0.4-0.5 ms of CPU under h5py's lock, about half of what
inflating that chunk takes (``benchmarks/summary_cpu.py``: ``locate_ms``,
``inflate_ms``).  A :class:`ChunkIndex` lists every stored chunk
once (``H5Dchunk_iter``, where h5py and HDF5 offer it: about 2 µs per
chunk) and answers each lookup from memory (HDF5 File Format Specification
3.0, "Data Storage - Chunked": a chunk is ``size`` contiguous bytes at
``byte_offset`` with its filter mask).

Nothing here imports Qt.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Most stored chunks listed (about 28 bytes each kept); a dataset holding more is
#: looked up chunk by chunk by HDF5.
INDEX_MAX_CHUNKS = 1 << 18


class ChunkIndex:
    """The stored chunks of one dataset: offset -> ``(byte offset, size, filter mask)``.

    Args:
        chunks: the chunk shape.
        grid: chunks per axis (``ceil(shape / chunks)``).
        offsets: ``(n, ndim)`` int64 first-element offsets of the stored chunks.
        where: ``(n, 3)`` int64 byte offset, stored size and filter mask of each.

    Stored chunks outside ``grid`` are left out (a dataset made smaller).
    """

    def __init__(self, chunks: tuple[int, ...], grid: tuple[int, ...], offsets: np.ndarray,
                 where: np.ndarray) -> None:
        self.chunks, self.grid = chunks, grid
        coords = offsets.reshape(-1, len(chunks)) // np.array(chunks, dtype=np.int64)
        inside = ((coords >= 0) & (coords < np.array(grid, dtype=np.int64))).all(axis=1)
        keys = np.ravel_multi_index(tuple(coords[inside].T), grid) if len(grid) else \
            np.zeros(int(inside.sum()), dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        self._keys = np.asarray(keys, dtype=np.int64)[order]
        self._where = where.reshape(-1, 3)[inside][order]

    def __len__(self) -> int:
        return int(self._keys.size)

    def offsets(self) -> set[tuple[int, ...]]:
        """The first-element offsets of the stored chunks (as
        :func:`~inspector.formats.hdf5.chunks.allocated_chunks` lists them)."""
        coords = np.unravel_index(self._keys, self.grid) if self.grid else ()
        starts = np.stack([c * k for c, k in zip(coords, self.chunks, strict=True)], axis=1) \
            if self.grid else np.zeros((self._keys.size, 0), dtype=np.int64)
        return {tuple(row) for row in starts.tolist()}

    def key(self, offset: tuple[int, ...]) -> int | None:
        """The chunk's position in the grid, or None for an offset that is not the first
        element of a chunk inside the grid (HDF5 is asked then)."""
        if len(offset) != len(self.chunks):
            return None
        key = 0
        for o, c, g in zip(offset, self.chunks, self.grid, strict=True):
            q, r = divmod(int(o), c)
            if r or not 0 <= q < g:
                return None
            key = key * g + q
        return key

    def locate(self, key: int) -> tuple[int, int, int] | None:
        """``(byte offset, stored size, filter mask)`` of the chunk at grid position
        ``key`` (see :meth:`key`), or None when no chunk is stored there."""
        i = int(np.searchsorted(self._keys, key))
        if i >= self._keys.size or int(self._keys[i]) != key:
            return None
        b, s, m = self._where[i].tolist()
        return int(b), int(s), int(m)

    @classmethod
    def build(cls, dsid: Any, shape: tuple[int, ...], chunks: tuple[int, ...],
              limit: int = INDEX_MAX_CHUNKS) -> ChunkIndex | None:
        """List the stored chunks of the dataset ``dsid`` (an h5py ``DatasetID``) in one
        ``chunk_iter`` pass; None when h5py or HDF5 cannot, or more than ``limit`` are
        stored (then HDF5 is asked chunk by chunk)."""
        if not hasattr(dsid, "chunk_iter") or not chunks or len(shape) != len(chunks) \
                or min(chunks) < 1:
            return None
        offsets: list[tuple[int, ...]] = []
        where: list[tuple[int, int, int]] = []

        def take(info: Any) -> int | None:
            if info.byte_offset is None or info.size is None:
                return None
            offsets.append(info.chunk_offset)
            where.append((info.byte_offset, info.size, info.filter_mask))
            return 1 if len(offsets) > limit else None

        try:
            dsid.chunk_iter(take)
        except (OSError, RuntimeError, ValueError, TypeError, KeyError):
            return None
        if len(offsets) > limit:
            return None
        grid = tuple(-(-int(s) // int(c)) for s, c in zip(shape, chunks, strict=True))
        if int(np.prod(grid, dtype=object)) >= 1 << 62:  # (positions must fit in int64)
            return None
        return cls(tuple(int(c) for c in chunks), grid,
                   np.array(offsets, dtype=np.int64).reshape(-1, len(chunks)),
                   np.array(where, dtype=np.int64).reshape(-1, 3))
