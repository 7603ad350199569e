"""A document's table (trial metadata, scans, groups), shown without pandas.

Every value of ``Document.tables`` is a :class:`Table`.  A reader that builds
a ``pandas.DataFrame`` wraps it (:meth:`Table.of_frame`).  The VneuroTK reader
decodes the usual trial-metadata columns (numbers, booleans, text and typed
Python scalars over a range index) with h5py and NumPy alone, as
:class:`PlainColumn` objects
(:func:`inspector.formats.vneurotk.trial_meta.plain_trial_meta`), and a table
built from rows has them when it can (:func:`table_of_rows`, the AUCX scans):
the table view shows them before pandas is imported (0.2 s at start-up: issue
15, point 3).  :meth:`Table.frame` builds the DataFrame the pandas decoder would
have built, the first time an analysis, a sort or a filter asks for it.

Thread safety: a table is never changed once made, except that its DataFrame
is built once, under the table's lock, by whichever thread first asks
(``frame``); every thread then shares that one frame, which nobody modifies.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


def read_only_objects(values: list[Any]) -> np.ndarray:
    """Python values as a read-only 1-D ``object`` array (no value converted)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class PlainColumn:
    """One column decoded without pandas.

    Attributes:
        label: the column label (a typed scalar: usually ``str``).
        values: the cells, 1-D: a NumPy numeric or bool array, or an ``object``
            array of Python values (text, typed scalars).  Read-only.
        dtype: the pandas dtype the column has in the DataFrame (``"int64"``,
            ``"float64"``, ``"bool"``, ``"str"``, ``"object"``).
    """

    label: Any
    values: np.ndarray
    dtype: str

    def series(self) -> pd.Series:
        """The column as the pandas decoder builds it (``pd.Series(values, dtype=dtype)``)."""
        import pandas as pd

        values = self.values.tolist() if self.values.dtype == object else self.values
        return pd.Series(values, dtype=self.dtype)


