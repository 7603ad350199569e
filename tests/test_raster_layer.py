"""The raster layer: lines stepped into pixels with numpy on a job, composed in order.

Oracles: the pixels of a segment are those a brute-force walk along it in
tiny steps rounds to (numpy, float64); every vertex's own pixel is lit; a
NaN break lights nothing between its neighbours; the layer's image is
:func:`compose` of :func:`line_pixels` at the image's transform.  A hide or
a highlight composes the image again without stepping any line again.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor

from inspector.ui.plots.raster_layer import (
    RasterLayer,
    _affine,
    compose,
    decode,
    line_pixels,
    lines_runs,
    premultiplied,
    widen,
)

IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
W, H = 40, 30


def _xy(idx: np.ndarray) -> set[tuple[int, int]]:
    x, y = np.divmod(idx.astype(np.int64), H)  # column-major: px * height + py
    return set(zip(x.tolist(), y.tolist(), strict=True))


def _walk(x0, y0, x1, y1, n=20_000):
    """Brute force: the pixels a walk in ``n`` tiny steps along the segment passes through."""
    t = np.linspace(0.0, 1.0, n)
    px = np.floor(x0 + t * (x1 - x0)).astype(int)
    py = np.floor(y0 + t * (y1 - y0)).astype(int)
    keep = (px >= 0) & (px < W) & (py >= 0) & (py < H)
    return set(zip(px[keep].tolist(), py[keep].tolist(), strict=True))


@pytest.mark.parametrize("seg", [(2.5, 3.5, 30.5, 9.5), (5.5, 25.5, 9.5, 1.5),
                                 (1.2, 1.7, 38.9, 28.1), (10.5, 5.5, 10.5, 20.5)])
def test_a_segment_lights_a_connected_run_close_to_the_walk(seg):
    x0, y0, x1, y1 = seg
    idx = line_pixels(np.array([x0, x1]), np.array([y0, y1]), IDENTITY, W, H)
    got = _xy(idx)
    walk = _walk(*seg)
    assert (int(x0), int(y0)) in got and (int(x1), int(y1)) in got  # both ends
    assert walk <= got and len(got - walk) <= 2  # every pixel it passes through, no more
    xs = sorted({x for x, _y in got})
    assert xs == list(range(int(min(x0, x1)), int(max(x0, x1)) + 1))  # no column skipped


def test_nan_breaks_the_line_and_a_lone_point_lights_its_pixel():
    x = np.array([2.5, 10.5, 20.5, np.nan, 30.5, 35.5, np.nan, 5.5])
    y = np.array([2.5, 2.5, 2.5, np.nan, 2.5, 2.5, 20.0, 25.5])
    got = _xy(line_pixels(x, y, IDENTITY, W, H))
    assert {(i, 2) for i in range(2, 21)} <= got and {(i, 2) for i in range(30, 36)} <= got
    assert not any((i, 2) in got for i in range(21, 30))  # the break: nothing between
    assert (5, 25) in got  # the lone point after the last break
    assert len(got) == 19 + 6 + 1


def test_the_affine_maps_data_to_pixels():
    # data x in [0, 4] -> pixels 0..40, y in [0, 3] -> 30..0 (y up)
    affine = (10.0, 0.0, 0.0, -10.0, 0.0, 30.0)
    x = np.array([0.05, 3.95])
    y = np.array([1.55, 1.55])
    got = _xy(line_pixels(x, y, affine, W, H))
    assert got == {(i, 14) for i in range(0, 40)}


def test_far_outside_segments_are_clipped_not_stepped():
    x = np.array([-1e12, 1e12, np.nan, 50.0, 60.0])
    y = np.array([10.5, 10.5, np.nan, 5.0, 5.0])
    idx = line_pixels(x, y, IDENTITY, W, H)
    assert _xy(idx) == {(i, 10) for i in range(W)}  # the visible part only; the other misses
    assert line_pixels(np.empty(0), np.empty(0), IDENTITY, W, H).size == 0


def test_compose_puts_later_lines_on_top_and_widens_wide_pens():
    a = line_pixels(np.array([2.5, 30.5]), np.array([10.5, 10.5]), IDENTITY, W, H)
    b = line_pixels(np.array([15.5, 15.5]), np.array([2.5, 25.5]), IDENTITY, W, H)
    img = compose([a, b], [0xFFFF0000, 0xFF0000FF], [1, 1], W, H)
    assert img[10, 15] == 0xFF0000FF and img[10, 5] == 0xFFFF0000 and img[0, 0] == 0
    img = compose([b, a], [0xFF0000FF, 0xFFFF0000], [1, 3], W, H)
    assert img[10, 15] == 0xFFFF0000 and img[9, 5] == img[11, 5] == 0xFFFF0000
    assert img[8, 5] == 0
    assert len(set(widen(a, W, H, 3).tolist())) == 3 * len(a) + 6  # the ends' corners too
    half = QColor(255, 0, 0, 128)
    assert premultiplied(pg.mkPen(half)) == (128 << 24) | (128 << 16)


def _layer(qtbot, jobs, n=5):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(500, 350)
    x = np.repeat(np.linspace(0.0, 10.0, 300), 2)
    data = [(x, i + 0.3 * np.sin(x + i)) for i in range(n)]
    data[2][1][100] = np.nan
    layer = RasterLayer(jobs)
    colours = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]
    pens = [pg.mkPen(colours[i % 5]) for i in range(n)]
    paths = [pg.arrayToQPath(x, y, connect="finite") for x, y in data]
    layer.set_lines(paths, pens, data=data)
    vb = widget.getPlotItem().vb
    vb.addItem(layer, ignoreBounds=True)
    vb.setRange(xRange=(0, 10), yRange=(-1, n), padding=0)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(50)
    return widget, layer, data, pens


def _settle(qtbot, layer):
    qtbot.waitUntil(lambda: not layer.pending, timeout=10_000)


def _oracle(layer, data, pens, order):
    plan = layer.front_plan
    (w, h), affine = plan.size, plan.affine
    px = [line_pixels(*data[i], affine, w, h) for i in order]
    return compose(px, [premultiplied(pens[i]) for i in order], [1] * len(order), w, h)


def _pixels(layer) -> np.ndarray:
    img = layer.front.image.convertToFormat(layer.front.image.Format.Format_ARGB32_Premultiplied)
    buf = np.frombuffer(img.constBits(), dtype=np.uint32, count=img.width() * img.height())
    return buf.reshape(img.height(), img.width())


def test_layer_image_is_the_composed_pixels_and_a_hide_steps_nothing(qtbot, jobs):
    widget, layer, data, pens = _layer(qtbot, jobs)
    layer.set_order(range(5))
    _settle(qtbot, layer)
    assert layer.front is not None and layer.rasterised == 5
    assert np.array_equal(_pixels(layer), _oracle(layer, data, pens, range(5)))
    n = layer.rendered
    layer.set_order([0, 1, 3, 4])  # a hide: composed again from the kept pixels
    _settle(qtbot, layer)
    assert layer.rendered == n + 1 and layer.rasterised == 5
    assert np.array_equal(_pixels(layer), _oracle(layer, data, pens, [0, 1, 3, 4]))
    layer.set_pens([pg.mkPen("#000000")] * 5)  # new pens: composed again too
    _settle(qtbot, layer)
    assert layer.rasterised == 5 and layer.rendered == n + 2
    vb = widget.getPlotItem().vb
    vb.setXRange(0.5, 10.5, padding=0)  # a pan within the image's margin: nothing drawn
    _settle(qtbot, layer)
    assert layer.rendered == n + 2 and layer.fits(layer.front)
    vb.setXRange(2.0, 6.0, padding=0)  # a zoom: stepped again at the new scale
    _settle(qtbot, layer)
    assert layer.rendered == n + 3 and layer.rasterised == 9 and layer.fits(layer.front)


def test_held_layer_keeps_the_old_image_for_a_view_change(qtbot, jobs):
    widget, layer, data, pens = _layer(qtbot, jobs)
    layer.set_order(range(5))
    _settle(qtbot, layer)
    n = layer.rendered
    layer.hold(True)
    widget.getPlotItem().vb.setXRange(5.0, 8.0, padding=0)
    _settle(qtbot, layer)
    assert layer.rendered == n and not layer.fits(layer.front)
    layer.hold(False)
    _settle(qtbot, layer)
    assert layer.rendered == n + 1 and layer.fits(layer.front)


def test_layer_needs_the_lines_data(jobs):
    layer = RasterLayer(jobs)
    with pytest.raises(ValueError, match="data"):
        layer.set_lines([pg.arrayToQPath(np.arange(3.0), np.arange(3.0))], [pg.mkPen("r")])
    assert _affine(pg.QtGui.QTransform(2, 0, 0, 3, 5, 7)) == (2, 0, 0, 3, 5, 7)


def test_a_layer_of_the_same_lines_reuses_the_other_layers_pixels(qtbot, jobs):
    widget, layer, data, pens = _layer(qtbot, jobs)
    token = object()
    paths = [pg.arrayToQPath(x, y, connect="finite") for x, y in data]
    layer.set_lines(paths, pens, data=data, token=token)
    top = RasterLayer(jobs, pixels_from=layer)
    top.set_lines(paths, [pg.mkPen("#000000", width=3)] * 5, data=data, token=token)
    widget.getPlotItem().vb.addItem(top, ignoreBounds=True)
    layer.set_order(range(5))
    _settle(qtbot, layer)
    assert layer.rasterised == 5
    top.set_order([2])  # a highlight: drawn from the pixels the other layer kept
    _settle(qtbot, top)
    assert top.rasterised == 0 and top.front is not None
    plan = top.front_plan
    want = compose([line_pixels(*data[2], plan.affine, *plan.size)], [0xFF000000], [3],
                   *plan.size)
    assert np.array_equal(_pixels(top), want)
    other = RasterLayer(jobs, pixels_from=layer)  # other lines (no token): its own pixels
    other.set_lines(paths, pens, data=data)
    widget.getPlotItem().vb.addItem(other, ignoreBounds=True)
    other.set_order([1])
    _settle(qtbot, other)
    assert other.rasterised == 1


def test_lines_done_together_are_each_line_done_alone():
    rng = np.random.default_rng(7)
    curves = []
    for n in (0, 1, 2, 7, 50):
        x = rng.uniform(-5, 45, n)
        y = rng.uniform(-5, 35, n)
        if n > 3:
            y[2] = np.nan  # a break inside
        curves.append((x, y))
    curves.append((np.array([np.nan, 3.5]), np.array([1.0, 4.5])))  # a lone last point
    together = lines_runs(curves, IDENTITY, W, H)
    alone = [line_pixels(x, y, IDENTITY, W, H) for x, y in curves]
    assert len(together) == len(curves)
    assert all(np.array_equal(np.unique(decode(a)), b)
               for a, b in zip(together, alone, strict=True))
    assert _xy(alone[-1]) == {(3, 4)} and alone[0].size == 0


def test_runs_are_one_a_column_however_tall():
    starts = np.array([5, 20, 22], np.int32)
    lengths = np.array([3, 1, 4], np.int32)
    assert decode((starts, lengths)).tolist() == [5, 6, 7, 20, 22, 23, 24, 25]
    assert decode((np.empty(0, np.int32), np.empty(0, np.int32))).size == 0
    # a vertical line, then along the bottom row: one run in its column, one per column after
    starts, lengths = lines_runs([(np.array([10.5, 10.5, 13.5]), np.array([0.5, 29.5, 29.5]))],
                                 IDENTITY, W, H)[0]
    assert sorted(decode((starts, lengths)).tolist()) == sorted(
        [10 * H + r for r in range(30)] + [10 * H + 29] + [c * H + 29 for c in (11, 12, 13)])
    assert starts.size == 5  # the vertical segment, and the horizontal one's four columns
