"""AUC scans: signal against radius, one line per scan, coloured by scan order.

The view never holds an experiment's arrays.  Its first image is drawn
from ``AucScans.overview`` when the document has one (the full-range
envelopes the archive's verification built from the bytes it hashed;
combined to the plot's width by an exact power-of-two rebinning on a job,
nothing read); while a check that will deliver it is pending
(``AucScans.overview_pending``) the view waits for it instead of reading
alongside.  Every other view (zoomed, panned, a plot wider than the
overview's columns, or a document without an overview) asks
:func:`inspector.formats.analysis.scan_envelope.scan_envelopes` on a background job
for each scan's min/max per pixel column of the visible radius range (plus a
quarter of a view on each side, so a pan shows data at once), and draws each
scan as one line from it: a zig-zag through every column's minimum and
maximum, broken at columns without a real point (``connect="finite"``).
When few points are in view the scans' real points themselves are drawn,
with symbols.  Only real observations are ever drawn (mask true, finite
radius and signal); nothing is interpolated.

Drawing stays off the GUI thread whatever the number of scans: the lines
are built on the job's thread, and all of them are painted by one
:class:`~inspector.ui.plots.raster_layer.RasterLayer`, which rasterises
them with numpy on a job and paints the result as one image (500 scans as
separate ``PlotCurveItem`` objects blocked every repaint for 0.25-1.6 s;
drawn with ``QPainter`` a slice per event-loop turn, every new image, a hide
included, took 0.8-1 s of GUI-thread time).  The layer keeps each scan's
pixels for the current geometry, so a hide or a highlight composes the
image again from them instead of drawing the lines again.
The lines stay out of pyqtgraph's per-item auto-range: one
invisible item carries the data's extent and the visible scans' range,
computed from the envelopes
(:meth:`~inspector.formats.analysis.scan_envelope.ScanEnvelopes.value_range`), so a
pan does not query hundreds of curves.

Requests are coalesced without a fixed delay: at most one job is in flight;
pan, zoom and resize events while it runs only mark a request pending, and
the newest view is requested when it ends (a result whose range and
resolution still cover the view is kept).

A list beside the plot is the legend (colour swatch, scan ID): unchecking a
scan hides it and selecting highlights it, without reading anything;
clicking a curve selects its scan in the list (and, through
:mod:`inspector.ui.scan_link`, in the Scans table).  A highlight is
immediate: the other scans' layer is dimmed as a whole (its opacity) and
the selected scans are drawn by a second layer on top, wide when few are
selected; hiding a scan composes the layer's image without it from the
pixels it keeps.  When a member behind the arrays failed its checksum the
plot's title says so, wrapped to the plot's width (docs/architecture.md,
"Seams": ``AucScans.untrusted_arrays``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from concurrent.futures import Executor
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QWidget

from inspector.formats.analysis.arrays import ArrayRef, EnvelopeCancelled
from inspector.formats.analysis.read_meter import ChunkMeter, metering
from inspector.formats.analysis.scan_envelope import (
    ScanEnvelopes,
    ScanOverview,
    Source,
    framed_range,
    scan_envelopes,
    scan_extent,
    scan_shape,
)
from inspector.formats.analysis.scan_rows import ScanRows, envelope_rows
from inspector.formats.capabilities import AucScans
from inspector.formats.decoding import workers
from inspector.jobs import Job, JobContext, JobRunner
from inspector.ui.plots.auc_list import AucScanList
from inspector.ui.plots.auc_scans import drawn_extent
from inspector.ui.plots.raster_layer import LinePaths
from inspector.ui.plots.view_request import ArrayView, ViewRequest, auc_array_names
from inspector.ui.read_progress import ReadProgress

#: Extra radius requested on each side, as a fraction of the visible width.
PAD_FRACTION = 0.25
#: Widest column kept, in pixels, before envelopes are requested again.
COARSEST_COLUMN = 1.25
#: Symbol diameter in pixels.
SYMBOL_SIZE = 5
#: Fewest columns requested (a view not laid out yet has no width).
MIN_COLUMNS = 100


def _sources(auc: AucScans, arrays: Mapping[str, ArrayRef]) -> tuple[Source, Source, Source | None]:
    """The radius, signal and mask to plot: the loaded experiment's, else the lazy arrays."""
    exp = auc.experiment
    if exp is not None:
        return exp.radius, exp.signal, exp.mask
    missing = [n for n in (auc.radius_array, auc.signal_array) if n not in arrays]
    if missing:
        raise ValueError(f"the {missing[0]!r} array is not available")
    return arrays[auc.radius_array], arrays[auc.signal_array], arrays.get(auc.mask_array)


