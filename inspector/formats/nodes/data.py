"""The stored values of one dataset or attribute, decoded for display: :class:`NodeData`.

A document offering :class:`~inspector.formats.capabilities.ObjectData` hands
out one :class:`NodeData` per dataset or array-valued attribute of its object
tree (locations ``"/group/dataset"`` and ``"/group/dataset@attribute"``, the
vocabulary of :attr:`Finding.location`).  A ``NodeData`` knows its shape, a
full :class:`TypeInfo` (byte order, compound fields, enum mapping, string
storage) and :class:`StorageInfo` (layout, chunks, filters, fill value, links)
without reading any value, and decodes values on request with
:meth:`NodeData.read`:

* compound types become one :class:`Column` per leaf field (nested fields with
  dotted names ``"pos.x"``; members of a small array type one column per
  element, ``"arr[1]"``);
* enums become their labels, strings are decoded (invalid UTF-8 is shown with
  ``\\xNN`` escapes and flagged, never as a lone surrogate), references become
  the path of their target, opaque bytes hexadecimal text, variable-length
  sequences lists.

Every read is bounded: a selection of more than :data:`MAX_READ_VALUES`
elements (:data:`MAX_VLEN_VALUES` for variable-length types) or
:data:`MAX_READ_BYTES` stored bytes raises :class:`SelectionTooLarge`;
callers page with :func:`pages`.  Reads block on file I/O: the GUI calls them
on jobs.  The text of a value (:func:`cell_text`) is the same in every view
and in ``inspector dump``.  Nothing here imports Qt or h5py.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.findings import Finding

if TYPE_CHECKING:
    from inspector.formats.analysis.arrays import ArrayRef

#: Most elements decoded by one :meth:`NodeData.read` of a fixed-size type.
MAX_READ_VALUES = 1 << 22
#: Most elements decoded by one read of a variable-length type (strings,
#: sequences): each element may itself be large.
MAX_VLEN_VALUES = 1 << 18
#: Most stored bytes (elements x element size) fetched by one read.
MAX_READ_BYTES = 256 << 20
#: Members of an array type shown as separate columns; larger arrays are one
#: column of lists.
MAX_ELEMENT_COLUMNS = 64
#: Leaf columns of a compound type; the others are left out (said in the type).
MAX_COLUMNS = 4096
#: Characters of one table cell (:func:`cell_text` with ``limit``); the detail
#: pane and ``dump`` show the whole value.
CELL_LIMIT = 1000


class ColumnKind(StrEnum):
    """How the values of one :class:`Column` are held and shown."""

    NUMBER = "number"
    """Integers and floats (any width, any byte order), as native numpy numbers."""
    BOOL = "bool"
    """Booleans (HDF5 enum FALSE/TRUE, as h5py writes numpy bool)."""
    COMPLEX = "complex"
    """Complex numbers (HDF5 complex class, or a compound of r and i)."""
    TEXT = "text"
    """Decoded strings (fixed or variable length)."""
    ENUM = "enum"
    """Enum labels (the stored integer where it has no label)."""
    REFERENCE = "reference"
    """Object or region references as the target's path (None for a null reference)."""
    BYTES = "bytes"
    """Opaque bytes as lowercase hexadecimal text."""
    TIME = "time"
    """numpy datetimes/timedeltas stored as tagged opaque values, as ISO text."""
    SEQUENCE = "sequence"
    """Variable-length sequences (and large array members) as Python lists."""


#: Kinds whose values are plotted as numbers.
NUMERIC_KINDS = (ColumnKind.NUMBER, ColumnKind.BOOL, ColumnKind.COMPLEX)


class NodeReadError(Exception):
    """The values of a node cannot be read or decoded; carries the finding to report.

    Attributes:
        finding: what went wrong, from a declared rule, at the node's location.
    """

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


class SelectionTooLarge(ValueError):
    """A selection holds more values than one read decodes (see :func:`check_read_size`)."""


