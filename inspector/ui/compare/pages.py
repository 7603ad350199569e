"""The plot pages of a Compare tab's detail: an array's line in both documents overlaid
above their difference (:class:`CurvesPage`), and a 2-D array or stimulus image in both
side by side on one colour scale above their difference on a diverging scale centred
on 0 (:class:`ImagesPage`).

Each is made over event-loop turns (:func:`curves_page_in_steps`,
:func:`images_page_in_steps`, driven by :func:`~inspector.ui.turns.run_in_turns`):
made at once, the two pages' five plots and two colour bars took 110-190 ms of the
GUI thread (``benchmarks/gui_latency.py --scenarios compare_recordings_1gb``); a plot
is 4-8 ms a turn (:func:`~inspector.ui.plots.base.plot_item_in_steps`), a colour bar
about 15 ms.  Closed half-way, a build deletes what it made.
"""

from __future__ import annotations

from collections.abc import Generator

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from inspector.ui.colormaps import colormap
from inspector.ui.compare.session import Curves, Images
from inspector.ui.plots.base import plot_item_in_steps

#: Colours of A, B and their difference (readable on light and dark backgrounds).
COLOR_A = QColor(31, 119, 180)
COLOR_B = QColor(255, 127, 14)
COLOR_DIFF = QColor(214, 39, 40)
#: Width of the y axes, in pixels.
AXIS_WIDTH = 64
#: Colour maps of A and B (shared) and of their difference (diverging, white at 0).
IMAGE_MAP = "viridis"
DIFF_MAP = "CET-D1"
#: The image plots: key, title, row and column.
IMAGE_PLOTS = (("a", "A", 0, 0), ("b", "B", 0, 1), ("diff", "A − B", 1, 0))


def _xy(env: object) -> tuple[np.ndarray, np.ndarray]:
    """A drawable line of an envelope: raw samples, or the min/max zig-zag."""
    x, lo, hi = env.x, env.lo, env.hi  # type: ignore[attr-defined]
    if env.raw:  # type: ignore[attr-defined]
        return x, lo
    return np.repeat(env.centers(), 2), np.column_stack([lo, hi]).reshape(-1)  # type: ignore[attr-defined]


def _page(plots: pg.GraphicsLayoutWidget, title: QLabel) -> QVBoxLayout:
    box = QVBoxLayout()
    box.setContentsMargins(0, 0, 0, 0)
    box.addWidget(title)
    box.addWidget(plots, 1)
    return box


def _discard(widget: QWidget) -> None:
    """Delete a page's graphics view and the items in its scene (a build closed)."""
    widget.deleteLater()


class CurvesPage(QWidget):
    """A line of an array in A and B overlaid (``overlay``), and A − B (``difference``).

    Made by :func:`curves_page_in_steps` from its plots made ahead.
    """

    def __init__(self, plots: pg.GraphicsLayoutWidget, overlay: pg.PlotItem,
                 difference: pg.PlotItem) -> None:
        super().__init__()
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.plots, self.overlay, self.difference = plots, overlay, difference
        self.setLayout(_page(plots, self.title))
        difference.setXLink(overlay)
        for plot in (overlay, difference):
            # at most about two points per pixel column, each column's extremes kept
            # ("peak"): 4 096 samples drawn in full, A's with a 3-pixel pen, took 80-100 ms
            # of the GUI thread for one paint
            plot.setDownsampling(auto=True, mode="peak")
            plot.setClipToView(True)
            plot.getAxis("left").setWidth(AXIS_WIDTH)  # both plots' x axes aligned
            plot.showGrid(x=True, y=True, alpha=0.2)
        overlay.addLegend(offset=(-10, 10))
        difference.setLabel("left", "A − B")

    def draw(self, c: Curves) -> None:
        """Both documents' line and their difference around the first difference."""
        self._style()
        self.overlay.clear()
        self.difference.clear()
        xa, ya = _xy(c.a)
        xb, yb = _xy(c.b)
        # one-pixel pens: a wider or translucent pen costs the GUI thread ten times as much
        # to stroke (over 100 ms per paint of a 1 GB pair's curves)
        self.overlay.plot(xa, ya, pen=pg.mkPen(COLOR_A, width=1), name="A")  # A under B
        self.overlay.plot(xb, yb, pen=pg.mkPen(COLOR_B, width=1), name="B")
        self.difference.plot(c.x, c.diff, pen=pg.mkPen(COLOR_DIFF, width=1))
        where = ", ".join(c.unit if i is None else str(i) for i in c.index)
        self.title.setText(f"{c.name}[{where}]: A and B around the first difference "
                           f"({c.unit} {int(c.x[0])}–{int(c.x[-1])})")

    def _style(self) -> None:
        pal = self.palette()
        self.plots.setBackground(pal.color(QPalette.ColorRole.Base))
        text = pal.color(QPalette.ColorRole.Text)
        for plot in (self.overlay, self.difference):
            for ax in ("left", "bottom"):
                plot.getAxis(ax).setPen(pg.mkPen(text))
                plot.getAxis(ax).setTextPen(pg.mkPen(text))
        legend = self.overlay.legend  # (pyqtgraph's grey labels: faint on a light base)
        box = pal.color(QPalette.ColorRole.Base)
        box.setAlpha(200)
        legend.setBrush(pg.mkBrush(box))
        legend.setPen(pg.mkPen(pal.color(QPalette.ColorRole.Mid)))
        legend.setLabelTextColor(text)


