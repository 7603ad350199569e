"""The window at 900 px and 1024x640 (pytest-qt, offscreen): its minimum width is at most
900 px on every tab; the plot's controls wrap instead of being cut, and the plot is never
wider than its widget (a legend row that asked for more width clipped the plot)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QTabWidget, QWidget

from tests.conftest import FIXTURES
from tests.test_window_polish import _window

EPOCHS = FIXTURES / "vneurotk/v1/epochs_dense_f64_strids.h5"
CONTINUOUS = FIXTURES / "vneurotk/v1/continuous_dense_f32_intids.h5"
MAX_MIN_WIDTH = 900


def _views_tabs(tab) -> QTabWidget:
    return next(t for t in tab.findChildren(QTabWidget) if t.objectName() == "documentViews")


def _whole(widget: QWidget, within: QWidget) -> bool:
    """``widget`` lies inside ``within`` (Qt geometry, mapped)."""
    top_left = widget.mapTo(within, widget.rect().topLeft())
    return QRect(0, 0, within.width(), within.height()).contains(
        QRect(top_left, widget.size()))


@pytest.mark.parametrize("path", [EPOCHS, CONTINUOUS])
def test_minimum_width_is_at_most_900_on_every_tab(qtbot, path):
    win = _window(qtbot, path, size=(900, 640))
    tabs = _views_tabs(win.current_tab())
    for i in range(tabs.count()):
        tabs.setCurrentIndex(i)
        qtbot.waitUntil(lambda: win.is_idle(), timeout=30000)
        qtbot.wait(50)
        assert win.minimumSizeHint().width() <= MAX_MIN_WIDTH, tabs.tabText(i)
        assert win.width() == 900, tabs.tabText(i)


@pytest.mark.parametrize("size", [(900, 640), (1024, 640)])
@pytest.mark.slow
def test_plot_controls_and_plot_fit_their_pane(qtbot, size):
    win = _window(qtbot, EPOCHS, size=size)
    tab = win.current_tab()
    tabs = _views_tabs(tab)
    tabs.setCurrentIndex(next(i for i in range(tabs.count()) if tabs.tabText(i) == "Trials"))
    qtbot.waitUntil(lambda: win.is_idle(), timeout=30000)
    assert win.width() == size[0]  # not held wider by the Trials tab or the plot controls
    view = tab.plot.view
    widget = view.plot_widget
    qtbot.waitUntil(lambda: view.plot_item.width() <= widget.width() + 0.5, timeout=5000)
    for control in (view.mode, view.per_page, view.overlay_box, view.markers_box,
                    view.reset_button):
        assert _whole(control, view), control
        text = getattr(control, "text", lambda: "")()
        if text:
            assert control.width() >= control.fontMetrics().horizontalAdvance(text.replace("&", ""))
    assert _whole(widget, tab)


@pytest.mark.parametrize("size", [(900, 640), (1024, 640)])
@pytest.mark.slow
def test_every_tab_title_is_whole_and_the_time_label_fits_its_axis(qtbot, size):
    """No scroll arrows on the views' tab bar (every title whole), and the condition
    plot's time label no wider than its axis (it was cut at 900 px)."""
    from inspector.ui.trials.condition_plot import ConditionPlot

    win = _window(qtbot, EPOCHS, size=size)
    tab = win.current_tab()
    tabs = _views_tabs(tab)
    bar = tabs.tabBar()
    for i in range(tabs.count()):
        tabs.setCurrentIndex(i)
        qtbot.waitUntil(lambda: win.is_idle(), timeout=30000)
        assert bar.sizeHint().width() <= bar.width(), tabs.tabText(i)
        assert _whole(bar, tabs), tabs.tabText(i)
    tabs.setCurrentIndex(next(i for i in range(tabs.count()) if tabs.tabText(i) == "Trials"))
    average = tab.findChildren(ConditionPlot)[0]
    qtbot.waitUntil(lambda: average.frame is not None and win.is_idle(), timeout=30000)
    qtbot.wait(50)
    axis = average.plot_item.getAxis("bottom")
    assert axis.label.boundingRect().width() <= axis.width()
    assert axis.label.toPlainText().startswith("time from")  # shortened, not dropped
    widget = average.plot_widget
    assert average.plot_item.width() <= widget.width() + 0.5
