"""Many lines rasterised with numpy on a job: the GUI thread only paints the finished image.

:class:`~inspector.ui.plots.line_layer.LineLayer` draws its lines with
``QPainter`` on the GUI thread, a slice per event-loop turn: Qt's cosmetic
stroker costs about 1 us a vertex, so 500 scan envelopes of 2 000 vertices
took 0.8-1 s of GUI-thread time for every new image, hiding a scan included
(PySide6 keeps the interpreter lock for a whole ``QPainter`` call, so
drawing on a worker thread would stall the GUI thread as long).

:class:`RasterLayer` keeps the same contract (lines in data coordinates, one
pen each, an order, one image moved and scaled with the view until the next
one is complete) but builds the image on a job:

1. :func:`lines_runs` turns each line into the image pixels it covers, as
   runs of consecutive column-major indices: for every segment between two
   finite points, clipped to the image, and every column it crosses, the
   rows it passes through there (the pixels a 1-pixel line without
   anti-aliasing covers; a tall envelope is one run a column, however many
   pixels).  Nothing is interpolated between points that are not
   consecutive: a NaN breaks the line.
2. :func:`compose` writes each line's colour at its pixels, in drawing order
   (later lines on top), into a premultiplied ARGB32 buffer; pens wider than
   one pixel cover the neighbouring pixels too (:func:`widen`).

The pixels of a geometry (the lines, the data-to-image transform and the
image size) are kept as these runs (a few thousand a line), so a hide, a
highlight or a new pen composes the image again from them without stepping a
segment; a pan within the image's margins redraws nothing; a zoom, a resize
or a pan past the margins steps the lines again, on the job.  At most one job
runs per layer; a change while it runs is evaluated when it ends.  Kept runs
are capped at :data:`MAX_CACHED` (lines beyond are stepped again each time).
Exports (``widget`` None) paint vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainterPath, QPen, QTransform

from inspector.jobs import JobContext, JobRunner
from inspector.ui.plots.line_layer import Frame, LineLayer

#: Clipped ends stay this far inside the image's outer pixel edges (they round inside).
EDGE = 1e-6
#: Lines done together in one pass (:func:`lines_runs`), between cancellation checks.
BATCH_LINES = 16
#: Most runs of pixels kept between images (two int32 each: 32 MB; 500 scans at 1 500
#: columns are about 1.5 million however many pixels they cover).
MAX_CACHED = 4_000_000
#: Data to image pixel coordinates (see :func:`_affine`).
Affine = tuple[float, float, float, float, float, float]


def _affine(t: QTransform) -> Affine:
    """``(m11, m12, m21, m22, dx, dy)`` of ``t``: ``px = m11 x + m21 y + dx`` and
    ``py = m12 x + m22 y + dy``."""
    return (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy())


def _clip(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
          width: int, height: int) -> tuple[np.ndarray, ...]:
    """Liang-Barsky: the segments' parts inside the pixels of a ``width`` x ``height``
    image (``[0, width)`` and ``[0, height)``; others dropped) and which were kept.

    Segments with both ends inside are kept as they are without the arithmetic (a
    full view of 500 scan envelopes is a million segments, nearly all inside)."""
    lo = EDGE
    inside = ((np.minimum(x0, x1) >= lo) & (np.maximum(x0, x1) <= width - EDGE)
              & (np.minimum(y0, y1) >= lo) & (np.maximum(y0, y1) <= height - EDGE))
    if inside.all():
        return x0, y0, x1, y1, inside
    idx = np.flatnonzero(~inside)
    cx0, cy0, cx1, cy1, ckeep = _clip_all(x0[idx], y0[idx], x1[idx], y1[idx], width, height)
    keep = inside.copy()
    keep[idx] = ckeep
    out = idx[ckeep]
    ends = []
    for full, part in ((x0, cx0), (y0, cy0), (x1, cx1), (y1, cy1)):
        full = full.copy()
        full[out] = part
        ends.append(full[keep])
    return (*ends, keep)


def _clip_all(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
              width: int, height: int) -> tuple[np.ndarray, ...]:
    """:func:`_clip` by Liang-Barsky's arithmetic for every segment."""
    lo = EDGE
    dx, dy = x1 - x0, y1 - y0
    t0 = np.zeros_like(x0)
    t1 = np.ones_like(x0)
    keep = np.ones(x0.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - lo), (dx, width - EDGE - x0), (-dy, y0 - lo),
                     (dy, height - EDGE - y0)):
            parallel = p == 0
            keep &= ~(parallel & (q < 0))
            r = q / p
            t0 = np.where(~parallel & (p < 0), np.maximum(t0, r), t0)
            t1 = np.where(~parallel & (p > 0), np.minimum(t1, r), t1)
    keep &= t0 <= t1
    t0, t1, x0, y0, dx, dy = t0[keep], t1[keep], x0[keep], y0[keep], dx[keep], dy[keep]
    return x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy, keep


