"""A read-only tree model over a :class:`inspector.formats.document.Node` tree.

Filled incrementally: nothing is walked up front, and a node with more than
:data:`FIRST_ROWS` children shows that many at first; the view asks for
:data:`FETCH_ROWS` more at a time (Qt's ``canFetchMore``/``fetchMore``: when
the last row is scrolled into view or the node is expanded), one batch per
event, so a tree of 100 000 objects never freezes the window
(docs/architecture.md, "Contracts").  A ``QTreeView`` lays out every row it
shows each time rows are inserted, so rows are added as they are looked
at, not all in the background.  Finding a node that is not shown yet
(:meth:`NodeTreeModel.index_of_node`) shows the rows on its path at once;
:meth:`NodeTreeModel.show_all` shows everything (a filter needs every row).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from inspector.formats.capabilities import MORE_ATTRIBUTES
from inspector.formats.document import Node
from inspector.models.multi_data import OneEntryPerCell
from inspector.models.roles import (
    CopyRole,
    FilterRole,
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
_NCOLUMNS = len(COLUMNS)
_DISPLAY, _TOOLTIP = int(_D.DisplayRole), int(_D.ToolTipRole)
_FOREGROUND, _FONT = int(_D.ForegroundRole), int(_D.FontRole)
#: The roles :meth:`NodeTreeModel.data` answers; any other is None at once.
_ANSWERED = frozenset({_DISPLAY, _TOOLTIP, _FOREGROUND, _FONT, int(NodeRole), int(LocationRole),
                       int(NameRole), int(ValueRole), int(MissingRole), int(CopyRole),
                       int(FilterRole)})

#: Children shown at once under one node; longer child lists grow as they are scrolled.
FIRST_ROWS = 200
#: Rows added by one ``fetchMore``.
FETCH_ROWS = 200

#: Node kinds whose ``None`` value means "no scalar value" rather than a missing one.
CONTAINER_KINDS = frozenset({"group", "dataset", "member", "link", "file", "table", "record",
                             MORE_ATTRIBUTES})


def has_value(n: Node) -> bool:
    """False for containers (children, or a group/dataset/member node without a value)."""
    return not (n.value is None and (n.children or n.kind in CONTAINER_KINDS))


def node_type_text(n: Node) -> str:
    """What the Type column shows: the value's type, or the node kind for containers
    and links (whose value is their target)."""
    if n.target is not None:
        return "virtual source" if n.target.kind == "virtual" else f"{n.target.kind} link"
    if not has_value(n):
        return n.kind
    return value_type_name(n.value)


def filter_text(n: Node) -> str:
    """What a filter searches in ``n``: its name, location and value text (500
    characters), lowercased, one per line (so that no match spans two of them)."""
    value = value_text(n.value, limit=500) if n.value is not None else ""
    return f"{n.name}\n{n.location}\n{value}".lower()


def node_full_text(n: Node) -> str:
    """The untruncated value text of a node (what "Copy value" copies)."""
    if not has_value(n):
        return ""
    if isinstance(n.value, str):
        return n.value
    return value_text(n.value, limit=1_000_000)


class NodeTreeModel(OneEntryPerCell, QAbstractItemModel):
    """Columns: name, value (typed text), value type, details.

    Strings are shown in quotes in a distinct colour, so an int ``1`` and a
    str ``"1"`` look different (and the Type column says ``int``/``str``).
    Missing values and the provenance placeholder ``"unknown"`` are greyed
    italic.  The model wraps the Node tree without copying it; the parent and
    row of a node are recorded when its index is first made.
    """

    def __init__(self, root: Node | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._reset(root)

    def _reset(self, root: Node | None) -> None:
        self._root = root or Node("")
        self._parent: dict[int, Node | None] = {}
        self._row: dict[int, int] = {}
        self._shown: dict[int, int] = {}  # rows shown of long child lists, by node id
        self._partial: dict[int, Node] = {}  # nodes whose child list is not all shown
        self._everything = False

    def set_root(self, root: Node | None) -> None:
        """Show another tree (a deferred check replaced the header); resets the model."""
        self.beginResetModel()
        self._reset(root)
        self.endResetModel()

    # -- incremental filling ----------------------------------------------
    def _count(self, n: Node) -> int:
        """Rows shown under ``n``: all children, or :data:`FIRST_ROWS` of a long list at first."""
        shown = self._shown.get(id(n))
        if shown is not None:
            return shown
        total = len(n.children)
        if total <= FIRST_ROWS or self._everything:
            return total
        self._shown[id(n)] = FIRST_ROWS
        self._partial[id(n)] = n
        return FIRST_ROWS

    def is_complete(self) -> bool:
        """Every child list asked for so far is shown whole."""
        return not self._partial

    def _parent_index(self, n: Node) -> QModelIndex:
        return QModelIndex() if n is self._root else self.createIndex(self._row[id(n)], 0, n)

    def _show_rows(self, n: Node, upto: int) -> None:
        """Insert the rows of ``n`` up to ``upto`` (exclusive) that are not shown yet."""
        have = self._shown.get(id(n), len(n.children))
        upto = min(upto, len(n.children))
        if upto <= have:
            return
        self.beginInsertRows(self._parent_index(n), have, upto - 1)
        self._shown[id(n)] = upto
        self.endInsertRows()
        if upto >= len(n.children):
            self._partial.pop(id(n), None)

    def canFetchMore(self,
                     parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:  # noqa: N802 - Qt override
        n = self.node(parent)
        return self._count(n) < len(n.children)

    def fetchMore(self,
                  parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> None:  # noqa: N802 - Qt override
        n = self.node(parent)
        self._show_rows(n, self._count(n) + FETCH_ROWS)

    def show_all(self) -> None:
        """Show every row of every node (a filter looks at all of them)."""
        self._everything = True
        for n in list(self._partial.values()):
            self._show_rows(n, len(n.children))

    # -- nodes added later (attribute pages) -----------------------------
    def insert_before(self, n: Node, nodes: list[Node] | tuple[Node, ...],
                      rows: object = None) -> bool:
        """Insert ``nodes`` as siblings just before the shown node ``n`` (an attribute
        page before the row standing for the rest); False when ``n`` is not shown.

        ``rows``: rows made ahead for a model of Qt items
        (:class:`~inspector.models.node_item_model.NodeItemModel`); this model makes
        none, and ignores them (both models take the same arguments)."""
        index = self.index_of_node(n)
        parent = self._parent.get(id(n))
        if not index.isValid() or parent is None:
            return False
        if not nodes:
            return True
        row = index.row()
        shown = self._count(parent)
        self.beginInsertRows(self._parent_index(parent), row, row + len(nodes) - 1)
        parent.children[row:row] = list(nodes)
        self._shown[id(parent)] = shown + len(nodes)  # (counted from now on: rows stay)
        for i in range(row, min(shown + len(nodes), len(parent.children))):
            self._row[id(parent.children[i])] = i  # the rows after the page moved down
        self.endInsertRows()
        return True

    def node_changed(self, n: Node) -> None:
        """``n``'s name, value or details changed: its row is painted again."""
        index = self.index_of_node(n)
        if index.isValid():
            self.dataChanged.emit(index, index.siblingAtColumn(len(COLUMNS) - 1))

    def remove_node(self, n: Node) -> None:
        """Take the shown leaf node ``n`` out of its parent's children."""
        index = self.index_of_node(n)
        parent = self._parent.get(id(n))
        if not index.isValid() or parent is None:
            return
        row = index.row()
        shown = self._count(parent)
        self.beginRemoveRows(self._parent_index(parent), row, row)
        del parent.children[row]
        self._shown[id(parent)] = shown - 1
        for i in range(row, min(shown - 1, len(parent.children))):
            self._row[id(parent.children[i])] = i
        self._row.pop(id(n), None)
        self._parent.pop(id(n), None)
        self.endRemoveRows()

    @property
    def root(self) -> Node:
        return self._root

    def node(self, index: QModelIndex | QPersistentModelIndex) -> Node:
        return index.internalPointer() if index.isValid() else self._root

    # -- structure ------------------------------------------------------
    def index(self, row: int, column: int,
              parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:
        # (called for every row a view lays out or paints: kept to a few lookups)
        p = parent.internalPointer() if parent.isValid() else self._root
        shown = self._shown.get(id(p))
        if shown is None:
            shown = len(p.children)
            if shown > FIRST_ROWS and not self._everything:
                shown = self._count(p)
        if 0 <= row < shown and 0 <= column < _NCOLUMNS:
            child = p.children[row]
            key = id(child)
            self._parent[key] = p
            self._row[key] = row
            return self.createIndex(row, column, child)
        return QModelIndex()

    def parent(  # type: ignore[override]  # (Qt's parent() of a QObject, and of an index)
            self, index: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:
        if not index.isValid():
            return QModelIndex()
        n = index.internalPointer()
        p = self._parent.get(id(n))
        if p is None or p is self._root:
            return QModelIndex()
        return self.createIndex(self._row[id(p)], 0, p)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return self._count(self.node(parent))

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = _D.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _D.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _DISPLAY) -> Any:
        # (a view asks for eight roles of every cell it paints; roles arrive as ints)
        if role not in _ANSWERED or not index.isValid():
            return None
        n: Node = index.internalPointer()
        col = index.column()
        if role == _DISPLAY or role == _TOOLTIP:
            if col == 0:
                return n.name if role == _DISPLAY else (n.location or n.name)
            if col == 1:
                if not has_value(n):
                    return ""
                return value_text(n.value, limit=2000 if role == _TOOLTIP else 200)
            if col == 2:
                return node_type_text(n)
            if col == 3:
                return n.detail
        leaf_value = has_value(n)
        if role == _FOREGROUND and col == 1 and leaf_value:
            if is_unknown(n.value):
                return muted_color()
            if isinstance(n.value, str):
                return kind_color("string")
            return None
        if role == _FOREGROUND and col == 2:
            return muted_color()
        if role == _FONT and col == 1 and leaf_value and is_unknown(n.value):
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
        if role == FilterRole:  # (the filter reads the first column only)
            return filter_text(n) if col == 0 else None
        return None

    def index_of_node(self, n: Node) -> QModelIndex:
        """Index (column 0) of a node of this tree (invalid for the root or foreign nodes).

        Rows on the way to ``n`` that are not shown yet are shown first.
        """
        if n is self._root:
            return QModelIndex()
        if id(n) not in self._row and not self._record_path(n):
            return QModelIndex()
        return self.createIndex(self._row[id(n)], 0, n)

    def _record_path(self, target: Node) -> bool:
        """Find ``target`` from the root, record its ancestors and show their rows."""
        stack: list[tuple[Node, Node | None, int]] = [(self._root, None, 0)]
        seen: dict[int, tuple[Node | None, int]] = {}
        while stack:
            n, p, row = stack.pop()
            seen[id(n)] = (p, row)
            if n is target:
                break
            stack.extend((c, n, i) for i, c in reversed(list(enumerate(n.children))))
        else:
            return False
        path: list[tuple[Node, Node, int]] = []
        node: Node | None = target
        while node is not None and node is not self._root:
            p, row = seen[id(node)]
            assert p is not None
            path.append((node, p, row))
            node = p
        for child, p, row in reversed(path):  # from the root down: parents are known first
            self._count(p)
            self._show_rows(p, row + 1)
            self._parent[id(child)] = p
            self._row[id(child)] = row
        return True

    def index_of_location(self, location: str) -> QModelIndex:
        """The index of the first node whose location is ``location`` (invalid if none)."""
        n = self._root.find(location)
        if n is None or n is self._root:
            return QModelIndex()
        return self.index_of_node(n)
