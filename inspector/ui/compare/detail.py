"""What a selected difference of a Compare tab shows: an array's line in both
documents overlaid with their difference, a table row in both with the changed
cells marked, or the two values."""

from __future__ import annotations

import json

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.compare.model import Difference
from inspector.ui.compare.session import Curves, Rows

#: Colours of A, B and their difference (readable on light and dark backgrounds).
COLOR_A = QColor(31, 119, 180)
COLOR_B = QColor(255, 127, 14)
COLOR_DIFF = QColor(214, 39, 40)
#: Width of the y axes, in pixels.
AXIS_WIDTH = 64


def _xy(env: object) -> tuple[np.ndarray, np.ndarray]:
    """A drawable line of an envelope: raw samples, or the min/max zig-zag."""
    x, lo, hi = env.x, env.lo, env.hi  # type: ignore[attr-defined]
    if env.raw:  # type: ignore[attr-defined]
        return x, lo
    return np.repeat(env.centers(), 2), np.column_stack([lo, hi]).reshape(-1)  # type: ignore[attr-defined]


class DetailPane(QStackedWidget):
    """Pages: text, curves, rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setPlaceholderText("Select a difference to see it here.")
        self.addWidget(self.text)
        self.curves_page = QWidget()
        box = QVBoxLayout(self.curves_page)
        box.setContentsMargins(0, 0, 0, 0)
        self.curves_title = QLabel()
        box.addWidget(self.curves_title)
        self.plots = pg.GraphicsLayoutWidget()
        box.addWidget(self.plots, 1)
        self.overlay = self.plots.addPlot(row=0, col=0)
        self.difference = self.plots.addPlot(row=1, col=0)
        self.difference.setXLink(self.overlay)
        for plot in (self.overlay, self.difference):
            # at most about two points per pixel column, each column's extremes kept
            # ("peak"): 4 096 samples drawn in full, A's with a 3-pixel pen, took 80-100 ms
            # of the GUI thread for one paint
            plot.setDownsampling(auto=True, mode="peak")
            plot.setClipToView(True)
        self.overlay.addLegend(offset=(-10, 10))
        self.difference.setLabel("left", "A − B")
        self.addWidget(self.curves_page)
        self.rows_page = QWidget()
        rbox = QVBoxLayout(self.rows_page)
        rbox.setContentsMargins(0, 0, 0, 0)
        self.rows_title = QLabel()
        rbox.addWidget(self.rows_title)
        self.rows = QTableWidget()
        rbox.addWidget(self.rows, 1)
        self.addWidget(self.rows_page)

    def show_text(self, d: Difference | None, extra: str = "") -> None:
        """The difference's values and facts as text."""
        if d is None:
            self.text.setPlainText(extra)
        else:
            body = {k: v for k, v in d.to_json().items() if v not in (None, {}, "")}
            self.text.setPlainText(json.dumps(body, indent=2, ensure_ascii=False, default=str)
                                   + (f"\n\n{extra}" if extra else ""))
        self.setCurrentWidget(self.text)

    def show_curves(self, c: Curves) -> None:
        """Both documents' line and their difference around the first difference."""
        self._style_plots()
        self.overlay.clear()
        self.difference.clear()
        xa, ya = _xy(c.a)
        xb, yb = _xy(c.b)
        under = QColor(COLOR_A)
        under.setAlpha(150)
        self.overlay.plot(xa, ya, pen=pg.mkPen(under, width=3), name="A")  # A under B
        self.overlay.plot(xb, yb, pen=pg.mkPen(COLOR_B, width=1), name="B")
        self.difference.plot(c.x, c.diff, pen=pg.mkPen(COLOR_DIFF, width=1))
        where = ", ".join("samples" if i is None else str(i) for i in c.index)
        self.curves_title.setText(f"{c.name}[{where}]: A and B around the first difference "
                                  f"(samples {int(c.x[0])}–{int(c.x[-1])})")
        self.setCurrentWidget(self.curves_page)

    def _style_plots(self) -> None:
        pal = self.palette()
        self.plots.setBackground(pal.color(QPalette.ColorRole.Base))
        text = pal.color(QPalette.ColorRole.Text)
        for plot in (self.overlay, self.difference):
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.getAxis("left").setWidth(AXIS_WIDTH)  # both plots' x axes aligned
            for ax in ("left", "bottom"):
                plot.getAxis(ax).setPen(pg.mkPen(text))
                plot.getAxis(ax).setTextPen(pg.mkPen(text))

    def show_rows(self, r: Rows) -> None:
        """The table row in A and in B, changed cells marked."""
        self.rows.clear()
        self.rows.setRowCount(2)
        self.rows.setColumnCount(len(r.labels))
        self.rows.setHorizontalHeaderLabels(r.labels)
        self.rows.setVerticalHeaderLabels(["A", "B"])
        mark = QColor(COLOR_DIFF)
        mark.setAlpha(70)
        for col, label in enumerate(r.labels):
            for row, values in enumerate((r.a, r.b)):
                item = QTableWidgetItem(str(values[col]))
                if label in r.changed:
                    item.setBackground(mark)
                    item.setToolTip("differs")
                self.rows.setItem(row, col, item)
        self.rows.resizeColumnsToContents()
        self.rows_title.setText(f"{r.table}: the row in A and in B "
                                f"({len(r.changed)} cell(s) differ)")
        self.setCurrentWidget(self.rows_page)
