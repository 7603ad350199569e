"""Table view of a DataFrame (trial metadata, scans) with a filter box and sorting."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
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

from inspector.models.dataframe_model import DataFrameModel, dtype_label
from inspector.ui.columns import fit_table_columns
from inspector.ui.copy_support import install_copy_actions


class TablePanel(QWidget):
    """A filter box, a row count and a sortable table view over ``df``.

    Sorting happens in the model (NumPy argsort), so clicking a header of a
    100 000-row table does not walk every row through a proxy.

    Signals:
        cell_selected(str title, object value, str extra): current cell changed.
    """

    cell_selected = Signal(str, object, str)

    def __init__(self, df: pd.DataFrame, title: str, location: str = "", parent=None) -> None:
        super().__init__(parent)
        self.title = title
        self.location = location
        self.model = DataFrameModel(df, self)
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

    def _update_count(self) -> None:
        n = len(self.model.frame)
        shown = self.model.rowCount()
        cols = self.model.columnCount()
        self.count.setText(f"{shown:,} of {n:,} rows × {cols} columns" if shown != n
                           else f"{n:,} rows × {cols} columns")

    def _current(self, cur: QModelIndex, _prev: QModelIndex) -> None:
        if not cur.isValid():
            return
        r, c = cur.row(), cur.column()
        col = self.model.frame.columns[c]
        dtype = dtype_label(self.model.frame.dtypes.iloc[c])
        row_label = self.model.headerData(r, Qt.Orientation.Vertical)
        self.cell_selected.emit(f"{self.title}[{row_label}, {col!s}]", self.model.value(r, c),
                                f"column {col!s}, dtype {dtype}")

    def select_column(self, name: str) -> bool:
        """Make column ``name`` current and selected; True if it exists."""
        cols = [str(c) for c in self.model.frame.columns]
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
