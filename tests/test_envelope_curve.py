"""A neural line's zig-zag envelope painted by pixel column (inspector.ui.plots.envelope_curve).

The columns are checked against numpy's per-column minimum and maximum of the points
in device pixels, and the painted image against pyqtgraph's own stroke of the same
zig-zag (the path the item painted before).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QImage

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.ui.plots import NeuralView
from inspector.ui.plots.envelope_curve import (
    EnvelopeCurve,
    column_spans,
    premultiplied_argb,
    spans_image,
)


def _zigzag(centres: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.repeat(centres, 2)
    y = np.empty(2 * len(lo))
    y[0::2], y[1::2] = lo, hi
    return x, y


def test_one_bin_per_column_covers_its_minimum_to_maximum():
    rng = np.random.default_rng(7)
    n = 300
    a = 40 + 10 * rng.random(n)  # a band about row 100, slowly varying: the diagonals
    lo, hi = 100 - a, 100 + a    # between bins stay inside both neighbours' ranges
    x, y = _zigzag(np.arange(n) + 0.5, lo, hi)
    top, bottom = column_spans(x, y, n, 200)
    assert np.array_equal(top, np.floor(lo).astype(np.int64))
    assert np.array_equal(bottom, np.floor(hi).astype(np.int64))


def test_several_bins_per_column_take_the_columns_extremes():
    rng = np.random.default_rng(8)
    per, cols = 4, 50
    lo = 50 - 20 * rng.random(per * cols)
    hi = 50 + 20 * rng.random(per * cols)
    centres = (np.arange(per * cols) + 0.5) / per  # four bins in every pixel column
    top, bottom = column_spans(*_zigzag(centres, lo, hi), cols, 100)
    # each column: numpy's min/max of its bins, widened only by the segment that
    # joins its last bin to the next column's first bin (up to the column edge)
    y_edge = hi[per - 1::per][:-1] + (lo[per::per] - hi[per - 1::per][:-1]) * 0.5
    want_top = np.floor(lo.reshape(cols, per).min(axis=1))
    want_bottom = np.floor(hi.reshape(cols, per).max(axis=1))
    want_top[:-1] = np.minimum(want_top[:-1], np.floor(y_edge))
    want_top[1:] = np.minimum(want_top[1:], np.floor(y_edge))
    assert np.array_equal(top, want_top.astype(np.int64))
    assert np.array_equal(bottom, want_bottom.astype(np.int64))


def test_a_diagonal_is_split_at_the_column_edge_and_nan_breaks_the_line():
    x = np.array([0.5, 2.5, np.nan, 5.5, 5.5])
    y = np.array([0.0, 40.0, 0.0, 10.0, 30.0])
    top, bottom = column_spans(x, y, 8, 50)
    covered = top <= bottom
    assert covered.tolist() == [True, True, True, False, False, True, False, False]
    # from (0.5, 0) to (2.5, 40): y = 20 x - 10
    assert (top[0], bottom[0]) == (0, 10)
    assert (top[1], bottom[1]) == (10, 30)
    assert (top[2], bottom[2]) == (30, 40)
    assert (top[5], bottom[5]) == (10, 30)  # the vertical segment; nothing joins it to 2


def test_rows_are_clipped_and_wide_segments_are_declined():
    top, bottom = column_spans(np.array([0.5, 0.5]), np.array([-20.0, 500.0]), 4, 100)
    assert (top[0], bottom[0]) == (0, 99)
    assert column_spans(np.array([0.5, 9.5]), np.array([1.0, 2.0]), 20, 10) is None


def test_spans_image_paints_exactly_the_covered_rows():
    top = np.array([5, 2, 1, 0], dtype=np.int64)
    bottom = np.array([3, 4, 6, 0], dtype=np.int64)  # column 0 empty
    pixels, c0, r0 = spans_image(top, bottom, 0xFF112233)
    assert (c0, r0) == (1, 0)
    want = np.zeros((7, 3), dtype=np.uint32)
    want[2:5, 0] = want[1:7, 1] = want[0:1, 2] = 0xFF112233
    assert np.array_equal(pixels, want)
    assert spans_image(np.array([3]), np.array([2]), 1) is None


def test_premultiplied_colour():
    assert premultiplied_argb(QColor(200, 100, 50, 255)) == 0xFFC86432
    assert premultiplied_argb(QColor(200, 100, 50, 0)) == 0


def _painted(widget: pg.PlotWidget) -> np.ndarray:
    """Pixels of the plot's viewport that are not its background (bool ``(h, w)``)."""
    image = widget.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    a = np.frombuffer(image.constBits(), np.uint32).reshape(image.height(), -1)
    a = a[:, :image.width()]
    return a != a[0, 0]


