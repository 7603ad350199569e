"""Typed scalar sequences (``encoding = "vneurotk_scalar_v1"``).

Spec section 4: a group with two equal-length datasets, ``types`` (uint8
codes) and ``values`` (UTF-8 text).  Codes: 1 bool (``"1"``/``"0"``), 2 int
(decimal), 3 float (``float.hex()`` text), 4 str, 5 None, 6 pandas.NA,
7 pandas.NaT.  ``1`` (int) and ``"1"`` (str) stay different.  Unknown codes,
length mismatches and non-finite floats where missing values are not allowed
are errors (seed, "Safe scalar identifiers").  pandas is imported only to
decode a code 6 or 7 value.
"""

from __future__ import annotations

import math
from typing import Any

import h5py
import numpy as np

from inspector.formats.hdf5 import external_guard
from inspector.formats.hdf5.heap import ValueTooLarge, check_dataset, read_attribute
from inspector.formats.hdf5.source import RuleError, too_large
from inspector.formats.hdf5.values import as_text
from inspector.formats.vneurotk import rules as R

SCALAR_ENCODING = "vneurotk_scalar_v1"
CODE_BOOL, CODE_INT, CODE_FLOAT, CODE_STR, CODE_NONE, CODE_NA, CODE_NAT = range(1, 8)
MISSING_CODES = (CODE_NONE, CODE_NA, CODE_NAT)
#: Most values of one typed sequence read whole at open (stimulus IDs, table columns).
MAX_SEQUENCE = 1 << 22


def is_scalar_sequence(obj: Any) -> bool:
    """True if ``obj`` is a group carrying the typed-scalar encoding attribute."""
    if not isinstance(obj, h5py.Group):
        return False
    t = as_text(read_attribute(obj, "encoding", ""))
    return t is not None and t.value == SCALAR_ENCODING


def _decode_bool(text: str, location: str) -> bool:
    if text not in ("0", "1"):
        raise RuleError(R.SCALAR_MALFORMED, f"typed bool payload {text!r} is not '0' or '1'",
                        location)
    return text == "1"


def _decode_int(text: str, location: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RuleError(R.SCALAR_MALFORMED, f"typed int payload {text!r} is not decimal text",
                        location) from None


def _decode_float(text: str, location: str, allow_nonfinite: bool) -> float:
    try:
        value = float.fromhex(text)
    except (ValueError, OverflowError):
        raise RuleError(R.SCALAR_MALFORMED,
                        f"typed float payload {text!r} is not float.hex() text",
                        location) from None
    if not allow_nonfinite and not math.isfinite(value):
        raise RuleError(R.SCALAR_NONFINITE,
                        f"typed float value {value!r} is not finite; schema-1 typed scalars "
                        "allow NaN only where missing values are allowed", location)
    return value


def _missing(code: int) -> Any:
    """The value of a code without payload: None, ``pandas.NA`` or ``pandas.NaT``."""
    if code == CODE_NONE:
        return None
    import pandas as pd

    return pd.NA if code == CODE_NA else pd.NaT


def decode_one(code: int, payload: Any, *, allow_nonfinite: bool, location: str) -> Any:
    """Decode one ``(code, payload)`` pair (notes §4).

    Returns a bool, int, float, str, None, ``pandas.NA`` or ``pandas.NaT``.

    Raises:
        RuleError: unknown code, malformed payload, or a non-finite float
            where it is not allowed.
    """
    t = as_text(payload)
    text = t.value if t is not None else str(payload)
    if code == CODE_BOOL:
        return _decode_bool(text, location)
    if code == CODE_INT:
        return _decode_int(text, location)
    if code == CODE_FLOAT:
        return _decode_float(text, location, allow_nonfinite)
    if code == CODE_STR:
        return text
    if code in MISSING_CODES:
        return _missing(code)
    raise RuleError(R.SCALAR_UNKNOWN_CODE,
                    f"unknown typed scalar code {code} (codes run from 1 to 7)", location)


def sequence_parts(group: h5py.Group, location: str) -> tuple[h5py.Dataset, h5py.Dataset]:
    """Return the ``types`` and ``values`` datasets of a typed sequence, checked.

    Raises:
        RuleError: not a typed sequence, a part missing, or lengths differ.
    """
    if not is_scalar_sequence(group):
        raise RuleError(R.SCALAR_ENCODING,
                        f"{location} is not a typed scalar sequence (needs attribute "
                        f"encoding='{SCALAR_ENCODING}')", location)
    missing = [n for n in ("types", "values") if not isinstance(group.get(n), h5py.Dataset)]
    if missing:
        raise RuleError(R.SCALAR_INCOMPLETE,
                        f"typed scalar sequence {location} lacks dataset(s) {', '.join(missing)}",
                        location)
    types, values = group["types"], group["values"]
    if types.shape != values.shape or types.shape is None or len(types.shape) != 1:
        raise RuleError(R.SCALAR_LENGTH_MISMATCH,
                        f"typed scalar sequence {location}: types {types.shape} and values "
                        f"{values.shape} differ in length", location)
    return types, values


def read_sequence(group: h5py.Group, location: str, *, allow_nonfinite: bool = False,
                  limit: int = MAX_SEQUENCE) -> list[Any]:
    """Read a whole typed scalar sequence as Python values.

    Args:
        limit: most values read; a longer sequence is not read at all.

    Raises:
        RuleError: see :func:`sequence_parts` and :func:`decode_one`;
            ``scalar.too-large`` when the sequence holds more than ``limit``.
    """
    types_ds, values_ds = sequence_parts(group, location)
    n = int(types_ds.shape[0])
    if n > limit:
        raise RuleError(R.SCALAR_TOO_LARGE,
                        f"typed scalar sequence {location} declares {n} values, more than the "
                        f"{limit} read at open", location)
    try:
        check_dataset(values_ds)
    except ValueTooLarge as exc:
        raise too_large(exc, f"{location}/values") from exc
    with external_guard.watched(types_ds):
        types = np.asarray(types_ds[()]).reshape(-1)
    with external_guard.watched(values_ds):
        values = np.asarray(values_ds[()], dtype=object).reshape(-1)
    return [
        decode_one(int(c), v, allow_nonfinite=allow_nonfinite, location=location)
        for c, v in zip(types, values, strict=True)
    ]
