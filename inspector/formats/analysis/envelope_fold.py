"""Folding a scan's points into envelope bins, a block of rows at a time: the bin grid,
the running minimum, maximum and mean per bin, and the fast paths for rows that share
one sorted radius grid."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from inspector.formats.analysis.scan_layout import (
    EXACT_SPAN_FACTOR,
    ScanArrays,
    ScanPoints,
)


# -- the column grid ---------------------------------------------------------------
@dataclass(frozen=True)
class BinGrid:
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


def bin_grid(r0: float, r1: float, columns: int) -> BinGrid:
    r0, r1, w = float(r0), float(r1), int(columns)
    if not (np.isfinite(r0) and np.isfinite(r1) and r0 < r1):
        raise ValueError(f"radius range [{r0}, {r1}] must be finite with r0 < r1")
    if w < 1:
        raise ValueError(f"columns must be at least 1, got {columns}")
    return BinGrid(r0, r1, w)


# -- the shared axis ---------------------------------------------------------------
def shared_window(arrays: ScanArrays, grid: BinGrid, block_points: int) -> tuple[int, int, bool]:
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
class Accumulator:
    grid: BinGrid
    lo: np.ndarray
    hi: np.ndarray
    counts: np.ndarray
    tracks: list[_Track | None]
    runs: dict[tuple[int, int], _Runs | None] = field(default_factory=dict)

    @classmethod
    def new(cls, scans: int, grid: BinGrid, limit: int) -> Accumulator:
        shape = (scans, grid.columns)
        return cls(grid, np.full(shape, np.nan), np.full(shape, np.nan),
                   np.zeros(scans, dtype=np.int64),
                   [_Track(limit) if limit > 0 else None for _ in range(scans)])


@dataclass(frozen=True)
class FoldBlock:
    """One piece: rows ``rows`` (first scan ``row0``), positions from ``q0``."""

    row0: int
    q0: int
    rad: np.ndarray  # (rows, n) or (1, n) for a shared axis
    sig: np.ndarray  # (rows, n)
    keep: np.ndarray  # (rows, n) real points
    sel: np.ndarray  # (rows, n) real points in the range


def make_block(grid: BinGrid, row0: int, q0: int, rad: np.ndarray, sig: np.ndarray,
                mask: np.ndarray) -> FoldBlock:
    """The block of float64 ``rad`` ``(rows, n)`` or ``(1, n)``, float64 ``sig`` and bool
    ``mask`` ``(rows, n)``: which points are real, and which of those are in the range."""
    # a new array: the mask may be the caller's array or a reader's cache
    keep = mask & np.isfinite(sig) & np.isfinite(rad)
    sel = keep & grid.inside(rad)
    return FoldBlock(row0, q0, rad, sig, keep, sel)


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


def _shared_runs(acc: Accumulator, r: np.ndarray, q0: int) -> _Runs | None:
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


def fold_shared_sorted(acc: Accumulator, blk: FoldBlock) -> None:
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


def fold_points(acc: Accumulator, blk: FoldBlock) -> None:
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


def fold_rows(acc: Accumulator, blk: FoldBlock) -> None:
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


def track_block(acc: Accumulator, blk: FoldBlock) -> None:
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
