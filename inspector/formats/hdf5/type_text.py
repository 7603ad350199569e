"""What a dataset is, as the tree's Type and Detail columns say it: its element type, shape,
storage layout and filters."""

from __future__ import annotations

from typing import Any

import h5py

from inspector.formats.hdf5.filters import create_plist

_FILTERS = {h5py.h5z.FILTER_DEFLATE: "gzip", h5py.h5z.FILTER_SHUFFLE: "shuffle"}


def _kind_text(dt: Any) -> str | None:
    """A short name of an HDF5 type numpy shows poorly (``object``, ``[('a', ...)]``):
    strings, sequences, enums, references, opaque data and compounds; else None."""
    string = h5py.check_string_dtype(dt)
    if string is not None:
        width = "variable-length" if string.length is None else f"{string.length}-byte"
        return f"{width} {string.encoding} string"
    if h5py.check_ref_dtype(dt) is not None:
        return "region reference" if h5py.check_ref_dtype(dt) is h5py.RegionReference \
            else "object reference"
    base = h5py.check_vlen_dtype(dt)
    if base is not None:
        return f"variable-length sequence of {_kind_text(base) or base}"
    if h5py.check_enum_dtype(dt) is not None:
        return f"enum ({dt})"
    if dt.names:
        return f"compound of {len(dt.names)} fields"
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        return f"array {shape} of {_kind_text(base) or base}"
    if dt.kind == "V" and not dt.names and dt.subdtype is None:
        return f"opaque ({dt.itemsize} bytes)"
    return None


def dtype_text(obj: Any) -> str:
    """``str(obj.dtype)`` for numbers, a short name of other types (see
    :func:`_kind_text`), or a description when numpy has no such type (h5py
    raises for, e.g., floats wider than numpy's)."""
    try:
        dt = obj.dtype
    except (TypeError, ValueError) as exc:
        return f"unsupported HDF5 type ({exc})"
    return _kind_text(dt) or str(dt)


def shape_text(shape: tuple[int, ...] | None) -> str:
    if shape is None:
        return "null dataspace (empty)"
    if shape == ():
        return "scalar"
    return "(" + ", ".join(str(n) for n in shape) + ")"


def _filters_text(dcpl: Any) -> str:
    filters = []
    for i in range(dcpl.get_nfilters()):
        code, _flags, values, name = dcpl.get_filter(i)
        if code == h5py.h5z.FILTER_DEFLATE and values:
            filters.append(f"gzip({values[0]})")
        elif code in _FILTERS:
            filters.append(_FILTERS[code])
        else:
            filters.append(name.decode("ascii", "replace") if isinstance(name, bytes)
                           else str(code))
    main = "+".join(f for f in filters if f != "shuffle")
    return main + ("+shuffle" if "shuffle" in filters else "")


def _layout_text(ds: h5py.Dataset, dcpl: Any) -> str:
    layout = dcpl.get_layout()
    if layout == h5py.h5d.CHUNKED:
        return "chunks (" + ", ".join(str(n) for n in dcpl.get_chunk()) + ")"
    if layout == h5py.h5d.VIRTUAL:
        return "virtual"
    if layout == h5py.h5d.COMPACT:
        return "compact"
    return "contiguous" if ds.shape not in (None, ()) else ""


def dataset_detail(ds: h5py.Dataset) -> str:
    """``shape dtype, chunks ..., gzip(4)+shuffle`` for a dataset (no data read)."""
    parts = [f"{shape_text(ds.shape)} {dtype_text(ds)}"]
    try:
        dcpl = create_plist(ds)
        parts.append(_layout_text(ds, dcpl))
        parts.append(_filters_text(dcpl))
        if dcpl.get_external_count():
            parts.append("external raw storage")
    except (OSError, RuntimeError, ValueError, AttributeError):
        pass
    return ", ".join(p for p in parts if p)
