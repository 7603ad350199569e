"""A neural line drawn as pixel columns: an envelope's zig-zag painted as one image.

A binned envelope is drawn as a zig-zag through each bin's minimum and maximum
(:func:`~inspector.ui.plots.neural_reads.zigzag`), one bin per screen pixel: for
noise, every column of the line is a vertical stroke the height of its band.  Qt's
stroker draws such a path one pixel span at a time, so its cost is the pixels
covered: a line filling a 500 x 570 pixel plot took 6-12 ms of the GUI thread per
paint, and a plot repaints at every preview while a cold recording is summarised.

:class:`EnvelopeCurve` paints the same zig-zag by pixel column instead:
:func:`column_spans` gives, for every device pixel column, the rows the polyline
covers (each segment clipped to the columns it crosses), and the columns are
painted as one image (about 1 ms for the same line).  Raw samples, wide or
dashed pens, transforms that rotate and exports (the scene rendered to a file)
are painted by pyqtgraph as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from pyqtgraph import debug
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage, QPainter

#: A segment crossing more pixel columns than this is left to Qt's stroker (the drawn
#: envelope is then coarser than the screen: few pixels, a cheap path).
MAX_SEGMENT_COLUMNS = 3


def column_spans(x: np.ndarray, y: np.ndarray, width: int, height: int,
                 max_columns: int = MAX_SEGMENT_COLUMNS) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows a polyline covers in every pixel column of a ``width`` x ``height`` image.

    Args:
        x, y: float64 ``(n,)`` device pixel coordinates of the polyline's points (pixel
            ``(k, r)`` covers ``[k, k+1) x [r, r+1)``); a non-finite point breaks the line
            (``connect="finite"``).
        width, height: the image size in pixels.
        max_columns: most columns one segment may cross.

    Returns:
        ``(top, bottom)``: int64 ``(width,)`` arrays, the first and last row covered in
        each column (``top > bottom`` where nothing is), clipped to the image; each
        segment covers, in each column it crosses, the rows between its values at that
        column's edges.  None when a segment crosses more than ``max_columns`` columns.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    top = np.full(width, np.iinfo(np.int64).max, dtype=np.int64)
    bottom = np.full(width, np.iinfo(np.int64).min, dtype=np.int64)
    ok = np.isfinite(x) & np.isfinite(y)
    seg = ok[:-1] & ok[1:]
    x0, x1, y0, y1 = x[:-1][seg], x[1:][seg], y[:-1][seg], y[1:][seg]
    swap = x1 < x0
    xa, xb = np.where(swap, x1, x0), np.where(swap, x0, x1)
    ya, yb = np.where(swap, y1, y0), np.where(swap, y0, y1)
    k0, k1 = np.floor(xa).astype(np.int64), np.floor(xb).astype(np.int64)
    if len(k0) and int((k1 - k0).max()) > max_columns:
        return None
    dx = xb - xa
    slope = np.divide(yb - ya, dx, out=np.zeros_like(dx), where=dx > 0)
    for o in range(max_columns + 1):
        k = k0 + o
        sel = (k <= k1) & (k >= 0) & (k < width)
        if not sel.any():
            continue
        ks = k[sel]
        lo_x = np.maximum(xa[sel], ks)
        hi_x = np.minimum(xb[sel], ks + 1)
        ya_s, sl = ya[sel], slope[sel]
        e0 = np.where(dx[sel] > 0, ya_s + (lo_x - xa[sel]) * sl, ya_s)
        e1 = np.where(dx[sel] > 0, ya_s + (hi_x - xa[sel]) * sl, yb[sel])
        np.minimum.at(top, ks, np.floor(np.minimum(e0, e1)).astype(np.int64))
        np.maximum.at(bottom, ks, np.floor(np.maximum(e0, e1)).astype(np.int64))
    covered = top <= bottom
    top = np.where(covered, np.maximum(top, 0), 1)
    bottom = np.where(covered, np.minimum(bottom, height - 1), 0)
    return top, bottom


def spans_image(top: np.ndarray, bottom: np.ndarray, argb: int
                ) -> tuple[np.ndarray, int, int] | None:
    """``(pixels, first column, first row)``: the covered columns painted ``argb``
    (premultiplied) on transparent, as a uint32 ``(rows, columns)`` array spanning only
    the covered part; None when nothing is covered."""
    cols = np.flatnonzero(top <= bottom)
    if not len(cols):
        return None
    c0, c1 = int(cols[0]), int(cols[-1]) + 1
    t, b = top[c0:c1], bottom[c0:c1]
    r0, r1 = int(t[t <= b].min()), int(b[t <= b].max()) + 1
    rows = np.arange(r0, r1, dtype=np.int64)[:, None]
    mask = (rows >= t[None, :]) & (rows <= b[None, :])
    pixels = np.zeros(mask.shape, dtype=np.uint32)
    pixels[mask] = np.uint32(argb)
    return pixels, c0, r0


def premultiplied_argb(color: Any) -> int:
    """A ``QColor`` as one premultiplied ARGB32 pixel value."""
    a = color.alpha()
    r, g, b = (round(v * a / 255) for v in (color.red(), color.green(), color.blue()))
    return (a << 24) | (r << 16) | (g << 8) | b


class EnvelopeCurve(pg.PlotCurveItem):
    """A ``PlotCurveItem`` whose zig-zag envelope (``band`` True) is painted by pixel
    column (:func:`column_spans`); everything else as a ``PlotCurveItem``.

    Attributes:
        band: the data is an envelope's zig-zag (set by the owner; False: raw samples).
        painted_columns: :func:`column_spans`' ``(top, bottom)`` (device pixels) of the
            last paint by column (None when pyqtgraph's path was painted).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.band = False
        self.painted_columns: tuple[np.ndarray, np.ndarray] | None = None

    @debug.warnOnException  # (an exception raised out of a paint ends the process)
    def paint(self, p: QPainter, opt: Any, widget: Any = None) -> None:
        """The columns as one image when possible, else pyqtgraph's paint."""
        if not self._paint_columns(p, widget):
            self.painted_columns = None
            super().paint(p, opt, widget)

    def _paint_columns(self, p: QPainter, widget: Any) -> bool:
        pen = self.opts["pen"]
        if (not self.band or widget is None or self._exportOpts is not False
                or self.xData is None or len(self.xData) < 2 or pen is None
                or pen.style() != Qt.PenStyle.SolidLine or not pen.isCosmetic()
                or pen.widthF() > 1 or self.opts["fillLevel"] is not None):
            return False
        t = p.transform()
        if t.isRotating() or not t.isAffine():
            return False
        dpr = float(widget.devicePixelRatioF())
        width, height = round(widget.width() * dpr), round(widget.height() * dpr)
        x = (self.xData * t.m11() + t.dx()) * dpr
        y = (self.yData * t.m22() + t.dy()) * dpr
        spans = column_spans(x, y, width, height)
        if spans is None:
            return False
        self.painted_columns = spans
        drawn = spans_image(*spans, premultiplied_argb(pen.color()))
        if drawn is None:
            return True
        pixels, c0, r0 = drawn
        image = QImage(pixels.data, pixels.shape[1], pixels.shape[0], pixels.strides[0],
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(dpr)
        p.save()
        p.resetTransform()
        p.drawImage(QPointF(c0 / dpr, r0 / dpr), image)
        p.restore()
        return True