# -- type and storage descriptions -----------------------------------------------------
@dataclass(frozen=True)
class FieldInfo:
    """One member of a compound type: name, byte offset in the record, type."""

    name: str
    offset: int
    type: TypeInfo


@dataclass(frozen=True)
class StringInfo:
    """How a string type is stored.

    Attributes:
        storage: ``"fixed"`` (``length`` bytes) or ``"variable"``.
        charset: ``"ascii"`` or ``"utf-8"`` as declared.
        padding: ``"null-terminated"``, ``"null-padded"`` or ``"space-padded"``.
        length: bytes of a fixed-length string, None for variable length.
    """

    storage: str
    charset: str
    padding: str
    length: int | None


@dataclass(frozen=True)
class TypeInfo:
    """A full description of a stored element type (HDF5 File Format Specification,
    "Datatype Message").

    Attributes:
        type_class: ``"integer"``, ``"float"``, ``"string"``, ``"bitfield"``,
            ``"opaque"``, ``"compound"``, ``"reference"``, ``"enum"``,
            ``"vlen"``, ``"array"``, ``"complex"``, ``"boolean"``, ``"time"``.
        size: bytes per stored element.
        text: one line, e.g. ``"32-bit float, big-endian"``.
        byte_order: ``"little-endian"``, ``"big-endian"`` or ``""`` (not applicable).
        numpy: the numpy dtype elements are read as (``">f4"``), ``""`` when
            numpy has none.
        signed: for integers.
        fields: compound members, in stored order.
        members: enum ``(label, value)`` pairs, in stored order.
        base: the element type of an enum, array, vlen or complex type.
        dims: the dimensions of an array type.
        string: for strings.
        reference: ``"object"`` or ``"region"`` for references.
        tag: the tag of an opaque type.
        notes: further facts (precision, padding bits, custom float layout).
    """

    type_class: str
    size: int
    text: str
    byte_order: str = ""
    numpy: str = ""
    signed: bool | None = None
    fields: tuple[FieldInfo, ...] = ()
    members: tuple[tuple[str, int], ...] = ()
    base: TypeInfo | None = None
    dims: tuple[int, ...] = ()
    string: StringInfo | None = None
    reference: str = ""
    tag: str = ""
    notes: tuple[str, ...] = ()

    @property
    def variable_length(self) -> bool:
        """True when elements have no fixed size (vlen strings and sequences, also
        inside compounds and arrays)."""
        if self.type_class == "vlen" or (self.string is not None
                                         and self.string.storage == "variable"):
            return True
        if self.base is not None and self.type_class == "array":
            return self.base.variable_length
        return any(f.type.variable_length for f in self.fields)


@dataclass(frozen=True)
class FilterInfo:
    """One filter of a chunked dataset's pipeline.

    Attributes:
        name: ``"gzip"``, ``"shuffle"``, ``"fletcher32"``, ``"szip"``,
            ``"lzf"``..., or the name stored in the file.
        filter_id: the registered HDF5 filter identifier.
        params: the client values (e.g. the gzip level).
        available: False when this HDF5 library cannot apply it (the data
            cannot be read then).
    """

    name: str
    filter_id: int
    params: tuple[int, ...] = ()
    available: bool = True


@dataclass(frozen=True)
class LinkInfo:
    """How the node's name links to it: ``"hard"``, ``"soft"`` or ``"external"``,
    and the target (a path, or ``file:path``) for soft and external links."""

    kind: str
    target: str = ""


