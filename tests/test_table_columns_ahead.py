"""A table's columns are made on a job before its view (table_model.column_arrays)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from inspector.formats.table import Table
from inspector.models.roles import CopyRole, MissingRole, ValueRole
from inspector.models.table_model import TableModel, column_arrays

D = Qt.ItemDataRole
FIXTURES = Path(__file__).parent / "fixtures"


def _frame() -> pd.DataFrame:
    n = 50
    return pd.DataFrame({
        "trial": np.arange(n),
        "rt": np.where(np.arange(n) % 7 == 0, np.nan, np.linspace(0.2, 0.9, n)),
        "label": pd.array([None if i % 5 == 0 else f"s{i}" for i in range(n)], dtype="string"),
        "count": pd.array([None if i % 3 == 0 else i for i in range(n)], dtype="Int64"),
        "when": pd.Categorical(pd.date_range("2024-01-01", periods=n, freq="h")),
        "mixed": pd.Series([1, "1", None, 2.5, "x"] * 10, dtype=object),
    })


def test_columns_made_ahead_are_the_columns_the_model_makes(qapp):
    df = _frame()
    table = Table.of_frame(df)
    made = column_arrays(table)
    assert sorted(made) == list(range(df.shape[1]))
    for col, arr in made.items():  # numpy (and pandas) as the oracle
        expected = df.iloc[:, col].to_numpy(
            dtype=None if isinstance(df.dtypes.iloc[col], np.dtype) else object)
        assert arr.dtype == expected.dtype and len(arr) == len(df)
        assert all(a is b or a == b or (pd.isna(a) and pd.isna(b))
                   for a, b in zip(arr, expected, strict=True))
    ahead, lazy = TableModel(table, columns=made), TableModel(table)
    for row in range(len(df)):
        for col in range(df.shape[1]):
            for role in (D.DisplayRole, D.ToolTipRole, ValueRole, MissingRole, CopyRole):
                a = ahead.index(row, col).data(int(role))
                b = lazy.index(row, col).data(int(role))
                assert a is b or a == b or (pd.isna(a) and pd.isna(b)), (row, col, role)
    ahead.sort(1, Qt.SortOrder.DescendingOrder)
    lazy.sort(1, Qt.SortOrder.DescendingOrder)
    assert [ahead.source_row(r) for r in range(len(df))] \
        == [lazy.source_row(r) for r in range(len(df))]


@pytest.mark.slow
def test_the_window_makes_table_columns_on_a_job(qtbot, monkeypatch):
    from inspector.ui.main_window import MainWindow

    made_on: list[bool] = []
    make = Table.column

    def recording(table, position):
        made_on.append(threading.current_thread() is threading.main_thread())
        return make(table, position)

    monkeypatch.setattr(Table, "column", recording)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.open_paths([str(FIXTURES / "vneurotk" / "v1" / "epochs_dense_f64_strids.h5")],
                   remember=False)
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=60000)
    tables = win.current_tab().tables
    columns = sum(panel.model.columnCount() for panel in tables.values())
    assert tables and columns > 0
    assert made_on == [False] * columns  # each column once, none on the GUI thread
