"""A table model over a document's :class:`~inspector.formats.table.Table` that reads
cells on demand.

No item is created per cell: ``data()`` looks the value up in a cached
per-column NumPy array (:meth:`Table.column`, made the first time a column is
shown, or ahead on a job: :func:`column_arrays`).  Showing a table of plain
columns needs no pandas.  Sorting and filtering are done in the model with
NumPy and pandas on the table's DataFrame (:meth:`Table.frame`; an index
permutation), so 100 000 rows sort and filter without a proxy model walking
every row through Python.  pandas is imported by the methods that sort or
filter: importing this module does not import it, and the document tab builds
the frames on a job once it has stayed idle, so that a sort or a filter then
imports and builds nothing (``DocumentTab.frames``, :mod:`inspector.ui.table_frames`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from inspector.formats.table import Table
from inspector.models.multi_data import OneEntryPerCell
from inspector.models.roles import CopyRole, MissingRole, NameRole, ValueRole
from inspector.models.style import italic_font, kind_color, muted_color
from inspector.models.value_text import NA_TEXT, is_missing, value_text, value_type_name

if TYPE_CHECKING:
    import pandas as pd

_D = Qt.ItemDataRole


def _cell_text(value: Any, quote_strings: bool) -> str:
    if is_missing(value):
        return NA_TEXT
    if isinstance(value, str):
        if value == "":
            return ""  # an empty cell looks empty (its tooltip says "empty text")
        return value_text(value) if quote_strings else value
    if isinstance(value, float | np.floating):
        return repr(float(value))
    return value_text(value)


def _sort_key_array(s: pd.Series) -> np.ndarray:
    """Positions that sort ``s`` ascending with missing values last (stable)."""
    s = s.reset_index(drop=True)
    try:
        return s.sort_values(kind="stable", na_position="last").index.to_numpy()
    except (TypeError, ValueError):
        # Mixed types (object columns): order by type name, then value text.
        keys = [
            (1, "", "") if is_missing(v) else (0, type(v).__name__, _mixed_key(v))
            for v in s.to_numpy(dtype=object)
        ]
        return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


def _mixed_key(v: Any) -> Any:
    if isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool):
        return f"{float(v):+025.10f}"
    return str(v)


def column_arrays(table: Table) -> dict[int, np.ndarray]:
    """Every column of ``table`` as :meth:`Table.column` makes it, by position.  Runs
    on any thread (it only reads the table): a table's columns are made on a job
    before its view is built (converting a categorical datetime column of 10 000
    rows takes tens of milliseconds)."""
    return {col: table.column(col) for col in range(table.n_columns)}


class TableModel(OneEntryPerCell, QAbstractTableModel):
    """Read-only view of a :class:`Table`; rows may be sorted and filtered.

    Display conventions: missing values (None, NA, NaT, NaN) show as greyed
    italic ``<NA>``; an empty string shows as an empty cell (its tooltip says "empty
    text"); in ``object`` columns strings are quoted so that ``1`` and ``"1"`` differ.
    The header tooltip of each column gives its dtype; the vertical header shows the index.
    """

    def __init__(self, table: Table, parent: QObject | None = None,
                 columns: dict[int, np.ndarray] | None = None) -> None:
        """``columns``: the columns made ahead (:func:`column_arrays`, on a job); the
        others are made when first shown."""
        super().__init__(parent)
        self._table = table
        self._labels = table.labels
        self._dtypes = table.dtype_names
        self._cols: dict[int, np.ndarray] = dict(columns or {})
        self._quoted = [dt == "object" for dt in self._dtypes]
        self._lower: dict[int, pd.Series] = {}
        self._index = table.index_values()
        self._n = n = len(table)
        self._order = np.arange(n, dtype=np.int64)
        self._mask: np.ndarray | None = None
        self._rows = self._order
        self._filter = ""
        self._sort: tuple[int, Qt.SortOrder] | None = None

    @property
    def table(self) -> Table:
        return self._table

    @property
    def labels(self) -> tuple[Any, ...]:
        """The column labels, by position."""
        return self._labels

    @property
    def dtype_names(self) -> tuple[str, ...]:
        """Each column's dtype as pandas prints it, by position."""
        return self._dtypes

    # -- cells ------------------------------------------------------------
    def column_array(self, col: int) -> np.ndarray:
        """The column as a NumPy array (cached)."""
        arr = self._cols.get(col)
        if arr is None:
            arr = self._cols[col] = self._table.column(col)
        return arr

    def source_row(self, row: int) -> int:
        """Position in the table of the displayed ``row``."""
        return int(self._rows[row])

    def source_rows(self, rows: np.ndarray) -> np.ndarray:
        """int64 positions in the table of the displayed ``rows``."""
        return self._rows[np.asarray(rows, dtype=np.int64)].astype(np.int64)

    def display_rows(self, sources: np.ndarray) -> np.ndarray:
        """int64 displayed rows (ascending) of the table positions ``sources``;
        positions filtered out or out of range are left out."""
        where = np.full(self._n, -1, dtype=np.int64)
        where[self._rows] = np.arange(len(self._rows))
        s = np.asarray(sources, dtype=np.int64).reshape(-1)
        rows = where[s[(s >= 0) & (s < self._n)]]
        return np.unique(rows[rows >= 0])

    def value(self, row: int, col: int) -> Any:
        """The raw cell value at displayed ``row`` (after sort/filter)."""
        v = self.column_array(col)[self._rows[row]]
        keep = isinstance(v, np.datetime64 | np.timedelta64)
        return v.item() if isinstance(v, np.generic) and not keep else v

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else int(len(self._rows))

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._labels)

    def _quote(self, col: int) -> bool:
        return self._quoted[col]

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _D.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if role == _D.DisplayRole:
            return _cell_text(self.value(r, c), self._quote(c))
        if role == _D.ForegroundRole:
            v = self.value(r, c)
            if is_missing(v) or (isinstance(v, str) and v == ""):
                return muted_color()
            if isinstance(v, str) and self._quote(c):
                return kind_color("string")
            return None
        if role == _D.FontRole:
            return italic_font() if is_missing(self.value(r, c)) else None
        if role == _D.TextAlignmentRole:
            v = self.value(r, c)
            if isinstance(v, int | float) and not isinstance(v, bool) and not is_missing(v):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if role == _D.ToolTipRole:
            v = self.value(r, c)
            if isinstance(v, str) and v == "":
                return f"empty text  ({value_type_name(v)})"
            return f"{_cell_text(v, True)}  ({value_type_name(v)})"
        if role == ValueRole:
            return self.value(r, c)
        if role == MissingRole:
            return is_missing(self.value(r, c))
        if role == CopyRole:
            v = self.value(r, c)
            if is_missing(v):
                return ""
            return v if isinstance(v, str) else _cell_text(v, False)
        if role == NameRole:
            return str(self._labels[c])
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = _D.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if not 0 <= section < len(self._labels):
                return None
            if role == _D.DisplayRole:
                return str(self._labels[section])
            if role == _D.ToolTipRole:
                return f"{self._labels[section]!s}: dtype {self._dtypes[section]}"
            return None
        if not 0 <= section < len(self._rows):
            return None
        if role == _D.DisplayRole:
            v = self._index[self._rows[section]]
            return _cell_text(v.item() if isinstance(v, np.generic) else v, True)
        if role == _D.ToolTipRole:
            return f"index dtype {self._table.index_dtype}"
        return None

    # -- sort and filter --------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort rows by ``column`` (missing last; stable); -1 restores file order."""
        self.layoutAboutToBeChanged.emit()
        if column < 0 or column >= len(self._labels):
            self._order = np.arange(self._n, dtype=np.int64)
            self._sort = None
        else:
            frame = self._table.frame()
            pos = _sort_key_array(frame.iloc[:, column])
            if order == Qt.SortOrder.DescendingOrder:
                s = frame.iloc[:, column].reset_index(drop=True)
                miss = s.isna().to_numpy()[pos]
                pos = np.concatenate([pos[~miss][::-1], pos[miss]])
            self._order = pos.astype(np.int64)
            self._sort = (column, order)
        self._apply()
        self.layoutChanged.emit()

    def _lower_strings(self, col: int) -> pd.Series:
        """Lower-case display text of a column (cached), for filtering."""
        import pandas as pd

        out = self._lower.get(col)
        if out is None:
            s = self._table.frame().iloc[:, col].reset_index(drop=True)
            miss = s.isna().to_numpy(dtype=bool)
            if isinstance(s.dtype, np.dtype) and s.dtype.kind in "biuf":
                text = pd.Series(s.to_numpy().astype(str), dtype=object).str.lower()
            elif not isinstance(s.dtype, np.dtype) and (
                    pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)):
                text = s.astype(str).str.lower()
            elif pd.api.types.is_string_dtype(s.dtype) and s.dtype != np.dtype(object):
                text = s.astype(object).where(~miss, "").astype(str).str.lower()
            else:
                text = pd.Series([_cell_text(v, False).lower() for v in self.column_array(col)],
                                 dtype=object)
            text = text.astype(object)
            text[miss] = NA_TEXT.lower()
            out = text
            self._lower[col] = out
        return out

    def set_filter(self, text: str) -> None:
        """Keep rows where any cell's text contains ``text`` (case-insensitive)."""
        text = text.strip().lower()
        if text == self._filter:
            return
        self.beginResetModel()
        self._filter = text
        if not text:
            self._mask = None
        else:
            mask = np.zeros(self._n, dtype=bool)
            for c in range(len(self._labels)):
                col = self._lower_strings(c)
                mask |= col.str.contains(text, regex=False).to_numpy(dtype=bool)
            if -1 not in self._lower:
                import pandas as pd

                lowered = pd.Index(self._index).astype(str).str.lower().to_numpy(dtype=object)
                self._lower[-1] = pd.Series(lowered, dtype=object)
            mask |= self._lower[-1].str.contains(text, regex=False).to_numpy(dtype=bool)
            self._mask = mask
        self._apply()
        self.endResetModel()

    @property
    def filter_text(self) -> str:
        return self._filter

    def _apply(self) -> None:
        self._rows = self._order if self._mask is None else self._order[self._mask[self._order]]

