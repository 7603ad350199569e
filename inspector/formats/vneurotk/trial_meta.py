"""Trial metadata rebuilt as a :class:`~inspector.formats.table.Table`.

``encoding = "pandas_v1"`` (schema 1): ``column_index`` and ``index``
subgroups (``name_present``, typed ``name``, ``kind`` = ``range`` with
``start/stop/step`` or ``values`` with a ``data`` series group) and one
series group per column under ``columns/<position>``.  A series group has
``kind`` and ``dtype`` (pandas dtype string): ``numpy``, ``nullable``,
``object_scalars``, ``categorical`` (``ordered``, int64 ``codes``, nested
``category_values``), ``datetime`` (``unit``, int64 values) and
``datetime_tz`` (``unit``, ``tz``, int64 UTC values).

No ``encoding`` attribute (schema 0): each child dataset is one column, in
HDF5 name order; byte/object columns are decoded to text.

Non-finite floats in nullable/object columns break the typed-scalar rule
(recording notes §4).  The reference writer produces them for missing values of
pandas ``str`` columns while its reader rejects them
(``v1/writer_str_column_missing.h5``): :func:`read_trial_meta` reports an
error finding and still shows the table with those cells as missing.

Plain tables are decoded without pandas (:func:`plain_trial_meta`): a range
index, text column labels, and columns that are NumPy numbers or booleans,
text, or typed Python scalars, every one of the index's length.  That is what
the reference writer makes of the usual trial table, and it is shown before
pandas (0.2 s) is imported; its DataFrame is built when first asked for
(:meth:`Table.frame <inspector.formats.table.Table.frame>`), as the pandas
decoder below would build it.  Any other table, or any part that breaks a rule,
is read by the pandas decoder, so that its findings are that decoder's alone.
pandas is imported by the functions that build a series, an index or the
table, so that a recording without such a table never imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import h5py
import numpy as np

from inspector.formats.hdf5.heap import read_attribute
from inspector.formats.hdf5.source import RuleError, read_whole
from inspector.formats.hdf5.values import as_text
from inspector.formats.table import PlainColumn, Table, read_only_objects
from inspector.formats.vneurotk import rules as R
from inspector.formats.vneurotk.scalars import read_sequence

if TYPE_CHECKING:
    import pandas as pd

#: Receives the broken rules that do not stop reading (the table is still shown).
Report = Callable[[RuleError], None]


def _text_attr(group: h5py.Group, name: str, loc: str, default: str | None = None) -> str:
    if name not in group.attrs:
        if default is not None:
            return default
        raise RuleError(R.TM_MISSING_ATTR, f"{loc} lacks attribute '{name}'", f"{loc}@{name}")
    t = as_text(read_attribute(group, name))
    if t is None:
        raise RuleError(R.TM_BAD_ATTR, f"{loc}@{name} must be text", f"{loc}@{name}")
    return t.value


def _child(group: h5py.Group, name: str, loc: str) -> Any:
    if not isinstance(group, h5py.Group):  # e.g. a scalar dataset where a group belongs
        raise RuleError(R.TM_NOT_GROUP, f"{loc} must be a group, not a dataset", loc)
    obj = group.get(name)
    if obj is None:
        raise RuleError(R.TM_MISSING, f"{loc} lacks '{name}'", f"{loc}/{name}")
    return obj


def _values(group: h5py.Group, name: str, loc: str) -> np.ndarray:
    """A plain values dataset of a series, read whole (capped: ``trial-meta.too-large``)."""
    obj = _child(group, name, loc)
    if not isinstance(obj, h5py.Dataset):
        raise RuleError(R.TM_MISSING, f"{loc}/{name} must be a dataset", f"{loc}/{name}")
    return np.asarray(read_whole(obj, R.TM_TOO_LARGE, location=f"{loc}/{name}"))


def _decoded_text(values: np.ndarray) -> np.ndarray:
    """Byte or object strings decoded as UTF-8 text (``str`` array)."""
    out = []
    for v in values.reshape(-1):
        t = as_text(v)
        out.append(t.value if t is not None else str(v))
    return np.asarray(out, dtype=str)


def _typed_values(group: h5py.Group, name: str, loc: str, report: Report) -> list[Any]:
    """Read a typed sequence; a non-finite float is reported and shown as missing."""
    try:
        return read_sequence(_child(group, name, loc), f"{loc}/{name}")
    except RuleError as exc:
        if exc.rule is not R.SCALAR_NONFINITE:
            raise
        values = read_sequence(group[name], f"{loc}/{name}", allow_nonfinite=True)
        bad = sum(1 for v in values if isinstance(v, float) and not np.isfinite(v))
        report(RuleError(
            R.TM_NONFINITE,
            f"{loc}/{name} stores {bad} missing value(s) as a typed float NaN; typed scalars "
            "outside stimulus labels must be finite. The reference writer produces this for "
            "missing values of pandas 'str' columns but its reader rejects the file; shown "
            "here as missing values",
            f"{loc}/{name}",
        ))
        import pandas as pd

        return [pd.NA if isinstance(v, float) and not np.isfinite(v) else v for v in values]


#: Deepest nesting of series groups (categories of categories...) rebuilt.
MAX_NESTING = 8


def _categorical(group: h5py.Group, loc: str, report: Report, depth: int) -> pd.Series:
    import pandas as pd

    if "category_values" in group:
        categories = pd.Index(read_series(group["category_values"], f"{loc}/category_values",
                                          report, depth=depth + 1).array)
    else:
        categories = pd.Index(_typed_values(group, "categories", loc, report))
    codes = _values(group, "codes", loc)
    ordered = bool(read_attribute(group, "ordered", False))
    return pd.Series(pd.Categorical.from_codes(codes, categories=categories, ordered=ordered))


def _datetime_tz(group: h5py.Group, loc: str, dtype: str) -> pd.Series:
    import pandas as pd

    unit = _text_attr(group, "unit", loc, "ns")
    tz = _text_attr(group, "tz", loc)
    values = pd.to_datetime(_values(group, "values", loc), unit=unit, utc=True).tz_convert(tz)
    return pd.Series(values).astype(dtype)


def _datetime(group: h5py.Group, loc: str, dtype: str) -> pd.Series:
    import pandas as pd

    unit = _text_attr(group, "unit", loc, "ns")
    raw = _values(group, "values", loc).astype(np.int64, copy=False)
    return pd.Series(raw.view(f"datetime64[{unit}]")).astype(dtype)


def _numpy(group: h5py.Group, loc: str, dtype: str) -> pd.Series:
    import pandas as pd

    values = _values(group, "values", loc)
    if values.dtype.kind in ("S", "O"):
        values = _decoded_text(values)
    return pd.Series(values, dtype=dtype)


def _rebuild(kind: str, group: h5py.Group, loc: str, dtype: str, report: Report,
             depth: int) -> pd.Series:
    """The series of one ``kind`` (notes §5)."""
    import pandas as pd

    if kind == "categorical":
        return _categorical(group, loc, report, depth)
    if kind == "datetime_tz":
        return _datetime_tz(group, loc, dtype)
    if kind == "datetime":
        return _datetime(group, loc, dtype)
    if kind in ("nullable", "object_scalars"):
        values = _typed_values(group, "values", loc, report)
        return pd.Series(values, dtype=dtype if kind == "nullable" else object)
    if kind == "numpy":
        return _numpy(group, loc, dtype)
    raise RuleError(R.TM_UNKNOWN_KIND, f"{loc}: unknown series kind {kind!r}", f"{loc}@kind")


def read_series(group: h5py.Group, loc: str, report: Report, *, depth: int = 0) -> pd.Series:
    """Rebuild one pandas series group (notes §5; seed, 'Trial metadata').

    Args:
        depth: how deeply this series is nested in categories of another;
            deeper than :data:`MAX_NESTING` is rejected (bounded work on a
            hostile chain of nested groups).

    Raises:
        RuleError: unknown kind, missing parts, too large, nested too deeply,
            or values pandas rejects.
    """
    if not isinstance(group, h5py.Group):
        raise RuleError(R.TM_NOT_GROUP, f"{loc} must be a series group", loc)
    if depth > MAX_NESTING:
        raise RuleError(R.TM_BAD_SERIES, f"{loc}: categories nested more than {MAX_NESTING} "
                        "levels deep are not rebuilt", loc)
    kind = _text_attr(group, "kind", loc)
    dtype = _text_attr(group, "dtype", loc)
    try:
        return _rebuild(kind, group, loc, dtype, report, depth)
    except RuleError:
        raise
    except (TypeError, ValueError, KeyError, OverflowError, OSError) as exc:
        raise RuleError(R.TM_BAD_SERIES,
                        f"{loc}: cannot rebuild a {kind} series of dtype {dtype!r}: {exc}",
                        loc) from exc


def _range_bounds(group: h5py.Group) -> tuple[int, int, int]:
    """``start``, ``stop`` and ``step`` of a range index group, as integers.

    Raises:
        KeyError, TypeError, ValueError, OverflowError: an attribute is missing or
            not an integer.
    """
    start, stop, step = (int(read_attribute(group, k)) for k in ("start", "stop", "step"))
    return start, stop, step


def _range_index(group: h5py.Group, loc: str, name: Any) -> pd.RangeIndex:
    import pandas as pd

    try:
        start, stop, step = _range_bounds(group)
        index = pd.RangeIndex(start, stop, step, name=name)
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise RuleError(R.TM_BAD_RANGE,
                        f"{loc}: range index needs integer start/stop/step ({exc})", loc) from exc
    try:
        len(range(start, stop, step))
    except OverflowError as exc:  # pandas would fail on its length when it is used
        raise RuleError(R.TM_BAD_RANGE,
                        f"{loc}: range index from {start} to {stop} by {step} has more rows "
                        "than any table can hold", loc) from exc
    return index


def read_index(group: h5py.Group, loc: str, report: Report) -> pd.Index:
    """Rebuild a pandas index group (``range`` or ``values``) with its name."""
    import pandas as pd

    if not isinstance(group, h5py.Group):
        raise RuleError(R.TM_NOT_GROUP, f"{loc} must be an index group", loc)
    name = None
    if bool(read_attribute(group, "name_present", False)):
        vals = _typed_values(group, "name", loc, report)
        if len(vals) != 1:
            raise RuleError(R.TM_BAD_NAME, f"{loc}/name must hold exactly one value",
                            f"{loc}/name")
        name = vals[0]
    kind = _text_attr(group, "kind", loc)
    if kind == "range":
        return _range_index(group, loc, name)
    if kind == "values":
        series = read_series(_child(group, "data", loc), f"{loc}/data", report)
        return pd.Index(series.array, name=name)
    raise RuleError(R.TM_UNKNOWN_INDEX, f"{loc}: unknown index kind {kind!r}", f"{loc}@kind")


def _legacy(tm: h5py.Group) -> pd.DataFrame:
    """Schema-0 trial metadata: one dataset per column, in HDF5 name order."""
    import pandas as pd

    loc = tm.name
    cols: dict[str, Any] = {}
    for name in tm:
        obj = tm[name]
        if not isinstance(obj, h5py.Dataset):
            raise RuleError(R.TM_LEGACY_NOT_DATASET,
                            f"{loc}/{name}: legacy trial_meta columns must be datasets",
                            f"{loc}/{name}")
        vals = np.asarray(read_whole(obj, R.TM_TOO_LARGE, location=f"{loc}/{name}"))
        if vals.dtype.kind in ("S", "O"):
            vals = _decoded_text(vals)
        cols[name] = vals
    try:
        return pd.DataFrame(cols)
    except ValueError as exc:
        raise RuleError(R.TM_LEGACY_LENGTHS,
                        f"{loc}: legacy columns cannot form a table: {exc}", loc) from exc


def _pandas_v1(tm: h5py.Group, report: Report) -> pd.DataFrame:
    import pandas as pd

    loc = tm.name
    if "column_index" in tm:
        column_index = read_index(tm["column_index"], f"{loc}/column_index", report)
    else:
        column_index = pd.Index(_typed_values(tm, "column_labels", loc, report))
    columns = _child(tm, "columns", loc)
    series = [read_series(_child(columns, str(i), f"{loc}/columns"), f"{loc}/columns/{i}",
                          report) for i in range(len(column_index))]
    frame = pd.concat(series, axis=1) if series else pd.DataFrame()
    try:
        frame.columns = column_index
        frame.index = read_index(_child(tm, "index", loc), f"{loc}/index", report)
    except ValueError as exc:
        raise RuleError(R.TM_LENGTH_MISMATCH,
                        f"{loc}: index or column labels do not match the columns: {exc}",
                        loc) from exc
    return frame


def read_trial_meta(tm: h5py.Group, report: Report) -> Table:
    """Rebuild ``/trial_meta`` (either encoding): plain columns when it is plain
    (:func:`plain_trial_meta`, no pandas), else a DataFrame.

    Raises:
        RuleError: the group breaks a rule of notes §5 (or a column is too
            large to read at open).
    """
    if not isinstance(tm, h5py.Group):
        raise RuleError(R.TM_NOT_GROUP, f"{tm.name} must be a group", tm.name)
    plain = plain_trial_meta(tm)
    if plain is not None:
        return plain
    enc = as_text(read_attribute(tm, "encoding", "legacy"))
    if enc is None or enc.value != "pandas_v1":
        return Table.of_frame(_legacy(tm))
    return Table.of_frame(_pandas_v1(tm, report))


# -- plain tables, without pandas ---------------------------------------------------
#: The NumPy dtypes of ``numpy`` columns decoded without pandas (native byte order).
PLAIN_NUMPY_DTYPES = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float32", "float64"})


class _NotPlain(Exception):
    """The table needs the pandas decoder."""


def plain_trial_meta(tm: h5py.Group) -> Table | None:
    """``/trial_meta`` decoded with h5py and NumPy alone, or None when it is not plain.

    Plain (either encoding): a range index, text column labels, and every column
    a 1-D NumPy number or bool array (``numpy`` kind, its dtype one of
    :data:`PLAIN_NUMPY_DTYPES` and that of its stored values), text (``nullable``
    of dtype ``str`` holding text only; byte or object datasets of schema 0), or
    typed scalars (``object_scalars``), each as long as the index.  Nothing is
    reported: a table that is not plain, or that breaks any rule, gives None and
    the pandas decoder reads it again and reports what it breaks.
    """
    try:
        enc = as_text(read_attribute(tm, "encoding", "legacy"))
        if enc is None or enc.value != "pandas_v1":
            return _plain_legacy(tm)
        return _plain_pandas_v1(tm)
    except _NotPlain:
        return None
    except Exception:  # noqa: BLE001  any failure: the pandas decoder reports it
        return None


def _plain_legacy(tm: h5py.Group) -> Table:
    loc = tm.name
    columns = []
    for name in tm:
        obj = tm[name]
        if not isinstance(obj, h5py.Dataset):
            raise _NotPlain
        vals = np.asarray(read_whole(obj, R.TM_TOO_LARGE, location=f"{loc}/{name}"))
        if vals.dtype.kind in ("S", "O"):
            text = read_only_objects(_decoded_text(vals).tolist())
            columns.append(PlainColumn(name, text, "str"))
        else:
            dtype = vals.dtype.name
            columns.append(PlainColumn(name, _plain_numbers(vals, dtype), dtype))
    if not columns:
        raise _NotPlain
    return Table.of_columns(tuple(columns), range(len(columns[0].values)))


def _plain_pandas_v1(tm: h5py.Group) -> Table:
    loc = tm.name
    if "column_index" not in tm:
        raise _NotPlain
    labels, labels_name = _plain_labels(tm["column_index"], f"{loc}/column_index")
    group = _child(tm, "columns", loc)
    columns = tuple(_plain_column(_child(group, str(i), f"{loc}/columns"), label)
                    for i, label in enumerate(labels))
    index_group = _child(tm, "index", loc)
    if _text_attr(index_group, "kind", f"{loc}/index") != "range":
        raise _NotPlain
    index = range(*_range_bounds(index_group))
    if not columns or any(len(c.values) != len(index) for c in columns):
        raise _NotPlain
    return Table.of_columns(columns, index, _plain_name(index_group, f"{loc}/index"),
                            labels_name)


def _plain_name(group: h5py.Group, loc: str) -> Any:
    if not bool(read_attribute(group, "name_present", False)):
        return None
    names = read_sequence(_child(group, "name", loc), f"{loc}/name")
    if len(names) != 1:
        raise _NotPlain
    return names[0]


def _plain_labels(group: h5py.Group, loc: str) -> tuple[list[str], Any]:
    if not isinstance(group, h5py.Group) or _text_attr(group, "kind", loc) != "values":
        raise _NotPlain
    data = _child(group, "data", loc)
    if (_text_attr(data, "kind", f"{loc}/data") != "nullable"
            or _text_attr(data, "dtype", f"{loc}/data") != "str"):
        raise _NotPlain
    labels = read_sequence(_child(data, "values", f"{loc}/data"), f"{loc}/data/values")
    if not all(type(v) is str for v in labels):
        raise _NotPlain
    return labels, _plain_name(group, loc)


def _plain_column(group: h5py.Group, label: str) -> PlainColumn:
    if not isinstance(group, h5py.Group):
        raise _NotPlain
    loc = group.name
    kind, dtype = _text_attr(group, "kind", loc), _text_attr(group, "dtype", loc)
    if kind == "numpy":
        return PlainColumn(label, _plain_numbers(_values(group, "values", loc), dtype), dtype)
    if kind == "nullable" and dtype == "str" or kind == "object_scalars":
        values = read_sequence(_child(group, "values", loc), f"{loc}/values")
        if kind == "nullable":
            if not all(type(v) is str for v in values):
                raise _NotPlain
            return PlainColumn(label, read_only_objects(values), "str")
        return PlainColumn(label, read_only_objects(values), "object")
    raise _NotPlain


def _plain_numbers(values: np.ndarray, dtype: str) -> np.ndarray:
    """``values`` when they are a 1-D array of ``dtype``, one of the plain NumPy dtypes."""
    if (dtype not in PLAIN_NUMPY_DTYPES or values.ndim != 1
            or values.dtype != np.dtype(dtype) or not values.dtype.isnative):
        raise _NotPlain
    values.setflags(write=False)
    return values

