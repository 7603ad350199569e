"""The line layer: many lines painted as one image, drawn a slice per event-loop turn.

Oracle: the same paths drawn by a plain ``QPainter`` with the layer's
transform give the same pixels.  The view is checked for what it redraws:
nothing on a pan within the image's margins or on a highlight, the layer
without the scan on a hide.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter, QTransform

from inspector.ui.plots import line_layer as ll
from inspector.ui.plots.line_layer import LineLayer

COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]


def lines_case(n=5, points=400):
    """Lines well apart vertically (line i around y = i), zig-zags like scan envelopes."""
    x = np.repeat(np.linspace(0.0, 10.0, points // 2), 2)
    rng = np.random.default_rng(2)
    data = []
    for i in range(n):
        y = i + 0.3 * np.sin(x) + rng.uniform(-0.05, 0.05, x.size)
        y[points // 3] = np.nan  # a break
        data.append((x, y))
    return data


def make_layer(qtbot, data, colours=COLOURS, widths=None):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(600, 400)
    layer = LineLayer()
    paths = [pg.arrayToQPath(x, y, connect="finite") for x, y in data]
    pens = [pg.mkPen(colours[i % len(colours)], width=(widths or {}).get(i, 1))
            for i in range(len(data))]
    layer.set_lines(paths, pens, data=data)
    vb = widget.getPlotItem().vb
    vb.addItem(layer, ignoreBounds=True)
    vb.setRange(xRange=(0, 10), yRange=(-1, len(data)), padding=0)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(50)  # laid out: the view's transform stays as it is
    return widget, layer, paths, pens


def settle(qtbot, layer):
    qtbot.waitUntil(lambda: not layer.pending, timeout=10_000)


def reference(layer, paths, pens, order):
    """The lines drawn directly, with the transform of the layer's image."""
    f = layer.front
    img = QImage(f.image.size(), QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    p.setTransform(f.transform * QTransform.fromTranslate(-f.device.left(), -f.device.top()))
    for i in order:
        p.setPen(pens[i])
        p.drawPath(paths[i])
    p.end()
    return img


def count(img, colour):
    """Pixels of exactly ``colour`` (opaque) in ``img``."""
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())
    a = a[:, : 4 * img.width()].reshape(img.height(), img.width(), 4)
    c = QColor(colour)
    return int(((a[..., 2] == c.red()) & (a[..., 1] == c.green()) & (a[..., 0] == c.blue())
                & (a[..., 3] == 255)).sum())


def test_the_image_is_the_lines_drawn_directly(qtbot):
    data = lines_case()
    widget, layer, paths, pens = make_layer(qtbot, data)
    layer.set_order(range(5))
    settle(qtbot, layer)
    assert layer.rendered >= 1 and layer.fits(layer.front)
    assert layer.front.image == reference(layer, paths, pens, range(5))
    assert all(count(layer.front.image, c) > 100 for c in COLOURS)
    # the image covers the view plus its margins
    vb = widget.getPlotItem().vb
    area = vb.mapRectToDevice(vb.boundingRect())
    assert layer.front.device.width() >= area.width() * (1 + 2 * ll.MARGIN_X) - 1


def test_lines_are_drawn_a_slice_per_turn(qtbot, monkeypatch):
    monkeypatch.setattr(ll, "SLICE_MS", 0.0)  # one line per event-loop turn
    data = lines_case(5)
    widget, layer, paths, pens = make_layer(qtbot, data)
    layer.set_order([4, 0, 2])
    settle(qtbot, layer)
    assert layer.ticks == 3 and layer.rendered == 1 and widget.isVisible()
    assert layer.front.image == reference(layer, paths, pens, [4, 0, 2])


def test_a_pan_within_the_margin_reuses_the_image_past_it_redraws(qtbot):
    data = lines_case()
    widget, layer, paths, pens = make_layer(qtbot, data)
    layer.set_order(range(5))
    settle(qtbot, layer)
    vb = widget.getPlotItem().vb
    n = layer.rendered
    vb.setXRange(1.0, 11.0, padding=0)  # a tenth of the view: inside the margin
    settle(qtbot, layer)
    assert layer.rendered == n and layer.fits(layer.front)
    vb.setXRange(5.0, 15.0, padding=0)  # half a view: past it
    assert layer.pending and not layer.fits(layer.front)
    settle(qtbot, layer)
    assert layer.rendered == n + 1 and layer.fits(layer.front)
    vb.setXRange(5.0, 10.0, padding=0)  # a zoom: another scale
    settle(qtbot, layer)
    assert layer.rendered == n + 2
    assert layer.front.image == reference(layer, paths, pens, range(5))


def test_new_content_while_drawing_starts_over(qtbot, monkeypatch):
    monkeypatch.setattr(ll, "SLICE_MS", 0.0)
    data = lines_case()
    widget, layer, paths, pens = make_layer(qtbot, data)
    layer.set_order(range(5))
    layer.draw_some()
    layer.draw_some()  # two of five lines drawn
    assert layer.ticks == 2 and layer.front is None
    layer.set_order([1])  # the image being drawn shows out-of-date lines: dropped
    settle(qtbot, layer)
    assert layer.rendered == 1 and layer.order == [1] and widget.isVisible()
    assert layer.front.image == reference(layer, paths, pens, [1])
    assert count(layer.front.image, COLOURS[0]) == 0
    layer.set_order([])
    assert layer.front is None


