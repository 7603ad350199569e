"""Table model over findings: severity, code, message, location, file.

Rows are ``(file label, Finding, owner)`` triples; ``owner`` is whatever
shows the finding's document (the window's document tab), handed back when
a row is activated.  Messages never name the file (the readers do not put
it there, docs/architecture.md "Findings"); the File column says which
document a row belongs to and is shown only when several documents are
listed together.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt

from inspector.formats.findings import SEVERITIES, Finding, Severity
from inspector.models.multi_data import OneEntryPerCell
from inspector.models.roles import CopyRole, LocationRole, NameRole
from inspector.models.style import severity_icon

COLUMNS = ("Severity", "Code", "Message", "Location", "File")
#: Column of the file label (hidden unless several files are listed).
FILE_COLUMN = COLUMNS.index("File")
SeverityRankRole = Qt.ItemDataRole.UserRole + 10
FindingRole = Qt.ItemDataRole.UserRole + 11

#: What a severity is called in the window ("info" findings are notes).
SEVERITY_WORD = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}

#: One row: the file label, the finding, and the widget showing its document.
Row = tuple[str, Finding, Any]


def count_text(n: int, word: str) -> str:
    """``"1 error"``, ``"2 errors"``, ``"0 notes"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def severity_counts(findings: Iterable[Finding]) -> dict[Severity, int]:
    """How many findings of each severity, every severity present (most severe first)."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for f in findings:
        counts[f.severity] += 1
    return counts


def severity_counts_text(findings: Iterable[Finding]) -> str:
    """``"1 error, 2 warnings, 1 note"``: the severities that occur, or ``"no findings"``."""
    counts = severity_counts(findings)
    parts = [count_text(n, SEVERITY_WORD[s]) for s, n in counts.items() if n]
    return ", ".join(parts) if parts else "no findings"


def finding_detail_text(finding: Finding, file_label: str = "") -> str:
    """The full text of a finding for the detail pane: message, where, code, rule."""
    lines = [finding.message, ""]
    if file_label:
        lines.append(f"file: {file_label}")
    lines.append(f"location: {finding.location or '(the file as a whole)'}")
    lines.append(f"severity: {SEVERITY_WORD[finding.severity]} ({finding.scope} check)")
    lines.append(f"code: {finding.code}")
    lines.append(f"rule: {finding.rule or '(no rule source recorded)'}")
    return "\n".join(lines)


class FindingsModel(OneEntryPerCell, QAbstractTableModel):
    """Rows are ``(file label, Finding, owner)`` triples.

    Sorting by the Severity column orders errors before warnings before info
    (through :data:`SeverityRankRole`, used as the proxy's sort role).
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Row] = []

    def set_findings(self, rows: Iterable[Row]) -> None:
        """Replace the rows: ``(file label, finding, owner)`` triples."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 - Qt API
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt API
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def finding(self, row: int) -> Row:
        """The ``(file label, finding, owner)`` of ``row``."""
        return self._rows[row]

    def findings(self) -> list[Finding]:
        """Every finding listed, in row order."""
        return [f for _, f, _ in self._rows]

    def _text(self, row: Row, col: int) -> str:
        label, f, _owner = row
        return (SEVERITY_WORD[f.severity], f.code, f.message, f.location, label)[col]

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        _label, f, owner = row
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, CopyRole):
            return self._text(row, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{f.message}\n\nrule: {f.rule}" if col == 2 and f.rule else self._text(row, col)
        if role == SeverityRankRole:
            return SEVERITIES.index(f.severity) if col == 0 else self._text(row, col)
        if role == FindingRole:
            return (f, owner)
        if role == LocationRole:
            return f.location
        if role == NameRole:
            return f.code
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return severity_icon(f.severity)
        return None
