"""The rows of a node tree as Qt's own items, built on any thread.

A tree view paints through its model: with a Python model every painted
cell is a call into Python, and each call waits for the interpreter lock
while a background job runs Python (``benchmarks/gil_convoy.py``).  Rows
held in ``QStandardItem``\\ s are painted by Qt alone.  Making the items
is the expensive part (about 50-100 us a node), so it is done off the GUI
thread where it can be: items that belong to no model are plain data
(``QStandardItem`` is not a ``QObject``), and the GUI thread then adds the
finished rows to a model in one call (docs/architecture.md, "Threads").

Each row has the four columns of :data:`~inspector.models.node_tree_model.COLUMNS`
and answers the roles :class:`~inspector.models.node_tree_model.NodeTreeModel`
answers, with the same values, except ``ValueRole`` (Qt cannot hold every
Python value: integers beyond 64 bits raise) and the value column's
``CopyRole``, a :class:`FullValueText` whose ``str()`` is the full text.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QStandardItem

from inspector.formats.document import Node
from inspector.models.node_tree_model import (
    COLUMNS,
    filter_text,
    has_value,
    node_full_text,
    node_type_text,
)
from inspector.models.roles import (
    CopyRole,
    FilterRole,
    LocationRole,
    MissingRole,
    NameRole,
    NodeRole,
)
from inspector.models.style import italic_font, kind_color, muted_color
from inspector.models.value_text import is_unknown, value_text

#: Most nodes a tree may have to be held as Qt items; a larger one is shown through the
#: lazily filled :class:`~inspector.models.node_tree_model.NodeTreeModel`.
ITEM_TREE_NODES = 5_000
#: Deepest tree held as Qt items: Qt frees an item by walking everything under it,
#: level by level, so freeing a chain of items takes time that grows faster than the
#: square of its depth (a chain 2 000 deep: seconds).  Real trees are a few levels deep.
ITEM_TREE_DEPTH = 64
#: Most characters of names, locations and details a tree held as Qt items may have:
#: each is held several times over (shown, searched, copied), as UTF-16.  Values are
#: held cut (200, 500 and 2 000 characters); "Copy value" makes the full text when asked.
ITEM_TREE_CHARS = 2_000_000
#: Most nodes made into items on the GUI thread when no rows were built ahead
#: (about 5-10 ms); a larger tree without rows is shown lazily.
GUI_BUILD_NODES = 120

_D = Qt.ItemDataRole
_FLAGS = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled


@dataclass(frozen=True)
class RowStyle:
    """The colours and font the rows are drawn with, taken from the palette.

    Read on the GUI thread (:meth:`current`); the values are then plain
    data that any thread may put into items.
    """

    muted: QColor
    string: QColor
    italic: QFont

    @classmethod
    def current(cls) -> RowStyle:
        """The style of the application palette now (GUI thread)."""
        return cls(QColor(muted_color()), QColor(kind_color("string")), italic_font())


def cell_roles(n: Node, style: RowStyle) -> tuple[dict[int, Any], ...]:
    """The role values of the four cells of ``n``'s row, as
    :meth:`NodeTreeModel.data <inspector.models.node_tree_model.NodeTreeModel.data>`
    gives them (no ``ValueRole``; :data:`FilterRole` on the first cell, the one the
    filter reads)."""
    leaf = has_value(n)
    unknown = leaf and is_unknown(n.value)
    type_text = node_type_text(n)
    common: dict[int, Any] = {int(NodeRole): n, int(LocationRole): n.location,
                              int(NameRole): n.name, int(MissingRole): unknown}
    name = {int(_D.DisplayRole): n.name, int(_D.ToolTipRole): n.location or n.name,
            int(CopyRole): n.name, int(FilterRole): filter_text(n)}
    value = {int(_D.DisplayRole): value_text(n.value, limit=200) if leaf else "",
             int(_D.ToolTipRole): value_text(n.value, limit=2000) if leaf else "",
             int(CopyRole): FullValueText(n)}
    kind = {int(_D.DisplayRole): type_text, int(_D.ToolTipRole): type_text,
            int(CopyRole): type_text}
    detail = {int(_D.DisplayRole): n.detail, int(_D.ToolTipRole): n.detail,
              int(CopyRole): n.detail}
    cells: tuple[dict[int, Any], ...] = (name, value, kind, detail)
    return tuple(common | cell | colours
                 for cell, colours in zip(cells, cell_colours(n, style), strict=True))


def cell_colours(n: Node, style: RowStyle) -> tuple[dict[int, Any], ...]:
    """The colour and font roles of the four cells of ``n``'s row: strings coloured,
    missing values greyed italic, the type column greyed (what a theme switch sets
    again)."""
    leaf = has_value(n)
    value: dict[int, Any] = {}
    if leaf and is_unknown(n.value):
        value = {int(_D.ForegroundRole): style.muted, int(_D.FontRole): style.italic}
    elif leaf and isinstance(n.value, str):
        value = {int(_D.ForegroundRole): style.string}
    return {}, value, {int(_D.ForegroundRole): style.muted}, {}


def fill_item(item: QStandardItem, roles: dict[int, Any]) -> None:
    """Set ``roles`` on ``item`` (a cell whose node changed gets all of them again)."""
    for role, value in roles.items():
        item.setData(value, role)


def make_row(n: Node, style: RowStyle) -> list[QStandardItem]:
    """The four items of ``n``'s row (no children yet), read-only."""
    row = []
    for roles in cell_roles(n, style):
        item = QStandardItem()
        item.setFlags(_FLAGS)
        fill_item(item, roles)
        row.append(item)
    return row


