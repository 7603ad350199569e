"""Reading blocks of trials' samples of the chosen channels: straight from the stored chunks
(decoded on the worker threads, only the rows and columns a window needs), or through the
array's own reader where the chunks cannot be decoded here."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.decoding.inflate import ChunkOverflow, undo_filters
from inspector.formats.decoding.workers import pool

if TYPE_CHECKING:

    pass


#: Target bytes of one block of trials (stored samples of the chosen channels;
#: COO trials count whole, as they are densified).
BLOCK_BYTES = 16 << 20


#: Target bytes of the float64 arrays of one fold (a slab of channels of a block).
SLAB_BYTES = 4 << 20


#: Most trials in one block (keeps progress and cancellation responsive).
MAX_BLOCK_TRIALS = 256


#: Blocks read ahead of the one being accumulated.
AHEAD = 2


@dataclass(frozen=True)
class ReadPlan:
    """Where each trial's samples are, in samples of the time axis.

    ``anchors[i]`` is trial ``i``'s onset (a sample of epoch ``i``, or of the
    recording); relative offsets ``[window)`` are returned, ``[hull)`` read.
    """

    epochs: bool
    length: int
    anchors: np.ndarray
    window: tuple[int, int]
    valid: np.ndarray | None
    baseline: np.ndarray | None
    channels: np.ndarray
    sfreq: float | None

    @property
    def hull(self) -> tuple[int, int]:
        lo, hi = self.window
        if self.baseline is not None:
            lo = min(lo, int(self.baseline[:, 0].min()))
            hi = max(hi, int(self.baseline[:, 1].max()))
        return lo, hi


#: A box of the neural array: (rows [r0, r1) or None for 2-D data, samples [t0, t1)).
_Box = tuple[tuple[int, int] | None, tuple[int, int]]


class _PlainSource:
    """Boxes read with ``ArrayRef.read`` on the calling thread (HDF5 decodes)."""

    #: Whether this source decodes the stored chunks itself (False: HDF5 decodes).
    decodes_chunks = False

    def __init__(self, ref: ArrayRef, channels: np.ndarray) -> None:
        self.ref = ref
        self.c0, self.c1 = int(channels.min()), int(channels.max()) + 1
        self.pick = channels - self.c0
        self.gap = 0
        self.ahead = 0  # reads are synchronous: reading ahead would only hold memory
        self.rows_per_chunk = 1
        coo = ref.storage == "coo"
        # COO densifies whole trials of every channel (VneuroTK on-disk notes §2)
        self.row_bytes = (int(ref.shape[1]) * int(ref.shape[2]) * np.dtype(ref.dtype).itemsize
                          if coo and ref.ndim == 3 else 0)
        self.width = self.c1 - self.c0

    def submit(self, boxes: list[_Box]) -> list[np.ndarray]:
        out = []
        for rows, (t0, t1) in boxes:
            sel: tuple[slice, ...] = (slice(t0, t1), slice(self.c0, self.c1))
            if rows is not None:
                sel = (slice(*rows),) + sel
            out.append(np.asarray(self.ref.read(sel))[..., self.pick])
        return out

    def collect(self, handle: list[np.ndarray]) -> list[np.ndarray]:
        return handle

    def count(self, boxes: list[_Box]) -> int:
        """Reads of ``boxes``: one each (the chunks of :mod:`.read_meter` here)."""
        return len(boxes)

    def cancel(self, handle: list[np.ndarray]) -> None:
        return None


@dataclass
class _Piece:
    """One chunk's share of a box: decoded by ``run`` (on the pool or inline)."""

    dest: tuple[Any, ...]
    run: Callable[[], np.ndarray]
    future: Future[np.ndarray] | None = None

    def result(self) -> np.ndarray:
        """The piece; runs it here when the pool has not started it (no deadlock)."""
        if self.future is not None and not self.future.cancel():
            return self.future.result()
        return self.run()


