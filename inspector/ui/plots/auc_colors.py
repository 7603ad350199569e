"""The AUC scans' colours, computed when asked for: a million scans hold no ``QColor``.

:class:`ScanColors` is a sequence of one ``QColor`` per scan, equal to what
:func:`~inspector.ui.plots.auc_scans.cell_colors` (several cells) or the viridis
map over the scan order (one cell) gives, made for the scans asked for
(:meth:`ScanColors.take` for many at once).  It keeps per scan only what the
colour is computed from (two small integers), built with numpy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

import numpy as np
from PySide6.QtGui import QColor

from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.capabilities import AucScans
from inspector.ui.plots.auc_scans import CELL_HUES


def scan_cell_codes(auc: AucScans, n: int) -> np.ndarray:
    """int32 ``(n,)``: one code per scan, equal for scans of the same cell (the text of
    :func:`~inspector.ui.plots.auc_scans.scan_cells`); all 0 when the cells are not
    known for every scan."""
    scans = getattr(auc.experiment, "scans", None) or []
    if len(scans) < n:
        return np.zeros(n, dtype=np.int32)
    if isinstance(scans, ScanRecords):  # read the column: no record is built
        codes, values = scans.text("cell")
        texts = ["" if v is None else str(v) for v in values]
        same = {t: k for k, t in reversed(list(enumerate(texts)))}
        remap = np.array([same[t] for t in texts] or [0], dtype=np.int32)
        return remap[np.asarray(codes[:n], dtype=np.int64)]
    seen: dict[str, int] = {}
    out = np.empty(n, dtype=np.int32)
    for i, scan in enumerate(scans[:n]):
        cell = scan.get("cell") if isinstance(scan, Mapping) else getattr(scan, "cell", None)
        out[i] = seen.setdefault("" if cell is None else str(cell), len(seen))
    return out


class ScanColors(Sequence[QColor]):
    """One colour per scan (see the module notes).

    Args:
        codes: int ``(scans,)`` cell codes (:func:`scan_cell_codes`).
        dark: True on a dark background.
        cmap: the colour map of an experiment of one cell (``pg.ColorMap``).
    """

    def __init__(self, codes: np.ndarray, dark: bool, cmap: Any) -> None:
        codes = np.asarray(codes).reshape(-1)
        self._n = int(codes.size)
        self._cmap, self._dark = cmap, dark
        self._table: dict[tuple[int, int], QColor] = {}
        self._slot: np.ndarray | None = None
        self._value: np.ndarray | None = None
        uniq, first = np.unique(codes, return_index=True)
        if uniq.size > 1:
            self._cells(codes, uniq, first)

    def _cells(self, codes: np.ndarray, uniq: np.ndarray, first: np.ndarray) -> None:
        """Each scan's hue slot (its cell's order of first appearance) and value byte
        (light to dark over the cell's scans in order; dark to light when dark)."""
        dense = np.searchsorted(uniq, codes)
        rank = np.empty(uniq.size, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(uniq.size)
        order = np.argsort(dense, kind="stable")
        counts = np.bincount(dense, minlength=uniq.size)
        start = np.cumsum(counts) - counts
        k = np.empty(self._n, dtype=np.int64)
        k[order] = np.arange(self._n) - start[dense[order]]
        t = k / np.maximum(counts[dense] - 1, 1)
        value = 0.55 + 0.45 * t if self._dark else 0.95 - 0.45 * t
        self._value = (255 * value).astype(np.int16)
        self._slot = (rank[dense] % len(CELL_HUES)).astype(np.int8)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> QColor: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[QColor]: ...

    def __getitem__(self, i: int | slice) -> QColor | Sequence[QColor]:
        if isinstance(i, slice):
            return self.take(np.arange(self._n)[i])
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self.take(np.array([i % self._n]))[0]

    def take(self, rows: np.ndarray) -> list[QColor]:
        """The colours of scans ``rows`` (int array), computed together."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if self._slot is None or self._value is None:
            first = 0.3 if self._dark else 0.0  # viridis' darkest end is skipped on dark
            at = first + (0.9 - first) * rows / max(self._n - 1, 1)
            return list(self._cmap.map(at, mode="qcolor")) if rows.size else []
        return [self._hsv(int(s), int(v))
                for s, v in zip(self._slot[rows].tolist(), self._value[rows].tolist(),
                                strict=True)]

    def _hsv(self, slot: int, value: int) -> QColor:
        color = self._table.get((slot, value))
        if color is None:
            hue = CELL_HUES[slot]
            color = self._table[(slot, value)] = QColor.fromHsv(hue, 200 if hue != 240 else 90,
                                                                value)
        return QColor(color)
