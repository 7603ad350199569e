"""Lazy array references over HDF5 datasets.

* :class:`H5DatasetRef`: any chunked or contiguous HDF5 dataset (a plain HDF5
  file's arrays, a recording's dense ``neuro`` array, ``vision_store/<i>/array``).
  ``read`` touches only the chunks of the selection; envelopes of large chunked
  datasets go through a per-chunk min/max summary (:mod:`.chunk_summary`)
  decoded in parallel.  (A recording's COO neural array is
  :class:`inspector.formats.vneurotk.coo.CooNeuroRef`.)
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
from inspector.formats.hdf5 import rules as R
from inspector.formats.hdf5.chunk_summary import (
    ChunkSummary,
    chunked_envelope,
    worth_summarising,
)
from inspector.formats.hdf5.chunk_summary import (
    envelope_chunks as summary_chunks,
)
from inspector.formats.hdf5.chunks import (
    ChunkFile,
    ChunkLayout,
    allocated_chunks,
    chunk_layout,
    read_raw_chunk,
)
from inspector.formats.hdf5.filters import missing_text
from inspector.formats.hdf5.source import H5Source

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
        try:
            out = np.asarray(self._source.read(self._ds, tuple(fixed)))
        except OSError as exc:  # a filter that is not installed: say which
            why = missing_text(self._ds)
            if why is None:
                raise
            raise OSError(f"{self.location}: {why}") from exc
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
        chunk_file = self._chunk_reader()
        if chunk_file is not None:
            return chunk_file.read(offset)
        return read_raw_chunk(self._ds, offset)

    def prefetch_chunk(self, offset: tuple[int, ...]) -> None:
        """Start reading the stored chunk at ``offset`` from disk ahead of its
        :meth:`read_raw_chunk` (:meth:`ChunkFile.prefetch`; a hint: never raises, and
        does nothing where the chunks are not read with ``os.pread``)."""
        chunk_file = self._chunk_reader()
        if chunk_file is not None:
            chunk_file.prefetch(offset)

    def _chunk_reader(self) -> ChunkFile | None:
        """The dataset's :class:`ChunkFile` (opened once), or None."""
        if not self._chunk_file_known:
            with self._chunk_file_lock:
                if not self._chunk_file_known:
                    self._chunk_file = ChunkFile.open(self._ds)
                    self._chunk_file_known = True
        return self._chunk_file

    def _allocated_chunks(self) -> set[tuple[int, ...]] | None:
        """The offsets of the stored chunks, from the chunk reader's listing of them
        (which it then uses to locate each chunk: one pass over HDF5's index), else
        :func:`allocated_chunks`."""
        reader = self._chunk_reader()
        index = reader.chunk_index() if reader is not None else None
        return index.offsets() if index is not None else allocated_chunks(self._ds)

    def chunk_summary(self) -> ChunkSummary | None:
        """The (single, lazily built) per-chunk min/max summary of this dataset,
        or None when the dataset is too small or its layout does not suit one."""
        layout = self.chunk_layout()
        if layout is None or not worth_summarising(self.shape, self.sample_axis, layout):
            return None
        with self._summary_lock:
            if self._summary is None:
                self._source.check()
                self._summary = ChunkSummary(self, layout, self._allocated_chunks())
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

    def envelope_chunks(self, index: tuple[int | None, ...], start: int, stop: int,
                        bins: int) -> set[Any]:
        """The stored chunks :meth:`envelope` reads through the chunk summary (chunk
        coordinates, :func:`~inspector.formats.hdf5.chunk_summary.envelope_chunks`), or
        the plain path's pieces when there is no summary."""
        summary = self.chunk_summary()
        if summary is None:
            return super().envelope_chunks(index, start, stop, bins)
        self.line_selection(index, 0, 0)
        n = self.shape[index.index(None)]
        start = max(0, min(int(start), n))
        stop = max(start, min(int(stop), n))
        return summary_chunks(summary, index, start, stop, bins)

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
