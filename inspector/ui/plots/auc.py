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
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import replace
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainterPath, QPalette, QPen, QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

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
from inspector.formats.capabilities import AucScans
from inspector.formats.decoding import workers
from inspector.jobs import Job, JobContext, JobRunner
from inspector.ui.colormaps import colormap
from inspector.ui.plots.auc_scans import (
    cell_colors,
    distance,
    drawn_extent,
    pens,
    scan_cells,
    untrusted_note,
)
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.raster_layer import LinePaths, RasterLayer
from inspector.ui.plots.scan_list import ScanList
from inspector.ui.read_progress import ReadProgress

#: Extra radius requested on each side, as a fraction of the visible width.
PAD_FRACTION = 0.25
#: Symbols are drawn when every scan shows its exact points and all scans
#: together have at most this many in range.
MAX_SYMBOL_POINTS = 3000
#: Widest column kept, in pixels, before envelopes are requested again.
COARSEST_COLUMN = 1.25
#: Symbol diameter in pixels.
SYMBOL_SIZE = 5
#: Alpha (of 255) of the scans not selected while others are highlighted.
DIM_ALPHA = 50
#: Highlighted scans are drawn 3 pixels wide when at most this many are
#: selected, else 1 (wide pens cost about ten times as much to draw).
WIDE_HIGHLIGHTS = 16
#: Fewest columns requested (a view not laid out yet has no width).
MIN_COLUMNS = 100
#: Warning colour of the untrusted-data note (readable on light and dark bases).
NOTE_COLOR = "#e8590c"
#: A click this close to a curve (pixels) selects its scan.
CLICK_PIXELS = 6


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


#: The scans' colour map, read as the module is imported (off the GUI thread: runtime.preload).
_VIRIDIS = colormap("viridis")


#: Widest the scan list is made at first (pixels; its splitter handle widens it).
LIST_MAX_PX = 200
class _Guard:
    """Shared with jobs and the ``destroyed`` signal: is the view still alive?"""

    def __init__(self) -> None:
        self.alive = True
        self.job: Job | None = None

    def close(self, *args: Any) -> None:
        self.alive = False
        if self.job is not None:
            self.job.cancel()


