"""A read-only tree model over a :class:`inspector.formats.document.Node` tree."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt

from inspector.formats.document import Node
from inspector.models.value_text import value_text, value_type_name

#: Custom roles.
NodeRole = Qt.ItemDataRole.UserRole + 1
LocationRole = Qt.ItemDataRole.UserRole + 2

COLUMNS = ("Name", "Value", "Type", "Details")


class NodeTreeModel(QAbstractItemModel):
    """Columns: name, value (typed text), value type, details.

    The model wraps the Node tree without copying it; parent links are kept
    in a side table built once.
    """

    def __init__(self, root: Node | None, parent=None) -> None:
        super().__init__(parent)
        self._root = root or Node("")
        self._parent: dict[int, Node | None] = {}
        self._row: dict[int, int] = {}
        self._index_tree(self._root, None)

    def _index_tree(self, node: Node, parent: Node | None) -> None:
        stack = [(node, parent, 0)]
        while stack:
            n, p, row = stack.pop()
            self._parent[id(n)] = p
            self._row[id(n)] = row
            for i, c in enumerate(n.children):
                stack.append((c, n, i))

    @property
    def root(self) -> Node:
        return self._root

    def node(self, index: QModelIndex | QPersistentModelIndex) -> Node:
        return index.internalPointer() if index.isValid() else self._root

    # -- structure ------------------------------------------------------
    def index(self, row: int, column: int, parent=QModelIndex()) -> QModelIndex:
        p = self.node(parent)
        if 0 <= row < len(p.children) and 0 <= column < len(COLUMNS):
            return self.createIndex(row, column, p.children[row])
        return QModelIndex()

    def parent(self, index=QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        n = index.internalPointer()
        p = self._parent.get(id(n))
        if p is None or p is self._root:
            return QModelIndex()
        return self.createIndex(self._row[id(p)], 0, p)

    def rowCount(self, parent=QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self.node(parent).children)

    def columnCount(self, parent=QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        n: Node = index.internalPointer()
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if col == 0:
                return n.name
            if col == 1:
                if n.value is None and n.children:
                    return ""
                return value_text(n.value, limit=2000 if role == Qt.ItemDataRole.ToolTipRole else 200)
            if col == 2:
                if n.value is None and n.children:
                    return n.kind
                return value_type_name(n.value)
            if col == 3:
                return n.detail
        if role == NodeRole:
            return n
        if role == LocationRole:
            return n.location
        return None

    def index_of_location(self, location: str) -> QModelIndex:
        """The index of the first node whose location is ``location`` (invalid if none)."""
        n = self._root.find(location)
        if n is None or n is self._root:
            return QModelIndex()
        return self.createIndex(self._row[id(n)], 0, n)
