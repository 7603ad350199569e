"""A :class:`~inspector.formats.nodes.data.NodeData` over a lazy numeric array.

``inspector dump`` writes a :class:`NodeData` (:mod:`.node_dump`: CSV, JSON,
.npy, paged).  An HDF5 dataset is one; an array stored elsewhere (an ``.npy``
member of an archive) is read through its
:class:`~inspector.formats.analysis.arrays.ArrayRef`, whose ``read(selection)`` takes
numpy basic indexing and returns native-byte-order values.  :class:`ArrayNode`
adapts the one to the other for plain numeric element types (booleans,
integers, floats, complex numbers: one column, the element itself); reads
are bounded like every node's (:func:`~.node_data.check_read_size`).
Nothing here imports Qt, h5py or zipfile.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.nodes.data import (
    Column,
    NodeData,
    StorageInfo,
    TypeInfo,
    Values,
    check_read_size,
    column_specs,
    forward,
    normalize,
    selected_shape,
    span,
)

__all__ = ["ArrayNode", "numpy_type"]

_CLASSES = {"b": "boolean", "i": "integer", "u": "integer", "f": "float", "c": "complex"}
_ORDERS = {"<": "little-endian", ">": "big-endian", "|": ""}


def numpy_type(dtype: np.dtype) -> TypeInfo | None:
    """The :class:`TypeInfo` of a plain numeric numpy ``dtype`` (``"<f8"``: "64-bit
    float, little-endian"); None for any other kind (text, records, objects)."""
    type_class = _CLASSES.get(dtype.kind)
    if type_class is None or dtype.fields is not None or dtype.subdtype is not None:
        return None
    order = _ORDERS.get(dtype.byteorder, "")
    if dtype.byteorder == "=":
        order = "little-endian" if np.little_endian else "big-endian"
    if dtype.itemsize == 1:
        order = ""
    words = {"boolean": "boolean", "float": "float", "complex": "complex",
             "integer": "signed integer" if dtype.kind == "i" else "unsigned integer"}
    text = f"{dtype.itemsize * 8}-bit {words[type_class]}" + (f", {order}" if order else "")
    return TypeInfo(type_class, dtype.itemsize, text, byte_order=order, numpy=dtype.str,
                    signed=dtype.kind == "i" if type_class == "integer" else None)


class ArrayNode(NodeData):
    """The values of ``ref`` (a plain numeric :class:`ArrayRef`) as a node at ``location``.

    Args:
        ref: the array (its ``dtype`` as stored, ``shape``; ``read`` as
            :meth:`ArrayRef.read`).
        location: where it is (``"arrays/signal.npy"``).
        storage: how it is stored (layout ``"npy-deflated"``...).

    Raises:
        ValueError: ``ref.dtype`` is not a plain numeric type (:func:`numpy_type`).
    """

    def __init__(self, ref: ArrayRef, location: str, storage: StorageInfo) -> None:
        t = numpy_type(np.dtype(ref.dtype))
        if t is None:
            raise ValueError(f"{location}: elements of dtype {ref.dtype} are not plain numbers")
        self._ref = ref
        self.location = location
        self.name = location.rsplit("/", 1)[-1]
        self.kind = "dataset"
        self._shape = tuple(int(n) for n in ref.shape)
        self.shape = self._shape
        self.type = t
        self.storage = storage
        self.columns = column_specs(t, np.dtype(ref.dtype))

    def read(self, selection: Any = Ellipsis) -> Values:
        """``ref[selection]`` as one column (see :meth:`NodeData.read`).

        Raises:
            SelectionTooLarge: more elements than one read decodes.
            IndexError, TypeError: an invalid selection.
            OSError: the array cannot be read (as :meth:`ArrayRef.read`).
        """
        norm = normalize(selection, self._shape)
        shape = selected_shape(norm)
        check_read_size(math.prod(shape), self.type)
        box: list[int | slice] = []
        flips: list[int] = []
        for s in norm:
            if isinstance(s, int):
                box.append(s)
                continue
            r, flipped = forward(s)
            if flipped:
                flips.append(sum(isinstance(b, slice) for b in box))
            box.append(slice(r.start, r.stop, r.step) if span(r) else slice(0, 0))
        values = np.asarray(self._ref.read(tuple(box)))
        for axis in flips:
            values = np.flip(values, axis=axis)
        values = values.reshape(shape)
        return Values(shape, (Column(self.columns[0], values),), norm)
