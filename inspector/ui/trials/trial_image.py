"""Trial image: one channel, trials x time, as a heatmap with a colour bar.

Rows are trials sorted by a chosen column
(:func:`~inspector.formats.analysis.trial_average.trial_order`: condition
display order, missing last), with a line at each condition boundary and
the condition names on the left axis; columns are time from stimulus onset.  The image comes from
:func:`~inspector.formats.analysis.trial_average.trial_matrix` on a job, binned to the
plot's pixel width (and, for very many trials, several trials per row), so
memory stays bounded whatever the recording.  Clicking a row emits the
trials it draws; the selected trials are marked in a strip left of the
image.  y is in sorted-trial positions: row ``r`` covers
``[r * trials_per_row, (r + 1) * trials_per_row)``.
"""

from __future__ import annotations

import csv
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from inspector.formats.analysis.read_meter import metering
from inspector.formats.analysis.trial_matrix import (
    TrialAxis,
    TrialMatrix,
    TrialOrder,
    trial_matrix,
    trial_order,
)
from inspector.formats.document import Document
from inspector.jobs import JobContext, JobRunner
from inspector.ui.colormaps import colormap
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.navigation import add_reset_action, install_time_wheel
from inspector.ui.read_progress import ReadProgress
from inspector.ui.trials.common import (
    cancel_keys_on_destroy,
    channel_label,
    chunk_meter,
    color_onset,
    neural_unit,
    onset_line,
    plain_values,
    time_label,
)

#: Condition names are written on the left axis only when there are at most this many.
MAX_TICKS = 40
#: Width of the selection strip, as a fraction of the time span.
STRIP = 0.025
#: Levels ignore the most extreme values (percentiles), so one outlier does not wash out.
LEVEL_PERCENTILES = (1.0, 99.0)
#: The image's colour map, read from pyqtgraph's files when this module is imported
#: (off the GUI thread: ui.preload), not when the first image is built.  A ColorMap is
#: a plain object, not a QObject; pyqtgraph caches it by name.
COLORMAP = colormap("viridis")


@dataclass(frozen=True)
class ImageRequest:
    """The arguments of one trial image: channel, sort column (None: trial
    order), and ``window``/``baseline`` as for ``trial_average``."""

    channel: int
    sort_by: Hashable | None
    window: tuple[float, float] | None = None
    baseline: Any = None


def image_levels(values: np.ndarray) -> tuple[float, float]:
    """Colour levels: the 1st and 99th percentiles of the finite values."""
    finite = values[np.isfinite(values)]
    if not finite.size:
        return 0.0, 1.0
    lo, hi = (float(v) for v in np.percentile(finite, LEVEL_PERCENTILES))
    if hi <= lo:
        lo, hi = float(finite.min()), float(finite.max())
    return (lo, hi) if hi > lo else (lo - 0.5, lo + 0.5)


