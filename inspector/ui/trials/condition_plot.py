"""Condition averages: each condition's mean response with a ±SEM band.

:class:`ConditionPlot` runs :func:`~inspector.formats.analysis.trial_average.trial_average`
on a job (the fraction done and Cancel float over the plot; a newer request supersedes the
running one, whose result is dropped) and draws, per condition and channel,
the mean against time from stimulus onset with a translucent band from
``mean - sem`` to ``mean + sem`` (``pyqtgraph.FillBetweenItem``; where one
trial only contributes the SEM is undefined and the band closes on the
mean).  A check list chooses the conditions shown; the legend gives the
trials behind each.  The selected trials, when there are any, are drawn
over the conditions as one thick curve in the text colour with its band
(:meth:`ConditionPlot.show_selection`, :func:`analysis.pooled
<inspector.formats.analysis.trial_average.pooled>` of their average, on its own job).
"Export plotted data as CSV…" (the plot's context
menu, :mod:`inspector.ui.plots.base`) writes the ``trial_average`` rows of
the conditions shown, unchanged.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPainterPath, QPalette, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.analysis.read_meter import metering
from inspector.formats.analysis.trial_average import pooled, trial_average
from inspector.formats.analysis.trial_conditions import Condition
from inspector.formats.analysis.trial_matrix import TrialAxis
from inspector.formats.document import Document
from inspector.jobs import JobContext, JobRunner
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.navigation import add_line_key, add_reset_action, install_time_wheel
from inspector.ui.read_progress import ReadProgress
from inspector.ui.trials.common import (
    CHANNEL_STYLES,
    AverageRequest,
    cancel_keys_on_destroy,
    channel_label,
    chunk_meter,
    color_onset,
    condition_colors,
    neural_unit,
    onset_line,
    plain_values,
    time_label,
)

if TYPE_CHECKING:
    import pandas as pd

#: Conditions checked when a grouping is first shown (the others can be checked).
MAX_SHOWN = 12
#: Layout row of the legend in the plot item (under the time axis and its label).
LEGEND_ROW = 5
#: Narrowest legend entry (pixels): the first guess of the number of columns.
LEGEND_ENTRY_PX = 92
#: Slack kept beside the legend (pixels).
LEGEND_PAD_PX = 8
#: Band opacity (0-255).
BAND_ALPHA = 55
#: Columns of the CSV export, exactly those of ``trial_average``.
CSV_COLUMNS = ("condition", "channel", "time", "mean", "sem", "n")


def _swatch(color: QColor) -> QIcon:
    pix = QPixmap(14, 14)
    pix.fill(color)
    return QIcon(pix)


#: ``(x, channels, {"mean", "sem", "n"})`` of an average frame: float64 times, the channel
#: numbers, and ``(conditions, channels, times)`` arrays.
Grid = tuple[np.ndarray, list[int], dict[str, np.ndarray]]


def frame_grid(df: pd.DataFrame) -> Grid:
    """The arrays of a
    :func:`~inspector.formats.analysis.trial_average.trial_average` frame as a grid.

    Taken once, on the job's thread: reading a column of the frame copies its
    ``attrs`` (pandas), which is slow on the GUI thread for many conditions.
    """
    import pandas as pd  # imported already: df is a DataFrame

    chans = list(pd.unique(df["channel"])) if len(df) else []
    g, c = len(df.attrs.get("conditions", ())), max(len(chans), 1)
    x = df["time"].to_numpy(dtype=np.float64)[: len(df) // max(g * c, 1)]
    cube = {k: df[k].to_numpy().reshape(g, c, -1) for k in ("mean", "sem", "n")}
    return x, [int(ch) for ch in chans], cube


def pooled_grid(df: pd.DataFrame) -> Grid:
    """The arrays of a :func:`~inspector.formats.analysis.trial_average.pooled` frame (one group,
    channel-major, whatever its ``attrs`` say) as a one-condition grid."""
    import pandas as pd  # imported already: df is a DataFrame

    chans = list(pd.unique(df["channel"])) if len(df) else []
    c = max(len(chans), 1)
    rows = len(df) // c
    x = df["time"].to_numpy(dtype=np.float64)[:rows]
    cube = {k: df[k].to_numpy().reshape(1, c, rows) for k in ("mean", "sem", "n")}
    return x, [int(ch) for ch in chans], cube


#: The band of each condition and channel of a :data:`Grid`, ``[condition][channel]``.
Bands = list[list[QPainterPath]]


def band_edges(mean: np.ndarray, sem: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(mean - sem, mean + sem)``, float64 like ``mean``; where the mean is defined
    but the SEM is not (one trial) both edges are the mean (the band closes)."""
    half = np.where(np.isfinite(mean) & np.isnan(sem), 0.0, sem)
    return mean - half, mean + half