def _executor() -> Executor | None:
    """The shared worker pool when the entry point opened one (the scans are then shared)."""
    try:
        return workers.pool()
    except RuntimeError:
        return None


class _Guard:
    """Shared with jobs and the ``destroyed`` signal: is the view still alive?"""

    def __init__(self) -> None:
        self.alive = True
        self.job: Job | None = None

    def close(self, *args: Any) -> None:
        self.alive = False
        if self.job is not None:
            self.job.cancel()


class AucView(AucScanList):
    """Every scan of an AUC experiment overlaid (signal vs radius), read lazily.

    Args:
        auc: the experiment's capability (scan IDs, units, array names,
            ``experiment`` when loaded, ``untrusted_arrays``).
        arrays: the document's arrays (``Document.arrays``); the radius,
            signal and mask named by ``auc`` are read from them in blocks,
            on ``jobs``, unless ``auc.experiment`` is loaded.
        jobs: runs every read.
        parent: Qt parent widget.

    The first image comes from ``auc.overview`` when it is there (nothing
    read); while ``auc.overview_pending`` the view waits for the document's
    check (a new view is built with its result; :meth:`checks_over` stops
    the wait if the check ended without one).

    Raises:
        ValueError: the arrays are missing or do not fit together (shapes,
            dtypes; see :func:`inspector.formats.analysis.scan_envelope.scan_shape`).
        TypeError: an array is not an array.

    Attributes:
        lines: the :class:`RasterLayer` drawing every visible scan (dimmed as
            a whole while scans are highlighted).
        highlights: the :class:`RasterLayer` drawing the highlighted scans on top.
        symbols: the one ``ScatterPlotItem`` drawing symbols when few points
            are on screen (:attr:`symbols_shown`).
        colors: the scans' ``QColor``.
        scan_ids: one label per scan.
        scan_list: the list beside the plot (the legend).
        envelopes: the last envelopes drawn (None before the first).
        note: the untrusted-data warning shown on the plot (``""`` when none).
        submitted: jobs submitted so far; drawn: results drawn so far.

    Signals:
        drawn_changed(int): a result was drawn (the new ``drawn`` count).
    """

    drawn_changed = Signal(int)

    def __init__(self, auc: AucScans, arrays: Mapping[str, ArrayRef], jobs: JobRunner,
                 parent: QWidget | None = None, plot_widget: pg.PlotWidget | None = None
                 ) -> None:
        super().__init__(parent, plot_widget)
        self.auc = auc
        self.jobs = jobs
        self._radius, self._signal, self._mask = _sources(auc, arrays)
        self.shape = scan_shape(self._radius, self._signal, self._mask)
        self.x_label = auc.radius_unit or "radius"
        self.y_label = auc.signal_unit or "signal"
        self._labels(auc.radius_unit, auc.signal_unit)
        n = self.shape.scans
        self.scan_ids = list(auc.scan_ids[:n])  # (str already: a million str() are 60 ms)
        if self.scan_ids and not isinstance(self.scan_ids[0], str):
            self.scan_ids = [str(s) for s in self.scan_ids]
        self.scan_ids += [f"scan {i + 1}" for i in range(len(self.scan_ids), n)]
        self.colors = self._palette_colors(n)
        self._make_layers(n)
        self.symbols = pg.ScatterPlotItem(size=SYMBOL_SIZE, pen=None)
        self.symbols.setZValue(20)
        self._symbol_points: list[tuple[np.ndarray, np.ndarray]] = []
        self._shown = np.ones(n, dtype=bool)  # the list's check boxes
        self._build_list()
        self._arrays = arrays
        self.note = ""
        self._overview: ScanOverview | None = auc.overview
        self._waiting = auc.overview_pending and auc.overview is None
        marked = auc.overview.untrusted if auc.overview is not None else frozenset()
        self.set_untrusted(auc.untrusted_arrays | marked)
        self.envelopes: ScanEnvelopes | None = None
        self.extent: tuple[float, float] | None = None
        self._extent_known = False
        self._in_flight = False
        self._pending = False
        self._stopped = False  # Cancel stopped the read in flight; a new request reads again
        self.submitted = 0
        self.drawn = 0
        self._guard = _Guard()
        self.destroyed.connect(self._guard.close)
        self._set_up_view_box()
        self.read_progress = ReadProgress(self.plot_widget, "blocks",
                                          "Stop reading: the plot keeps what is drawn")
        self.read_progress.cancel_requested.connect(self.cancel_read)
        if n == 0:
            self.show_placeholder("No scans to plot.")
        doing = "verifying…" if self._waiting else "reading…"
        self.status.setText(f"{n:,} scans: {doing}" if n else "0 scans")

    # -- construction ----------------------------------------------------------------
    def _set_up_view_box(self) -> None:
        """Mouse, ranges and the layers in the view box; pans, resizes and clicks wired."""
        vb = self.plot_item.vb
        vb.setMouseEnabled(x=True, y=True)
        vb.disableAutoRange(axis="x")  # the first result frames the data
        vb.enableAutoRange(axis="y")
        vb.setAutoVisible(y=True)
        vb.addItem(self.lines, ignoreBounds=True)
        vb.addItem(self.highlights, ignoreBounds=True)
        vb.addItem(self.symbols, ignoreBounds=True)
        # The lines are left out of pyqtgraph's auto-range (it would query
        # every one of them on each pan); this invisible item carries the
        # extent of the data and the range of what is visible instead.
        self._bounds = pg.PlotCurveItem(pen=None)
        vb.addItem(self._bounds)
        vb.sigXRangeChanged.connect(self._update_bounds)
        vb.sigXRangeChanged.connect(self.request)
        vb.sigResized.connect(self.request)
        self.plot_widget.installEventFilter(self)  # resizes: wrap the title to the new width
        self.plot_widget.scene().sigMouseClicked.connect(self._clicked)


    def _labels(self, radius_unit: str, signal_unit: str) -> None:
        self.plot_item.setLabel("bottom", f"radius ({radius_unit})" if radius_unit else "radius")
        self.plot_item.setLabel("left", f"signal ({signal_unit})" if signal_unit else "signal")
        for ax in ("left", "bottom"):
            self.plot_item.getAxis(ax).enableAutoSIPrefix(False)  # units are given, never rescaled


    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._extent_known:
            QTimer.singleShot(0, self.request)  # once laid out: the plot's width is known

    # -- requests --------------------------------------------------------------------
    def job_keys(self) -> tuple[str, ...]:
        """The keys of this view's jobs: its envelopes first, then its two line layers'
        images (see :meth:`PlotView.job_keys`)."""
        return (f"auc:{id(self)}", self.lines.job_key, self.highlights.job_key)

    @property
    def busy(self) -> bool:
        """True while a job runs or a request waits for it (tests, benchmarks)."""
        return self._in_flight or self._pending

    def is_idle(self) -> bool:
        """Every curve built and drawn, no job in flight or pending (see :meth:`PlotView.is_idle`).

        A view that was never shown has asked for nothing yet: it is idle.
        """
        if not self.shape.scans:
            return True
        return self.ready and not self.busy and (self._extent_known or self._stopped
                                                  or not self.isVisible())

    def _pixels(self) -> int:
        px = float(self.plot_item.vb.width())
        try:
            px *= float(self.plot_widget.devicePixelRatioF())
        except AttributeError:
            pass
        return max(int(px), MIN_COLUMNS)

    def _covered(self, v0: float, v1: float, width: float, px: int) -> bool:
        """True when the drawn envelopes still serve the view.

        ``[v0, v1]`` is the visible part of the data, ``width`` the visible
        radius range and ``px`` its pixels.  Columns may be up to
        :data:`COARSEST_COLUMN` pixels wide (a resize or a slight zoom keeps
        them) and at least a quarter of a pixel.
        """
        env = self.envelopes
        if env is None or not np.array_equal(self.wanted_rows(self._selected()), self._rows):
            return False
        tol = 1e-9 * (env.r1 - env.r0)
        if env.r0 > v0 + tol or env.r1 < v1 - tol:
            return False
        if all(p is not None or c == 0 for p, c in zip(env.points, env.counts, strict=True)):
            return True  # exact points do not depend on the resolution
        col = (env.r1 - env.r0) / env.columns
        pix = width / px
        return pix / 4 <= col <= pix * COARSEST_COLUMN

    def _wanted(self) -> tuple[float, float, int] | None:
        """``(r0, r1, columns)`` to request for the current view, or None when nothing is needed."""
        px = self._pixels()
        if self.extent is None:
            return None
        e0, e1 = self.extent
        (x0, x1), _ = self.plot_item.vb.viewRange()
        v0, v1 = max(x0, e0), min(x1, e1)
        if v0 > v1 or self._covered(v0, v1, x1 - x0, px):
            return None
        w = max(x1 - x0, 1e-300)
        a, b = max(x0 - PAD_FRACTION * w, e0), min(x1 + PAD_FRACTION * w, e1)
        if b <= a:  # one radius value: a column around it
            a, b = a - 0.5 * w / px, a + 0.5 * w / px
        return a, b, max(1, math.ceil(px * (b - a) / w))

    def request(self, *args: Any) -> None:
        """Ask for envelopes of the current view (pan/zoom/resize): coalesced, never queued.

        With a job in flight the request is only marked pending; it is
        re-evaluated when the job ends.
        """
        if not self.shape.scans or not self._guard.alive or self._waiting:
            return
        if self._in_flight:
            self._pending = True
            return
        if not self._extent_known:
            self._submit(None)
            return
        want = self._wanted()
        if want is not None:
            self._submit(want)

    def take_overview(self, auc: AucScans) -> None:
        """The document's check delivered what verification adds for the scans this view
        shows (the same arrays and units): ``auc.overview``, which a view waiting for it
        draws at once, nothing read, and the arrays whose member failed its checksum, which
        the note names.  The panel calls this instead of building a new view (a plot
        widget costs tens of milliseconds on the GUI thread); a view that already read its
        own envelopes keeps what it drew."""
        self.auc = auc
        self._overview = auc.overview
        marked = auc.overview.untrusted if auc.overview is not None else frozenset()
        self.set_untrusted(auc.untrusted_arrays | marked)
        if self._waiting and auc.overview is not None:
            self._waiting = False
            self.request()

    def checks_over(self) -> None:
        """The document's checks ended: a view still waiting for an overview reads itself."""
        if self._waiting:
            self._waiting = False
            self.status.setText(f"{self.shape.scans:,} scans: reading…")
            self.request()

    def _submit(self, want: tuple[float, float, int] | None) -> None:
        rows = self.wanted_rows(self._selected())
        full = (self._radius, self._signal, self._mask)
        radius, signal, mask = _rows_of(full, rows, self.shape.scans)
        px, n = self._pixels(), rows.size
        pool = _executor()
        overview = self._overview if want is None else None

        def work(ctx: JobContext) -> tuple[Any, ...]:
            def cancelled() -> bool:
                return ctx.cancelled

            meter = ChunkMeter(0, lambda d, m: ctx.progress(d, m, None))
            try:
                if overview is not None:  # built by verification: combined, nothing read
                    env = overview.at_pixels(px, COARSEST_COLUMN)
                    if env is None:
                        return None, None, [], ([], QRectF()), rows
                    env = envelope_rows(env, rows) if n < env.lo.shape[0] else env
                    return overview.extent, env, *_drawn(env, n), rows
                with metering(meter):  # progress: blocks read of blocks needed
                    if want is None:  # first request: the data's extent, then all of it
                        ext = scan_extent(*full, cancelled=cancelled)
                        if ext is None:
                            return ext, None, [], ([], QRectF()), rows
                        r0, r1, cols = *framed_range(ext), px
                    else:
                        ext = None
                        r0, r1, cols = want
                    env = scan_envelopes(radius, signal, mask, r0, r1, cols,
                                         cancelled=cancelled, executor=pool)
                meter.flush()
            except EnvelopeCancelled:
                ctx.check()
                raise
            return ext, env, *_drawn(env, n), rows

        guard = self._guard

        def done(result: tuple[Any, ...]) -> None:
            if guard.alive:
                self._done(want is None, *result)

        def failed(message: str, tb: str) -> None:
            if guard.alive:
                self._failed(message)

        def progressed(done: int, total: int, _payload: Any) -> None:
            if guard.alive:
                self.read_progress.update_progress(done, total)

        self._in_flight = True
        self._pending = False
        self._stopped = False
        self.read_progress.start(0)  # (the blocks needed are counted by the job)
        for layer in (self.lines, self.highlights):  # lines for this view are on their way
            layer.hold(True)
        self.submitted += 1
        guard.job = self.jobs.submit(work, on_done=done, on_error=failed,
                                     on_progress=progressed, key=self.job_keys()[0])

    def cancel_read(self) -> None:
        """Stop the read in flight (Cancel): what is drawn stays; panning, zooming or a
        resize reads again."""
        if not self._in_flight:
            return
        self.jobs.cancel(self.job_keys()[0])
        self.read_progress.finish()
        self._in_flight = False
        self._pending = False
        self._stopped = True
        self._release()
        self.status.setText("reading cancelled: the plot shows what was read; pan, zoom or "
                            "Reset view to read again")

    def _done(self, first: bool, ext: tuple[float, float] | None, env: ScanEnvelopes | None,
              curves: list[tuple[np.ndarray, np.ndarray]],
              built: tuple[LinePaths, QRectF], rows: np.ndarray) -> None:
        # Still "in flight" while drawing: range changes it causes only mark a
        # request pending, evaluated once against the final view below.
        self.read_progress.finish()
        try:
            if first:
                self._extent_known = True
                self.extent = ext
            if env is None:
                nothing = [(np.empty(0), np.empty(0))] * rows.size
                self._draw_lines(nothing, LinePaths(nothing), QRectF(), rows)
                self.status.setText(f"{self.shape.scans:,} scans, no measured points")
            else:
                self._draw(env, curves, *built, rows)
                if first:
                    self._frame(env)
        finally:
            self._in_flight = False
            self._release()
        self.drawn += 1
        self.drawn_changed.emit(self.drawn)
        if self._pending:
            self._pending = False
            self.request()

    def _release(self) -> None:
        """No lines on their way any more: the layers follow the view again."""
        for layer in (self.lines, self.highlights):
            layer.hold(False)

    def _failed(self, message: str) -> None:
        self.read_progress.finish()
        self._in_flight = False
        self._release()
        if not self._extent_known:  # nothing could be read: say so instead of a plot
            self._extent_known = True
            self.show_placeholder(f"cannot read the scans: {message} (see Findings)")
        self.status.setText(f"cannot read the scans: {message}")
        if self._pending and message != "cancelled":
            self._pending = False
            self.request()


