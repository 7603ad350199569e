"""The findings dock: every finding of every open document, sortable by severity."""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QDockWidget, QHeaderView, QTableView

from inspector.models.findings_model import FindingRole, FindingsModel, SeverityRankRole
from inspector.ui.copy_support import install_copy_actions


class FindingsDock(QDockWidget):
    """Dock with a sortable table of findings.

    Signals:
        finding_activated(object finding, object owner): a row was clicked
        or activated; ``owner`` is the widget showing the finding's document.
    """

    finding_activated = Signal(object, object)

    def __init__(self, parent=None) -> None:
        super().__init__("Findings", parent)
        self.setObjectName("findingsDock")
        self.model = FindingsModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SeverityRankRole)
        self.view = QTableView(self)
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setWordWrap(False)
        self.view.verticalHeader().setVisible(False)
        hh = self.view.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        hh.setStretchLastSection(False)
        self.view.setColumnWidth(0, 90)
        self.view.setColumnWidth(1, 200)
        self.view.setColumnWidth(3, 160)
        self.view.setColumnWidth(4, 170)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        install_copy_actions(self.view, value_column=2)
        self.view.clicked.connect(self._activate)
        self.view.activated.connect(self._activate)
        self.setWidget(self.view)

    def _activate(self, index) -> None:
        f, owner = self.proxy.data(index, FindingRole)
        self.finding_activated.emit(f, owner)

    def set_rows(self, rows) -> None:
        """Replace the findings shown: ``(file label, Finding, owner)`` triples."""
        self.model.set_findings(rows)
        n_err = sum(1 for _, f, _ in rows if f.severity == "error")
        n_warn = sum(1 for _, f, _ in rows if f.severity == "warning")
        self.setWindowTitle(f"Findings ({n_err} errors, {n_warn} warnings)")
