"""Navigation helpers for time plots: wheel zoom on time, Reset view, marker legend and tips.

* :func:`install_time_wheel`: the mouse wheel over the plot zooms the time
  axis only; with a modifier (Ctrl by default) it zooms the amplitude axis
  only.  Over an axis, the wheel keeps pyqtgraph's behaviour (that axis).
* :func:`add_reset_action`: a "Reset view" action at the top of the plot's
  context menu (and on ``Ctrl+0`` while the plot has focus).
* :func:`add_marker_legend`: one legend entry per marker kind, drawn in the
  marker's own pen, without adding anything to the plot.
* :class:`MarkerTips` with :func:`nearest_marker`: a tooltip naming the
  marker under the mouse (kind, trial, time).
* :func:`legend_below` and :func:`show_legend_row`: a legend in a row of its
  own under the time axis, outside the data area, so that it never covers a
  curve (and is part of PNG and SVG exports).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QRectF, Qt, QTimer
from PySide6.QtGui import QAction, QCursor, QHelpEvent, QKeySequence, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from inspector.ui.plots.plot_menu import VIEW_ALL

#: Modifier that turns the wheel from time zoom into amplitude zoom.
AMPLITUDE_MODIFIER = Qt.KeyboardModifier.ControlModifier
#: A marker is "under the mouse" within this many pixels.
TIP_PIXELS = 4
#: Row of the plot's layout under the bottom axis (pyqtgraph uses rows 0 to 3) holding the legend.
LEGEND_ROW = 5
#: Width of a legend entry's line sample and the space after the entry, in pixels.
LEGEND_SAMPLE_PX = 34
#: Room a legend column takes beside its widest entry: the legend's spacing between
#: columns (10 px) and its share of the legend's margins.
LEGEND_GAP_PX = 12


def install_time_wheel(vb: pg.ViewBox,
                       modifier: Qt.KeyboardModifier = AMPLITUDE_MODIFIER) -> None:
    """Make the wheel over ``vb`` zoom x (time) only, or y only with ``modifier``.

    Zooming is centred on the mouse, as pyqtgraph does; axes whose mouse
    interaction is disabled stay disabled.
    """
    base = type(vb).wheelEvent

    def wheel(self: pg.ViewBox, ev: Any, axis: int | None = None) -> None:
        if axis is not None:
            base(self, ev, axis)
            return
        amplitude = bool(ev.modifiers() & modifier)
        saved = list(self.state["mouseEnabled"])
        self.state["mouseEnabled"] = [saved[0] and not amplitude, saved[1] and amplitude]
        try:
            base(self, ev, axis)
        finally:
            self.state["mouseEnabled"] = saved

    vb.wheelEvent = types.MethodType(wheel, vb)


def add_reset_action(vb: pg.ViewBox, reset: Callable[[], None], widget: QWidget | None = None,
                     text: str = "Reset view") -> QAction:
    """Put ``text`` first in ``vb``'s context menu, in place of its "View all"; it calls
    ``reset`` (a menu has one entry that shows everything).

    With ``widget``, ``Ctrl+0`` triggers it while ``widget`` (or a child) has focus.
    """
    menu = vb.menu
    action = QAction(text, menu)
    action.setToolTip("Show the whole time range and fit the amplitude")
    action.triggered.connect(lambda _checked=False: reset())
    first = menu.actions()[0] if menu.actions() else None
    menu.insertAction(first, action)
    for old in menu.actions():
        if old.objectName() == VIEW_ALL:
            menu.removeAction(old)
    action.setObjectName(VIEW_ALL)
    if widget is not None:
        shortcut = QAction(text, widget)
        shortcut.setShortcut(QKeySequence("Ctrl+0"))
        shortcut.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.triggered.connect(lambda _checked=False: reset())
        widget.addAction(shortcut)
    return action


class LineKey:
    """What a legend entry draws for a line that is not a plot item of its own: the pen
    (``opts["pen"]``), as pyqtgraph's ``ItemSample`` reads it from a ``PlotDataItem``.

    A plain object, not a graphics item: a ``PlotDataItem`` made only for its legend entry
    was never in a scene, and graphics items Python owned outside any scene were still
    alive when the application was shut down, where PySide deleted them in no particular
    order with their child items (the exit crash in ``QGraphicsWidget::~QGraphicsWidget``
    under ``destroyQCoreApplication``).  A click on the entry shows or hides nothing here.
    """

    def __init__(self, pen: QPen) -> None:
        self.opts: dict[str, object] = {"pen": pen}

    def isVisible(self) -> bool:  # noqa: N802 - pyqtgraph's ItemSample calls it
        return True

    def setVisible(self, visible: bool) -> None:  # noqa: N802 - as above
        pass


def add_line_key(legend: pg.LegendItem, pen: QPen, label: str) -> LineKey:
    """Add an entry drawn as a line in ``pen`` to ``legend``; the :class:`LineKey`."""
    key = LineKey(pen)
    legend.addItem(key, label)
    return key


def add_marker_legend(legend: pg.LegendItem,
                      styles: Mapping[str, tuple[str, Qt.PenStyle, str]]) -> list[LineKey]:
    """Add one entry per marker kind to ``legend``: ``{name: (color, style, label)}``.

    The entries are :class:`LineKey` objects, never items of the plot (nothing is drawn
    or auto-ranged).
    """
    return [add_line_key(legend, pg.mkPen(color, width=1.5, style=style), label)
            for color, style, label in styles.values()]


def nearest_marker(markers: Mapping[str, np.ndarray], x: float,
                   tolerance: float) -> tuple[str, int, float] | None:
    """The marker nearest to ``x`` within ``tolerance``: ``(kind, index, position)``.

    ``markers[kind][i]`` is the position of the ``i``-th marker of that kind
    (e.g. the onset of trial ``i``); NaN positions are ignored.
    """
    best: tuple[str, int, float] | None = None
    gap = tolerance
    for kind, xs in markers.items():
        a = np.asarray(xs, dtype=np.float64)
        if not a.size:
            continue
        d = np.abs(a - x)
        d[np.isnan(d)] = np.inf
        i = int(np.argmin(d))
        if d[i] <= gap:
            best, gap = (kind, i, float(a[i])), float(d[i])
    return best


class MarkerTips(QObject):
    """Shows a tooltip naming the marker under the mouse of a plot.

    Args:
        widget: the ``pg.PlotWidget``.
        markers: called on each mouse move; returns ``{kind: positions}`` in
            view x units (only the markers currently drawn).
        describe: ``(kind, index, position) -> text``.
    """

    def __init__(self, widget: pg.PlotWidget,
                 markers: Callable[[], Mapping[str, np.ndarray]],
                 describe: Callable[[str, int, float], str]) -> None:
        super().__init__(widget)
        self.widget = widget
        self.markers = markers
        self.describe = describe
        self.text = ""
        widget.scene().sigMouseMoved.connect(self.moved)
        widget.viewport().installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Answer the viewport's tooltip event with the marker's text: the graphics scene
        answers it with the tooltip of the item under the mouse, and hid the marker's
        (shown on mouse moves) once the mouse rested, when no item has one."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            scene_pos = self.widget.mapToScene(event.pos())
            self.moved(scene_pos)
            return bool(self.text)
        return False

    def text_at(self, x: float) -> str:
        """The tooltip for view x ``x`` ("" when no marker is that close)."""
        vb = self.widget.getPlotItem().vb
        px = vb.viewPixelSize()[0]
        hit = nearest_marker(self.markers(), x, (TIP_PIXELS + 0.5) * px)  # (whole pixels)
        return self.describe(*hit) if hit is not None else ""

    def moved(self, scene_pos: Any) -> None:
        vb = self.widget.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            self.text = ""
        else:
            self.text = self.text_at(vb.mapSceneToView(scene_pos).x())
        if self.text:
            QToolTip.showText(QCursor.pos(), self.text, self.widget.viewport())
        else:
            QToolTip.hideText()


def legend_below(plot_item: pg.PlotItem, text_color: Any) -> pg.LegendItem:
    """A legend in a row of ``plot_item``'s layout under the time axis, as ``plot_item.legend``.

    Its entries are laid out in as many columns as the data area's width
    allows (:func:`fit_legend_columns`, again on each resize).  Named items
    added to the plot afterwards are added to it by pyqtgraph: callers add
    unnamed items, fill the legend themselves and then call
    :func:`fit_legend_columns`.
    """
    legend = pg.LegendItem(labelTextColor=text_color, frame=False, labelTextSize="8pt",
                           horSpacing=10, verSpacing=-6)
    plot_item.layout.addItem(legend, LEGEND_ROW, 1)
    plot_item.legend = legend
    plot_item.vb.sigResized.connect(lambda *_args: fit_legend_columns(plot_item, legend))
    view = plot_item.getViewWidget()
    if view is not None:  # a widget narrower than the legend leaves the view box as it was
        view.sigDeviceRangeChanged.connect(
            lambda *_args: fit_legend_columns(plot_item, legend))
    return legend


def data_room(plot_item: pg.PlotItem) -> float:
    """Width (pixels) the data area has: the view box's, or less when the widget showing
    the plot is narrower than the plot item (whose legend row then asks for more width
    than there is, and clips the plot)."""
    room = float(plot_item.vb.width())
    view = plot_item.getViewWidget()
    if view is not None and view.width() > 0:
        room = min(room, view.width() - (plot_item.width() - plot_item.vb.width()))
    return max(room, 0.0)


def fit_legend_columns(plot_item: pg.PlotItem, legend: pg.LegendItem) -> int:
    """Lay ``legend``'s entries out in as many columns as fit the data area's width
    (entries fill rows left to right; each column is as wide as its widest entry);
    returns the number of columns."""
    widths = [label.item.boundingRect().width() + LEGEND_SAMPLE_PX
              for _sample, label in legend.items]
    room = data_room(plot_item)
    columns = 1
    for n in range(len(widths), 1, -1):
        if sum(max(widths[c::n]) + LEGEND_GAP_PX for c in range(n)) <= room:
            columns = n
            break
    changed = legend.columnCount != columns
    if changed:
        legend.setColumnCount(columns)
    view = plot_item.getViewWidget()
    if view is not None and (changed or _clipped(plot_item, view)):
        # lay the plot out again in the widget's width, on the next turn (the legend's
        # new size is known then)
        QTimer.singleShot(0, view, lambda: _fill_widget(view, legend))
    return columns


def _clipped(plot_item: pg.PlotItem, view: Any) -> bool:
    """True when ``plot_item`` is wider than its widget though it could be as narrow."""
    least = plot_item.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
    return plot_item.width() > view.width() + 0.5 and least <= view.width()


def _fill_widget(view: Any, legend: pg.LegendItem) -> None:
    """Give ``view``'s plot the widget's size again (pyqtgraph sets it only on a resize of
    the widget: a plot item held wider by its legend stayed wider, clipped)."""
    legend.layout.activate()  # the sizes of the legend's new columns, then the plot's
    item = view.centralWidget
    if item is not None:
        item.layout.invalidate()
        item.layout.activate()
    pg.GraphicsView.setRange(view, QRectF(0, 0, view.width(), view.height()), padding=0,
                             disableAutoPixel=False)  # (PlotWidget.setRange is the plot's)


def show_legend_row(plot_item: pg.PlotItem, legend: pg.LegendItem, shown: bool) -> None:
    """Show or hide a :func:`legend_below` legend; a hidden one gives its row back to the plot."""
    layout = plot_item.layout
    inside = any(layout.itemAt(i) is legend for i in range(layout.count()))
    if shown and not inside:
        layout.addItem(legend, LEGEND_ROW, 1)
    if shown:  # again once the legend's entries are laid out (next turn)
        QTimer.singleShot(0, legend, lambda: fit_legend_columns(plot_item, legend))
    elif not shown and inside:
        layout.removeItem(legend)
    legend.setVisible(shown)