class TrialImage(PlotView):
    """Heatmap of one channel's trials.

    Attributes:
        matrix: the :class:`~inspector.formats.analysis.trial_average.TrialMatrix` drawn.
        order: the :class:`~inspector.formats.analysis.trial_average.TrialOrder` of its rows.
        channel_combo, sort_combo: the channel and sort column chosen here.

    Signals:
        finished(): an image was drawn.
        trials_clicked(object trials, object modifiers): a row was clicked
            (int64 trials it draws; ``Qt.KeyboardModifier`` flags).
        options_changed(): the channel or sort column was changed here.
    """

    finished = Signal()
    trials_clicked = Signal(object, object)
    options_changed = Signal()

    def __init__(self, doc: Document, jobs: JobRunner, axis: TrialAxis,
                 sort_choices: list[tuple[str, Hashable]],
                 parent: QWidget | None = None,
                 plot_widget: pg.PlotWidget | None = None) -> None:
        super().__init__(parent, plot_widget)
        self.doc = doc
        self.jobs = jobs
        self.axis = axis
        self.matrix: TrialMatrix | None = None
        self._levels: tuple[float, float] | None = None  # image_levels of matrix (the job's)
        self.order: TrialOrder | None = None
        self.request: ImageRequest | None = None
        self.running = False
        self._selected = np.empty(0, dtype=np.int64)
        self.x_label = axis.time_unit
        self.y_label = "trial"
        self._build_controls(sort_choices)
        self._build_items()
        self.read_progress = ReadProgress(self._stack, "chunks", "Stop reading the trials")
        self.read_progress.cancel_requested.connect(self.cancel)
        cancel_keys_on_destroy(self, jobs, self.job_keys())

    def _build_controls(self, sort_choices: list[tuple[str, Hashable]]) -> None:
        row = QHBoxLayout()
        self.channel_combo = QComboBox()
        self.channel_combo.setAccessibleName("Trial image channel")
        for ch in range(min(self.axis.channels, 4096)):
            self.channel_combo.addItem(channel_label(self.axis, ch), ch)
        self.sort_combo = QComboBox()
        self.sort_combo.setAccessibleName("Sort trials by")
        self.sort_combo.addItem("trial order", None)
        for label, by in sort_choices:
            self.sort_combo.addItem(label, by)
        row.addWidget(QLabel("Trial image of"))
        row.addWidget(self.channel_combo)
        row.addWidget(QLabel("sorted by"))
        row.addWidget(self.sort_combo)
        row.addStretch(1)
        self.controls.addLayout(row)
        self.channel_combo.currentIndexChanged.connect(lambda _i: self.options_changed.emit())
        self.sort_combo.currentIndexChanged.connect(lambda _i: self.options_changed.emit())

    def _build_items(self) -> None:
        text = self.palette().color(QPalette.ColorRole.Text)
        self.img_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.img_item)
        self.strip_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.strip_item)
        self.bounds_item = pg.PlotCurveItem(pen=pg.mkPen(text, width=1))
        self.bounds_item.setZValue(5)
        self.plot_item.addItem(self.bounds_item, ignoreBounds=True)
        self.onset = onset_line(text)
        self.plot_item.addItem(self.onset, ignoreBounds=True)
        self.plot_item.invertY(True)
        self.plot_item.showGrid(x=False, y=False)
        time_label(self.plot_item, self.axis)
        self.plot_item.setLabel("left", "trials")
        self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=COLORMAP,
                                        interactive=True, width=14,
                                        label=self._unit_label(), pen=pg.mkPen(text))
        self.colorbar.setImageItem(self.img_item, insert_in=self.plot_item)
        plain_values(self.plot_item)  # trial numbers
        self.colorbar.axis.enableAutoSIPrefix(False)  # responses as they are (see plain_values)
        self.plot_widget.scene().sigMouseClicked.connect(self._clicked)
        self.plot_widget.scene().sigMouseMoved.connect(self._hover)
        self.plot_item.vb.sigResized.connect(self._ticks)
        install_time_wheel(self.plot_item.vb)  # Ctrl+wheel: rows
        add_reset_action(self.plot_item.vb, self.reset_view, self)

    def reset_view(self) -> None:
        """Every trial and the whole window in view."""
        self.plot_item.vb.autoRange(padding=0.0)

    def _unit_label(self) -> str:
        return neural_unit(self.doc) or "response"

    def job_keys(self) -> tuple[str, ...]:
        """The key of this view's image reads (see :meth:`PlotView.job_keys`)."""
        return (f"trial-image:{id(self)}",)

    def is_idle(self) -> bool:
        """No image on its way (``--screenshot`` waits for this)."""
        return not self.running

    def palette_changed(self) -> None:
        """The theme changed (:func:`inspector.ui.plots.theming.follow_palette`)."""
        text = self.palette().color(QPalette.ColorRole.Text)
        color_onset(self.onset, text)
        self.bounds_item.setPen(pg.mkPen(text, width=1))
        self.colorbar.axis.setPen(pg.mkPen(text))
        self.colorbar.axis.setTextPen(pg.mkPen(text))
        self.show_selection(self._selected)

    # -- choices -----------------------------------------------------------------
    def channel(self) -> int:
        return int(self.channel_combo.currentData())

    def sort_by(self) -> Hashable | None:
        return self.sort_combo.currentData()

    def set_sort_by(self, by: Hashable | None) -> None:
        """Choose the sort column (without emitting :attr:`options_changed`)."""
        for i in range(self.sort_combo.count()):
            if self.sort_combo.itemData(i) == by:
                self.sort_combo.blockSignals(True)
                self.sort_combo.setCurrentIndex(i)
                self.sort_combo.blockSignals(False)
                return

    def set_channel(self, ch: int) -> None:
        """Choose the channel (without emitting :attr:`options_changed`)."""
        i = self.channel_combo.findData(ch)
        if i >= 0:
            self.channel_combo.blockSignals(True)
            self.channel_combo.setCurrentIndex(i)
            self.channel_combo.blockSignals(False)

    # -- running -----------------------------------------------------------------
    def pixel_bins(self) -> int:
        """Time bins to ask for: the plot's width in device pixels (at least 200)."""
        px = self.plot_item.vb.width() * self.plot_widget.devicePixelRatioF()
        return max(200, int(px))

    def run(self, request: ImageRequest) -> None:
        """Read and draw ``request`` (a running read is superseded)."""
        self.request = request
        self.running = True
        doc, bins = self.doc, self.pixel_bins()

        def work(ctx: JobContext) -> tuple[TrialOrder, TrialMatrix, tuple[float, float]]:
            order = trial_order(doc, request.sort_by)
            with metering(chunk_meter(ctx)):  # progress: chunks read of chunks needed
                matrix = trial_matrix(doc, request.channel, order=order.order,
                                      window=request.window, baseline=request.baseline,
                                      max_bins=bins, cancelled=lambda: ctx.cancelled)
            # the percentiles sort every value: here, not on the GUI thread
            return order, matrix, image_levels(matrix.values)

        self.status.setText("reading trials…")
        self.read_progress.start()
        self.jobs.submit(work, on_done=self._done, on_error=self._failed,
                         on_progress=self._progress, key=self.job_keys()[0])

    def cancel(self) -> None:
        """Stop the read in flight (Cancel); the image drawn before, if any, stays."""
        if not self.running:
            return
        self.jobs.cancel(self.job_keys()[0])
        self.read_progress.finish()
        self.running = False
        self.status.setText("cancelled: the image shows the previous result"
                            if self.matrix is not None else "cancelled")

    def _progress(self, done: int, total: int, _payload: Any) -> None:
        self.status.setText(f"reading trials… {done:,} of {total:,} chunks")
        self.read_progress.update_progress(done, total)

    def _failed(self, message: str, _tb: str) -> None:
        self.read_progress.finish()
        self.running = False
        text = message.split(": ", 1)[1] if message.startswith("ValueError: ") else message
        self.show_placeholder(f"Cannot draw the trial image: {text}")

    def _done(self, result: tuple[TrialOrder, TrialMatrix, tuple[float, float]]) -> None:
        self.read_progress.finish()
        self.running = False
        self.order, self.matrix, self._levels = result
        self._stack.setCurrentWidget(self.plot_widget)
        self.draw()
        self.finished.emit()

    # -- drawing -----------------------------------------------------------------
    def extent(self) -> tuple[float, float, int]:
        """``(t0, t1, positions)``: the time span and the sorted positions drawn."""
        m = self.matrix
        assert m is not None  # (drawn once computed)
        return float(m.edges[0]), float(m.edges[-1]), int(m.order.shape[0])

    def draw(self) -> None:
        m, order = self.matrix, self.order
        if m is None or order is None:
            return
        t0, t1, n = self.extent()
        if self._levels is None:
            self._levels = image_levels(m.values)
        lo, hi = self._levels
        self.img_item.setImage(m.values, levels=(lo, hi), autoLevels=False)
        self.img_item.setRect(t0, 0.0, t1 - t0, float(m.values.shape[0] * m.trials_per_row))
        self.colorbar.setLevels((lo, hi))
        inner = order.starts[1:-1].astype(np.float64)
        xs = np.tile([t0, t1], inner.size)
        self.bounds_item.setData(xs, np.repeat(inner, 2), connect="pairs")
        self._ticks()
        self.show_selection(self._selected)
        self.plot_item.vb.setLimits(yMin=-0.02 * n - 1, yMax=1.02 * n + 1)
        self.plot_item.vb.autoRange(padding=0.0)
        self.status.setText(self._summary())

    def _ticks(self, *_args: Any) -> None:
        """Condition names at the middle of their rows, leaving out those that
        would overlap the previous one at the plot's current height."""
        order = self.order
        if order is None:
            return
        left = self.plot_item.getAxis("left")
        if not order.conditions or len(order.conditions) > MAX_TICKS:
            left.setTicks(None)
        else:
            n = max(int(order.starts[-1]), 1)
            px_per_trial = max(self.plot_item.vb.height(), 1.0) / n
            gap = self.fontMetrics().height()
            mids = (order.starts[:-1] + order.starts[1:]) / 2.0
            ticks, last = [], -np.inf
            for mid, cond in zip(mids.tolist(), order.conditions, strict=True):
                if (mid - last) * px_per_trial >= gap:
                    label = cond.label if len(cond.label) <= 16 else cond.label[:15] + "…"
                    ticks.append((mid, label))
                    last = mid
            left.setTicks([ticks, []])
        self.plot_item.setLabel("left", "trials")

    def _summary(self) -> str:
        m = self.matrix
        assert m is not None  # (said once computed)
        name = channel_label(self.axis, m.channel)
        parts = [f"{name}: {m.order.shape[0]:,} trials × {m.values.shape[1]:,} time bins"]
        if m.bin_samples > 1:
            parts.append(f"{m.bin_samples:,} samples per bin")
        if m.trials_per_row > 1:
            parts.append(f"{m.trials_per_row:,} trials per row")
        return ", ".join(parts)

    def show_selection(self, trials: np.ndarray) -> None:
        """Mark the rows drawing any of ``trials`` in the strip left of the image."""
        self._selected = np.asarray(trials, dtype=np.int64)
        m = self.matrix
        if m is None:
            return
        rows = m.rows_of_trials(self._selected)
        strip = np.zeros((m.values.shape[0], 1, 4), dtype=np.uint8)
        color = self.palette().color(QPalette.ColorRole.Highlight)
        strip[rows] = (color.red(), color.green(), color.blue(), 255)
        t0, t1, _ = self.extent()
        width = STRIP * (t1 - t0)
        self.strip_item.setImage(strip, autoLevels=False, levels=(0, 255))
        self.strip_item.setRect(t0 - width, 0.0, width,
                                float(m.values.shape[0] * m.trials_per_row))

    def selected_rows(self) -> np.ndarray:
        """The image rows marked as selected."""
        m = self.matrix
        return m.rows_of_trials(self._selected) if m is not None else np.empty(0, np.int64)

    # -- clicks ------------------------------------------------------------------
    def trials_at(self, x: float, y: float) -> np.ndarray:
        """The trials drawn at view point ``(x, y)`` (empty outside the image)."""
        m = self.matrix
        if m is None:
            return np.empty(0, dtype=np.int64)
        t0, t1, n = self.extent()
        if not (t0 - STRIP * (t1 - t0) <= x <= t1 and 0 <= y < n):
            return np.empty(0, dtype=np.int64)
        return m.trials_of_row(int(y) // m.trials_per_row)

    def hover_text(self, x: float, y: float) -> str:
        """``"trial 7, 12 ms: 0.532"`` for view point ``(x, y)`` ("" outside the image)."""
        m = self.matrix
        trials = self.trials_at(x, y)
        t0, t1, _ = self.extent() if m is not None else (0.0, 0.0, 0)
        if m is None or not trials.size or x < t0:
            return ""
        col = min(int(np.searchsorted(m.edges, x, side="right")) - 1, m.values.shape[1] - 1)
        value = m.values[int(y) // m.trials_per_row, col]
        who = (f"trial {int(trials[0])}" if trials.size == 1
               else f"trials {', '.join(str(int(t)) for t in trials[:3])}"
               + ("…" if trials.size > 3 else ""))
        when = (f"{m.edges[col] * 1000:.4g} ms" if m.time_unit == "s"
                else f"sample {m.edges[col]:.0f}")
        return f"{who}, {when}: {value:.4g}"

    def _hover(self, scene_pos: Any) -> None:
        if self.matrix is None:
            return
        p = self.plot_item.vb.mapSceneToView(scene_pos)
        self.status.setText(self.hover_text(p.x(), p.y()) or self._summary())

    def _clicked(self, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        vb = self.plot_item.vb
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        p = vb.mapSceneToView(event.scenePos())
        trials = self.trials_at(p.x(), p.y())
        if trials.size:
            self.trials_clicked.emit(trials, event.modifiers())

    def view_point_to_widget(self, x: float, y: float) -> Any:
        """Widget coordinates (of ``plot_widget``) of view point ``(x, y)`` (tests, tools)."""
        scene = self.plot_item.vb.mapViewToScene(pg.Point(x, y))
        return self.plot_widget.mapFromScene(scene)

    # -- export ------------------------------------------------------------------
    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        return []

    def export_csv(self, path: Path) -> int:
        """Write the image: one line per row, its trials then one value per time bin
        (header: each bin's start time); returns rows written."""
        m = self.matrix
        if m is None:
            return 0
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["trials"] + [f"{self.x_label} {e!r}" for e in m.edges[:-1].tolist()])
            for r in range(m.values.shape[0]):
                w.writerow([" ".join(str(t) for t in m.trials_of_row(r).tolist())]
                           + [repr(float(v)) for v in m.values[r]])
        return int(m.values.shape[0])

