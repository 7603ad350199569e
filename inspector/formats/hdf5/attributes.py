"""An HDF5 object's attributes as tree nodes: their names (a page at a time), their values
within the size limits, and the detail and finding of one too large to read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import h5py

from inspector.formats.capabilities import (
    ATTRIBUTE_PAGE,
    MORE_ATTRIBUTES,
    more_attributes_text,
)
from inspector.formats.document import Node
from inspector.formats.findings import Rule
from inspector.formats.hdf5 import rules as R
from inspector.formats.hdf5.heap import (
    CorruptDatatype,
    CorruptGlobalHeap,
    ValueTooLarge,
    check_attribute,
)
from inspector.formats.hdf5.source import element_count
from inspector.formats.hdf5.type_text import dtype_text, shape_text
from inspector.formats.hdf5.values import as_text, display_checked

#: ``report(rule, message, location)`` (the signature of ``Document.report``).
Report = Callable[[Rule, str, str], Any]


#: Attributes listed per object; the others are counted in ``tree.attributes-capped``.
MAX_ATTRIBUTES = 1000


#: Attributes whose stored value is larger than this are described, not read.
MAX_ATTRIBUTE_BYTES = 1 << 20


# -- attributes ------------------------------------------------------------------------
def first_attribute_names(obj: Any, count: int | None = None) -> tuple[int, list[bytes]]:
    """``(number of attributes, names of at most MAX_ATTRIBUTES of them)``; ``count``:
    the number of attributes when already asked for (``H5Oget_info``).

    All names in name order when there are few; otherwise the first ones in
    storage order (listing every name of 100 000 attributes to sort them
    would cost seconds), then sorted.

    Raises:
        OSError, RuntimeError, ValueError, KeyError: the attributes cannot be listed.
    """
    n = h5py.h5a.get_num_attrs(obj.id) if count is None else count
    if n <= MAX_ATTRIBUTES:
        return n, _names_from(obj, 0, MAX_ATTRIBUTES, h5py.h5.ITER_INC) if n else []
    return n, sorted(_names_from(obj, 0, MAX_ATTRIBUTES, h5py.h5.ITER_NATIVE))


def attribute_names_from(obj: Any, start: int, count: int) -> tuple[int, list[bytes]]:
    """``(number of attributes, names of attributes start .. start + count)`` in storage
    order (the order :func:`first_attribute_names` takes the first ones in when there
    are many), sorted by name.  HDF5 skips the first ``start`` itself, so a page costs
    the same wherever it is.

    Raises:
        OSError, RuntimeError, ValueError, KeyError: the attributes cannot be listed.
    """
    n = h5py.h5a.get_num_attrs(obj.id)
    if not (0 <= start < n and count > 0):
        return n, []
    return n, sorted(_names_from(obj, start, count, h5py.h5.ITER_NATIVE))


def _names_from(obj: Any, start: int, count: int, order: int) -> list[bytes]:
    """At most ``count`` attribute names of ``obj`` from index ``start`` in ``order``
    (HDF5 skips the first ``start`` and stops after ``count``)."""
    names: list[bytes] = []

    def take(name: bytes, *_: Any) -> int | None:
        names.append(name)
        return 1 if len(names) >= count else None

    h5py.h5a.iterate(obj.id, take, index=start, index_type=h5py.h5.INDEX_NAME, order=order)
    return names


def attribute_page(obj: Any, location: str, start: int, count: int) -> tuple[int, list[Node]]:
    """``(number of attributes, nodes of attributes start .. start + count)`` of ``obj``
    at ``location``, built as the tree builds them (values capped at
    :data:`MAX_ATTRIBUTE_BYTES`; an unreadable one, a corrupt heap or invalid UTF-8 is
    said in its node).  Nothing is reported: the document's findings are those of the
    file as opened (``inspector verify`` reports the same).

    Raises:
        OSError, RuntimeError, ValueError, KeyError: the attributes cannot be listed.
    """
    n, names = attribute_names_from(obj, start, count)
    holder = Node("")
    attrs = obj.attrs
    for raw in names:
        _attribute(obj, attrs, raw, location, holder, _unreported)
    return n, holder.children


def _unreported(_rule: Rule, _message: str, _location: str = "") -> None:
    """Drops a finding of a page read after opening (its node says what is wrong)."""


def _attribute_names(obj: Any, loc: str, report: Report,
                     count: int | None = None) -> tuple[int, list[bytes]] | None:
    """How many attributes ``obj`` has (``count`` when known) and the names of at most
    :data:`MAX_ATTRIBUTES` of them (bytes, as stored)."""
    try:
        n, names = first_attribute_names(obj, count)
    except (OSError, RuntimeError, ValueError, KeyError) as exc:
        report(R.TREE_ATTRIBUTES_UNREADABLE, f"{loc}: attributes cannot be listed: {exc}", loc)
        return None
    if n > len(names):
        report(R.TREE_ATTRIBUTES_CAPPED,
               f"{loc} has {n} attributes; the first {len(names)} in storage order are "
               f"listed and checked, {n - len(names)} are left out of the checks (the "
               "views read them page by page)", loc)
    return n, names


def decoded_name(raw: bytes, where: str, report: Report) -> str:
    """A stored name as text; invalid UTF-8 is escaped and reported at ``where``."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        name = raw.decode("utf-8", "backslashreplace")
        report(R.TEXT_INVALID_UTF8,
               f"{where}{name}: name is not valid UTF-8; shown with \\x escapes",
               f"{where}{name}")
        return name


