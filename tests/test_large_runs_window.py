"""A run folder of many scan files opens without laying out thousands of rows at once.

Trees are expanded only as deep as a few hundred rows allow
(:func:`inspector.ui.tree_panel.expand_within`), and table columns are sized
from a bounded sample of their cells' text (:func:`inspector.ui.columns.table_widths`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QTableView, QTreeView

from inspector.formats.nodes.node import Node
from inspector.ui import columns
from inspector.ui.main_window import MainWindow
from inspector.ui.tree_expansion import ROWS_PER_TURN, expanding
from inspector.ui.tree_panel import (
    EXPAND_ROWS,
    HeaderPanel,
    expand_within,
)
from tests.test_beckman_layout import data, header, write


def _tree(qtbot, top: int, children: int, grandchildren: int) -> QTreeView:
    model = QStandardItemModel()
    for i in range(top):
        item = QStandardItem(f"top {i}")
        for j in range(children):
            child = QStandardItem(f"child {i}.{j}")
            child.appendRows([QStandardItem(f"leaf {k}") for k in range(grandchildren)])
            item.appendRow(child)
        model.appendRow(item)
    view = QTreeView()
    qtbot.addWidget(view)
    view.setModel(model)
    return view


def _expanded(view: QTreeView) -> list[str]:
    model = view.model()
    out = []
    stack = [model.index(r, 0) for r in range(model.rowCount())]
    while stack:
        index = stack.pop()
        if view.isExpanded(index):
            out.append(index.data())
            stack += [model.index(r, 0, index) for r in range(model.rowCount(index))]
    return out


def test_expand_within_goes_as_deep_as_the_row_budget_allows(qtbot):
    small = _tree(qtbot, 3, 4, 5)  # 3 + 12 + 60 rows: everything
    assert expand_within(small, 2, rows=100) == 1 and len(_expanded(small)) == 3 + 12
    mid = _tree(qtbot, 3, 4, 5)  # the leaves would exceed 50 rows: one level only
    assert expand_within(mid, 2, rows=50) == 0 and sorted(_expanded(mid)) == [
        "top 0", "top 1", "top 2"]
    big = _tree(qtbot, EXPAND_ROWS + 1, 1, 0)  # the top level alone is over the budget
    assert expand_within(big, 0) == -1 and _expanded(big) == []


def test_table_widths_measure_a_bounded_sample_of_text(qtbot):
    model = QStandardItemModel(1000, 40)
    for r in range(1000):
        model.setItem(r, 3, QStandardItem("x" * (5 if r < 999 else 80)))
    model.setItem(0, 0, QStandardItem("a fairly long value in the first row"))
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    widths = columns.table_widths(view)
    metrics = view.fontMetrics()
    assert set(widths) == set(range(40))
    assert widths[0] >= metrics.horizontalAdvance("a fairly long value in the first row")
    assert widths[3] < metrics.horizontalAdvance("x" * 80)  # row 999 is past the sample
    short = columns.table_widths(view, rows=1)  # at least MIN_SAMPLE_ROWS rows are measured
    assert short[3] == widths[3]


def _many_scans(root: Path, n: int) -> Path:
    run = root / "run"
    for i in range(1, n + 1):
        write(run, f"{i:05d}.RA1", [f"scan {i}", header(seconds=60 * i), *data(4, seed=i)])
    return run


@pytest.mark.slow
def test_a_run_of_many_files_opens_with_trees_collapsed_to_the_budget(qtbot, tmp_path):
    run = _many_scans(tmp_path, EXPAND_ROWS + 20)
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.open_paths([str(run)])
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=120_000)
    tab = win.current_tab()
    raw = tab.header_panel.raw.view
    assert raw.model().rowCount() >= EXPAND_ROWS and _expanded(raw) == []  # (grows by fetchMore)
    scans = tab.tables["scans"]
    assert len(scans.model.table.frame()) == EXPAND_ROWS + 20
    assert all(scans.view.columnWidth(c) >= columns.MIN_WIDTH
               for c in range(scans.model.columnCount()))
    assert tab.plot.view.shape.scans == EXPAND_ROWS + 20


def _header_of(groups: int, each: int) -> Node:
    root = Node("header", kind="group")
    for g in range(groups):
        group = root.add(f"group {g}", kind="group")
        for k in range(each):
            group.add(f"item {k}", k)
    return root


def _all_expanded(view: QTreeView) -> bool:
    model = view.model()
    return all(view.isExpanded(model.index(r, 0)) for r in range(model.rowCount()))


def _expanded_rows(view: QTreeView) -> int:
    """How many rows ``view`` shows (every expanded row's children, recursively)."""
    model, rows = view.model(), 0
    stack = [QModelIndex()]
    while stack:
        parent = stack.pop()
        n = model.rowCount(parent)
        rows += n
        stack += [model.index(r, 0, parent) for r in range(n)
                  if view.isExpanded(model.index(r, 0, parent))]
    return rows


@pytest.mark.slow
def test_a_large_header_is_expanded_some_rows_an_event_loop_turn(qtbot):
    small, large = _header_of(4, 10), _header_of(50, 10)  # 44 and 550 nodes
    now = HeaderPanel(small, None, "")
    qtbot.addWidget(now)
    assert _all_expanded(now.header.view) and not expanding(now.header.view)  # at once
    later = HeaderPanel(large, None, "")
    qtbot.addWidget(later)
    view = later.header.view
    # in the turn that built it: the first groups, ROWS_PER_TURN newly shown rows and the
    # last group's ten at most, in pre-order (the top of the tree first)
    assert ROWS_PER_TURN <= _expanded_rows(view) - 50 < ROWS_PER_TURN + 10
    model = view.model()
    assert [view.isExpanded(model.index(r, 0)) for r in range(50)] == [
        r < ROWS_PER_TURN // 10 for r in range(50)]
    assert expanding(view)
    qtbot.waitUntil(lambda: not expanding(view), timeout=5000)
    assert _all_expanded(view) and _expanded_rows(view) == 550


def test_a_header_replaced_while_it_expands_is_expanded_in_full(qtbot):
    panel = HeaderPanel(_header_of(50, 10), None, "")
    qtbot.addWidget(panel)
    tree = panel.header
    tree.set_root(_header_of(30, 2))  # (a deferred check replaced the header)
    qtbot.waitUntil(lambda: not expanding(tree.view), timeout=5000)
    assert _all_expanded(tree.view) and _expanded_rows(tree.view) == 90
