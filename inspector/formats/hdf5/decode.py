"""Turn values as h5py reads them into display columns (:class:`.node_data.Column`).

h5py hands compound values as numpy structured arrays, fixed-length strings
as ``numpy.bytes_``, variable-length strings as ``bytes``, enums as their
base integers, references as ``h5py.Reference`` objects, opaque values as
``numpy.void`` and variable-length sequences as object arrays of arrays.
:func:`decode_columns` walks each :class:`ColumnSpec` to its field or
element and decodes it:

* text: UTF-8 (ASCII is a subset); invalid bytes become ``\\xNN`` escapes and
  are flagged in ``Column.escaped`` (never a lone surrogate: HDF5 text must
  be UTF-8, VneuroTK recording notes §1);
* enums: the label of each stored value (the number when it has none);
* references: the target's path (a region reference adds its selection, e.g.
  ``/data[1:3, 0:2]``), None for a null reference;
* opaque: lowercase hexadecimal; numpy datetimes: ISO text;
* numbers: native byte order (big-endian files read like any other).

Nothing here reads the file except :class:`ReferenceNames` (reference names).
"""

from __future__ import annotations

import itertools
import math
import sys
import threading
from typing import Any

import h5py
import numpy as np

from inspector.formats.nodes.data import Column, ColumnKind, ColumnSpec, TypeInfo

_SEL_NONE, _SEL_ALL = h5py.h5s.SEL_NONE, h5py.h5s.SEL_ALL


def decode_text(raw: Any) -> tuple[str, bool]:
    """``(text, valid)`` of one stored string; invalid UTF-8 is ``\\xNN``-escaped.

    ``str`` input (h5py decoded it with ``surrogateescape``) is checked for
    surrogates and escaped the same way.
    """
    if isinstance(raw, str):
        try:
            raw.encode("utf-8")
            return raw, True
        except UnicodeEncodeError:
            raw = raw.encode("utf-8", "surrogateescape")
    if isinstance(raw, np.ndarray):
        raw = raw.tobytes()
    b = bytes(raw)
    try:
        return b.decode("utf-8"), True
    except UnicodeDecodeError:
        return b.decode("utf-8", "backslashreplace"), False


class ReferenceNames:
    """Names of the targets of object and region references, within one file.

    Args:
        loc: any open ``h5py`` object id of the file the references point into.
    """

    def __init__(self, loc: Any) -> None:
        self._loc = loc

    def __call__(self, ref: Any) -> str | None:
        """The target path (region references with their selection), None for a null
        reference, ``"(unresolvable reference)"`` when its target is gone."""
        if not ref:
            return None
        try:
            name = h5py.h5r.get_name(ref, self._loc)
        except (OSError, RuntimeError, ValueError, TypeError):
            return "(unresolvable reference)"
        if name is None:
            return "(unresolvable reference)"
        path = name.decode("utf-8", "backslashreplace")
        if isinstance(ref, h5py.RegionReference):
            path += self._region(ref)
        return path

    def _region(self, ref: Any) -> str:
        try:
            space = h5py.h5r.get_region(ref, self._loc)
            kind = space.get_select_type()
            if kind == _SEL_ALL:
                return "[...]"
            if kind == _SEL_NONE or space.get_select_npoints() == 0:
                return "[] (empty region)"
            lo, hi = space.get_select_bounds()
            n = int(space.get_select_npoints())
        except (OSError, RuntimeError, ValueError, TypeError):
            return "[?] (region unreadable)"
        box = "[" + ", ".join(f"{a}:{b + 1}" for a, b in zip(lo, hi, strict=True)) + "]"
        full = math.prod(b - a + 1 for a, b in zip(lo, hi, strict=True))
        return box if n == full else f"{box} ({n:,} of {full:,} elements)"


def _native(a: np.ndarray) -> np.ndarray:
    if a.dtype.byteorder not in ("=", "|") and not a.dtype.isnative:
        return a.astype(a.dtype.newbyteorder("="))
    return a


def _walk(raw: np.ndarray, spec: ColumnSpec) -> np.ndarray:
    a = raw
    for step in spec.steps:
        index: Any = step if isinstance(step, str) else (Ellipsis, *step)
        a = a[index]
    return np.asarray(a)


