"""Recursive name/value/location filter over a :class:`NodeTreeModel`."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel

from inspector.formats.document import Node
from inspector.models.multi_data import ProxyOneEntryPerCell
from inspector.models.roles import NodeRole
from inspector.models.value_text import value_text


class NodeFilterProxy(ProxyOneEntryPerCell, QSortFilterProxyModel):
    """Keeps nodes whose name, value text or location contains the filter text.

    Case-insensitive; parents of a match stay visible (recursive filtering)
    and the children of a matching node stay visible too, so that filtering
    on a group name still shows its content.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setAutoAcceptChildRows(True)
        self._needle = ""

    def set_text(self, text: str) -> None:
        """Set the filter text (empty shows everything).

        A filter looks at every node: rows of long child lists that are not
        shown yet (:class:`NodeTreeModel` fills in as rows are scrolled to)
        are shown first.
        """
        source = self.sourceModel()
        if text.strip() and hasattr(source, "show_all"):
            source.show_all()
        self.beginFilterChange()
        self._needle = text.strip().lower()
        self.endFilterChange()

    @property
    def text(self) -> str:
        return self._needle

    def filterAcceptsRow(self, row: int, parent: QModelIndex) -> bool:  # noqa: N802
        if not self._needle:
            return True
        idx = self.sourceModel().index(row, 0, parent)
        n: Node | None = self.sourceModel().data(idx, NodeRole)
        if n is None:
            return False
        needle = self._needle
        if needle in n.name.lower() or needle in n.location.lower():
            return True
        if n.value is not None and needle in value_text(n.value, limit=500).lower():
            return True
        return False
