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

Radius order: each scan's radius is normally sorted, which lets every block
be reduced with ``ufunc.reduceat`` over runs of equal columns.  That is never
assumed: monotonicity (ascending or descending) is checked once for a shared
axis, else once per scan and piece; a scan that is not monotonic is reduced
after a stable sort of its points by column.

Nothing here imports Qt.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, wait
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from inspector.formats.analysis.arrays import ArrayRef, EnvelopeCancelled

#: Most points of one array read (and reduced) at once.
BLOCK_POINTS = 1 << 18
#: Scans at least this long are reduced one by one; shorter ones a block at
#: a time, point by point (fewer, larger numpy calls).
ROW_METHOD_POINTS = 512
#: ``max_exact`` default: a scan with at most this many real points per
#: column on average (``EXACT_PER_COLUMN * columns``) also returns its points.
EXACT_PER_COLUMN = 2
#: An exact scan spanning more than ``EXACT_SPAN_FACTOR * max_exact``
#: positions has its runs of non-real positions collapsed to one NaN each.
EXACT_SPAN_FACTOR = 4

#: An array: a lazy :class:`ArrayRef` or an in-memory numpy array.
Source = ArrayRef | np.ndarray


class Shaped(Protocol):
    """Anything with an array's ``shape`` and ``dtype`` (a parsed ``.npy`` header)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> np.dtype: ...


#: ``progress(done_scans, total_scans)``, called between blocks.
ProgressFn = Callable[[int, int], None]
#: ``cancelled() -> bool``, polled between blocks.
CancelledFn = Callable[[], bool]


@dataclass(frozen=True)
class ScanShape:
    """The validated layout of an experiment's arrays.

    Attributes:
        scans, points: the signal's shape (a 1-D signal is one scan).
        per_scan: True when the radius is ``(scans, points)``.
        has_mask: False when no mask is given (every position counts as masked in).
    """

    scans: int
    points: int
    per_scan: bool
    has_mask: bool


def _shape_dtype(a: Any, what: str) -> tuple[tuple[int, ...], np.dtype]:
    try:
        return tuple(int(s) for s in a.shape), np.dtype(a.dtype)
    except (AttributeError, TypeError) as exc:
        raise TypeError(f"{what} is not an array") from exc


def scan_shape(radius: Source | Shaped, signal: Source | Shaped,
               mask: Source | Shaped | None) -> ScanShape:
    """Check that the three arrays fit together, without reading them.

    Only ``shape`` and ``dtype`` are looked at (a parsed ``.npy`` header will do).

    Args:
        radius: float ``(points,)`` (shared) or ``(scans, points)`` (per scan).
        signal: real-valued ``(scans, points)``, or ``(points,)`` for one scan.
        mask: bool, the signal's shape, or None.

    Raises:
        ValueError: a shape or dtype does not fit (a damaged archive): the
            plot says why instead of guessing.
        TypeError: an argument is not an array.
    """
    sshape, sdtype = _shape_dtype(signal, "signal")
    rshape, rdtype = _shape_dtype(radius, "radius")
    if len(sshape) not in (1, 2):
        raise ValueError(f"signal must be 2-D (scans, points), got shape {sshape}")
    scans, points = (1, sshape[0]) if len(sshape) == 1 else sshape
    for name, dt in (("signal", sdtype), ("radius", rdtype)):
        if dt.kind not in "biuf":
            raise ValueError(f"{name} dtype {dt} is not a real number type")
    if rshape not in ((points,), (scans, points)):
        raise ValueError(f"radius shape {rshape} fits neither ({points},) "
                         f"nor the signal shape {(scans, points)}")
    if mask is not None:
        mshape, mdtype = _shape_dtype(mask, "mask")
        if mshape != sshape:
            raise ValueError(f"mask shape {mshape} differs from the signal shape {sshape}")
        if mdtype.kind != "b":
            raise ValueError(f"mask dtype {mdtype} is not bool")
    return ScanShape(scans, points, len(rshape) == 2, mask is not None)


@dataclass(frozen=True)
class ScanPoints:
    """The real points of one scan around the requested range, to draw exactly.

    Attributes:
        start: position (index on the point axis) of ``x[0]``.
        x, y: float64 ``(n,)`` radius and signal, in point order; NaN where
            the line must break (a masked or non-real position, or a real
            point outside the range that is not next to it).  Covers the real
            points in the range plus the nearest real point before and after
            them (so a line reaches the plot's edges), and every position in
            between; when that span exceeds ``EXACT_SPAN_FACTOR * max_exact``
            positions, each run of non-drawn positions is one NaN.
        collapsed: True when runs were collapsed (``start`` then only
            locates the first entry).
    """

    start: int
    x: np.ndarray
    y: np.ndarray
    collapsed: bool = False

    @property
    def count(self) -> int:
        """Number of drawn points (finite entries)."""
        return int(np.isfinite(self.y).sum())


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


# -- reading -----------------------------------------------------------------------
def _read(src: Source, sel: tuple[slice, ...]) -> np.ndarray:
    if isinstance(src, ArrayRef):
        return np.asarray(src.read(sel))
    return np.asarray(src[sel])


@dataclass
class _Arrays:
    """Reads rectangular blocks of the three arrays as 2-D float64/bool."""

    radius: Source
    signal: Source
    mask: Source | None
    shape: ScanShape
    _shared: tuple[int, int, np.ndarray] | None = None

    def signal_rows(self, rows: slice, q0: int, q1: int) -> np.ndarray:
        if len(self.signal.shape) == 1:
            return np.asarray(_read(self.signal, (slice(q0, q1),)), dtype=np.float64)[None, :]
        return np.asarray(_read(self.signal, (rows, slice(q0, q1))), dtype=np.float64)

    def mask_rows(self, rows: slice, q0: int, q1: int, n_rows: int) -> np.ndarray:
        if self.mask is None:
            return np.ones((n_rows, q1 - q0), dtype=bool)
        if len(self.mask.shape) == 1:
            return np.asarray(_read(self.mask, (slice(q0, q1),)), dtype=bool)[None, :]
        return np.asarray(_read(self.mask, (rows, slice(q0, q1))), dtype=bool)

    def shared_radius(self, q0: int, q1: int) -> np.ndarray:
        """float64 ``(q1 - q0,)`` of the shared axis (the last piece is kept)."""
        if self._shared is not None and self._shared[:2] == (q0, q1):
            return self._shared[2]
        r = np.asarray(_read(self.radius, (slice(q0, q1),)), dtype=np.float64).reshape(-1)
        self._shared = (q0, q1, r)
        return r

    def radius_rows(self, rows: slice, q0: int, q1: int) -> np.ndarray:
        """float64 ``(rows, n)``, or ``(1, n)`` broadcastable for a shared axis."""
        if not self.shape.per_scan:
            return self.shared_radius(q0, q1)[None, :]
        return np.asarray(_read(self.radius, (rows, slice(q0, q1))), dtype=np.float64)


def _row_blocks(shape: ScanShape, q0: int, q1: int,
                block_points: int) -> Iterator[tuple[slice, int, int]]:
    """``(rows, p0, p1)`` pieces covering positions ``[q0, q1)`` of every scan, in order."""
    n = q1 - q0
    if n <= 0:
        return
    if n <= block_points:
        step = max(1, block_points // n)
        for r in range(0, shape.scans, step):
            yield slice(r, min(shape.scans, r + step)), q0, q1
        return
    for r in range(shape.scans):
        for p in range(q0, q1, block_points):
            yield slice(r, r + 1), p, min(q1, p + block_points)


# -- the column grid ---------------------------------------------------------------
@dataclass(frozen=True)
class _Grid:
    r0: float
    r1: float
    columns: int

    def column(self, r: np.ndarray) -> np.ndarray:
        """int64 column of each radius (all within ``[r0, r1]``, so never negative)."""
        t = r - self.r0
        t *= self.columns / (self.r1 - self.r0)
        c = t.astype(np.int64)  # truncation is floor here: t >= 0
        np.minimum(c, self.columns - 1, out=c)
        return c

    def inside(self, r: np.ndarray) -> np.ndarray:
        return (r >= self.r0) & (r <= self.r1)


def _grid(r0: float, r1: float, columns: int) -> _Grid:
    r0, r1, w = float(r0), float(r1), int(columns)
    if not (np.isfinite(r0) and np.isfinite(r1) and r0 < r1):
        raise ValueError(f"radius range [{r0}, {r1}] must be finite with r0 < r1")
    if w < 1:
        raise ValueError(f"columns must be at least 1, got {columns}")
    return _Grid(r0, r1, w)


# -- the shared axis ---------------------------------------------------------------
def _shared_window(arrays: _Arrays, grid: _Grid, block_points: int) -> tuple[int, int, bool]:
    """``(p0, p1, monotonic)`` of a shared radius axis for the range.

    ``[p0, p1)`` holds every position whose radius is in the range plus one
    position on each side; ``monotonic`` tells whether its finite values
    are sorted (either way).  Read in pieces of ``block_points``.
    """
    points = arrays.shape.points
    first = last = -1
    prev = np.nan
    up = down = False
    for q in range(0, points, block_points):
        r = arrays.shared_radius(q, min(points, q + block_points))
        fin = r[np.isfinite(r)]
        if fin.size:
            seq = fin if np.isnan(prev) else np.concatenate(([prev], fin))
            d = np.diff(seq)
            up |= bool((d > 0).any())
            down |= bool((d < 0).any())
            prev = float(fin[-1])
        hit = np.flatnonzero(np.isfinite(r) & grid.inside(r))
        if hit.size:
            first = q + int(hit[0]) if first < 0 else first
            last = q + int(hit[-1])
    if first < 0:
        return 0, 0, True
    return max(0, first - 1), min(points, last + 2), not (up and down)


# -- accumulation ------------------------------------------------------------------
@dataclass
class _Track:
    """The exact points of one scan, gathered while it has at most ``limit``."""

    limit: int
    pos: list[np.ndarray] = field(default_factory=list)
    x: list[np.ndarray] = field(default_factory=list)
    y: list[np.ndarray] = field(default_factory=list)
    n: int = 0
    prev: tuple[int, float, float] | None = None
    next: tuple[int, float, float] | None = None
    started: bool = False

    def feed(self, pos: np.ndarray, x: np.ndarray, y: np.ndarray, inside: np.ndarray) -> None:
        """Real points of one piece (point order) and which are in the range."""
        s = np.flatnonzero(inside)
        if s.size == 0:
            if not self.started and pos.size:
                self.prev = (int(pos[-1]), float(x[-1]), float(y[-1]))
            elif self.started and self.next is None and pos.size:
                self.next = (int(pos[0]), float(x[0]), float(y[0]))
            return
        if not self.started and s[0] > 0:
            j = s[0] - 1
            self.prev = (int(pos[j]), float(x[j]), float(y[j]))
        self.started = True
        self.n += s.size
        self.pos.append(pos[s])
        self.x.append(x[s])
        self.y.append(y[s])
        j = s[-1] + 1
        self.next = (int(pos[j]), float(x[j]), float(y[j])) if j < pos.size else None

    def build(self, p0: int, p1: int) -> ScanPoints | None:
        """The :class:`ScanPoints` over the window ``[p0, p1)``; None without points."""
        if self.n == 0:
            return None
        ends = [e for e in (self.prev, self.next) if e is not None]
        pos = np.concatenate([*self.pos, np.array([e[0] for e in ends], dtype=np.int64)])
        x = np.concatenate([*self.x, [e[1] for e in ends]])
        y = np.concatenate([*self.y, [e[2] for e in ends]])
        order = np.argsort(pos, kind="stable")
        pos, x, y = pos[order], x[order], y[order]
        a = self.prev[0] if self.prev is not None else p0
        b = self.next[0] + 1 if self.next is not None else p1
        if b - a <= EXACT_SPAN_FACTOR * self.limit + 2:
            fx = np.full(b - a, np.nan)
            fy = np.full(b - a, np.nan)
            fx[pos - a] = x
            fy[pos - a] = y
            return ScanPoints(a, fx, fy)
        gaps = np.flatnonzero(np.diff(pos) > 1) + 1
        return ScanPoints(int(pos[0]), np.insert(x, gaps, np.nan), np.insert(y, gaps, np.nan),
                          collapsed=True)


@dataclass
class _Accumulator:
    grid: _Grid
    lo: np.ndarray
    hi: np.ndarray
    counts: np.ndarray
    tracks: list[_Track | None]
    runs: dict[tuple[int, int], _Runs | None] = field(default_factory=dict)

    @classmethod
    def new(cls, scans: int, grid: _Grid, limit: int) -> _Accumulator:
        shape = (scans, grid.columns)
        return cls(grid, np.full(shape, np.nan), np.full(shape, np.nan),
                   np.zeros(scans, dtype=np.int64),
                   [_Track(limit) if limit > 0 else None for _ in range(scans)])


@dataclass(frozen=True)
class _Block:
    """One piece: rows ``rows`` (first scan ``row0``), positions from ``q0``."""

    row0: int
    q0: int
    rad: np.ndarray  # (rows, n) or (1, n) for a shared axis
    sig: np.ndarray  # (rows, n)
    keep: np.ndarray  # (rows, n) real points
    sel: np.ndarray  # (rows, n) real points in the range


def _read_block(arrays: _Arrays, grid: _Grid, rows: slice, q0: int, q1: int) -> _Block:
    sig = arrays.signal_rows(rows, q0, q1)
    rad = arrays.radius_rows(rows, q0, q1)
    return _make_block(grid, int(rows.start or 0), q0, rad, sig,
                       arrays.mask_rows(rows, q0, q1, sig.shape[0]))


def _make_block(grid: _Grid, row0: int, q0: int, rad: np.ndarray, sig: np.ndarray,
                mask: np.ndarray) -> _Block:
    """The block of float64 ``rad`` ``(rows, n)`` or ``(1, n)``, float64 ``sig`` and bool
    ``mask`` ``(rows, n)``: which points are real, and which of those are in the range."""
    # a new array: the mask may be the caller's array or a reader's cache
    keep = mask & np.isfinite(sig) & np.isfinite(rad)
    sel = keep & grid.inside(rad)
    return _Block(row0, q0, rad, sig, keep, sel)


@dataclass(frozen=True)
class _Runs:
    """Runs of equal column along one piece of a sorted shared axis.

    ``take`` selects the piece's positions in the range (a slice when they
    are contiguous), ``starts`` the first of each run within them and
    ``target`` the column of each run.
    """

    take: slice | np.ndarray
    starts: np.ndarray
    target: np.ndarray


def _shared_runs(acc: _Accumulator, r: np.ndarray, q0: int) -> _Runs | None:
    key = (q0, r.size)  # a piece of the shared axis: its start and length
    cached = acc.runs.get(key)
    if cached is not None or key in acc.runs:
        return cached
    sub = np.flatnonzero(np.isfinite(r) & acc.grid.inside(r))
    runs = None
    if sub.size:
        cols = acc.grid.column(r[sub])
        starts = np.flatnonzero(np.concatenate(([True], cols[1:] != cols[:-1])))
        contiguous = sub[-1] - sub[0] + 1 == sub.size
        take: slice | np.ndarray = slice(int(sub[0]), int(sub[-1]) + 1) if contiguous else sub
        runs = _Runs(take, starts, cols[starts])
    acc.runs[key] = runs
    return runs


def _fold_shared_sorted(acc: _Accumulator, blk: _Block) -> None:
    """Reduce a block on a sorted shared axis: one ``reduceat`` along the points."""
    runs = _shared_runs(acc, blk.rad[0], blk.q0)
    if runs is None:
        return
    v, s = blk.sig[:, runs.take], blk.sel[:, runs.take]
    every = bool(s.all())
    lo = np.minimum.reduceat(v if every else np.where(s, v, np.inf), runs.starts, axis=1)
    hi = np.maximum.reduceat(v if every else np.where(s, v, -np.inf), runs.starts, axis=1)
    if not every:
        lo[lo == np.inf] = np.nan
        hi[hi == -np.inf] = np.nan
    rows = slice(blk.row0, blk.row0 + blk.sig.shape[0])
    acc.lo[rows, runs.target] = np.fmin(acc.lo[rows, runs.target], lo)
    acc.hi[rows, runs.target] = np.fmax(acc.hi[rows, runs.target], hi)


def _rows_monotonic(key: np.ndarray, row: np.ndarray) -> bool:
    """True when every row's keys run one way only (ascending or descending)."""
    if key.size < 3:
        return True
    d = np.diff(key)
    same = row[1:] == row[:-1]
    down = same & (d < 0)
    if not down.any():
        return True
    up = same & (d > 0)
    if not up.any():
        return True
    has_up = np.zeros(int(row[-1]) + 1, dtype=bool)
    has_down = np.zeros_like(has_up)
    has_up[row[1:][up]] = True
    has_down[row[1:][down]] = True
    return not bool((has_up & has_down).any())