@dataclass(frozen=True)
class StorageInfo:
    """Where and how the values are stored (HDF5 "Data Layout" and "Filter Pipeline").

    Attributes:
        layout: ``"contiguous"``, ``"chunked"``, ``"compact"``, ``"virtual"``,
            ``"attribute"`` (in the object header) or ``""`` (none: null dataspace).
        chunks: the chunk shape of a chunked dataset.
        filters: the filter pipeline, in write order.
        fill_value: the fill value as text (``""`` when undefined).
        stored_bytes: bytes allocated in the file, when known.
        max_shape: the largest extent of each axis (None = unlimited), when
            it differs from the shape.
        external: external raw data files ``(name, offset, size)``.
        virtual_sources: ``"file:dataset"`` of each virtual source (capped).
        link: how the name links to the object.
        notes: further facts (allocation and fill times, sources left out).
        other_files: the files other than the document's own that the values are
            read from (external storage, virtual sources), resolved paths.
        refused: why the values are never read (a file out of bounds, a named pipe,
            a recursive mapping), ``""`` when they may be.
    """

    layout: str
    chunks: tuple[int, ...] | None = None
    filters: tuple[FilterInfo, ...] = ()
    fill_value: str = ""
    stored_bytes: int | None = None
    max_shape: tuple[int | None, ...] | None = None
    external: tuple[tuple[str, int, int], ...] = ()
    virtual_sources: tuple[str, ...] = ()
    link: LinkInfo = field(default_factory=lambda: LinkInfo("hard"))
    notes: tuple[str, ...] = ()
    other_files: tuple[str, ...] = ()
    refused: str = ""


# -- columns and values ----------------------------------------------------------------
@dataclass(frozen=True)
class ColumnSpec:
    """One column of a node, known before any value is read.

    Attributes:
        name: ``""`` for the element itself, a dotted field path
            (``"pos.x"``), an element (``"[1, 0]"``) or both (``"arr[2]"``).
        kind: see :class:`ColumnKind`.
        steps: how to reach the column from a read array: field names and
            element index tuples, applied in order.
        type: the leaf type.
    """

    name: str
    kind: ColumnKind
    steps: tuple[str | tuple[int, ...], ...]
    type: TypeInfo

    @property
    def label(self) -> str:
        """The header text: the name, or ``"value"`` for the element itself."""
        return self.name or "value"


@dataclass(frozen=True)
class Column:
    """The decoded values of one column over a selection.

    Attributes:
        spec: the column.
        values: an array of the selection's shape: native numbers for
            ``NUMBER``/``BOOL``/``COMPLEX``, else an object array of ``str``
            (``None`` for a null reference) or, for ``SEQUENCE``, lists.
        escaped: for text, True where invalid UTF-8 was escaped; else None.
    """

    spec: ColumnSpec
    values: np.ndarray
    escaped: np.ndarray | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def kind(self) -> ColumnKind:
        return self.spec.kind


@dataclass(frozen=True)
class Values:
    """What :meth:`NodeData.read` returns.

    Attributes:
        shape: the shape of the selection (integer indices drop their axis);
            None for a null dataspace (no value at all).
        columns: one per :attr:`NodeData.columns`, in order.
        selection: the normalised selection read (see :func:`normalize`).
    """

    shape: tuple[int, ...] | None
    columns: tuple[Column, ...]
    selection: tuple[int | range, ...] = ()

    @property
    def size(self) -> int:
        """Elements in the selection (0 for a null dataspace)."""
        return 0 if self.shape is None else math.prod(self.shape)

    @property
    def escaped_count(self) -> int:
        """Elements whose text held invalid UTF-8 (shown escaped)."""
        return sum(int(np.count_nonzero(c.escaped)) for c in self.columns
                   if c.escaped is not None)

    def column(self, name: str) -> Column:
        """The column named ``name``.

        Raises:
            KeyError: no such column.
        """
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)


