"""The Compare tab (File > Compare With…): the tree of differences, an array's curves
and their difference, a table row with its changed cells (h5py and numpy as oracles)."""

from __future__ import annotations

import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
from conftest import open_window

from inspector.ui.compare import action
from inspector.ui.compare.tab import CompareTab

V1 = Path(__file__).parent / "fixtures" / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"


def _edited(tmp_path: Path) -> tuple[Path, Path, float, int]:
    a, b = tmp_path / "a.h5", tmp_path / "b.h5"
    shutil.copyfile(V1, a)
    shutil.copyfile(V1, b)
    with h5py.File(b, "a") as f:
        neuro = f["neuro"][...]
        neuro[200:210, 2] += 0.5
        f["neuro"][...] = neuro
        cols = f["trial_meta/columns"]
        rt = next(k for k in cols if cols[k].attrs.get("dtype") == "float64")
        old = float(cols[rt]["values"][1])
        cols[rt]["values"][1] = old + 2.0
    return a, b, old, 1


@pytest.mark.slow
def test_compare_with_opens_a_tab_of_what_differs(qtbot, tmp_path, monkeypatch) -> None:
    a, b, old_rt, row = _edited(tmp_path)
    win = open_window(qtbot, a)
    monkeypatch.setattr(action, "ask_path", lambda window, title: str(b))
    win.act_compare.trigger()
    tab = win.tabs.currentWidget()
    assert isinstance(tab, CompareTab)
    qtbot.waitUntil(lambda: tab.is_ready, timeout=60_000)
    assert tab.comparison is not None and not tab.comparison.report.equal
    model = tab.tree.model()
    tops = [model.index(i, 0).data() for i in range(model.rowCount())]
    assert tops == ["trials (1 content, 0 representation)",
                    "arrays (1 content, 0 representation)"]
    assert win.document_tabs() == [win.tabs.widget(0)]  # the Compare tab is no document tab

    assert tab.tree.select_path("arrays", "neuro")
    qtbot.waitUntil(tab.is_settled, timeout=60_000)
    assert tab.detail.currentWidget() is tab.detail.curves_page
    with h5py.File(a) as fa, h5py.File(b) as fb:
        oracle = fa["neuro"][:, 2].astype(np.float64) - fb["neuro"][:, 2].astype(np.float64)
    curve = tab.detail.curves_page.difference.listDataItems()[0]
    x, y = curve.getOriginalDataset()  # (what is drawn is downsampled to the pixels)
    assert np.array_equal(y, oracle[x.astype(int)])
    assert np.count_nonzero(y) == 10

    cell = next(d for d in tab.comparison.report.differences if d.section == "trials")
    assert (cell.a, cell.b) == (old_rt, old_rt + 2.0) and cell.detail["row_a"] == row
    assert tab.tree.select_path("trials", cell.path)
    qtbot.waitUntil(tab.is_settled, timeout=60_000)
    assert tab.detail.currentWidget() is tab.detail.rows_page
    table = tab.detail.rows
    labels = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    col = labels.index(cell.detail["column"])
    assert table.item(0, col).text() == str(old_rt)
    assert table.item(1, col).text() == str(old_rt + 2.0)
    assert table.item(0, col).toolTip() == "differs"
    assert table.item(0, 0 if col else 1).toolTip() == ""
    win.close_tab(win.tabs.indexOf(tab))
    assert win.tabs.count() == 1


def _drag(win, kind, pos, path: Path) -> None:
    from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier)
    if kind == "enter":
        ev = QDragEnterEvent(QPoint(int(pos.x()), int(pos.y())), *args)
        win.dragEnterEvent(ev)
    elif kind == "move":
        ev = QDragMoveEvent(QPoint(int(pos.x()), int(pos.y())), *args)
        win.dragMoveEvent(ev)
    else:
        ev = QDropEvent(QPointF(pos), *args)
        win.dropEvent(ev)
    assert ev.isAccepted()


@pytest.mark.slow
def test_dropping_a_file_on_the_compare_zone_opens_a_compare_tab(qtbot, tmp_path) -> None:
    from inspector.ui.drop_zone import COMPARE, OPEN

    a, b, _old, _row = _edited(tmp_path)
    win = open_window(qtbot, a, show=True)
    zones = win.drop_zones
    assert not zones.isVisible()
    _drag(win, "enter", win.rect().center(), b)
    assert zones.isVisible() and zones.geometry() == win.rect()
    assert zones.compare_name == a.name
    compare_at = zones.rects()[COMPARE].center()
    open_at = zones.rects()[OPEN].center()
    _drag(win, "move", compare_at, b)
    assert zones.hovered == COMPARE
    _drag(win, "move", open_at, b)
    assert zones.hovered == OPEN
    _drag(win, "move", compare_at, b)
    _drag(win, "drop", compare_at, b)
    assert not zones.isVisible()
    tab = win.tabs.currentWidget()
    assert isinstance(tab, CompareTab) and (tab.path_a, tab.path_b) == (a, str(b))
    qtbot.waitUntil(lambda: tab.is_ready, timeout=60_000)
    assert tab.comparison is not None and not tab.comparison.report.equal
    assert len(win.document_tabs()) == 1

    win.tabs.setCurrentIndex(0)  # back to the document: a drop on "Open" opens
    _drag(win, "enter", open_at, b)
    _drag(win, "drop", open_at, b)
    qtbot.waitUntil(lambda: len(win.document_tabs()) == 2 and win.all_tabs_ready(),
                    timeout=20_000)
    assert [t.path.name for t in win.document_tabs()] == [a.name, b.name]


@pytest.mark.slow
def test_no_compare_zone_without_a_document(qtbot, tmp_path) -> None:
    a, b, _old, _row = _edited(tmp_path)
    win = open_window(qtbot, show=True)
    _drag(win, "enter", win.rect().center(), b)
    assert not win.drop_zones.isVisible()
    _drag(win, "drop", win.rect().center(), b)
    qtbot.waitUntil(lambda: bool(win.document_tabs()) and win.all_tabs_ready(),
                    timeout=20_000)
    assert [t.path.name for t in win.document_tabs()] == [b.name]


def test_two_archives_are_compared_unverified_and_the_tab_says_so(qtbot) -> None:
    from inspector.formats.compare.members import NOT_CONTENT, NOT_VERIFIED

    cmp = Path(__file__).parent / "fixtures" / "compare"
    win = open_window(qtbot, cmp / "export_1.aucx")
    tab = action.open_compare(win, cmp / "export_1.aucx", cmp / "export_2.aucx")
    qtbot.waitUntil(lambda: tab.is_ready, timeout=60_000)
    assert tab.comparison is not None and tab.comparison.report.equal
    assert not tab.comparison.a.verified and not tab.comparison.b.verified
    model = tab.tree.model()
    tops = {model.index(i, 0).data(): model.index(i, 0) for i in range(model.rowCount())}
    checked = tops["Not checked (2)"]
    assert ([model.index(i, 0, checked).data() for i in range(model.rowCount(checked))]
            == [NOT_VERIFIED, NOT_CONTENT])
    assert "members (0 content, 3 representation)" in tops
