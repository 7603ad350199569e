"""A few scans of many: which ones a plot draws, and a source of just those rows.

A plot cannot tell a million overlaid scans apart, and each drawn scan costs
memory in proportion to the plot's width (its envelopes, its line, its
pixels).  :func:`drawn_rows` chooses the scans a plot draws: every scan when
there are at most ``cap``, else every ``k``-th scan (``k = ceil(scans / cap)``)
and the first ``extra`` selected scans besides.  :class:`ScanRows` presents
those rows of a ``(scans, points)`` array as an array of their own, read in
spans of bounded size, so :func:`~inspector.formats.analysis.scan_envelope.scan_envelopes`
reads and keeps only them; :func:`envelope_rows` takes the same rows of
envelopes already computed (an archive's overview).

Nothing here imports Qt.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.analysis.scan_envelope import ScanEnvelopes
from inspector.formats.analysis.scan_layout import Source, read_source

#: Most elements read at once from the underlying array (16 MB of float64).
SPAN_ELEMENTS = 1 << 21


def stride(scans: int, cap: int) -> int:
    """``k``: every ``k``-th scan is drawn (1 when ``scans <= cap``)."""
    return max(1, math.ceil(scans / max(1, cap)))


def drawn_rows(scans: int, selected: Iterable[int], cap: int, extra: int) -> np.ndarray:
    """The scans a plot draws, int64 ascending.

    Args:
        scans: how many scans the experiment has.
        selected: indices of the selected scans (others out of range are ignored).
        cap: most scans drawn besides the selected ones.
        extra: most selected scans drawn besides every ``k``-th one (the first ones in
            scan order).

    Returns:
        ``arange(scans)`` when ``scans <= cap``; else ``0, k, 2k, ...`` (``k =
        stride(scans, cap)``) united with the first ``extra`` selected scans.
    """
    if scans <= cap:
        return np.arange(scans, dtype=np.int64)
    base = np.arange(0, scans, stride(scans, cap), dtype=np.int64)
    chosen = sorted(i for i in selected if 0 <= i < scans and i % stride(scans, cap))
    return np.union1d(base, np.asarray(chosen[:max(0, extra)], dtype=np.int64))


class ScanRows(ArrayRef):
    """Rows ``rows`` of a 2-D ``(scans, points)`` source, as an array of their own.

    Args:
        source: an :class:`~inspector.formats.analysis.arrays.ArrayRef` or numpy
            array of shape ``(scans, points)``.
        rows: int ascending row indices into ``source``.

    Attributes:
        shape: ``(len(rows), points)``; dtype: the source's.

    :meth:`read` (or indexing) with ``(row slice, column slice)`` reads the rows' spans
    of the source (consecutive wanted rows together, at most :data:`SPAN_ELEMENTS`
    elements a read, rows between them dropped) and returns ``(rows, columns)`` of the
    source's dtype.

    Raises:
        ValueError: ``source`` is not 2-D, or ``rows`` is not ascending within it.
    """

    def __init__(self, source: Source, rows: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if len(source.shape) != 2:
            raise ValueError(f"rows of a 2-D array only, not of shape {source.shape}")
        if rows.size and (rows[0] < 0 or rows[-1] >= source.shape[0]
                          or (np.diff(rows) <= 0).any()):
            raise ValueError("rows must be ascending and inside the array")
        super().__init__()
        self.source, self.rows = source, rows
        self.name = str(getattr(source, "name", "rows"))
        self.location = str(getattr(source, "location", ""))
        self.shape = (int(rows.size), int(source.shape[1]))
        self.dtype = np.dtype(source.dtype)

    def __getitem__(self, sel: tuple[slice, slice]) -> np.ndarray:
        return self.read(sel)

    def read(self, selection: Any = Ellipsis) -> np.ndarray:
        """The rows and columns ``selection`` selects (``Ellipsis``, or two slices)."""
        rsel, csel = (slice(None), slice(None)) if selection is Ellipsis else selection
        want = self.rows[rsel]
        q0, q1, _ = csel.indices(self.shape[1])
        width = max(q1 - q0, 0)
        out = np.empty((want.size, width), dtype=self.dtype)
        per_read = max(1, SPAN_ELEMENTS // max(width, 1))
        i = 0
        while i < want.size:
            a = int(want[i])
            j = max(i + 1, int(np.searchsorted(want, a + per_read, "left")))
            block = read_source(self.source, (slice(a, int(want[j - 1]) + 1), slice(q0, q1)))
            out[i:j] = np.asarray(block)[want[i:j] - a]
            i = j
        return out


def envelope_rows(env: ScanEnvelopes, rows: np.ndarray) -> ScanEnvelopes:
    """The envelopes of scans ``rows`` of ``env`` (int indices), in that order."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    return ScanEnvelopes(env.r0, env.r1, env.columns, env.lo[rows], env.hi[rows],
                         env.counts[rows], tuple(env.points[int(i)] for i in rows))
