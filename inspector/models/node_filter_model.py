"""Recursive name/value/location filter over a node tree model.

The filtering itself is Qt's: each row's :data:`~inspector.models.roles.FilterRole`
(its lowercased name, location and value text) is searched for the lowercased
filter text as a plain substring, so no row enters Python to be filtered
unless its model is a Python one.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QObject, QSortFilterProxyModel, Qt

from inspector.models.multi_data import OneEntryPerCell, ProxyOneEntryPerCell
from inspector.models.roles import FilterRole


class ItemFilterProxy(QSortFilterProxyModel):
    """Keeps nodes whose name, value text or location contains the filter text.

    Case-insensitive (both sides lowercased, as Python's ``str.lower``);
    parents of a match stay visible (recursive filtering) and the children of
    a matching node stay visible too, so that filtering on a group name still
    shows its content.  Used as is over a model of Qt items
    (:class:`~inspector.models.node_item_model.NodeItemModel`): no method is
    overridden in Python, so painting through it never enters Python.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setAutoAcceptChildRows(True)
        self.setFilterRole(int(FilterRole))
        self.setFilterKeyColumn(0)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseSensitive)
        self._needle = ""

    def set_text(self, text: str) -> None:
        """Set the filter text (empty shows everything).

        A filter looks at every node: rows of long child lists that are not
        shown yet (:class:`~inspector.models.node_tree_model.NodeTreeModel`
        fills in as rows are scrolled to) are shown first.
        """
        source = self.sourceModel()
        if text.strip() and hasattr(source, "show_all"):
            source.show_all()
        self._needle = text.strip().lower()
        self.setFilterFixedString(self._needle)

    @property
    def text(self) -> str:
        return self._needle


class NodeFilterProxy(ProxyOneEntryPerCell, ItemFilterProxy):
    """:class:`ItemFilterProxy` over a Python model
    (:class:`~inspector.models.node_tree_model.NodeTreeModel`): a painted cell asks
    the model for all its roles in one call (``ProxyOneEntryPerCell``)."""


def filter_proxy_for(model: QAbstractItemModel, parent: QObject | None = None) -> ItemFilterProxy:
    """The filter proxy that suits ``model``: :class:`NodeFilterProxy` over a Python
    model (``multiData`` overridden in Python), :class:`ItemFilterProxy` otherwise."""
    proxy = NodeFilterProxy(parent) if isinstance(model, OneEntryPerCell) \
        else ItemFilterProxy(parent)
    proxy.setSourceModel(model)
    return proxy