def curves_page_in_steps() -> Generator[None, None, CurvesPage]:
    """A :class:`CurvesPage` made over event-loop turns (each step yields None; the
    steps end with the page).  Closed half-way, what was made is deleted."""
    plots = pg.GraphicsLayoutWidget()
    try:
        made = []
        for row in range(2):
            yield None
            item = yield from plot_item_in_steps()
            plots.addItem(item, row=row, col=0)  # (the scene owns it)
            made.append(item)
        yield None
    except GeneratorExit:
        _discard(plots)
        raise
    return CurvesPage(plots, made[0], made[1])


class ImagesPage(QWidget):
    """A and B side by side (``items["a"]``, ``items["b"]``: one colour scale,
    ``scale_bar``) above A − B (``items["diff"]``: a scale centred on 0, ``diff_bar``).

    Made by :func:`images_page_in_steps` from its plots and colour bars made ahead.
    """

    def __init__(self, plots: pg.GraphicsLayoutWidget, views: dict[str, pg.PlotItem],
                 bars: tuple[pg.ColorBarItem, pg.ColorBarItem]) -> None:
        super().__init__()
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.plots, self.views = plots, views
        self.setLayout(_page(plots, self.title))
        self.items: dict[str, pg.ImageItem] = {}
        for key, plot in views.items():
            plot.vb.invertY(True)
            self.items[key] = pg.ImageItem(axisOrder="row-major")
            plot.addItem(self.items[key])
            if key != "a":
                plot.setXLink(views["a"])
                plot.setYLink(views["a"])
        self.scale_bar, self.diff_bar = bars
        self.scale_bar.setImageItem([self.items["a"], self.items["b"]])
        self.diff_bar.setImageItem(self.items["diff"])

    def draw(self, im: Images) -> None:
        """A and B side by side on one colour scale, and A − B on a scale centred on 0."""
        self._style()
        lo, hi = im.levels
        limit = im.limit if im.limit > 0 else 1.0
        colour = im.a.ndim == 3
        for key, values in (("a", im.a), ("b", im.b)):
            self.items[key].setImage(values, levels=(lo, hi), autoLevels=False)
        self.items["diff"].setImage(im.diff, levels=(-limit, limit), autoLevels=False)
        self.scale_bar.setLevels((lo, hi))
        self.scale_bar.setVisible(not colour)  # a colour image has no colour map
        self.diff_bar.setLevels((-limit, limit))
        rows, cols = im.diff.shape
        for key, item in self.items.items():  # data coordinates: element indices
            item.setRect(0, 0, cols * im.step[1], rows * im.step[0])
            self.views[key].vb.setAspectLocked(im.picture)  # square pixels
            self.views[key].vb.autoRange(padding=0)
        every = (f"; one sample every {im.step[0]} rows and {im.step[1]} columns"
                 if im.step != (1, 1) else "")
        self.title.setText(f"{im.name}: A and B (range {lo:.4g} … {hi:.4g}), "
                           f"A − B (largest |A − B| {im.limit:.4g}){every}")


    def _style(self) -> None:
        pal = self.palette()
        self.plots.setBackground(pal.color(QPalette.ColorRole.Base))
        text = pal.color(QPalette.ColorRole.Text)
        for plot in self.views.values():
            plot.setTitle(plot.titleLabel.text, color=text)
            for ax in ("left", "bottom"):
                plot.getAxis(ax).setPen(pg.mkPen(text))
                plot.getAxis(ax).setTextPen(pg.mkPen(text))
        for bar in (self.scale_bar, self.diff_bar):  # (its scale on the right)
            bar.getAxis("right").setTextPen(pg.mkPen(text))


def images_page_in_steps() -> Generator[None, None, ImagesPage]:
    """An :class:`ImagesPage` made over event-loop turns (each step yields None; the
    steps end with the page).  Closed half-way, what was made is deleted."""
    plots = pg.GraphicsLayoutWidget()
    try:
        views: dict[str, pg.PlotItem] = {}
        for key, title, row, col in IMAGE_PLOTS:
            yield None
            views[key] = yield from plot_item_in_steps()
            views[key].setTitle(title)
            plots.addItem(views[key], row=row, col=col)
        bars = []
        for row, (values, name) in enumerate((((0, 1), IMAGE_MAP), ((-1, 1), DIFF_MAP))):
            yield None
            bars.append(pg.ColorBarItem(values=values, colorMap=colormap(name),
                                        interactive=False, width=14))
            plots.addItem(bars[-1], row=row, col=2)
        yield None
    except GeneratorExit:
        _discard(plots)
        raise
    return ImagesPage(plots, views, (bars[0], bars[1]))
