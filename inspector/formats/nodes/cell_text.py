"""A value as one cell of text: numbers (the shortest form that reads back the same),
complex numbers, and the plain Python values of a column's kind."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.nodes.data import NUMERIC_KINDS, ColumnKind

if TYPE_CHECKING:
    pass


# -- display text -------------------------------------------------------------------------
def number_text(v: Any) -> str:
    """The shortest text that reads back as the same number (``"0.1"`` for a
    float32 0.1), ``"NaN"``, ``"Infinity"``, ``"-Infinity"``."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (complex, np.complexfloating)):
        return complex_text(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return str(v if isinstance(v, np.floating) else np.float64(v))
    return str(int(v))


def complex_text(v: Any) -> str:
    """``"1.5+2j"``: real and imaginary parts in shortest form (Python ``complex()``
    reads it back)."""
    c = np.complex128(v) if not isinstance(v, np.complexfloating) else v
    re, im = c.real, c.imag
    sign = "-" if (math.copysign(1.0, float(im)) < 0 and not math.isnan(float(im))) else "+"
    parts = [number_text(re), number_text(abs(im))]
    parts = [p[:-2] if p.endswith(".0") else p for p in parts]
    parts = [{"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(p, p) for p in parts]
    return f"{parts[0]}{sign}{parts[1]}j"


def plain_value(v: Any) -> Any:
    """A JSON-ready form of one decoded value: numbers (non-finite floats as
    ``"NaN"``/``"Infinity"``/``"-Infinity"``), ``[real, imag]`` for complex,
    text, None, lists."""
    if v is None or isinstance(v, (str, bool)):
        return v
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, (complex, np.complexfloating)):
        c = complex(v)
        return [plain_value(c.real), plain_value(c.imag)]
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else number_text(f)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (list, tuple)):
        return [plain_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain_value(x) for k, x in v.items()}
    if isinstance(v, np.ndarray):
        return [plain_value(x) for x in v.tolist()]
    return str(v)


def cell_text(kind: ColumnKind, v: Any, limit: int | None = None) -> str:
    """The text of one value, as every view and ``inspector dump --format csv`` show it.

    Numbers in shortest round-trip form, booleans ``true``/``false``, complex
    ``a+bj``, text as decoded, a null reference ``""``, sequences as JSON.
    ``limit`` cuts long text with ``"…"`` (table cells).
    """
    if kind in NUMERIC_KINDS:
        text = number_text(v)
    elif kind == ColumnKind.SEQUENCE:
        text = json.dumps(plain_value(v), ensure_ascii=False, allow_nan=False)
    elif v is None:
        text = ""
    else:
        text = str(v)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
