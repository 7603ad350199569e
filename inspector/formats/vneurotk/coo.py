"""The COO neural array of a VneuroTK recording, read lazily.

The COO neural array of the recording notes §2: datasets
``neuro_row``, ``neuro_col``, ``neuro_data`` holding the sparse matrix of
shape ``(n_trials * n_time, n_channels)`` (duplicates add up), reshaped to
``neuro_shape``.  Reads fetch the rows of the requested trials only: on the
first read the row dataset is streamed once in blocks to verify that it is
sorted (the reference writer sorts it, but a reader must check) and to
record each block's first/last row; later reads binary-search those blocks
with ``numpy.searchsorted``.  Unsorted rows fall back to a block-wise scan
of the whole row dataset per read (correct, slower).  The array is never
densified whole unless the selection asks for all of it.

Every read first checks that the file was not replaced
(:meth:`~inspector.formats.hdf5.source.H5Source.check`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import h5py
import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.hdf5.arrays import _native, normalize_selection
from inspector.formats.hdf5.source import H5Source
from inspector.formats.vneurotk import rules as R

#: Elements of ``neuro_row`` read per block when indexing COO rows.
COO_BLOCK = 1 << 20


class CooNeuroRef(ArrayRef):
    """The COO neural array, read per trial.

    Args:
        source: the open file.
        row, col, data: the ``neuro_row``, ``neuro_col``, ``neuro_data``
            datasets (1-D, equal length).
        shape: ``neuro_shape`` ``(n_trials, n_time, n_channels)``.
        dtype: ``neuro_dtype``.
    """

    storage = "coo"
    unreadable_rule = R.NEURO_UNREADABLE

    def __init__(self, source: H5Source, row: h5py.Dataset, col: h5py.Dataset, data: h5py.Dataset,
                 shape: tuple[int, int, int], dtype: np.dtype, *, name: str = "neuro",
                 sample_axis: int = 1) -> None:
        super().__init__()
        self._source = source
        self._row, self._col, self._data = row, col, data
        self.name = name
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.location = "/neuro_row"
        self.sample_axis = sample_axis
        self.nnz = int(row.shape[0]) if row.shape else 0
        self._blocks: list[tuple[int, int, int, int]] | None = None  # (start, stop, first, last)
        self._sorted: bool | None = None

    @property
    def row_dataset(self) -> h5py.Dataset:
        """The ``neuro_row`` dataset (int, ``(nnz,)``)."""
        return self._row

    @property
    def col_dataset(self) -> h5py.Dataset:
        """The ``neuro_col`` dataset (int, ``(nnz,)``)."""
        return self._col

    # -- row index ---------------------------------------------------------
    @property
    def rows_sorted(self) -> bool | None:
        """True/False once the row dataset was checked (first read); None before."""
        return self._sorted

    def _ensure_index(self) -> None:
        if self._sorted is not None:
            return
        blocks = []
        ok = True
        prev_last = None
        for a in range(0, self.nnz, COO_BLOCK):
            b = min(self.nnz, a + COO_BLOCK)
            r = np.asarray(self._source.read(self._row, slice(a, b))).astype(np.int64, copy=False)
            if r.size and ok:
                if np.any(r[1:] < r[:-1]) or (prev_last is not None and r[0] < prev_last):
                    ok = False
            if r.size:
                blocks.append((a, b, int(r[0]), int(r[-1])))
                prev_last = int(r[-1])
        self._blocks = blocks
        self._sorted = ok

    def _positions(self, lo: int, hi: int) -> tuple[int, int]:
        """Return ``[a, b)``: positions of rows in ``[lo, hi)`` (sorted rows only)."""
        assert self._blocks is not None
        a = b = None
        for start, stop, first, last in self._blocks:
            if a is None and last >= lo:
                if first >= lo:
                    a = start
                else:
                    r = np.asarray(self._source.read(self._row, slice(start, stop)))
                    a = start + int(np.searchsorted(r, lo, side="left"))
            if last >= hi:
                if first >= hi:
                    b = start
                else:
                    r = np.asarray(self._source.read(self._row, slice(start, stop)))
                    b = start + int(np.searchsorted(r, hi, side="left"))
                break
        if a is None:
            a = self.nnz
        if b is None:
            b = self.nnz
        return a, max(a, b)

    def _entries(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row, column and value of every stored entry with ``lo <= row < hi``."""
        self._ensure_index()
        if self._sorted:
            a, b = self._positions(lo, hi)
            r = np.asarray(self._source.read(self._row, slice(a, b))).astype(np.int64)
            c = np.asarray(self._source.read(self._col, slice(a, b))).astype(np.int64)
            d = np.asarray(self._source.read(self._data, slice(a, b)))
            return r, c, d
        rs, cs, ds = [], [], []
        for a in range(0, self.nnz, COO_BLOCK):
            b = min(self.nnz, a + COO_BLOCK)
            r = np.asarray(self._source.read(self._row, slice(a, b))).astype(np.int64)
            m = (r >= lo) & (r < hi)
            if m.any():
                rs.append(r[m])
                cs.append(np.asarray(self._source.read(self._col, slice(a, b))).astype(np.int64)[m])
                ds.append(np.asarray(self._source.read(self._data, slice(a, b)))[m])
        if not rs:
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, self.dtype)
        return np.concatenate(rs), np.concatenate(cs), np.concatenate(ds)

    def dense_trials(self, t0: int, t1: int) -> np.ndarray:
        """Densify trials ``[t0, t1)`` only: ``(t1 - t0, n_time, n_channels)``.

        Raises:
            OSError: the file changed, or stored coordinates fall outside
                ``neuro_shape`` (corrupt COO data, notes §2).
        """
        n_tr, n_t, n_ch = self.shape
        lo, hi = t0 * n_t, t1 * n_t
        r, c, d = self._entries(lo, hi)
        if c.size and (c.min() < 0 or c.max() >= n_ch):
            raise OSError(
                f"neuro_col holds a column outside 0..{n_ch - 1} (COO coordinates must fit "
                "neuro_shape, VneuroTK recording notes §2)"
            )
        out = np.zeros(((t1 - t0) * n_t, n_ch), dtype=self.dtype)
        if r.size:
            np.add.at(out, (r - lo, c), _native(d).astype(self.dtype, copy=False))
        return out.reshape(t1 - t0, n_t, n_ch)

    def read(self, selection: Any = Ellipsis) -> np.ndarray:
        """Return ``array[selection]``; only the selected trials are densified."""
        sel = normalize_selection(selection, self.shape)
        s0 = sel[0]
        if isinstance(s0, int):
            block = self.dense_trials(s0, s0 + 1)[0]
            return np.ascontiguousarray(block[sel[1:]])
        idx = np.arange(self.shape[0])[s0]
        if idx.size == 0:
            return np.zeros((0,) + self._rest_shape(sel[1:]), dtype=self.dtype)
        t0, t1 = int(idx.min()), int(idx.max()) + 1
        block = self.dense_trials(t0, t1)
        if not (idx.size == t1 - t0 and idx[0] == t0 and np.all(np.diff(idx) == 1)):
            block = block[idx - t0]
        return np.ascontiguousarray(block[(slice(None),) + sel[1:]])

    def _rest_shape(self, rest: tuple[Any, ...]) -> tuple[int, ...]:
        out = []
        for s, n in zip(rest, self.shape[1:], strict=True):
            if isinstance(s, slice):
                out.append(len(range(*s.indices(n))))
        return tuple(out)

    def read_raw_blocks(self, rows: int = 0) -> Iterator[np.ndarray]:
        """Yield the dense array in blocks of trials (C order)."""
        n_tr, n_t, n_ch = self.shape
        per = max(1, n_t * n_ch * self.dtype.itemsize)
        step = rows or max(1, (64 << 20) // per)
        for a in range(0, n_tr, step):
            yield self.dense_trials(a, min(n_tr, a + step))
