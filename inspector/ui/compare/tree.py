"""The tree of differences of a Compare tab: sections with their counts, then the
differences; the findings of both documents first, then what was not compared and
the checks not made.

A model over the report (:class:`DiffModel`), whose rows are formatted when the view
asks for them: filled with one ``QTreeWidgetItem`` a row, a report of 5 000
differences took 180 ms of the GUI thread, 20 000 took 670 ms.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QTreeView, QWidget

from inspector.formats.compare.model import SECTIONS, Difference, DiffReport
from inspector.formats.compare.text import line
from inspector.ui.columns import fit_columns_to_width

#: Item data role holding the :class:`Difference` of a row.
DIFF_ROLE = Qt.ItemDataRole.UserRole + 1
#: Characters of a value shown in a cell.
CELL_CHARS = 60
#: The tree's columns.
HEADERS = ("Difference", "A", "B")
#: Most rows listed in one section (``inspector diff --json`` lists them all): the
#: view lays out every row of a section it expands, 6-7 µs a row of the GUI thread.
MAX_ROWS = 2000
#: Most rows the tree expands when it shows a report: sections whose rows would pass it
#: stay collapsed (their titles give the counts) until expanded.
EXPANDED_ROWS = 2000

Index = QModelIndex | QPersistentModelIndex


def _short(v: Any) -> str:
    if v is None:
        return ""
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS - 1] + "…"


def _text(entry: Any) -> str:
    """The one-line text of a row spanning the columns: a finding (a dict), a part not
    compared (``section``, ``path``, ``reason``), or a check not made (a string)."""
    if isinstance(entry, dict):
        return f"{entry['severity']} {entry['code']}: {entry['message']}"
    if isinstance(entry, str):
        return entry
    return f"{entry.section} {entry.path}".strip() + f": {entry.reason}"


def _cells(d: Difference) -> tuple[str, str, str]:
    head = line(d) if d.kind == "values" else line(
        Difference(d.section, d.kind, d.path, content=d.content, note=d.note))
    return head, _short(d.a), _short(d.b)


@dataclass
class Group:
    """A top-level row: its title and its rows (differences, or texts spanning the row)."""

    title: str
    entries: list[Any]
    differences: bool = False
    left_out: int = 0  # rows not listed (over MAX_ROWS); a last row says how many
    cache: dict[int, tuple[str, str, str]] = field(default_factory=dict)

    def cells(self, row: int) -> tuple[str, str, str]:
        """The three cells of row ``row`` (formatted once, when first shown)."""
        got = self.cache.get(row)
        if got is None:
            if row == len(self.entries):
                got = (f"… and {self.left_out:,} more (inspector diff --json lists them all)",
                       "", "")
            elif self.differences:
                got = _cells(self.entries[row])
            else:
                got = (_text(self.entries[row]), "", "")
            self.cache[row] = got
        return got

    def rows(self) -> int:
        """The rows shown: the entries, and a last one saying how many were left out."""
        return len(self.entries) + (1 if self.left_out else 0)

    def entry(self, row: int) -> Any:
        """The entry of row ``row`` (None for the row of the entries left out)."""
        return self.entries[row] if row < len(self.entries) else None


def _group(title: str, entries: list[Any], differences: bool = False) -> Group:
    """A group of at most :data:`MAX_ROWS` of ``entries`` (the title counts them all)."""
    left_out = max(0, len(entries) - MAX_ROWS)
    return Group(title, entries[:MAX_ROWS] if left_out else entries, differences, left_out)


def groups_of(report: DiffReport) -> list[Group]:
    """The top-level rows of ``report``, in the report's order (no Qt: a job may make
    them)."""
    out: list[Group] = []
    for label, side in (("A", report.a), ("B", report.b)):
        if side.findings:
            out.append(_group(f"Findings of {label} ({len(side.findings)})", side.findings))
    by_section: dict[str, list[Difference]] = {}
    for d in report.differences:
        by_section.setdefault(d.section, []).append(d)
    for section in SECTIONS:
        diffs = by_section.get(section)
        if diffs:
            content = sum(d.content for d in diffs)
            out.append(_group(f"{section} ({content} content, {len(diffs) - content} "
                              "representation)", diffs, differences=True))
    if report.not_compared:
        out.append(_group(f"Not compared ({len(report.not_compared)})", report.not_compared))
    if report.not_checked:
        out.append(_group(f"Not checked ({len(report.not_checked)})", report.not_checked))
    return out


class DiffModel(QAbstractItemModel):
    """The groups of a report (top-level rows) and their rows.  A row's internal id is
    0 for a group and its group's position + 1 for a row inside it."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.groups: list[Group] = []
        self.muted = QColor()
        self.bold = QFont()
        self.bold.setBold(True)

    def set_groups(self, groups: list[Group], muted: QColor) -> None:
        """Show ``groups``; rows of representation differences in ``muted``."""
        self.beginResetModel()
        self.groups, self.muted = groups, muted
        self.endResetModel()

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Qt override (called once a row by every layout of the view: kept short; the
        view asks only for rows and columns the counts give)."""
        if parent.isValid():
            return self.createIndex(row, column, parent.row() + 1)
        return self.createIndex(row, column, 0)

    def parent(self, child: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """Qt override."""
        group = child.internalId() if child.isValid() else 0
        return self.createIndex(group - 1, 0, 0) if group else QModelIndex()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802,B008
        """Qt override."""
        if not parent.isValid():
            return len(self.groups)
        return 0 if parent.internalId() else self.groups[parent.row()].rows()

    def columnCount(self, _parent: Index = QModelIndex()) -> int:  # noqa: N802,B008
        """Qt override."""
        return len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override: a group's title (bold); a row's cells, tooltip and difference."""
        if not index.isValid():
            return None
        group_id, col = index.internalId(), index.column()
        if not group_id:
            if role == Qt.ItemDataRole.DisplayRole and col == 0:
                return self.groups[index.row()].title
            return self.bold if role == Qt.ItemDataRole.FontRole else None
        group = self.groups[group_id - 1]
        if role == Qt.ItemDataRole.DisplayRole:
            return group.cells(index.row())[col]
        entry = group.entry(index.row()) if group.differences else None
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            return line(entry) if entry is not None else group.cells(index.row())[0]
        if role == DIFF_ROLE:
            return entry
        if role == Qt.ItemDataRole.ForegroundRole and entry is not None and not entry.content:
            return self.muted
        return None


