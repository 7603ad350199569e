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

1. :func:`line_pixels` turns each line into the flat (column-major) indices
   of the image pixels it covers: every segment between two finite points, clipped to the
   image, stepped one pixel at a time along its longer axis (the pixels a
   1-pixel line without anti-aliasing covers).  Nothing is interpolated
   between points that are not consecutive: a NaN breaks the line.
2. :func:`compose` writes each line's colour at its pixels, in drawing order
   (later lines on top), into a premultiplied ARGB32 buffer; pens wider than
   one pixel cover the neighbouring pixels too (:func:`widen`).

The pixels of a geometry (the lines, the data-to-image transform and the
image size) are kept, as runs of consecutive column-major indices
(:func:`encode`: a line is about one run per column however tall its
envelope is), so a hide, a highlight or a new pen composes the image again
from them without stepping a segment; a pan within the image's margins
redraws nothing; a zoom, a resize or a pan past the margins steps the lines
again, on the job.  At most one job runs per layer; a change while it runs
is evaluated when it ends.  Kept runs are capped at :data:`MAX_CACHED`
(lines beyond are stepped again each time).  Exports (``widget`` None)
paint vectors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, overload

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainterPath, QPen, QTransform

from inspector.jobs import JobContext, JobRunner
from inspector.ui.plots.line_layer import MARGIN_X, MARGIN_Y, Frame, LineLayer

