"""Every role of a cell in one call into Python (``QAbstractItemModel.multiData``).

A delegate asks for seven roles of each cell it paints (display, decoration,
font, alignment, colours, check state) through ``multiData``, whose default
calls ``data`` once a role: seven entries from C++ into Python a cell.  Each
entry takes the interpreter lock, and while a background thread runs Python
each waits for that thread's turn (``benchmarks/gil_convoy.py``).  Answering
them in one entry makes a paint beside a busy job several times cheaper.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QPersistentModelIndex,
)


class OneEntryPerCell:
    """Mixin for a Python item model: ``multiData`` fills every asked role from one
    call into Python, each through the model's own ``data`` (same answers).

    Put it before the Qt model class in the bases.
    """

    def multiData(self, index: QModelIndex | QPersistentModelIndex,  # noqa: N802 - Qt API
                  roleDataSpan: QModelRoleDataSpan | QModelRoleData) -> None:  # noqa: N803
        data: Any = self.data  # type: ignore[attr-defined]
        if isinstance(roleDataSpan, QModelRoleData):
            roleDataSpan.setData(data(index, roleDataSpan.role()))
            return
        for role_data in roleDataSpan:  # type: ignore[attr-defined]  # (iterable in PySide6)
            role_data.setData(data(index, role_data.role()))


class ProxyOneEntryPerCell:
    """Mixin for a ``QSortFilterProxyModel`` over a model with :class:`OneEntryPerCell`:
    ``multiData`` maps the cell and asks the source for every role in one call (the
    proxy's own ``multiData`` would ask its ``data``, one entry a role).

    Put it before the Qt proxy class in the bases.
    """

    def multiData(self, index: QModelIndex | QPersistentModelIndex,  # noqa: N802 - Qt API
                  roleDataSpan: QModelRoleDataSpan | QModelRoleData) -> None:  # noqa: N803
        proxy: Any = self
        source = proxy.sourceModel()
        if source is None:
            return
        source.multiData(proxy.mapToSource(index), roleDataSpan)