class NodeData(ABC):
    """One dataset or attribute: its description now, its values on request.

    Attributes:
        location: ``"/path"`` for a dataset, ``"/path@name"`` for an attribute.
        name: the last path component (or the attribute name).
        kind: ``"dataset"`` or ``"attribute"``.
        shape: the dataspace shape; ``()`` for a scalar; None for a null
            dataspace (no value).
        type: the element type.
        storage: layout, chunks, filters, fill value, link.
        columns: the columns a read returns (compound fields flattened).
    """

    location: str
    name: str
    kind: str
    shape: tuple[int, ...] | None
    type: TypeInfo
    storage: StorageInfo
    columns: tuple[ColumnSpec, ...]

    @property
    def is_null(self) -> bool:
        """True for a null dataspace (it holds no value, not even a scalar)."""
        return self.shape is None

    @property
    def ndim(self) -> int:
        return 0 if self.shape is None else len(self.shape)

    @property
    def size(self) -> int:
        """Elements of the dataspace (0 for a null dataspace)."""
        return 0 if self.shape is None else math.prod(self.shape)

    @property
    def numeric_columns(self) -> tuple[ColumnSpec, ...]:
        """The columns that can be plotted."""
        return tuple(c for c in self.columns if c.kind in NUMERIC_KINDS)

    @property
    def read_cap(self) -> int:
        """Most elements one :meth:`read` decodes (see :func:`check_read_size`)."""
        return read_cap(self.type)

    @abstractmethod
    def read(self, selection: Any = Ellipsis) -> Values:
        """Decode ``node[selection]`` (numpy basic indexing: integers, slices,
        Ellipsis), reading no element outside the selection (attributes are
        stored whole in the object header and read whole, within the caps).

        Raises:
            SelectionTooLarge: more elements than :attr:`read_cap`, or more
                than :data:`MAX_READ_BYTES` stored bytes.
            IndexError, TypeError: an invalid selection.
            NodeReadError: the values cannot be read or decoded (the finding
                says why).
        """

    def text_pages(self) -> Iterator[bytes] | None:
        """The stored bytes (UTF-8) of a single text value too large to :meth:`read`,
        page by page in bounded memory (``inspector dump --all --out`` writes it), or
        None when the node has no such value (read it with :meth:`read`).  Nothing is
        read before the first page is asked for.

        Raises:
            NodeReadError: the value cannot be located safely (the finding says why).
        """
        return None

    def array_ref(self) -> ArrayRef | None:
        """A lazy :class:`~inspector.formats.analysis.arrays.ArrayRef` over the values when
        they are plain real numbers (so envelopes can be drawn lazily), else None.
        Building it reads nothing."""
        return None


# -- columns -----------------------------------------------------------------------------
def leaf_kind(t: TypeInfo, dtype: np.dtype | None) -> ColumnKind | None:
    """The :class:`ColumnKind` of values of type ``t`` (read as ``dtype``), or None for
    compound and array types, which are split into columns."""
    if t.type_class == "complex" or (dtype is not None and dtype.kind == "c"):
        return ColumnKind.COMPLEX
    if t.type_class == "boolean" or (dtype is not None and dtype.kind == "b"):
        return ColumnKind.BOOL
    simple = {"integer": ColumnKind.NUMBER, "float": ColumnKind.NUMBER,
              "bitfield": ColumnKind.NUMBER, "string": ColumnKind.TEXT,
              "enum": ColumnKind.ENUM, "reference": ColumnKind.REFERENCE,
              "vlen": ColumnKind.SEQUENCE}
    if t.type_class in simple:
        return simple[t.type_class]
    if t.type_class == "opaque":
        return ColumnKind.TIME if dtype is not None and dtype.kind in "Mm" else ColumnKind.BYTES
    if t.type_class in ("compound", "array"):
        return None
    return ColumnKind.BYTES


def _array_parts(t: TypeInfo, dtype: np.dtype | None) -> tuple[tuple[int, ...], TypeInfo,
                                                                 np.dtype | None]:
    """``(all dimensions, element type, element dtype)`` of a (nested) array type."""
    dims: tuple[int, ...] = ()
    base = t
    while base.type_class == "array" and base.base is not None:
        dims += base.dims
        base = base.base
    base_dt = dtype
    while base_dt is not None and base_dt.subdtype is not None:
        base_dt = base_dt.subdtype[0]
    return dims, base, base_dt