def test_wide_pens_draw_segments(qtbot):
    data = lines_case(2)
    widget, layer, _, _ = make_layer(qtbot, data, widths={1: 3})
    layer.set_order([0, 1])
    settle(qtbot, layer)
    assert widget.isVisible()
    thin, wide = count(layer.front.image, COLOURS[0]), count(layer.front.image, COLOURS[1])
    assert 2.2 * thin < wide < 4 * thin


def test_an_export_paints_vectors(qtbot):
    data = lines_case()
    widget, layer, _, _ = make_layer(qtbot, data)
    layer.set_order(range(5))
    assert layer.front is None  # nothing drawn yet: the export does not need it
    scene = widget.scene()
    img = QImage(600, 400, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    p = QPainter(img)
    scene.render(p, QRectF(0, 0, 600, 400), widget.mapToScene(widget.viewport().rect())
                 .boundingRect())
    p.end()
    assert all(count(img, c) > 100 for c in COLOURS)


def test_one_pen_per_line():
    layer = LineLayer()
    with pytest.raises(ValueError):
        layer.set_lines([pg.arrayToQPath(np.arange(3.0), np.arange(3.0))], [])


# -- the AUC view's use of the layers ---------------------------------------------------
def auc_view(qtbot, jobs, scans=6, points=3000):
    from inspector.formats.analysis.arrays import NumpyArrayRef
    from inspector.formats.capabilities import AucScans
    from inspector.ui.plots.auc import AucView

    radius = np.linspace(5.9, 7.2, points)
    signal = np.arange(scans)[:, None] * 2.0 + np.sin(radius * 9)[None, :]  # apart vertically
    arrays = {"radius": NumpyArrayRef("radius", radius),
              "signal": NumpyArrayRef("signal", signal)}
    view = AucView(AucScans(tuple(f"s{i}" for i in range(scans)), "cm", "AU"), arrays, jobs)
    qtbot.addWidget(view)
    view.resize(900, 450)
    view.show()
    qtbot.waitUntil(lambda: view.drawn >= 1 and not view.busy and view.ready, timeout=10_000)
    return view


def test_auc_layers_highlight_without_redrawing_and_hide_by_redrawing(qtbot, jobs):
    view = auc_view(qtbot, jobs)
    layer = view.lines
    assert layer.order == list(range(6)) and view.highlights.order == []
    before = layer.rendered
    colour = QColor(view.colors[3]).name()
    assert count(layer.front.image, colour) > 100
    view.highlight(3)
    assert layer.opacity() == pytest.approx(50 / 255) and view.highlights.order == [3]
    qtbot.waitUntil(lambda: view.ready, timeout=5000)
    assert layer.rendered == before  # the scans' image is only dimmed
    assert count(view.highlights.front.image, colour) > 2 * count(layer.front.image, colour)
    view.highlight(None)
    assert layer.opacity() == 1.0 and view.highlights.order == []
    view.set_visible(3, False)
    assert layer.order == [0, 1, 2, 4, 5]
    qtbot.waitUntil(lambda: view.ready, timeout=5000)
    assert layer.rendered == before + 1 and count(layer.front.image, colour) == 0
    view.set_visible(3, True)
    qtbot.waitUntil(lambda: view.ready, timeout=5000)
    assert count(layer.front.image, colour) > 100
    assert view.is_idle()


def test_held_layers_redraw_new_lines_not_an_old_view(qtbot):
    data = lines_case()
    widget, layer, paths, pens = make_layer(qtbot, data)
    layer.set_order(range(5))
    settle(qtbot, layer)
    n = layer.rendered
    layer.hold(True)  # new lines for the next view are on their way
    widget.getPlotItem().vb.setXRange(5.0, 8.0, padding=0)
    settle(qtbot, layer)
    assert layer.rendered == n and not layer.fits(layer.front)  # the old image, scaled
    layer.set_order([0, 1])  # new lines: drawn even while held
    settle(qtbot, layer)
    assert layer.rendered == n + 1 and layer.fits(layer.front)
    layer.set_order(range(5))
    layer.hold(False)
    settle(qtbot, layer)
    assert layer.front.image == reference(layer, paths, pens, range(5))


def test_a_range_near_the_float_limits_is_drawn_once_and_the_layer_settles(qtbot):
    """Fuzzing found a window never idle: an AUC signal of values near 1e307 made the y range
    +-1e307, the view's transform singular, and the layer redrew the same image forever
    (an image never 'fitted' a view it could not invert)."""
    data = [(np.array([0.0, 10.0]), np.array([-3e305, 5.6e307]))]
    widget, layer, _paths, _pens = make_layer(qtbot, data)
    vb = widget.getPlotItem().vb
    vb.setRange(xRange=(0, 10), yRange=(-1e307, 1e307), padding=0)
    layer.set_order([0])
    settle(qtbot, layer)
    rendered = layer.rendered
    assert layer.front is not None and rendered >= 1
    qtbot.wait(100)
    assert not layer.pending and layer.rendered == rendered