class AucView(PlotView):
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
        self.scan_ids = [str(s) for s in auc.scan_ids][:n]
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

    def _make_layers(self, n: int) -> None:
        """The two line layers, with ``n`` empty lines until the first result."""
        empty = (np.empty(0), np.empty(0))
        self._curves: list[tuple[np.ndarray, np.ndarray]] = [empty] * n
        self._paths: LinePaths = LinePaths(self._curves)
        self._plain = pens(self.colors, 1)
        self._wide_pens: list[QPen] | None = None  # built at the first highlight
        self.lines = RasterLayer(self.jobs)
        self.highlights = RasterLayer(self.jobs, pixels_from=self.lines)
        self.highlights.setZValue(10)
        for layer in (self.lines, self.highlights):
            layer.set_lines(self._paths, self._plain, QRectF(), self._curves, self._curves)

    def _labels(self, radius_unit: str, signal_unit: str) -> None:
        self.plot_item.setLabel("bottom", f"radius ({radius_unit})" if radius_unit else "radius")
        self.plot_item.setLabel("left", f"signal ({signal_unit})" if signal_unit else "signal")
        for ax in ("left", "bottom"):
            self.plot_item.getAxis(ax).enableAutoSIPrefix(False)  # units are given, never rescaled

    def _palette_colors(self, n: int) -> list[Any]:
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        if n == 0:
            return []
        cells = scan_cells(self.auc, n)
        if len(set(cells)) > 1:  # each cell its own hue, its scans light to dark in order
            return cell_colors(cells, dark)
        cmap = _VIRIDIS
        # viridis runs from dark purple to yellow: on a dark background skip its darkest end
        first = 0.3 if dark else 0.0
        at = first + (0.9 - first) * np.arange(n) / max(n - 1, 1)
        return list(cmap.map(at, mode="qcolor"))

    def _build_list(self) -> None:
        # a view over the scans' IDs and colours: built in constant time (scan_list.py)
        self.scan_list = ScanList(self.scan_ids, self.colors)
        self.scan_list.setToolTip("The legend: uncheck a scan to hide it, select scans (or click "
                                  "a curve) to highlight them")
        self.scan_list.itemChanged.connect(self._visibility)
        self.scan_list.itemSelectionChanged.connect(self._highlight)
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(QLabel(f"Scans ({len(self.scan_ids)})"))
        sl.addWidget(self.scan_list, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        outer = self.layout()
        assert outer is not None  # PlotView lays itself out
        outer.replaceWidget(self._stack, split)
        split.addWidget(side)
        split.addWidget(self._stack)
        split.setCollapsible(1, False)  # the list folds away, the plot never does
        split.setStretchFactor(1, 1)
        split.setSizes([min(max(self.scan_list.width_hint(), 90), LIST_MAX_PX), 600])
        self.splitter = split

    @property
    def ready(self) -> bool:
        """True when what was drawn last is on screen: no line layer still drawing."""
        return not (self.lines.pending or self.highlights.pending)

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
        if env is None:
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
        radius, signal, mask = self._radius, self._signal, self._mask
        px = self._pixels()
        n = self.shape.scans
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
                        return None, None, [], ([], QRectF())
                    return overview.extent, env, *_drawn(env, n)
                with metering(meter):  # progress: blocks read of blocks needed
                    if want is None:  # first request: the data's extent, then all of it
                        ext = scan_extent(radius, signal, mask, cancelled=cancelled)
                        if ext is None:
                            return ext, None, [], ([], QRectF())
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
            return ext, env, *_drawn(env, n)

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
              built: tuple[LinePaths, QRectF]) -> None:
        # Still "in flight" while drawing: range changes it causes only mark a
        # request pending, evaluated once against the final view below.
        self.read_progress.finish()
        try:
            if first:
                self._extent_known = True
                self.extent = ext
            if env is None:
                nothing = [(np.empty(0), np.empty(0))] * self.shape.scans
                self._draw_lines(nothing, LinePaths(nothing), QRectF())
                self.status.setText(f"{self.shape.scans:,} scans, no measured points")
            else:
                self._draw(env, curves, *built)
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

    # -- drawing ---------------------------------------------------------------------
    def _frame(self, env: ScanEnvelopes) -> None:
        """First result: show all of it and keep pans near the data."""
        vb = self.plot_item.vb
        span = env.r1 - env.r0
        vb.setLimits(xMin=env.r0 - 0.5 * span, xMax=env.r1 + 0.5 * span)
        vb.setXRange(env.r0, env.r1, padding=0)

    def _draw(self, env: ScanEnvelopes, curves: list[tuple[np.ndarray, np.ndarray]],
              paths: LinePaths, extent: QRectF) -> None:
        self.envelopes = env
        exact = all(p is not None or c == 0 for p, c in zip(env.points, env.counts, strict=True))
        real = int(env.counts.sum())
        self._draw_lines(curves, paths, extent)
        symbols = exact and real <= MAX_SYMBOL_POINTS
        self._symbol_points = list(curves) if symbols else []
        self._draw_symbols()
        self._update_bounds()
        whole = self.extent is None or (env.r0 <= self.extent[0] and env.r1 >= self.extent[1])
        where = "" if whole else " in range"
        how = "" if exact else ", showing the range of values per screen pixel"
        self.status.setText(f"{self.shape.scans:,} scans, {real:,} measured points{where}{how}")

    def _draw_lines(self, curves: list[tuple[np.ndarray, np.ndarray]],
                    paths: LinePaths, extent: QRectF) -> None:
        """Hand the scans' lines (built on the job's thread) to the two layers."""
        self._curves, self._paths = curves, paths
        self.lines.set_lines(paths, self._plain, extent, curves, token=curves)
        self.highlights.set_lines(paths, self._highlight_pens(self._selected()), extent, curves,
                                  token=curves)  # the same lines: it reuses their pixels
        self._show_lines()

    def _update_bounds(self, *args: Any) -> None:
        """Give auto-range the data's extent (x) and the visible scans' range (y, this view)."""
        env, ext = self.envelopes, self.extent
        if env is None or ext is None:
            self._bounds.setData([], [])
            return
        (x0, x1), _ = self.plot_item.vb.viewRange()
        yr = env.value_range(x0, x1, self._shown)
        if yr is None:
            self._bounds.setData([], [])
            return
        mid = (max(x0, ext[0]) + min(x1, ext[1])) / 2
        self._bounds.setData(np.array([ext[0], mid, mid, ext[1]]),
                             np.array([yr[0], yr[0], yr[1], yr[1]]))

    @property
    def symbols_shown(self) -> bool:
        """True when the scans' points are drawn with symbols (few points on screen)."""
        return bool(self._symbol_points)

    def _draw_symbols(self) -> None:
        """One scatter item for every visible scan's points, in the scans' (dimmed) colours."""
        if not self._symbol_points:
            self.symbols.setData([], [])
            return
        sel = self._selected()
        xs, ys, brushes = [], [], []
        for i, (x, y) in enumerate(self._symbol_points):
            if not self._shown[i]:
                continue
            keep = np.isfinite(y)
            xs.append(x[keep])
            ys.append(y[keep])
            brushes += [self._brush(i, sel)] * int(keep.sum())
        x = np.concatenate(xs) if xs else np.empty(0)
        y = np.concatenate(ys) if ys else np.empty(0)
        self.symbols.setData(x=x, y=y, brush=brushes)

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(scan ID, x, y)`` of every visible scan as drawn (NaN = break).

        Scans without a real point in the range draw nothing and are left out.
        """
        out = []
        for i, (x, y) in enumerate(self._curves):
            if self._shown[i] and len(x):
                out.append((self.scan_ids[i], np.asarray(x, dtype=np.float64),
                            np.asarray(y, dtype=np.float64)))
        return out

    def curve(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """float64 ``(x, y)`` of scan ``i`` as last computed, shown or not (empty when none)."""
        return self._curves[i]

    def path(self, i: int) -> QPainterPath:
        """The line of scan ``i`` as an export paints it (built when asked for)."""
        return self._paths[i]

    def is_shown(self, i: int) -> bool:
        """True when scan ``i`` is checked in the list (drawn when it has points)."""
        return bool(self._shown[i])

    def pen(self, i: int) -> QPen:
        """The pen scan ``i`` appears with: 3 px when highlighted (few selected), its colour
        at alpha :data:`DIM_ALPHA` when others are highlighted, else 1 px in its colour."""
        sel = self._selected()
        if sel and i not in sel:
            c = QColor(self.colors[i])
            c.setAlpha(DIM_ALPHA)
            return pg.mkPen(c, width=1)
        return QPen(self._highlight_pens(sel)[i] if sel else self._plain[i])

    # -- list ------------------------------------------------------------------------
    def set_untrusted(self, names: Iterable[str]) -> None:
        """Say on the plot which arrays failed their checksum (none: no note); reads nothing.

        For a verification that ends after the plot is shown (its new
        ``AucScans.untrusted_arrays``).
        """
        auc = replace(self.auc, untrusted_arrays=frozenset(names))
        self.auc = auc
        self.note = untrusted_note(auc, self._arrays)
        self.plot_item.setTitle(f"⚠ {self.note}" if self.note else None, color=NOTE_COLOR,
                                size="9pt")
        self._wrap_title(self.plot_widget.width())

    def set_visible(self, i: int, visible: bool) -> None:
        """Show or hide scan ``i`` (also its check box)."""
        state = Qt.CheckState.Checked if visible else Qt.CheckState.Unchecked
        self.scan_list.item(i).setCheckState(state)

    def highlight(self, i: int | None) -> None:
        """Highlight scan ``i`` (others dimmed); None restores all."""
        if i is None:
            self.scan_list.clearSelection()
        else:
            self.scan_list.setCurrentRow(i)

    def _selected(self) -> set[int]:
        return self.scan_list.selected_rows()

    def selected_scans(self) -> list[int]:
        """The selected (highlighted) scans, in scan order."""
        return sorted(self._selected())

    def select_scans(self, scans: set[int] | list[int]) -> None:
        """Select exactly ``scans`` (indices; others ignored) in the list: highlights them."""
        wanted = {i for i in scans if 0 <= i < self.scan_list.count()}
        if wanted == self._selected():
            return
        self.scan_list.select_rows(wanted)  # one selection change

    def scan_at(self, x: float, y: float, pixels: float = CLICK_PIXELS) -> int | None:
        """The visible scan whose drawn line passes within ``pixels`` of view point ``(x, y)``."""
        vb = self.plot_item.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        sx = vb.width() / max(x1 - x0, 1e-300)
        sy = vb.height() / max(y1 - y0, 1e-300)
        best, best_d = None, float(pixels)
        for i, (cx, cy) in enumerate(self._curves):
            if not self._shown[i] or len(cx) == 0:
                continue
            d = distance((np.asarray(cx) - x) * sx, (np.asarray(cy) - y) * sy)
            if d <= best_d:
                best, best_d = i, d
        return best

    def _clicked(self, event: Any) -> None:
        """A left click on a curve selects its scan (Ctrl adds it); elsewhere clears."""
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        vb = self.plot_item.vb
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        point = vb.mapSceneToView(event.scenePos())
        i = self.scan_at(point.x(), point.y())
        adding = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        chosen = self._selected() if adding else set()
        if i is not None:
            chosen ^= {i}
        self.select_scans(chosen)

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt override
        if obj is self.plot_widget and event.type() == QEvent.Type.Resize:
            self._wrap_title(event.size().width())
        return super().eventFilter(obj, event)

    def _wrap_title(self, width: int) -> None:
        """Wrap the untrusted-data note to the plot's width (it never widens the plot)."""
        if not self.note:
            return
        label = self.plot_item.titleLabel
        axis = self.plot_item.getAxis("left")
        label.item.setTextWidth(max(80.0, width - axis.width() - 24.0))
        label.updateMin()

    def palette_changed(self) -> None:
        """The theme changed: scan colours for the new background (list swatches too)."""
        if not hasattr(self, "_guard"):  # a palette event while the view is being built
            return
        self.colors = self._palette_colors(self.shape.scans)
        self.scan_list.model_.set_colors(self.colors)
        self._plain, self._wide_pens = pens(self.colors, 1), None
        self.lines.set_pens(self._plain)
        self.highlights.set_pens(self._highlight_pens(self._selected()))
        if self._symbol_points:
            self._draw_symbols()

    def _brush(self, i: int, sel: set[int]) -> Any:
        c = pg.mkColor(self.colors[i])
        if sel and i not in sel:
            c.setAlpha(50)
        return pg.mkBrush(c)

    def _highlight_pens(self, sel: set[int]) -> list[QPen]:
        """Pens of the highlight layer: wide unless many scans are selected."""
        if len(sel) > WIDE_HIGHLIGHTS or not sel:
            return self._plain
        if self._wide_pens is None:
            self._wide_pens = pens(self.colors, 3)
        return self._wide_pens

    def _show_lines(self) -> None:
        """What each layer draws: the shown scans; the selected ones on top, the rest dimmed."""
        sel = self._selected()
        self.lines.set_order(np.flatnonzero(self._shown).tolist())
        self.lines.setOpacity(DIM_ALPHA / 255 if sel else 1.0)
        self.highlights.set_order([i for i in sorted(sel) if self._shown[i]])

    def _visibility(self, item: Any) -> None:
        i = self.scan_list.row(item)
        self._shown[i] = item.checkState() == Qt.CheckState.Checked
        self._show_lines()
        if self._symbol_points:
            self._draw_symbols()
        self._update_bounds()

    def _highlight(self) -> None:
        sel = self._selected()
        self.highlights.set_pens(self._highlight_pens(sel))
        self._show_lines()
        if self._symbol_points:
            self._draw_symbols()


def _drawn(env: ScanEnvelopes, n: int) -> tuple[list[tuple[np.ndarray, np.ndarray]],
                                                tuple[LinePaths, QRectF]]:
    """The lines of ``n`` scans from ``env`` and their paths, built on the job's thread
    (the GUI thread only hands them to the layers)."""
    curves = env.curves()[:n]
    env.value_range(env.r0, env.r1)  # gathers its exact points here, not on the GUI thread
    return curves, (LinePaths(curves), drawn_extent(env, curves))
