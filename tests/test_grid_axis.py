"""GridAxis draws the grid pyqtgraph draws, pixel for pixel, with its horizontal lines
filled as rows (Qt strokes a translucent line one pixel at a time)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter

from inspector.ui.plots.grid_axis import GridAxis


def _plot(qtbot, axis_class, x, y, size=(900, 600)):
    axes = {side: axis_class(side) for side in ("left", "bottom")}
    widget = pg.PlotWidget(plotItem=pg.PlotItem(axisItems=axes))
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    widget.showGrid(x=True, y=True, alpha=0.2)
    widget.plot(x, y)
    qtbot.waitExposed(widget)
    return widget


def _pixels(widget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(),
                                                               image.bytesPerLine())
    return rows[:, :image.width() * 4].copy()


@pytest.mark.parametrize(("x", "y", "size"), [
    (np.linspace(5.9, 7.2, 1000), np.sin(np.arange(1000.0) / 50), (900, 600)),
    (np.arange(10.0), np.arange(10.0) ** 3 - 200, (1024, 640)),
    (np.linspace(-1e-6, 3e-6, 50), np.linspace(1e5, 4e5, 50), (1280, 800)),
])
def test_the_grid_is_the_one_pyqtgraph_draws(qtbot, x, y, size) -> None:
    ours = _plot(qtbot, GridAxis, x, y, size)
    theirs = _plot(qtbot, pg.AxisItem, x, y, size)
    mine, reference = _pixels(ours), _pixels(theirs)
    assert mine.shape == reference.shape
    assert np.array_equal(mine, reference)
    assert (reference != reference[0, 0]).any()  # something was drawn


def _specs(axis):
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        return axis.generateDrawSpecs(painter)
    finally:
        painter.end()


class _Recorder:
    """Stands in for the QPainter: the calls drawPicture makes."""

    RenderHint = QPainter.RenderHint

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append(name)


def test_horizontal_grid_lines_are_filled_and_the_others_drawn(qtbot) -> None:
    widget = _plot(qtbot, GridAxis, np.arange(10.0), np.arange(10.0))
    for side, fills in (("left", True), ("bottom", False)):
        axis = widget.getPlotItem().getAxis(side)
        axis_spec, ticks, texts = _specs(axis)
        recorder = _Recorder()
        axis.drawPicture(recorder, axis_spec, ticks, texts)
        if fills:  # every tick line is a grid row: none is stroked, only the axis line
            assert recorder.calls.count("fillRect") == len(ticks) > 0
            assert recorder.calls.count("drawLine") == 1
        else:
            assert recorder.calls.count("fillRect") == 0
            assert recorder.calls.count("drawLine") == len(ticks) + 1
    widget.showGrid(x=False, y=False)  # without a grid: pyqtgraph's own drawing
    axis = widget.getPlotItem().getAxis("left")
    axis_spec, ticks, texts = _specs(axis)
    recorder = _Recorder()
    axis.drawPicture(recorder, axis_spec, ticks, texts)
    assert recorder.calls.count("fillRect") == 0
