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
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.capabilities import TrialStructure
from inspector.jobs import JobRunner
from inspector.ui.plots.base import ReadFailed
from inspector.ui.plots.neural_lines import MAX_AUTO_PAGE, MAX_OVERLAY_TRIALS, MIN_LINE_PX
from inspector.ui.plots.neural_markers import (
    MARKER_STYLES,
    MAX_LEGEND_LINES,
    MAX_MARKERS,
    MAX_TRIAL_SPANS,
    NeuralMarkers,
)
from inspector.ui.plots.neural_reads import (
    PROGRESS_AFTER_S,
    SUPERSEDE_AFTER_S,
    envelope_job,
    exactness_note,
    zigzag,
)
from inspector.ui.plots.neural_state import MAX_LISTED, LineLabelAxis
from inspector.ui.plots.view_request import ArrayView, ViewRequest
from inspector.ui.read_progress import ReadProgress

__all__ = ["COARSEST_BIN_PX", "DEFAULT_CHANNELS", "FINEST_BIN_PX", "LineLabelAxis",
           "MARKER_STYLES", "MAX_AUTO_PAGE", "MAX_LEGEND_LINES", "MAX_LISTED", "MAX_MARKERS",
           "MAX_OVERLAY_TRIALS", "MAX_TRIAL_SPANS", "MIN_LINE_PX", "NeuralView", "PAD_FRACTION",
           "PROGRESS_AFTER_S", "SUPERSEDE_AFTER_S", "zigzag"]

#: Extra range requested on each side, as a fraction of the visible width.
PAD_FRACTION = 0.5
#: Drawn envelopes keep serving a view while a bin is between these many pixels wide.
FINEST_BIN_PX = 0.25
COARSEST_BIN_PX = 1.5
#: Channels selected when a continuous array is first shown.
DEFAULT_CHANNELS = 4


class NeuralView(NeuralMarkers):
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


    def rebuild(self) -> None:
        """Recreate the lines for the current channel/trial selection; show the first page."""
        self._build.stop()
        self.all_lines = self._selection_lines()
        self.first = 0
        self.show_page()


    def _resized(self, *args: Any) -> None:
        """A new height may fit another number of lines: show that page (else just redraw)."""
        size = self.page_size()
        if self._paged() and len(self.lines) != min(size, len(self.all_lines) - self.first):
            self.show_page()
        else:
            self.schedule()


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
        work = envelope_job(self.ref, [(ln.key, list(ln.indices)) for ln in self.lines], span,
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
                                + exactness_note(exact, complete))
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


# -- its place in the view registry (inspector.ui.plots.registry) ---------------------
def onset_sample(trials: TrialStructure | None, ref: ArrayRef) -> int | None:
    """The sample of every epoch of ``ref`` at which the stimulus came on, when the
    recording's ``trial_window`` gives one start for all trials (None otherwise)."""
    if trials is None or trials.trial_window is None or ref.ndim != 3:
        return None
    starts = np.unique(np.asarray(trials.trial_window, dtype=np.int64).reshape(-1, 2)[:, 0])
    if starts.size != 1 or not -int(ref.shape[1]) < int(starts[0]) <= 0:
        return None
    return -int(starts[0])


def _lines_priority(r: ViewRequest) -> int | None:
    return 10 if r.ref is not None and r.ref.ndim <= 3 else None


def _make_lines(r: ViewRequest) -> NeuralView:
    """Lines of a 1-D to 3-D array: with the trials' markers and time axis only for the
    array the trials cut (``doc.neural_array()``); any other array on its indices."""
    ref, trials = r.ref, r.doc.trials
    assert ref is not None
    if trials is not None and ref is r.doc.neural_array():
        return NeuralView(ref, r.jobs, trials.markers(), onset_sample=onset_sample(trials, ref),
                          plot_widget=r.plot_widget)
    return NeuralView(ref, r.jobs, {}, plot_widget=r.plot_widget, time_axis=False)


LINES = ArrayView("lines (channels, trials)", _lines_priority, _make_lines)
