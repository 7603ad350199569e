"""Element-wise comparison of two blocks of values, and its running totals.

Two values ``a`` (first file) and ``b`` are equal when ``a == b``, when both are
NaN, or, with a tolerance, when ``|a - b| <= atol + rtol * |b|`` (the rule of
``numpy.isclose``); with ``exact`` they must have the same stored bits.  The
relative difference of a pair is ``|a - b| / |b|`` (undefined where ``b`` is 0).
Nothing here imports Qt.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inspector.formats.compare.model import SHAPE, VALUES, Collector, Difference

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclass
class ValueStats:
    """What differs between two arrays of one shape, accumulated block by block.

    Attributes:
        compared: elements compared.
        differing: elements that differ (beyond the tolerance).
        max_abs: largest ``|a - b|`` over the differing elements (numbers only), or None.
        max_rel: largest ``|a - b| / |b|`` over differing elements with ``b != 0``, or None.
        first_index: index (one int per axis) of the first differing element in C order
            among the blocks seen, or None.
    """

    compared: int = 0
    differing: int = 0
    max_abs: float | None = None
    max_rel: float | None = None
    first_index: tuple[int, ...] | None = None

    def merge(self, other: ValueStats) -> None:
        """Add the totals of ``other`` (another block of the same arrays)."""
        self.compared += other.compared
        self.differing += other.differing
        self.max_abs = _max(self.max_abs, other.max_abs)
        self.max_rel = _max(self.max_rel, other.max_rel)
        if other.first_index is not None and (self.first_index is None
                                              or other.first_index < self.first_index):
            self.first_index = other.first_index

    def to_json(self) -> dict[str, object]:
        """``compared``, ``differing``, ``max_abs``, ``max_rel``, ``first_index``."""
        return {"compared": self.compared, "differing": self.differing,
                "max_abs": _json_float(self.max_abs), "max_rel": _json_float(self.max_rel),
                "first_index": list(self.first_index) if self.first_index is not None
                else None}


def _max(x: float | None, y: float | None) -> float | None:
    if x is None:
        return y
    if y is None:
        return x
    return max(x, y)


def _json_float(v: float | None) -> float | str | None:
    if v is None or np.isfinite(v):
        return v
    return "NaN" if np.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


def compare_block(a: np.ndarray, b: np.ndarray, offset: tuple[int, ...] = (),
                  rtol: float = 0.0, atol: float = 0.0, exact: bool = False) -> ValueStats:
    """Compare two blocks of one shape.

    Args:
        a, b: arrays of the same shape (any dtypes; numbers are compared as numbers).
        offset: the index of the blocks' first element in the whole arrays (``()``:
            zeros), added to :attr:`ValueStats.first_index`.
        rtol, atol, exact: see the module notes.

    Raises:
        ValueError: the shapes differ.
    """
    if a.shape != b.shape:
        raise ValueError(f"blocks of shapes {a.shape} and {b.shape}")
    differ = _differing(a, b, rtol, atol, exact)
    stats = ValueStats(compared=int(a.size))
    if differ is None:
        return stats
    stats.differing = int(np.count_nonzero(differ))
    if stats.differing == 0:
        return stats
    flat = int(np.argmax(differ.reshape(-1)))
    local = np.unravel_index(flat, a.shape) if a.ndim else ()
    base = offset or (0,) * a.ndim
    stats.first_index = tuple(int(o) + int(i) for o, i in zip(base, local, strict=True))
    if _numeric(a) and _numeric(b):
        stats.max_abs, stats.max_rel = _extremes(a[differ], b[differ])
    return stats


def _numeric(v: np.ndarray) -> bool:
    return v.dtype.kind in "biufc"


def _differing(a: np.ndarray, b: np.ndarray, rtol: float, atol: float,
               exact: bool) -> np.ndarray | None:
    """Boolean mask of the differing elements, or None when none differ."""
    if exact and a.dtype == b.dtype and a.dtype.itemsize in _UINT and _numeric(a):
        ua = np.ascontiguousarray(a).view(_UINT[a.dtype.itemsize])
        ub = np.ascontiguousarray(b).view(_UINT[b.dtype.itemsize])
        differ = ua != ub
        return differ if differ.any() else None
    if not (_numeric(a) and _numeric(b)):
        differ = np.asarray(a != b, dtype=bool).reshape(a.shape)
        return differ if differ.any() else None
    differ = a != b
    if not differ.any():
        return None
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        both_nan = np.isnan(a) & np.isnan(b)
        differ &= ~both_nan
    if (rtol or atol) and differ.any():
        close = np.isclose(a[differ], b[differ], rtol=rtol, atol=atol, equal_nan=True)
        idx = np.flatnonzero(differ)
        differ.reshape(-1)[idx[close]] = False
    return differ if differ.any() else None


def _extremes(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None]:
    """Largest absolute and relative difference of paired values (1-D)."""
    fa = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    fb = b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        d = np.abs(fa - fb)
        d = np.where(np.isnan(d), np.inf, d)  # a NaN against a number: no bound
        max_abs = float(d.max()) if d.size else None
        nz = np.abs(fb) != 0
        rel = d[nz] / np.abs(fb[nz])
        max_rel = float(rel.max()) if rel.size else None
    return max_abs, max_rel


def compare_arrays_in_memory(out: Collector, section: str, path: str, a: np.ndarray,
                             b: np.ndarray, unit: str = "values",
                             shape_note: str = "") -> None:
    """Add to ``out`` a ``shape`` difference when ``a`` and ``b`` differ in shape, else a
    ``values`` difference (``"N of M <unit> differ"``, :class:`ValueStats` as detail)
    when any element differs under ``out.options`` (tolerance or exact)."""
    if a.shape != b.shape:
        out.add(Difference(section, SHAPE, path, list(a.shape), list(b.shape),
                           note=shape_note))
        return
    o = out.options
    stats = compare_block(a, b, (), o.rtol, o.atol, o.exact)
    if stats.differing:
        out.add(Difference(section, VALUES, path, detail=stats.to_json(),
                           note=f"{stats.differing:,} of {stats.compared:,} {unit} differ"))