def line_pixels(x: np.ndarray, y: np.ndarray, affine: Affine, width: int,
                height: int) -> np.ndarray:
    """The distinct flat column-major indices (``px * height + py``, int32, ascending) of
    the pixels of a ``width`` x ``height`` image that the line through ``(x, y)`` covers.

    ``x``, ``y``: float arrays of equal length, in data coordinates; NaN (or
    any non-finite value) breaks the line.  ``affine`` maps data to image
    pixel coordinates (:func:`_affine`; pixel ``(i, j)`` spans ``[i, i + 1)``).
    A segment covers, in each column it crosses, every row it passes through
    there (both ends included); a lone finite point between breaks covers its
    own pixel.
    """
    return np.unique(decode(lines_runs([(x, y)], affine, width, height)[0]))


def lines_runs(curves: Sequence[tuple[np.ndarray, np.ndarray]], affine: Affine,
               width: int, height: int) -> list[Runs]:
    """The pixels of each of ``curves`` (as :func:`line_pixels`) as runs: one per segment
    and column it crosses (see :func:`decode`; runs of one line may overlap).  All curves
    are done together (a few thousand points each cost more in calls than in arithmetic),
    and the cost follows the columns crossed, not the pixels covered."""
    n = len(curves)
    if n == 0:
        return []
    sizes = np.array([np.asarray(x).size for x, _y in curves], dtype=np.int64)
    gap = np.full(1, np.nan)  # a break between two curves
    x = np.concatenate([a for c in curves for a in (np.asarray(c[0], np.float64), gap)])
    y = np.concatenate([a for c in curves for a in (np.asarray(c[1], np.float64), gap)])
    first = np.cumsum(sizes + 1) - (sizes + 1)  # each curve's first position in x, y
    m11, m12, m21, m22, dx, dy = affine
    px = m11 * x + m21 * y + dx
    py = m12 * x + m22 * y + dy
    x0, y0, sx, sy, at = _segments(px, py, width, height)
    line = np.searchsorted(first, at, side="right") - 1
    starts, lengths, count = _column_runs(x0, y0, sx, sy, width, height)
    cut = np.cumsum(np.bincount(line, weights=count, minlength=n).astype(np.int64))[:-1]
    return list(zip(np.split(starts, cut), np.split(lengths, cut), strict=True))


def _segments(px: np.ndarray, py: np.ndarray, width: int,
              height: int) -> tuple[np.ndarray, ...]:
    """The segments between consecutive finite points (clipped to the image) and the
    lone points inside it, as ``(x0, y0, sx, sy, at)`` ordered by ``at``, the position
    of their first point."""
    finite = np.isfinite(px) & np.isfinite(py)
    a = np.flatnonzero(finite[:-1] & finite[1:])
    lone = finite.copy()
    lone[a] = False
    lone[a + 1] = False
    lone &= (px >= 0) & (px < width) & (py >= 0) & (py < height)
    x0, y0, x1, y1, keep = _clip(px[a], py[a], px[a + 1], py[a + 1], width, height)
    single = np.flatnonzero(lone)
    if single.size == 0:  # no lone point: the segments are in order already
        return x0, y0, x1 - x0, y1 - y0, a[keep]
    at = np.concatenate([a[keep], single])
    order = np.argsort(at, kind="stable")
    x0 = np.concatenate([x0, px[single]])[order]
    y0 = np.concatenate([y0, py[single]])[order]
    sx = np.concatenate([x1, px[single]])[order] - x0
    sy = np.concatenate([y1, py[single]])[order] - y0
    return x0, y0, sx, sy, at[order]


