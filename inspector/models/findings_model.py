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

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel

from inspector.formats.findings import SEVERITIES, Finding, Severity
from inspector.models.roles import CopyRole, LocationRole, NameRole
from inspector.models.style import severity_icon

COLUMNS = ("Severity", "Code", "Message", "Location", "File")
#: Column of the file label (hidden unless several files are listed).
FILE_COLUMN = COLUMNS.index("File")
SeverityRankRole = Qt.ItemDataRole.UserRole + 10

#: What a severity is called in the window ("info" findings are notes).
SEVERITY_WORD = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}

#: One row: the file label, the finding, and the widget showing its document.
Row = tuple[str, Finding, Any]


def count_text(n: int, word: str) -> str:
    """``"1 error"``, ``"2 errors"``, ``"0 notes"``."""
    return f"{n} {word}" if n == 1 else f"{n:,} {word}s"


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


class FindingsModel(QStandardItemModel):
    """Rows are ``(file label, Finding, owner)`` triples, in the order given.

    The cells are Qt's own items, so that sorting (through the dock's
    ``QSortFilterProxyModel``) and painting never call into Python: a reset
    re-sorts every row, and each comparison into a Python model waited for the
    interpreter lock while a job ran Python (tens of ms for a hundred findings
    beside a verification).  Sorting by the Severity column orders errors
    before warnings before info (through :data:`SeverityRankRole`, the proxy's
    sort role).
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self._rows: list[Row] = []

    def set_findings(self, rows: Iterable[Row]) -> None:
        """Replace the rows: ``(file label, finding, owner)`` triples (one model reset)."""
        self._rows = list(rows)
        cells = [self._cells(row) for row in self._rows]
        self.beginResetModel()
        blocked = self.blockSignals(True)  # (the reset says it all)
        try:
            self.setRowCount(0)
            for items in cells:
                self.appendRow(items)
        finally:
            self.blockSignals(blocked)
        self.endResetModel()

    @staticmethod
    def _cells(row: Row) -> list[QStandardItem]:
        label, f, _owner = row
        texts = (SEVERITY_WORD[f.severity], f.code, f.message, f.location, label)
        items = []
        for col, text in enumerate(texts):
            item = QStandardItem(text)
            item.setEditable(False)
            item.setData(text, CopyRole)
            tip = f"{f.message}\n\nrule: {f.rule}" if col == 2 and f.rule else text
            item.setData(tip, Qt.ItemDataRole.ToolTipRole)
            item.setData(SEVERITIES.index(f.severity) if col == 0 else text, SeverityRankRole)
            item.setData(f.location, LocationRole)
            item.setData(f.code, NameRole)
            items.append(item)
        items[0].setData(severity_icon(f.severity), Qt.ItemDataRole.DecorationRole)
        return items

    def finding(self, row: int) -> Row:
        """The ``(file label, finding, owner)`` of ``row``."""
        return self._rows[row]

    def findings(self) -> list[Finding]:
        """Every finding listed, in row order."""
        return [f for _, f, _ in self._rows]