def _add_columns(t: TypeInfo, dtype: np.dtype | None, name: str,
                 steps: tuple[str | tuple[int, ...], ...], out: list[ColumnSpec]) -> None:
    if len(out) >= MAX_COLUMNS:
        return
    kind = leaf_kind(t, dtype)
    if kind is not None:
        out.append(ColumnSpec(name, kind, steps, t))
        return
    if t.type_class == "compound":
        for f in t.fields:
            sub = dtype.fields[f.name][0] if dtype is not None and dtype.fields and \
                f.name in dtype.fields else None
            _add_columns(f.type, sub, f"{name}.{f.name}" if name else f.name,
                         steps + (f.name,), out)
        return
    dims, base, base_dt = _array_parts(t, dtype)
    if math.prod(dims) > MAX_ELEMENT_COLUMNS:
        out.append(ColumnSpec(name, ColumnKind.SEQUENCE, steps, t))
        return
    for idx in np.ndindex(*dims):
        label = name + "".join(f"[{i}]" for i in idx)
        _add_columns(base, base_dt, label, steps + (tuple(int(i) for i in idx),), out)


def column_specs(t: TypeInfo, dtype: np.dtype | None) -> tuple[ColumnSpec, ...]:
    """The columns of a node of type ``t``: one per leaf of a compound (dotted names),
    one per element of an array type with at most :data:`MAX_ELEMENT_COLUMNS`
    elements, else one; at most :data:`MAX_COLUMNS`."""
    out: list[ColumnSpec] = []
    _add_columns(t, dtype, "", (), out)
    return tuple(out)


# -- selections --------------------------------------------------------------------------
def parse_selection(text: str) -> tuple[Any, ...]:
    """Parse numpy slice syntax (``"0:10, ::2, 5, ..."``) without evaluating code.

    Returns a tuple of ints, slices and Ellipsis; ``""`` and ``"()"`` are ``()``.

    Raises:
        ValueError: the text is not integers, slices, commas and ``...``.
    """
    body = text.strip()
    if body.startswith(("[", "(")) and body.endswith(("]", ")")):
        body = body[1:-1].strip()
    if not body:
        return ()
    parts = body.split(",")
    if len(parts) > 1 and not parts[-1].strip():
        parts.pop()  # a trailing comma: "3,"
    out: list[Any] = []
    for part in parts:
        p = part.strip()
        if p == "...":
            out.append(Ellipsis)
        elif ":" in p:
            bits = [b.strip() for b in p.split(":")]
            if len(bits) > 3:
                raise ValueError(f"{p!r} is not a slice")
            out.append(slice(*[int(b) if b else None for b in bits]))
        elif p:
            out.append(int(p))
        else:
            raise ValueError(f"empty index in {text!r}")
    return tuple(out)


def normalize(selection: Any, shape: tuple[int, ...]) -> tuple[int | range, ...]:
    """Expand ``selection`` to one entry per axis: an int (axis dropped) or a range.

    Negative indices count from the end; slices are clipped as numpy clips them.

    Raises:
        IndexError: too many indices, more than one Ellipsis, an integer out of bounds.
        TypeError: an index that is not an int, a slice or Ellipsis.
    """
    sel = selection if isinstance(selection, tuple) else (selection,)
    if any(s is Ellipsis for s in sel):
        if sum(1 for s in sel if s is Ellipsis) > 1:
            raise IndexError("at most one Ellipsis is allowed")
        i = next(i for i, s in enumerate(sel) if s is Ellipsis)
        sel = sel[:i] + (slice(None),) * (len(shape) - len(sel) + 1) + sel[i + 1:]
    if len(sel) > len(shape):
        raise IndexError(f"too many indices ({len(sel)}) for shape {tuple(shape)}")
    sel = sel + (slice(None),) * (len(shape) - len(sel))
    out: list[int | range] = []
    for s, n in zip(sel, shape, strict=True):
        if isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)):
            k = int(s) + (n if int(s) < 0 else 0)
            if not 0 <= k < n:
                raise IndexError(f"index {int(s)} is out of bounds for an axis of size {n}")
            out.append(k)
        elif isinstance(s, slice):
            out.append(range(*s.indices(n)))
        elif isinstance(s, range):
            out.append(s)
        else:
            raise TypeError(f"unsupported index {s!r}: use integers, slices or ...")
    return tuple(out)