def _column_runs(x0: np.ndarray, y0: np.ndarray, sx: np.ndarray, sy: np.ndarray,
                 width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each segment and each column it crosses, the run of rows it passes through
    there: int32 column-major ``starts`` and ``lengths``, segment after segment, and
    int64 runs a segment."""
    xa, xb = np.minimum(x0, x0 + sx), np.maximum(x0, x0 + sx)
    ca = np.clip(np.floor(xa), 0, width - 1).astype(np.int64)
    cb = np.clip(np.floor(xb), 0, width - 1).astype(np.int64)
    count = cb - ca + 1
    total = int(count.sum())
    if total == 0:
        return np.empty(0, np.int32), np.empty(0, np.int32), count
    seg = np.repeat(np.arange(count.size), count)
    col = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count - ca, count)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(sx != 0, sy / sx, 0.0)
    steep = sx[seg] == 0  # vertical: the whole of it is in its one column
    lo = np.maximum(col, xa[seg]) - x0[seg]
    hi = np.minimum(col + 1, xb[seg]) - x0[seg]
    ya = np.where(steep, y0[seg], y0[seg] + lo * slope[seg])
    yb = np.where(steep, y0[seg] + sy[seg], y0[seg] + hi * slope[seg])
    r0 = np.clip(np.floor(np.minimum(ya, yb)), 0, height - 1).astype(np.int64)
    r1 = np.clip(np.floor(np.maximum(ya, yb)), 0, height - 1).astype(np.int64)
    return (col * height + r0).astype(np.int32), (r1 - r0 + 1).astype(np.int32), count


def widen(idx: np.ndarray, width: int, height: int, pixels: int) -> np.ndarray:
    """``idx`` (column-major, see :func:`line_pixels`) grown to a square pen ``pixels``
    wide (the neighbours within ``pixels // 2``)."""
    r = int(pixels) // 2
    if r <= 0 or idx.size == 0:
        return idx
    cx, cy = np.divmod(idx.astype(np.int64), height)
    out = []
    for oy in range(-r, r + 1):
        for ox in range(-r, r + 1):
            nx, ny = cx + ox, cy + oy
            ok = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height)
            out.append(nx[ok] * height + ny[ok])
    return np.concatenate(out).astype(np.int32)


Runs = tuple[np.ndarray, np.ndarray]


def decode(runs: Runs) -> np.ndarray:
    """The int32 pixel indices of ``runs``: ``starts[k]`` to ``starts[k] + lengths[k] - 1``
    for each ``k``, run after run (overlapping runs repeat their common indices)."""
    starts, lengths = runs
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, np.int32)
    out = np.ones(total, dtype=np.int32)
    at = np.cumsum(lengths) - lengths  # where each run begins in ``out``
    out[0] = starts[0]
    out[at[1:]] = starts[1:] - (starts[:-1] + lengths[:-1] - 1)
    return np.cumsum(out, dtype=np.int32)


def premultiplied(pen: QPen) -> int:
    """The pen's colour as one premultiplied ARGB32 pixel value."""
    c = pen.color()
    a = c.alpha()
    r, g, b = (round(v * a / 255) for v in (c.red(), c.green(), c.blue()))
    return (a << 24) | (r << 16) | (g << 8) | b


def paint(img: np.ndarray, idx: np.ndarray, colour: int, pen: int, width: int,
          height: int) -> None:
    """Write ``colour`` at the pixels ``idx`` of the flat column-major uint32 image ``img``
    (``width`` x ``height``), grown to a pen ``pen`` pixels wide."""
    img[widen(idx, width, height, pen) if pen > 1 else idx] = colour


def compose(pixels: Sequence[np.ndarray], colours: Sequence[int], widths: Sequence[int],
            width: int, height: int) -> np.ndarray:
    """A ``(height, width)`` uint32 premultiplied ARGB32 image: ``pixels[k]`` in
    ``colours[k]`` (``widths[k]`` pixels wide), later ones on top, transparent elsewhere."""
    img = np.zeros(width * height, dtype=np.uint32)
    for idx, colour, w in zip(pixels, colours, widths, strict=True):
        paint(img, idx, colour, w, width, height)
    return _row_major(img, width, height)