def _value_detail(value: Any) -> str:
    t = as_text(value)
    if t is not None:
        return {"str": "string", "bytes": "byte string", "array": "one-element text array"}[
            t.stored_as]
    if hasattr(value, "dtype"):
        shape = getattr(value, "shape", ())
        return f"{shape} {value.dtype}" if shape else str(value.dtype)
    return type(value).__name__


def _too_large(aid: Any) -> str | None:
    """Why an attribute is not read (its size, declared by its type and shape), or None
    when it may be read."""
    n = element_count(aid.shape)
    try:
        itemsize = max(1, int(aid.dtype.itemsize))
    except (TypeError, ValueError):
        itemsize = 1
    if n * itemsize > MAX_ATTRIBUTE_BYTES:
        return f"{shape_text(aid.shape)}: {n} elements, not read (larger than " \
               f"{MAX_ATTRIBUTE_BYTES} bytes)"
    return None


def too_large_message(loc: str, size: int) -> str:
    """The ``data.value-too-large`` message of an attribute of ``size`` bytes as declared
    (HDF5 reads an attribute whole): not read, and how to read it."""
    return (f"{loc}: the attribute declares {size:,} bytes, more than the limit of "
            f"{MAX_ATTRIBUTE_BYTES:,} bytes per value read or shown (HDF5 reads an attribute "
            f"whole): it is not read; read it with `h5dump -a '{loc}' FILE` or h5py")


def _attribute(obj: Any, attrs: Any, raw: bytes, loc0: str, node: Node,
               report: Report) -> None:
    name = decoded_name(raw, f"{loc0}@", report)
    loc = f"{loc0}@{name}"
    try:
        aid = h5py.h5a.open(obj.id, raw)
        if aid.shape is None:
            node.add(name, None, kind="attribute", location=loc,
                     detail=f"null dataspace (empty) {dtype_text(aid)}")
            return
        big = _too_large(aid)
        if big is not None:
            size = element_count(aid.shape) * max(1, int(aid.dtype.itemsize))
            report(R.DATA_VALUE_TOO_LARGE, too_large_message(loc, size), loc)
            node.add(name, None, kind="attribute", location=loc, detail=big)
            return
        check_attribute(obj, raw, aid)
        value = attrs[raw]
    except CorruptGlobalHeap as exc:
        report(R.TREE_GLOBAL_HEAP_CORRUPT, f"{loc}: {exc}; the value is not read", loc)
        node.add(name, None, kind="attribute", location=loc, detail="unreadable (corrupt heap)")
        return
    except ValueTooLarge as exc:
        report(R.DATA_VALUE_TOO_LARGE, f"{loc}: {exc}", loc)
        node.add(name, None, kind="attribute", location=loc,
                 detail=f"not read: a value of {exc.largest:,} bytes")
        return
    except (OSError, RuntimeError, TypeError, ValueError, KeyError) as exc:
        report(R.TREE_ATTRIBUTE_UNREADABLE, f"{loc}: attribute cannot be read: {exc}", loc)
        node.add(name, None, kind="attribute", location=loc, detail="unreadable")
        return
    shown, valid = display_checked(value)
    if not valid:
        report(R.TEXT_INVALID_UTF8,
               f"{loc}: text attribute is not valid UTF-8; shown with \\x escapes", loc)
    node.add(name, shown, kind="attribute", location=loc, detail=_value_detail(value))


def attribute_nodes(obj: Any, node: Node, report: Report, count: int | None = None) -> None:
    """Add one child node per attribute of ``obj`` (at most :data:`MAX_ATTRIBUTES`);
    their locations are ``node.location@name``.  When ``obj`` has more, a last child of
    kind :data:`~inspector.formats.capabilities.MORE_ATTRIBUTES` stands for the others
    (location: the object's), which the views read with :func:`attribute_page`.
    ``count``: the number of attributes of ``obj`` when the caller asked for it already."""
    loc0 = node.location or "/"
    listed = _attribute_names(obj, loc0, report, count)
    if listed is None:
        return
    n, names = listed
    attrs = obj.attrs
    for raw in names:
        _attribute(obj, attrs, raw, loc0, node, report)
    if n > len(names):  # the views page the others in (ObjectData.attributes)
        name, detail = more_attributes_text(len(names), n, ATTRIBUTE_PAGE)
        node.add(name, None, kind=MORE_ATTRIBUTES, location=loc0, detail=detail)


def attribute_values(obj: Any) -> dict[str, Any]:
    """The attributes of a metadata group (``neuro_info``, ``trial_info``...) by name.

    At most :data:`MAX_ATTRIBUTES` (the tree reports the others), in name
    order.  Each value is sized before it is read and held to the tree's
    limit: an attribute declaring more than :data:`MAX_ATTRIBUTE_BYTES` in all
    (type × shape), or a variable-length value over the heap's per-value
    limit (:func:`~.heap.check_attribute`), is left out, as are values of a
    datatype numpy cannot hold.  Nothing is reported here: the tree reports
    each one left out where it lists it (``data.value-too-large``, with the
    ``h5dump -a`` command that reads it), and a rule needing the value finds
    it absent.

    Raises:
        OSError, RuntimeError, KeyError: an attribute cannot be listed or
            read (h5py's errors for a damaged object).
    """
    out: dict[str, Any] = {}
    for raw in first_attribute_names(obj)[1]:
        aid = h5py.h5a.open(obj.id, raw)
        try:
            if aid.shape is not None and _too_large(aid) is not None:
                continue  # sized from its type and shape: never read
            check_attribute(obj, raw, aid)
            out[raw.decode("utf-8", "backslashreplace")] = obj.attrs[raw]
        except (CorruptGlobalHeap, CorruptDatatype, ValueTooLarge, TypeError, ValueError):
            continue  # a datatype numpy (or HDF5) cannot hold: the tree reports it
    return out
