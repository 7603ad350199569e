"""Node trees held in Qt's items (inspector.models.node_item_model, node_rows): the same
cells as the Python model, painted without entering Python, rows made on a job."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QTreeView

from inspector.formats.document import Node
from inspector.formats.nodes.node import LinkTarget
from inspector.formats.registry import open_document
from inspector.models import node_rows
from inspector.models.node_filter_model import ItemFilterProxy, NodeFilterProxy, filter_proxy_for
from inspector.models.node_item_model import NodeItemModel, node_model
from inspector.models.node_rows import (
    FullValueText,
    RowStyle,
    build_rows,
    count_nodes,
    tree_rows,
)
from inspector.models.node_tree_model import NodeTreeModel, filter_text
from inspector.models.roles import (
    CopyRole,
    FilterRole,
    LocationRole,
    MissingRole,
    NameRole,
    NodeRole,
)
from inspector.models.style import kind_color, muted_color
from inspector.ui import theme
from inspector.ui.tree_panel import FilteredTree
from tests.test_multi_data import _cells  # every cell of a model, depth first

D = Qt.ItemDataRole
FIXTURES = Path(__file__).parent / "fixtures"
#: Every role the Python model answers but ValueRole (Qt cannot hold every Python value).
ROLES = [D.DisplayRole, D.ToolTipRole, D.ForegroundRole, D.FontRole, D.DecorationRole,
         D.BackgroundRole, D.TextAlignmentRole, D.CheckStateRole,
         NodeRole, LocationRole, NameRole, MissingRole, CopyRole, FilterRole]


def _typed_tree() -> Node:
    """Values of every kind a header shows, and the odd ones readers let through."""
    root = Node("root", kind="group")
    g = root.add("group", kind="group", location="/g", detail="3 members")
    g.add("as_int", 1, kind="attribute", location="/g@as_int")
    g.add("as_str", "1", kind="attribute", location="/g@as_str")
    g.add("unknown_field", "unknown", location="/g@u")
    g.add("huge", 2**70, kind="attribute", location="/g@huge")
    g.add("long", "x" * 5000, kind="attribute", location="/g@long")
    g.add("data", kind="dataset", location="/g/data", detail="(3,) int64")
    root.add("link", "/g", kind="link", location="/link", target=LinkTarget("/g"))
    root.add("other", 2.5, location="/other")
    return root


def _same(got, expected) -> bool:
    if got is expected:
        return True
    if isinstance(got, FullValueText):  # (the full value text, made when copied)
        return str(got) == expected
    if isinstance(expected, QColor):
        return isinstance(got, QColor) and got.rgba() == expected.rgba()
    return type(got) is type(expected) and bool(got == expected)


def _assert_same_cells(items: NodeItemModel, python: NodeTreeModel) -> int:
    """Every role of every cell of ``items`` is what the Python model answers."""
    a, b = list(_cells(items)), list(_cells(python))
    assert len(a) == len(b) > 0
    for x, y in zip(a, b, strict=True):
        assert (x.row(), x.column(), x.parent().row()) == (y.row(), y.column(), y.parent().row())
        for role in ROLES:
            assert _same(x.data(int(role)), y.data(int(role))), (y.data(NameRole), role)
    return len(a)


def _corpus_trees() -> list[Node]:
    trees = []
    for path in sorted((FIXTURES / "vneurotk" / "v1").glob("*.h5"))[:3] \
            + sorted((FIXTURES / "aucx").glob("*.aucx"))[:2]:
        doc = open_document(path)
        trees += [t for t in (doc.header, doc.tree, doc.provenance) if t is not None]
    return trees


def test_the_items_hold_what_the_python_model_answers(qapp):
    assert _assert_same_cells(NodeItemModel(_typed_tree()), NodeTreeModel(_typed_tree())) == 9 * 4


@pytest.mark.slow
def test_corpus_trees_are_the_same_in_both_models(qapp):
    checked = sum(_assert_same_cells(NodeItemModel(t), NodeTreeModel(t))
                  for t in _corpus_trees() if t.children)
    assert checked > 1000


def test_rows_made_on_another_thread_are_the_same(qapp):
    tree = _typed_tree()
    style = RowStyle.current()
    made: dict[str, object] = {}
    worker = threading.Thread(target=lambda: made.update(rows=tree_rows(tree, style)))
    worker.start()
    worker.join()
    model = NodeItemModel(tree, rows=made["rows"])
    _assert_same_cells(model, NodeTreeModel(tree))
    g = tree.children[0]
    assert model.node(model.index_of_node(g.children[3])) is g.children[3]
    assert model.index_of_location("/g/data").data() == "data"


def _chain(depth: int) -> tuple[Node, Node]:
    root = chain = Node("root")
    for i in range(depth):
        chain = chain.add(f"n{i}", kind="group")
    return root, chain


def test_a_tree_over_the_limits_has_no_rows(qapp):
    wide = Node("root")
    for i in range(30):
        wide.add(f"a{i}", i)
    assert count_nodes(wide.children, 20) == 21  # (stops counting past the limit)
    assert tree_rows(wide, RowStyle.current(), limit=29) is None
    assert tree_rows(wide, RowStyle.current(), limit=30) is not None
    long_names = Node("root")
    for i in range(3):
        long_names.add("n" * (node_rows.ITEM_TREE_CHARS // 2), i)
    assert tree_rows(long_names, RowStyle.current(), limit=None) is None  # (text, not nodes)
    assert isinstance(node_model(long_names), NodeTreeModel)
    deep, _end = _chain(node_rows.ITEM_TREE_DEPTH + 1)
    assert tree_rows(deep, RowStyle.current(), limit=None) is None
    with pytest.raises(ValueError, match="deeper than"):
        NodeItemModel(deep)
    assert isinstance(node_model(deep), NodeTreeModel)  # (shown lazily instead)


def test_a_chain_as_deep_as_allowed_is_held_whole(qapp):
    root, end = _chain(node_rows.ITEM_TREE_DEPTH)
    model = node_model(root)
    assert isinstance(model, NodeItemModel)
    index, depth = model.index_of_node(end), 0
    assert index.data() == f"n{node_rows.ITEM_TREE_DEPTH - 1}"
    while index.isValid():
        index, depth = index.parent(), depth + 1
    assert depth == node_rows.ITEM_TREE_DEPTH


def test_the_model_is_chosen_by_the_size_of_the_tree(qapp):
    small, large = Node("s"), Node("l")
    for i in range(node_rows.GUI_BUILD_NODES):
        small.add(f"a{i}", i)
    for i in range(node_rows.GUI_BUILD_NODES + 1):
        large.add(f"a{i}", i)
    assert isinstance(node_model(small), NodeItemModel)
    assert isinstance(node_model(large), NodeTreeModel)  # (too many to make here)
    assert isinstance(node_model(large, rows=tree_rows(large, RowStyle.current())),
                      NodeItemModel)
    assert isinstance(filter_proxy_for(NodeItemModel(small)), ItemFilterProxy)
    assert not isinstance(filter_proxy_for(NodeItemModel(small)), NodeFilterProxy)
    assert isinstance(filter_proxy_for(NodeTreeModel(large)), NodeFilterProxy)


def _paint_calls(model) -> int:
    """Python functions of the product called while a view of ``model`` repaints."""
    view = QTreeView()
    view.setModel(filter_proxy_for(model, view))
    view.resize(600, 400)
    view.show()
    view.expandAll()
    QApplication.processEvents()
    calls = []

    def profile(frame, event, _arg):
        if event == "call" and "inspector" in frame.f_code.co_filename:
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        view.viewport().repaint()
    finally:
        sys.setprofile(None)
    view.close()
    return len(calls)


def test_painting_the_items_never_enters_python(qapp):
    assert _paint_calls(NodeTreeModel(_typed_tree())) > 20  # (the probe sees the Python model)
    assert _paint_calls(NodeItemModel(_typed_tree())) == 0


def _shown(proxy, parent=QModelIndex()) -> list[str]:
    names = []
    for row in range(proxy.rowCount(parent)):
        index = proxy.index(row, 0, parent)
        names.append(index.data(LocationRole) or index.data())
        names += _shown(proxy, index)
    return names


def _expected(root: Node, needle: str) -> list[str]:
    """The rows a filter keeps: matches, their ancestors and their whole subtrees."""
    out: list[str] = []

    def keep(n: Node, inherited: bool) -> list[str]:
        match = inherited or needle in filter_text(n)
        below = [x for c in n.children for x in keep(c, match)]
        return [n.location or n.name, *below] if match or below else []

    for c in root.children:
        out += keep(c, False)
    return out


@pytest.mark.parametrize("needle", ["", "as_", "/G@", "unknown", "xxxx", "2.5", "nothing"])
def test_the_filter_keeps_the_same_rows_over_both_models(qapp, needle):
    tree = _typed_tree()
    over_items = filter_proxy_for(NodeItemModel(tree))
    over_python = filter_proxy_for(NodeTreeModel(tree))
    for proxy in (over_items, over_python):
        proxy.set_text(needle)
    assert _shown(over_items) == _shown(over_python) == _expected(tree, needle.lower())


def test_pages_inserted_changed_and_removed(qapp):
    tree = _typed_tree()
    model = NodeItemModel(tree)
    g = tree.children[0]
    more = g.add("5 more attributes", kind="more attributes", location="/g")
    model.set_root(tree)
    page = [Node(f"p{i}", i, kind="attribute", location=f"/g@p{i}") for i in range(3)]
    rows = build_rows(page, RowStyle.current(), limit=None)
    assert model.insert_before(more, page, rows)
    g_index = model.index_of_node(g)
    names = [model.index(r, 0, g_index).data() for r in range(model.rowCount(g_index))]
    assert names == [c.name for c in g.children]  # the nodes and the rows agree
    assert names[-4:] == ["p0", "p1", "p2", "5 more attributes"]
    assert model.index_of_node(page[1]).siblingAtColumn(1).data() == "1"
    as_str = g.children[1]
    string = model.index_of_node(as_str).siblingAtColumn(1)
    assert string.data(D.ForegroundRole) is not None  # (a string is coloured)
    as_str.value = 7
    model.node_changed(as_str)
    assert string.data() == "7" and string.data(D.ForegroundRole) is None
    model.remove_node(more)
    assert model.rowCount(g_index) == len(g.children) and more not in g.children
    assert not model.index_of_node(more).isValid()
    assert not model.insert_before(more, page)  # (no longer shown)


def test_a_theme_switch_recolours_the_items(qtbot):
    before = theme.current_theme()
    tree = FilteredTree(_typed_tree(), "Header")
    assert isinstance(tree.model, NodeItemModel)
    as_str = tree.model.index_of_location("/g@as_str").siblingAtColumn(1)
    try:
        for name in ("dark", "light"):
            theme.apply_theme(name)
            QApplication.processEvents()
            qtbot.waitUntil(lambda: not tree.model.restyling)
            assert as_str.data(D.ForegroundRole).rgba() == kind_color("string").rgba()
            kind = as_str.siblingAtColumn(2)
            assert kind.data(D.ForegroundRole).rgba() == muted_color().rgba()
        assert kind_color("string", theme.dark_palette()).rgba() \
            != kind_color("string", theme.light_palette()).rgba()  # (the test can fail)
    finally:
        theme.apply_theme(before)
        tree.deleteLater()


def test_a_tree_that_grows_past_the_limit_changes_model_and_keeps_its_filter(qtbot):
    small = _typed_tree()
    tree = FilteredTree(small, "Header")
    qtbot.addWidget(tree)
    tree.set_filter("as_")
    large = Node("root")
    for i in range(node_rows.GUI_BUILD_NODES + 1):
        large.add(f"as_{i}", i, location=f"/@as_{i}")
    tree.set_root(large)
    assert isinstance(tree.model, NodeTreeModel) and tree.proxy.text == "as_"
    assert tree.proxy.rowCount() == node_rows.GUI_BUILD_NODES + 1
    with qtbot.waitSignal(tree.node_selected) as selected:
        assert tree.select_node(large.children[5])
    assert selected.args == [large.children[5]]
    tree.set_root(small)
    assert isinstance(tree.model, NodeItemModel)
    with qtbot.waitSignal(tree.node_selected) as selected:
        assert tree.select_location("/g@as_str")
    assert selected.args[0].name == "as_str"


@pytest.mark.slow
def test_the_window_makes_the_rows_of_a_document_on_jobs(qtbot, monkeypatch):
    from inspector.ui import document_tab
    from inspector.ui.main_window import MainWindow

    made_on: list[tuple[str, bool]] = []
    make = document_tab.tree_rows

    def recording(root, style, *args):
        made_on.append((root.name, threading.current_thread() is threading.main_thread()))
        return make(root, style, *args)

    monkeypatch.setattr(document_tab, "tree_rows", recording)
    path = FIXTURES / "vneurotk" / "v1" / "epochs_dense_f64_strids.h5"
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.open_paths([str(path)], remember=False)
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=60000)
    panel = win.current_tab().header_panel
    assert [type(t.model) for t in panel.trees()] == [NodeItemModel, NodeItemModel]
    assert count_nodes(panel.raw.model.root.children, 10_000) > node_rows.GUI_BUILD_NODES
    assert len(made_on) >= 2 and not any(on_gui for _name, on_gui in made_on)
    doc = open_document(path)
    _assert_same_cells(panel.header.model, NodeTreeModel(doc.header))
    _assert_same_cells(panel.raw.model, NodeTreeModel(doc.tree))


def test_a_new_root_resets_the_items_a_view_shows(qtbot, qtlog):
    tree = FilteredTree(_typed_tree(), "Header")
    qtbot.addWidget(tree)
    tree.show()
    model = tree.model
    assert isinstance(model, NodeItemModel)
    replaced = _typed_tree()
    replaced.add("extra", 3, location="/extra")
    with qtbot.waitSignal(model.modelReset):
        tree.set_root(replaced)
    assert tree.model is model  # (the same model, reset)
    _assert_same_cells(model, NodeTreeModel(replaced))
    assert tree.proxy.index(tree.proxy.rowCount() - 1, 0).data() == "extra"
    assert not [r for r in qtlog.records if "ResetModel" in r.message]  # (one reset, not two)


def test_a_large_tree_is_recoloured_over_several_turns(qtbot, monkeypatch):
    from inspector.models import node_item_model

    monkeypatch.setattr(node_item_model, "RESTYLE_ROWS", 10)
    root = Node("root")
    for i in range(45):
        root.add(f"s{i}", f"text {i}", location=f"/@s{i}")
    model = NodeItemModel(root)
    light = RowStyle(QColor("#555555"), QColor("#8a4b12"), RowStyle.current().italic)
    dark = RowStyle(QColor("#aaaaaa"), QColor("#e8b07a"), RowStyle.current().italic)
    model.restyle(light)
    qtbot.waitUntil(lambda: not model.restyling)
    model.restyle(dark)
    colours = [model.index(r, 1).data(D.ForegroundRole).name() for r in range(45)]
    assert model.restyling and colours[:10] == ["#e8b07a"] * 10  # the first batch at once
    assert colours[10:] == ["#8a4b12"] * 35  # the rest on later turns
    qtbot.waitUntil(lambda: not model.restyling)
    assert {model.index(r, 1).data(D.ForegroundRole).name() for r in range(45)} == {"#e8b07a"}
    assert {model.index(r, 2).data(D.ForegroundRole).name() for r in range(45)} == {"#aaaaaa"}


def test_copy_value_copies_the_full_text_it_makes_when_asked(qtbot, monkeypatch):
    from PySide6.QtGui import QGuiApplication

    root = Node("root")
    big = root.add("big", "0123456789" * 60_000, kind="attribute", location="/@big")
    tree = FilteredTree(root, "Header")
    qtbot.addWidget(tree)
    assert isinstance(tree.model, NodeItemModel)
    made: list[int] = []
    make = node_rows.node_full_text
    monkeypatch.setattr(node_rows, "node_full_text", lambda n: made.append(1) or make(n))
    shown = tree.model.index_of_node(big).siblingAtColumn(1)
    assert len(shown.data()) <= 202 and not made  # (shown cut; the full text not made)
    tree.select_node(big)
    copy = next(a for a in tree.view.actions() if a.text() == "Copy value")
    copy.trigger()
    assert QGuiApplication.clipboard().text() == big.value and len(made) == 1