@pytest.mark.parametrize("amplitude", [60.0, 3.0])
def test_the_columns_paint_what_pyqtgraph_strokes(qtbot, amplitude):
    rng = np.random.default_rng(9)
    n = 360
    lo = -amplitude * rng.random(n) + np.sin(np.arange(n) / 20) * 40
    hi = lo + amplitude * rng.random(n)
    x, y = _zigzag(np.arange(n) + 0.5, lo, hi)
    pictures, spans = [], []
    for band in (True, False):
        w = pg.PlotWidget(background="w")
        qtbot.addWidget(w)
        w.resize(500, 300)
        w.hideAxis("left")
        w.hideAxis("bottom")
        item = EnvelopeCurve(x, y, pen=pg.mkPen("k", width=1), connect="finite",
                             skipFiniteCheck=False)
        item.band = band
        w.addItem(item)
        w.setRange(xRange=(0, n), yRange=(-120, 120), padding=0)
        w.show()
        qtbot.waitExposed(w)
        w.viewport().repaint()
        pictures.append(_painted(w))
        spans.append(item.painted_columns)
    ours, theirs = pictures
    assert spans[0] is not None and spans[1] is None  # columns, then pyqtgraph's path
    cols = np.flatnonzero(theirs.any(axis=0))
    assert len(cols) > 0.9 * 500
    assert np.setxor1d(cols, np.flatnonzero(ours.any(axis=0))).size <= 2
    ends = []
    for k in cols:  # the same rows in every column, give or take the end pixels
        r_ours, r_theirs = np.flatnonzero(ours[:, k]), np.flatnonzero(theirs[:, k])
        ends += [abs(int(r_ours[0]) - int(r_theirs[0])), abs(int(r_ours[-1]) - int(r_theirs[-1]))]
    assert max(ends) <= 2 and sum(e > 1 for e in ends) <= 0.02 * len(ends)
    # Qt's stroker leaves out a line's last pixel; the columns keep it: at most about
    # one pixel more per column, hardly any fewer
    assert int((theirs & ~ours).sum()) <= 0.01 * theirs.sum()
    assert int((ours & ~theirs).sum()) <= len(cols)


def _shown_view(qtbot, jobs, seed: int) -> NeuralView:
    """A neural view of 200 000 samples x 2 channels of noise, shown at 700 x 400 with
    its first envelopes drawn."""
    rng = np.random.default_rng(seed)
    ref = NumpyArrayRef("neuro", rng.standard_normal((200_000, 2)).astype(np.float32))
    view = NeuralView(ref, jobs)
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    qtbot.waitUntil(lambda: view.is_idle() and bool(view.lines)
                    and all(ln.x is not None for ln in view.lines), timeout=10_000)
    return view


def test_neural_lines_paint_binned_envelopes_by_column(qtbot, jobs):
    view = _shown_view(qtbot, jobs, seed=10)
    for ln in view.lines:
        assert isinstance(ln.item, EnvelopeCurve) and ln.item.band and not ln.raw
    view.plot_widget.viewport().repaint()
    for ln in view.lines:
        assert ln.item.painted_columns is not None
    vb = view.plot_item.vb
    vb.setXRange(1000, 1200, padding=0)  # a few hundred samples: drawn raw
    qtbot.waitUntil(lambda: view.is_idle() and all(ln.raw for ln in view.lines),
                    timeout=10_000)
    view.plot_widget.viewport().repaint()
    for ln in view.lines:
        assert not ln.item.band and ln.item.painted_columns is None


class _PaintCounter(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def test_a_new_envelope_is_painted_once_with_its_new_range(qtbot, jobs):
    """A preview that changes the amplitude range is applied before the paint: the plot
    paints once (pyqtgraph's auto range inside the paint asked for a second one)."""
    view = _shown_view(qtbot, jobs, seed=11)
    vb = view.plot_item.vb
    vb.enableAutoRange(axis="y")  # as while the first envelopes come in
    qtbot.wait(50)
    counter = _PaintCounter()
    view.plot_widget.viewport().installEventFilter(counter)
    for k, scale in enumerate((3.0, 0.5, 8.0)):
        line = view.lines[k % len(view.lines)]
        env = line.envs[0]
        y_range = vb.viewRange()[1]
        view._apply(line.key, [replace(env, lo=env.lo * scale, hi=env.hi * scale)])
        qtbot.wait(60)  # every event-loop turn the change leads to
        assert vb.viewRange()[1] != y_range  # the range did change
        assert counter.paints == k + 1
    view.plot_widget.viewport().removeEventFilter(counter)
