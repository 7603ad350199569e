"""The arrays of a scan experiment (radius, signal, mask) and their validated layout, read
as rectangular blocks of rows (for :mod:`.scan_envelope`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from inspector.formats.analysis.arrays import ArrayRef

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


# -- reading -----------------------------------------------------------------------
def read_source(src: Source, sel: tuple[slice, ...]) -> np.ndarray:
    if isinstance(src, ArrayRef):
        return np.asarray(src.read(sel))
    return np.asarray(src[sel])


@dataclass
class ScanArrays:
    """Reads rectangular blocks of the three arrays as 2-D float64/bool."""

    radius: Source
    signal: Source
    mask: Source | None
    shape: ScanShape
    _shared: tuple[int, int, np.ndarray] | None = None

    def signal_rows(self, rows: slice, q0: int, q1: int) -> np.ndarray:
        if len(self.signal.shape) == 1:
            return np.asarray(read_source(self.signal, (slice(q0, q1),)), dtype=np.float64)[None, :]
        return np.asarray(read_source(self.signal, (rows, slice(q0, q1))), dtype=np.float64)

    def mask_rows(self, rows: slice, q0: int, q1: int, n_rows: int) -> np.ndarray:
        if self.mask is None:
            return np.ones((n_rows, q1 - q0), dtype=bool)
        if len(self.mask.shape) == 1:
            return np.asarray(read_source(self.mask, (slice(q0, q1),)), dtype=bool)[None, :]
        return np.asarray(read_source(self.mask, (rows, slice(q0, q1))), dtype=bool)

    def shared_radius(self, q0: int, q1: int) -> np.ndarray:
        """float64 ``(q1 - q0,)`` of the shared axis (the last piece is kept)."""
        if self._shared is not None and self._shared[:2] == (q0, q1):
            return self._shared[2]
        r = np.asarray(read_source(self.radius, (slice(q0, q1),)), dtype=np.float64).reshape(-1)
        self._shared = (q0, q1, r)
        return r

    def radius_rows(self, rows: slice, q0: int, q1: int) -> np.ndarray:
        """float64 ``(rows, n)``, or ``(1, n)`` broadcastable for a shared axis."""
        if not self.shape.per_scan:
            return self.shared_radius(q0, q1)[None, :]
        return np.asarray(read_source(self.radius, (rows, slice(q0, q1))), dtype=np.float64)


def row_blocks(shape: ScanShape, q0: int, q1: int,
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
