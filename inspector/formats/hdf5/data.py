"""The values of any dataset or attribute of an HDF5 file: the ``ObjectData`` capability.

:func:`object_data` gives every document opened by an HDF5-based reader
(recordings and plain HDF5 files alike) an
:class:`~inspector.formats.capabilities.ObjectData`: ``node(location)``
returns a :class:`~inspector.formats.nodes.data.NodeData` for the dataset
``"/path"`` or the attribute ``"/path@name"`` (the locations of the object
tree, :mod:`.tree`), built from metadata only.

Reads go through :class:`~inspector.formats.hdf5.source.H5Source`, so a
file replaced on disk is refused rather than mixed (VneuroTK format
document, "Atomic writes").  A dataset read selects exactly the requested
hyperslab (HDF5 touches only the chunks it intersects); an attribute is
stored whole in its object header, so it is read whole once (at most
:data:`MAX_ATTRIBUTE_BYTES`) and kept.  Failures are
:class:`~inspector.formats.nodes.data.NodeReadError` carrying a finding of
``data.unreadable`` or ``data.unsupported-type`` (:mod:`.rules`).

External links and virtual datasets are followed read-only, as the tree
follows them (recording notes §6); values from a file out of the document's bounds
are never read (:mod:`.external_guard`: the refusal is the finding).
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterator
from typing import Any

import h5py
import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.capabilities import AttributePage, ObjectData
from inspector.formats.decoding.inflate import ChunkOverflow
from inspector.formats.findings import cause
from inspector.formats.hdf5 import rules as R
from inspector.formats.hdf5.arrays import H5DatasetRef
from inspector.formats.hdf5.attributes import attribute_page, too_large_message
from inspector.formats.hdf5.decode import ReferenceNames, decode_columns
from inspector.formats.hdf5.dtypes import (
    attribute_storage,
    dataset_storage,
    link_info,
    type_info,
)
from inspector.formats.hdf5.external_guard import ExternalRefused, linked_mappings
from inspector.formats.hdf5.filters import missing_text
from inspector.formats.hdf5.heap import MAX_READ_BYTES as MAX_HEAP_READ
from inspector.formats.hdf5.heap import (
    MAX_VALUE_BYTES,
    ValueTooLarge,
    check_attribute,
    corrupt_groups,
    dataset_sizes,
    path_problem,
)
from inspector.formats.hdf5.heap_stream import heap_text
from inspector.formats.hdf5.read_watch import ReadStopped
from inspector.formats.hdf5.source import H5Source
from inspector.formats.hdf5.strided import existing_chunks, fast_layout, parallel_read
from inspector.formats.hdf5.vds_guard import TooManyMappings, member_refusal
from inspector.formats.nodes.data import (
    LinkInfo,
    NodeData,
    NodeReadError,
    SelectionTooLarge,
    Values,
    check_read_size,
    column_specs,
    forward,
    normalize,
    selected_shape,
    span,
)
from inspector.formats.sources.file_identity import FILE_CHANGED, FileChangedError

#: Largest attribute read (bytes as declared by its type and shape): HDF5 reads an
#: attribute whole, so this is the per-value limit (variable-length values are sized
#: from their heap descriptors, :func:`~.hdf5_heap.check_attribute`).
MAX_ATTRIBUTE_BYTES = MAX_VALUE_BYTES

_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})")
_H5_ERRORS = (OSError, RuntimeError, KeyError, ValueError)


def _unescape(text: str) -> bytes:
    """The stored bytes of a name shown with ``\\xNN`` escapes (see :mod:`.tree`)."""
    parts = _ESCAPE.split(text)
    out = bytearray()
    for i, part in enumerate(parts):
        out += bytes([int(part, 16)]) if i % 2 else part.encode("utf-8")
    return bytes(out)


def _numpy_dtype(obj: Any) -> np.dtype | None:
    try:
        return np.dtype(obj.dtype)
    except (TypeError, ValueError):
        return None


def _box(norm: tuple[int | range, ...]) -> tuple[tuple[slice, ...], list[int], tuple[int, ...]]:
    """``(forward hyperslab, axes of the result to flip, result shape)`` of a selection;
    integer indices become length-1 slices (dropped by the final reshape)."""
    box, flips = [], []
    out_axis = 0
    for s in norm:
        if isinstance(s, int):
            box.append(slice(s, s + 1))
            continue
        r, flipped = forward(s)
        box.append(slice(r.start, r.stop, r.step) if span(r) else slice(0, 0))
        if flipped:
            flips.append(out_axis)
        out_axis += 1
    return tuple(box), flips, selected_shape(norm)


def _numpy_index(norm: tuple[int | range, ...]) -> tuple[int | slice, ...]:
    """The selection as numpy indices (negative steps allowed)."""
    out: list[int | slice] = []
    for s in norm:
        if isinstance(s, int):
            out.append(s)
        else:
            out.append(slice(s.start, s.stop if s.stop >= 0 else None, s.step))
    return tuple(out)


def _element_too_large(node: NodeData) -> str:
    """Why values of a fixed size over the per-value limit are not read (HDF5 allocates
    a whole element, and numpy and the decoding copy it, before anything is shown)."""
    where = node.location
    how = (f"`h5dump -d '{where}' FILE` or h5py" if node.kind == "dataset"
           else f"`h5dump -a '{where}' FILE` or h5py")
    return (f"{where}: one value is {node.type.size:,} bytes ({node.type.text}), more "
            f"than the limit of {MAX_VALUE_BYTES:,} bytes per value read or shown: no value "
            f"is read; read them with {how}")


class _H5Node(NodeData):
    """What datasets and attributes share: the description and the decoding."""

    def __init__(self, location: str, name: str, kind: str, tid: Any,
                 dtype: np.dtype | None, shape: tuple[int, ...] | None, names: ReferenceNames):
        self.location, self.name, self.kind = location, name, kind
        self.shape = None if shape is None else tuple(int(n) for n in shape)
        self.dtype = dtype
        self.type = type_info(tid, dtype)
        self.columns = column_specs(self.type, dtype)
        self._names = names

    def _fail(self, rule: Any, message: str) -> NodeReadError:
        return NodeReadError(rule.finding(message, self.location))

    def _prepare(self, selection: Any) -> tuple[int | range, ...]:
        if self.dtype is None:
            raise self._fail(R.DATA_UNSUPPORTED_TYPE,
                             f"{self.location}: the values cannot be decoded: numpy has no type "
                             f"for {self.type.text}")
        assert self.shape is not None
        norm = normalize(selection, self.shape)
        count = math.prod(selected_shape(norm))
        if count and not self.type.variable_length and self.type.size > MAX_VALUE_BYTES:
            raise self._fail(R.DATA_VALUE_TOO_LARGE, _element_too_large(self))
        check_read_size(count, self.type)
        return norm

    def _values(self, raw: np.ndarray, norm: tuple[int | range, ...]) -> Values:
        shape = selected_shape(norm)
        try:
            cols = decode_columns(raw, self.columns, shape, self._names)
        except (TypeError, ValueError, OSError, RuntimeError) as exc:
            raise self._fail(R.DATA_UNSUPPORTED_TYPE,
                             f"{self.location}: the values cannot be decoded: {exc}") from exc
        return Values(shape, cols, norm)

    def _null(self) -> Values:
        return Values(None, (), ())


class H5DatasetNode(_H5Node):
    """A dataset (any type, any layout); reads select exactly the hyperslab asked for."""

    def __init__(self, source: H5Source, ds: h5py.Dataset, location: str, link: LinkInfo):
        super().__init__(location, location.rsplit("/", 1)[-1] or "/", "dataset",
                         ds.id.get_type(), _numpy_dtype(ds), ds.shape, ReferenceNames(ds.id))
        self._source = source
        self._ds = ds
        self.storage = dataset_storage(ds, link)
        self._fast = fast_layout(ds, source.identity) if self.dtype is not None else None
        self._existing: set[tuple[int, ...]] | None = None
        self._existing_known = False
        self._largest: int | None = None
        self._lock = threading.Lock()

    @property
    def read_cap(self) -> int:
        """Most elements one read decodes; for variable-length values also no more than
        :data:`~.hdf5_heap.MAX_READ_BYTES` by their declared sizes (the largest value's)."""
        cap = super().read_cap
        if not self.type.variable_length:
            return cap
        if self._largest is None:
            sizes = dataset_sizes(self._ds)
            self._largest = int(sizes.max()) if sizes is not None and sizes.size \
                else MAX_VALUE_BYTES
        return max(1, min(cap, MAX_HEAP_READ // max(1, self._largest)))

    def _raw(self, box: tuple[slice, ...]) -> np.ndarray:
        """The stored values of a hyperslab: chunks decoded in parallel when that pays,
        else by HDF5.  Raises OSError (changed file, damaged chunk)."""
        if self._fast is not None and box:
            with self._lock:
                if not self._existing_known:
                    self._existing = existing_chunks(self._ds, self._fast)
                    self._existing_known = True
            self._source.check()
            got = parallel_read(self._ds, self._fast, box, self._existing)
            if got is not None:
                return got
        return np.asarray(self._source.read(self._ds, box if box else Ellipsis))

    def read(self, selection: Any = Ellipsis) -> Values:
        """``dataset[selection]`` decoded (see :meth:`NodeData.read`)."""
        if self.shape is None:
            return self._null()
        norm = self._prepare(selection)
        box, flips, shape = _box(norm)
        try:
            raw = self._raw(box)
        except ExternalRefused as exc:  # never read: the refusal is the finding
            raise self._fail(exc.refusal.rule, exc.refusal.message(self.location)) from exc
        except ReadStopped as exc:  # blocked on a file swapped for a pipe: stopped
            raise self._fail(R.DATA_READ_TIMEOUT, str(exc)) from exc
        except ValueTooLarge as exc:
            raise self._fail(R.DATA_VALUE_TOO_LARGE, f"{self.location}: {exc}; `inspector "
                             "dump --all --out FILE` writes the others page by page") from exc
        except ChunkOverflow as exc:
            raise self._fail(R.DATA_CHUNK_OVERFLOW, str(exc)) from exc
        except (OSError, RuntimeError) as exc:
            why = missing_text(self._ds)
            raise self._fail(R.DATA_UNREADABLE, f"{self.location}: {why or exc}") from exc
        except (TypeError, ValueError) as exc:
            raise self._fail(R.DATA_UNSUPPORTED_TYPE,
                             f"{self.location}: the values cannot be decoded: {exc}") from exc
        raw = np.asarray(raw)
        raw = raw.reshape(shape + raw.shape[len(self.shape):])
        for axis in flips:
            raw = np.flip(raw, axis=axis)
        return self._values(raw, norm)

    def array_ref(self) -> ArrayRef | None:
        """An :class:`H5DatasetRef` (chunk-summary envelopes) for real numbers."""
        if self.shape is None or self.dtype is None or self.dtype.kind not in "iuf":
            return None
        if self.type.type_class not in ("integer", "float") or not self.shape:
            return None
        return H5DatasetRef(self._source, self._ds, self.name, location=self.location)


class H5AttributeNode(_H5Node):
    """An attribute: read whole once (HDF5 stores it in the object header), then sliced."""

    def __init__(self, source: H5Source, obj: Any, raw_name: bytes, location: str,
                 link: LinkInfo) -> None:
        aid = h5py.h5a.open(obj.id, raw_name)
        super().__init__(location, location.rsplit("@", 1)[-1], "attribute", aid.get_type(),
                         _numpy_dtype(aid), aid.shape, ReferenceNames(obj.id))
        self._source = source
        self._obj = obj
        self._raw_name = raw_name
        self.storage = attribute_storage(aid, link)
        self._whole: np.ndarray | None = None
        self._lock = threading.Lock()

    def _read_whole(self) -> np.ndarray:
        with self._lock:
            if self._whole is not None:
                return self._whole
            assert self.dtype is not None and self.shape is not None
            stored = self.size * max(1, self.type.size)
            if stored > MAX_ATTRIBUTE_BYTES:
                raise self._fail(R.DATA_VALUE_TOO_LARGE,
                                 too_large_message(self.location, stored))
            self._source.check()
            check_attribute(self._obj, self._raw_name)
            aid = h5py.h5a.open(self._obj.id, self._raw_name)
            mtype = h5py.h5t.py_create(self.dtype)
            shape, dt = self.shape, self.dtype
            if dt.subdtype is not None:  # numpy has no top-level array type (h5py does this)
                dt, sub = dt.subdtype
                shape = shape + tuple(sub)
            arr = np.zeros(shape, dtype=dt)
            aid.read(arr, mtype=mtype)
            self._whole = arr
            return arr

    def text_pages(self) -> Iterator[bytes] | None:
        """The bytes of a scalar variable-length string over the per-value limit, read
        page by page from its global heap object (:mod:`.heap_stream`), else None."""
        try:
            self._source.check()
            found = heap_text(self._obj, self._raw_name)
        except FileChangedError as exc:
            raise self._fail(FILE_CHANGED, f"{self.location}: {exc}") from exc
        except (OSError, RuntimeError, KeyError, ValueError) as exc:
            raise self._fail(R.DATA_UNREADABLE, f"{self.location}: {exc}") from exc
        return None if found is None else self._guarded(found.pages())

    def _guarded(self, pages: Iterator[bytes]) -> Iterator[bytes]:
        try:
            yield from pages
        except OSError as exc:
            raise self._fail(R.DATA_UNREADABLE, f"{self.location}: {exc}") from exc

    def read(self, selection: Any = Ellipsis) -> Values:
        """``attribute[selection]`` decoded (see :meth:`NodeData.read`)."""
        if self.shape is None:
            return self._null()
        norm = self._prepare(selection)
        try:
            whole = self._read_whole()
        except ValueTooLarge as exc:
            hint = (f"; `inspector dump FILE::{self.location} --all --out FILE` writes it"
                    if self.shape == () and self.type.variable_length else "")
            raise self._fail(R.DATA_VALUE_TOO_LARGE, f"{self.location}: {exc}{hint}") from exc
        except (OSError, RuntimeError, KeyError) as exc:
            raise self._fail(R.DATA_UNREADABLE, f"{self.location}: {exc}") from exc
        except (TypeError, ValueError) as exc:
            if isinstance(exc, SelectionTooLarge):
                raise
            raise self._fail(R.DATA_UNSUPPORTED_TYPE,
                             f"{self.location}: the values cannot be decoded: {exc}") from exc
        raw = whole[_numpy_index(norm)] if norm else whole
        return self._values(np.asarray(raw), norm)


class H5Objects:
    """Looks up datasets and attributes of one open file by location.

    Args:
        source: the open file (identity-checked before every lookup and read).
    """

    def __init__(self, source: H5Source) -> None:
        self._source = source

    def node(self, location: str) -> NodeData | None:
        """The node at ``"/path"`` (a dataset) or ``"/path@name"`` (an attribute of
        any object), or None when there is none (groups hold no values).

        Names shown with ``\\xNN`` escapes (invalid UTF-8) are found too.

        Raises:
            NodeReadError: the file changed since it was opened, or the object
                exists but HDF5 cannot open or describe it.
        """
        try:
            self._source.check()
            found = self._lookup(location)
            if found is None and "\\x" in location:
                found = self._lookup(location, escaped=True)
            return found
        except FileChangedError as exc:
            raise NodeReadError(FILE_CHANGED.finding(f"{location}: {exc}", location)) from exc
        except TooManyMappings as exc:
            raise NodeReadError(R.VDS_TOO_MANY_MAPPINGS.finding(str(exc), location)) from exc
        except (OSError, RuntimeError, ValueError, TypeError) as exc:
            raise NodeReadError(R.FILE_CORRUPT.finding(
                f"{location}: HDF5 cannot open it: {cause(exc)}",
                location)) from exc

    def _object(self, path: str, escaped: bool) -> tuple[Any, LinkInfo] | None:
        """The object at ``path`` and how its name links to it, or None if there is none."""
        f = self._source.file
        text = "/" + path.strip("/")
        if text == "/":
            return f, LinkInfo("hard")
        key = _unescape(text) if escaped else text.encode("utf-8", "surrogateescape")
        if corrupt_groups(f):
            problem = path_problem(f, key)
            if problem is not None:  # HDF5 would loop looking a name up on the way
                raise OSError(f"a group on the way cannot be read: {problem}")
        parent_key, _, name = key.rpartition(b"/")
        try:
            parent = f[parent_key or b"/"]
            if not isinstance(parent, h5py.Group) or not parent.id.links.exists(name):
                return None
            refused = member_refusal(parent, name, text) or linked_mappings(parent, name, text)
            if refused is not None:  # HDF5 would decode all its mappings to open it
                raise refused
            obj = parent[name]
        except KeyError:  # a missing group on the way, or a dangling link
            return None
        try:
            link = link_info(parent, name)
        except _H5_ERRORS:
            link = LinkInfo("hard")
        return obj, link

    def _lookup(self, location: str, escaped: bool = False) -> NodeData | None:
        whole = self._object(location, escaped) if location.strip() else None
        if whole is not None:
            obj, link = whole
            if isinstance(obj, h5py.Dataset):
                return H5DatasetNode(self._source, obj, "/" + location.strip("/"), link)
            return None
        if "@" not in location:
            return None
        path, _, attr = location.rpartition("@")
        owner = self._object(path or "/", escaped)
        if owner is None:
            return None
        obj, link = owner
        raw = _unescape(attr) if escaped else attr.encode("utf-8", "surrogateescape")
        if not h5py.h5a.exists(obj.id, raw):
            return None
        loc = f"{'/' + path.strip('/') if path.strip('/') else '/'}@{attr}"
        return H5AttributeNode(self._source, obj, raw, loc, link)


    def attributes(self, location: str, start: int, count: int) -> AttributePage:
        """Attributes ``start .. start + count`` (storage order) of the object at
        ``location`` (:func:`~inspector.formats.hdf5.attributes.attribute_page`).

        Raises:
            NodeReadError: the file changed since it was opened, there is no
                object at ``location``, or HDF5 cannot list its attributes.
        """
        where = "/" + location.strip("/")
        try:
            self._source.check()
            found = self._object(where, False)
            if found is None and "\\x" in where:
                found = self._object(where, True)
            if found is None:
                raise NodeReadError(R.DATA_UNREADABLE.finding(
                    f"{where}: no object there any more", where))
            total, nodes = attribute_page(found[0], where, start, count)
        except FileChangedError as exc:
            raise NodeReadError(FILE_CHANGED.finding(f"{where}: {exc}", where)) from exc
        except _H5_ERRORS as exc:
            raise NodeReadError(R.TREE_ATTRIBUTES_UNREADABLE.finding(
                f"{where}: attributes cannot be listed: {cause(exc)}", where)) from exc
        return AttributePage(where, start, total, tuple(nodes))


def object_data(source: H5Source) -> ObjectData:
    """The :class:`ObjectData` capability of an open HDF5 file (its datasets and
    attributes, and the pages of attributes beyond those the tree lists)."""
    objects = H5Objects(source)
    return ObjectData(objects.node, objects.attributes)

