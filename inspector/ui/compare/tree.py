"""The tree of differences of a Compare tab: sections with their counts, then the
differences; the findings of both documents first, then what was not compared and
the checks not made."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from inspector.formats.compare.model import SECTIONS, Difference, DiffReport
from inspector.formats.compare.text import line
from inspector.ui.columns import fit_columns_to_width

#: Item data role holding the :class:`Difference` of a row.
DIFF_ROLE = Qt.ItemDataRole.UserRole + 1
#: Characters of a value shown in a cell.
CELL_CHARS = 60


def _short(v: Any) -> str:
    if v is None:
        return ""
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS - 1] + "…"


class DiffTree(QTreeWidget):
    """Sections of a :class:`DiffReport`, each with its differences as rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(3)
        self.setHeaderLabels(["Difference", "A", "B"])
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        # A and B stay in view side by side: the difference's name gives up room first
        # (its tooltip and the detail pane have it in full), then both values alike
        fit_columns_to_width(self, shrink=((0, 0.4), (1, 0.25), (2, 0.25)))

    def show_report(self, report: DiffReport) -> None:
        """Fill the tree from ``report`` (GUI thread)."""
        self.clear()
        for label, side in (("A", report.a), ("B", report.b)):
            if side.findings:
                top = self._top(f"Findings of {label} ({len(side.findings)})")
                for f in side.findings:
                    text = f"{f['severity']} {f['code']}: {f['message']}"
                    item = QTreeWidgetItem(top, [text])
                    item.setFirstColumnSpanned(True)
                    item.setToolTip(0, text)
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
        for section in SECTIONS:
            diffs = [d for d in report.differences if d.section == section]
            if not diffs:
                continue
            content = sum(d.content for d in diffs)
            top = self._top(f"{section} ({content} content, {len(diffs) - content} "
                            "representation)")
            for d in diffs:
                head = line(d) if d.kind == "values" else line(
                    Difference(d.section, d.kind, d.path, content=d.content, note=d.note))
                item = QTreeWidgetItem(top, [head, _short(d.a), _short(d.b)])
                item.setData(0, DIFF_ROLE, d)
                item.setToolTip(0, line(d))
                if not d.content:
                    for col in range(3):
                        item.setForeground(col, muted)
        if report.not_compared:
            top = self._top(f"Not compared ({len(report.not_compared)})")
            for n in report.not_compared:
                text = f"{n.section} {n.path}".strip() + f": {n.reason}"
                item = QTreeWidgetItem(top, [text])
                item.setFirstColumnSpanned(True)
                item.setToolTip(0, text)
        if report.not_checked:
            top = self._top(f"Not checked ({len(report.not_checked)})")
            for text in report.not_checked:
                item = QTreeWidgetItem(top, [text])
                item.setFirstColumnSpanned(True)
                item.setToolTip(0, text)
        self.expandAll()

    def _top(self, text: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self, [text])
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        item.setFirstColumnSpanned(True)  # a section's counts are whole across the row
        return item

    def selected_difference(self) -> Difference | None:
        """The difference of the selected row, or None."""
        items = self.selectedItems()
        value = items[0].data(0, DIFF_ROLE) if items else None
        return value if isinstance(value, Difference) else None

    def select_path(self, section: str, path: str) -> bool:
        """Select the row of the difference at ``path`` in ``section``; False if none."""
        for i in range(self.topLevelItemCount()):
            top = self.topLevelItem(i)
            for j in range(top.childCount() if top is not None else 0):
                child = top.child(j) if top is not None else None
                d = child.data(0, DIFF_ROLE) if child is not None else None
                if child is not None and isinstance(d, Difference) and d.section == section \
                        and d.path == path:
                    self.setCurrentItem(child)
                    return True
        return False