def _row_major(img: np.ndarray, width: int, height: int) -> np.ndarray:
    """The flat column-major image as a C-contiguous ``(height, width)`` array."""
    return np.ascontiguousarray(img.reshape(width, height).T)


class LinePaths(Sequence[QPainterPath]):
    """The ``QPainterPath`` of each ``(x, y)`` line (NaN = break), built when asked for:
    only an export paints paths (500 scans' paths are about 36 MB)."""

    def __init__(self, curves: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
        self._curves = curves

    def __len__(self) -> int:
        return len(self._curves)

    @overload
    def __getitem__(self, i: int) -> QPainterPath: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[QPainterPath]: ...

    def __getitem__(self, i: int | slice) -> QPainterPath | Sequence[QPainterPath]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        x, y = self._curves[i]
        return pg.arrayToQPath(x, y, connect="finite") if len(x) else QPainterPath()


class _Plan:
    """What one image needs, taken on the GUI thread (immutable once made): its area
    (``device``, with ``dt`` data to device and the device pixel ratio ``dpr``), the
    version of the lines and pens (``generation``), the key of its pixels
    (``key``), ``affine`` (data to image pixels) and ``size`` (width, height)."""

    def __init__(self, device: QRectF, dt: QTransform, dpr: float, generation: int,
                 key: tuple[Any, ...], affine: Affine, size: tuple[int, int]) -> None:
        self.device, self.dt, self.dpr = device, dt, dpr
        self.generation, self.key, self.affine, self.size = generation, key, affine, size


class RasterLayer(LineLayer):
    """A :class:`LineLayer` whose images are rasterised on ``jobs`` (see the module notes).

    Args:
        jobs: runs the rasterising jobs (results are applied on the GUI thread).
        parent: the parent graphics item.
        pixels_from: another layer whose kept pixels this one reuses when both were
            given the same lines (the same ``token``) and draw the same geometry.

    Attributes:
        rasterised: lines stepped into pixels so far (cached ones are not stepped again).
        front_plan: the geometry of :attr:`front` (``size`` in pixels, ``affine`` data
            to image pixels), None before the first image.
    """

    def __init__(self, jobs: JobRunner, parent: Any = None,
                 pixels_from: RasterLayer | None = None) -> None:
        super().__init__(parent)
        self._jobs = jobs
        self._source = pixels_from
        self._token: object = object()
        self._cache_key: tuple[Any, ...] | None = None
        self._cache: dict[int, Runs] = {}
        self._in_flight = False
        self._alive = {"alive": True}
        self.rasterised = 0
        self.front_plan: _Plan | None = None
        self.destroyed.connect(lambda *_a, g=self._alive: g.update(alive=False))

    # -- content -----------------------------------------------------------------------
    def set_lines(self, paths: Sequence[QPainterPath], pens: Sequence[QPen],
                  extent: QRectF | None = None,
                  data: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
                  token: object | None = None) -> None:
        """As :meth:`LineLayer.set_lines`; ``data`` (each path's ``(x, y)``) is what is drawn.

        ``token``: an object naming these lines (held by the layer); layers given
        the same token for the same lines share their pixels (``pixels_from``).
        """
        if data is None:
            raise ValueError("a raster layer draws the lines' (x, y) data: give data")
        self._token = token if token is not None else object()
        self._cache_key, self._cache = None, {}
        super().set_lines(paths, pens, extent, data)

    @property
    def job_key(self) -> str:
        """The key of this layer's jobs (cancel it when the layer's view goes away)."""
        return f"raster:{id(self)}"

    @property
    def pending(self) -> bool:
        """True while an image is being made or a check whether one is needed waits."""
        return self._timer.isActive() or self._in_flight

    def stop(self) -> None:
        """Stop drawing (the item is being removed); a job on its way is dropped."""
        super().stop()
        self._alive["alive"] = False

    # -- drawing -----------------------------------------------------------------------
    def _plan(self) -> _Plan | None:
        """What the image for the current view needs, or None when none is needed."""
        planned = self._next_image_area()
        if planned is None:
            return None
        dt, device, dpr = planned
        size = (max(1, round(device.width() * dpr)), max(1, round(device.height() * dpr)))
        to_image = (dt * QTransform.fromTranslate(-device.left(), -device.top())
                    * QTransform.fromScale(dpr, dpr))
        affine = _affine(to_image)
        key = (id(self._token), affine, size)  # the layer holds the token: a unique id
        return _Plan(device, QTransform(dt), dpr, self._generation, key, affine, size)

    def _cache_for(self, key: Any) -> dict[int, Runs]:
        """A copy of the runs already drawn in the geometry ``key``: this layer's, else its
        source's (the same lines); empty for another geometry (the old runs are freed)."""
        src = self._source
        if key != self._cache_key:
            self._cache_key, self._cache = None, {}  # another geometry: free them now
        if key == self._cache_key:
            return dict(self._cache)
        if src is not None and key == src._cache_key:
            return dict(src._cache)  # the same lines in the same geometry: their pixels
        return {}

    def draw_some(self) -> None:
        """The layer's timer: start the job of the image the view needs (one at a time)."""
        self._timer.stop()
        if self._in_flight:
            return  # evaluated again when it ends
        plan = self._plan()
        if plan is None:
            return
        order = list(self._order)
        data = self._data or ()
        colours = [premultiplied(self._pens[i]) for i in order]
        widths = [max(1, round(self._pens[i].widthF())) for i in order]
        cache = self._cache_for(plan.key)
        width, height = plan.size
        curves = [data[i] for i in order]

        def work(ctx: JobContext) -> tuple[dict[int, Runs], np.ndarray, int]:
            # In drawing order, a batch of lines at a time: only the kept runs and one
            # batch's pixels are held (a zoom into noise covers 100 million pixels).
            kept = sum(int(v[0].size) for v in cache.values())
            img = np.zeros(width * height, dtype=np.uint32)
            stepped = 0
            for b in range(0, len(order), BATCH_LINES):
                ctx.check()
                ks = range(b, min(b + BATCH_LINES, len(order)))
                missing = [k for k in ks if order[k] not in cache]
                fresh = dict(zip(missing, lines_runs([curves[k] for k in missing],
                                                     plan.affine, width, height),
                                 strict=True)) if missing else {}
                stepped += len(missing)
                for k in ks:
                    runs = fresh.get(k)
                    if runs is None:
                        runs = cache[order[k]]
                    elif kept < MAX_CACHED:
                        cache[order[k]] = runs
                        kept += runs[0].size
                    paint(img, decode(runs), colours[k], widths[k], width, height)
            return cache, _row_major(img, width, height), stepped

        alive = self._alive

        def done(result: tuple[dict[int, Runs], np.ndarray, int]) -> None:
            if alive["alive"]:
                self._done(plan, *result)

        def failed(message: str, tb: str) -> None:
            if alive["alive"]:
                self._in_flight = False
                self._schedule()

        self._in_flight = True
        self._jobs.submit(work, on_done=done, on_error=failed, key=self.job_key)
        self.ticks += 1

    def _done(self, plan: _Plan, cache: dict[int, Runs], pixels: np.ndarray,
              stepped: int) -> None:
        """A job's image (GUI thread): kept indices, and the image when still current."""
        self._in_flight = False
        self.rasterised += stepped
        if plan.key[0] == id(self._token):
            self._cache_key, self._cache = plan.key, cache
        if plan.generation == self._generation:
            height, width = pixels.shape
            image = QImage(pixels.data, width, height, 4 * width,
                           QImage.Format.Format_ARGB32_Premultiplied).copy()
            image.setDevicePixelRatio(plan.dpr)
            inv, _ = plan.dt.inverted()
            self.prepareGeometryChange()
            self.front = Frame(image, plan.device, plan.dt, inv.mapRect(plan.device),
                               plan.generation)
            self.front_plan = plan
            self.rendered += 1
            self.update()
            self.sig_rendered.emit(self.rendered)
        self._schedule()  # is it still the right one?