def band_path(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> QPainterPath:
    """The area between ``lo`` and ``hi`` over ``x`` (equal-length 1-D arrays) as a path.

    One polygon per run of points where ``x``, ``lo`` and ``hi`` are all
    finite: along ``lo``, then back along ``hi`` (what ``FillBetweenItem``
    makes of two ``connect="finite"`` curves).  ``QPainterPath`` is a value
    type: it may be built on a worker thread and handed to the GUI thread.
    """
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.OddEvenFill)
    ok = np.isfinite(x) & np.isfinite(lo) & np.isfinite(hi)
    edges = np.diff(np.concatenate(([0], ok.astype(np.int8), [0])))
    for a, b in zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(),
                    strict=True):
        n = b - a
        poly = pg.functions.create_qpolygonf(2 * n)
        pts = pg.functions.ndarray_from_qpolygonf(poly)
        pts[:n, 0], pts[:n, 1] = x[a:b], lo[a:b]
        pts[n:, 0], pts[n:, 1] = x[a:b][::-1], hi[a:b][::-1]
        path.addPolygon(poly)
    return path


def grid_bands(grid: Grid) -> Bands:
    """:func:`band_path` of every condition and channel of ``grid`` (run on the job)."""
    x, _chans, cube = grid
    mean, sem = cube["mean"], cube["sem"]
    return [[band_path(x, *band_edges(mean[g, c], sem[g, c])) for c in range(mean.shape[1])]
            for g in range(mean.shape[0])]


@contextmanager
def one_layout_pass(legend: pg.LegendItem) -> Iterator[pg.LegendItem]:
    """Entries added to ``legend`` within are measured once, on leaving
    (``LegendItem.addItem`` measures every entry again for each one added)."""
    size, legend.size = legend.size, (0, 0)  # a fixed size: updateSize does nothing
    try:
        yield legend
    finally:
        legend.size = size
        legend.updateSize()


class BandItem(pg.FillBetweenItem):
    """A filled ±SEM band with a precomputed path (:func:`band_path`).

    A ``FillBetweenItem`` that follows no curves: building the path from two
    curves on the GUI thread (what ``FillBetweenItem`` does) took several ms
    per band.

    Args:
        path: the band's outline.
        brush: its fill.
    """

    def __init__(self, path: QPainterPath, brush: Any) -> None:
        super().__init__(None, None, brush=brush)
        self.setPath(path)


