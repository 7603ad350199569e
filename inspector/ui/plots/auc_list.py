"""The scan list of an AUC plot (its legend) and what it changes on the plot.

:class:`AucScanList` is the second layer of :class:`~inspector.ui.plots.auc.AucView`:
the list beside the plot (hide a scan, highlight selected scans), clicks on a
curve, and the untrusted-data note wrapped to the plot's width.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from inspector.formats.analysis.arrays import ArrayRef
from inspector.ui.plots.auc_drawing import AucDrawing
from inspector.ui.plots.auc_scans import distance, pens, untrusted_note
from inspector.ui.plots.scan_list import ScanList

#: Warning colour of the untrusted-data note (readable on light and dark bases).
NOTE_COLOR = "#e8590c"
#: A click this close to a curve (pixels) selects its scan.
CLICK_PIXELS = 6
#: Widest the scan list is made at first (pixels; its splitter handle widens it).
LIST_MAX_PX = 200


class AucScanList(AucDrawing):
    """The scan list, clicks on curves and the untrusted-data note of an AUC plot."""

    note: str
    _arrays: Mapping[str, ArrayRef]

    def request(self, *args: Any) -> None:
        """Ask for the lines of the current view (:meth:`AucView.request`)."""
        raise NotImplementedError

    def _build_list(self) -> None:
        # a view over the scans' IDs and colours: built in constant time (scan_list.py)
        self.scan_list = ScanList(self.scan_ids, self.colors)
        self.scan_list.setToolTip("The legend: uncheck a scan to hide it, select scans (or click "
                                  "a curve) to highlight them")
        self.scan_list.itemChanged.connect(self._visibility)
        self.scan_list.itemSelectionChanged.connect(self._highlight)
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(QLabel(f"Scans ({len(self.scan_ids):,})"))
        sl.addWidget(self.scan_list, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        outer = self.layout()
        assert outer is not None  # PlotView lays itself out
        outer.replaceWidget(self._stack, split)
        split.addWidget(side)
        split.addWidget(self._stack)
        split.setCollapsible(1, False)  # the list folds away, the plot never does
        split.setStretchFactor(1, 1)
        split.setSizes([min(max(self.scan_list.width_hint(), 90), LIST_MAX_PX), 600])
        self.splitter = split

    # -- list ------------------------------------------------------------------------
    def set_untrusted(self, names: Iterable[str]) -> None:
        """Say on the plot which arrays failed their checksum (none: no note); reads nothing.

        For a verification that ends after the plot is shown (its new
        ``AucScans.untrusted_arrays``).
        """
        auc = replace(self.auc, untrusted_arrays=frozenset(names))
        self.auc = auc
        self.note = untrusted_note(auc, self._arrays)
        self.plot_item.setTitle(f"⚠ {self.note}" if self.note else None, color=NOTE_COLOR,
                                size="9pt")
        self._wrap_title(self.plot_widget.width())

    def set_visible(self, i: int, visible: bool) -> None:
        """Show or hide scan ``i`` (also its check box)."""
        state = Qt.CheckState.Checked if visible else Qt.CheckState.Unchecked
        self.scan_list.item(i).setCheckState(state)

    def highlight(self, i: int | None) -> None:
        """Highlight scan ``i`` (others dimmed); None restores all."""
        if i is None:
            self.scan_list.clearSelection()
        else:
            self.scan_list.setCurrentRow(i)

    def selected_scans(self) -> list[int]:
        """The selected (highlighted) scans, in scan order."""
        return sorted(self._selected())

    def select_scans(self, scans: set[int] | list[int]) -> None:
        """Select exactly ``scans`` (indices; others ignored) in the list: highlights them."""
        wanted = {i for i in scans if 0 <= i < self.scan_list.count()}
        if wanted == self._selected():
            return
        self.scan_list.select_rows(wanted)  # one selection change

    def scan_at(self, x: float, y: float, pixels: float = CLICK_PIXELS) -> int | None:
        """The visible scan whose drawn line passes within ``pixels`` of view point ``(x, y)``."""
        vb = self.plot_item.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        sx = vb.width() / max(x1 - x0, 1e-300)
        sy = vb.height() / max(y1 - y0, 1e-300)
        best, best_d = None, float(pixels)
        for i, (cx, cy) in zip(self._rows.tolist(), self._curves, strict=True):
            if not self._shown[i] or len(cx) == 0:
                continue
            d = distance((np.asarray(cx) - x) * sx, (np.asarray(cy) - y) * sy)
            if d <= best_d:
                best, best_d = i, d
        return best

    def _clicked(self, event: Any) -> None:
        """A left click on a curve selects its scan (Ctrl adds it); elsewhere clears."""
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        vb = self.plot_item.vb
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        point = vb.mapSceneToView(event.scenePos())
        i = self.scan_at(point.x(), point.y())
        adding = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        chosen = self._selected() if adding else set()
        if i is not None:
            chosen ^= {i}
        self.select_scans(chosen)

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt override
        if obj is self.plot_widget and event.type() == QEvent.Type.Resize:
            self._wrap_title(event.size().width())
        return super().eventFilter(obj, event)

    def _wrap_title(self, width: int) -> None:
        """Wrap the untrusted-data note to the plot's width (it never widens the plot)."""
        if not self.note:
            return
        label = self.plot_item.titleLabel
        axis = self.plot_item.getAxis("left")
        label.item.setTextWidth(max(80.0, width - axis.width() - 24.0))
        label.updateMin()

    def palette_changed(self) -> None:
        """The theme changed: scan colours for the new background (list swatches too)."""
        if not hasattr(self, "_guard"):  # a palette event while the view is being built
            return
        self.colors = self._palette_colors(self.shape.scans)
        self.scan_list.model_.set_colors(self.colors)
        self._plain, self._wide_pens = pens(self.colors.take(self._rows), 1), None
        self.lines.set_pens(self._plain)
        self.highlights.set_pens(self._highlight_pens(self._selected()))
        if self._symbol_points:
            self._draw_symbols()

    def _visibility(self, item: Any) -> None:
        i = self.scan_list.row(item)
        self._shown[i] = item.checkState() == Qt.CheckState.Checked
        self._show_lines()
        if self._symbol_points:
            self._draw_symbols()
        self._update_bounds()

    def _highlight(self) -> None:
        sel = self._selected()
        if not np.array_equal(self.wanted_rows(sel), self._rows):
            self.request()  # a selected scan not drawn yet: its line is read
        self.highlights.set_pens(self._highlight_pens(sel))
        self._show_lines()
        if self._symbol_points:
            self._draw_symbols()
