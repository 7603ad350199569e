"""A cell's roles in one call into Python (inspector.models.multi_data)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QModelRoleData,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QTreeView

from inspector.formats.document import MemberCheck
from inspector.formats.table import Table
from inspector.models.checksum_model import ChecksumModel
from inspector.models.multi_data import OneEntryPerCell
from inspector.models.node_filter_model import NodeFilterProxy
from inspector.models.node_tree_model import NodeTreeModel
from inspector.models.roles import CopyRole, LocationRole, MissingRole, NodeRole, ValueRole
from inspector.models.table_model import TableModel
from tests.test_views_models import _tree  # the typed-values tree those tests use

D = Qt.ItemDataRole
#: The roles a delegate asks for, and the models' own roles.
ROLES = [D.DisplayRole, D.DecorationRole, D.EditRole, D.ToolTipRole, D.FontRole,
         D.TextAlignmentRole, D.BackgroundRole, D.ForegroundRole, D.CheckStateRole,
         NodeRole, LocationRole, ValueRole, MissingRole, CopyRole]


def _cells(model, parent=QModelIndex()):
    for row in range(model.rowCount(parent)):
        for col in range(model.columnCount(parent)):
            index = model.index(row, col, parent)
            yield index
            if col == 0:
                yield from _cells(model, index)


def base_multi_data(model, index, role_data) -> None:
    """Qt's default ``multiData`` (of the proxy or model class beneath the mixin)."""
    base = QSortFilterProxyModel if isinstance(model, QSortFilterProxyModel) \
        else QAbstractItemModel
    base.multiData(model, index, role_data)


def _same(got, expected) -> bool:
    if isinstance(expected, QIcon):
        return isinstance(got, QIcon) and got.cacheKey() == expected.cacheKey()
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(got, float) and math.isnan(got)
    if got is expected:
        return True
    return type(got) is type(expected) and bool(got == expected)


def _same_answers(model) -> int:
    """Every role of every cell: ``multiData`` answers what ``data`` answers."""
    checked = 0
    for index in _cells(model):
        for role in ROLES:
            asked, reference = QModelRoleData(int(role)), QModelRoleData(int(role))
            model.multiData(index, asked)
            base_multi_data(model, index, reference)  # Qt's own: one ``data`` call a role
            assert _same(asked.data(), reference.data()), (index.row(), role)
            checked += 1
    return checked


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"trial": [1, 2, 3], "rt": [0.5, None, 0.25],
                         "label": pd.array(["a", None, ""], dtype="string")})


@pytest.mark.parametrize("make", [
    lambda: NodeTreeModel(_tree()),
    lambda: TableModel(Table.of_frame(_frame())),
    lambda: ChecksumModel([MemberCheck("manifest.json", "a" * 64),
                           MemberCheck("arrays/signal.npy", "b" * 64, "c" * 64, "mismatch")]),
], ids=["tree", "dataframe", "checksums"])
def test_multi_data_answers_what_data_answers(qapp, make):
    model = make()
    assert isinstance(model, OneEntryPerCell)
    assert _same_answers(model) >= 3 * len(ROLES)


def test_a_proxy_answers_through_its_source_in_one_call(qapp):
    source = NodeTreeModel(_tree())
    proxy = NodeFilterProxy()
    proxy.setSourceModel(source)
    assert _same_answers(proxy) >= 5 * len(ROLES)


def test_a_delegate_enters_python_once_a_cell(qtbot, monkeypatch):
    source = NodeTreeModel(_tree())
    proxy = NodeFilterProxy()
    proxy.setSourceModel(source)
    entries: list[int] = []
    data_calls: list[int] = []
    multi = OneEntryPerCell.multiData

    def counted(self, index, span):
        entries.append(index.row())
        multi(self, index, span)

    monkeypatch.setattr(OneEntryPerCell, "multiData", counted)
    view = QTreeView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    view.expandAll()
    index = proxy.index(0, 1, proxy.index(0, 0))  # group/as_int, its value
    option = QStyleOptionViewItem()
    original = NodeTreeModel.data
    monkeypatch.setattr(NodeTreeModel, "data",
                        lambda self, i, role=0: data_calls.append(role) or original(self, i, role))
    entries.clear()
    QStyledItemDelegate().initStyleOption(option, index)
    assert option.text == "1"
    assert len(entries) == 1  # one entry into Python for the cell
    assert len(data_calls) >= 5  # ... that answered all the roles the delegate asked for
