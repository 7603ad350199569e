"""Lazy line plots of neural arrays: continuous ``(time, channels)`` and epochs.

Every curve is drawn from :meth:`ArrayRef.envelope` of the visible x-range
(plus :data:`PAD_FRACTION` of a view on each side) at the plot's pixel width,
computed on a background job.  Requests are coalesced, never delayed by a
fixed wait: at most one job is in flight (key ``"plot:<id>"``).  A pan, zoom
or resize while none runs is requested on the next event-loop turn (so the
range changes of one turn make one request); while one runs, the view is
only marked *pending*, and the newest view is requested as soon as the job
ends.  A job that has run :data:`SUPERSEDE_AFTER_S` while a newer view is
pending stops at its next block and hands back the lines it finished, so a
long read (a cold chunk summary) never delays the view the user is at now,
while short ones finish and are drawn (a drag keeps updating).  No request
is made when the exact lines drawn already cover the new view at its pixel
resolution (:meth:`NeuralView.covered`).  Envelopes are drawn as a zig-zag
line through the bin minima and maxima (``connect="finite"``: NaN bins are
gaps); when zoomed in far enough the envelope is the raw samples.  Memory
held is a few points per pixel per line, whatever the array size.

Stacked lines are shown a page at a time, as EEG browsers do: as many lines
as fit at :data:`MIN_LINE_PX` each (at most :data:`MAX_AUTO_PAGE`), or the
number chosen in "per page"; PageUp/PageDown, the scroll bar beside the plot
and the mouse wheel over it move by page or line, and only the lines of the
page shown are read.  Line labels on the left axis never overlap
(:class:`LineLabelAxis`).  The legend (markers; the lines when overlaid) sits
in a row under the time axis, never over the data.  The wheel zooms time,
Ctrl+wheel the amplitude (stacked: each line about its offset); "Reset view"
(context menu, button, Ctrl+0) shows the whole time range again.  A marker
under the mouse is named in a tooltip.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
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

from inspector.formats.analysis.arrays import (
    ArrayRef,
    Envelope,
    EnvelopeCancelled,
    envelope_with_preview,
)
from inspector.formats.analysis.read_meter import ChunkMeter, metering
from inspector.jobs import JobContext, JobRunner
from inspector.ui.flow_layout import FlowLayout, group
from inspector.ui.plots.base import PlotView, ReadFailed
from inspector.ui.plots.grid_axis import GridAxis
from inspector.ui.plots.navigation import (
    AMPLITUDE_MODIFIER,
    LineKey,
    MarkerTips,
    add_marker_legend,
    add_reset_action,
    fit_legend_columns,
    install_time_wheel,
    legend_below,
    show_legend_row,
)
from inspector.ui.plots.time_axis import no_si_prefix, use_time_axis
from inspector.ui.read_progress import ReadProgress

#: Most selected trials of a continuous recording marked with a shaded span.
MAX_TRIAL_SPANS = 200
#: Most channels (and trials) offered in the selection lists.
MAX_LISTED = 4096
#: Extra range requested on each side, as a fraction of the visible width.
PAD_FRACTION = 0.5
#: Seconds a job runs before a newer pending view makes it stop (see the module docstring).
SUPERSEDE_AFTER_S = 0.1
#: A job that has run this long sends each line as it is done; a quicker one sends them all
#: at once with its result (one hand-over to the GUI thread, one redraw).
PROGRESS_AFTER_S = 0.05
#: Drawn envelopes keep serving a view while a bin is between these many pixels wide.
FINEST_BIN_PX = 0.25
COARSEST_BIN_PX = 1.5
#: At most this many trials are overlaid at once.
MAX_OVERLAY_TRIALS = 200
#: Pen and legend text of each marker kind: (opacity 0-255, style, label).  Markers are drawn
#: in the palette's text colour (black or white), so that no marker takes a line's colour.
MARKER_STYLES = {"trial_starts": (150, Qt.PenStyle.DashLine, "trial start"),
                 "trial_ends": (110, Qt.PenStyle.DotLine, "trial end"),
                 "vision_onsets": (210, Qt.PenStyle.SolidLine, "stimulus onset")}
#: Markers are drawn only when at most this many fall in the visible range.
MAX_MARKERS = 300
#: Channels selected when a continuous array is first shown.
DEFAULT_CHANNELS = 4
#: Stacked lines get at least this many pixels of height each (the page holds as many as fit).
MIN_LINE_PX = 32
#: At most this many stacked lines per page when "per page" is automatic.
MAX_AUTO_PAGE = 20
#: Stacked amplitude gain per wheel step of 120 (Ctrl+wheel) and its bounds.
GAIN_STEP = 1.25
GAIN_RANGE = (1e-3, 1e3)
#: At most this many lines are named in the legend of overlaid lines (then "N more").
MAX_LEGEND_LINES = 8

_PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22"]


def zigzag(env: Envelope) -> tuple[np.ndarray, np.ndarray]:
    """Sample-unit ``(x, y)`` to draw an envelope: raw samples, or lo/hi interleaved.

    For a binned envelope each bin gives two points at its centre (min then
    max), so one line draws the whole band at pixel resolution; NaN bins stay
    NaN (gaps with ``connect="finite"``).
    """
    if env.raw:
        return env.x.astype(np.float64), np.asarray(env.lo, dtype=np.float64)
    c = env.centers()
    x = np.repeat(c, 2)
    y = np.empty(2 * len(env))
    y[0::2] = env.lo
    y[1::2] = env.hi
    return x, y


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


def _envelope_job(ref: ArrayRef, lines: list[tuple[str, list[tuple]]],
                  span: tuple[int, int, int], gen: int, stop: threading.Event) -> Any:
    """The job function of one request: every line's envelopes over ``span = (start, stop, bins)``.

    The fraction done is counted in chunks: the distinct chunks the lines' envelopes
    read (:meth:`ArrayRef.envelope_chunks`; a chunk several channels share counts
    once) against those read so far (:mod:`~inspector.formats.analysis.read_meter`),
    sent as progress ``(done, needed, (gen, None, None))`` at most every
    :data:`~inspector.formats.analysis.read_meter.REPORT_EVERY_S`.  Each preview of a
    single line, and each finished line once the job has run :data:`PROGRESS_AFTER_S`,
    is sent as progress ``(done, needed, (gen, key, envelopes))``.
    Returns ``(gen, {key: envelopes}, span, complete)``; ``complete`` is False
    when ``stop`` was set (a newer view is pending) and the job had run
    :data:`SUPERSEDE_AFTER_S`: the lines finished by then are returned.  A read
    that the file makes fail (``OSError``) returns a :class:`ReadFailed` instead.
    Runs on a worker thread; reads only ``ref`` and its arguments.
    """
    start, end, bins = span

    def work(ctx: JobContext) -> (tuple[int, dict[str, list[Envelope]], tuple[int, int, int],
                                        bool] | ReadFailed):
        began = time.monotonic()

        def cancelled() -> bool:
            return ctx.cancelled or (stop.is_set()
                                     and time.monotonic() - began >= SUPERSEDE_AFTER_S)

        try:
            needed: set[Any] = set()
            for _key, indices in lines:
                for idx in indices:
                    needed |= ref.envelope_chunks(idx, start, end, bins)
        except OSError as exc:
            return ReadFailed.of(ref, exc)
        meter = ChunkMeter(len(needed), lambda d, n: ctx.progress(d, n, (gen, None, None)))
        del needed
        with metering(meter):
            return _read_lines(ref, lines, span, gen, ctx, meter, cancelled, began)

    return work


def _read_lines(ref: ArrayRef, lines: list[tuple[str, list[tuple]]],
                span: tuple[int, int, int], gen: int, ctx: JobContext, meter: ChunkMeter,
                cancelled: Any, began: float) -> Any:
    """The reads of :func:`_envelope_job`, inside its :func:`metering` block."""
    start, end, bins = span
    out: dict[str, list[Envelope]] = {}
    for key, indices in lines:
        envs = []
        for idx in indices:
            def preview(env: Envelope, key: str = key, n: int = len(indices)) -> None:
                if n == 1:
                    ctx.progress(meter.done, meter.needed, (gen, key, [env]))
            try:
                envs.append(envelope_with_preview(ref, idx, start, end, bins, preview,
                                                  cancelled))
            except EnvelopeCancelled:
                ctx.check()  # the view is gone: nothing is delivered
                return gen, out, span, False
            except OSError as exc:
                return ReadFailed.of(ref, exc)
            ctx.check()
        out[key] = envs
        meter.flush()
        if time.monotonic() - began >= PROGRESS_AFTER_S:
            ctx.progress(meter.done, meter.needed, (gen, key, envs))
        if cancelled():
            return gen, out, span, False
    return gen, out, span, True


def _exactness_note(exact: bool, complete: bool) -> str:
    """What the status adds about the drawn envelopes: nothing when exact; a read that
    was sampled (too costly to read whole: ``ArrayRef.sampled_read_limit``) stays so
    until the user zooms in; a job cut short for a newer view is followed by it."""
    if exact and complete:
        return ""
    if complete:
        return " (sampled: a window of each pixel's range read; zoom in for exact values)"
    return " (a quick preview; exact values follow)"


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


class _Line:
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


class NeuralView(PlotView):
    """Plot of a neural :class:`ArrayRef` (``data_mode`` continuous or epochs).

    Args:
        ref: the array; ``ref.attrs`` may hold ``sfreq`` (Hz), ``ch_names``
            and ``data_mode``.  2-D arrays are ``(time, channels)`` (or a 1-D
            line), 3-D arrays ``(trials, time, channels)``.
        jobs: runs every read.
        markers: ``{"trial_starts": array, "vision_onsets": array, ...}``
            sample positions (absolute for continuous, within the epoch for
            epochs), any may be missing.
        onset_sample: for epochs, the sample of each epoch at which the stimulus
            came on (``-trial_window[0]``, VneuroTK on-disk notes §3): time is
            then shown relative to the onset (negative before it); None shows
            time from the epoch's first sample.
        time_axis: False for an array whose document declares no time axis for it
            (not the array the trials cut): its x axis is its index, never time.
    """

    def __init__(self, ref: ArrayRef, jobs: JobRunner, markers: dict[str, Any] | None = None,
                 parent: QWidget | None = None, onset_sample: int | None = None,
                 plot_widget: pg.PlotWidget | None = None, time_axis: bool = True) -> None:
        super().__init__(parent, plot_widget)
        self.ref = ref
        self.declares_time = time_axis
        self.jobs = jobs
        self._read_shape(onset_sample)
        self._read_attrs(markers, time_axis)
        self._init_state()
        self._use_line_axis()
        self._build_controls()
        self.read_progress = ReadProgress(self.plot_widget, "chunks",
                                          "Stop reading: the plot keeps what is drawn")
        self.read_progress.cancel_requested.connect(self.cancel_read)
        self._label_axes(time_axis)
        self._set_up_view_box()
        self._setup()

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
        self.all_lines: list[_Line] = []  # every line of the selection
        self.lines: list[_Line] = []  # the lines drawn: the page shown when stacked
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

    def _set_up_view_box(self) -> None:
        """Mouse, wheel, Reset view, the legend and the marker tips."""
        vb = self.plot_item.vb
        vb.setMouseEnabled(x=True, y=True)
        vb.enableAutoRange(axis="y")
        vb.setAutoVisible(y=True)
        install_time_wheel(vb)  # the wheel zooms time; Ctrl+wheel zooms amplitude
        self._stacked_gain_wheel(vb)
        self.reset_action = add_reset_action(vb, self.reset_view, self)
        self.reset_action.setToolTip("Show the whole time range and fit the amplitude (Ctrl+0)")
        self.reset_button.setDefaultAction(self.reset_action)
        self.legend = legend_below(self.plot_item, self.palette().color(QPalette.ColorRole.Text))
        self._legend_key: tuple[Any, ...] | None = None  # what the legend shows now
        show_legend_row(self.plot_item, self.legend, False)
        self._marker_samples: list[LineKey] = []
        self.marker_tips = MarkerTips(self.plot_widget, self._drawn_markers, self._marker_text)
        self.trial_spans: list[pg.LinearRegionItem] = []  # the selected trials (continuous)

    def _stacked_gain_wheel(self, vb: pg.ViewBox) -> None:
        """Ctrl+wheel over stacked lines scales their amplitude about their offsets (the
        page and the labels stay, as in EEG browsers); otherwise the time wheel."""
        base = vb.wheelEvent

        def wheel(ev: Any, axis: int | None = None) -> None:
            if axis is None and self._stacked() and ev.modifiers() & AMPLITUDE_MODIFIER:
                self.set_gain(self.gain * GAIN_STEP ** (ev.delta() / 120.0))
                ev.accept()
                return
            base(ev, axis)

        vb.wheelEvent = wheel

    def set_gain(self, gain: float) -> None:
        """Scale the stacked lines' amplitude by ``gain`` (1: one line's range per offset)."""
        lo, hi = GAIN_RANGE
        gain = float(min(max(gain, lo), hi))
        if gain != self.gain:
            self.gain = gain
            self._restack()

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

    def _connect_controls(self) -> None:
        """The first channels (and trial) chosen; every control wired to what it changes."""
        for i in range(min(DEFAULT_CHANNELS, self.listed_channels)):
            self.channel_list.item(i).setSelected(True)
        if self.epochs and self.n_trials:
            self.trial_list.item(0).setSelected(True)
        self._count_channels()
        self.channel_list.itemSelectionChanged.connect(self._count_channels)
        self.channel_list.itemSelectionChanged.connect(self.rebuild)
        self.trial_list.itemSelectionChanged.connect(self.rebuild)
        self.mode.currentIndexChanged.connect(lambda _i: self.show_page())
        self.overlay_box.toggled.connect(self.rebuild)
        self.markers_box.toggled.connect(self._update_markers)
        self.markers_box.toggled.connect(lambda _on: self._legend_entries(self._stacked()))
        self.per_page.valueChanged.connect(lambda _v: self.show_page())
        self.page_bar.valueChanged.connect(self.set_first)
        for key, step in ((QKeySequence.StandardKey.MoveToNextPage, 1),
                          (QKeySequence.StandardKey.MoveToPreviousPage, -1)):
            shortcut = QShortcut(key, self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda step=step: self.turn_page(step))

    # -- setup ---------------------------------------------------------------------
    def _to_x(self, samples: np.ndarray | float) -> np.ndarray | float:
        shifted = samples - self.origin
        return shifted / self.sfreq if self.sfreq else shifted

    def _to_samples(self, x: float) -> float:
        return (x * self.sfreq if self.sfreq else x) + self.origin

    def _time_span(self) -> tuple[float, float]:
        """x of the first and the last sample."""
        return float(self._to_x(0.0)), float(self._to_x(float(max(self.n - 1, 1))))

    def _setup(self) -> None:
        if self.ref.ndim == 0 or self.ref.size == 0 or self.n == 0:
            self.show_placeholder(f"{self.ref.name}: empty array (shape {tuple(self.ref.shape)}): "
                                  "nothing to plot")
            return
        vb = self.plot_item.vb
        x0, x1 = self._time_span()
        margin = 0.05 * (x1 - x0) + 1e-9
        vb.setLimits(xMin=x0 - margin, xMax=x1 + margin)
        vb.setXRange(x0, x1, padding=0.02)
        vb.sigXRangeChanged.connect(self.schedule)
        vb.sigYRangeChanged.connect(self._draw_markers)
        vb.sigResized.connect(self._resized)
        # The lines are built on the next event-loop turn: building the plot and
        # its lines in one turn would keep the GUI thread busy for too long.
        self._build.start()

    def select_all_channels(self) -> None:
        """Select every listed channel (the "All" button)."""
        self.channel_list.selectAll()

    def selected_channels(self) -> list[int]:
        return sorted(self.channel_list.row(i) for i in self.channel_list.selectedItems())

    def selected_trials(self) -> list[int]:
        return sorted(self.trial_list.row(i) for i in self.trial_list.selectedItems())

    def _index(self, trial: int | None, ch: int) -> tuple:
        if self.ref.ndim == 1:
            return (None,)
        if self.epochs:
            return (trial, None, ch)
        return (None, ch) if self.ref.sample_axis == 0 else (ch, None)

    def _selection_lines(self) -> list[_Line]:
        """One line per selected channel (per selected trial and channel for epochs; per
        channel, every trial overlaid, with "All trials overlaid")."""
        chans = self.selected_channels()
        out = []
        if self.epochs:
            if self.overlay_box.isChecked():
                all_t = list(range(min(self.n_trials, MAX_OVERLAY_TRIALS)))
                for k, c in enumerate(chans):
                    out.append(_Line(f"all:{c}", f"{self.ch_names[c]} (all trials)",
                                     [self._index(t, c) for t in all_t],
                                     _PALETTE[k % len(_PALETTE)], k))
                return out
            for t in self.selected_trials():
                for c in chans:
                    k = len(out)
                    out.append(_Line(f"{t}:{c}", f"{self.ch_names[c]} trial {t}",
                                     [self._index(t, c)], _PALETTE[k % len(_PALETTE)], k))
            return out
        for k, c in enumerate(chans):
            out.append(_Line(str(c), self.ch_names[c], [self._index(None, c)],
                             _PALETTE[k % len(_PALETTE)], k))
        return out

    def rebuild(self) -> None:
        """Recreate the lines for the current channel/trial selection; show the first page."""
        self._build.stop()
        self.all_lines = self._selection_lines()
        self.first = 0
        self.show_page()

    # -- pages of stacked lines ----------------------------------------------------
    def page_size(self) -> int:
        """Stacked lines shown at once: the "per page" choice, else as many as fit at
        :data:`MIN_LINE_PX` each (at most :data:`MAX_AUTO_PAGE`, at least 1)."""
        if self.per_page.value() > 0:
            return int(self.per_page.value())
        height = self.plot_item.vb.height()
        return max(1, min(MAX_AUTO_PAGE, int(height // MIN_LINE_PX)))

    def _paged(self) -> bool:
        return self.mode.currentText() == "Stacked" and len(self.all_lines) > 1

    def set_first(self, first: int) -> None:
        """Show the page of stacked lines starting at line ``first`` (clamped)."""
        last = max(0, len(self.all_lines) - self.page_size())
        first = int(min(max(first, 0), last))
        if first != self.first:
            self.first = first
            self.show_page()

    def turn_page(self, step: int) -> None:
        """Show the next (``step`` = 1) or previous (-1) page of stacked lines."""
        if self._paged():
            self.set_first(self.first + step * self.page_size())

    def page(self) -> tuple[int, int, int]:
        """``(first, stop, total)``: lines ``first:stop`` of ``total`` are drawn."""
        return self.first, self.first + len(self.lines), len(self.all_lines)

    def _resized(self, *args: Any) -> None:
        """A new height may fit another number of lines: show that page (else just redraw)."""
        size = self.page_size()
        if self._paged() and len(self.lines) != min(size, len(self.all_lines) - self.first):
            self.show_page()
        else:
            self.schedule()

    def _update_page_controls(self) -> None:
        paged = self._paged()
        total = len(self.all_lines)
        size = self.page_size()
        more = paged and total > size
        bar = self.page_bar
        bar.blockSignals(True)
        bar.setRange(0, max(0, total - size))
        bar.setPageStep(size)
        bar.setValue(self.first)
        bar.blockSignals(False)
        bar.setVisible(more)
        for widget in (self.per_page, self.per_page_label):
            widget.setVisible(self.mode.currentText() == "Stacked")
        self.page_label.setText(f"lines {self.first + 1}–{self.first + len(self.lines)} of "
                                f"{total}" if more else "")

    def show_page(self) -> None:
        """Draw the lines of the current page (every line when overlaid); read the new ones.

        Lines that stay drawn keep their data (a switch between stacked and
        overlaid reads nothing); lines that leave are dropped with their data.
        """
        if self._paged():
            self.first = min(self.first, max(0, len(self.all_lines) - self.page_size()))
            lines = self.all_lines[self.first:self.first + self.page_size()]
        else:
            self.first = 0
            lines = list(self.all_lines)
        kept = {id(line) for line in lines}
        for line in self.lines:
            if id(line) in kept:
                continue
            if line.item is not None:
                self.plot_item.removeItem(line.item)
            line.item, line.envs, line.x, line.y, line.mid = None, None, None, None, None
            line.exact = line.raw = False
        self.lines = lines
        for slot, line in enumerate(lines):
            line.slot = slot
        self._update_page_controls()
        new = [line for line in lines if line.item is None]
        for line in new:
            self._add_item(line)
        self._fit = True
        self.plot_item.vb.enableAutoRange(axis="y")
        if new or not lines:
            self._drawn = None
            self._restack()
            self._update_markers()
            self.request()
        elif all(line.x is not None for line in lines):
            self.fit_amplitude()
            self._update_markers()
        else:  # their data is on its way: the job that brings it fits the amplitude
            self._restack()
            self._update_markers()

    def _add_item(self, line: _Line) -> None:
        """The plot item of ``line`` (unnamed: :meth:`_legend_entries` fills the legend)."""
        pen = pg.mkPen(line.color, width=1)
        if len(line.indices) > 1:
            c = pg.mkColor(line.color)
            c.setAlpha(90)
            pen = pg.mkPen(c, width=1)
        if self.n == 1:  # one sample: a symbol, not a line
            line.item = pg.PlotDataItem(pen=pen, symbol="o", symbolBrush=pg.mkBrush(line.color))
        else:  # a plain curve: much lighter to build and to update than a PlotDataItem
            line.item = pg.PlotCurveItem(pen=pen, connect="finite", skipFiniteCheck=False)
        self.plot_item.addItem(line.item)

    # -- requests ------------------------------------------------------------------
    def schedule(self, *args: Any) -> None:
        """The view changed (pan/zoom/resize): request it on the next turn, or mark it pending."""
        if self._in_flight:
            self._mark_pending()
            return
        self._kick.start()

    def _mark_pending(self) -> None:
        self._pending = True
        if self._stop is not None:
            self._stop.set()

    def is_idle(self) -> bool:
        """No job in flight, no view pending or about to be requested."""
        return not (self._in_flight or self._pending or self._kick.isActive()
                    or self._build.isActive())

    def visible_samples(self) -> tuple[int, int, int]:
        """``(start, stop, bins)`` to request: visible range plus padding, pixel bins."""
        (x0, x1), _ = self.plot_item.vb.viewRange()
        s0 = self._to_samples(x0)
        s1 = self._to_samples(x1)
        w = max(s1 - s0, 1.0)
        a = int(np.floor(max(0.0, s0 - PAD_FRACTION * w)))
        b = int(np.ceil(min(float(self.n), s1 + PAD_FRACTION * w + 1)))
        px = self._pixels()
        bins = max(1, int(px * (b - a) / w))
        return a, max(b, a + 1), bins

    def _pixels(self) -> int:
        px = self.plot_item.vb.width()
        try:
            px *= self.plot_widget.devicePixelRatioF()
        except AttributeError:
            pass
        return max(int(px), 200)

    def covered(self) -> bool:
        """True when the exact lines drawn serve the current view: no request is needed.

        They must span the visible samples, and their bins must be between
        :data:`FINEST_BIN_PX` and :data:`COARSEST_BIN_PX` pixels wide (raw
        samples serve any zoom inside their range).
        """
        if self._drawn is None or not self.lines:
            return False
        d0, d1, dbins = self._drawn
        (x0, x1), _ = self.plot_item.vb.viewRange()
        s0, s1 = self._to_samples(x0), self._to_samples(x1)
        if max(s0, 0.0) < d0 or min(s1, float(self.n)) > d1:
            return False
        if all(ln.raw for ln in self.lines):
            return True
        bin_px = (d1 - d0) / dbins / (max(s1 - s0, 1e-12) / self._pixels())
        return FINEST_BIN_PX <= bin_px <= COARSEST_BIN_PX

    def _request_view(self) -> None:
        """The pending or scheduled view: requested unless what is drawn covers it."""
        self._update_markers()
        if self.covered():
            if self._fit:
                self.fit_amplitude()
            return
        self.request()

    def request(self) -> None:
        """Submit one job computing the envelopes of every line for the visible range.

        With a job in flight the request is only marked pending (and made when
        that job ends): never more than one job at a time.
        """
        if not self.lines or self.n == 0:
            return
        if self._in_flight:
            self._mark_pending()
            return
        self._kick.stop()
        self._update_markers()
        self.generation += 1
        span = self.visible_samples()
        stop = threading.Event()
        self._stop = stop
        work = _envelope_job(self.ref, [(ln.key, list(ln.indices)) for ln in self.lines], span,
                             self.generation, stop)
        self._in_flight = True
        self._pending = False
        self.submitted += 1
        self.status.setText("reading…")
        self.read_progress.start()  # (the job counts the chunks it needs first)
        self.jobs.submit(work, on_done=self._done, on_error=self._failed,
                         on_progress=self._progress, key=self.job_keys()[0])

    def cancel_read(self) -> None:
        """Stop the read in flight (Cancel): what is drawn stays; panning, zooming or
        Reset view reads again."""
        if not self._in_flight:
            return
        self.jobs.cancel(self.job_keys()[0])
        self.read_progress.finish()
        self._in_flight = False
        self._pending = False
        self._stop = None
        self._drawn = None
        self._kick.stop()
        self.status.setText("reading cancelled: the plot shows what was read; pan, zoom or "
                            "Reset view to read again")

    def job_keys(self) -> tuple[str, ...]:
        """The key of this view's envelope reads (see :meth:`PlotView.job_keys`)."""
        return (f"plot:{id(self)}",)

    def _progress(self, done: int, total: int, payload: Any) -> None:
        gen, key, envs = payload
        if gen == self.generation:
            if envs is not None:
                self._apply(key, envs)
            self.read_progress.update_progress(done, total)

    def _done(self, result: Any) -> None:
        self.read_progress.finish()
        if isinstance(result, ReadFailed):
            self._failed(result.message, "")
            self.report(result)
            return
        gen, out, span, complete = result
        self._in_flight = False
        self._stop = None
        if gen == self.generation:
            for key, envs in out.items():
                self._apply(key, envs)
            exact = all(ln.exact for ln in self.lines)
            raw = all(ln.raw for ln in self.lines)
            self._drawn = span if complete and exact else None
            if complete and self._fit and all(ln.x is not None for ln in self.lines):
                self.fit_amplitude()
            self.status.setText(("every sample drawn" if raw
                                 else "showing the range of values per screen pixel")
                                + _exactness_note(exact, complete))
        self._next()

    def _next(self) -> None:
        """The job ended: request the view that became pending meanwhile."""
        if self._pending:
            self._pending = False
            self._request_view()

    def _failed(self, message: str, tb: str) -> None:
        self.read_progress.finish()
        self._in_flight = False
        self._stop = None
        self._drawn = None
        self.status.setText(f"cannot read {self.ref.name}: {message}")
        self._next()

    def _apply(self, key: str, envs: list[Envelope]) -> None:
        line = next((ln for ln in self.lines if ln.key == key), None)
        if line is None or not envs or line.envs is envs:
            return  # unknown line, nothing, or drawn already (the job's last progress)
        line.envs = envs
        had_data = line.x is not None
        xs, ys = [], []
        for env in envs:
            x, y = zigzag(env)
            xs.append(x)
            ys.append(y)
            if len(envs) > 1:
                xs.append(np.array([np.nan]))
                ys.append(np.array([np.nan]))
        line.x = np.concatenate(xs)
        line.y = np.concatenate(ys)
        line.exact = all(e.exact for e in envs)
        line.raw = all(e.raw for e in envs)
        self._restack(line if had_data else None)  # a first curve also needs its y tick

    # -- drawing -------------------------------------------------------------------
    def _restack(self, changed: _Line | None = None) -> None:
        """Draw the lines, stacked (offset per line) or overlaid.

        With ``changed``, only that line got new data: the others are redrawn
        only if the stacking offsets changed.
        """
        stacked = self._stacked()
        spacing = self.spacing
        if self._fit or not spacing:  # else kept: zooming time does not move the lines
            spans = []
            for ln in self.lines:
                if ln.y is not None and np.isfinite(ln.y).any():
                    spans.append(float(np.nanmax(ln.y) - np.nanmin(ln.y)))
            spacing = (max(spans) if spans else 1.0) or 1.0
        if changed is not None and (spacing == self.spacing or not stacked):
            self.spacing = spacing
            self._set_line_data(changed, stacked)
            return
        self.spacing = spacing
        ticks = []
        for ln in self.lines:
            self._set_line_data(ln, stacked)
            if stacked and ln.item is not None and ln.x is not None:
                ticks.append((-ln.slot * self.spacing * 1.1, ln.label))
        left = self.plot_item.getAxis("left")
        self._legend_entries(stacked)
        if stacked:
            left.setTicks([ticks, []])
            self.plot_item.setLabel("left", f"{self.y_label} (offset per line)")
        else:
            left.setTicks(None)
            self.plot_item.setLabel("left", self.y_label)

    def _set_line_data(self, ln: _Line, stacked: bool) -> None:
        if ln.item is None:
            return
        if ln.x is None:
            ln.item.setData([], [])
            return
        y: Any = ln.y
        if stacked and y is not None:
            if self._fit or ln.mid is None:
                ln.mid = float(np.nanmean(y)) if np.isfinite(y).any() else 0.0
            y = (y - ln.mid) * self.gain - ln.slot * self.spacing * 1.1
        ln.item.setData(self._to_x(ln.x), y, connect="finite")

    def _update_markers(self, *args: Any) -> None:
        """Draw trial boundaries and onsets in the visible range (one item per kind).

        Each kind is one ``PlotCurveItem`` of vertical segments
        (``connect="pairs"``) spanning the current y-range, ignored by
        autoscaling.
        """
        self._marker_positions = {}
        if self._markers_shown():
            (x0, x1), _ = self.plot_item.vb.viewRange()
            total = 0
            trials = self._marker_trials()
            for name, arr in self.markers.items():
                if self.epochs:
                    vals = arr[[t for t in trials if t < arr.size]]
                else:
                    vals = arr
                xs = np.asarray(self._to_x(vals[np.isfinite(vals)]), dtype=np.float64)
                xs = np.unique(xs[(xs >= x0) & (xs <= x1)])
                self._marker_positions[name] = xs
                total += xs.size
            if total > MAX_MARKERS:
                self.status.setText(f"{total} markers in view: zoom in to see them")
                self._marker_positions = {}
        self._draw_markers()

    def _draw_markers(self, *args: Any) -> None:
        _, (y0, y1) = self.plot_item.vb.viewRange()
        for name in list(self._marker_items):
            if name not in self._marker_positions:
                self.plot_item.removeItem(self._marker_items.pop(name))
        for name, xs in self._marker_positions.items():
            item = self._marker_items.get(name)
            if item is None:
                color, style, _label = self.marker_style(name)
                item = pg.PlotCurveItem(pen=pg.mkPen(color, style=style), name=None)
                item.setZValue(-5)
                self.plot_item.addItem(item, ignoreBounds=True)
                self._marker_items[name] = item
            x = np.repeat(xs, 2)
            y = np.tile([y0, y1], xs.size).astype(np.float64)
            item.setData(x, y, connect="pairs")

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(label, x, y)`` of every line as drawn (x in seconds or samples; offsets included)."""
        out = []
        for ln in self.lines:
            if ln.item is None or ln.x is None:
                continue
            x, y = ln.item.getData()
            if x is not None:
                out.append((ln.label, np.asarray(x, dtype=np.float64),
                            np.asarray(y, dtype=np.float64)))
        return out

    def _stacked(self) -> bool:
        return self._paged()

    def _legend_entries(self, stacked: bool) -> None:
        """The legend under the time axis: the lines when overlaid (at most
        :data:`MAX_LEGEND_LINES`, then how many more; stacked, the y labels name them),
        then one entry per marker kind while markers are shown.  Rebuilt only when
        one of these changed (each entry is a graphics item: about 1 ms apiece)."""
        named = [] if stacked else [ln for ln in self.lines if ln.item is not None]
        kinds = ({k: self.marker_style(k) for k in self.markers}
                 if self._markers_shown() else {})
        key = (stacked, tuple((id(ln.item), ln.label) for ln in named[:MAX_LEGEND_LINES]),
               len(named), tuple(kinds.items()))
        if key == self._legend_key:
            return
        self._legend_key = key
        legend = self.legend
        legend.clear()
        for ln in named[:MAX_LEGEND_LINES]:
            legend.addItem(ln.item, ln.label)
        if len(named) > MAX_LEGEND_LINES:
            legend.addItem(LineKey(pg.mkPen(None)),  # (no graphics item outside a scene)
                           f"… {len(named) - MAX_LEGEND_LINES} more")
        self._marker_samples = add_marker_legend(legend, kinds)
        fit_legend_columns(self.plot_item, legend)
        show_legend_row(self.plot_item, legend, bool(legend.items))

    def legend_labels(self) -> list[str]:
        """The texts of the legend's entries, in order (empty when it is hidden)."""
        if not self.legend.isVisible():
            return []
        return [label.text for _sample, label in self.legend.items]

    def show_trials(self, trials: np.ndarray) -> int:
        """Mark the selected ``trials`` (positions) of a continuous recording with shaded
        spans from trial start to trial end (at most :data:`MAX_TRIAL_SPANS`), and bring
        the first into view (keeping the zoom, or showing the whole trial when it is wider
        than the view).  Returns the number of spans drawn (0 for epochs, or without
        trial starts)."""
        for span in self.trial_spans:
            self.plot_item.removeItem(span)
        self.trial_spans = []
        starts = self.markers.get("trial_starts")
        if self.epochs or starts is None or not len(trials):
            return 0
        ends = self.markers.get("trial_ends")
        color = self.palette().color(QPalette.ColorRole.Highlight)
        color.setAlpha(60)
        shown = [int(t) for t in trials if 0 <= int(t) < starts.size][:MAX_TRIAL_SPANS]
        for t in shown:
            a = float(self._to_x(float(starts[t])))
            b = float(self._to_x(float(ends[t]))) if ends is not None and t < ends.size else a
            span = pg.LinearRegionItem((a, max(b, a)), movable=False, brush=pg.mkBrush(color),
                                       pen=pg.mkPen(None))
            span.setZValue(-10)
            self.plot_item.addItem(span, ignoreBounds=True)
            self.trial_spans.append(span)
        if shown:
            self._bring_into_view(*self.trial_spans[0].getRegion())
        return len(shown)

    def _bring_into_view(self, a: float, b: float) -> None:
        (x0, x1), _ = self.plot_item.vb.viewRange()
        if x0 <= a and b <= x1:
            return
        width = max(x1 - x0, (b - a) * 1.5)
        centre = (a + b) / 2
        self.plot_item.vb.setXRange(centre - width / 2, centre + width / 2, padding=0)

    def reset_view(self) -> None:
        """The whole time axis; the amplitude fitted to the lines in view again, stacked
        lines at gain 1 (the page of stacked lines stays)."""
        vb = self.plot_item.vb
        self._fit = True
        self.gain = 1.0
        vb.enableAutoRange(axis="y")
        if self.n:
            vb.setXRange(*self._time_span(), padding=0.02)

    def fit_amplitude(self) -> None:
        """Set the stacking offsets and the amplitude range from the lines drawn now; both
        then stay while time is zoomed or panned (until a new page, mode or Reset view)."""
        gain, self.gain = self.gain, 1.0  # the range holds the lines at gain 1
        self._fit = True
        self._restack()
        self._fit = False
        lows, highs = [], []
        for ln in self.lines:
            if ln.item is None or ln.x is None:
                continue
            _x, y = ln.item.getData()
            y = np.asarray(y, dtype=np.float64) if y is not None else np.empty(0)
            finite = y[np.isfinite(y)]
            if finite.size:
                lows.append(float(finite.min()))
                highs.append(float(finite.max()))
        if not lows:
            self.plot_item.vb.enableAutoRange(axis="y")
            self.set_gain(gain)
            return
        lo, hi = min(lows), max(highs)
        if not hi > lo:
            lo, hi = lo - 0.5, hi + 0.5
        self.plot_item.vb.setYRange(lo, hi, padding=0.05)
        self.set_gain(gain)

    def marker_style(self, name: str) -> tuple[Any, Qt.PenStyle, str]:
        """``(colour, pen style, legend text)`` of marker kind ``name``, for this palette."""
        alpha, style, label = MARKER_STYLES.get(name, (150, Qt.PenStyle.DashDotLine, name))
        color = self.palette().color(QPalette.ColorRole.Text)
        color.setAlpha(alpha)
        return color, style, label

    def palette_changed(self) -> None:
        """The theme changed: markers and their legend in the new text colour."""
        if not hasattr(self, "legend"):  # a palette event while the view is being built
            return
        for name in list(self._marker_items):
            self.plot_item.removeItem(self._marker_items.pop(name))
        self._draw_markers()
        self._legend_key = None  # rebuilt in the new palette
        self._legend_entries(self._stacked())

    def _marker_trials(self) -> list[int]:
        """The trials whose markers are drawn (epochs): the overlaid ones, else the selected."""
        if self.overlay_box.isChecked():
            return list(range(min(self.n_trials, MAX_OVERLAY_TRIALS)))
        return self.selected_trials()

    def _markers_shown(self) -> bool:
        return (self.markers_box.isChecked() and bool(self.markers) and self.n > 0
                and (not self.epochs or bool(self._marker_trials())))

    def _drawn_markers(self) -> dict[str, np.ndarray]:
        """x of the markers drawn, at the index of their trial (NaN where not drawn)."""
        out = {}
        for name, arr in self.markers.items():
            if name not in self._marker_positions:
                continue
            x = np.asarray(self._to_x(arr), dtype=np.float64)
            if self.epochs:  # only the drawn trials' markers are drawn
                trials = [t for t in self._marker_trials() if t < arr.size]
                drawn = np.full(arr.size, np.nan)
                drawn[trials] = x[trials]
                x = drawn
            out[name] = x
        return out

    def _marker_text(self, name: str, trial: int, x: float) -> str:
        label = self.marker_style(name)[2]
        where = f"{x:.6g} s" if self.sfreq else f"sample {x:.0f}"
        return f"{label} of trial {trial}: {where}"

    def marker_count(self) -> int:
        """Number of marker lines currently drawn."""
        return int(sum(xs.size for xs in self._marker_positions.values()))