class DiffTree(QTreeView):
    """Sections of a :class:`DiffReport`, each with its differences as rows.

    Signals:
        selection_changed(): another row was selected.
    """

    selection_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.diff_model = DiffModel(self)
        self.setModel(self.diff_model)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.selectionModel().selectionChanged.connect(lambda *_: self.selection_changed.emit())
        # A and B stay in view side by side: the difference's name gives up room first
        # (its tooltip and the detail pane have it in full), then both values alike
        fit_columns_to_width(self, shrink=((0, 0.4), (1, 0.25), (2, 0.25)))

    def show_report(self, report: DiffReport, groups: list[Group] | None = None) -> None:
        """Fill the tree from ``report`` (GUI thread), or from its ``groups`` made ahead
        (:func:`groups_of`, on a job)."""
        groups = groups_of(report) if groups is None else groups
        self.diff_model.set_groups(groups, self.palette().color(QPalette.ColorRole.PlaceholderText))
        root, budget = QModelIndex(), EXPANDED_ROWS
        for g, group in enumerate(groups):
            self.setFirstColumnSpanned(g, root, True)  # a section's counts whole across
            top = self.diff_model.index(g, 0)
            # a text's row, and the row saying how many were left out, span the columns
            for row in range(len(group.entries) if group.differences else 0, group.rows()):
                self.setFirstColumnSpanned(row, top, True)
            if group.rows() <= budget:
                budget -= group.rows()
                self.expand(top)

    def rows(self) -> list[QModelIndex]:
        """Every row, in the order shown: each group, then its rows."""
        out: list[QModelIndex] = []
        for g in range(self.diff_model.rowCount()):
            top = self.diff_model.index(g, 0)
            out.append(top)
            out.extend(self.diff_model.index(r, 0, top)
                       for r in range(self.diff_model.rowCount(top)))
        return out

    def selected_difference(self) -> Difference | None:
        """The difference of the selected row, or None."""
        rows = self.selectionModel().selectedRows()
        value = rows[0].data(DIFF_ROLE) if rows else None
        return value if isinstance(value, Difference) else None

    def select_path(self, section: str, path: str) -> bool:
        """Select the row of the difference at ``path`` in ``section``; False if none."""
        for g, group in enumerate(self.diff_model.groups):
            if not group.differences:
                continue
            for row, d in enumerate(group.entries):
                if d.section == section and d.path == path:
                    top = self.diff_model.index(g, 0)
                    self.setCurrentIndex(self.diff_model.index(row, 0, top))
                    return True
        return False
