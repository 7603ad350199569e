"""The state of a neural plot: its array's shape and attributes, its controls and lists.

:class:`NeuralState` is the first layer of
:class:`~inspector.ui.plots.neural.NeuralView`: what it reads of the array
(time axis, channels, trials, sampling rate, markers), the state its reads and
lines start from, the controls above the plot and the channel and trial lists
beside it, and the conversions between samples and the x axis.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QScrollBar,
    QSpinBox,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.analysis.arrays import ArrayRef, Envelope
from inspector.ui.flow_layout import FlowLayout, group
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.grid_axis import GridAxis
from inspector.ui.plots.time_axis import no_si_prefix, use_time_axis

#: Most channels (and trials) offered in the selection lists.
MAX_LISTED = 4096


def _as_array(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    if isinstance(value, ArrayRef):
        try:
            value = value.read()
        except (OSError, ValueError):
            return None
    try:
        arr = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return None
    return arr


class LineLabelAxis(GridAxis):
    """A vertical axis whose tick labels never overlap: a label that would overlap the one
    kept above it is left out (its tick stays), so zooming out the amplitude thins them."""

    def generateDrawSpecs(self, p: Any) -> Any:  # noqa: N802 - pyqtgraph override
        specs = super().generateDrawSpecs(p)
        if specs is None:
            return None
        axis, ticks, texts = specs
        kept: list[tuple] = []
        for spec in sorted(texts, key=lambda t: t[0].top()):
            if kept and spec[0].intersects(kept[-1][0]):
                continue
            kept.append(spec)
        return axis, ticks, kept

    def label_rects(self) -> list[tuple[Any, str]]:
        """``(rect, text)`` of every tick label as it is drawn now (tests)."""
        from PySide6.QtGui import QImage, QPainter

        image = QImage(4, 4, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        try:
            painter.setFont(self.style.get("tickFont") or painter.font())
            specs = self.generateDrawSpecs(painter)
        finally:
            painter.end()
        return [] if specs is None else [(rect, text) for rect, _flags, text in specs[2]]


class DrawnLine:
    """One drawn line (or an overlay of several lines drawn as one item)."""

    def __init__(self, key: str, label: str, indices: list[tuple], color: str,
                 offset_slot: int) -> None:
        self.key = key
        self.label = label
        self.indices = indices
        self.color = color
        self.slot = offset_slot
        self.item: pg.PlotCurveItem | pg.PlotDataItem | None = None
        self.envs: list[Envelope] | None = None  # what x and y were made from
        self.x: np.ndarray | None = None  # sample units
        self.y: np.ndarray | None = None
        self.exact = False
        self.raw = False
        self.mid: float | None = None  # the value drawn at the line's stacking offset


class NeuralState(PlotView):
    """The array's shape and attributes, the controls and lists, the sample conversions.

    Attributes:
        ref: the plotted array (set by :class:`~inspector.ui.plots.neural.NeuralView`).
    """

    ref: ArrayRef

    def _read_shape(self, onset_sample: int | None) -> None:
        """Time axis, samples, channels and trials of :attr:`ref`."""
        ref = self.ref
        self.epochs = ref.ndim == 3
        self.time_axis = 1 if self.epochs else (ref.sample_axis if ref.ndim == 2 else 0)
        self.n = int(ref.shape[self.time_axis]) if ref.ndim else 0
        self.n_channels = int(ref.shape[-1 if self.time_axis != ref.ndim - 1 else 0]) \
            if ref.ndim >= 2 else 1
        self.n_trials = int(ref.shape[0]) if self.epochs else 0
        self.origin = int(onset_sample) if self.epochs and onset_sample is not None else 0

    def _read_attrs(self, markers: dict[str, Any] | None, time_axis: bool) -> None:
        """Sampling rate, unit, channel names and markers from what the document says."""
        ref = self.ref
        sf = ref.attrs.get("sfreq")
        try:
            sf = float(sf) if sf is not None else None
        except (TypeError, ValueError):
            sf = None
        self.sfreq = sf if time_axis and sf and np.isfinite(sf) and sf > 0 else None
        self.x_label = ("s" if self.sfreq else "samples") if time_axis else "index"
        unit = ref.attrs.get("unit")
        self.y_label = f"value ({unit})" if unit else "value"
        stored: Any = ref.attrs.get("ch_names")
        names: list[str] | None = None
        try:
            if stored is not None and len(stored) == self.n_channels:
                names = [str(c) for c in stored]
        except TypeError:
            names = None
        # Lists stay proportional to the screen, not to the array: a declared
        # (10, 64, 2**40) array must not build 2**40 list items.
        self.listed_channels = min(self.n_channels, MAX_LISTED)
        self.listed_trials = min(self.n_trials, MAX_LISTED)
        if names is None:
            names = [f"ch {i}" for i in range(self.listed_channels)]
        self.ch_names = names[: self.listed_channels]
        self.markers = {k: a for k, a in ((k, _as_array(v)) for k, v in (markers or {}).items())
                        if a is not None}

    def _init_state(self) -> None:
        """The lines, the reads in flight and the timers that drive them (none yet)."""
        self.generation = 0
        self.all_lines: list[DrawnLine] = []  # every line of the selection
        self.lines: list[DrawnLine] = []  # the lines drawn: the page shown when stacked
        self.first = 0  # index in all_lines of the first stacked line shown
        self.submitted = 0  # jobs submitted (tests: coalescing)
        self.spacing = 0.0
        self.gain = 1.0  # stacked lines' amplitude scale about their offsets (Ctrl+wheel)
        self._fit = True  # the next drawn lines set the stacking and the amplitude range
        self._marker_items: dict[str, pg.PlotCurveItem] = {}
        self._marker_positions: dict[str, np.ndarray] = {}
        self._in_flight = False
        self._pending = False
        self._stop: threading.Event | None = None  # tells the job in flight to give way
        self._drawn: tuple[int, int, int] | None = None  # exact (start, stop, bins) shown
        self._kick = QTimer(self)  # the next event-loop turn: one request per turn
        self._kick.setSingleShot(True)
        self._kick.setInterval(0)
        self._kick.timeout.connect(self._request_view)
        self._build = QTimer(self)  # builds the lines once, after construction
        self._build.setSingleShot(True)
        self._build.setInterval(0)
        self._build.timeout.connect(self.rebuild)

    def _label_axes(self, time_axis: bool) -> None:
        """Time (or samples) from the onset, or the index when no time axis is declared."""
        what = "time" if self.sfreq else "sample"
        label = f"{what} from stimulus onset" if self.origin else what
        if self.sfreq:  # seconds or h:mm:ss, never an SI prefix ("time (ks)")
            use_time_axis(self.plot_item, label)
        elif not time_axis:
            self.plot_item.setLabel("bottom", "index")
        else:
            self.plot_item.setLabel("bottom", label, units=self.x_label)
            no_si_prefix(self.plot_item.getAxis("bottom"))
        self.plot_item.setLabel("left", self.y_label)
        # grid lines at the labelled and the first minor ticks only: finer ones crowd
        # the traces and look like markers
        self.plot_item.getAxis("bottom").setStyle(maxTickLevel=1)

    def _use_line_axis(self) -> None:
        """Replace the left axis by a :class:`LineLabelAxis` in the palette's text colour."""
        axis = LineLabelAxis("left")
        self.plot_item.setAxisItems({"left": axis})
        text = self.palette().color(QPalette.ColorRole.Text)
        axis.setPen(pg.mkPen(text))
        axis.setTextPen(pg.mkPen(text))

    # -- controls ------------------------------------------------------------------
    def _count_channels(self) -> None:
        shown = len(self.channel_list.selectedItems())
        self.channel_label.setText(
            f"Channels: {shown:,} of {self.n_channels:,} shown{self._channel_more}")

    def _build_controls(self) -> None:
        row = FlowLayout()
        self.mode = QComboBox()
        self.mode.addItems(["Stacked", "Overlaid"])
        self.markers_box = QCheckBox("Markers")
        self.markers_box.setChecked(True)
        self.markers_box.setEnabled(bool(self.markers))
        self.markers_box.setToolTip("Trial boundaries and stimulus onsets")
        self.overlay_box = QCheckBox("All trials overlaid")
        self.overlay_box.setVisible(self.epochs)
        self.per_page = QSpinBox()
        self.per_page.setRange(0, max(1, min(self.n_channels * max(self.n_trials, 1), 256)))
        self.per_page.setSpecialValueText("auto")
        self.per_page.setToolTip("Stacked lines shown at once (auto: as many as fit at a "
                                 "readable height); PageUp/PageDown show the next ones")
        self.page_label = QLabel()
        self.reset_button = QToolButton()  # its action is the context menu's Reset view
        self.per_page_label = QLabel("per page")
        self.all_channels = QPushButton("All channels")
        self.all_channels.setToolTip("Plot every listed channel (stacked: a page at a time)")
        self.all_channels.clicked.connect(self.select_all_channels)
        # the controls wrap onto a second line in a narrow pane rather than widen it
        for widget in (group(QLabel("Channels:"), self.mode), self.all_channels,
                       group(self.per_page_label, self.per_page), self.overlay_box,
                       self.markers_box, self.page_label, self.reset_button):
            row.addWidget(widget)
        self.controls.addLayout(row)
        self._build_lists()
        self._connect_controls()

    def _build_lists(self) -> None:
        """The channel and trial lists left of the plot, the page scroll bar right of it."""
        self.channel_list = QListWidget()
        self.channel_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.channel_list.addItems(self.ch_names)
        self.trial_list = QListWidget()
        self.trial_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.trial_list.addItems([f"trial {i}" for i in range(self.listed_trials)])
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        more = ("" if self.listed_channels == self.n_channels
                else f" (first {self.listed_channels:,} of {self.n_channels:,})")
        self.channel_label = QLabel("Channels" + more)
        self.channel_label.setToolTip("Ctrl-click or Shift-click to choose the channels plotted")
        self._channel_more = more
        sl.addWidget(self.channel_label)
        sl.addWidget(self.channel_list, 2)
        if self.epochs:
            more = ("" if self.listed_trials == self.n_trials
                    else f" (first {self.listed_trials:,} of {self.n_trials:,})")
            sl.addWidget(QLabel("Trials" + more))
            sl.addWidget(self.trial_list, 1)
        # put the lists left of the plot, the page scroll bar right of it
        stack_parent = self._stack.parentWidget()
        lay = stack_parent.layout() if stack_parent is not None else None
        assert lay is not None  # (PlotView lays the stack out)
        split = QSplitter(Qt.Orientation.Horizontal)
        lay.replaceWidget(self._stack, split)
        self.page_bar = QScrollBar(Qt.Orientation.Vertical)
        self.page_bar.setToolTip("Stacked lines: scroll by line, click the trough for a page")
        self.page_bar.hide()
        holder = QWidget()
        hl = QHBoxLayout(holder)
        hl.setContentsMargins(0, 0, 0, 0)
        hl.setSpacing(0)
        hl.addWidget(self._stack, 1)
        hl.addWidget(self.page_bar)
        split.addWidget(side)
        split.addWidget(holder)
        split.setStretchFactor(1, 1)
        split.setSizes([140, 600])
        self.splitter = split

    # -- setup ---------------------------------------------------------------------
    def _to_x(self, samples: np.ndarray | float) -> np.ndarray | float:
        shifted = samples - self.origin
        return shifted / self.sfreq if self.sfreq else shifted

    def _to_samples(self, x: float) -> float:
        return (x * self.sfreq if self.sfreq else x) + self.origin

    def _time_span(self) -> tuple[float, float]:
        """x of the first and the last sample."""
        return float(self._to_x(0.0)), float(self._to_x(float(max(self.n - 1, 1))))

    def _index(self, trial: int | None, ch: int) -> tuple:
        if self.ref.ndim == 1:
            return (None,)
        if self.epochs:
            return (trial, None, ch)
        return (None, ch) if self.ref.sample_axis == 0 else (ch, None)

    def select_all_channels(self) -> None:
        """Select every listed channel (the "All" button)."""
        self.channel_list.selectAll()

    def selected_channels(self) -> list[int]:
        return sorted(self.channel_list.row(i) for i in self.channel_list.selectedItems())

    def selected_trials(self) -> list[int]:
        return sorted(self.trial_list.row(i) for i in self.trial_list.selectedItems())

    # -- made by the layers above ----------------------------------------------------
    def rebuild(self) -> None:
        """Recreate the lines of the selection (:class:`~inspector.ui.plots.neural.NeuralView`)."""
        raise NotImplementedError

    def _request_view(self) -> None:
        """Request the view shown now (:class:`~inspector.ui.plots.neural.NeuralView`)."""
        raise NotImplementedError

    def _connect_controls(self) -> None:
        """Wire the controls (:class:`~inspector.ui.plots.neural.NeuralView`)."""
        raise NotImplementedError
