"""What a selected difference of a Compare tab shows: an array's line in both
documents overlaid with their difference, a 2-D array or stimulus image in both side
by side (one shared colour scale) above their difference (a diverging scale centred
on 0), a table row in both with the changed cells marked, or the two values."""

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
from inspector.ui.colormaps import colormap
from inspector.ui.compare.session import Curves, Images, Rows

#: Colours of A, B and their difference (readable on light and dark backgrounds).
COLOR_A = QColor(31, 119, 180)
COLOR_B = QColor(255, 127, 14)
COLOR_DIFF = QColor(214, 39, 40)
#: Width of the y axes, in pixels.
AXIS_WIDTH = 64
#: Colour maps of A and B (shared) and of their difference (diverging, white at 0).
IMAGE_MAP = "viridis"
DIFF_MAP = "CET-D1"


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
        self._build_images_page()

    def _build_images_page(self) -> None:
        self.images_page = QWidget()
        box = QVBoxLayout(self.images_page)
        box.setContentsMargins(0, 0, 0, 0)
        self.images_title = QLabel()
        self.images_title.setWordWrap(True)
        box.addWidget(self.images_title)
        self.image_plots = pg.GraphicsLayoutWidget()
        box.addWidget(self.image_plots, 1)
        self.image_items: dict[str, pg.ImageItem] = {}
        self.image_views: dict[str, pg.PlotItem] = {}
        for key, title, row, col in (("a", "A", 0, 0), ("b", "B", 0, 1),
                                     ("diff", "A − B", 1, 0)):
            plot = self.image_plots.addPlot(row=row, col=col, title=title)
            plot.vb.invertY(True)
            item = pg.ImageItem(axisOrder="row-major")
            plot.addItem(item)
            self.image_items[key], self.image_views[key] = item, plot
        self.image_views["b"].setXLink(self.image_views["a"])
        self.image_views["b"].setYLink(self.image_views["a"])
        self.image_views["diff"].setXLink(self.image_views["a"])
        self.image_views["diff"].setYLink(self.image_views["a"])
        self.scale_bar = pg.ColorBarItem(values=(0, 1), colorMap=colormap(IMAGE_MAP),
                                         interactive=False, width=14)
        self.scale_bar.setImageItem([self.image_items["a"], self.image_items["b"]])
        self.image_plots.addItem(self.scale_bar, row=0, col=2)
        self.diff_bar = pg.ColorBarItem(values=(-1, 1), colorMap=colormap(DIFF_MAP),
                                        interactive=False, width=14)
        self.diff_bar.setImageItem(self.image_items["diff"])
        self.image_plots.addItem(self.diff_bar, row=1, col=2)
        self.addWidget(self.images_page)

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
        # one-pixel pens: a wider or translucent pen costs the GUI thread ten times as much
        # to stroke (over 100 ms per paint of a 1 GB pair's curves)
        self.overlay.plot(xa, ya, pen=pg.mkPen(COLOR_A, width=1), name="A")  # A under B
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

    def show_images(self, im: Images) -> None:
        """A and B side by side on one colour scale, and A − B on a scale centred on 0."""
        self.image_plots.setBackground(self.palette().color(QPalette.ColorRole.Base))
        lo, hi = im.levels
        limit = im.limit if im.limit > 0 else 1.0
        colour = im.a.ndim == 3
        for key, values in (("a", im.a), ("b", im.b)):
            self.image_items[key].setImage(values, levels=(lo, hi), autoLevels=False)
        self.image_items["diff"].setImage(im.diff, levels=(-limit, limit), autoLevels=False)
        self.scale_bar.setLevels((lo, hi))
        self.scale_bar.setVisible(not colour)  # a colour image has no colour map
        self.diff_bar.setLevels((-limit, limit))
        rows, cols = im.diff.shape
        for key, item in self.image_items.items():  # data coordinates: element indices
            item.setRect(0, 0, cols * im.step[1], rows * im.step[0])
            self.image_views[key].vb.setAspectLocked(im.picture)  # square pixels
            self.image_views[key].vb.autoRange(padding=0)
        every = (f"; one sample every {im.step[0]} rows and {im.step[1]} columns"
                 if im.step != (1, 1) else "")
        self.images_title.setText(f"{im.name}: A and B (range {lo:.4g} … {hi:.4g}), "
                                  f"A − B (largest |A − B| {im.limit:.4g}){every}")
        self.setCurrentWidget(self.images_page)