def _rows_of(sources: tuple[Source, Source, Source | None], rows: np.ndarray,
             scans: int) -> tuple[Source, Source, Source | None]:
    """The radius, signal and mask of scans ``rows`` (the arrays themselves when every
    scan is drawn; a shared radius axis is every scan's)."""
    if rows.size == scans:
        return sources
    radius, signal, mask = sources
    if len(radius.shape) == 2:
        radius = ScanRows(radius, rows)
    return radius, ScanRows(signal, rows), None if mask is None else ScanRows(mask, rows)


def _drawn(env: ScanEnvelopes, n: int) -> tuple[list[tuple[np.ndarray, np.ndarray]],
                                                tuple[LinePaths, QRectF]]:
    """The lines of ``n`` scans from ``env`` and their paths, built on the job's thread
    (the GUI thread only hands them to the layers)."""
    curves = env.curves()[:n]
    env.value_range(env.r0, env.r1)  # gathers its exact points here, not on the GUI thread
    return curves, (LinePaths(curves), drawn_extent(env, curves))


# -- its place in the view registry (inspector.ui.plots.registry) ---------------------
def _auc_priority(r: ViewRequest) -> int | None:
    auc = r.doc.auc
    shown = auc is not None and r.name in auc_array_names(auc) and auc.signal_array in r.doc.arrays
    return 100 if shown else None


def _make_auc(r: ViewRequest) -> AucView:
    assert r.doc.auc is not None
    return AucView(r.doc.auc, r.doc.arrays, r.jobs, plot_widget=r.plot_widget)


AUC = ArrayView("AUC scans, every scan overlaid", _auc_priority, _make_auc,
                "cannot plot the scans: {} (see Findings)")
