"""Typed scalar sequences (``encoding = "vneurotk_scalar_v1"``).

Spec section 4: a group with two equal-length datasets, ``types`` (uint8
codes) and ``values`` (UTF-8 text).  Codes: 1 bool (``"1"``/``"0"``), 2 int
(decimal), 3 float (``float.hex()`` text), 4 str, 5 None, 6 pandas.NA,
7 pandas.NaT.  ``1`` (int) and ``"1"`` (str) stay different.  Unknown codes,
length mismatches and non-finite floats where missing values are not allowed
are errors (seed, "Safe scalar identifiers").
"""

from __future__ import annotations

import math
from typing import Any

import h5py
import numpy as np
import pandas as pd

from inspector.formats.vneurotk.source import RuleError
from inspector.formats.vneurotk.values import as_text

SCALAR_ENCODING = "vneurotk_scalar_v1"
CODE_BOOL, CODE_INT, CODE_FLOAT, CODE_STR, CODE_NONE, CODE_NA, CODE_NAT = range(1, 8)
MISSING_CODES = (CODE_NONE, CODE_NA, CODE_NAT)


def is_scalar_sequence(obj: Any) -> bool:
    """True if ``obj`` is a group carrying the typed-scalar encoding attribute."""
    if not isinstance(obj, h5py.Group):
        return False
    t = as_text(obj.attrs.get("encoding", ""))
    return t is not None and t.value == SCALAR_ENCODING


def decode_one(code: int, payload: Any, *, allow_nonfinite: bool, location: str) -> Any:
    """Decode one ``(code, payload)`` pair.

    Raises:
        RuleError: unknown code, malformed payload, or a non-finite float
            where it is not allowed (VneuroTK on-disk notes §4).
    """
    t = as_text(payload)
    text = t.value if t is not None else str(payload)
    if code == CODE_BOOL:
        if text not in ("0", "1"):
            raise RuleError("scalar.malformed", f"typed bool payload {text!r} is not '0' or '1' (VneuroTK on-disk notes §4)", location)
        return text == "1"
    if code == CODE_INT:
        try:
            return int(text)
        except ValueError:
            raise RuleError("scalar.malformed", f"typed int payload {text!r} is not decimal text (VneuroTK on-disk notes §4)", location) from None
    if code == CODE_FLOAT:
        try:
            value = float.fromhex(text)
        except (ValueError, OverflowError):
            raise RuleError("scalar.malformed", f"typed float payload {text!r} is not float.hex() text (VneuroTK on-disk notes §4)", location) from None
        if not allow_nonfinite and not math.isfinite(value):
            raise RuleError(
                "scalar.nonfinite",
                f"typed float value {value!r} is not finite; schema-1 typed scalars allow NaN only "
                "where missing values are allowed (seed, 'Safe scalar identifiers'; VneuroTK on-disk notes §4)",
                location,
            )
        return value
    if code == CODE_STR:
        return text
    if code == CODE_NONE:
        return None
    if code == CODE_NA:
        return pd.NA
    if code == CODE_NAT:
        return pd.NaT
    raise RuleError("scalar.unknown-code", f"unknown typed scalar code {code} (VneuroTK on-disk notes §4 allows 1..7)", location)


def sequence_parts(group: h5py.Group, location: str) -> tuple[h5py.Dataset, h5py.Dataset]:
    """Return the ``types`` and ``values`` datasets of a typed sequence, checked.

    Raises:
        RuleError: not a typed sequence, a part missing, or lengths differ.
    """
    if not is_scalar_sequence(group):
        raise RuleError(
            "scalar.encoding",
            f"{location} is not a typed scalar sequence (needs attribute encoding='{SCALAR_ENCODING}', VneuroTK on-disk notes §4)",
            location,
        )
    missing = [n for n in ("types", "values") if not isinstance(group.get(n), h5py.Dataset)]
    if missing:
        raise RuleError("scalar.incomplete", f"typed scalar sequence {location} lacks dataset(s) {', '.join(missing)} (VneuroTK on-disk notes §4)", location)
    types, values = group["types"], group["values"]
    if types.shape != values.shape or len(types.shape) != 1:
        raise RuleError(
            "scalar.length-mismatch",
            f"typed scalar sequence {location}: types {types.shape} and values {values.shape} differ in length (VneuroTK on-disk notes §4)",
            location,
        )
    return types, values


def read_sequence(group: h5py.Group, location: str, *, allow_nonfinite: bool = False) -> list[Any]:
    """Read a whole typed scalar sequence as Python values.

    Raises:
        RuleError: see :func:`sequence_parts` and :func:`decode_one`.
    """
    types_ds, values_ds = sequence_parts(group, location)
    types = np.asarray(types_ds[()]).reshape(-1)
    values = np.asarray(values_ds[()], dtype=object).reshape(-1)
    return [
        decode_one(int(c), v, allow_nonfinite=allow_nonfinite, location=location)
        for c, v in zip(types, values, strict=True)
    ]
