"""Trial metadata rebuilt as a ``pandas.DataFrame`` (VneuroTK on-disk notes §5).

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
(VneuroTK on-disk notes §4).  The reference writer produces them for missing values of
pandas ``str`` columns while its reader rejects them
(``v1/writer_str_column_missing.h5``): :func:`read_trial_meta` reports an
error finding and still shows the table with those cells as missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import h5py
import numpy as np
import pandas as pd

from inspector.formats.vneurotk.scalars import read_sequence
from inspector.formats.vneurotk.source import RuleError
from inspector.formats.vneurotk.values import as_text

Report = Callable[[RuleError], None]


def _text_attr(group: h5py.Group, name: str, loc: str, default: str | None = None) -> str:
    if name not in group.attrs:
        if default is not None:
            return default
        raise RuleError("trial-meta.missing-attr", f"{loc} lacks attribute '{name}' (VneuroTK on-disk notes §5, trial_meta)", f"{loc}@{name}")
    t = as_text(group.attrs[name])
    if t is None:
        raise RuleError("trial-meta.bad-attr", f"{loc}@{name} must be text (VneuroTK on-disk notes §5)", f"{loc}@{name}")
    return t.value


def _child(group: h5py.Group, name: str, loc: str) -> Any:
    obj = group.get(name)
    if obj is None:
        raise RuleError("trial-meta.missing", f"{loc} lacks '{name}' (VneuroTK on-disk notes §5, trial_meta)", f"{loc}/{name}")
    return obj


def _typed_values(group: h5py.Group, name: str, loc: str, report: Report) -> list[Any]:
    """Read a typed sequence; a non-finite float is reported and shown as missing."""
    try:
        return read_sequence(_child(group, name, loc), f"{loc}/{name}")
    except RuleError as exc:
        if exc.code != "scalar.nonfinite":
            raise
        values = read_sequence(group[name], f"{loc}/{name}", allow_nonfinite=True)
        bad = sum(1 for v in values if isinstance(v, float) and not np.isfinite(v))
        report(RuleError(
            "trial-meta.nonfinite",
            f"{loc}/{name} stores {bad} missing value(s) as a typed float NaN; typed scalars outside "
            "stimulus labels must be finite (VneuroTK on-disk notes §4; VneuroTK format, 'Trial metadata'). The reference "
            "writer produces this for missing values of pandas 'str' columns but its reader rejects "
            "the file; shown here as missing values",
            f"{loc}/{name}",
        ))
        return [pd.NA if isinstance(v, float) and not np.isfinite(v) else v for v in values]


def read_series(group: h5py.Group, loc: str, report: Report) -> pd.Series:
    """Rebuild one pandas series group (VneuroTK on-disk notes §5).

    Raises:
        RuleError: unknown kind, missing parts, or values pandas rejects.
    """
    if not isinstance(group, h5py.Group):
        raise RuleError("trial-meta.not-group", f"{loc} must be a series group (VneuroTK on-disk notes §5)", loc)
    kind = _text_attr(group, "kind", loc)
    dtype = _text_attr(group, "dtype", loc)
    try:
        if kind == "categorical":
            if "category_values" in group:
                categories = pd.Index(read_series(group["category_values"], f"{loc}/category_values", report).array)
            else:
                categories = _typed_values(group, "categories", loc, report)
            codes = np.asarray(_child(group, "codes", loc)[()])
            ordered = bool(group.attrs.get("ordered", False))
            return pd.Series(pd.Categorical.from_codes(codes, categories=categories, ordered=ordered))
        if kind == "datetime_tz":
            unit = _text_attr(group, "unit", loc, "ns")
            tz = _text_attr(group, "tz", loc)
            values = pd.to_datetime(np.asarray(_child(group, "values", loc)[()]), unit=unit, utc=True).tz_convert(tz)
            return pd.Series(values).astype(dtype)
        if kind == "datetime":
            unit = _text_attr(group, "unit", loc, "ns")
            raw = np.asarray(_child(group, "values", loc)[()]).astype(np.int64, copy=False)
            return pd.Series(raw.view(f"datetime64[{unit}]")).astype(dtype)
        if kind in ("nullable", "object_scalars"):
            values = _typed_values(group, "values", loc, report)
            return pd.Series(values, dtype=dtype if kind == "nullable" else object)
        if kind == "numpy":
            values = np.asarray(_child(group, "values", loc)[()])
            if values.dtype.kind in ("S", "O"):
                values = np.asarray([as_text(v).value if as_text(v) else str(v) for v in values], dtype=str)
            return pd.Series(values, dtype=dtype)
    except RuleError:
        raise
    except (TypeError, ValueError, KeyError, OverflowError, OSError) as exc:
        raise RuleError("trial-meta.bad-series", f"{loc}: cannot rebuild a {kind} series of dtype {dtype!r}: {exc} (VneuroTK on-disk notes §5)", loc) from exc
    raise RuleError("trial-meta.unknown-kind", f"{loc}: unknown series kind {kind!r} (VneuroTK on-disk notes §5)", f"{loc}@kind")


def read_index(group: h5py.Group, loc: str, report: Report) -> pd.Index:
    """Rebuild a pandas index group (``range`` or ``values``) with its name."""
    name = None
    if bool(group.attrs.get("name_present", False)):
        vals = _typed_values(group, "name", loc, report)
        if len(vals) != 1:
            raise RuleError("trial-meta.bad-name", f"{loc}/name must hold exactly one value (VneuroTK on-disk notes §5)", f"{loc}/name")
        name = vals[0]
    kind = _text_attr(group, "kind", loc)
    if kind == "range":
        try:
            return pd.RangeIndex(int(group.attrs["start"]), int(group.attrs["stop"]), int(group.attrs["step"]), name=name)
        except (KeyError, TypeError, ValueError) as exc:
            raise RuleError("trial-meta.bad-range", f"{loc}: range index needs integer start/stop/step ({exc}) (VneuroTK on-disk notes §5)", loc) from exc
    if kind == "values":
        series = read_series(_child(group, "data", loc), f"{loc}/data", report)
        return pd.Index(series.array, name=name)
    raise RuleError("trial-meta.unknown-index", f"{loc}: unknown index kind {kind!r} (VneuroTK on-disk notes §5)", f"{loc}@kind")


def read_trial_meta(tm: h5py.Group, report: Report) -> pd.DataFrame:
    """Rebuild ``/trial_meta`` (either encoding) as a DataFrame.

    Raises:
        RuleError: the group breaks a rule of VneuroTK on-disk notes §5.
    """
    loc = tm.name
    enc = as_text(tm.attrs.get("encoding", "legacy"))
    if enc is None or enc.value != "pandas_v1":
        cols: dict[str, Any] = {}
        for name in tm:
            obj = tm[name]
            if not isinstance(obj, h5py.Dataset):
                raise RuleError("trial-meta.legacy-not-dataset", f"{loc}/{name}: legacy trial_meta columns must be datasets (VneuroTK on-disk notes §5)", f"{loc}/{name}")
            vals = np.asarray(obj[()])
            if vals.dtype.kind in ("S", "O"):
                vals = np.array([as_text(v).value if as_text(v) else str(v) for v in vals.reshape(-1)])
            cols[name] = vals
        try:
            return pd.DataFrame(cols)
        except ValueError as exc:
            raise RuleError("trial-meta.legacy-lengths", f"{loc}: legacy columns cannot form a table: {exc} (VneuroTK on-disk notes §5)", loc) from exc
    if "column_index" in tm:
        column_index = read_index(tm["column_index"], f"{loc}/column_index", report)
    else:
        column_index = pd.Index(_typed_values(tm, "column_labels", loc, report))
    columns = _child(tm, "columns", loc)
    series = [read_series(_child(columns, str(i), f"{loc}/columns"), f"{loc}/columns/{i}", report) for i in range(len(column_index))]
    frame = pd.concat(series, axis=1) if series else pd.DataFrame()
    try:
        frame.columns = column_index
        frame.index = read_index(_child(tm, "index", loc), f"{loc}/index", report)
    except ValueError as exc:
        raise RuleError("trial-meta.length-mismatch", f"{loc}: index or column labels do not match the columns: {exc} (VneuroTK on-disk notes §5)", loc) from exc
    return frame