def span(r: range) -> int:
    """The number of elements of ``r``, exact for any size (``len`` of a range
    raises OverflowError at ``2**63`` elements, which an HDF5 dimension or a ``.npy``
    header can declare)."""
    if r.step > 0:
        return max(0, (r.stop - r.start + r.step - 1) // r.step)
    return max(0, (r.start - r.stop - r.step - 1) // -r.step)


def selected_shape(norm: Sequence[int | range]) -> tuple[int, ...]:
    """The shape a normalised selection yields (ranges keep their axis; any size)."""
    return tuple(span(s) for s in norm if isinstance(s, range))


def selection_text(norm: Sequence[int | range]) -> str:
    """numpy text of a normalised selection (``"0:10, 3"``); ``"()"`` for none."""
    parts = []
    for s in norm:
        if isinstance(s, int):
            parts.append(str(s))
        else:
            step = f":{s.step}" if s.step != 1 else ""
            stop = "" if s.step < 0 and s.stop < 0 else str(s.stop)
            parts.append(f"{s.start}:{stop}{step}")
    return ", ".join(parts) if parts else "()"


def forward(r: range) -> tuple[range, bool]:
    """``(the same elements in increasing order, True if reversed)``: HDF5 selects
    forward only."""
    if r.step > 0 or span(r) == 0:
        return (r if r.step > 0 else range(0, 0)), False
    return r[::-1], True


def read_cap(t: TypeInfo) -> int:
    """Most elements one read of type ``t`` decodes: :data:`MAX_READ_VALUES`, or
    :data:`MAX_VLEN_VALUES` for variable-length types, or fewer for wide elements."""
    cap = MAX_VLEN_VALUES if t.variable_length else MAX_READ_VALUES
    return max(1, min(cap, MAX_READ_BYTES // max(1, t.size)))


def check_read_size(count: int, t: TypeInfo) -> None:
    """Refuse to decode ``count`` elements of ``t`` in one read.

    Raises:
        SelectionTooLarge: ``count`` exceeds :func:`read_cap`; page with :func:`pages`.
    """
    cap = read_cap(t)
    if count > cap:
        raise SelectionTooLarge(f"the selection holds {count} elements; one read decodes at "
                                f"most {cap} of this type: read it in pages")


def pages(norm: Sequence[int | range], cap: int) -> Iterator[tuple[int | range, ...]]:
    """Split a normalised selection into sub-selections of at most ``cap`` elements,
    in C order (runs along the first axis that lets a run fit, whole sub-blocks below)."""
    norm = tuple(norm)
    axes = [i for i, s in enumerate(norm) if isinstance(s, range)]
    lens = selected_shape(norm)
    if math.prod(lens) <= cap:
        yield norm
        return
    first = axes[0]
    rest = math.prod(lens[1:])
    r = norm[first]
    assert isinstance(r, range)
    if rest <= cap:
        run = max(1, cap // max(rest, 1))
        for a in range(0, span(r), run):
            yield norm[:first] + (r[a:a + run],) + norm[first + 1:]
        return
    for k in r:
        yield from pages(norm[:first] + (k,) + norm[first + 1:], cap)


# -- description -------------------------------------------------------------------------
#: Enum members, compound fields and virtual sources listed by :func:`describe`.
MAX_DESCRIBED = 64


def _type_lines(t: TypeInfo, indent: str = "") -> list[str]:
    """The type, then one indented line per field, enum member or base type."""
    lines = [f"{indent}{t.text}" + (f"  [numpy {t.numpy}]" if t.numpy and not t.fields else "")]
    sub = indent + "    "
    if t.string is not None:
        s = t.string
        lines.append(f"{sub}string: {s.storage} length"
                     + (f" {s.length} bytes" if s.length else "")
                     + f", charset {s.charset}, {s.padding}")
    for f in t.fields[:MAX_DESCRIBED]:
        lines.append(f"{sub}{f.name} (offset {f.offset}):")
        lines.extend(_type_lines(f.type, sub + "    "))
    if len(t.fields) > MAX_DESCRIBED:
        lines.append(f"{sub}… {len(t.fields) - MAX_DESCRIBED} more fields")
    for label, value in t.members[:MAX_DESCRIBED]:
        lines.append(f"{sub}{label} = {value}")
    if len(t.members) > MAX_DESCRIBED:
        lines.append(f"{sub}… {len(t.members) - MAX_DESCRIBED} more members")
    if t.base is not None and t.type_class in ("vlen", "array"):
        lines.append(f"{sub}element:")
        lines.extend(_type_lines(t.base, sub + "    "))
    lines.extend(f"{sub}{n}" for n in t.notes)
    return lines


def _storage_lines(s: StorageInfo) -> list[str]:
    lines = [f"layout: {s.layout or 'none'}"]
    if s.chunks:
        lines.append("chunks: (" + ", ".join(str(c) for c in s.chunks) + ")")
    for f in s.filters:
        params = f"({', '.join(str(p) for p in f.params)})" if f.params else ""
        missing = "" if f.available else "  — NOT AVAILABLE in this HDF5 library"
        lines.append(f"filter: {f.name}{params} [id {f.filter_id}]{missing}")
    if s.fill_value:
        lines.append(f"fill value: {s.fill_value}")
    if s.stored_bytes is not None:
        lines.append(f"stored: {s.stored_bytes:,} bytes")
    if s.max_shape is not None:
        lines.append("max shape: (" + ", ".join("unlimited" if m is None else str(m)
                                                for m in s.max_shape) + ")")
    lines.extend(f"external file: {n} (offset {o}, {z:,} bytes)" for n, o, z in s.external)
    lines.extend(f"virtual source: {v}" for v in s.virtual_sources[:MAX_DESCRIBED])
    lines.extend(f"values read from another file: {f}" for f in s.other_files[:MAX_DESCRIBED])
    if s.refused:
        lines.append(f"values NOT READ: {s.refused}")
    link = s.link
    lines.append(f"link: {link.kind}" + (f" → {link.target}" if link.target else ""))
    lines.extend(s.notes)
    return lines


def describe(node: NodeData) -> str:
    """A full, plain-text description of a node: location, shape, type (fields, enum
    mapping, string storage, byte order), storage (layout, chunks, filters, fill
    value, external and virtual sources, link).  Reads nothing."""
    if node.shape is None:
        shape = "null dataspace (no value)"
    elif node.shape == ():
        shape = "scalar (one value)"
    else:
        dims = ", ".join(f"{n:,}" for n in node.shape) + ("," if len(node.shape) == 1 else "")
        shape = f"({dims})  — {node.size:,} elements"
    lines = [f"location: {node.location}", f"{node.kind}: {shape}", "type:"]
    lines.extend(_type_lines(node.type, "    "))
    if len(node.columns) > 1:
        lines.append(f"columns: {len(node.columns)} ("
                     + ", ".join(c.label for c in node.columns[:8])
                     + (", …" if len(node.columns) > 8 else "") + ")")
    lines.extend(_storage_lines(node.storage))
    return "\n".join(lines)
