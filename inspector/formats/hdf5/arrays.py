"""Lazy array references over a VneuroTK recording (dense and COO).

* :class:`H5DatasetRef`: any chunked or contiguous HDF5 dataset (the dense
  ``neuro`` array, ``vision_store/<i>/array``).  ``read`` touches only the
  chunks of the selection; envelopes of large chunked datasets go through a
  per-chunk min/max summary (:mod:`.chunk_summary`) decoded in parallel.
* :class:`CooNeuroRef`: the COO neural array of the recording notes §2: datasets
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

import threading
from collections.abc import Iterator
from typing import Any

import h5py
import numpy as np

from inspector.formats.analysis.arrays import (
    MAX_VIEW_SAMPLES,
    ArrayRef,
    CancelledFn,
    Envelope,
    PreviewFn,
)
from inspector.formats.findings import Rule
from inspector.formats.hdf5.chunk_summary import (
    ChunkSummary,
    chunked_envelope,
    worth_summarising,
)
from inspector.formats.hdf5.chunks import (
    ChunkFile,
    ChunkLayout,
    allocated_chunks,
    chunk_layout,
    read_raw_chunk,
)
from inspector.formats.hdf5.source import H5Source
from inspector.formats.vneurotk import rules as R

#: Elements of ``neuro_row`` read per block when indexing COO rows.
COO_BLOCK = 1 << 20
#: Most chunks a sampled (whole-range, too wide to read) envelope of one line touches.
MAX_SAMPLED_CHUNKS = 1 << 14


def _native(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.byteorder not in ("=", "|") and not a.dtype.isnative:
        return a.astype(a.dtype.newbyteorder("="))
    return a


def normalize_selection(selection: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """Expand ``selection`` (ints, slices, Ellipsis) to one entry per axis.

    Raises:
        IndexError: too many indices or an integer out of bounds.
        TypeError: an unsupported index type (fancy indexing).
    """
    if not isinstance(selection, tuple):
        selection = (selection,)
    n_ell = sum(1 for s in selection if s is Ellipsis)
    if n_ell > 1:
        raise IndexError("at most one Ellipsis is allowed")
    if n_ell:
        i = next(i for i, s in enumerate(selection) if s is Ellipsis)
        fill = len(shape) - (len(selection) - 1)
        selection = selection[:i] + (slice(None),) * fill + selection[i + 1 :]
    if len(selection) > len(shape):
        raise IndexError(f"too many indices for an array of shape {shape}")
    selection = selection + (slice(None),) * (len(shape) - len(selection))
    out: list[Any] = []
    for s, n in zip(selection, shape, strict=True):
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            k = int(s)
            if k < 0:
                k += n
            if not 0 <= k < n:
                raise IndexError(f"index {int(s)} is out of bounds for an axis of size {n}")
            out.append(k)
        elif isinstance(s, slice):
            out.append(s)
        else:
            raise TypeError(f"unsupported index {s!r}: use integers, slices or Ellipsis")
    return tuple(out)


class H5DatasetRef(ArrayRef):
    """A lazy reference to one HDF5 dataset.

    Args:
        source: the open file (identity-checked on every read).
        dataset: the h5py dataset (may live behind an external link).
        name: display name; location defaults to the dataset path.
        sample_axis: axis plotted as x.
        unreadable_rule: the rule a read failure breaks (``data.unreadable``; the neural
            array's is ``neuro.unreadable``).
    """

    def __init__(self, source: H5Source, dataset: h5py.Dataset, name: str, *,
                 location: str | None = None, storage: str = "dense", sample_axis: int = 0,
                 unreadable_rule: Rule = R.DATA_UNREADABLE) -> None:
        super().__init__()
        self.unreadable_rule = unreadable_rule
        self._source = source
        self._ds = dataset
        self.name = name
        self.shape = tuple(int(n) for n in dataset.shape)
        self.dtype = np.dtype(dataset.dtype)
        self.location = location or dataset.name
        self.storage = storage
        self.sample_axis = sample_axis
        self._layout: ChunkLayout | None = None
        self._layout_known = False
        self._summary: ChunkSummary | None = None
        self._summary_lock = threading.Lock()
        self._chunk_file: ChunkFile | None = None  # stored bytes read outside h5py's lock
        self._chunk_file_known = False
        self._chunk_file_lock = threading.Lock()

    def read(self, selection: Any = Ellipsis) -> np.ndarray:
        """Return ``array[selection]`` in native byte order (see :class:`ArrayRef`)."""
        sel = normalize_selection(selection, self.shape)
        # h5py rejects negative steps; read forward and flip.
        flips = []
        fixed = []
        for axis, s in enumerate(sel):
            if isinstance(s, slice) and s.step is not None and s.step < 0:
                idx = range(*s.indices(self.shape[axis]))
                if len(idx) == 0:
                    fixed.append(slice(0, 0))
                else:
                    fixed.append(slice(idx[-1], idx[0] + 1, -s.step))
                    flips.append(sum(1 for x in sel[:axis] if not isinstance(x, int)))
            else:
                fixed.append(s)
        out = self._source.read(self._ds, tuple(fixed))
        out = np.asarray(out)
        for ax in flips:
            out = np.flip(out, axis=ax)
        return _native(out)

    def chunk_layout(self) -> ChunkLayout | None:
        """The dataset's chunk layout, or None when it is not chunked.

        Virtual and external-storage datasets have none here either:
        ``read_direct_chunk`` does not apply to them.
        """
        if not self._layout_known:
            try:
                indirect = bool(self._ds.is_virtual) or bool(self._ds.external)
            except (OSError, RuntimeError, ValueError, AttributeError):
                indirect = True
            self._layout = None if indirect else chunk_layout(self._ds, self._source.identity)
            self._layout_known = True
        return self._layout

    def sampled_read_limit(self, index: tuple[int | None, ...]) -> int:
        """Most samples a sampled envelope reads: :data:`MAX_VIEW_SAMPLES`, or as many
        as :data:`MAX_SAMPLED_CHUNKS` chunks hold along the line's axis.

        HDF5 looks every chunk up, stored or not, so a dataset declaring
        billions of one-sample chunks (a hostile file's, too many for a chunk
        summary) made the whole-range view read 16 million chunks per line.
        """
        try:
            chunks = self._ds.chunks
        except (OSError, RuntimeError, ValueError, AttributeError):
            chunks = None
        if not chunks or None not in index or len(chunks) != len(index):
            return MAX_VIEW_SAMPLES
        along = max(1, int(chunks[index.index(None)]))
        return min(MAX_VIEW_SAMPLES, MAX_SAMPLED_CHUNKS * along)

    def read_raw_chunk(self, offset: tuple[int, ...]) -> tuple[int, bytes]:
        """``(filter_mask, stored bytes)`` of the chunk at ``offset``, after the
        file-identity check.

        Raises:
            OSError: the file changed, or the chunk cannot be read.
        """
        self._source.check()
        if not self._chunk_file_known:
            with self._chunk_file_lock:
                if not self._chunk_file_known:
                    self._chunk_file = ChunkFile.open(self._ds)
                    self._chunk_file_known = True
        if self._chunk_file is not None:
            return self._chunk_file.read(offset)
        return read_raw_chunk(self._ds, offset)

    def chunk_summary(self) -> ChunkSummary | None:
        """The (single, lazily built) per-chunk min/max summary of this dataset,
        or None when the dataset is too small or its layout does not suit one."""
        layout = self.chunk_layout()
        if layout is None or not worth_summarising(self.shape, self.sample_axis, layout):
            return None
        with self._summary_lock:
            if self._summary is None:
                self._source.check()
                self._summary = ChunkSummary(self, layout, allocated_chunks(self._ds))
            return self._summary

    def accelerated_envelope(self, index: tuple[int | None, ...], start: int, stop: int,
                             bins: int, preview: PreviewFn | None,
                             cancelled: CancelledFn | None) -> Envelope | None:
        """The envelope through the chunk summary when there is one (see
        :func:`~inspector.formats.hdf5.chunk_summary.chunked_envelope`)."""
        summary = self.chunk_summary()
        if summary is None:
            return None
        return chunked_envelope(summary, index, start, stop, bins, preview, cancelled)

    def read_raw_blocks(self, rows: int = 0) -> Iterator[np.ndarray]:
        """Yield the C-order array in blocks along axis 0 (stored byte order).

        Used for hashing without holding the whole array.
        """
        if len(self.shape) == 0:
            yield np.asarray(self._source.read(self._ds, ()))
            return
        n0 = self.shape[0]
        per_row = max(1, int(np.prod(self.shape[1:], dtype=np.int64)) * self.dtype.itemsize)
        step = rows or max(1, (64 << 20) // per_row)
        for a in range(0, n0, step):
            yield np.ascontiguousarray(self._source.read(self._ds, slice(a, min(n0, a + step))))


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
