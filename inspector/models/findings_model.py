"""Table model over a document's findings: severity, code, message, location."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from inspector.formats.document import SEVERITIES, Finding
from inspector.models.roles import CopyRole, LocationRole, NameRole

COLUMNS = ("Severity", "Code", "Message", "Location", "File")
SeverityRankRole = Qt.ItemDataRole.UserRole + 10
FindingRole = Qt.ItemDataRole.UserRole + 11


class FindingsModel(QAbstractTableModel):
    """Rows are ``(file name, Finding)`` pairs of every open document.

    Sorting by the Severity column orders errors before warnings before info
    (through :data:`SeverityRankRole`, used as the proxy's sort role).
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, Finding, object]] = []

    def set_findings(self, rows: list[tuple[str, Finding, object]]) -> None:
        """Replace the rows: ``(file label, finding, owner)`` triples."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def finding(self, row: int) -> tuple[str, Finding, object]:
        return self._rows[row]

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        label, f, owner = self._rows[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return (f.severity, f.code, f.message, f.location, label)[col]
        if role == SeverityRankRole:
            if col == 0:
                return SEVERITIES.index(f.severity)
            return self.data(index, Qt.ItemDataRole.DisplayRole)
        if role == FindingRole:
            return (f, owner)
        if role == CopyRole:
            return (f.severity, f.code, f.message, f.location, label)[col]
        if role == LocationRole:
            return f.location
        if role == NameRole:
            return f.code
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            from inspector.ui.icons import severity_icon

            return severity_icon(f.severity)
        return None