#: Clipped ends stay this far inside the image's outer pixel edges (they round inside).
EDGE = 1e-6
#: Lines stepped together in one pass (:func:`lines_pixels`), between cancellation checks.
BATCH_LINES = 8
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
    image (``[0, width)`` and ``[0, height)``; others dropped) and which were kept."""
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
    """The flat column-major indices (``px * height + py``, int32, in order along the
    line) of the pixels of a ``width`` x ``height`` image that the line through ``(x, y)``
    covers.

    ``x``, ``y``: float arrays of equal length, in data coordinates; NaN (or
    any non-finite value) breaks the line.  ``affine`` maps data to image
    pixel coordinates (:func:`_affine`; pixel ``(i, j)`` spans ``[i, i + 1)``).
    A lone finite point between breaks covers its own pixel.  Each segment is
    stepped one pixel at a time along its longer axis, both ends included.
    """
    return lines_pixels([(x, y)], affine, width, height)[0]


def lines_pixels(curves: Sequence[tuple[np.ndarray, np.ndarray]], affine: Affine,
                 width: int, height: int) -> list[np.ndarray]:
    """:func:`line_pixels` of each of ``curves``, stepped together (one pass of numpy
    calls for all of them: a few thousand points each cost more in calls than in
    arithmetic)."""
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
    idx, count = _step(x0, y0, sx, sy, width, height)
    per_line = np.bincount(line, weights=count, minlength=n).astype(np.int64)
    return [_no_repeats(part) for part in np.split(idx, np.cumsum(per_line)[:-1])]


def _no_repeats(idx: np.ndarray) -> np.ndarray:
    """``idx`` without an entry equal to the one before (segments share their ends)."""
    if idx.size < 2:
        return idx
    keep = np.empty(idx.size, dtype=bool)
    keep[0] = True
    np.not_equal(idx[1:], idx[:-1], out=keep[1:])
    return idx[keep]


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
    at = np.concatenate([a[keep], single])
    order = np.argsort(at, kind="stable")
    x0 = np.concatenate([x0, px[single]])[order]
    y0 = np.concatenate([y0, py[single]])[order]
    sx = np.concatenate([x1, px[single]])[order] - x0
    sy = np.concatenate([y1, py[single]])[order] - y0
    return x0, y0, sx, sy, at[order]


def _step(x0: np.ndarray, y0: np.ndarray, sx: np.ndarray, sy: np.ndarray, width: int,
          height: int) -> tuple[np.ndarray, np.ndarray]:
    """Every segment's pixels, one step along its longer axis at a time (both ends
    included): int32 flat column-major indices, segment after segment, and int64 pixels
    a segment."""
    steps = np.maximum(np.ceil(np.maximum(np.abs(sx), np.abs(sy))), 1.0)
    count = steps.astype(np.int64) + 1
    total = int(count.sum())
    if total == 0:
        return np.empty(0, dtype=np.int32), count
    f32 = np.float32 if total < 1 << 24 else np.float64  # exact positions along a segment
    k = np.arange(total, dtype=f32)
    k -= np.repeat((np.cumsum(count) - count).astype(f32), count)  # step along the segment
    cx = np.repeat((sx / steps).astype(f32), count)
    cx *= k
    cx += np.repeat(x0.astype(f32), count)
    k *= np.repeat((sy / steps).astype(f32), count)
    k += np.repeat(y0.astype(f32), count)
    ix = np.floor(cx, out=cx).astype(np.int32)  # pixel i spans [i, i + 1)
    iy = np.floor(k, out=k).astype(np.int32)
    np.clip(ix, 0, width - 1, out=ix)  # float32 rounding at the outer edges
    np.clip(iy, 0, height - 1, out=iy)
    ix *= height  # column-major: a column's pixels are consecutive (runs, see encode)
    ix += iy
    return ix, count


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


def encode(idx: np.ndarray) -> Runs:
    """The distinct pixels ``idx`` as runs of consecutive indices: int32 ``(starts,
    lengths)``.  Column-major indices make a line's pixels in one column one run, so a
    line is a few thousand runs however many pixels it covers."""
    if idx.size == 0:
        return np.empty(0, np.int32), np.empty(0, np.int32)
    u = np.unique(idx)
    cut = np.flatnonzero(np.diff(u) != 1) + 1
    first = np.concatenate([[0], cut])
    ends = np.concatenate([cut, [u.size]])
    return u[first].astype(np.int32), (ends - first).astype(np.int32)


def decode(runs: Runs) -> np.ndarray:
    """The int32 pixel indices of ``runs`` (:func:`encode`), ascending."""
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
        view = self._view_area()
        if view is None or not self._order or self.fits(self.front):
            return None
        if self._hold and self.front is not None and self.front.generation == self._generation:
            return None  # only the view changed, and new lines for it are on their way
        dt, area = view
        mx, my = MARGIN_X * area.width(), MARGIN_Y * area.height()
        x0, y0 = math.floor(area.left() - mx), math.floor(area.top() - my)
        x1, y1 = math.ceil(area.right() + mx), math.ceil(area.bottom() + my)
        device = QRectF(x0, y0, x1 - x0, y1 - y0)
        widget = self.getViewWidget()
        dpr = float(widget.devicePixelRatioF()) if widget is not None else 1.0
        size = (max(1, round(device.width() * dpr)), max(1, round(device.height() * dpr)))
        to_image = dt * QTransform.fromTranslate(-x0, -y0) * QTransform.fromScale(dpr, dpr)
        affine = _affine(to_image)
        key = (id(self._token), affine, size)  # the layer holds the token: a unique id
        return _Plan(device, QTransform(dt), dpr, self._generation, key, affine, size)

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
        src = self._source
        if plan.key != self._cache_key:
            self._cache_key, self._cache = None, {}  # another geometry: free them now
        if plan.key == self._cache_key:
            cache = dict(self._cache)
        elif src is not None and plan.key == src._cache_key:
            cache = dict(src._cache)  # the same lines in the same geometry: their pixels
        else:
            cache = {}
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
                fresh = dict(zip(missing, lines_pixels([curves[k] for k in missing],
                                                       plan.affine, width, height),
                                 strict=True)) if missing else {}
                stepped += len(missing)
                for k in ks:
                    idx = fresh.get(k)
                    if idx is None:
                        idx = decode(cache[order[k]])
                    elif kept < MAX_CACHED:
                        runs = cache[order[k]] = encode(idx)
                        kept += runs[0].size
                    paint(img, idx, colours[k], widths[k], width, height)
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