@dataclass
class TreeRows:
    """Rows built for some nodes of a tree, with every descendant's row under them.

    Attributes:
        rows: one row (four items) per node, in order; each holds its
            children's rows, and so on down.
        items: ``id(node) -> column-0 item`` of every node built.
        style: what the rows were drawn with.
    """

    rows: list[list[QStandardItem]] = field(default_factory=list)
    items: dict[int, QStandardItem] = field(default_factory=dict)
    style: RowStyle | None = None


def count_nodes(nodes: Iterable[Node], limit: int, max_depth: int | None = None,
                max_chars: int | None = None) -> int:
    """How many nodes ``nodes`` and their descendants are, counting at most ``limit + 1``;
    ``limit + 1`` too when a node lies deeper than ``max_depth`` (``nodes`` at depth 1)
    or their names, locations and details hold more than ``max_chars`` characters."""
    stack = [(n, 1) for n in nodes]
    count = chars = 0
    while stack and count <= limit:
        n, depth = stack.pop()
        chars += len(n.name) + len(n.location) + len(n.detail)
        if (max_depth is not None and depth > max_depth) \
                or (max_chars is not None and chars > max_chars):
            return limit + 1
        count += 1
        stack.extend((c, depth + 1) for c in n.children)
    return count


class FullValueText:
    """The untruncated value text of a node, made when asked for (``str()``), as
    "Copy value" copies it: it can be a million characters, and is rarely asked for."""

    __slots__ = ("node",)

    def __init__(self, node: Node) -> None:
        self.node = node

    def __str__(self) -> str:
        return node_full_text(self.node)


def build_rows(nodes: Sequence[Node], style: RowStyle,
               limit: int | None = ITEM_TREE_NODES) -> TreeRows | None:
    """The rows of ``nodes`` and all their descendants; None when they are more than
    ``limit`` nodes (None: no limit), deeper than :data:`ITEM_TREE_DEPTH` below them or
    with more than :data:`ITEM_TREE_CHARS` characters of names, locations and details.
    Runs on any thread: the items belong to no model yet."""
    bound = sys.maxsize - 1 if limit is None else limit
    if count_nodes(nodes, bound, ITEM_TREE_DEPTH, ITEM_TREE_CHARS) > bound:
        return None
    built = TreeRows(style=style)
    pending: list[tuple[Node, QStandardItem | None]] = [(n, None) for n in reversed(nodes)]
    while pending:  # (iterative: a chain 10 000 deep is fine)
        n, parent = pending.pop()
        row = make_row(n, style)
        built.items[id(n)] = row[0]
        if parent is None:
            built.rows.append(row)
        else:
            parent.appendRow(row)
        pending.extend((c, row[0]) for c in reversed(n.children))
    return built


def tree_rows(root: Node | None, style: RowStyle,
              limit: int = ITEM_TREE_NODES) -> TreeRows | None:
    """:func:`build_rows` for the children of ``root`` (None for no tree or too many nodes)."""
    return None if root is None else build_rows(root.children, style, limit)


__all__ = ["COLUMNS", "GUI_BUILD_NODES", "ITEM_TREE_CHARS", "ITEM_TREE_DEPTH", "ITEM_TREE_NODES",
           "FullValueText", "RowStyle", "TreeRows", "build_rows", "cell_colours", "cell_roles",
           "count_nodes", "filter_text", "make_row", "tree_rows"]