def _text_column(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    out = np.empty(a.shape, dtype=object)
    bad = np.zeros(a.shape, dtype=bool)
    if a.dtype.kind == "S":
        try:
            out[...] = np.char.decode(a, "utf-8")
            return out, bad
        except UnicodeDecodeError:
            pass
    for i, v in np.ndenumerate(a):
        out[i], ok = decode_text(v)
        bad[i] = not ok
    return out, bad


def _enum_column(a: np.ndarray, t: TypeInfo) -> np.ndarray:
    labels = {v: k for k, v in reversed(t.members)}
    codes = np.asarray(a).astype(np.int64)
    if codes.size == 0:
        return np.empty(codes.shape, dtype=object)
    uniq, inv = np.unique(codes.reshape(-1), return_inverse=True)
    names = np.array([labels.get(int(u), str(int(u))) for u in uniq], dtype=object)
    return np.asarray(names[inv.reshape(-1)], dtype=object).reshape(codes.shape)


def _hex_column(a: np.ndarray) -> np.ndarray:
    out = np.empty(a.shape, dtype=object)
    for i, v in np.ndenumerate(a):
        out[i] = bytes(v).hex() if not isinstance(v, bytes) else v.hex()
    return out


def _time_column(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "M":
        return np.datetime_as_string(a).astype(object)
    out = np.empty(a.shape, dtype=object)
    for i, v in np.ndenumerate(a):
        out[i] = str(v)
    return out


_NUMERIC_CLASSES = ("integer", "float", "bitfield", "boolean", "complex")


def _array_leaf(t: TypeInfo) -> tuple[int, TypeInfo]:
    """``(number of dimensions, element type)`` of a (nested) array type."""
    ndim, base = 0, t
    while base.type_class == "array" and base.base is not None:
        ndim += len(base.dims)
        base = base.base
    return ndim, base


def _nested(v: Any, depth: int, leaf: TypeInfo, names: ReferenceNames) -> Any:
    if depth == 0:
        return plain(v, leaf, names)
    if leaf.type_class in _NUMERIC_CLASSES and isinstance(v, np.ndarray):
        return _native(v).tolist()
    return [_nested(x, depth - 1, leaf, names) for x in v]


_probe_lock = threading.Lock()
_swapped_vlen: list[bool] = []
_probe_names = itertools.count()


def vlen_order_is_lost() -> bool:
    """True when this h5py returns the numbers of a variable-length sequence whose
    base type has the other byte order as stored bytes under a native dtype (h5py
    3.16 does: a big-endian ``[1]`` reads as ``[16777216]``).  Probed once, on an
    in-memory file, so a fixed h5py is not "corrected" twice."""
    with _probe_lock:
        if not _swapped_vlen:
            other = np.dtype(">i4" if sys.byteorder == "little" else "<i4")
            with h5py.File(f"vlen-probe-{next(_probe_names)}.h5", "w", driver="core",
                           backing_store=False) as f:
                ds = f.create_dataset("v", (1,), dtype=h5py.vlen_dtype(other))
                ds[0] = np.array([1], dtype=other)
                got = np.asarray(ds[0])
            _swapped_vlen.append(bool(got.dtype.isnative and int(got[0]) != 1))
        return _swapped_vlen[0]


_NATIVE_ORDER = "little-endian" if sys.byteorder == "little" else "big-endian"


def _vlen_items(v: Any, base: TypeInfo) -> np.ndarray:
    items = np.asarray(v) if not isinstance(v, np.ndarray) else v
    foreign = base.type_class in ("integer", "float") and base.byte_order not in (
        "", _NATIVE_ORDER)
    if foreign and items.dtype.isnative and items.dtype.itemsize > 1 and vlen_order_is_lost():
        items = items.byteswap()
    return items


def plain(v: Any, t: TypeInfo, names: ReferenceNames) -> Any:
    """One value of type ``t`` as plain Python (lists, dicts, numbers, text), for
    sequences and large array members."""
    cls = t.type_class
    if cls == "vlen" and t.base is not None:
        items = _vlen_items(v, t.base)
        return _nested(items, 1, t.base, names) if items.ndim == 1 else \
            [plain(x, t.base, names) for x in items.reshape(-1)]
    if cls == "array":
        depth, leaf = _array_leaf(t)
        return _nested(np.asarray(v), depth, leaf, names)
    if cls == "compound" and isinstance(v, np.void) and v.dtype.names:
        return {f.name: plain(v[f.name], f.type, names) for f in t.fields}
    if cls == "string":
        return decode_text(v)[0]
    if cls in ("enum", "boolean") and not isinstance(v, (bool, np.bool_)):
        return {m: k for k, m in reversed(t.members)}.get(int(v), str(int(v)))
    if cls == "reference":
        return names(v)
    if cls == "opaque" and isinstance(v, (np.void, bytes)):
        return v.hex() if isinstance(v, bytes) else v.tobytes().hex()
    if isinstance(v, np.generic):
        return v.item()
    return v


def _sequence_column(a: np.ndarray, spec: ColumnSpec, shape: tuple[int, ...],
                     names: ReferenceNames) -> np.ndarray:
    """Object array of ``shape``: each element (a vlen sequence, or a large array
    member: the trailing dimensions of ``a``) as a list."""
    out = np.empty(shape, dtype=object)
    t = spec.type
    if t.type_class == "array":
        flat = a.reshape((math.prod(shape),) + a.shape[len(shape):])
        for k, idx in enumerate(np.ndindex(*shape)):
            out[idx] = plain(flat[k], t, names)
        return out
    for idx in np.ndindex(*shape):
        out[idx] = plain(a[idx], t, names)
    return out


def decode_column(spec: ColumnSpec, a: np.ndarray, shape: tuple[int, ...],
                  names: ReferenceNames) -> Column:
    """Decode the raw values ``a`` of one column over a selection of ``shape``."""
    kind = spec.kind
    if kind in (ColumnKind.NUMBER, ColumnKind.COMPLEX):
        return Column(spec, _native(a))
    if kind == ColumnKind.BOOL:
        return Column(spec, a.astype(bool))
    if kind == ColumnKind.TEXT:
        values, bad = _text_column(a)
        return Column(spec, values, bad)
    if kind == ColumnKind.ENUM:
        return Column(spec, _enum_column(a, spec.type))
    if kind == ColumnKind.REFERENCE:
        out = np.empty(a.shape, dtype=object)
        for i, v in np.ndenumerate(a):
            out[i] = names(v)
        return Column(spec, out)
    if kind == ColumnKind.TIME:
        return Column(spec, _time_column(a))
    if kind == ColumnKind.SEQUENCE:
        return Column(spec, _sequence_column(a, spec, shape, names))
    return Column(spec, _hex_column(a))


def decode_columns(raw: np.ndarray, specs: tuple[ColumnSpec, ...], shape: tuple[int, ...],
                   names: ReferenceNames) -> tuple[Column, ...]:
    """Every column of ``raw`` (an array of the selection's ``shape``, plus the
    trailing dimensions of a top-level array type)."""
    return tuple(decode_column(s, _walk(raw, s), shape, names) for s in specs)
