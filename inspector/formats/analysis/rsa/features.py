"""Dissimilarity matrices of feature rows, computed tile by tile with bounded memory.

:func:`feature_rdm` gives the stimulus x stimulus dissimilarity of the rows
of a lazily read array ``(stimuli, *features)`` (a vision record: one row per
stimulus ID; further axes are flattened in C order, the order the record
stores them, ``vneurotk.vision.representation.VisualRepresentation``):

* ``"correlation"``: ``1 - r``, r the Pearson correlation of two rows
  (``scipy.spatial.distance.pdist(..., "correlation")``; rsatoolbox
  ``calc_rdm(method="correlation")``);
* ``"euclidean"``: ``sqrt(sum((x - y)**2))`` (``pdist(..., "euclidean")``;
  rsatoolbox's ``"euclidean"`` is this squared and divided by the number of
  features);
* ``"cosine"``: ``1 - x.y / (|x| |y|)`` (``pdist(..., "cosine")``).

A row whose dissimilarity is undefined (constant for correlation, zero for
cosine, or holding NaN or infinity for any metric) gets NaN dissimilarities
and is flagged in :attr:`FeatureRdm.undefined`.

Work and memory: the rows are read in tiles of whole rows (aligned to the
dataset's chunk rows when it is chunked); per-row statistics (mean, norm) are
float64; the Gram products ``x . y`` of two tiles are accumulated in float64
over strips of features, each strip converted to float64 and normalised
(centred by the row mean for correlation, by the mean of the first tile for
euclidean, which leaves distances unchanged and avoids cancellation) just
before its product.  The stored rows are held at once only when they fit in
``memory_budget`` bytes; otherwise a panel of rows (half the budget) is held
while the later tiles stream past it, so the rows are read about
``stored bytes / (budget / 2)`` / 2 + 1 times.  The result is the condensed
upper triangle (float64, ``n (n - 1) / 2``, the order of
``scipy.spatial.distance.squareform``): 400 MB for 10 000 stimuli.

Nothing here imports Qt; run it off the GUI thread.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from inspector.formats.analysis.trial_average import Cancelled
from inspector.formats.capabilities import CancelFn, Progress, ProgressFn

#: Dissimilarity measures, the first the default.
METRICS = ("correlation", "euclidean", "cosine")
#: Default most bytes of stored feature rows held at once.
MEMORY_BUDGET = 256 << 20
#: Target bytes of one float64 strip (tile rows x features of one strip).
STRIP_BYTES = 8 << 20
#: Most rows in one tile (one Gram product is at most this square).
TILE_ROWS = 1024
#: Target bytes of stored rows in one tile.
TILE_BYTES = 64 << 20


@dataclass(frozen=True)
class FeatureRdm:
    """A dissimilarity matrix in condensed form.

    Attributes:
        condensed: float64 ``(n * (n - 1) // 2,)``: entry ``(i, j)``, ``i < j``,
            at ``i * n - i * (i + 1) // 2 + j - i - 1`` (scipy ``squareform`` order).
        n: number of stimuli (rows).
        metric: one of :data:`METRICS`.
        features: values per row after flattening.
        undefined: bool ``(n,)``: rows whose dissimilarities are NaN.
        passes: how many times the stored rows were read (1 when they fit in
            the memory budget).
    """

    condensed: np.ndarray
    n: int
    metric: str
    features: int
    undefined: np.ndarray
    passes: int = 1

    def square(self, dtype: Any = np.float64) -> np.ndarray:
        """The full symmetric ``(n, n)`` matrix (zero diagonal)."""
        return square_form(self.condensed, self.n, dtype)


def row_offset(i: Any, n: int) -> Any:
    """Index in the condensed vector of entry ``(i, i + 1)``."""
    return i * n - i * (i + 1) // 2


def square_form(condensed: np.ndarray, n: int, dtype: Any = np.float64) -> np.ndarray:
    """``(n, n)`` symmetric matrix with a zero diagonal from a condensed vector."""
    out = np.zeros((n, n), dtype=dtype)
    for i in range(n - 1):
        k = row_offset(i, n)
        out[i, i + 1:] = condensed[k:k + n - 1 - i]
        out[i + 1:, i] = condensed[k:k + n - 1 - i]
    return out


def sub_condensed(condensed: np.ndarray, n: int, rows: np.ndarray) -> np.ndarray:
    """The condensed matrix of the stimuli ``rows`` (ascending) of an ``n``-stimulus one."""
    rows = np.asarray(rows, dtype=np.int64)
    m = int(rows.shape[0])
    out = np.empty(m * (m - 1) // 2, dtype=condensed.dtype)
    for a in range(m - 1):
        k = row_offset(a, m)
        out[k:k + m - 1 - a] = condensed[row_offset(rows[a], n) + rows[a + 1:] - rows[a] - 1]
    return out


# -- reading --------------------------------------------------------------------------------


def _tile_rows(ref: Any, row_bytes: int, budget: int) -> int:
    """Rows per tile: about :data:`TILE_BYTES` of stored rows (at most :data:`TILE_ROWS`);
    when chunked, a whole number of chunk rows as long as one chunk row fits in half the
    memory budget (so that no chunk is decoded twice for one pass)."""
    want = max(1, min(TILE_ROWS, TILE_BYTES // max(1, row_bytes)))
    layout = ref.chunk_layout() if hasattr(ref, "chunk_layout") else None
    chunks = getattr(layout, "chunks", None) if layout is not None else None
    step = max(1, int(chunks[0])) if chunks else 1
    if step == 1 or step * row_bytes > budget // 2:
        return want
    return step * max(1, want // step)


def _tiles(n: int, size: int) -> list[tuple[int, int]]:
    return [(a, min(n, a + size)) for a in range(0, n, size)]


def _read(ref: Any, span: tuple[int, int], features: int) -> np.ndarray:
    """Rows ``[a, b)`` flattened to ``(rows, features)`` in the stored dtype."""
    block = np.asarray(ref.read((slice(span[0], span[1]),)))
    return block.reshape(span[1] - span[0], features)


def _strips(features: int, rows: int) -> Iterator[slice]:
    width = max(1, STRIP_BYTES // (8 * max(1, rows)))
    for a in range(0, features, width):
        yield slice(a, min(features, a + width))


# -- tiles ----------------------------------------------------------------------------------


@dataclass
class _Tile:
    """Rows ``[start, stop)`` as stored, and what normalises them (float64 per row)."""

    start: int
    x: np.ndarray
    shift: np.ndarray | None
    scale: np.ndarray | None
    sq: np.ndarray | None
    bad: np.ndarray


def _row_sums(x: np.ndarray, *, square: bool, row_shift: np.ndarray | None = None,
              col_shift: np.ndarray | None = None) -> np.ndarray:
    """Per-row float64 ``sum(v)`` or ``sum(v**2)`` of ``v = x - shift``, strip by strip."""
    out = np.zeros(x.shape[0])
    for s in _strips(x.shape[1], x.shape[0]):
        v = x[:, s].astype(np.float64)
        if row_shift is not None:
            v -= row_shift[:, None]
        if col_shift is not None:
            v -= col_shift[s]
        out += np.einsum("ij,ij->i", v, v) if square else v.sum(axis=1)
    return out


def _center(x: np.ndarray) -> np.ndarray:
    """Mean of the finite rows of the first tile (float64 ``(features,)``), else zeros."""
    ok = np.isfinite(_row_sums(x, square=False))
    if not ok.any():
        return np.zeros(x.shape[1])
    out = np.empty(x.shape[1])
    for s in _strips(x.shape[1], x.shape[0]):
        out[s] = x[ok, s].astype(np.float64).mean(axis=0)
    return out


def _tile(start: int, x: np.ndarray, metric: str, center: np.ndarray | None) -> _Tile:
    """Read rows and their normalisation (see the module notes)."""
    if metric == "euclidean":
        assert center is not None
        sq = _row_sums(x, square=True, col_shift=center)
        return _Tile(start, x, None, None, sq, ~np.isfinite(sq))
    shift = None
    if metric == "correlation":
        total = _row_sums(x, square=False)
        shift = total / x.shape[1]
        norm = np.sqrt(_row_sums(x, square=True,
                                 row_shift=np.where(np.isfinite(shift), shift, 0.0)))
        norm[~np.isfinite(total)] = np.nan
    else:
        norm = np.sqrt(_row_sums(x, square=True))
    bad = ~np.isfinite(norm) | (norm == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(bad, 0.0, 1.0 / norm)
    if shift is not None:
        shift = np.where(bad, 0.0, shift)
    return _Tile(start, x, shift, scale, None, bad)


def _prepared(t: _Tile, s: slice, center: np.ndarray | None) -> np.ndarray:
    """Strip ``s`` of a tile as float64, normalised for its metric (bad rows zero)."""
    v = t.x[:, s].astype(np.float64)
    if t.scale is None:
        assert center is not None
        v -= center[s]
        v[t.bad] = 0.0
        return v
    if t.shift is not None:
        v -= t.shift[:, None]
    v *= t.scale[:, None]
    v[t.bad] = 0.0
    return v


def _dissimilarity(a: _Tile, b: _Tile, metric: str, center: np.ndarray | None) -> np.ndarray:
    """float64 ``(rows of a, rows of b)`` dissimilarities of two tiles."""
    g = np.zeros((a.x.shape[0], b.x.shape[0]))
    for s in _strips(a.x.shape[1], max(a.x.shape[0], b.x.shape[0])):
        pa = _prepared(a, s, center)
        g += pa @ (pa if a is b else _prepared(b, s, center)).T
    if metric == "euclidean":
        assert a.sq is not None and b.sq is not None
        d = a.sq[:, None] + b.sq[None, :] - 2.0 * g
        np.maximum(d, 0.0, out=d)
        np.sqrt(d, out=d)
    else:
        d = np.clip(1.0 - g, 0.0, 2.0)
    d[a.bad, :] = np.nan
    d[:, b.bad] = np.nan
    return d


def _store(out: np.ndarray, n: int, a: _Tile, b: _Tile, d: np.ndarray) -> None:
    """Write tile pair ``(a, b)`` (``a`` not after ``b``) into the condensed vector."""
    rows_b = b.x.shape[0]
    for r in range(a.x.shape[0]):
        i = a.start + r
        first = max(b.start, i + 1)
        if first >= b.start + rows_b:
            continue
        k = row_offset(i, n) + first - i - 1
        out[k:k + b.start + rows_b - first] = d[r, first - b.start:]


# -- the matrix -----------------------------------------------------------------------------


@dataclass
class _Plan:
    """What one computation reads: the array, its tiles, the budget."""

    ref: Any
    metric: str
    features: int
    tiles: list[tuple[int, int]]
    panel: int
    resident: bool
    center: np.ndarray | None = None

    def load(self, index: int, cache: dict[int, _Tile]) -> _Tile:
        """Tile ``index`` (read, or from ``cache`` when all rows are held)."""
        if index in cache:
            return cache[index]
        span = self.tiles[index]
        x = _read(self.ref, span, self.features)
        if self.metric == "euclidean" and self.center is None:
            self.center = _center(x)
        t = _tile(span[0], x, self.metric, self.center)
        if self.resident:
            cache[index] = t
        return t


def _plan(ref: Any, metric: str, memory_budget: int) -> _Plan:
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")
    shape = tuple(int(v) for v in ref.shape)
    if len(shape) < 1 or shape[0] < 2:
        raise ValueError(f"a dissimilarity matrix needs at least 2 rows, got shape {list(shape)}")
    if np.dtype(ref.dtype).kind not in "biuf":
        raise ValueError(f"features of dtype {ref.dtype} are not real numbers")
    features = math.prod(shape[1:])
    if features < 1:
        raise ValueError(f"the rows hold no values (shape {list(shape)})")
    row_bytes = features * np.dtype(ref.dtype).itemsize
    size = _tile_rows(ref, row_bytes, memory_budget)
    tiles = _tiles(shape[0], size)
    resident = shape[0] * row_bytes <= memory_budget
    panel = len(tiles) if resident else max(1, (memory_budget // 2) // (size * row_bytes))
    return _Plan(ref, metric, features, tiles, panel, resident)


def feature_rdm(ref: Any, metric: str = "correlation", *, memory_budget: int = MEMORY_BUDGET,
                progress: ProgressFn | None = None,
                cancelled: CancelFn | None = None) -> FeatureRdm:
    """The dissimilarity of every pair of rows of ``ref`` (see the module notes).

    Args:
        ref: an :class:`~inspector.formats.analysis.arrays.ArrayRef` ``(n, *features)``
            of real numbers (a vision record: ``Document.arrays["vision_store/<i>"]``).
        metric: one of :data:`METRICS`.
        memory_budget: most bytes of stored rows held at once.
        progress: ``Progress(done, total)`` tile pairs, after each pair.
        cancelled: polled before each tile pair; True raises ``Cancelled``.

    Returns:
        The :class:`FeatureRdm` (float64 condensed, NaN for undefined rows).

    Raises:
        ValueError: unknown metric, fewer than 2 rows, a non-numeric dtype.
        OSError: the array cannot be read.
        Cancelled: ``cancelled()`` returned True.
    """
    plan = _plan(ref, metric, memory_budget)
    n = int(ref.shape[0])
    out = np.full(n * (n - 1) // 2, np.nan)
    undefined = np.zeros(n, dtype=bool)
    cache: dict[int, _Tile] = {}
    count = len(plan.tiles)
    total, done, passes = count * (count + 1) // 2, 0, 0
    for p0 in range(0, count, plan.panel):
        held = [plan.load(i, cache) for i in range(p0, min(count, p0 + plan.panel))]
        passes += 1
        for j in range(p0, count):
            b = held[j - p0] if j < p0 + len(held) else plan.load(j, cache)
            undefined[b.start:b.start + b.x.shape[0]] = b.bad
            for a in held[:j - p0 + 1]:
                if cancelled is not None and cancelled():
                    raise Cancelled()
                _store(out, n, a, b, _dissimilarity(a, b, metric, plan.center))
                done += 1
                if progress is not None:
                    progress(Progress(done, total))
    return FeatureRdm(out, n, metric, plan.features, undefined, passes if not plan.resident else 1)
