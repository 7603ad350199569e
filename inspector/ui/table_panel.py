"""Table view of a document's table (trial metadata, scans) with a filter box and sorting."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from inspector.models.table_model import TableModel
from inspector.ui.columns import fit_table_columns
from inspector.ui.copy_support import install_copy_actions

if TYPE_CHECKING:
    from inspector.formats.table import Table


class TablePanel(QWidget):
    """A filter box, a row count and a sortable table view over ``table``.

    Sorting happens in the model (NumPy argsort), so clicking a header of a
    100 000-row table does not walk every row through a proxy.

    Signals:
        cell_selected(str title, object value, str extra): current cell changed.
        rows_chosen(object positions): the table positions (int64, ascending)
            of the selected rows or, when none is selected and a filter is
            set, of the rows the filter keeps; empty for none.  Not emitted
            for :meth:`select_rows`.
    """

    cell_selected = Signal(str, object, str)
    rows_chosen = Signal(object)

    def __init__(self, table: Table, title: str, location: str = "", parent: QWidget | None = None,
                 columns: dict[int, np.ndarray] | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.location = location
        self.model = TableModel(table, self, columns)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText(f"Filter {title.lower()} rows (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setAccessibleName(f"Filter {title}")
        self.count = QLabel(self)
        self._timer = QTimer(self, singleShot=True, interval=200)
        self._timer.timeout.connect(self.apply_filter_now)
        self.filter_edit.textChanged.connect(lambda _t: self._timer.start())
        self.view = QTableView(self)
        self.view.setAccessibleName(title)
        self.view.setModel(self.model)
        hh = self.view.horizontalHeader()
        hh.setSortIndicatorClearable(True)
        hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        vh = self.view.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.horizontalHeader().setDefaultSectionSize(110)
        fit_table_columns(self.view)
        install_copy_actions(self.view, value_column=None, with_location=False)
        self.view.selectionModel().currentChanged.connect(self._current)
        self._syncing = False
        self._chosen = np.empty(0, dtype=np.int64)
        self.view.selectionModel().selectionChanged.connect(self._emit_rows)
        # sorting moves rows under the selection: keep the chosen rows chosen
        self.model.layoutAboutToBeChanged.connect(self._hold)
        self.model.layoutChanged.connect(self._reselect)
        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.count)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(top)
        lay.addWidget(self.view, 1)
        self.setTabOrder(self.filter_edit, self.view)
        self._update_count()

    def apply_filter_now(self) -> None:
        self._timer.stop()
        self.model.set_filter(self.filter_edit.text())
        self._update_count()
        self._emit_rows()

    def _update_count(self) -> None:
        n = len(self.model.table)
        shown = self.model.rowCount()
        cols = self.model.columnCount()
        self.count.setText(f"{shown:,} of {n:,} rows × {cols:,} columns" if shown != n
                           else f"{n:,} rows × {cols:,} columns")

    def _current(self, cur: QModelIndex, _prev: QModelIndex) -> None:
        if not cur.isValid():
            return
        r, c = cur.row(), cur.column()
        col = self.model.labels[c]
        dtype = self.model.dtype_names[c]
        row_label = self.model.headerData(r, Qt.Orientation.Vertical)
        self.cell_selected.emit(f"{self.title}[{row_label}, {col!s}]", self.model.value(r, c),
                                f"column {col!s}, dtype {dtype}")

    # -- rows chosen (linked selection) ----------------------------------------
    def selected_positions(self) -> np.ndarray:
        """int64 table positions of the rows with a selected cell, ascending."""
        parts = [np.arange(r.top(), r.bottom() + 1)
                 for r in self.view.selectionModel().selection()]  # type: ignore[attr-defined]
        rows = np.unique(np.concatenate(parts)) if parts else np.empty(0, np.int64)
        return np.sort(self.model.source_rows(rows))

    def chosen_positions(self) -> np.ndarray:
        """What :attr:`rows_chosen` reports: the selected rows, else the filtered ones."""
        chosen = self.selected_positions()
        if chosen.size == 0 and self.model.filter_text:
            chosen = np.sort(self.model.source_rows(np.arange(self.model.rowCount())))
        return chosen

    def _emit_rows(self, *_args: object) -> None:
        if self._syncing:
            return
        self._chosen = self.selected_positions()
        self.rows_chosen.emit(self.chosen_positions())

    def select_rows(self, positions: np.ndarray) -> None:
        """Select the rows at DataFrame ``positions`` (hidden ones are skipped) and
        scroll to the first, without emitting :attr:`rows_chosen`."""
        self._chosen = np.asarray(positions, dtype=np.int64)
        rows = self.model.display_rows(self._chosen)
        sel = QItemSelection()
        if rows.size:
            breaks = np.flatnonzero(np.diff(rows) != 1) + 1
            last = self.model.columnCount() - 1
            for run in np.split(rows, breaks):
                sel.select(self.model.index(int(run[0]), 0), self.model.index(int(run[-1]), last))
        self._syncing = True
        try:
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
            self.view.selectionModel().select(sel, flags)
            if rows.size:
                self.view.scrollTo(self.model.index(int(rows[0]), 0))
        finally:
            self._syncing = False

    def _hold(self, *_args: object) -> None:
        self._syncing = True

    def _reselect(self, *_args: object) -> None:
        self._syncing = False
        if self._chosen.size:
            self.select_rows(self._chosen)

    def select_column(self, name: str) -> bool:
        """Make column ``name`` current and selected; True if it exists."""
        cols = [str(c) for c in self.model.labels]
        return name in cols and self.select_column_index(cols.index(name))

    def select_column_index(self, c: int) -> bool:
        """Make column ``c`` (position) current and selected; True if it exists."""
        if not 0 <= c < self.model.columnCount():
            return False
        if self.model.rowCount():
            self.view.setCurrentIndex(self.model.index(0, c))
        self.view.selectColumn(c)
        self.view.scrollTo(self.model.index(0, c))
        return True
