"""Minima and maxima of blocks of samples, and of a segment of them (for :mod:`.chunk_summary`).

A chunk summary keeps, per channel, the minimum and maximum of each block of
samples (NaN for a block with no finite sample); an envelope's bins are cut at
block boundaries where they can be."""

from __future__ import annotations

import numpy as np

from inspector.formats.analysis.arrays import (
    bin_edges,
    minmax_bins,
)


def finite_block_minmax(v: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Block min/max over finite values only (slow path for floats with NaN/inf)."""
    finite = np.isfinite(v)
    vf = v.astype(np.float64)
    idx = np.arange(0, v.shape[0], block)
    lo = np.minimum.reduceat(np.where(finite, vf, np.inf), idx, axis=0)
    hi = np.maximum.reduceat(np.where(finite, vf, -np.inf), idx, axis=0)
    lo[~np.isfinite(lo)] = np.nan
    hi[~np.isfinite(hi)] = np.nan
    return lo, hi


def block_minmax(v: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Min/max over finite values of consecutive blocks along axis 0.

    ``v``: ``(L, ...)``; returns two float64 arrays ``(ceil(L / block), ...)``
    with NaN for blocks without a finite value.  Integers never overflow
    (min/max are taken in the integer type, then converted).
    """
    length = v.shape[0]
    full = length // block
    parts_lo = []
    parts_hi = []
    if full:
        m = v[: full * block].reshape(full, block, *v.shape[1:])
        parts_lo.append(m.min(axis=1))
        parts_hi.append(m.max(axis=1))
    if full * block < length:
        t = v[full * block:]
        parts_lo.append(t.min(axis=0, keepdims=True))
        parts_hi.append(t.max(axis=0, keepdims=True))
    lo = np.concatenate(parts_lo).astype(np.float64)
    hi = np.concatenate(parts_hi).astype(np.float64)
    if v.dtype.kind == "f" and not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        return finite_block_minmax(v, block)
    return lo, hi


# -- envelopes through a summary ------------------------------------------------------
def snapped_edges(start: int, stop: int, bins: int, block: int) -> np.ndarray:
    """Bin edges over ``[start, stop)`` whose inner edges are block boundaries."""
    e = bin_edges(start, stop, bins)
    inner = np.round(e[1:-1] / block).astype(np.int64) * block
    inner = inner[(inner > start) & (inner < stop)]
    return np.unique(np.concatenate([[start], inner, [stop]]).astype(np.int64))


def seg_minmax(v: np.ndarray) -> tuple[float, float]:
    if v.size == 0:
        return (np.nan, np.nan)
    lo, hi = minmax_bins(v, np.array([0, v.size], dtype=np.int64))
    return float(lo[0]), float(hi[0])