class Table:
    """A table of named columns of one length, with an index.

    Made by :meth:`of_frame` (a DataFrame) or :meth:`of_columns` (columns decoded
    without pandas, over a range index).  The accessors below never import
    pandas for a table of plain columns.
    """

    def __init__(self, frame: pd.DataFrame | None = None,
                 columns: tuple[PlainColumn, ...] = (), index: range = range(0),
                 index_name: Any = None, labels_name: Any = None,
                 builder: Callable[[], tuple[PlainColumn, ...]] | None = None) -> None:
        self._frame = frame
        self._cols = columns
        self._builder = builder
        self._index = index
        self._index_name = index_name
        self._labels_name = labels_name
        self._lock = threading.RLock()

    @classmethod
    def of_frame(cls, frame: pd.DataFrame) -> Table:
        """A table over ``frame`` (which nobody modifies afterwards)."""
        return cls(frame=frame)

    @classmethod
    def of_columns(cls, columns: tuple[PlainColumn, ...], index: range,
                   index_name: Any = None, labels_name: Any = None) -> Table:
        """A table of plain columns over a range index.

        Args:
            columns: the columns, whose labels are text (``str``): the column labels
                become a pandas ``str`` Index.

        Raises:
            ValueError: no column, a label that is not text, or a column's length is
                not the index's.
        """
        if not columns:
            raise ValueError("a table of plain columns needs at least one column")
        if any(type(c.label) is not str for c in columns):
            raise ValueError("the labels of plain columns must be text")
        if any(len(c.values) != len(index) for c in columns):
            raise ValueError(f"every column must have the index's {len(index)} rows")
        return cls(columns=columns, index=index, index_name=index_name,
                   labels_name=labels_name)

    @classmethod
    def of_lazy_columns(cls, build: Callable[[], tuple[PlainColumn, ...]], index: range,
                        index_name: Any = None, labels_name: Any = None) -> Table:
        """A table of plain columns over a range index, made by ``build`` (which must
        return what :meth:`of_columns` accepts) the first time a column is asked for:
        a document that is only verified never builds its tables."""
        return cls(index=index, index_name=index_name, labels_name=labels_name,
                   builder=build)

    @property
    def _columns(self) -> tuple[PlainColumn, ...]:
        if self._builder is not None:
            with self._lock:
                if self._builder is not None:
                    self._cols = Table.of_columns(self._builder(), self._index)._cols
                    self._builder = None
        return self._cols

    # -- without pandas -------------------------------------------------------
    @property
    def plain(self) -> bool:
        """True when the table is held as plain columns (its frame is built on demand)."""
        return self._builder is not None or bool(self._cols)

    @property
    def frame_built(self) -> bool:
        """True once :meth:`frame` needs no work (its DataFrame exists)."""
        return self._frame is not None

    def __len__(self) -> int:
        return len(self._index) if self.plain else len(self.frame())

    @property
    def n_columns(self) -> int:
        return len(self._columns) if self._columns else int(self.frame().shape[1])

    @property
    def labels(self) -> tuple[Any, ...]:
        """The column labels, in order (repeats allowed)."""
        if self._columns:
            return tuple(c.label for c in self._columns)
        return tuple(self.frame().columns)

    @property
    def dtype_names(self) -> tuple[str, ...]:
        """Each column's dtype as pandas prints it (``int64``, ``str``, ``object``)."""
        if self._columns:
            return tuple(c.dtype for c in self._columns)
        return tuple(str(d) for d in self.frame().dtypes)

    def column(self, position: int) -> np.ndarray:
        """The column at ``position`` as the table view reads its cells: the column's own
        NumPy array for NumPy dtypes, Python values (``object``) for pandas extension
        dtypes (``Int64``, ``str``, ``category``...).  May take tens of milliseconds for a
        large extension column of a frame: call it on a job there."""
        if self._columns:
            return self._columns[position].values
        s = self.frame().iloc[:, position]
        return s.to_numpy() if isinstance(s.dtype, np.dtype) else s.to_numpy(dtype=object)

    def index_values(self) -> np.ndarray:
        """The row labels (the index) as a NumPy array (int64 for a range index)."""
        if self._columns:
            i = self._index
            return np.arange(i.start, i.stop, i.step, dtype=np.int64)
        return self.frame().index.to_numpy()

    @property
    def index_dtype(self) -> str:
        return "int64" if self._columns else str(self.frame().index.dtype)

    def index_label(self, row: int) -> Any:
        """The index label of row position ``row`` (a Python value)."""
        if self._columns:
            return self._index[row]
        v = self.frame().index[row]
        return v.item() if isinstance(v, np.generic) else v

    def facts(self) -> dict[str, Any]:
        """The shape of the table as the summary reports it: rows, column labels, dtypes,
        index name/dtype/kind (``RangeIndex``...), the column index's kind and name, and
        the first three index labels (values as they are: the caller makes them plain)."""
        if self._columns:
            return {"rows": len(self), "columns": list(self.labels),
                    "dtypes": list(self.dtype_names), "index_name": self._index_name,
                    "index_dtype": "int64", "index_kind": "RangeIndex",
                    "columns_index_kind": "Index", "columns_index_name": self._labels_name,
                    "first_index": list(self._index[:3])}
        df = self.frame()
        return {"rows": int(len(df)), "columns": list(df.columns),
                "dtypes": [str(d) for d in df.dtypes], "index_name": df.index.name,
                "index_dtype": str(df.index.dtype), "index_kind": type(df.index).__name__,
                "columns_index_kind": type(df.columns).__name__,
                "columns_index_name": df.columns.name, "first_index": list(df.index[:3])}

    # -- with pandas ----------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame (imports pandas).  For plain columns it is built once,
        as the pandas decoder builds it (``pd.concat`` of the series, the labels as a
        ``str`` Index, a ``RangeIndex``); any thread may ask."""
        if self._frame is not None:
            return self._frame
        with self._lock:
            if self._frame is None:
                self._frame = self._build()
        return self._frame

    def _build(self) -> pd.DataFrame:
        import pandas as pd

        frame = pd.concat([c.series() for c in self._columns], axis=1)
        frame.columns = pd.Index(pd.Series(list(self.labels), dtype="str").array,
                                 name=self._labels_name)
        i = self._index
        frame.index = pd.RangeIndex(i.start, i.stop, i.step, name=self._index_name)
        return frame


#: The Python types of the cells of a plain column built from rows, and the dtype of each.
_ROW_DTYPES = {str: "str", bool: "bool", int: "int64", float: "float64", type(None): "object"}
_INT64 = (-(2**63), 2**63 - 1)


def table_of_rows(rows: list[dict[str, Any]], columns: list[str] | None = None) -> Table:
    """A table of one row per dict of ``rows``, as ``pd.DataFrame(rows, columns=columns)``
    builds it (a range index).

    Plain columns (no pandas) when every row has the same text keys in the same order
    (``columns``, when given, in that order) and every value of a column has one type:
    ``str``, ``bool``, ``int`` (within int64) or ``float`` (NaN allowed), or is None
    in every row (an ``object`` column, as pandas makes it); else the
    DataFrame itself, built now (pandas infers the dtypes of missing values and of
    mixed types).
    """
    plain = _plain_columns(rows, columns)
    if plain:  # (no column at all: the DataFrame, which can have none)
        return Table.of_columns(plain, range(len(rows)))
    import pandas as pd

    return Table.of_frame(pd.DataFrame(rows, columns=columns))


def _plain_columns(rows: list[dict[str, Any]],
                   columns: list[str] | None) -> tuple[PlainColumn, ...] | None:
    if not rows:
        return None
    keys = list(rows[0])
    if columns is not None and keys != list(columns):
        return None
    if any(type(k) is not str for k in keys) or any(list(r) != keys for r in rows):
        return None
    return plain_columns_of(keys, [[r[key] for r in rows] for key in keys])


def plain_columns_of(keys: list[str],
                     values: list[list[Any]]) -> tuple[PlainColumn, ...] | None:
    """The plain columns ``keys`` (text) holding ``values`` (one list per key, the rows
    in order), as :func:`table_of_rows` makes them; None when a column's values are not
    all of one of the plain types (see there)."""
    out = []
    for key, column in zip(keys, values, strict=True):
        kind = type(column[0])
        dtype = _ROW_DTYPES.get(kind)
        if dtype is None or any(type(v) is not kind for v in column):
            return None
        if kind is int and not all(_INT64[0] <= v <= _INT64[1] for v in column):
            return None
        if kind is str or dtype == "object":
            array = read_only_objects(column)
        else:
            array = np.asarray(column, dtype=dtype)
            array.setflags(write=False)
        out.append(PlainColumn(key, array, dtype))
    return tuple(out)
