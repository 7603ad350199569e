"""The node tree model fills in incrementally: long child lists grow as they are looked at."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex

from inspector.formats.nodes.node import Node
from inspector.models import node_tree_model as ntm
from inspector.models.node_filter_model import NodeFilterProxy
from inspector.models.node_tree_model import NodeTreeModel
from inspector.models.roles import NodeRole
from inspector.ui.tree_panel import FilteredTree

N = 1234


def _flat(n: int = N) -> Node:
    root = Node("root")
    for i in range(n):
        root.add(f"member_{i:05d}", i, kind="member", location=f"member_{i:05d}")
    return root


def _walk(model: NodeTreeModel, parent: QModelIndex = QModelIndex()) -> list[str]:
    out = []
    for r in range(model.rowCount(parent)):
        idx = model.index(r, 0, parent)
        assert model.parent(idx) == parent
        out.append(idx.data(NodeRole).location)
        out += _walk(model, idx)
    return out


def test_small_trees_are_shown_whole_at_once():
    root = Node("root")
    for g in range(5):
        grp = root.add(f"g{g}", kind="group", location=f"/g{g}")
        for d in range(ntm.FIRST_ROWS):
            grp.add(f"d{d}", d, kind="attribute", location=f"/g{g}/d{d}")
    model = NodeTreeModel(root)
    assert _walk(model) == [n.location for n in root.walk()][1:]  # every node, in order
    assert model.is_complete() and not model.canFetchMore(QModelIndex())


def test_a_long_child_list_grows_by_fetch_more():
    root = _flat()
    model = NodeTreeModel(root)
    inserted = []
    model.rowsInserted.connect(lambda parent, first, last: inserted.append((first, last)))
    assert model.rowCount() == ntm.FIRST_ROWS
    assert model.canFetchMore(QModelIndex()) and not model.is_complete()
    model.fetchMore(QModelIndex())
    assert model.rowCount() == ntm.FIRST_ROWS + ntm.FETCH_ROWS
    assert inserted == [(ntm.FIRST_ROWS, ntm.FIRST_ROWS + ntm.FETCH_ROWS - 1)]
    while model.canFetchMore(QModelIndex()):
        model.fetchMore(QModelIndex())
    assert model.rowCount() == N and model.is_complete()
    assert _walk(model) == [f"member_{i:05d}" for i in range(N)]
    assert inserted[-1][1] == N - 1


def test_finding_a_node_not_shown_yet_shows_its_path():
    root = Node("root")
    for g in range(3):
        grp = root.add(f"g{g}", kind="group", location=f"/g{g}")
        for d in range(N):
            grp.add(f"d{d}", d, kind="attribute", location=f"/g{g}/d{d}")
    model = NodeTreeModel(root)
    target = root.children[2].children[N - 1]
    idx = model.index_of_location("/g2/d1233")
    assert idx.isValid() and idx.data(NodeRole) is target and idx.row() == N - 1
    parent = model.parent(idx)
    assert parent.data(NodeRole) is root.children[2] and parent.row() == 2
    assert model.rowCount(parent) == N  # the rows before it are shown too
    assert model.rowCount(model.index(0, 0)) == ntm.FIRST_ROWS  # other lists did not grow


def test_scrolling_to_the_end_of_a_list_shows_more(qtbot):
    tree = FilteredTree(_flat(), "Members")
    qtbot.addWidget(tree)
    tree.resize(500, 300)
    tree.show()
    qtbot.waitExposed(tree)
    shown = tree.model.rowCount()
    assert shown < N
    bar = tree.view.verticalScrollBar()
    for _ in range(20):  # drive the event loop: each scroll to the end fetches a batch
        if tree.model.rowCount() == N:
            break
        bar.setValue(bar.maximum())
        qtbot.wait(5)
    assert tree.model.rowCount() == N


def test_a_filter_sees_rows_not_shown_yet(qtbot):
    model = NodeTreeModel(_flat())
    proxy = NodeFilterProxy()
    proxy.setSourceModel(model)
    assert model.rowCount() == ntm.FIRST_ROWS
    proxy.set_text("member_01200")
    assert proxy.rowCount() == 1
    assert proxy.index(0, 0).data(NodeRole).location == "member_01200"
    proxy.set_text("")
    assert proxy.rowCount() == N  # shown whole once a filter needed it


def test_select_node_in_a_long_list(qtbot):
    root = _flat()
    tree = FilteredTree(root, "Members")
    qtbot.addWidget(tree)
    assert tree.select_location("member_01000")
    cur = tree.view.currentIndex()
    assert cur.data(NodeRole) is root.children[1000]
