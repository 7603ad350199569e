"""A read-only tree model over a :class:`inspector.formats.document.Node` tree."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt

from inspector.formats.document import Node
from inspector.models.roles import (
    CopyRole,
    LocationRole,
    MissingRole,
    NameRole,
    NodeRole,
    ValueRole,
)
from inspector.models.style import italic_font, kind_color, muted_color
from inspector.models.value_text import is_unknown, value_text, value_type_name

__all__ = ["COLUMNS", "LocationRole", "NodeRole", "NodeTreeModel", "node_type_text"]

COLUMNS = ("Name", "Value", "Type", "Details")

_D = Qt.ItemDataRole

#: Node kinds whose ``None`` value means "no scalar value" rather than a missing one.
CONTAINER_KINDS = frozenset({"group", "dataset", "member", "link", "file", "table", "record"})


def has_value(n: Node) -> bool:
    """False for containers (children, or a group/dataset/member node without a value)."""
    return not (n.value is None and (n.children or n.kind in CONTAINER_KINDS))


def node_type_text(n: Node) -> str:
    """What the Type column shows: the value's type, or the node kind for containers."""
    if not has_value(n):
        return n.kind
    return value_type_name(n.value)


def node_full_text(n: Node) -> str:
    """The untruncated value text of a node (what "Copy value" copies)."""
    if not has_value(n):
        return ""
    if isinstance(n.value, str):
        return n.value
    return value_text(n.value, limit=1_000_000)


class NodeTreeModel(QAbstractItemModel):
    """Columns: name, value (typed text), value type, details.

    Strings are shown in quotes in a distinct colour, so an int ``1`` and a
    str ``"1"`` look different (and the Type column says ``int``/``str``).
    Missing values and the provenance placeholder ``"unknown"`` are greyed
    italic.  The model wraps the Node tree without copying it; parent links
    are kept in a side table built once.
    """

    def __init__(self, root: Node | None, parent=None) -> None:
        super().__init__(parent)
        self._root = root or Node("")
        self._parent: dict[int, Node | None] = {}
        self._row: dict[int, int] = {}
        self._index_tree(self._root, None)

    def set_root(self, root: Node | None) -> None:
        """Show another tree (a deferred check replaced the header); resets the model."""
        self.beginResetModel()
        self._root = root or Node("")
        self._parent, self._row = {}, {}
        self._index_tree(self._root, None)
        self.endResetModel()

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

    def headerData(self, section: int, orientation, role=_D.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _D.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role=_D.DisplayRole) -> Any:
        if not index.isValid():
            return None
        n: Node = index.internalPointer()
        col = index.column()
        leaf_value = has_value(n)
        if role in (_D.DisplayRole, _D.ToolTipRole):
            if col == 0:
                return n.name if role == _D.DisplayRole else (n.location or n.name)
            if col == 1:
                if not leaf_value:
                    return ""
                return value_text(n.value, limit=2000 if role == _D.ToolTipRole else 200)
            if col == 2:
                return node_type_text(n)
            if col == 3:
                return n.detail
        if role == _D.ForegroundRole and col == 1 and leaf_value:
            if is_unknown(n.value):
                return muted_color()
            if isinstance(n.value, str):
                return kind_color("string")
            return None
        if role == _D.ForegroundRole and col == 2:
            return muted_color()
        if role == _D.FontRole and col == 1 and leaf_value and is_unknown(n.value):
            return italic_font()
        if role == NodeRole:
            return n
        if role == LocationRole:
            return n.location
        if role == NameRole:
            return n.name
        if role == ValueRole:
            return n.value
        if role == MissingRole:
            return leaf_value and is_unknown(n.value)
        if role == CopyRole:
            return (n.name, node_full_text(n), node_type_text(n), n.detail)[col]
        return None

    def index_of_node(self, n: Node) -> QModelIndex:
        """Index (column 0) of a node of this tree (invalid for the root or foreign nodes)."""
        if n is self._root or id(n) not in self._row:
            return QModelIndex()
        return self.createIndex(self._row[id(n)], 0, n)

    def index_of_location(self, location: str) -> QModelIndex:
        """The index of the first node whose location is ``location`` (invalid if none)."""
        n = self._root.find(location)
        if n is None or n is self._root:
            return QModelIndex()
        return self.index_of_node(n)