class _Layout(Protocol):
    """The chunk layout an array offers (``H5DatasetRef.chunk_layout()``)."""

    @property
    def chunks(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> np.dtype: ...

    @property
    def filters(self) -> tuple[str, ...]: ...


#: Filters undone here (HDF5 shuffle, deflate and Fletcher-32, whose checksum is
#: checked as HDF5 checks it).  Arrays with any other filter are read through
#: ``ArrayRef.read``.
DECODABLE = ("shuffle", "gzip", "fletcher32")


def _decoded_selection(data: bytes, mask: int, layout: _Layout, local: tuple[slice, ...],
                       pick: np.ndarray | slice) -> np.ndarray | None:
    """``chunk[local][..., pick]`` of one stored chunk, or None when its
    pipeline (``layout.filters`` less the ones ``mask`` skipped) holds a filter
    other than :data:`DECODABLE`.

    Filters are undone by :func:`inspector.formats.decoding.inflate.undo_filters`, all
    but the shuffle (byte ``j`` of every element stored as plane ``j``, HDF5
    ``H5Zshuffle.c``), which is undone here for the selected elements only.

    Raises:
        ChunkOverflow: the deflate stream holds more than the chunk's size.
        OSError: corrupt compressed data, a failed checksum or a wrong decoded size.
    """
    if any(f not in DECODABLE for i, f in enumerate(layout.filters) if not mask & (1 << i)):
        return None
    dtype = np.dtype(layout.dtype)
    expected = int(np.prod(layout.chunks, dtype=np.int64)) * dtype.itemsize
    raw, shuffled = undo_filters(data, mask, layout.filters, dtype.itemsize, expected,
                                 keep_shuffled=True)
    if shuffled and dtype.itemsize > 1:
        planes = raw.reshape(dtype.itemsize, *layout.chunks)
        index: tuple[Any, ...] = (slice(None), *local[:-1], pick)
        return np.ascontiguousarray(np.moveaxis(planes[index], 0, -1)).view(dtype)[..., 0]
    return raw.view(dtype).reshape(layout.chunks)[(*local[:-1], pick)]


def _decode_piece(ref: Any, layout: _Layout, offset: tuple[int, ...],
                  local: tuple[slice, ...], pick: np.ndarray | slice,
                  fallback: tuple[slice, ...]) -> np.ndarray:
    """Decode one chunk of ``ref`` and keep ``local`` (chunk coordinates) of channels ``pick``.

    ``local`` has one slice per axis (the last one is ignored: ``pick``
    selects the channels).  Runs on a pool thread: reads only.
    """
    try:
        mask, data = ref.read_raw_chunk(offset)
        arr = _decoded_selection(data, mask, layout, local, pick)
    except ChunkOverflow as exc:  # never handed to HDF5, which would inflate it all
        raise exc.at(str(getattr(ref, "location", "")), offset) from None
    except (OSError, NotImplementedError):
        arr = None
    if arr is None:
        # unallocated chunk or another pipeline: HDF5 decodes it (a changed file raises here)
        arr = np.asarray(ref.read(fallback))[..., pick]
    return np.ascontiguousarray(arr)


def _as_slice(index: np.ndarray) -> np.ndarray | slice:
    """An ascending run of consecutive integers as a slice (a view, not a copy)."""
    if index.size and np.all(np.diff(index) == 1):
        return slice(int(index[0]), int(index[-1]) + 1)
    return index


class _ChunkSource:
    """Boxes assembled from chunks decoded in parallel on the shared pool."""

    #: Whether this source decodes the stored chunks itself (True: on the shared pool).
    decodes_chunks = True

    def __init__(self, ref: ArrayRef, layout: _Layout, channels: np.ndarray) -> None:
        self.ref = ref
        self.layout = layout
        self.channels = channels
        self.chunks = tuple(int(c) for c in layout.chunks)
        self.gap = self.chunks[-2]
        self.ahead = AHEAD
        self.rows_per_chunk = self.chunks[0] if ref.ndim == 3 else 1
        self.row_bytes = 0
        self.width = len(channels)
        ck = self.chunks[-1]
        # per chunk column: its first channel, the channels to keep in it and
        # their positions in the result; runs of consecutive channels are slices
        self.columns = []
        for col in np.unique(channels // ck).tolist():
            positions = np.flatnonzero(channels // ck == col)
            cs = col * ck
            self.columns.append((cs, _as_slice(channels[positions] - cs), _as_slice(positions)))

    def _pieces(self, rows: tuple[int, int] | None, t0: int, t1: int) -> list[_Piece]:
        spans = ([rows] if rows is not None else []) + [(t0, t1)]
        grids = [range(a // c, -(-b // c)) for (a, b), c in zip(spans, self.chunks, strict=False)]
        pieces = []
        for coord in np.ndindex(*(len(g) for g in grids)):
            starts = [g[i] * c for g, i, c in zip(grids, coord, self.chunks, strict=False)]
            local, dest, glob = [], [], []
            for (a, b), s, c in zip(spans, starts, self.chunks, strict=False):
                lo, hi = max(a, s), min(b, s + c)
                local.append(slice(lo - s, hi - s))
                dest.append(slice(lo - a, hi - a))
                glob.append(slice(lo, hi))
            for cs, pick, positions in self.columns:
                offset = (*starts, cs)
                fallback = (*glob, slice(cs, min(cs + self.chunks[-1], int(self.ref.shape[-1]))))
                run = partial(_decode_piece, self.ref, self.layout, offset,
                              (*local, slice(None)), pick, fallback)
                pieces.append(_Piece((*dest, positions), run))
        return pieces

    def count(self, boxes: list[_Box]) -> int:
        """Stored chunks :meth:`submit` decodes for ``boxes`` (one piece each)."""
        n = 0
        for rows, (t0, t1) in boxes:
            if t1 <= t0:
                continue
            spans = ([rows] if rows is not None else []) + [(t0, t1)]
            k = 1
            for (a, b), c in zip(spans, self.chunks, strict=False):
                k *= len(range(a // c, -(-b // c)))
            n += k * len(self.columns)
        return n

    def submit(self, boxes: list[_Box]) -> list[tuple[tuple[int, ...], list[_Piece]]]:
        executor = pool()
        out = []
        for rows, (t0, t1) in boxes:
            shape = ((rows[1] - rows[0],) if rows is not None else ()) + (t1 - t0, self.width)
            pieces = self._pieces(rows, t0, t1) if t1 > t0 else []
            for p in pieces:
                p.future = executor.submit(p.run)
            out.append((shape, pieces))
        return out

    def collect(self, handle: list[tuple[tuple[int, ...], list[_Piece]]]) -> list[np.ndarray]:
        out = []
        for shape, pieces in handle:
            box = np.empty(shape, dtype=np.dtype(self.layout.dtype).newbyteorder("="))
            for p in pieces:
                box[p.dest] = p.result()
            out.append(box)
        return out

    def cancel(self, handle: list[tuple[tuple[int, ...], list[_Piece]]]) -> None:
        for _, pieces in handle:
            for p in pieces:
                if p.future is not None:
                    p.future.cancel()


_Source = _PlainSource | _ChunkSource


def source_for(ref: ArrayRef, channels: np.ndarray) -> _Source:
    """The chunk decoder when ``ref`` offers its stored chunks, else plain reads.

    Duck-typed: an array offering ``chunk_layout()`` (chunks, dtype, filters)
    and ``read_raw_chunk(offset) -> (filter_mask, bytes)``, as the HDF5
    ``H5DatasetRef`` of a recording does, with numeric samples and only
    :data:`DECODABLE` filters, is decoded chunk by chunk on the pool.
    """
    get_layout = getattr(ref, "chunk_layout", None)
    if callable(get_layout) and callable(getattr(ref, "read_raw_chunk", None)):
        layout = get_layout()
        if (layout is not None and len(layout.chunks) == ref.ndim
                and all(f in DECODABLE for f in layout.filters)
                and np.dtype(layout.dtype).kind in "biuf"):
            return _ChunkSource(ref, layout, channels)
    return _PlainSource(ref, channels)


def read_blocks(plan: ReadPlan, source: _Source, itemsize: int,
            chosen: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Trial indices of each block, in reading order (continuous: by onset), and
    the bytes one block reads (samples as stored, plus densified COO trials).

    ``chosen`` are the trials to read (ascending).  An epochs block holds the
    chosen trials of one aligned run of ``k`` rows (the box read spans that
    run, so a sparse choice never reads more than ``k`` rows at once).
    """
    h0, h1 = plan.hull
    per_trial = (h1 - h0) * source.width * itemsize + source.row_bytes
    k = max(1, min(MAX_BLOCK_TRIALS, BLOCK_BYTES // max(per_trial, 1)))
    r = source.rows_per_chunk
    if plan.epochs:
        if r > 1:
            k = max(r, k - k % r)  # whole chunk rows: no chunk is decoded twice
        cuts = np.flatnonzero(np.diff(chosen // k)) + 1
        return ([b for b in np.split(chosen, cuts) if b.size] if chosen.size else []), \
            k * per_trial
    order = chosen[np.argsort(plan.anchors[chosen], kind="stable")]
    return [order[a:a + k] for a in range(0, order.shape[0], k)], k * per_trial


def channel_slabs(plan: ReadPlan, trials: int) -> list[slice]:
    """Channel slabs folded one at a time, so that the float64 temporaries of
    one fold stay near :data:`SLAB_BYTES` whatever the number of channels."""
    h0, h1 = plan.hull
    width = max(1, SLAB_BYTES // max(1, trials * (h1 - h0) * 8))
    c = len(plan.channels)
    return [slice(a, min(c, a + width)) for a in range(0, c, width)]


def block_boxes(plan: ReadPlan, idx: np.ndarray,
           gap: int) -> tuple[list[_Box], np.ndarray, np.ndarray]:
    """The boxes to read for trials ``idx`` and, per trial, the box holding it
    and the flat sample position (in that box) of its hull's first sample.

    Continuous trials (sorted by onset) share a box when less than ``gap``
    samples (a chunk) apart, so that no chunk is decoded twice in a block.
    """
    h0, h1 = plan.hull
    a = plan.anchors[idx]
    lo = np.clip(a + h0, 0, plan.length)
    hi = np.clip(a + h1, 0, plan.length)
    owner = np.zeros(idx.shape[0], dtype=np.int64)
    if plan.epochs:
        t0, t1 = int(lo.min()), int(max(hi.max(), lo.min()))
        r0 = int(idx[0])
        base = (idx - r0) * (t1 - t0) + (a + h0 - t0)
        return [((r0, int(idx[-1]) + 1), (t0, t1))], owner, base
    boxes: list[_Box] = []
    for j, (s, e) in enumerate(zip(lo.tolist(), hi.tolist(), strict=True)):
        if boxes and s <= boxes[-1][1][1] + gap:
            prev = boxes[-1][1]
            boxes[-1] = (None, (prev[0], max(prev[1], e)))
        elif e > s or not boxes:
            boxes.append((None, (s, max(s, e))))
        owner[j] = len(boxes) - 1
    box_lo = np.array([box[1][0] for box in boxes], dtype=np.int64)
    return boxes, owner, a + h0 - box_lo[owner]


def gather_block(plan: ReadPlan, idx: np.ndarray, arrays: list[np.ndarray], owner: np.ndarray,
            base: np.ndarray, cols: slice) -> np.ndarray:
    """float64 ``(trials, hull, channels[cols])``: each trial's hull, NaN outside the data."""
    h0, h1 = plan.hull
    width = len(plan.channels)
    flats = [x.reshape(-1, width) for x in arrays]
    start = plan.anchors[idx] + h0
    first = np.clip(-start, 0, h1 - h0).tolist()
    last = np.clip(plan.length - start, 0, h1 - h0).tolist()
    out = np.full((idx.shape[0], h1 - h0, len(range(width)[cols])), np.nan)
    for j, (f, e, o, b) in enumerate(zip(first, last, owner.tolist(), base.tolist(),
                                         strict=True)):
        if e > f:
            out[j, f:e] = flats[o][b + f:b + e, cols]
    return out


def shape_block(plan: ReadPlan, idx: np.ndarray, hull: np.ndarray) -> np.ndarray:
    """float64 ``(trials, window, channels)``: per-trial window mask and baseline applied."""
    h0, h1 = plan.hull
    w0, w1 = plan.window
    x = hull[:, w0 - h0:w1 - h0]
    if plan.valid is not None:
        rel = np.arange(w0, w1)
        inside = (rel >= plan.valid[idx, 0, None]) & (rel < plan.valid[idx, 1, None])
        x = np.where(inside[:, :, None], x, np.nan)
    if plan.baseline is not None:
        rel = np.arange(h0, h1)
        inb = (rel >= plan.baseline[idx, 0, None]) & (rel < plan.baseline[idx, 1, None])
        use = inb[:, :, None] & ~np.isnan(hull)
        count = use.sum(axis=1)
        total = np.where(use, hull, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / count
        x = x - mean[:, None, :]
    return x