class ConditionPlot(PlotView):
    """Mean ± SEM per condition of one document's trials.

    Args:
        doc: an epochs or continuous recording.
        jobs: runs the averages.
        axis: the document's :func:`~inspector.formats.analysis.trial_average.trial_axis`.
        with_list: show the condition check list right of the plot.

    Attributes:
        frame: the last ``trial_average`` result (None before the first).
        request: the request of :attr:`frame` (or running).
        running: a job is on its way.

    Signals:
        finished(): a result was drawn.
        failed(str): the average could not be computed (message shown).
    """

    finished = Signal()
    failed = Signal(str)

    def __init__(self, doc: Document, jobs: JobRunner, axis: TrialAxis, *,
                 with_list: bool = True, parent: QWidget | None = None,
                 plot_widget: pg.PlotWidget | None = None) -> None:
        super().__init__(parent, plot_widget)
        self.doc = doc
        self.jobs = jobs
        self.axis = axis
        self.frame: pd.DataFrame | None = None
        self._frame_grid: Grid | None = None
        self._frame_bands: Bands | None = None
        self.request: AverageRequest | None = None
        self.running = False
        self._checked: dict[str, bool] = {}
        self._by: Any = object()
        self._items: list[Any] = []
        self._legend: pg.LegendItem | None = None
        #: The selected trials pooled (``analysis.pooled``), drawn over the conditions.
        self.selection_frame: pd.DataFrame | None = None
        self.selection_request: AverageRequest | None = None
        self.selection_running = False
        self._selection_grid: tuple[Grid, Bands] | None = None
        self._sel_items: list[Any] = []
        self.x_label = axis.time_unit
        self._unit = neural_unit(doc)
        self.y_label = "mean"
        self._build(with_list)
        cancel_keys_on_destroy(self, jobs, self.job_keys())

    # -- layout ------------------------------------------------------------------
    def _build(self, with_list: bool) -> None:
        # the fraction done floats over the plot (no row of its own to wrap or cut)
        self.read_progress = ReadProgress(self._stack, "chunks", "Stop computing this average")
        self.read_progress.cancel_requested.connect(self.cancel)
        time_label(self.plot_item, self.axis)
        self.plot_item.setLabel("left", self._left_label(False))
        plain_values(self.plot_item)
        self.onset = onset_line(self.palette().color(QPalette.ColorRole.Text))
        self.plot_item.addItem(self.onset, ignoreBounds=True)
        self.add_legend()
        install_time_wheel(self.plot_item.vb)
        add_reset_action(self.plot_item.vb, self.reset_view, self)
        self.condition_list = QListWidget()
        self.condition_list.setAccessibleName("Conditions shown")
        self.condition_list.setToolTip("Check the conditions to plot")
        # one row height for all: laying out 2,000 conditions' rows took 20 ms more
        self.condition_list.setUniformItemSizes(True)
        self.condition_list.itemChanged.connect(self._item_changed)
        # a narrow list keeps each label's end, "(n=…)", in view (the tooltip has it all)
        self.condition_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.condition_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_label = QLabel("Conditions")
        self.legend_box = QCheckBox("Legend")
        self.legend_box.setChecked(True)
        self.legend_box.setToolTip("Show the legend (conditions and trials) on the plot")
        self.legend_box.toggled.connect(self.show_legend)
        all_button, none_button = QPushButton("All"), QPushButton("None")
        all_button.clicked.connect(lambda: self.set_all_shown(True))
        none_button.clicked.connect(lambda: self.set_all_shown(False))
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.list_label)
        sl.addWidget(self.condition_list, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(all_button)
        buttons.addWidget(none_button)
        sl.addLayout(buttons)
        sl.addWidget(self.legend_box)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        lay = self.layout()
        assert lay is not None  # (PlotView's)
        lay.replaceWidget(self._stack, split)
        split.addWidget(self._stack)
        split.addWidget(side)
        split.setStretchFactor(0, 1)
        split.setSizes([600, 150])
        side.setVisible(with_list)
        self.splitter = split

    def add_legend(self, offset: tuple[int, int] = (-10, 10)) -> pg.LegendItem:
        """The legend, in a row of its own under the time axis (it never hides a
        curve; it is part of PNG and SVG exports)."""
        if self._legend is None:
            text = self.palette().color(QPalette.ColorRole.Text)
            legend = pg.LegendItem(labelTextColor=text, frame=False, labelTextSize="8pt",
                                   horSpacing=10, verSpacing=-6)
            self.plot_item.layout.addItem(legend, LEGEND_ROW, 1)
            self.plot_item.legend = legend
            self._legend = legend
            self.plot_item.vb.sigResized.connect(self._legend_columns)
            # a legend wider than the view keeps the plot item (and its view box)
            # wide: follow the view's own size
            self.plot_widget.installEventFilter(self)
        return self._legend

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Refit the legend's columns when the plot widget is resized."""
        if watched is self.plot_widget and event.type() == QEvent.Type.Resize:
            self._legend_columns()
        return super().eventFilter(watched, event)

    def show_legend(self, shown: bool) -> None:
        """Show or hide the legend (its row is given back to the plot when hidden)."""
        legend = self.add_legend()
        layout = self.plot_item.layout
        if shown and not legend.isVisible():
            layout.addItem(legend, LEGEND_ROW, 1)
        elif not shown:
            layout.removeItem(legend)
        legend.setVisible(shown)

    def _legend_columns(self, *_args: Any) -> None:
        """The most legend columns whose entries fit the width of the view (not
        of the plot item, which a too wide legend would itself widen)."""
        legend = self.add_legend()
        room = self.plot_widget.viewport().width() - self.plot_item.getAxis("left").width()
        cols = max(1, min(len(legend.items), int(room // LEGEND_ENTRY_PX)))
        while True:
            if legend.columnCount != cols:
                legend.setColumnCount(cols)
            need = legend.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
            if cols == 1 or need <= room - LEGEND_PAD_PX:
                break
            cols -= 1
        view = self.plot_widget
        if self.plot_item.width() > view.viewport().width() + 0.5:
            # the plot item kept the width of a wider legend: give it the view's again
            self.plot_item.setGeometry(view.range)

    def reset_view(self) -> None:
        """The whole window and every drawn curve and band in view."""
        vb = self.plot_item.vb
        vb.enableAutoRange()
        vb.updateAutoRange()  # now, not at the next paint

    def _left_label(self, corrected: bool) -> str:
        # short enough to fit the height of a small plot when corrected
        text = "mean" if corrected else "mean response"
        if self._unit:
            text += f" ({self._unit})"
        return text + (", baseline-corrected" if corrected else "")

    def job_keys(self) -> tuple[str, ...]:
        """The keys of this view's averages: the conditions, the selected trials
        (see :meth:`PlotView.job_keys`)."""
        return (f"trial-average:{id(self)}", f"trial-average-selection:{id(self)}")

    def is_idle(self) -> bool:
        """No average on its way (``--screenshot`` waits for this)."""
        return not self.running and not self.selection_running

    # -- the selected trials -----------------------------------------------------
    def show_selection(self, request: AverageRequest | None) -> None:
        """Draw the mean ± SEM of ``request.trials`` pooled over their conditions
        over the condition curves (None, or no trials: draw none).  Computed on
        a job like the conditions; a newer request supersedes it."""
        key = self.job_keys()[1]
        if request is None or not request.trials:
            self.jobs.cancel(key)
            self.selection_running = False
            self.selection_request = None
            if self.selection_frame is not None:
                self.selection_frame = None
                self._selection_grid = None
                self.draw()
            return
        if request == self.selection_request and (self.selection_running
                                                  or self.selection_frame is not None):
            return
        self.selection_request = request
        self.selection_running = True
        doc = self.doc

        def work(ctx: JobContext) -> tuple[pd.DataFrame, Grid, Bands]:
            df = pooled(trial_average(doc, request.by, channels=list(request.channels),
                                      window=request.window, baseline=request.baseline,
                                      trials=list(request.trials or ()),
                                      cancelled=lambda: ctx.cancelled))
            grid = pooled_grid(df)  # arrays and band paths off the GUI thread
            return df, grid, grid_bands(grid)

        def done(got: tuple[pd.DataFrame, Grid, Bands]) -> None:
            self.selection_running = False
            self.selection_frame, grid, bands = got
            self._selection_grid = grid, bands
            self.draw()

        def failed(_message: str, _tb: str) -> None:
            self.selection_running = False
            self.selection_frame = None
            self._selection_grid = None
            self.draw()

        self.jobs.submit(work, on_done=done, on_error=failed, key=key)

    def selection_curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(name, time, mean)`` of the curves of the selected trials."""
        return _curves_of(self._sel_items)

    def _draw_selection(self, legend: pg.LegendItem, chans: list[int]) -> None:
        for item in self._sel_items:
            self.plot_item.removeItem(item)
        self._sel_items = []
        if self.selection_frame is None or self.frame is None or self._selection_grid is None:
            return
        (x, sel_chans, cube), bands = self._selection_grid
        if sel_chans != chans:
            return
        text = self.palette().color(QPalette.ColorRole.Text)
        request = self.selection_request
        count = len(request.trials) if request is not None and request.trials is not None else 0
        for ci, ch in enumerate(chans):
            before = len(self._items)
            curve = self._add_curve(x, cube["mean"][0, ci], cube["sem"][0, ci], bands[0][ci],
                                    text, CHANNEL_STYLES[ci % len(CHANNEL_STYLES)],
                                    f"selected · {channel_label(self.axis, ch)}")
            curve.setPen(pg.mkPen(text, width=3,
                                  style=CHANNEL_STYLES[ci % len(CHANNEL_STYLES)]))
            curve.setZValue(10)
            self._sel_items.extend(self._items[before:])
            del self._items[before:]
            if ci == 0:
                legend.addItem(curve, f"selected trials (n={count})")

    def palette_changed(self) -> None:
        """The theme changed (:func:`inspector.ui.plots.theming.follow_palette`)."""
        color_onset(self.onset, self.palette().color(QPalette.ColorRole.Text))
        self.draw()

    # -- running -----------------------------------------------------------------
    def run(self, request: AverageRequest) -> None:
        """Compute and draw ``request`` (a running average is superseded)."""
        self.request = request
        self.running = True
        doc = self.doc

        def work(ctx: JobContext) -> tuple[pd.DataFrame, Grid, Bands]:
            with metering(chunk_meter(ctx)):  # progress: chunks read of chunks needed
                df = trial_average(
                    doc, request.by, channels=list(request.channels), window=request.window,
                    baseline=request.baseline,
                    trials=list(request.trials) if request.trials is not None else None,
                    cancelled=lambda: ctx.cancelled)
            grid = frame_grid(df)  # the arrays and band paths are made here, off the GUI thread
            return df, grid, grid_bands(grid)

        self.read_progress.start()  # (the job counts the chunks it needs first)
        self.status.setText("averaging…")
        self.jobs.submit(work, on_done=lambda got: self._done(request, *got),
                         on_error=self._failed, on_progress=self._progress,
                         key=self.job_keys()[0])

    def cancel(self) -> None:
        """Stop the running average (its result will not be drawn)."""
        if self.running:
            self.jobs.cancel(self.job_keys()[0])
            self._idle()
            self.status.setText("cancelled: the plot shows the previous result"
                                if self.frame is not None else "cancelled")

    def _idle(self) -> None:
        self.running = False
        self.read_progress.finish()

    def _progress(self, done: int, total: int, _payload: Any) -> None:
        self.read_progress.update_progress(done, total)

    def _failed(self, message: str, _tb: str) -> None:
        self._idle()
        text = message.split(": ", 1)[1] if message.startswith("ValueError: ") else message
        self.show_placeholder(f"Cannot average: {text}")
        self.status.setText("")
        self.failed.emit(text)

    def _done(self, request: AverageRequest, df: pd.DataFrame, grid: Grid,
              bands: Bands) -> None:
        self._idle()
        self.frame = df
        self._frame_grid = grid
        self._frame_bands = bands
        self._stack.setCurrentWidget(self.plot_widget)
        if request.by != self._by:
            self._by = request.by
            self._checked = {}
        self._fill_list()
        self.plot_item.setLabel("left", self._left_label(request.baseline is not None))
        self.draw()
        self.status.setText(self._summary())
        self.finished.emit()

    # -- conditions --------------------------------------------------------------
    @property
    def conditions(self) -> list[Condition]:
        """The conditions of :attr:`frame`, in display order."""
        return list(self.frame.attrs["conditions"]) if self.frame is not None else []

    def trial_counts(self) -> list[int]:
        """Trials behind each condition: the most at any point of any channel."""
        if self.frame is None or not len(self.frame):
            return [0] * len(self.conditions)
        n = self._grid()[2]["n"]
        return n.reshape(n.shape[0], -1).max(axis=1).tolist()

    def _fill_list(self) -> None:
        lst = self.condition_list
        lst.blockSignals(True)
        lst.clear()
        colors = condition_colors(self.conditions)
        flags = QListWidgetItem().flags() | Qt.ItemFlag.ItemIsUserCheckable  # (once: enum
        on, off = Qt.CheckState.Checked, Qt.CheckState.Unchecked  # operations are slow)
        for k, (cond, color, n) in enumerate(zip(self.conditions, colors, self.trial_counts(),
                                                 strict=True)):
            item = QListWidgetItem(_swatch(color), f"{cond.label}  (n={n:,})")
            item.setFlags(flags)
            item.setCheckState(on if self._checked.get(cond.label, k < MAX_SHOWN) else off)
            item.setToolTip(f"{cond.label}: {cond.kind} value, {n:,} trials"
                            if not cond.missing else f"trials without a value: {n:,}")
            if cond.missing:
                font = QFont(item.font())
                font.setItalic(True)
                item.setFont(font)
            lst.addItem(item)
        lst.blockSignals(False)
        self._count_shown()

    def _count_shown(self) -> None:
        shown = sum(self.shown())
        self.list_label.setText(f"Conditions: {shown:,} of {len(self.conditions):,} shown")

    def shown(self) -> list[bool]:
        """Per condition: checked in the list."""
        lst = self.condition_list
        return [lst.item(i).checkState() == Qt.CheckState.Checked for i in range(lst.count())]

    def set_shown(self, index: int, shown: bool) -> None:
        """Check or uncheck condition ``index`` (redraws)."""
        self.condition_list.item(index).setCheckState(
            Qt.CheckState.Checked if shown else Qt.CheckState.Unchecked)

    def set_all_shown(self, shown: bool) -> None:
        lst = self.condition_list
        lst.blockSignals(True)
        for i in range(lst.count()):
            lst.item(i).setCheckState(Qt.CheckState.Checked if shown else Qt.CheckState.Unchecked)
            self._checked[self.conditions[i].label] = shown
        lst.blockSignals(False)
        self._count_shown()
        self.draw()

    def _item_changed(self, item: QListWidgetItem) -> None:
        row = self.condition_list.row(item)
        self._checked[self.conditions[row].label] = item.checkState() == Qt.CheckState.Checked
        self._count_shown()
        self.draw()

    # -- drawing -----------------------------------------------------------------
    def _grid(self) -> Grid:
        """:func:`frame_grid` of :attr:`frame` (taken by the job that computed it)."""
        if self._frame_grid is None:
            self._frame_grid = frame_grid(self.frame)
        return self._frame_grid

    def _bands(self) -> Bands:
        """:func:`grid_bands` of :attr:`frame` (made by the job that computed it)."""
        if self._frame_bands is None:
            self._frame_bands = grid_bands(self._grid())
        return self._frame_bands

    def draw(self) -> None:
        """Redraw the shown conditions of :attr:`frame`."""
        for item in self._items:
            self.plot_item.removeItem(item)
        self._items = []
        legend = self.add_legend()
        with one_layout_pass(legend):
            legend.clear()
            if self.frame is None:
                self._draw_selection(legend, [])
                return
            self._draw_frame(legend)
        self._legend_columns()

    def _draw_frame(self, legend: pg.LegendItem) -> None:
        x, chans, cube = self._grid()
        bands = self._bands()
        colors = condition_colors(self.conditions)
        counts = self.trial_counts()
        shown = self.shown()
        for gi, cond in enumerate(self.conditions):
            if not shown[gi]:
                continue
            for ci, _ch in enumerate(chans):
                curve = self._add_curve(x, cube["mean"][gi, ci], cube["sem"][gi, ci],
                                        bands[gi][ci], colors[gi],
                                        CHANNEL_STYLES[ci % len(CHANNEL_STYLES)],
                                        f"{cond.label} · {channel_label(self.axis, chans[ci])}")
                if ci == 0:
                    legend.addItem(curve, f"{cond.label} (n={counts[gi]})")
        self._draw_selection(legend, chans)
        if len(chans) > 1:
            text = self.palette().color(QPalette.ColorRole.Text)
            for ci, ch in enumerate(chans):
                add_line_key(legend, pg.mkPen(text, width=2, style=CHANNEL_STYLES[ci % 5]),
                             channel_label(self.axis, ch))

    def _add_curve(self, x: np.ndarray, mean: np.ndarray, sem: np.ndarray,
                   band_outline: QPainterPath, color: QColor, style: Qt.PenStyle,
                   name: str) -> pg.PlotCurveItem:
        """The mean (one ``PlotCurveItem``: a ``PlotDataItem`` would add a scatter
        item per curve) over its band (``band_outline``, made by the job)."""
        band_color = QColor(color)
        band_color.setAlpha(BAND_ALPHA)
        band = BandItem(band_outline, pg.mkBrush(band_color))
        band.setZValue(-1)
        # no ``name``: the legend lists conditions (with n) itself, not every curve
        curve = pg.PlotCurveItem(x, mean, pen=pg.mkPen(color, width=2, style=style),
                                 connect="finite")
        curve.curve_label = name
        curve.band_edges = band_edges(mean, sem)  # what the band outlines (bands())
        self.plot_item.addItem(band)
        self.plot_item.addItem(curve)
        band.setToolTip(f"{name}: mean ± SEM")
        self._items.extend([band, curve])
        return curve

    def bands(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(name, lower, upper)`` of every band drawn."""
        return [(item.curve_label, *item.band_edges) for item in self._items
                if isinstance(item, pg.PlotCurveItem)]

    def _summary(self) -> str:
        df = self.frame
        assert df is not None  # (said once computed)
        w0, w1 = df.attrs["window_samples"]
        rate = df.attrs["sampling_rate_hz"]
        span = (f"{w0 / rate * 1000:.4g} to {w1 / rate * 1000:.4g} ms at {rate:g} Hz"
                if rate else f"samples {w0:,} to {w1:,}")
        trials, g = sum(self.trial_counts()), len(self.conditions)
        return (f"{g:,} condition{'s' if g != 1 else ''}, "
                f"{trials:,} trial{'s' if trials != 1 else ''}, window {span}"
                + (", baseline-corrected" if df.attrs["baseline_samples"] is not None else ""))

    # -- export ------------------------------------------------------------------
    def shown_frame(self) -> pd.DataFrame:
        """The ``trial_average`` rows of the conditions shown, unchanged."""
        if self.frame is None:
            import pandas as pd

            return pd.DataFrame(columns=list(CSV_COLUMNS))
        keep = {c for c, s in zip(self.conditions, self.shown(), strict=True) if s}
        return self.frame[self.frame["condition"].map(lambda c: c in keep).to_numpy(bool)]

    def export_csv(self, path: Path) -> int:
        """Write the ``trial_average`` rows of the conditions shown; returns rows written.

        Columns ``condition`` (its label), ``channel`` (index), ``time``
        (seconds, or samples without a sampling rate), ``mean``, ``sem``
        (``nan`` when undefined) and ``n``, in the order of the result;
        floats are written so that they read back to the same number.
        """
        df = self.shown_frame()
        integer_time = df["time"].dtype.kind in "iu"
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(CSV_COLUMNS)
            for cond, ch, t, m, s, n in zip(df["condition"], df["channel"], df["time"],
                                            df["mean"], df["sem"], df["n"], strict=True):
                w.writerow([cond.label, int(ch), int(t) if integer_time else repr(float(t)),
                            repr(float(m)), repr(float(s)), int(n)])
        return len(df)

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(name, time, mean)`` of every mean curve drawn."""
        return _curves_of(self._items)


def _curves_of(items: list[Any]) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(name, time, mean)`` of the mean curves among ``items`` (float64 arrays)."""
    return [(item.curve_label, *(np.asarray(a, np.float64) for a in item.getData()))
            for item in items if isinstance(item, pg.PlotCurveItem)]
