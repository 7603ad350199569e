"""How typed values are shown: an int ``1`` and a str ``"1"`` must look different.

numpy and pandas are never imported here: a value can only be a numpy
scalar or ``pandas.NA`` once the reader that made it imported them, so
their types are looked up in ``sys.modules`` (showing a value never costs
an import on the GUI thread).
"""

from __future__ import annotations

import math
import sys
from types import ModuleType
from typing import Any

MISSING_TEXT = "∅"


def _imported(name: str) -> ModuleType | None:
    """Module ``name`` if it is imported completely, else None.

    A module another thread is still importing counts as absent: no value
    can come from it before that import has finished.
    """
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    if module is None or getattr(spec, "_initializing", False):
        return None
    return module


def _numpy() -> ModuleType | None:
    """numpy if some reader imported it, else None (then no value is a numpy value)."""
    return _imported("numpy")


def _pandas_missing(value: Any) -> str | None:
    """``"NA"`` / ``"NaT"`` for ``pandas.NA`` / ``pandas.NaT``, else None (also without pandas)."""
    pd = _imported("pandas")
    if pd is None:
        return None
    if value is getattr(pd, "NA", None):
        return "NA"
    if value is getattr(pd, "NaT", None):
        return "NaT"
    return None

#: Text of a missing table cell (None, pandas NA, NaT, NaN); shown greyed italic.
NA_TEXT = "<NA>"


def is_missing(value: Any) -> bool:
    """True for None, ``pd.NA``, ``pd.NaT``, float NaN and ``numpy.datetime64('NaT')``.

    Empty strings are *not* missing (a table shows one as an empty cell,
    :func:`value_text` as ``''``).
    """
    if value is None or _pandas_missing(value) is not None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    np = _numpy()
    if np is None:
        return False
    if isinstance(value, np.floating):
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
    missing = _pandas_missing(value)
    if missing is not None:
        return missing
    np = _numpy()
    if np is not None and isinstance(value, np.generic):
        return value.dtype.name
    if np is not None and isinstance(value, np.ndarray):
        return f"array {value.dtype.name} {value.shape}"
    if isinstance(value, str):  # a StrEnum member (a format id) is a str to the reader
        return "str"
    return type(value).__name__


def value_text(value: Any, limit: int = 200) -> str:
    """Display text of a value; strings are quoted, missing values marked."""
    if value is None:
        return "None"
    missing = _pandas_missing(value)
    if missing is not None:
        return "<NA>" if missing == "NA" else missing
    np = _numpy()
    if isinstance(value, str):
        text = repr(value) if value == "" else f'"{value}"'
    elif isinstance(value, bytes):
        text = repr(value)
    elif isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        text = "true" if value else "false"
    elif isinstance(value, float) or (np is not None and isinstance(value, np.floating)):
        f = float(value)
        text = "NaN" if math.isnan(f) else repr(f)
    elif np is not None and isinstance(value, np.ndarray):
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
    return cut_text(text, limit)


def cut_text(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its first ``limit - 1`` and "…"."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
