"""AUC scans: signal against radius, one curve per scan, coloured by scan order.

Only real observations are drawn (mask true, finite radius and signal); lines
join neighbouring real points only, masked positions are NaN breaks
(``connect="finite"``), nothing is interpolated.  A list beside the plot hides
(uncheck) or highlights (select) scans.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon, QPalette, QPixmap
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QSplitter, QWidget

from inspector.ui.plots.base import PlotView


def scan_curves(radius: np.ndarray, signal: np.ndarray, mask: np.ndarray | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per scan ``(x, y)`` float64 with NaN at every masked or non-finite point.

    Args:
        radius: ``(points,)`` shared or ``(scans, points)`` per-scan radius.
        signal: ``(scans, points)``.
        mask: bool ``(scans, points)`` (True = real observation) or None.

    Raises:
        ValueError: the shapes do not fit together (a damaged archive); the
            plot then shows why instead of guessing.
    """
    signal = np.asarray(signal, dtype=np.float64)
    if signal.ndim == 1:
        signal = signal[None, :]
    radius = np.asarray(radius, dtype=np.float64)
    if signal.ndim != 2:
        raise ValueError(f"signal must be 2-D (scans, points), got shape {signal.shape}")
    if radius.shape not in ((signal.shape[1],), signal.shape):
        raise ValueError(f"radius shape {radius.shape} fits neither ({signal.shape[1]},) "
                         f"nor the signal shape {signal.shape}")
    m = np.ones(signal.shape, bool) if mask is None else np.asarray(mask, dtype=bool)
    if m.shape != signal.shape:
        raise ValueError(f"mask shape {m.shape} differs from the signal shape {signal.shape}")
    out = []
    for i in range(signal.shape[0]):
        r = radius if radius.ndim == 1 else radius[i]
        keep = m[i] & np.isfinite(r) & np.isfinite(signal[i])
        if not keep.any():  # a scan with no real point draws nothing (and no all-NaN curve)
            out.append((np.empty(0), np.empty(0)))
            continue
        out.append((np.where(keep, r, np.nan), np.where(keep, signal[i], np.nan)))
    return out


class AucView(PlotView):
    """Every scan of an AUC experiment overlaid (signal vs radius).

    Args:
        radius, signal, mask: as :func:`scan_curves`.
        scan_ids: names for the legend and the list.
        radius_unit, signal_unit: axis units.
    """

    def __init__(self, radius: np.ndarray, signal: np.ndarray, mask: np.ndarray | None,
                 scan_ids: list[str], radius_unit: str = "cm", signal_unit: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.x_label = radius_unit or "radius"
        self.y_label = signal_unit or "signal"
        self.plot_item.setLabel("bottom", "radius", units=None)
        self.plot_item.setLabel("bottom", f"radius ({radius_unit})" if radius_unit else "radius")
        self.plot_item.setLabel("left", f"signal ({signal_unit})" if signal_unit else "signal")
        for ax in ("left", "bottom"):
            self.plot_item.getAxis(ax).enableAutoSIPrefix(False)  # units are given, never rescaled
        data = scan_curves(radius, signal, mask)
        self.scan_ids = [str(s) for s in scan_ids][: len(data)]
        self.scan_ids += [f"scan {i + 1}" for i in range(len(self.scan_ids), len(data))]
        cmap = pg.colormap.get("viridis")
        n = len(data)
        # viridis runs from dark purple to yellow: on a dark background skip its darkest end
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        first = 0.3 if dark else 0.0
        self.colors = [cmap.map(first + (0.9 - first) * i / max(n - 1, 1), mode="qcolor")
                       for i in range(n)]
        legend = self.add_legend(offset=(-10, -40))  # bottom right: profiles rise to the right
        self.items: list[pg.PlotDataItem] = []
        for i, (x, y) in enumerate(data):
            item = pg.PlotDataItem(x, y, connect="finite", name=self.scan_ids[i],
                                   pen=pg.mkPen(self.colors[i], width=1.5),
                                   symbol="o", symbolSize=4, symbolPen=None,
                                   symbolBrush=pg.mkBrush(self.colors[i]))
            self.plot_item.addItem(item)
            self.items.append(item)
        if n > 8:  # a legend of every scan would hide the data: name the first and the last only
            for item in self.items[1:-1]:
                legend.removeItem(item)
        self.scan_list = QListWidget()
        for i, sid in enumerate(self.scan_ids):
            it = QListWidgetItem(sid)
            it.setFlags(it.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            it.setCheckState(Qt.CheckState.Checked)
            swatch = QPixmap(12, 12)
            swatch.fill(self.colors[i])
            it.setIcon(QIcon(swatch))  # the colour as a swatch: text stays readable
            self.scan_list.addItem(it)
        self.scan_list.itemChanged.connect(self._visibility)
        self.scan_list.itemSelectionChanged.connect(self._highlight)
        lay = self.layout()
        split = QSplitter(Qt.Orientation.Horizontal)
        lay.replaceWidget(self._stack, split)
        split.addWidget(self.scan_list)
        split.addWidget(self._stack)
        split.setStretchFactor(1, 1)
        split.setSizes([130, 600])
        if n == 0:
            self.show_placeholder("No scans to plot.")
        real = int(sum(np.isfinite(y).sum() for _, y in data))
        self.status.setText(f"{n} scans, {real} real points")

    def set_visible(self, i: int, visible: bool) -> None:
        """Show or hide scan ``i`` (also its check box)."""
        self.scan_list.item(i).setCheckState(Qt.CheckState.Checked if visible else Qt.CheckState.Unchecked)

    def highlight(self, i: int | None) -> None:
        """Highlight scan ``i`` (others dimmed); None restores all."""
        if i is None:
            self.scan_list.clearSelection()
        else:
            self.scan_list.setCurrentRow(i)

    def _visibility(self, item: Any) -> None:
        i = self.scan_list.row(item)
        self.items[i].setVisible(item.checkState() == Qt.CheckState.Checked)

    def _highlight(self) -> None:
        sel = {self.scan_list.row(it) for it in self.scan_list.selectedItems()}
        for i, item in enumerate(self.items):
            c = pg.mkColor(self.colors[i])
            if sel and i not in sel:
                c.setAlpha(50)
                item.setPen(pg.mkPen(c, width=1))
                item.setSymbolBrush(pg.mkBrush(c))
                item.setZValue(0)
            else:
                item.setPen(pg.mkPen(c, width=3 if sel else 1.5))
                item.setSymbolBrush(pg.mkBrush(c))
                item.setZValue(10 if sel else 0)
