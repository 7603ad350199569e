"""pyqtgraph's axis, with its horizontal grid lines drawn as one-pixel rows.

A plot's grid is drawn by its axes (``showGrid``: each tick becomes a line across
the view, translucent).  Qt's raster engine strokes a translucent line one
pixel at a time: 50 horizontal grid lines across a 1 210-pixel plot took 8-16 ms
of every repaint (2 cores, Qt 6.11, offscreen), the left axis's grid alone 3-25 ms,
while the same rows filled as rectangles take 0.1-0.2 ms.  :class:`GridAxis` fills
them so, on exactly the pixels the line covers (Qt's aliased cosmetic line lights
row ``floor(y)``); vertical lines and everything else are drawn as pyqtgraph does
(a vertical rectangle costs as much as the line: one span per row).
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPen


def _fillable(pen: QPen, p1: Any, p2: Any) -> bool:
    """A horizontal, solid, one-pixel line of one colour: the same pixels as a filled row."""
    return (p1.y() == p2.y() and pen.style() == Qt.PenStyle.SolidLine and pen.isCosmetic()
            and pen.widthF() <= 1 and pen.brush().style() == Qt.BrushStyle.SolidPattern)


class GridAxis(pg.AxisItem):
    """A ``pg.AxisItem`` (same arguments) whose horizontal grid lines are filled rows.

    Only with the grid shown (``setGrid``); the picture is the one pyqtgraph draws,
    pixel for pixel (``tests/test_grid_axis.py``).
    """

    def drawPicture(self, p: QPainter, axisSpec: Any, tickSpecs: list[Any],  # noqa: N802,N803
                    textSpecs: list[Any]) -> None:
        """Fill the horizontal grid lines, then let pyqtgraph draw the rest."""
        if self.grid is False:
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        lines = []
        for pen, p1, p2 in tickSpecs:
            if not _fillable(pen, p1, p2):
                lines.append((pen, p1, p2))
                continue
            x0, x1 = sorted((math.floor(p1.x()), math.floor(p2.x())))
            p.fillRect(QRectF(x0, math.floor(p1.y()), x1 - x0 + 1, 1.0), pen.color())
        super().drawPicture(p, axisSpec, lines, textSpecs)
