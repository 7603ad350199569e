"""How typed values are shown: an int ``1`` and a str ``"1"`` must look different."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

MISSING_TEXT = "∅"

#: Text of a missing table cell (None, pandas NA, NaT, NaN); shown greyed italic.
NA_TEXT = "<NA>"


def is_missing(value: Any) -> bool:
    """True for None, ``pd.NA``, ``pd.NaT``, float NaN and ``numpy.datetime64('NaT')``.

    Empty strings are *not* missing (they are shown as ``''``).
    """
    if value is None:
        return True
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return True
    except ImportError:  # pragma: no cover
        pass
    if isinstance(value, float | np.floating):
        return math.isnan(float(value))
    if isinstance(value, np.datetime64 | np.timedelta64):
        return bool(np.isnat(value))
    return False


def is_unknown(value: Any) -> bool:
    """True for the provenance placeholder ``"unknown"`` (any case) and missing values."""
    if isinstance(value, str):
        return value.strip().lower() == "unknown"
    return is_missing(value)


def value_type_name(value: Any) -> str:
    """Short type label shown beside a value (``int``, ``str``, ``float``...)."""
    if value is None:
        return "None"
    try:
        import pandas as pd

        if value is pd.NA:
            return "NA"
        if value is pd.NaT:
            return "NaT"
    except ImportError:  # pragma: no cover
        pass
    if isinstance(value, np.generic):
        return value.dtype.name
    if isinstance(value, np.ndarray):
        return f"array {value.dtype.name} {value.shape}"
    return type(value).__name__


def value_text(value: Any, limit: int = 200) -> str:
    """Display text of a value; strings are quoted, missing values marked."""
    if value is None:
        return "None"
    try:
        import pandas as pd

        if value is pd.NA:
            return "<NA>"
        if value is pd.NaT:
            return "NaT"
    except ImportError:  # pragma: no cover
        pass
    if isinstance(value, str):
        text = repr(value) if value == "" else f'"{value}"'
    elif isinstance(value, bytes):
        text = repr(value)
    elif isinstance(value, bool | np.bool_):
        text = "true" if value else "false"
    elif isinstance(value, float | np.floating):
        f = float(value)
        text = "NaN" if math.isnan(f) else repr(f)
    elif isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=8, edgeitems=3, max_line_width=limit)
    elif isinstance(value, list | tuple):
        inner = ", ".join(value_text(v, limit) for v in value[:20])
        more = ", …" if len(value) > 20 else ""
        text = f"[{inner}{more}]"
    elif isinstance(value, dict):
        inner = ", ".join(f"{k}: {value_text(v, limit)}" for k, v in list(value.items())[:20])
        text = "{" + inner + "}"
    else:
        text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
