"""Value decoding for HDF5 files (recordings and any other): HDF5 text, typed JSON values.

Two JSON encodings are used by the ``verify --json`` summary (corpus
``expected.json``, README "Typed values"):

* :func:`typed` keeps the Python type of a scalar: ``{"type": "int",
  "value": 1}`` versus ``{"type": "str", "value": "1"}``; ``None``,
  ``pandas.NA`` and ``pandas.NaT`` become ``{"type": "none"|"na"|"nat"}``;
  byte strings ``{"type": "bytes", "value": <UTF-8 text>}``.  pandas is
  imported only to write a date and time (``pandas.Timestamp.isoformat``);
  ``pandas.NA`` and ``pandas.NaT`` are recognised without importing it
  (:mod:`inspector.formats.values.pandas_values`).
* :func:`plain` turns attribute values (numpy scalars and arrays) into plain
  JSON (lists, numbers, strings) for the ``*_info`` dictionaries.

Non-finite floats are written as the strings ``"NaN"``, ``"Infinity"`` and
``"-Infinity"`` so that ``json.dumps(..., allow_nan=False)`` succeeds.

Text attributes may be stored as variable- or fixed-length strings, as bytes
or as one-element arrays; :func:`as_text` reads them all the same (seed,
"Format header"; recording notes §1 "Text attributes may arrive as bytes or
str").  Invalid UTF-8 never raises: it is shown with backslash escapes and
reported by the caller (:class:`Text.valid` is False).
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass
from typing import Any

import h5py
import numpy as np

from inspector.formats.values.pandas_values import is_na, is_nat


@dataclass(frozen=True)
class Text:
    """A decoded HDF5 text value.

    Attributes:
        value: the text; invalid UTF-8 bytes appear as ``\\xNN`` escapes.
        valid: False when the stored bytes were not valid UTF-8.
        stored_as: ``"str"`` (variable-length string), ``"bytes"``
            (fixed-length or byte string) or ``"array"`` (one-element array).
    """

    value: str
    valid: bool = True
    stored_as: str = "str"


def _decode_bytes(raw: bytes) -> tuple[str, bool]:
    try:
        return raw.decode("utf-8"), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", "backslashreplace"), False


def _check_str(s: str) -> tuple[str, bool]:
    """h5py decodes invalid UTF-8 with ``surrogateescape``: detect and escape it."""
    try:
        s.encode("utf-8")
        return s, True
    except UnicodeEncodeError:
        raw = s.encode("utf-8", "surrogateescape")
        return raw.decode("utf-8", "backslashreplace"), False


def as_text(value: Any) -> Text | None:
    """Decode ``value`` as text, or return None when it is not text.

    Accepts ``str``, ``bytes``/``numpy.bytes_`` and one-element arrays of
    either (any dimensionality).  Never raises.
    """
    stored = "str"
    if isinstance(value, np.ndarray):
        if value.size != 1 or value.dtype.kind not in "OSU":
            return None
        value = value.reshape(-1)[0]
        stored = "array"
    if isinstance(value, (bytes, np.bytes_)):
        text, ok = _decode_bytes(bytes(value))
        return Text(text, ok, "bytes" if stored == "str" else stored)
    if isinstance(value, str):
        text, ok = _check_str(str(value))
        return Text(text, ok, stored)
    return None


def is_missing(value: Any) -> bool:
    """True for None, pandas.NA, pandas.NaT and float NaN (the reference's missing labels)."""
    if value is None or is_na(value) or is_nat(value):
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(float(value))
    return False


def json_float(x: float | np.floating[Any]) -> float | str:
    """A float for JSON: non-finite values as ``"NaN"``/``"Infinity"``/``"-Infinity"``."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def typed(value: Any) -> dict[str, Any]:
    """Encode one scalar as a typed JSON value (corpus README, "Typed values")."""
    if value is None:
        return {"type": "none"}
    if is_na(value):
        return {"type": "na"}
    if is_nat(value):
        return {"type": "nat"}
    if isinstance(value, (bool, np.bool_)):
        return {"type": "bool", "value": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"type": "int", "value": int(value)}
    if isinstance(value, (float, np.floating)):
        return {"type": "float", "value": json_float(value)}
    if isinstance(value, (bytes, np.bytes_)):
        return {"type": "bytes", "value": _decode_bytes(bytes(value))[0]}
    if isinstance(value, str):
        return {"type": "str", "value": _check_str(str(value))[0]}
    if isinstance(value, (_dt.datetime, np.datetime64)):  # pandas.Timestamp is a datetime
        import pandas as pd

        return {"type": "timestamp", "value": str(pd.Timestamp(value).isoformat())}
    if isinstance(value, h5py.Empty):
        return {"type": "empty", "value": str(value.dtype)}
    if isinstance(value, np.ndarray):
        return {"type": "array", "value": [typed(v) for v in value.reshape(-1).tolist()]}
    if isinstance(value, (list, tuple)):
        return {"type": "array", "value": [typed(v) for v in value]}
    return {"type": type(value).__name__, "value": repr(value)}


def plain(value: Any) -> Any:
    """Convert an attribute value to plain JSON (lists, numbers, text).

    Mirrors how the reference turns attributes into Python values (arrays to
    lists, numpy scalars to int/float); byte strings become their UTF-8 text
    and non-finite floats their JSON string names.
    """
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()] if value.ndim else plain(value.item())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return json_float(value)
    if isinstance(value, (bytes, np.bytes_)):
        return _decode_bytes(bytes(value))[0]
    if isinstance(value, str):
        return _check_str(value)[0]
    if value is None:
        return None
    if isinstance(value, h5py.Empty):
        return {"empty": str(value.dtype)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return repr(value)


def _clean(value: Any) -> tuple[Any, bool]:
    """``value`` with every string made valid UTF-8 (escapes) and whether it was."""
    if isinstance(value, str):
        return _check_str(value)
    if isinstance(value, (bytes, np.bytes_)):
        return _decode_bytes(bytes(value))
    if isinstance(value, list):
        cleaned = [_clean(v) for v in value]
        return [c for c, _ in cleaned], all(ok for _, ok in cleaned)
    return value, True


#: dtype kinds of arrays of texts (variable-length strings are objects in h5py).
TEXT_KINDS = frozenset("OSU")
#: Longest 1-D array of texts (channel names, labels) shown as its list of texts.
MAX_LISTED_TEXTS = 4096


def display_checked(value: Any) -> tuple[Any, bool]:
    """A value for a display tree node, and False when it held invalid UTF-8 text.

    Text is decoded (invalid bytes and lone surrogates shown as ``\\xNN``
    escapes, so no unencodable string reaches a view), arrays of at most 64
    elements and 1-D arrays of at most :data:`MAX_LISTED_TEXTS` texts (channel
    names) become lists, larger ones a short description, numpy scalars Python
    scalars.
    """
    t = as_text(value)
    if t is not None:
        return t.value, t.valid
    if isinstance(value, np.ndarray):
        if value.size > 64 and not (value.ndim == 1 and value.dtype.kind in TEXT_KINDS
                                    and value.size <= MAX_LISTED_TEXTS):
            return f"array{value.shape} {value.dtype}", True
        return _clean(value.tolist())
    if isinstance(value, np.generic):
        return _clean(value.item())
    return _clean(value)


def display(value: Any) -> Any:
    """A value for a display tree node (see :func:`display_checked`)."""
    return display_checked(value)[0]
