"""Field-by-field comparison of nested metadata (dictionaries, lists, scalars).

Values are made JSON-ready and typed where their type matters
(:func:`typed`: the stimulus ID ``1`` and ``"1"`` differ, VneuroTK format
document, "Typed scalars"); NaN equals NaN; floats equal within the options'
tolerance.  Nothing here imports Qt.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from inspector.formats.compare.model import ADDED, CHANGED, REMOVED, Collector, Difference

#: Marker of a value absent on one side.
MISSING = object()


def plain(value: Any) -> Any:
    """``value`` as JSON can hold it: numpy scalars and arrays as Python values,
    tuples as lists, bytes decoded (UTF-8, escaped), other objects as their text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):  # non-finite as the corpus and verify --json write them
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        try:
            return plain(tolist())
        except (TypeError, ValueError):
            pass
    return str(value)


def typed(value: Any) -> dict[str, Any]:
    """A typed ID as JSON: ``{"type": "int", "value": 1}`` (the corpus's typed values)."""
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, str | bytes):
        try:
            value = item()
        except (TypeError, ValueError):
            pass
    if value is None:
        return {"type": "none"}
    name = {bool: "bool", int: "int", float: "float", str: "str", bytes: "bytes"}.get(
        type(value), type(value).__name__)
    return {"type": name, "value": plain(value)}


def typed_key(value: Any) -> tuple[str, str]:
    """A hashable key of a typed ID: its type name and its text (``1`` and ``"1"``
    differ; NaN keys equal)."""
    t = typed(value)
    return t["type"], repr(t.get("value"))


def scalars_equal(a: Any, b: Any, rtol: float = 0.0, atol: float = 0.0) -> bool:
    """True when two plain scalars are equal: same type family, NaN equals NaN,
    numbers within ``atol + rtol * |b|``.  ``True`` and ``1`` differ."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        if fa == fb:
            return True
        return math.isfinite(fa) and math.isfinite(fb) and abs(fa - fb) <= atol + rtol * abs(fb)
    return type(a) is type(b) and a == b


def compare_fields(out: Collector, section: str, path: str, a: Any, b: Any,
                   content: bool = True) -> None:
    """Record every leaf that differs between the nested values ``a`` and ``b``.

    Mappings are compared key by key (``path.key``), sequences of equal length item by
    item (``path[i]``); sequences of different lengths, and leaves, as one value.
    A side that is :data:`MISSING` makes the other side ``added`` or ``removed``.
    """
    if a is MISSING or b is MISSING:
        if a is not b:
            kind = ADDED if a is MISSING else REMOVED
            out.add(Difference(section, kind, path, None if a is MISSING else plain(a),
                               None if b is MISSING else plain(b), content))
        return
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in list(a) + [k for k in b if k not in a]:
            sub = f"{path}.{key}" if path else str(key)
            compare_fields(out, section, sub, a.get(key, MISSING), b.get(key, MISSING),
                           content)
        return
    if (_sequence(a) and _sequence(b) and len(a) == len(b)
            and any(isinstance(v, Mapping) or _sequence(v) for v in (*a, *b))):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            compare_fields(out, section, f"{path}[{i}]", x, y, content)
        return
    if not _leaves_equal(a, b, out.options.rtol, out.options.atol):
        out.add(Difference(section, CHANGED, path, plain(a), plain(b), content))


def _sequence(v: Any) -> bool:
    return isinstance(v, Sequence) and not isinstance(v, str | bytes)


def _leaves_equal(a: Any, b: Any, rtol: float, atol: float) -> bool:
    if _sequence(a) and _sequence(b):
        return len(a) == len(b) and all(_leaves_equal(x, y, rtol, atol)
                                        for x, y in zip(a, b, strict=True))
    pa, pb = _scalar(a), _scalar(b)
    return scalars_equal(pa, pb, rtol, atol)


def _scalar(v: Any) -> Any:
    item = getattr(v, "item", None)
    if callable(item) and getattr(v, "ndim", 0) == 0 and not isinstance(v, str | bytes):
        try:
            return item()
        except (TypeError, ValueError):
            return v
    return v
