"""The plots' context menus are made on first use (inspector.ui.lazy_menu)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

from inspector.ui.lazy_menu import LazyMenuViewBox, on_menu
from inspector.ui.plots.base import new_plot_widget
from inspector.ui.plots.navigation import add_reset_action


@pytest.fixture
def widget(qtbot):
    w = new_plot_widget()
    qtbot.addWidget(w)
    return w


def test_a_new_plot_widget_has_no_menu_until_it_is_read(widget):
    vb = widget.getPlotItem().vb
    assert isinstance(vb, LazyMenuViewBox)
    assert vb.menuEnabled() and not vb.menu_made
    menu = vb.menu
    assert vb.menu_made and isinstance(menu, QMenu)
    assert vb.menu is menu  # made once
    assert "View All" in [a.text() for a in menu.actions()]


def test_additions_are_queued_in_order_and_applied_when_the_menu_is_made(widget):
    vb = widget.getPlotItem().vb
    calls: list[int] = []
    action = add_reset_action(vb, lambda: calls.append(1))
    on_menu(vb, lambda menu: menu.addAction("Last entry"))
    assert not vb.menu_made
    texts = [a.text() for a in vb.menu.actions()]
    assert texts[0] == "Reset view" and texts[-1] == "Last entry"
    assert vb.menu.actions()[0] is action
    action.trigger()
    assert calls == [1]
    on_menu(vb, lambda menu: menu.addAction("After"))  # made already: at once
    assert vb.menu.actions()[-1].text() == "After"


def test_the_reset_action_works_before_the_menu_is_made(widget):
    vb = widget.getPlotItem().vb
    calls: list[int] = []
    action = add_reset_action(vb, lambda: calls.append(1), widget)
    action.trigger()
    assert calls == [1] and not vb.menu_made


def test_a_right_click_makes_and_raises_the_menu(widget, qtbot, monkeypatch):
    vb = widget.getPlotItem().vb
    on_menu(vb, lambda menu: menu.addAction("Mine"))
    shown: list[QMenu] = []
    monkeypatch.setattr(QMenu, "popup", lambda self, *a: shown.append(self))
    widget.resize(400, 300)
    widget.show()
    qtbot.waitExposed(widget)
    centre = widget.mapFromScene(vb.sceneBoundingRect().center())
    assert not vb.menu_made
    qtbot.mouseClick(widget.viewport(), Qt.MouseButton.RightButton, pos=centre)
    qtbot.waitUntil(lambda: bool(shown), timeout=5000)
    assert shown[0] is vb.menu
    assert "Mine" in [a.text() for a in shown[0].actions()]


def test_a_disabled_menu_is_never_made(qtbot):
    vb = LazyMenuViewBox(enableMenu=False)
    assert not vb.menuEnabled() and vb.menu is None and not vb.menu_made
    vb.setMenuEnabled(True)  # pyqtgraph's switch builds it
    assert vb.menu is not None and vb.menu_made


def test_the_axis_link_lists_name_the_other_views(qtbot):
    plots = [pg.PlotWidget(viewBox=LazyMenuViewBox(name=f"lazy-{i}")) for i in range(2)]
    for p in plots:
        qtbot.addWidget(p)
    menu = plots[0].getPlotItem().vb.menu
    combo = menu.ctrl[0].linkCombo
    assert "lazy-1" in [combo.itemText(i) for i in range(combo.count())]


def test_the_view_still_plots(widget):
    curve = widget.getPlotItem().plot(np.arange(5.0), np.arange(5.0) ** 2)
    assert np.array_equal(curve.getData()[1], np.arange(5.0) ** 2)
