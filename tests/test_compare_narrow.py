"""The Compare tab in a 900 px window (pytest-qt, offscreen, Qt's metrics): A and B stay
in view side by side (the difference's name gives up room first), and a section's
counts are whole across its row."""

from __future__ import annotations

from pathlib import Path

from conftest import open_window
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from inspector.ui.compare.action import open_compare

FIXTURES = Path(__file__).parent / "fixtures"
A = FIXTURES / "compare" / "v001_continuous_dense_f32_intids_schema1.h5"
B = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"


def test_a_and_b_side_by_side_at_900x640(qtbot):
    win = open_window(qtbot, size=(900, 640), show=True)
    tab = open_compare(win, A, B)
    qtbot.waitUntil(tab.is_settled, timeout=30000)
    tree = tab.tree
    qtbot.waitUntil(lambda: sum(tree.columnWidth(c) for c in range(3))
                    <= tree.viewport().width() + 1, timeout=5000)
    header = tree.header()
    for c in range(3):
        assert tree.columnWidth(c) >= header.sectionSizeHint(c)  # "A", "B" in view
        assert header.sectionViewportPosition(c) + tree.columnWidth(c) <= \
            tree.viewport().width() + 1
    model = tree.model()
    for i in range(model.rowCount()):
        top = model.index(i, 0)
        metrics = QFontMetrics(top.data(Qt.ItemDataRole.FontRole))  # (bold)
        assert tree.isFirstColumnSpanned(i, top.parent())
        room = tree.visualRect(top).width()
        assert metrics.horizontalAdvance(top.data()) < room, top.data()
