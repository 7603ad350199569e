"""Time-plot navigation helpers (inspector.ui.plots.navigation), offscreen."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from inspector.ui.plots.navigation import (
    MarkerTips,
    add_marker_legend,
    add_reset_action,
    install_time_wheel,
    nearest_marker,
)


@pytest.fixture()
def plot(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.resize(500, 320)
    w.show()
    qtbot.waitExposed(w)
    w.plot(np.arange(100.0), np.sin(np.arange(100.0) / 5))
    vb = w.getPlotItem().vb
    vb.setRange(xRange=(0, 100), yRange=(-1, 1), padding=0)
    vb.disableAutoRange()
    return w


def _wheel(w: pg.PlotWidget, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    c = w.viewport().rect().center()
    ev = QWheelEvent(QPointF(c), QPointF(w.viewport().mapToGlobal(c)), QPoint(0, 0),
                     QPoint(0, 120), Qt.MouseButton.NoButton, modifiers,
                     Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(w.viewport(), ev)


def _spans(vb):
    (x0, x1), (y0, y1) = vb.viewRange()
    return x1 - x0, y1 - y0


def test_wheel_zooms_time_only_and_amplitude_with_ctrl(plot):
    vb = plot.getPlotItem().vb
    install_time_wheel(vb)
    x_span, y_span = _spans(vb)
    _wheel(plot)
    x2, y2 = _spans(vb)
    assert x2 < x_span and y2 == pytest.approx(y_span)
    _wheel(plot, Qt.KeyboardModifier.ControlModifier)
    x3, y3 = _spans(vb)
    assert x3 == pytest.approx(x2) and y3 < y2
    assert vb.state["mouseEnabled"] == [True, True]  # restored after each event


def test_reset_action_is_first_in_the_menu(plot):
    vb = plot.getPlotItem().vb
    calls = []
    action = add_reset_action(vb, lambda: calls.append(1), plot)
    assert vb.menu.actions()[0] is action and action.text() == "Reset view"
    action.trigger()
    assert calls == [1]
    assert [a.shortcut().toString() for a in plot.actions()] == ["Ctrl+0"]


def test_marker_legend_entries_draw_nothing(plot):
    item = plot.getPlotItem()
    legend = item.addLegend()
    before = len(item.items)
    samples = add_marker_legend(legend, {
        "trial_starts": ("#2ca02c", Qt.PenStyle.DashLine, "trial start"),
        "vision_onsets": ("#d62728", Qt.PenStyle.SolidLine, "stimulus onset")})
    assert [label.text for _s, label in legend.items] == ["trial start", "stimulus onset"]
    assert samples[0].opts["pen"].style() == Qt.PenStyle.DashLine
    assert len(item.items) == before


def test_nearest_marker():
    markers = {"onset": np.array([1.0, 5.0, np.nan, 9.0]), "start": np.array([4.9])}
    assert nearest_marker(markers, 5.02, 0.1) == ("onset", 1, 5.0)
    assert nearest_marker(markers, 4.92, 0.1) == ("start", 0, 4.9)
    assert nearest_marker(markers, 7.0, 0.5) is None
    assert nearest_marker({"x": np.array([])}, 0.0, 1.0) is None


def test_marker_tips_text(plot):
    vb = plot.getPlotItem().vb
    tips = MarkerTips(plot, lambda: {"vision_onsets": np.array([10.0, 50.0])},
                      lambda kind, i, x: f"{kind}: trial {i} at {x:g}")
    px = vb.viewPixelSize()[0]
    assert tips.text_at(50.0 + 2 * px) == "vision_onsets: trial 1 at 50"
    assert tips.text_at(30.0) == ""
    scene = vb.mapViewToScene(pg.Point(10.0, 0.0))
    tips.moved(scene)
    assert tips.text == "vision_onsets: trial 0 at 10"
