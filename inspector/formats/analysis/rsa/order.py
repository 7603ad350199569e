"""Stimulus orders for showing dissimilarity matrices side by side.

* :func:`clustered_order`: the leaf order of an average-linkage (UPGMA)
  agglomerative clustering of a dissimilarity matrix (Sokal and Michener
  1958; the merges of ``scipy.cluster.hierarchy.linkage(method="average")``),
  each merge putting the cluster holding the lower stimulus index on the
  left (scipy's ``leaves_list`` may swap the two); ``O(m^3)`` time with
  numpy, so at most :data:`MAX_CLUSTERED` stimuli.
* :func:`order_by_values`: stimuli sorted by one value each (a trial-metadata
  column), missing values last, ties in their given order.

Nothing here reads a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Most stimuli :func:`clustered_order` orders.
MAX_CLUSTERED = 1500


def clustered_order(square: np.ndarray) -> np.ndarray:
    """Leaf order (int64 ``(m,)``) of the average-linkage tree of ``square`` ``(m, m)``.

    NaN dissimilarities count as the largest finite one.

    Raises:
        ValueError: more than :data:`MAX_CLUSTERED` stimuli, or not square.
    """
    d = np.array(square, dtype=np.float64)
    m = d.shape[0]
    if d.shape != (m, m):
        raise ValueError(f"a square matrix is needed, got {d.shape}")
    if m > MAX_CLUSTERED:
        raise ValueError(f"{m} stimuli: clustering orders at most {MAX_CLUSTERED}")
    if m < 3:
        return np.arange(m, dtype=np.int64)
    finite = d[np.isfinite(d)]
    d[~np.isfinite(d)] = finite.max() if finite.size else 0.0
    np.fill_diagonal(d, np.inf)
    size = np.ones(m)
    leaves: list[list[int]] = [[i] for i in range(m)]
    alive = np.ones(m, dtype=bool)
    for _ in range(m - 1):
        flat = int(np.argmin(d))
        a, b = divmod(flat, m)
        a, b = min(a, b), max(a, b)
        merged = (d[a] * size[a] + d[b] * size[b]) / (size[a] + size[b])
        merged[~alive] = np.inf
        d[a, :], d[:, a] = merged, merged
        d[a, a] = np.inf
        d[b, :], d[:, b] = np.inf, np.inf
        size[a] += size[b]
        alive[b] = False
        leaves[a] = leaves[a] + leaves[b]
    return np.asarray(leaves[int(np.flatnonzero(alive)[0])], dtype=np.int64)


def order_by_values(values: Sequence[Any]) -> np.ndarray:
    """Positions sorting ``values`` (numbers numerically, else as text), missing last."""
    def key(i: int) -> tuple[int, Any]:
        v = values[i]
        if v is None or (isinstance(v, float) and v != v):
            return (2, 0)
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            return (0, float(v))
        return (1, str(v))
    return np.asarray(sorted(range(len(values)), key=key), dtype=np.int64)
