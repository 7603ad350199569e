"""Many lines drawn as one plot item: rasterised a few at a time, then painted as one image.

pyqtgraph repaints every ``PlotCurveItem`` on every frame; 500 AUC scans of
about 3000 vertices each (their per-pixel-column envelopes) took 0.25-0.5 s
per repaint on two shared cores, grouping them into a few NaN-separated
curves still about 0.25 s: the cost is the vertices, so a pan blocked the
GUI thread that long on every mouse move.

:class:`LineLayer` draws its lines into an image instead and paints that
image, moved and scaled with the view, until the next one is complete, so a
repaint costs one image blit whatever the number of lines.  The image is
drawn on the GUI thread, a few lines per event-loop turn (at most about
:data:`SLICE_MS` each), not on a worker thread: PySide6 keeps the GIL for
the whole of a ``QPainter`` call (measured with PySide6 6.11: a 10 s
``drawPath`` on a worker thread stopped the GUI thread for 10 s), so only
slicing keeps the GUI responsive.  The lines' ``QPainterPath`` objects are
built by the caller, off the GUI thread (``QPainterPath`` is a reentrant
value type, not a ``QObject``).

The image covers the visible area plus :data:`MARGIN_X` of its width on each
side (and :data:`MARGIN_Y` of its height), so a pan within that shows lines
at once; a pan past it, a zoom, a resize or new lines start a new image
while the old one stays on screen, moved or scaled.  Exports (the scene
rendered to a PNG or SVG, ``widget`` None) paint the lines as vectors.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QImage, QPainter, QPainterPath, QPen, QTransform

#: Most time spent drawing lines into the image per event-loop turn (ms);
#: one line (a few thousand vertices) is the smallest step.
SLICE_MS = 8.0
#: The image extends past the visible area by this fraction of its width on
#: each side (the AUC view reads envelopes a quarter of a view beyond too) ...
MARGIN_X = 0.25
#: ... and by this fraction of its height above and below.
MARGIN_Y = 0.1
#: Relative difference of scale below which an image is painted unscaled.
SAME_SCALE = 1e-6

try:  # pyqtgraph's own segment builder (its PlotCurveItem draws wide pens this way)
    from pyqtgraph.graphicsItems.PlotCurveItem import arrayToLineSegments as _segments
except ImportError:  # pragma: no cover - older pyqtgraph: wide lines are stroked paths
    _segments = None


def _same_scale(a: QTransform, b: QTransform) -> bool:
    return (abs(a.m11() - b.m11()) <= SAME_SCALE * abs(b.m11())
            and abs(a.m22() - b.m22()) <= SAME_SCALE * abs(b.m22())
            and a.m12() == b.m12() == 0 and a.m21() == b.m21() == 0)


@dataclass
class Frame:
    """One complete (or growing) image of the lines.

    Attributes:
        image: ARGB32 premultiplied, ``device`` size times the device pixel ratio.
        device: the area drawn, in the view's device (logical pixel)
            coordinates at the time of drawing.
        transform: item (data) to device coordinates at that time.
        rect: ``device`` in item (data) coordinates.
        generation: the version of the lines drawn (see :meth:`LineLayer.generation`).
    """

    image: QImage
    device: QRectF
    transform: QTransform
    rect: QRectF
    generation: int


@dataclass
class _Job:
    frame: Frame
    paint_transform: QTransform  # item (data) to image pixels
    order: list[int]
    done: int = 0


class LineLayer(pg.GraphicsObject):
    """Lines (``QPainterPath`` in data coordinates, one ``QPen`` each) painted as one image.

    Add it to a ``ViewBox`` with ``ignoreBounds=True`` (its bounds follow
    the image, not the data).  :meth:`set_lines` gives the paths and pens,
    :meth:`set_order` which lines are drawn, in which order (later ones on
    top).  Nothing is drawn while the item has no view.

    Attributes:
        front: the image painted now (None before the first is complete).
        rendered: images completed so far; ticks: event-loop turns spent drawing.

    Signals:
        sig_rendered(int): an image was completed (the new ``rendered`` count).
    """

    sig_rendered = Signal(int)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._paths: Sequence[QPainterPath] = ()
        self._pens: Sequence[QPen] = ()
        self._data: Sequence[tuple[np.ndarray, np.ndarray]] | None = None
        self._order: list[int] = []
        self._extent = QRectF()
        self._generation = 0
        self.front: Frame | None = None
        self._job: _Job | None = None
        self.rendered = 0
        self.ticks = 0
        self._hold = False
        self._timer = QTimer(self)  # deleted with the item
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.draw_some)

    # -- content -----------------------------------------------------------------------
    @property
    def generation(self) -> int:
        """Increases whenever the lines, pens or order change."""
        return self._generation

    @property
    def order(self) -> list[int]:
        """The lines drawn, in drawing order."""
        return list(self._order)

    def set_lines(self, paths: Sequence[QPainterPath], pens: Sequence[QPen],
                  extent: QRectF | None = None,
                  data: Sequence[tuple[np.ndarray, np.ndarray]] | None = None) -> None:
        """New lines: ``paths[i]`` drawn with ``pens[i]`` (cosmetic pens: widths in pixels).

        ``extent`` is a data rectangle holding every path (default: their
        union); ``data`` the ``(x, y)`` arrays of each path (NaN = break),
        used to draw wide pens as separate segments.
        """
        if len(paths) != len(pens) or (data is not None and len(data) != len(paths)):
            raise ValueError("one pen (and one (x, y) pair) per path is needed")
        self.prepareGeometryChange()
        self._paths, self._pens, self._data = paths, pens, data
        if extent is None:
            extent = QRectF()
            for p in paths:
                extent = extent.united(p.boundingRect()) if not p.isEmpty() else extent
        self._extent = QRectF(extent)
        self._order = [i for i in self._order if i < len(paths)]
        self._changed()

    def set_pens(self, pens: Sequence[QPen]) -> None:
        """New pens for the same lines."""
        if len(pens) != len(self._paths):
            raise ValueError("one pen per path is needed")
        self._pens = pens
        self._changed()

    def set_order(self, order: Sequence[int]) -> None:
        """Draw the lines ``order`` (indices into the paths), the last on top."""
        order = [int(i) for i in order]
        if order != self._order:
            self._order = order
            self._changed()

    def _changed(self) -> None:
        self._generation += 1
        self._job = None  # a job in progress draws out-of-date lines
        if not self._order:
            self.prepareGeometryChange()
            self.front = None
            self.update()
        self._schedule()

    # -- when to draw ------------------------------------------------------------------
    def hold(self, on: bool) -> None:
        """While on, a change of the view alone starts no image (new lines still do): the
        owner has asked for new lines for the new view, so the current image, moved or
        scaled, is shown until they come instead of drawing the old lines again."""
        self._hold = on
        if not on:
            self._schedule()

    @property
    def pending(self) -> bool:
        """True while an image is being drawn or a check whether one is needed waits."""
        return self._timer.isActive()

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph hook
        super().viewTransformChanged()
        self._schedule()

    def viewRangeChanged(self) -> None:  # noqa: N802 - pyqtgraph hook
        super().viewRangeChanged()
        self._schedule()  # the ViewBox applies the new range to its transform at paint time

    def _schedule(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _view_area(self) -> tuple[QTransform, QRectF] | None:
        """``(item to device transform, the ViewBox's area in device coordinates)``, or None."""
        vb = self.getViewBox()
        if vb is None or not hasattr(vb, "updateMatrix"):
            return None
        if getattr(vb, "_autoRangeNeedsUpdate", False):
            vb.updateAutoRange()  # as the next paint would: draw for the range it will show
        vb.updateMatrix()  # a range set since the last paint (pyqtgraph defers it to the paint)
        dt = self.deviceTransform_()
        if dt is None:
            return None
        area = vb.mapRectToDevice(vb.boundingRect())
        if area is None or area.width() < 1 or area.height() < 1:
            return None
        return dt, area

    def fits(self, frame: Frame | None) -> bool:
        """True when ``frame`` shows the current lines over the whole visible area unscaled."""
        view = self._view_area()
        if frame is None or view is None:
            return False
        dt, area = view
        if frame.generation != self._generation or not _same_scale(dt, frame.transform):
            return False
        inv, ok = dt.inverted()
        if not ok:  # a degenerate scale (a range near the float limits): nothing moves
            return frame.transform == dt
        seen = frame.transform.mapRect(inv.mapRect(area))
        return frame.device.adjusted(-0.5, -0.5, 0.5, 0.5).contains(seen)

    # -- drawing -----------------------------------------------------------------------
    def _next_image_area(self) -> tuple[QTransform, QRectF, float] | None:
        """``(data to device transform, the device area of a new image, device pixel
        ratio)`` when the current view needs a new image: the visible area widened by
        :data:`MARGIN_X`/:data:`MARGIN_Y` on each side, in whole device pixels.  None
        when there is nothing to draw, nowhere to draw it, it is drawn already, or only
        the view changed while new lines for it are on their way (``hold``)."""
        view = self._view_area()
        if view is None or not self._order or self.fits(self.front):
            return None
        if self._hold and self.front is not None and self.front.generation == self._generation:
            return None
        dt, area = view
        mx, my = MARGIN_X * area.width(), MARGIN_Y * area.height()
        x0, y0 = math.floor(area.left() - mx), math.floor(area.top() - my)
        x1, y1 = math.ceil(area.right() + mx), math.ceil(area.bottom() + my)
        widget = self.getViewWidget()
        dpr = float(widget.devicePixelRatioF()) if widget is not None else 1.0
        return dt, QRectF(x0, y0, x1 - x0, y1 - y0), dpr

    def _begin(self) -> _Job | None:
        """A new image for the current view, or None when none is needed or possible."""
        planned = self._next_image_area()
        if planned is None:
            return None
        dt, device, dpr = planned
        x0, y0 = device.left(), device.top()
        image = QImage(max(1, round(device.width() * dpr)), max(1, round(device.height() * dpr)),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(dpr)
        image.fill(0)
        inv, _ = dt.inverted()
        frame = Frame(image, device, QTransform(dt), inv.mapRect(device), self._generation)
        return _Job(frame, dt * QTransform.fromTranslate(-x0, -y0), list(self._order))

    def draw_some(self) -> None:
        """One event-loop turn's work (the layer's timer calls it): draw lines for at most
        :data:`SLICE_MS` (at least one); swap the image in when it is complete."""
        start = time.perf_counter()
        job = self._job
        if job is None:
            job = self._job = self._begin()
            if job is None:
                self._timer.stop()
                return
        self.ticks += 1
        painter = QPainter(job.frame.image)  # one per turn: none is left open between turns
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setTransform(job.paint_transform)
            while job.done < len(job.order):  # at least one line per turn
                self._draw(painter, job.order[job.done])
                job.done += 1
                if time.perf_counter() - start >= SLICE_MS / 1e3:
                    break
        finally:
            painter.end()
        if job.done < len(job.order):
            return
        self._job = None
        self.prepareGeometryChange()
        self.front = job.frame
        self.rendered += 1
        self.update()
        self.sig_rendered.emit(self.rendered)  # the timer runs on: is it still the right one?

    def _draw(self, painter: QPainter, i: int) -> None:
        """Line ``i``: its path; wide pens draw separate segments (stroking a long path
        wider than a pixel costs about 10-40 times as much: the joins)."""
        pen = self._pens[i]
        painter.setPen(pen)
        xy = self._data[i] if self._data is not None else None
        if pen.widthF() > 1 and xy is not None and _segments is not None and len(xy[0]) > 1:
            segments = _segments(xy[0], xy[1], "finite", False)  # held while Qt reads it
            painter.drawLines(*segments.drawargs())
        else:
            painter.drawPath(self._paths[i])

    def stop(self) -> None:
        """Stop drawing (the item is being removed)."""
        self._timer.stop()
        self._job = None

    # -- QGraphicsItem -----------------------------------------------------------------
    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        rect = QRectF(self._extent)
        if self.front is not None:
            rect = rect.united(self.front.rect)
        return rect

    def paint(self, p: QPainter, opt: Any, widget: Any = None) -> None:
        """The current image (moved and scaled to the view); vectors for an export."""
        if widget is None:  # the scene rendered into a file: draw the lines themselves
            for i in self._order:
                self._draw(p, i)
            return
        f = self.front
        if f is None:
            return
        target = p.transform().mapRect(f.rect)
        p.save()
        p.resetTransform()
        if (abs(target.width() - f.device.width()) < 0.01
                and abs(target.height() - f.device.height()) < 0.01):
            p.drawImage(QPointF(round(target.left()), round(target.top())), f.image)
        else:
            p.drawImage(target, f.image)
        p.restore()