def _fold_points(acc: _Accumulator, blk: _Block) -> None:
    """Reduce a block point by point (per-scan radius, or an unsorted shared axis)."""
    flat = np.flatnonzero(blk.sel)
    if flat.size == 0:
        return
    n = blk.sel.shape[1]
    row = flat // n
    if blk.rad.shape[0] == 1:
        x = blk.rad[0, flat - row * n]
    else:
        x = blk.rad.reshape(-1)[flat]
    v = blk.sig.reshape(-1)[flat]
    key = row * acc.grid.columns + acc.grid.column(x)
    if not _rows_monotonic(key, row):  # runs of one column are not contiguous: sort them
        order = np.argsort(key, kind="stable")
        key, v = key[order], v[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    rows = slice(blk.row0, blk.row0 + blk.sig.shape[0])
    lo_flat = acc.lo[rows].reshape(-1)  # views: the accumulator is C-contiguous
    hi_flat = acc.hi[rows].reshape(-1)
    k = key[starts]
    lo_flat[k] = np.fmin(lo_flat[k], np.minimum.reduceat(v, starts))
    hi_flat[k] = np.fmax(hi_flat[k], np.maximum.reduceat(v, starts))


def _fold_rows(acc: _Accumulator, blk: _Block) -> None:
    """Reduce a block scan by scan (long scans: per-scan radius or an unsorted shared axis)."""
    for b in range(blk.sel.shape[0]):
        sub = np.flatnonzero(blk.sel[b])
        if sub.size == 0:
            continue
        rad = blk.rad[0] if blk.rad.shape[0] == 1 else blk.rad[b]
        if sub[-1] - sub[0] + 1 == sub.size:  # contiguous: slices, no copies
            take: slice | np.ndarray = slice(int(sub[0]), int(sub[-1]) + 1)
        else:
            take = sub
        cols = acc.grid.column(rad[take])
        v = blk.sig[b, take]
        d = np.diff(cols)
        if (d < 0).any() and (d > 0).any():  # not monotonic: sort by column
            order = np.argsort(cols, kind="stable")
            cols, v = cols[order], v[order]
        starts = np.flatnonzero(np.concatenate(([True], cols[1:] != cols[:-1])))
        i, target = blk.row0 + b, cols[starts]
        acc.lo[i, target] = np.fmin(acc.lo[i, target], np.minimum.reduceat(v, starts))
        acc.hi[i, target] = np.fmax(acc.hi[i, target], np.maximum.reduceat(v, starts))


def _track_block(acc: _Accumulator, blk: _Block) -> None:
    """Feed the exact-point trackers of the block's scans that still qualify."""
    for b in range(blk.sig.shape[0]):
        i = blk.row0 + b
        track = acc.tracks[i]
        if track is None:
            continue
        if acc.counts[i] > track.limit:
            acc.tracks[i] = None
            continue
        k = np.flatnonzero(blk.keep[b])
        rad = blk.rad[0] if blk.rad.shape[0] == 1 else blk.rad[b]
        track.feed(blk.q0 + k, rad[k], blk.sig[b, k], blk.sel[b, k])


Piece = tuple[slice, int, int]


@dataclass
class _Step:
    """Reads pieces in order and folds them into the accumulator (see :func:`_run`)."""

    arrays: _Arrays
    acc: _Accumulator
    sorted_axis: bool
    p1: int
    cancelled: CancelledFn | None
    progress: ProgressFn | None
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: int = 0

    def read(self, piece: Piece) -> _Block:
        if self.cancelled is not None and self.cancelled():
            raise EnvelopeCancelled()
        rows, q0, q1 = piece
        return _read_block(self.arrays, self.acc.grid, rows, q0, q1)

    def fold(self, blk: _Block) -> None:
        """Add one block (any thread: blocks of whole scans touch disjoint rows)."""
        n = blk.sig.shape[0]
        _add_block(self.acc, blk, self.sorted_axis)
        if self.progress is not None and blk.q0 + blk.sel.shape[1] == self.p1:
            with self.lock:
                self.done += n
                done = self.done
            self.progress(done, self.acc.counts.shape[0])


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


def _add_block(acc: _Accumulator, blk: _Block, sorted_axis: bool) -> None:
    """Count, reduce and track one block (its scans' pieces before it were added already)."""
    acc.counts[blk.row0:blk.row0 + blk.sig.shape[0]] += blk.sel.sum(axis=1)
    _fold(acc, blk, sorted_axis)
    _track_block(acc, blk)


def _fold(acc: _Accumulator, blk: _Block, sorted_axis: bool) -> None:
    """Add one block to the envelopes by the fastest method that fits it."""
    if sorted_axis:
        _fold_shared_sorted(acc, blk)
    elif blk.sel.shape[1] >= ROW_METHOD_POINTS:
        _fold_rows(acc, blk)
    else:
        _fold_points(acc, blk)


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
    arrays = _Arrays(radius, signal, mask, shape)
    extent = ExtentBuilder()
    for r, ok in _radius_pieces(arrays, block_points):
        if cancelled is not None and cancelled():
            raise EnvelopeCancelled()
        extent.add_values(r, ok)
    return extent.result()


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


def _radius_pieces(arrays: _Arrays, block_points: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(radius, counted)`` pieces of the radius with the positions that count for the extent."""
    shape = arrays.shape
    if not shape.per_scan:
        for q in range(0, shape.points, block_points):
            r = arrays.shared_radius(q, min(shape.points, q + block_points))
            yield r, np.isfinite(r)
        return
    for rows, q0, q1 in _row_blocks(shape, 0, shape.points, block_points):
        r = arrays.radius_rows(rows, q0, q1)
        yield r, arrays.mask_rows(rows, q0, q1, r.shape[0]) & np.isfinite(r)


def scan_envelopes(radius: Source, signal: Source, mask: Source | None,
                   r0: float, r1: float, columns: int, *,
                   max_exact: int | None = None,
                   cancelled: CancelledFn | None = None,
                   progress: ProgressFn | None = None,
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
        progress: called with ``(scans done, scans)`` between blocks (from
            the executor's threads too when one is given).
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
    grid = _grid(r0, r1, columns)
    limit = EXACT_PER_COLUMN * grid.columns if max_exact is None else max(0, int(max_exact))
    acc = _Accumulator.new(shape.scans, grid, limit)
    arrays = _Arrays(radius, signal, mask, shape)
    block_points = max(1, int(block_points))
    if shape.per_scan:
        p0, p1, sorted_axis = 0, shape.points, False
    else:
        p0, p1, sorted_axis = _shared_window(arrays, grid, block_points)
    step = _Step(arrays, acc, sorted_axis, p1, cancelled, progress)
    _run(step, list(_row_blocks(shape, p0, p1, block_points)), executor, int(parallel))
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
    return _row_blocks(shape, 0, shape.points, max(1, int(block_points)))


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
        grid = _grid(r0, r1, columns)
        limit = EXACT_PER_COLUMN * grid.columns if max_exact is None else max(0, int(max_exact))
        self.shape = shape
        self._acc = _Accumulator.new(shape.scans, grid, limit)
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
        self._p0, self._p1, self._sorted = _shared_window(_Arrays(r, r, None, shape), grid,
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
        _add_block(self._acc, _make_block(self._acc.grid, int(row0), a, rad, sig, keep),
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
