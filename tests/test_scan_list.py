"""The AUC plot's scan list (inspector.ui.plots.scan_list)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from inspector.ui.plots.scan_list import SHOWN_CHARS, TIP_CHARS, ScanList, ScanListModel


def test_a_long_scan_id_is_cut_where_it_is_shown_and_kept_whole():
    long_id = "x" * 100_000
    model = ScanListModel([long_id, "scan_002"], [QColor("red"), QColor("blue")])
    shown = model.index(0).data(Qt.ItemDataRole.DisplayRole)
    tip = model.index(0).data(Qt.ItemDataRole.ToolTipRole)
    assert len(shown) == SHOWN_CHARS and shown == "x" * (SHOWN_CHARS - 1) + "…"
    assert len(tip) == TIP_CHARS and tip.endswith("…")
    assert model.index(1).data() == "scan_002"
    assert model.index(1).data(Qt.ItemDataRole.ToolTipRole) == "scan_002"
    assert model.ids[0] == long_id  # the ID itself is kept for links and exports


def test_the_list_items_give_the_whole_id(qtbot):
    view = ScanList(["y" * 5000, "b"], [QColor("red"), QColor("blue")])
    qtbot.addWidget(view)
    assert view.item(0).text() == "y" * 5000
