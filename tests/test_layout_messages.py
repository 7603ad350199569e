"""A message of any length never changes a tab's layout (pytest-qt, offscreen): the plot's
status line, its placeholder and the data views' messages ask for no width of their own; a
long message is shown up to an ellipsis, whole in its tooltip."""

from __future__ import annotations

import pytest

from inspector.ui.message_label import MessageLabel
from tests.test_window_polish import REC, _window

LONG = ("cannot read neuro: the file changed on disk (replaced or modified) after it was "
        "opened; nothing more is read from it here: /a/very/long/path/" + "x" * 300 + ".h5")


def _widths(tab):
    left = tab.splitter.widget(0)
    return left.width(), [tree.view.header().sectionSize(0)
                          for tree in tab.header_panel.trees()]


@pytest.mark.slow
def test_a_long_plot_message_leaves_the_panes_and_trees_as_they_were(qtbot):
    win = _window(qtbot, REC)
    tab = win.current_tab()
    before = _widths(tab)
    minimum = win.minimumSizeHint().width()
    view = tab.plot.view
    view.status.setText(LONG)
    view.show_placeholder(LONG)
    qtbot.wait(100)
    assert _widths(tab) == before
    assert win.minimumSizeHint().width() == minimum and win.width() == 1024
    assert view.status.text() == LONG  # the whole message, shown up to an ellipsis
    shown = view.status.shown_text()
    assert shown.endswith("…") and LONG.startswith(shown[:-1])
    assert view.status.fontMetrics().horizontalAdvance(shown) <= view.status.width()
    assert view.status.toolTip() == LONG


def test_message_label_keeps_one_line_and_shows_a_short_message_whole(qtbot):
    label = MessageLabel("every sample drawn")
    qtbot.addWidget(label)
    label.resize(300, 20)
    label.show()
    height = label.sizeHint().height()
    assert label.shown_text() == "every sample drawn" and label.toolTip() == ""
    label.setText(LONG)
    assert label.sizeHint().height() == height and label.minimumSizeHint().width() == 0
    label.setText("")
    assert label.sizeHint().height() == height  # an empty line keeps its place
