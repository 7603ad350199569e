"""Common parts of the plot views: a pyqtgraph plot, a placeholder, exports.

Every view (:class:`PlotView` subclasses) owns one ``pg.PlotWidget`` with
one export menu (:mod:`inspector.ui.plot_export`): "Export as PNG…" (at a
chosen scale, 2x the screen size by default), "Export as SVG…" and "Export
plotted data as CSV…".  The same exports are methods
(:meth:`PlotView.export_png`, :meth:`PlotView.export_svg`,
:meth:`PlotView.export_csv`) for tests and scripts.  The plot follows the
palette when the theme changes (:mod:`inspector.ui.plots.theming`).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget
from shiboken6 import Shiboken

from inspector.ui import plot_export
from inspector.ui.message_label import MessageLabel, wrap_freely
from inspector.ui.plots.grid_axis import GridAxis
from inspector.ui.plots.plot_menu import install_plot_menu
from inspector.ui.plots.theming import follow_palette

if TYPE_CHECKING:
    from inspector.formats.analysis.arrays import ArrayRef
    from inspector.formats.findings import Finding

T = TypeVar("T")


@dataclass(frozen=True)
class ReadFailed:
    """A read of a plotted array that failed because of the file (its ``OSError``): the
    text the view shows, and the finding the document gains (None when the array's
    format declares no rule for it:
    :attr:`~inspector.formats.analysis.arrays.ArrayRef.unreadable_rule`)."""

    message: str
    finding: Finding | None

    @classmethod
    def of(cls, ref: ArrayRef, exc: OSError) -> ReadFailed:
        """The failure of a read of ``ref`` that raised ``exc`` while plotting."""
        return cls(str(exc), ref.unreadable_finding(exc, "plotting"))


def read_or_failure(ref: ArrayRef, read: Callable[[], T]) -> T | ReadFailed:
    """``read()`` (on a job), or the :class:`ReadFailed` of the ``OSError`` it raised."""
    try:
        return read()
    except OSError as exc:
        return ReadFailed.of(ref, exc)


#: Room left of a plot's y axis (pixels), so that its rotated label keeps clear of
#: the widget's edge and of a splitter handle there.
LABEL_ROOM = 11


#: The axes of a pyqtgraph plot, by their side, and those it shows.
AXIS_SIDES = ("left", "bottom", "right", "top")
SHOWN_AXES = ("left", "bottom")


def plot_item_in_steps() -> Generator[None, None, pg.PlotItem]:
    """Make a bare ``pg.PlotItem`` over three calls of ``next`` (GUI thread): two give
    None, the third ends the steps with the item (``item = yield from
    plot_item_in_steps()``), which the caller then owns (it adds it to a scene).

    Its parts are 4-8 ms each, one event-loop turn apiece: the view box (with its
    context menu), the two axes shown
    (:class:`~inspector.ui.plots.grid_axis.GridAxis`: a cheaper grid), then the plot
    item (with its own menu, and the two hidden axes) on them: pyqtgraph's
    ``PlotItem`` takes a view box and axes made ahead (``viewBox=``, ``axisItems=``).
    Closed before its end, it deletes the parts made so far on the spot
    (:func:`discard_parts`): they are in no scene and no widget owns them.
    """
    parts: list[pg.GraphicsWidget] = []
    try:
        view_box = pg.ViewBox()
        parts.append(view_box)
        yield None
        axes = {side: GridAxis(side) for side in SHOWN_AXES}  # (axes given are shown)
        parts.extend(axes.values())
        yield None
        item = pg.PlotItem(viewBox=view_box, axisItems=axes)
        parts.clear()  # (its children now: the caller owns it, and them through it)
        return item
    finally:
        discard_parts(parts)


def plot_widget_in_steps() -> Generator[pg.PlotWidget | None, None, None]:
    """Make a bare ``pg.PlotWidget`` over four calls of ``next`` (GUI thread): each gives
    None but the last, which gives the widget.

    Made whole, a ``PlotWidget`` is one step of 12-25 ms of the GUI thread; its parts
    are 4-8 ms each, one event-loop turn apiece: the plot item's
    (:func:`plot_item_in_steps`), then the graphics view around it.  The result is the
    widget ``pg.PlotWidget()`` makes, with
    :class:`~inspector.ui.plots.grid_axis.GridAxis` axes (a cheaper grid):
    ``PlotWidget`` takes a plot item made ahead (``plotItem=``).

    Closed before the last step (its window closed), it deletes the parts made so far
    on the spot (:func:`discard_parts`): they are in no scene and no widget owns them.
    """
    parts: list[pg.GraphicsWidget] = []
    try:
        item = yield from plot_item_in_steps()
        parts.append(item)  # (it deletes its children)
        yield None
        widget = pg.PlotWidget(plotItem=item)
        parts.clear()  # (the widget's scene owns the item)
        yield widget
    finally:
        discard_parts(parts)


def discard_parts(parts: list[pg.GraphicsWidget]) -> None:
    """Delete the C++ objects of graphics items in no scene that nothing else owns
    (parents before their children's turn: a parent deletes its children).

    Left to Python, such an item lives until its last reference goes, which can be
    the application's end (PySide's shutdown then deletes what is left, in no
    particular order).  ``deleteLater`` is no way either: once Python let go of a
    plot item waiting for its deferred delete, its pending layout request crashed
    (SIGSEGV in ``QGraphicsWidget::setGeometry``).
    """
    for part in parts:
        if Shiboken.isValid(part):
            Shiboken.delete(part)
    parts.clear()


def new_plot_widget() -> pg.PlotWidget:
    """A bare ``pg.PlotWidget`` for a :class:`PlotView` to take, made in one step (GUI
    thread; :func:`plot_widget_in_steps` makes it over several turns)."""
    steps = plot_widget_in_steps()
    while (widget := next(steps)) is None:
        pass
    return widget


class PlotView(QWidget):
    """A widget holding one pyqtgraph plot (or a placeholder text instead).

    Attributes:
        plot_widget: the ``pg.PlotWidget``.
        plot_item: its ``PlotItem``.
        controls: a layout above the plot for view-specific controls.

    Signals:
        finding(Finding): a read of the plotted array failed because of the file
            (:class:`ReadFailed`); the document shows it with its other findings.
    """

    finding = Signal(object)
    x_label = "x"
    y_label = "y"

    def __init__(self, parent: QWidget | None = None,
                 plot_widget: pg.PlotWidget | None = None) -> None:
        """``plot_widget``: a bare ``pg.PlotWidget`` made ahead (:func:`plot_widget_in_steps`,
        on event-loop turns of its own), else one is made here (12-25 ms)."""
        super().__init__(parent)
        # Follow the system's light or dark palette.
        palette = self.palette()
        self.plot_widget = plot_widget if plot_widget is not None else new_plot_widget()
        self.plot_widget.setBackground(palette.color(QPalette.ColorRole.Base))
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        # pyqtgraph puts the y-axis label 5 px left of its axis, at the widget's edge,
        # where a splitter beside the plot draws its handle: keep it clear of that edge
        self.plot_item.layout.setContentsMargins(LABEL_ROOM, 1, 1, 1)
        text = palette.color(QPalette.ColorRole.Text)
        for ax in ("left", "bottom"):
            self.plot_item.getAxis(ax).setPen(pg.mkPen(text))
            self.plot_item.getAxis(ax).setTextPen(pg.mkPen(text))
        self._placeholder = QLabel()
        self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        wrap_freely(self._placeholder)
        self._stack = QStackedWidget()
        self._stack.addWidget(self.plot_widget)
        self._stack.addWidget(self._placeholder)
        self.status = MessageLabel()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        self.controls = QVBoxLayout()
        lay.addLayout(self.controls)
        lay.addWidget(self._stack, 1)
        lay.addWidget(self.status)
        self._install_menu()

    def add_legend(self, offset: tuple[int, int] = (-10, 10)) -> pg.LegendItem:
        """The plot's legend (created once): palette text on a translucent base-coloured box."""
        if self.plot_item.legend is None:
            palette = self.palette()
            box = palette.color(QPalette.ColorRole.Base)
            box.setAlpha(200)
            self.plot_item.addLegend(offset=offset,
                                     labelTextColor=palette.color(QPalette.ColorRole.Text),
                                     brush=pg.mkBrush(box),
                                     pen=pg.mkPen(palette.color(QPalette.ColorRole.Mid)))
        return self.plot_item.legend

    # -- placeholder -------------------------------------------------------------
    def job_keys(self) -> tuple[str, ...]:
        """The ``JobRunner`` keys of this view's reads; cancelled when the view is dropped,
        so that no result is delivered to a deleted view."""
        return ()

    def is_idle(self) -> bool:
        """True when the view shows its final state: no read in flight, none pending.

        Views that read on jobs override this; ``--screenshot`` waits for it.
        """
        return True

    def checks_over(self) -> None:
        """The document's deferred checks ended (done, cancelled or failed); a view that
        waits for one of their results stops waiting.  Nothing to do by default."""

    def report(self, failure: ReadFailed) -> None:
        """Emit the finding of a read that failed because of the file (``finding``), if its
        format declares one; the view shows the failure its own way."""
        if failure.finding is not None:
            self.finding.emit(failure.finding)

    def show_placeholder(self, text: str) -> None:
        """Show ``text`` instead of the plot (empty arrays, unreadable data)."""
        self._placeholder.setText(text)
        self._stack.setCurrentWidget(self._placeholder)

    def placeholder_text(self) -> str | None:
        """The placeholder text if shown, else None."""
        if self._stack.currentWidget() is self._placeholder:
            return self._placeholder.text()
        return None

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """Restyle the plot when the palette changes (View > Theme, a system switch)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            follow_palette(self)

    # -- exports -----------------------------------------------------------------
    #: Whether the plot menu offers "Log y axis" (:mod:`inspector.ui.plots.plot_menu`).
    offers_log_y = False

    def _install_menu(self) -> None:
        install_plot_menu(self)
        plot_export.install_export_menu(self)

    def ask_png_scale(self) -> float | None:
        """The scale of a PNG export (None if cancelled). Tests override this."""
        return plot_export.ask_png_scale(self)

    def ask_export_path(self, kind: str) -> Path | None:
        """Where to write an export of ``kind`` (None if cancelled). Tests override this."""
        return plot_export.ask_path(self, kind)

    def export_png(self, path: Path, width: int | None = None,
                   scale: float = plot_export.DEFAULT_SCALE) -> tuple[int, int]:
        """Render the plot to a PNG file, ``scale`` times its size on screen (or ``width``
        pixels wide); returns the image size in pixels."""
        return plot_export.render_png(self, path, scale=scale, width=width)

    def export_svg(self, path: Path) -> None:
        """Render the plot to an SVG file (Qt's SVG generator, vector curves).

        pyqtgraph's own SVG exporter fails on some Qt 6 paths, so the plot's
        scene area is painted into a ``QSvgGenerator`` instead.
        """
        from PySide6.QtCore import QRectF
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        source = self.plot_item.sceneBoundingRect()
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(source.size().toSize())
        gen.setViewBox(QRectF(0, 0, source.width(), source.height()))
        gen.setTitle("Inspector plot")
        painter = QPainter(gen)
        try:
            self.plot_widget.scene().render(
                painter, QRectF(0, 0, source.width(), source.height()), source)
        finally:
            painter.end()

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(name, x, y)`` of every visible curve, as given to the plot (NaN = gap; values,
        not their logarithms, when the y axis is on a log scale)."""
        out = []
        for i, item in enumerate(self.plot_item.listDataItems()):
            if not item.isVisible():
                continue
            x, y = item.getOriginalDataset()
            if x is None or y is None:
                continue
            name = item.name() or f"curve {i + 1}"
            out.append((str(name), np.asarray(x, dtype=np.float64),
                        np.asarray(y, dtype=np.float64)))
        return out

    def export_csv(self, path: Path) -> int:
        """Write the plotted data as a long table ``curve, x, y``; returns rows written.

        Gaps (NaN) are not written: every row is a drawn point (for an
        envelope, its alternating bin minima and maxima).
        """
        rows = 0
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["curve", f"x [{self.x_label}]", f"y [{self.y_label}]"])
            for name, x, y in self.curves():
                keep = np.isfinite(x) & np.isfinite(y)
                for xv, yv in zip(x[keep], y[keep], strict=True):
                    w.writerow([name, repr(float(xv)), repr(float(yv))])
                    rows += 1
        return rows
