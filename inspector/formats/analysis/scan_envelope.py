"""Per-pixel-column min/max of AUC scans (signal against radius), read lazily.

An AUC experiment holds ``signal`` ``(scans, points)``, a validity ``mask``
of the same shape and a ``radius`` that is either shared ``(points,)`` or per
scan ``(scans, points)``, NaN-padded (AUCX 1.0 format document, "Both radius
modes"; spec ``aucx-archive.md`` §1).  A plot of it W pixels wide needs, per
scan and pixel column, only the smallest and largest signal of the scan's
real points whose radius falls in that column: :func:`scan_envelopes`.

Definitions used throughout:

* **real point**: mask true (the mask is authoritative, format document
  "Both radius modes"), radius finite and signal finite.  Everything else
  (padding, masked points, NaN or infinite values) is never reported.
* **columns**: ``[r0, r1]`` is cut into ``W`` equal columns; a point of
  radius ``r`` with ``r0 <= r <= r1`` falls in column
  ``floor((r - r0) * (W / (r1 - r0)))`` (``r1`` itself in the last one).
  Nothing is interpolated: a column without a real point is a gap (NaN).
* **exact points**: when a scan has at most ``max_exact`` real points in the
  range, its points themselves are returned too (:class:`ScanPoints`), so a
  plot can draw them with symbols.

Memory: arrays are read through ``read(selection)`` (:class:`ArrayRef`) or
sliced (numpy) in blocks of whole scans holding at most :data:`BLOCK_POINTS`
points (a scan longer than that is read in pieces), in ascending scan order
on the calling thread, so the memory used beyond the result is a few MB
whatever the archive's size (a few blocks when an executor shares the
reduction).  With a shared radius axis only the span of positions whose
radius is in the range (plus one on each side) is read from signal and mask.

Progress: inside :func:`~inspector.formats.analysis.read_meter.metering`,
:func:`scan_extent` and :func:`scan_envelopes` plan the blocks they will read
and report each block read (on the calling thread, where blocks are read;
the pool threads only fold them), so a view shows blocks read of blocks needed.

Radius order: each scan's radius is normally sorted, which lets every block
be reduced with ``ufunc.reduceat`` over runs of equal columns.  That is never
assumed: monotonicity (ascending or descending) is checked once for a shared
axis, else once per scan and piece; a scan that is not monotonic is reduced
after a stable sort of its points by column.

Nothing here imports Qt.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterator
from concurrent.futures import Executor, Future, wait
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from inspector.formats.analysis.arrays import EnvelopeCancelled
from inspector.formats.analysis.envelope_fold import (
    Accumulator,
    BinGrid,
    FoldBlock,
    bin_grid,
    fold_points,
    fold_rows,
    fold_shared_sorted,
    make_block,
    shared_window,
    track_block,
)
from inspector.formats.analysis.read_meter import (
    chunk_read,
    chunks_planned,
    chunks_waiting,
    metered,
)
from inspector.formats.analysis.scan_layout import (
    BLOCK_POINTS,
    EXACT_PER_COLUMN,
    EXACT_SPAN_FACTOR,
    ROW_METHOD_POINTS,
    CancelledFn,
    ScanArrays,
    ScanPoints,
    ScanShape,
    Source,
    row_blocks,
    scan_shape,
)


@dataclass(frozen=True)
class ScanEnvelopes:
    """Per-scan min/max of the real points in each column of ``[r0, r1]``.

    Attributes:
        r0, r1: the radius range, in the radius unit (``r0 < r1``).
        columns: ``W``, the number of columns.
        lo, hi: float64 ``(scans, columns)``; minimum and maximum signal of
            the scan's real points in each column, NaN where there is none.
        counts: int64 ``(scans,)``: real points of each scan in ``[r0, r1]``.
        points: per scan, its :class:`ScanPoints` when ``counts[i]`` is at
            most ``max_exact`` (and not 0), else None.
    """

    r0: float
    r1: float
    columns: int
    lo: np.ndarray
    hi: np.ndarray
    counts: np.ndarray
    points: tuple[ScanPoints | None, ...]

    def edges(self) -> np.ndarray:
        """float64 ``(columns + 1,)`` column edges in radius units."""
        return self.r0 + (self.r1 - self.r0) * np.arange(self.columns + 1) / self.columns

    def centers(self) -> np.ndarray:
        """float64 ``(columns,)``: the radius each column is drawn at (its middle)."""
        e = self.edges()
        return (e[:-1] + e[1:]) / 2.0

    def value_range(self, x0: float, x1: float,
                    scans: np.ndarray | None = None) -> tuple[float, float] | None:
        """Smallest and largest signal drawn between radii ``x0`` and ``x1``.

        Args:
            x0, x1: radius range (the plot's visible one).
            scans: bool ``(scans,)``, the scans to include (default all).

        Returns:
            ``(low, high)`` over the columns whose middle lies in the range
            and the exact points in it, as :meth:`curve` draws them; None
            when nothing drawn lies there.
        """
        which = np.ones(len(self.points), dtype=bool) if scans is None else np.asarray(scans, bool)
        sid, px, py = self._exact_points
        exact = np.zeros(len(self.points), dtype=bool)
        exact[[i for i, p in enumerate(self.points) if p is not None]] = True
        lows, highs = [], []
        rows = which & ~exact
        c = self.centers()
        a, b = int(np.searchsorted(c, x0, "left")), int(np.searchsorted(c, x1, "right"))
        if rows.any() and b > a:
            lows.append(np.fmin.reduce(self.lo[rows, a:b], axis=None))
            highs.append(np.fmax.reduce(self.hi[rows, a:b], axis=None))
        inside = which[sid] & (px >= x0) & (px <= x1)  # all exact scans' points at once
        if inside.any():
            lows.append(py[inside].min())
            highs.append(py[inside].max())
        lo = np.fmin.reduce(np.asarray(lows, dtype=np.float64)) if lows else np.nan
        hi = np.fmax.reduce(np.asarray(highs, dtype=np.float64)) if highs else np.nan
        return (float(lo), float(hi)) if np.isfinite(lo) and np.isfinite(hi) else None

    @cached_property
    def _exact_points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """int64 scan index, float64 x and y of every finite exact point, concatenated
        (one vectorised pass per :meth:`value_range` instead of one per scan)."""
        sids, xs, ys = [np.empty(0, np.int64)], [np.empty(0)], [np.empty(0)]
        for i, pts in enumerate(self.points):
            if pts is None:
                continue
            keep = np.isfinite(pts.y) & np.isfinite(pts.x)
            sids.append(np.full(int(keep.sum()), i, dtype=np.int64))
            xs.append(pts.x[keep])
            ys.append(pts.y[keep])
        return np.concatenate(sids), np.concatenate(xs), np.concatenate(ys)

    def curves(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """``[curve(i) for i in range(scans)]``, built together.

        The scans drawn as envelopes whose columns with a point are one
        unbroken run share the x array of that run and their y arrays are
        rows of one array (500 scans on one axis: two allocations instead of
        a thousand); the others are built by :meth:`curve`.  Treat the
        arrays as read-only.
        """
        n, w = self.lo.shape[0], self.columns
        fin = np.isfinite(self.lo)
        count = fin.sum(axis=1)
        first = np.where(count > 0, fin.argmax(axis=1), 0)
        run = (count > 0) & (fin[:, ::-1].argmax(axis=1) == w - first - count)
        run &= np.array([p is None for p in self.points], dtype=bool).reshape(n)
        out: list[tuple[np.ndarray, np.ndarray]] = []
        if run.any():
            y = np.empty((n, 2 * w))
            y[:, 0::2] = self.lo
            y[:, 1::2] = self.hi
            c2 = np.repeat(self.centers(), 2)
            xs: dict[tuple[int, int], np.ndarray] = {}
        for i in range(n):
            if not run[i]:
                out.append(self.curve(i))
                continue
            a, b = 2 * int(first[i]), 2 * int(first[i] + count[i])
            x = xs.get((a, b))
            if x is None:
                x = xs[(a, b)] = c2[a:b]
            out.append((x, y[i, a:b]))
        return out

    def curve(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """float64 ``(x, y)`` to draw scan ``i`` as one line (NaN = break).

        The exact points when the scan has them, else the envelope as a
        zig-zag through each column's minimum then maximum at the column's
        middle, broken at every empty column.  A scan without a real point
        in the range gives two empty arrays.
        """
        pts = self.points[i]
        if pts is not None:
            return pts.x, pts.y
        cols = np.flatnonzero(np.isfinite(self.lo[i]))
        if cols.size == 0:
            return np.empty(0), np.empty(0)
        x = np.repeat(self.centers()[cols], 2)
        y = np.empty(2 * cols.size)
        y[0::2] = self.lo[i, cols]
        y[1::2] = self.hi[i, cols]
        breaks = 2 * (np.flatnonzero(np.diff(cols) > 1) + 1)
        if breaks.size:
            x = np.insert(x, breaks, np.nan)
            y = np.insert(y, breaks, np.nan)
        return x, y


def _read_block(arrays: ScanArrays, grid: BinGrid, rows: slice, q0: int, q1: int) -> FoldBlock:
    sig = arrays.signal_rows(rows, q0, q1)
    rad = arrays.radius_rows(rows, q0, q1)
    return make_block(grid, int(rows.start or 0), q0, rad, sig,
                       arrays.mask_rows(rows, q0, q1, sig.shape[0]))


Piece = tuple[slice, int, int]


def _block_key(kind: str, piece: Piece) -> tuple[str, int, int, int, int]:
    """The identity of one block read, for the job's chunk meter
    (:mod:`~inspector.formats.analysis.read_meter`): ``kind`` "radius" (the
    extent pass) or "scans" (the envelopes), the rows and the positions."""
    rows, q0, q1 = piece
    return kind, int(rows.start or 0), int(rows.stop), int(q0), int(q1)


@dataclass
class _Step:
    """Reads pieces in order and folds them into the accumulator (see :func:`_run`)."""

    arrays: ScanArrays
    acc: Accumulator
    sorted_axis: bool
    cancelled: CancelledFn | None

    def read(self, piece: Piece) -> FoldBlock:
        if self.cancelled is not None and self.cancelled():
            raise EnvelopeCancelled()
        rows, q0, q1 = piece
        chunks_waiting()  # (a read may block: the count so far is not held back)
        blk = _read_block(self.arrays, self.acc.grid, rows, q0, q1)
        chunk_read(_block_key("scans", piece))
        return blk

    def fold(self, blk: FoldBlock) -> None:
        """Add one block (any thread: blocks of whole scans touch disjoint rows)."""
        _add_block(self.acc, blk, self.sorted_axis)


def _run(step: _Step, pieces: list[Piece], executor: Executor | None, parallel: int) -> None:
    """Read every piece in order on this thread; fold them here and on ``executor``.

    Reads stay sequential (a reader that streams, such as an inflated ZIP
    member, reads each byte once); at most ``parallel - 1`` folds run on the
    executor at a time, so at most ``parallel`` blocks are held.  Pieces of
    one scan split in several (scans longer than a block) are folded in order
    on this thread only.
    """
    split = len({p[0].start for p in pieces}) < len(pieces)
    if executor is None or parallel < 2 or split:
        for piece in pieces:
            step.fold(step.read(piece))
        return
    pending: deque[Future[None]] = deque()
    try:
        for piece in pieces:
            blk = step.read(piece)
            while pending and pending[0].done():
                pending.popleft().result()
            if len(pending) < parallel - 1:
                pending.append(executor.submit(step.fold, blk))
            else:
                step.fold(blk)
    finally:  # nothing keeps running after this returns or raises
        wait(pending)
    for fut in pending:
        fut.result()


def _add_block(acc: Accumulator, blk: FoldBlock, sorted_axis: bool) -> None:
    """Count, reduce and track one block (its scans' pieces before it were added already)."""
    acc.counts[blk.row0:blk.row0 + blk.sig.shape[0]] += blk.sel.sum(axis=1)
    _fold(acc, blk, sorted_axis)
    track_block(acc, blk)


def _fold(acc: Accumulator, blk: FoldBlock, sorted_axis: bool) -> None:
    """Add one block to the envelopes by the fastest method that fits it."""
    if sorted_axis:
        fold_shared_sorted(acc, blk)
    elif blk.sel.shape[1] >= ROW_METHOD_POINTS:
        fold_rows(acc, blk)
    else:
        fold_points(acc, blk)


def scan_extent(radius: Source, signal: Source, mask: Source | None, *,
                cancelled: CancelledFn | None = None,
                block_points: int = BLOCK_POINTS) -> tuple[float, float] | None:
    """Smallest and largest radius of the experiment, or None without one.

    A shared axis gives the extent of its finite values (the format requires
    an all-true mask in shared mode); per-scan radii the extent of the finite
    values where the mask is true.  The signal is not read, so points whose
    signal is not finite still widen the extent.

    Returns:
        ``(rmin, rmax)`` floats in the radius unit (``rmin <= rmax``).

    Raises:
        ValueError, TypeError: as :func:`scan_shape`.
        EnvelopeCancelled: ``cancelled()`` returned True.
        OSError: an array cannot be read.
    """
    shape = scan_shape(radius, signal, mask)
    arrays = ScanArrays(radius, signal, mask, shape)
    extent = ExtentBuilder()
    if metered():
        chunks_planned(_extent_plan(shape, block_points))
    for key, (r, ok) in _radius_pieces(arrays, block_points):
        if cancelled is not None and cancelled():
            raise EnvelopeCancelled()
        extent.add_values(r, ok)
        chunk_read(key)
        chunks_waiting()  # (the next read may block: this count is not held back)
    return extent.result()


def _extent_plan(shape: ScanShape, block_points: int) -> list[Hashable]:
    """The blocks :func:`scan_extent` reads and, with per-scan radii, those of the
    envelopes of the whole range that follow it (the same pieces of every scan), so
    that the fraction done of a first view never falls back."""
    if not shape.per_scan:
        return [("radius", 0, 1, q, min(shape.points, q + block_points))
                for q in range(0, shape.points, block_points)]
    pieces = list(row_blocks(shape, 0, shape.points, block_points))
    return [_block_key(kind, p) for kind in ("radius", "scans") for p in pieces]


class ExtentBuilder:
    """:func:`scan_extent` of pieces of the radius handed in any order (a streaming reader).

    Hand each piece of the radius with :meth:`add` (its mask piece for a
    per-scan radius, None for a shared axis); :meth:`result` is what
    :func:`scan_extent` returns for the whole.
    """

    def __init__(self) -> None:
        self.lo = np.inf
        self.hi = -np.inf

    def add(self, radius: np.ndarray, mask: np.ndarray | None = None) -> None:
        """A piece: real ``radius`` values (any shape) and the bool mask of the same shape."""
        r = np.asarray(radius, dtype=np.float64)
        ok = np.isfinite(r)
        if mask is not None:
            ok &= np.asarray(mask, dtype=bool)
        self.add_values(r, ok)

    def add_values(self, r: np.ndarray, ok: np.ndarray) -> None:
        """Widen the extent by the float64 values ``r[ok]`` (``ok``: bool, finite ones only)."""
        if ok.any():
            self.lo = min(self.lo, float(r[ok].min()))
            self.hi = max(self.hi, float(r[ok].max()))

    def result(self) -> tuple[float, float] | None:
        """``(rmin, rmax)``, or None when no piece held a counted value."""
        return (self.lo, self.hi) if self.lo <= self.hi else None


def _radius_pieces(arrays: ScanArrays, block_points: int
                   ) -> Iterator[tuple[Hashable, tuple[np.ndarray, np.ndarray]]]:
    """``(key, (radius, counted))``: pieces of the radius with the positions that count
    for the extent, and each piece's identity (:func:`_block_key`)."""
    shape = arrays.shape
    if not shape.per_scan:
        for q in range(0, shape.points, block_points):
            q1 = min(shape.points, q + block_points)
            r = arrays.shared_radius(q, q1)
            yield ("radius", 0, 1, q, q1), (r, np.isfinite(r))
        return
    for piece in row_blocks(shape, 0, shape.points, block_points):
        rows, q0, q1 = piece
        r = arrays.radius_rows(rows, q0, q1)
        yield (_block_key("radius", piece),
               (r, arrays.mask_rows(rows, q0, q1, r.shape[0]) & np.isfinite(r)))


def scan_envelopes(radius: Source, signal: Source, mask: Source | None,
                   r0: float, r1: float, columns: int, *,
                   max_exact: int | None = None,
                   cancelled: CancelledFn | None = None,
                   block_points: int = BLOCK_POINTS,
                   executor: Executor | None = None,
                   parallel: int = 2) -> ScanEnvelopes:
    """Each scan's min/max signal per column of ``[r0, r1]`` (see the module notes).

    Args:
        radius: float ``(points,)`` shared or ``(scans, points)`` per-scan
            radius (NaN-padded), in the radius unit.
        signal: real ``(scans, points)`` (a 1-D signal is one scan).
        mask: bool ``(scans, points)`` (True = real observation) or None.
            All three may be :class:`ArrayRef` (read in blocks) or numpy arrays.
        r0, r1: the radius range (finite, ``r0 < r1``), in the radius unit.
        columns: ``W >= 1``, normally the plot's width in pixels.
        max_exact: a scan with at most this many real points in the range
            also returns them (:class:`ScanPoints`); default
            ``EXACT_PER_COLUMN * columns``; 0 never.
        cancelled: polled between blocks.
        block_points: points per block (memory bound), default :data:`BLOCK_POINTS`.
        executor: optional thread pool (``inspector.formats.decoding.workers.pool()``):
            blocks are still read in order by the calling thread, and reduced
            by it and up to ``parallel - 1`` of the pool's threads (numpy
            releases the GIL while it reduces).  Never pass the pool this call
            itself runs on.
        parallel: blocks reduced at once with an executor (each is held in memory).

    Returns:
        A :class:`ScanEnvelopes` (float64 ``lo``/``hi`` ``(scans, columns)``).

    Raises:
        ValueError: the arrays do not fit together, or the range or columns
            are invalid.
        TypeError: an argument is not an array.
        EnvelopeCancelled: ``cancelled()`` returned True.
        OSError: an array cannot be read.
    """
    shape = scan_shape(radius, signal, mask)
    grid = bin_grid(r0, r1, columns)
    limit = EXACT_PER_COLUMN * grid.columns if max_exact is None else max(0, int(max_exact))
    acc = Accumulator.new(shape.scans, grid, limit)
    arrays = ScanArrays(radius, signal, mask, shape)
    block_points = max(1, int(block_points))
    if shape.per_scan:
        p0, p1, sorted_axis = 0, shape.points, False
    else:
        p0, p1, sorted_axis = shared_window(arrays, grid, block_points)
    step = _Step(arrays, acc, sorted_axis, cancelled)
    pieces = list(row_blocks(shape, p0, p1, block_points))
    if metered():
        chunks_planned(_block_key("scans", p) for p in pieces)
    _run(step, pieces, executor, int(parallel))
    points = tuple(None if t is None or acc.counts[i] > t.limit else t.build(p0, p1)
                   for i, t in enumerate(acc.tracks))
    return ScanEnvelopes(grid.r0, grid.r1, grid.columns, acc.lo, acc.hi, acc.counts, points)


# -- envelopes built from pieces handed in (a reader that streams) -------------------
def scan_pieces(shape: ScanShape,
                block_points: int = BLOCK_POINTS) -> Iterator[tuple[slice, int, int]]:
    """``(rows, q0, q1)``: the pieces :class:`EnvelopeBuilder` takes, in storage order.

    Blocks of whole scans of at most ``block_points`` points, or pieces of
    one scan when a scan is longer; in C order they follow one another, so a
    reader of a ``.npy`` member hands out ``(rows.stop - rows.start) * (q1 - q0)``
    elements per piece.
    """
    return row_blocks(shape, 0, shape.points, max(1, int(block_points)))


class EnvelopeBuilder:
    """:func:`scan_envelopes` of arrays that a caller reads itself, piece by piece.

    For a reader that already streams the arrays for another purpose
    (verification hashes every member; ``inspector.formats.aucx.overview``):
    the same accumulation, the same definitions (module notes), the same
    result.  Hand the pieces of :func:`scan_pieces` (or any rectangular
    pieces, each scan's in ascending position order) to :meth:`add`.

    Args:
        shape: the arrays' :class:`ScanShape` (from :func:`scan_shape`).
        r0, r1, columns, max_exact: as :func:`scan_envelopes`.
        shared_radius: float ``(points,)``, the whole shared axis (required
            when ``shape.per_scan`` is False, ignored otherwise).

    Raises:
        ValueError: an invalid range or column count, or no shared axis given.
    """

    def __init__(self, shape: ScanShape, r0: float, r1: float, columns: int, *,
                 shared_radius: np.ndarray | None = None,
                 max_exact: int | None = None) -> None:
        grid = bin_grid(r0, r1, columns)
        limit = EXACT_PER_COLUMN * grid.columns if max_exact is None else max(0, int(max_exact))
        self.shape = shape
        self._acc = Accumulator.new(shape.scans, grid, limit)
        self._shared: np.ndarray | None = None
        if shape.per_scan:
            self._p0, self._p1, self._sorted = 0, shape.points, False
            return
        if shared_radius is None:
            raise ValueError("a shared radius axis must be given whole")
        r = np.asarray(shared_radius, dtype=np.float64).reshape(-1)
        if r.size != shape.points:
            raise ValueError(f"shared radius of {r.size} points for {shape.points}")
        self._shared = r
        # the same window and order test as scan_envelopes; only the radius is used
        self._p0, self._p1, self._sorted = shared_window(ScanArrays(r, r, None, shape), grid,
                                                          BLOCK_POINTS)

    def add(self, row0: int, q0: int, signal: np.ndarray, mask: np.ndarray | None,
            radius: np.ndarray | None = None) -> None:
        """One piece: scans ``row0...``, positions ``q0...`` of each.

        Args:
            row0, q0: the first scan and the first position of the piece.
            signal: real ``(rows, n)`` (any real dtype; used as float64).
            mask: bool ``(rows, n)``, or None when the experiment has no mask.
            radius: real ``(rows, n)`` for a per-scan radius; None for a shared axis.
        """
        sig = np.asarray(signal, dtype=np.float64)
        a, b = max(q0, self._p0), min(q0 + sig.shape[1], self._p1)
        if b <= a:
            return
        cut = slice(a - q0, b - q0)
        sig = sig[:, cut]
        if self._shared is not None:
            rad = self._shared[a:b][None, :]
        else:
            if radius is None:
                raise ValueError("a per-scan radius piece is required")
            rad = np.asarray(radius, dtype=np.float64)[:, cut]
        keep = np.ones(sig.shape, dtype=bool) if mask is None else np.asarray(mask, bool)[:, cut]
        _add_block(self._acc, make_block(self._acc.grid, int(row0), a, rad, sig, keep),
                   self._sorted)

    def result(self) -> ScanEnvelopes:
        """The envelopes of everything added (as :func:`scan_envelopes` returns them)."""
        acc = self._acc
        points = tuple(None if t is None or acc.counts[i] > t.limit
                       else t.build(self._p0, self._p1) for i, t in enumerate(acc.tracks))
        g = acc.grid
        return ScanEnvelopes(g.r0, g.r1, g.columns, acc.lo, acc.hi, acc.counts, points)


# -- the full-range overview --------------------------------------------------------
#: Columns of the full-range envelopes verification computes (a power of two,
#: so that every power-of-two coarser resolution is exact: ScanOverview).
OVERVIEW_COLUMNS = 2048
#: Margin of the full range around the data, as a fraction of its extent.
FRAME_MARGIN = 0.02


def framed_range(extent: tuple[float, float]) -> tuple[float, float]:
    """The full radius range shown for data spanning ``extent``: a margin on each side.

    ``(e0 - m, e1 + m)`` with ``m = FRAME_MARGIN * (e1 - e0)``; a single
    radius value is given a span of a thousandth of its magnitude (or 1).
    """
    e0, e1 = float(extent[0]), float(extent[1])
    span = e1 - e0
    if span <= 0:
        span = abs(e0) * 1e-3 or 1.0
        e0, e1 = e0 - span / 2, e1 + span / 2
    return e0 - FRAME_MARGIN * span, e1 + FRAME_MARGIN * span


def rebinned(env: ScanEnvelopes, factor: int) -> ScanEnvelopes:
    """``env`` with every ``factor`` adjacent columns combined into one.

    The minimum of the minima and the maximum of the maxima (gaps stay NaN);
    counts are unchanged; exact points are kept for the scans with at most
    ``EXACT_PER_COLUMN * (columns // factor)`` points (the default
    ``max_exact`` at that resolution), so the source must have been computed
    with at least that ``max_exact`` (the default is).

    Exactness: for a power-of-two ``factor`` the result is bit for bit
    :func:`scan_envelopes` at ``columns // factor`` columns over the same
    range: the column of a point is ``floor(t * (W / S))`` and scaling ``W``
    by a power of two scales ``W / S`` and the product exactly, so every
    point lands in the union of the columns combined.  For another factor a
    point within rounding of a column edge may be counted in the
    neighbouring column (one ulp of the column position, never more).

    Raises:
        ValueError: ``factor`` is not a positive divisor of ``env.columns``.
    """
    k = int(factor)
    if k < 1 or env.columns % k:
        raise ValueError(f"factor {factor} does not divide {env.columns} columns")
    if k == 1:
        return env
    w = env.columns // k
    lo, hi = env.lo[:, 0::k], env.hi[:, 0::k]
    for o in range(1, k):  # k strided passes (a reduce over a short axis is ten times slower)
        lo = np.fmin(lo, env.lo[:, o::k])
        hi = np.fmax(hi, env.hi[:, o::k])
    lo, hi = np.ascontiguousarray(lo), np.ascontiguousarray(hi)
    limit = EXACT_PER_COLUMN * w
    points = tuple(_within(p, limit) if p is not None and c <= limit else None
                   for p, c in zip(env.points, env.counts, strict=True))
    return ScanEnvelopes(env.r0, env.r1, w, lo, hi, env.counts, points)


def _within(p: ScanPoints, limit: int) -> ScanPoints:
    """``p`` as :meth:`_Track.build` forms it for ``limit``: runs of non-drawn positions
    collapsed when it spans more than ``EXACT_SPAN_FACTOR * limit + 2`` positions."""
    if p.collapsed or p.x.size <= EXACT_SPAN_FACTOR * limit + 2:
        return p
    idx = np.flatnonzero(np.isfinite(p.y))  # drawn points are real: finite
    pos = p.start + idx
    gaps = np.flatnonzero(np.diff(pos) > 1) + 1
    return ScanPoints(int(pos[0]), np.insert(p.x[idx], gaps, np.nan),
                      np.insert(p.y[idx], gaps, np.nan), collapsed=True)


@dataclass(frozen=True)
class ScanOverview:
    """Every scan's envelopes over the experiment's whole radius range, computed ahead.

    Verification streams every array member anyway; it builds these from
    the same decoded blocks (``inspector.formats.aucx.overview``), so a
    plot shows the whole experiment without reading it again.

    Attributes:
        extent: :func:`scan_extent` of the arrays, or None (no real radius).
        envelopes: :func:`scan_envelopes` over :func:`framed_range` of the
            extent at :data:`OVERVIEW_COLUMNS` columns (default
            ``max_exact``), or None with no extent.
        untrusted: array names (``"signal"``...) whose member failed its
            checksum: the envelopes show values that are not verified.
    """

    extent: tuple[float, float] | None
    envelopes: ScanEnvelopes | None
    untrusted: frozenset[str] = frozenset()

    def at_pixels(self, pixels: int, coarsest: float = 1.25) -> ScanEnvelopes | None:
        """The envelopes combined to about ``pixels`` columns, exactly (:func:`rebinned`).

        The coarsest power-of-two combination whose columns are at most
        ``coarsest`` pixels wide when the full range is ``pixels`` wide
        (a copy of the overview's when its columns are already that wide).
        """
        env = self.envelopes
        if env is None:
            return None
        k = 1
        while env.columns % (2 * k) == 0 and pixels * 2 * k <= coarsest * env.columns:
            k *= 2
        # a new object either way: what a plot caches on it stays the plot's own
        return rebinned(env, k) if k > 1 else replace(env)
