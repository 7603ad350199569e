"""Describe HDF5 datatypes, layouts and links without reading values.

:func:`type_info` turns an HDF5 datatype (``h5py.h5t.TypeID``) into a
:class:`~inspector.formats.nodes.data.TypeInfo`: class, size, byte order,
sign, precision, float layout, string storage (fixed or variable length,
charset, padding), compound members with their offsets, enum mapping, array
dimensions, variable-length and complex base types, reference kind, opaque
tag (HDF5 File Format Specification 3.0, "Datatype Message").
:func:`dataset_storage` describes the layout (contiguous, chunked, compact,
virtual), chunk shape, filter pipeline and availability, fill value and
times, external raw files, virtual sources and how the name links to the
object ("Data Layout Message", "Filter Pipeline Message", "Fill Value
Message", "External Data Files Message", "Links").

Everything here reads metadata only; nested types are followed at most
:data:`MAX_DEPTH` levels deep and at most
:data:`~inspector.formats.nodes.data.MAX_COLUMNS` members are described.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import h5py
import numpy as np

from inspector.formats.hdf5 import external_guard
from inspector.formats.hdf5.filters import create_plist
from inspector.formats.nodes.cell_text import cell_text
from inspector.formats.nodes.data import (
    MAX_COLUMNS,
    ColumnKind,
    FieldInfo,
    FilterInfo,
    LinkInfo,
    StorageInfo,
    StringInfo,
    TypeInfo,
)

#: Nesting levels of compound, array and vlen types described.
MAX_DEPTH = 16
#: Enum members listed in the one-line text (all are kept in ``members``).
MAX_ENUM_TEXT = 8
#: Virtual sources listed in :class:`StorageInfo`.
MAX_VIRTUAL_SOURCES = 50

_ORDER = {h5py.h5t.ORDER_LE: "little-endian", h5py.h5t.ORDER_BE: "big-endian"}
_CSET = {h5py.h5t.CSET_ASCII: "ascii", h5py.h5t.CSET_UTF8: "utf-8"}
_PAD = {h5py.h5t.STR_NULLTERM: "null-terminated", h5py.h5t.STR_NULLPAD: "null-padded",
        h5py.h5t.STR_SPACEPAD: "space-padded"}
#: IEEE layouts ``(sign, exponent position, exponent bits, mantissa position,
#: mantissa bits)`` by name.
_IEEE = {(15, 10, 5, 0, 10): "IEEE half float", (31, 23, 8, 0, 23): "IEEE float",
         (63, 52, 11, 0, 52): "IEEE double", (79, 64, 15, 0, 64): "x87 extended float"}
#: Registered filter names (HDF5 "Filter Pipeline Message"; the HDF Group's
#: registered filter list for the third-party identifiers).
FILTER_NAMES = {1: "gzip", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit",
                6: "scaleoffset", 307: "bzip2", 32000: "lzf", 32001: "blosc", 32004: "lz4",
                32008: "bitshuffle", 32015: "zstd", 32017: "sz", 32026: "blosc2"}
_LAYOUTS = {h5py.h5d.COMPACT: "compact", h5py.h5d.CONTIGUOUS: "contiguous",
            h5py.h5d.CHUNKED: "chunked", h5py.h5d.VIRTUAL: "virtual"}
_FILL_TIME = {h5py.h5d.FILL_TIME_ALLOC: "when allocated", h5py.h5d.FILL_TIME_NEVER: "never",
              h5py.h5d.FILL_TIME_IFSET: "if set"}
_ALLOC_TIME = {h5py.h5d.ALLOC_TIME_EARLY: "early", h5py.h5d.ALLOC_TIME_LATE: "late",
               h5py.h5d.ALLOC_TIME_INCR: "incremental", h5py.h5d.ALLOC_TIME_DEFAULT: "default"}


def _text(raw: bytes | str) -> str:
    """A stored name as text (invalid UTF-8 escaped, never a lone surrogate)."""
    if isinstance(raw, str):
        return raw.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")


def _order(tid: Any) -> str:
    try:
        return _ORDER.get(tid.get_order(), "")
    except (AttributeError, ValueError, RuntimeError):
        return ""


def _np(dtype: np.dtype | None) -> str:
    if dtype is None:
        return ""
    if dtype.names is not None:
        text = str(dtype)
        return text if len(text) <= 200 else text[:199] + "…"
    return dtype.str if dtype.subdtype is None else str(dtype)


def _bits(tid: Any, size: int) -> tuple[str, ...]:
    if not hasattr(tid, "get_precision"):  # h5py's bitfield ids do not expose it
        return ()
    prec, off = tid.get_precision(), tid.get_offset()
    return (f"precision {prec} bits at bit offset {off}",) if prec != 8 * size else ()


def _integer(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    size, order = tid.get_size(), _order(tid)
    signed = tid.get_sign() != h5py.h5t.SGN_NONE
    text = f"{8 * size}-bit {'signed' if signed else 'unsigned'} integer, {order}"
    return TypeInfo("integer", size, text, order, _np(dtype), signed=signed,
                    notes=_bits(tid, size))


def _float(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    size, order = tid.get_size(), _order(tid)
    s, epos, esize, mpos, msize = (int(v) for v in tid.get_fields())
    name = _IEEE.get((s, epos, esize, mpos, msize))
    notes = _bits(tid, size)
    if name is None:
        name = "custom float"
        notes += (f"sign bit {s}, {esize}-bit exponent (bias {tid.get_ebias()}), "
                  f"{msize}-bit mantissa",)
    return TypeInfo("float", size, f"{8 * size}-bit {name}, {order}", order, _np(dtype),
                    notes=notes)


def _string(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    variable = bool(tid.is_variable_str())
    cset = _CSET.get(tid.get_cset(), f"charset {tid.get_cset()}")
    pad = _PAD.get(tid.get_strpad(), f"padding {tid.get_strpad()}")
    size = tid.get_size()
    info = StringInfo("variable" if variable else "fixed", cset, pad, None if variable else size)
    what = "variable-length string" if variable else f"fixed-length string of {size} bytes"
    text = f"{what}, {cset.upper() if cset == 'ascii' else 'UTF-8'}"
    if not variable:
        text += f", {pad}"
    return TypeInfo("string", size, text, "", _np(dtype), string=info)


def _bitfield(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    size, order = tid.get_size(), _order(tid)
    return TypeInfo("bitfield", size, f"{8 * size}-bit bitfield, {order}", order, _np(dtype),
                    notes=_bits(tid, size))


def _opaque(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    size, tag = tid.get_size(), _text(tid.get_tag())
    text = f"opaque, {size} byte{'' if size == 1 else 's'}" + (f", tag {tag!r}" if tag else "")
    notes: tuple[str, ...] = ()
    if dtype is not None and dtype.kind in "Mm":
        notes = (f"numpy {dtype} (h5py's tagged opaque encoding), shown as ISO text",)
    return TypeInfo("opaque", size, text, "", _np(dtype), tag=tag, notes=notes)


def _member_dtype(dtype: np.dtype | None, name: str) -> np.dtype | None:
    if dtype is None or dtype.fields is None or name not in dtype.fields:
        return None
    return dtype.fields[name][0]


def _compound(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    size, n = tid.get_size(), tid.get_nmembers()
    fields = []
    for i in range(min(n, MAX_COLUMNS)):
        name = _text(tid.get_member_name(i))
        sub = _member_dtype(dtype, name)
        fields.append(FieldInfo(name, int(tid.get_member_offset(i)),
                                type_info(tid.get_member_type(i), sub, depth + 1)))
    notes = (f"{n - MAX_COLUMNS} more members are not described",) if n > MAX_COLUMNS else ()
    if dtype is not None and dtype.kind == "c" and len(fields) == 2:
        base = fields[0].type
        text = f"complex of two {base.text.split(',')[0]}s, {base.byte_order}, stored as a " \
               f"compound ({fields[0].name}, {fields[1].name})"
        return TypeInfo("complex", size, text, base.byte_order, _np(dtype), fields=tuple(fields),
                        base=base, notes=notes)
    names = ", ".join(f.name for f in fields[:6]) + (", …" if n > 6 else "")
    return TypeInfo("compound", size, f"compound of {n} member{'' if n == 1 else 's'} ({names}), "
                    f"{size} bytes", "", _np(dtype), fields=tuple(fields), notes=notes)


def _reference(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    size = tid.get_size()
    if tid.equal(h5py.h5t.STD_REF_DSETREG):
        return TypeInfo("reference", size, "region reference (dataset region)", "", _np(dtype),
                        reference="region")
    if tid.equal(h5py.h5t.STD_REF_OBJ):
        return TypeInfo("reference", size, "object reference", "", _np(dtype),
                        reference="object")
    return TypeInfo("reference", size, f"reference ({size} bytes, HDF5 1.12 form)", "",
                    _np(dtype), reference="other")


def _enum(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    base_dt = np.dtype(dtype.str) if dtype is not None and dtype.kind in "iub" else None
    base = type_info(tid.get_super(), base_dt, depth + 1)
    members = tuple((_text(tid.get_member_name(i)), int(tid.get_member_value(i)))
                    for i in range(min(tid.get_nmembers(), MAX_COLUMNS)))
    shown = ", ".join(f"{k}={v}" for k, v in members[:MAX_ENUM_TEXT])
    shown += ", …" if len(members) > MAX_ENUM_TEXT else ""
    if dtype is not None and dtype.kind == "b":
        return TypeInfo("boolean", base.size, f"boolean (enum {shown} of {base.text})",
                        base.byte_order, _np(dtype), members=members, base=base)
    return TypeInfo("enum", base.size, f"enum of {base.text}: {shown}", base.byte_order,
                    _np(dtype), members=members, base=base)


def _vlen(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    sub = None
    if dtype is not None:
        sub = h5py.check_vlen_dtype(dtype)
    base = type_info(tid.get_super(), sub, depth + 1)
    return TypeInfo("vlen", tid.get_size(), f"variable-length sequence of {base.text}", "",
                    _np(dtype), base=base)


def _array(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    dims = tuple(int(d) for d in tid.get_array_dims())
    super_t = tid.get_super()
    sub = None
    if dtype is not None and dtype.subdtype is not None:
        inner = dtype.subdtype[1][len(dims):]
        sub = np.dtype((dtype.base, inner)) if inner else dtype.base
    base = type_info(super_t, sub, depth + 1)
    dims_text = "×".join(str(d) for d in dims)
    return TypeInfo("array", tid.get_size(), f"array {dims_text} of {base.text}", "", _np(dtype),
                    base=base, dims=dims)


def _complex(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    base = type_info(tid.get_super(), None, depth + 1)
    order = base.byte_order or _order(tid)
    return TypeInfo("complex", tid.get_size(), f"complex of two {base.text.split(',')[0]}s, "
                    f"{order}", order, _np(dtype), base=base)


def _time(tid: Any, dtype: np.dtype | None, depth: int) -> TypeInfo:
    size = tid.get_size()
    return TypeInfo("time", size, f"HDF5 time type, {8 * size} bits (no numpy equivalent)",
                    _order(tid), "")


_CLASSES: dict[int, Callable[[Any, np.dtype | None, int], TypeInfo]] = {
    h5py.h5t.INTEGER: _integer, h5py.h5t.FLOAT: _float, h5py.h5t.STRING: _string,
    h5py.h5t.BITFIELD: _bitfield, h5py.h5t.OPAQUE: _opaque, h5py.h5t.COMPOUND: _compound,
    h5py.h5t.REFERENCE: _reference, h5py.h5t.ENUM: _enum, h5py.h5t.VLEN: _vlen,
    h5py.h5t.ARRAY: _array, h5py.h5t.TIME: _time,
}
if hasattr(h5py.h5t, "COMPLEX"):  # HDF5 2.0 has a complex class of its own
    _CLASSES[h5py.h5t.COMPLEX] = _complex


def type_info(tid: Any, dtype: np.dtype | None, depth: int = 0) -> TypeInfo:
    """The :class:`TypeInfo` of an HDF5 datatype.

    Args:
        tid: the ``h5py.h5t.TypeID`` (``dataset.id.get_type()``).
        dtype: the numpy dtype h5py reads it as, or None when numpy has none.
        depth: nesting level (types nested deeper than :data:`MAX_DEPTH` are
            described by class and size only).

    Raises:
        OSError, RuntimeError, ValueError: HDF5 cannot describe the type (damaged).
    """
    cls = tid.get_class()
    size = tid.get_size()
    fn = _CLASSES.get(cls)
    if fn is None or depth > MAX_DEPTH:
        why = "nested too deeply" if fn is not None else f"HDF5 type class {cls}"
        return TypeInfo("unknown", size, f"{why}, {size} bytes", "", _np(dtype))
    return fn(tid, dtype, depth)


# -- storage ---------------------------------------------------------------------------
def _filters(dcpl: Any) -> tuple[FilterInfo, ...]:
    out = []
    for i in range(dcpl.get_nfilters()):
        code, _flags, values, name = dcpl.get_filter(i)
        code = int(code)
        stored = _text(name) if name else ""
        label = FILTER_NAMES.get(code, stored or f"filter {code}")
        try:
            available = bool(h5py.h5z.filter_avail(code))
        except (OSError, RuntimeError, ValueError):
            available = False
        out.append(FilterInfo(label, code, tuple(int(v) for v in values), available))
    return tuple(out)


#: Largest fill value read to describe a dataset (bytes: one element of its type).
MAX_FILL_BYTES = 1 << 20


def _fill(ds: h5py.Dataset, dcpl: Any) -> tuple[str, tuple[str, ...]]:
    """``(fill value text, notes on fill and allocation times)``."""
    notes = (f"fill time: {_FILL_TIME.get(dcpl.get_fill_time(), '?')}",
             f"allocation time: {_ALLOC_TIME.get(dcpl.get_alloc_time(), '?')}")
    if dcpl.fill_value_defined() == h5py.h5d.FILL_VALUE_UNDEFINED:
        return "", notes
    size = int(ds.id.get_type().get_size())
    if size > MAX_FILL_BYTES:  # HDF5 would allocate (and numpy copy) a whole element
        return f"(not read: {size:,} bytes)", notes
    try:
        value = np.asarray(ds.fillvalue)
    except (OSError, RuntimeError, TypeError, ValueError):
        return "(not readable)", notes
    if value.shape == () and value.dtype.kind in "biufc":
        text = cell_text(ColumnKind.NUMBER, value[()])
    else:
        text = " ".join(repr(value.tolist()).split())
    kind = "user-defined" if dcpl.fill_value_defined() == h5py.h5d.FILL_VALUE_USER_DEFINED \
        else "default"
    return (text if len(text) <= 200 else text[:199] + "…") + f" ({kind})", notes


def _virtual(ds: h5py.Dataset) -> tuple[tuple[str, ...], tuple[str, ...]]:
    maps = ds.virtual_sources()
    shown = tuple(f"{m.file_name}:{m.dset_name}" for m in maps[:MAX_VIRTUAL_SOURCES])
    more = len(maps) - len(shown)
    return shown, ((f"{more} more virtual sources are not listed",) if more > 0 else ())


def dataset_storage(ds: h5py.Dataset, link: LinkInfo) -> StorageInfo:
    """The :class:`StorageInfo` of a dataset (metadata only).

    Raises:
        OSError, RuntimeError, ValueError: the creation properties cannot be read.
    """
    if ds.shape is None:
        return StorageInfo("", link=link, notes=("null dataspace: no storage",))
    dcpl = create_plist(ds)
    layout = _LAYOUTS.get(dcpl.get_layout(), f"layout {dcpl.get_layout()}")
    chunks = tuple(int(c) for c in dcpl.get_chunk()) if layout == "chunked" else None
    fill, notes = _fill(ds, dcpl)
    external = tuple((_text(n), int(o), int(s)) for n, o, s in
                     (dcpl.get_external(i) for i in range(dcpl.get_external_count())))
    sources: tuple[str, ...] = ()
    if layout == "virtual":
        sources, more = _virtual(ds)
        notes += more
    max_shape = tuple(ds.maxshape) if ds.maxshape is not None else None
    try:
        stored = int(ds.id.get_storage_size())
    except (OSError, RuntimeError, ValueError):
        stored = None
    verdict = external_guard.examine(ds)
    refused = verdict.refusals[0].message(ds.name or "dataset") if verdict.refusals else ""
    return StorageInfo(layout, chunks, _filters(dcpl), fill, stored,
                       max_shape if max_shape != tuple(ds.shape) else None, external, sources,
                       link, notes, verdict.files, refused)


def attribute_storage(aid: Any, link: LinkInfo) -> StorageInfo:
    """The :class:`StorageInfo` of an attribute (stored in its object's header)."""
    try:
        stored = int(aid.get_storage_size())
    except (OSError, RuntimeError, ValueError):
        stored = None
    return StorageInfo("attribute", stored_bytes=stored, link=link,
                       notes=("stored in the object header; read whole",))


def link_info(group: h5py.Group, name: bytes) -> LinkInfo:
    """How ``name`` (as stored, bytes) links into ``group``: hard, soft (with its
    path) or external (``file:path``).

    Raises:
        KeyError, OSError, RuntimeError: the link cannot be read.
    """
    kind = group.id.links.get_info(name).type
    if kind == h5py.h5l.TYPE_SOFT:
        return LinkInfo("soft", _text(group.id.links.get_val(name)))
    if kind == h5py.h5l.TYPE_EXTERNAL:
        filename, path = group.id.links.get_val(name)
        return LinkInfo("external", f"{_text(filename)}:{_text(path)}")
    return LinkInfo("hard")
