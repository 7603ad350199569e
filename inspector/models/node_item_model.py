"""A node tree held in Qt's own items (``QStandardItemModel``): painting it never
enters Python.

Small trees (the header, provenance and summary trees, and the raw trees of
most files: tens to hundreds of nodes) are shown through this model; a tree
of more than :data:`~inspector.models.node_rows.ITEM_TREE_NODES` nodes goes
through the lazily filled :class:`~inspector.models.node_tree_model.NodeTreeModel`
instead (:func:`node_model` chooses).  Both offer the same methods to the
views: :attr:`root`, :meth:`node`, :meth:`index_of_node`,
:meth:`index_of_location`, :meth:`insert_before`, :meth:`node_changed`,
:meth:`remove_node`, :meth:`set_root`, :meth:`show_all`.

The rows are made by :func:`~inspector.models.node_rows.build_rows`, on a job
where the caller can (``rows=``), else here.  Colours are fixed in the items
when they are made, so :meth:`restyle` sets them again after a theme switch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QStandardItem, QStandardItemModel

from inspector.formats.document import Node
from inspector.models.node_rows import (
    GUI_BUILD_NODES,
    ITEM_TREE_DEPTH,
    RowStyle,
    TreeRows,
    build_rows,
    cell_colours,
    cell_roles,
    count_nodes,
    fill_item,
    tree_rows,
)
from inspector.models.node_tree_model import COLUMNS, NodeTreeModel
from inspector.models.roles import NodeRole

#: Rows coloured per event-loop turn after a theme switch (about 10 ms).
RESTYLE_ROWS = 200

_D = Qt.ItemDataRole
_COLOURED = (int(_D.ForegroundRole), int(_D.FontRole))


class NodeItemModel(QStandardItemModel):
    """Columns: name, value (typed text), value type, details; the roles and values of
    :class:`~inspector.models.node_tree_model.NodeTreeModel` (no ``ValueRole``).

    Args:
        root: the tree (its children are the top rows); None for an empty tree.
        parent: the QObject owner.
        rows: the rows of ``root``'s children made ahead
            (:func:`~inspector.models.node_rows.tree_rows`, on a job); None makes
            them now, on this thread.

    Methods that change rows run on the GUI thread, as for any model in a view.

    Raises:
        ValueError: ``rows`` is None and the tree is deeper than
            :data:`~inspector.models.node_rows.ITEM_TREE_DEPTH` (:func:`node_model`
            never asks for that).
    """

    def __init__(self, root: Node | None, parent: QObject | None = None,
                 rows: TreeRows | None = None) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self._root = root or Node("")
        self._items: dict[int, QStandardItem] = {}
        self._style: RowStyle | None = None
        self._restyle_token: object | None = None
        self._add_rows(rows)

    def _add_rows(self, rows: TreeRows | None) -> None:
        if rows is None:
            rows = build_rows(self._root.children, RowStyle.current(), limit=None)
            if rows is None:
                raise ValueError(f"a tree deeper than {ITEM_TREE_DEPTH} levels is not held "
                                 "as Qt items (node_model shows it lazily)")
        self._style = rows.style
        self._items = dict(rows.items)
        top = self.invisibleRootItem()
        for row in rows.rows:
            top.appendRow(row)
        rows.rows.clear()  # (the model owns the items now)
        self.restyle()  # (the theme may have changed while the rows were made)

    # -- what the views ask -------------------------------------------------
    @property
    def root(self) -> Node:
        return self._root

    def node(self, index: QModelIndex | QPersistentModelIndex) -> Node:
        """The node of ``index`` (the root for an invalid index)."""
        if not index.isValid():
            return self._root
        n = index.sibling(index.row(), 0).data(NodeRole)
        return n if isinstance(n, Node) else self._root

    def index_of_node(self, n: Node) -> QModelIndex:
        """Index (column 0) of a node of this tree (invalid for the root or foreign nodes)."""
        item = self._items.get(id(n))
        return item.index() if item is not None else QModelIndex()

    def index_of_location(self, location: str) -> QModelIndex:
        """The index of the first node whose location is ``location`` (invalid if none)."""
        n = self._root.find(location)
        if n is None or n is self._root:
            return QModelIndex()
        return self.index_of_node(n)

    def is_complete(self) -> bool:
        """Every row is shown (always: the whole tree is held)."""
        return True

    def show_all(self) -> None:
        """Nothing to do: every row is shown."""

    # -- changes --------------------------------------------------------------
    def set_root(self, root: Node | None, rows: TreeRows | None = None) -> None:
        """Show another tree (a deferred check replaced the header); resets the model."""
        self.beginResetModel()
        blocked = self.blockSignals(True)  # (the rows go and come within this one reset)
        try:
            self.removeRows(0, self.rowCount())
            self._restyle_token = None  # (the old rows need no colours)
            self._root = root or Node("")
            self._add_rows(rows)
        finally:
            self.blockSignals(blocked)
        self.endResetModel()

    def _cells(self, item: QStandardItem) -> list[QStandardItem | None]:
        """The four cells of the row whose first cell is ``item``."""
        parent, _owner = self._parent_of(item)
        row = item.row()
        return [parent.child(row, column) for column in range(len(COLUMNS))]

    def _parent_of(self, item: QStandardItem) -> tuple[QStandardItem, Node]:
        parent = item.parent()
        if parent is None:
            return self.invisibleRootItem(), self._root
        return parent, self.node(parent.index())

    def insert_before(self, n: Node, nodes: Sequence[Node],
                      rows: TreeRows | None = None) -> bool:
        """Insert ``nodes`` as siblings just before the shown node ``n`` (an attribute
        page before the row standing for the rest); False when ``n`` is not shown.

        ``rows``: the rows of ``nodes`` made ahead (on a job); None makes them here.
        """
        item = self._items.get(id(n))
        if item is None:
            return False
        if not nodes:
            return True
        if rows is None:
            rows = build_rows(nodes, self._style or RowStyle.current(), limit=None)
            if rows is None:
                return False  # (nodes too deep to hold as items)
        parent, owner = self._parent_of(item)
        row = item.row()
        for k, cells in enumerate(rows.rows):
            parent.insertRow(row + k, cells)
        rows.rows.clear()
        owner.children[row:row] = list(nodes)
        self._items.update(rows.items)
        return True

    def node_changed(self, n: Node) -> None:
        """``n``'s name, value or details changed: its row shows them again."""
        item = self._items.get(id(n))
        if item is None:
            return
        for cell, roles in zip(self._cells(item), cell_roles(n, self._style or RowStyle.current()),
                               strict=True):
            if cell is not None:
                for role in _COLOURED:  # (a colour the node no longer has goes)
                    if role not in roles:
                        cell.setData(None, role)
                fill_item(cell, roles)

    def remove_node(self, n: Node) -> None:
        """Take the shown leaf node ``n`` out of its parent's children."""
        item = self._items.pop(id(n), None)
        if item is None:
            return
        parent, owner = self._parent_of(item)
        row = item.row()
        for child in n.walk():
            self._items.pop(id(child), None)
        parent.removeRow(row)
        del owner.children[row]

    def restyle(self, style: RowStyle | None = None) -> None:
        """Colour the rows for the palette now (after a theme switch),
        :data:`RESTYLE_ROWS` rows now and as many on each later event-loop turn (a
        tree of 5 000 nodes took 0.3 s under load); a later call supersedes one under way."""
        style = style or RowStyle.current()
        if style == self._style:
            return
        self._style = style
        self._restyle_token = token = object()
        self._restyle_some(token, style, iter(list(_rows_in_order(self._root))))

    @property
    def restyling(self) -> bool:
        """Rows are still to be coloured for the current palette (:meth:`restyle`)."""
        return self._restyle_token is not None

    def _restyle_some(self, token: object, style: RowStyle, nodes: Iterator[Node]) -> None:
        if token is not self._restyle_token:
            return
        batch = list(islice(nodes, RESTYLE_ROWS))
        for n in batch:
            item = self._items.get(id(n))
            if item is None:
                continue  # (removed meanwhile)
            for cell, roles in zip(self._cells(item), cell_colours(n, style), strict=True):
                if cell is not None:
                    for role in _COLOURED:
                        cell.setData(roles.get(role), role)
        if len(batch) < RESTYLE_ROWS:
            self._restyle_token = None
            return
        QTimer.singleShot(0, self, lambda: self._restyle_some(token, style, nodes))


def _rows_in_order(root: Node) -> Iterator[Node]:
    """The nodes under ``root`` as their rows come, top to bottom (``root`` left out)."""
    stack = list(reversed(root.children))
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def rows_made_here(root: Node | None) -> TreeRows | None:
    """The rows of a small tree (at most :data:`~inspector.models.node_rows.GUI_BUILD_NODES`
    nodes), made now on this thread; None for a larger tree or none."""
    if root is None or count_nodes(root.children, GUI_BUILD_NODES) > GUI_BUILD_NODES:
        return None
    return tree_rows(root, RowStyle.current())  # (None too for a tree too deep)


def node_model(root: Node | None, parent: QObject | None = None,
               rows: TreeRows | None = None) -> NodeItemModel | NodeTreeModel:
    """The model for ``root``: a :class:`NodeItemModel` over ``rows`` made ahead, or over
    rows made now when the tree is small (:func:`rows_made_here`), else the lazily
    filled :class:`~inspector.models.node_tree_model.NodeTreeModel`."""
    rows = rows if rows is not None else rows_made_here(root)
    if rows is None:
        return NodeTreeModel(root, parent)
    return NodeItemModel(root, parent, rows)


NodeModel = NodeItemModel | NodeTreeModel
