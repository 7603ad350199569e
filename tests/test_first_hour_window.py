"""A new user's first hour at 1280x800 and 1024x640: room for the plot, columns that fit,
a findings dock that shrinks when empty, one scan selection, Open Recent and folders."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QFileDialog

from inspector.ui import recent_files
from inspector.ui.columns import MIN_WIDTH, share_width
from inspector.ui.plots import AucView
from tests.conftest import FIXTURES, open_window

REC = FIXTURES / "vneurotk/v1/continuous_dense_f32_intids.h5"
ARCHIVE = FIXTURES / "aucx/syn_moving_boundary_s42_20x300.aucx"
FOLDER = FIXTURES / "auc-delimited/demo_experiment"
SIZES = [(1280, 800), (1024, 640)]


def _window(qtbot, size, *paths, remember=True):
    # idle: the plot panel is built once the plots package is imported off the GUI thread
    win = open_window(qtbot, *paths, size=size, show=True, remember=remember, idle=True,
                      timeout=60_000)
    if paths:
        qtbot.wait(50)  # deferred layout (dock, column fits)
    return win


def _auc_ready(qtbot, tab):
    qtbot.waitUntil(lambda: isinstance(tab.plot.view, AucView) and tab.plot.view.ready
                    and tab.plot.view.drawn >= 1 and not tab.plot.view.busy, timeout=10000)
    return tab.plot.view


# -- room for the plot --------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", [REC, ARCHIVE, FOLDER])
@pytest.mark.slow
def test_the_plot_gets_at_least_half_the_window(qtbot, size, path):
    win = _window(qtbot, size, path)
    tab = win.current_tab()
    plot = tab.plot
    assert plot.width() >= 0.5 * win.width()
    assert plot.height() >= 0.6 * win.height()  # the rest: menus, tabs, findings, status
    canvas = tab.plot.view.plot_widget
    assert canvas.width() >= 0.35 * win.width() and canvas.height() >= 0.55 * win.height()
    # the whole plot is on screen: nothing laid out beyond the widget's right edge
    right = canvas.mapTo(win, canvas.rect().topRight()).x()
    assert right <= win.width()
    assert tab.plot.view.plot_item.sceneBoundingRect().width() <= canvas.width() + 1


@pytest.mark.slow
def test_an_empty_findings_dock_is_one_line_and_opens_for_findings(qtbot):
    win = _window(qtbot, (1024, 640), REC)
    dock = win.findings
    assert dock.windowTitle() == "Findings: none" and dock.compact
    assert dock.height() <= dock.title_bar.sizeHint().height() + 4
    assert not dock.widget().isVisible() and dock.all_files.isVisible()
    flip = FIXTURES / "aucx/multi_signal_flip_unlisted_member_bad_line.aucx"
    win.open_paths([str(flip)])
    qtbot.waitUntil(lambda: win.all_tabs_ready(), timeout=20000)
    qtbot.waitUntil(lambda: not dock.compact and dock.view.isVisible(), timeout=5000)
    qtbot.wait(50)
    # the three errors, and the warning that the failed archive's structure was not checked
    assert dock.windowTitle() == "Findings: 3 errors, 1 warning"
    rows = dock.view.verticalHeader().defaultSectionSize()
    assert dock.view.viewport().height() >= 3 * rows  # (at least) three findings in view
    assert dock.height() <= 0.3 * win.height() + 1
    win.tabs.setCurrentIndex(0)  # the recording has none: a one-line bar again
    assert dock.compact


# -- columns -------------------------------------------------------------------------------
def test_share_width_keeps_names_and_short_columns():
    natural = {0: 190, 1: 300, 2: 60, 3: 290}
    widths = share_width(natural, 440, shrink=((3, 0.2), (1, 0.35)))
    assert sum(widths.values()) <= 440 and widths[2] == 60
    assert widths[3] == 88 and widths[1] == 154 and widths[0] == 440 - 88 - 154 - 60
    roomy = share_width({0: 100, 1: 150, 2: 50}, 500)
    assert roomy == {0: 100, 1: 350, 2: 50}  # the value column takes the rest
    tight = share_width({0: 500, 1: 500}, 100)
    assert all(w >= MIN_WIDTH for w in tight.values())


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
def test_tree_columns_stay_in_view_and_elide_in_the_middle(qtbot, size):
    win = _window(qtbot, size, REC)
    panel = win.current_tab().header_panel
    for tree in panel.trees():
        view = tree.view
        header = view.header()
        shown = [c for c in range(header.count()) if not header.isSectionHidden(c)]
        assert len(shown) == 4
        assert sum(header.sectionSize(c) for c in shown) <= view.viewport().width() + 1
        assert all(header.sectionSize(c) >= MIN_WIDTH - 20 for c in shown)  # Type included
        assert view.textElideMode() == Qt.TextElideMode.ElideMiddle
    # the full value is one hover (tooltip) and one click (detail pane) away
    view = panel.header.view
    idx = next(view.model().index(r, 1) for r in range(view.model().rowCount())
               if view.model().index(r, 0).data() == "format")
    assert idx.data(Qt.ItemDataRole.ToolTipRole) == '"VneuroTK recording (HDF5)"'
    view.setCurrentIndex(idx.siblingAtColumn(0))
    assert "VneuroTK recording (HDF5)" in win.current_tab().detail.text.toPlainText()
    if size == (1280, 800):  # wide enough for the header values in full
        width = view.fontMetrics().horizontalAdvance('"VneuroTK recording (HDF5)"')
        assert view.columnWidth(1) >= width


@pytest.mark.slow
def test_the_user_keeps_a_dragged_column_width(qtbot):
    win = _window(qtbot, (1280, 800), REC)
    view = win.current_tab().header_panel.raw.view
    fitter = view._column_fitter
    fitter.user_sized = True  # what a drag on the header border sets
    view.setColumnWidth(0, 77)
    win.resize(1100, 700)
    qtbot.wait(50)
    assert view.columnWidth(0) == 77


@pytest.mark.slow
def test_header_trees_stack_when_narrow(qtbot):
    from inspector.formats import open_document
    from inspector.ui.tree_panel import SIDE_BY_SIDE_WIDTH, HeaderPanel

    win = _window(qtbot, (1024, 640), REC)
    assert win.current_tab().header_panel.split.orientation() == Qt.Orientation.Vertical
    with open_document(REC) as doc:
        panel = HeaderPanel(doc.header, doc.tree, doc.tree_title)
        qtbot.addWidget(panel)
        panel.resize(SIDE_BY_SIDE_WIDTH + 40, 500)
        panel.show()
        qtbot.waitExposed(panel)
        assert panel.split.orientation() == Qt.Orientation.Horizontal
        panel.resize(SIDE_BY_SIDE_WIDTH - 40, 500)
        qtbot.wait(20)
        assert panel.split.orientation() == Qt.Orientation.Vertical


# -- one scan selection ---------------------------------------------------------------------
def test_scan_selection_is_shared_by_table_list_and_plot(qtbot):
    win = _window(qtbot, (1280, 800), FOLDER)
    tab = win.current_tab()
    view = _auc_ready(qtbot, tab)
    table = tab.tables["scans"]
    ids = [str(v) for v in table.model.table.frame()["scan_id"]]
    assert ids == view.scan_ids == ["scan_001", "scan_002", "scan_003", "scan_004"]
    # the table selects: the list and the curves follow
    table.view.selectRow(2)
    assert view.selected_scans() == [2]
    pens = [view.pen(i) for i in range(len(view.scan_ids))]
    assert pens[2].width() == 3 and pens[0].color().alpha() == 50
    # the list selects: the table follows (sorted descending: rows are mapped, not positions)
    table.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    view.scan_list.setCurrentRow(1)
    rows = {i.row() for i in table.view.selectionModel().selectedRows()}
    assert [table.model.value(r, 0) for r in rows] == ["scan_002"]
    # a click on a curve selects its scan everywhere
    x, y = view.curve(3)
    k = len(x) // 2
    point = view.plot_item.vb.mapViewToScene(QPointF(float(x[k]), float(y[k])))
    assert view.scan_at(float(x[k]), float(y[k])) == 3
    pos = view.plot_widget.mapFromScene(point)
    qtbot.mouseClick(view.plot_widget.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert view.selected_scans() == [3]
    rows = {i.row() for i in table.view.selectionModel().selectedRows()}
    assert [table.model.value(r, 0) for r in rows] == ["scan_004"]


@pytest.mark.slow
def test_plot_status_uses_plain_words(qtbot):
    win = _window(qtbot, (1280, 800), FOLDER)
    view = _auc_ready(qtbot, win.current_tab())
    assert view.status.text() == "4 scans, 48 measured points"
    win2 = _window(qtbot, (1280, 800), ARCHIVE)
    view2 = _auc_ready(qtbot, win2.current_tab())
    assert "real" not in view2.status.text() and "min/max" not in view2.status.text()


# -- Open Recent and folders ---------------------------------------------------------------
@pytest.mark.slow
def test_open_recent_holds_only_what_the_user_opened(qtbot, tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("a")
    recent_files.clear_recent()  # QSettings keeps one file for the whole test session
    win = _window(qtbot, (1024, 640), REC, remember=False)  # e.g. the bundled samples
    assert recent_files.recent_paths() == []
    win._fill_recent()
    texts = [act.text() for act in win.recent_menu.actions() if act.text()]
    assert texts == ["(none)", recent_files.CLEAR_TEXT]
    win.open_paths([str(a), str(FOLDER)])
    qtbot.waitUntil(lambda: win.all_tabs_ready(), timeout=20000)
    assert recent_files.recent_paths() == [str(FOLDER.resolve()), str(a.resolve())]
    a.unlink()  # a file that is gone is not offered
    win._fill_recent()
    texts = [act.text() for act in win.recent_menu.actions() if act.text()]
    assert texts == [str(FOLDER.resolve()), recent_files.CLEAR_TEXT]
    clear = next(act for act in win.recent_menu.actions() if act.text() == recent_files.CLEAR_TEXT)
    clear.trigger()
    assert recent_files.recent_paths() == []


def test_open_folder_action_and_drop(qtbot, monkeypatch):
    win = _window(qtbot, (1024, 640))
    assert win.act_open_folder.shortcut().toString() == "Ctrl+Alt+O"
    assert win.act_open_url.shortcut().toString() == "Ctrl+Shift+O"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: str(FOLDER)))
    win.act_open_folder.trigger()
    qtbot.waitUntil(lambda: bool(win.document_tabs()) and win.all_tabs_ready(), timeout=20000)
    tab = win.current_tab()
    assert tab.doc.auc is not None and tab.doc.auc.scan_ids[0] == "scan_001"
    win.close_tab(0)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(FOLDER) + "/")])
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                    Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    win.dropEvent(ev)
    qtbot.waitUntil(lambda: bool(win.document_tabs()) and win.all_tabs_ready(), timeout=20000)
    assert win.current_tab().doc.auc is not None
