"""Scan records held as columns: the ``scans`` of an experiment without a dict per scan.

A table of a million scans would hold a million dicts (and four quantity dicts each),
about 3 KB a scan.  :class:`ScanRecords` keeps the same records as columns: per field,
an ``int32`` code per scan into the field's distinct values, an integer or float
column for per-scan numbers (``index``, a quantity's ``value``), and one code per
scan for which fields the record has, in which order.  About 60-100 bytes a scan
for the records the CSV/TSV reader makes.

It is a read-only ``Sequence[dict]``: ``records[i]`` builds the record ``i`` afresh,
equal to the dict it was made from (same keys in the same order, same values and
types), so every user of ``AucExperiment.scans`` reads it as before.  Column readers
(:meth:`ScanRecords.text`, :meth:`ScanRecords.quantity`) give the facts the checks
need without building any record.
"""

from __future__ import annotations

import copy
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

import numpy as np

__all__ = ["QuantityColumn", "ScanRecords", "coded", "integers", "quantities"]

#: A record's value of a field held in the field's integer column (``code == _INT``).
_INT = -1
#: ... in the field's float column.
_FLOAT = -2
#: Codes below this are quantity templates: ``code = _TEMPLATE - template``.
_TEMPLATE = -3
_MUTABLE = (dict, list, set)


def _freeze(value: Any) -> Any:
    """A hashable key equal for equal values of the same types (dict key order kept)."""
    if value is None or isinstance(value, str):
        return value
    kind = type(value)
    if kind is bool or kind is int or kind is float:
        return (kind.__name__, value)
    if isinstance(value, dict):
        return ("dict", tuple((_freeze(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (kind.__name__, tuple(_freeze(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return ("object", id(value))
    return (kind.__name__, value)


def _template_key(quantity: dict[str, Any]) -> Any:
    """The key of a quantity dict without its value: its items in order (value left
    out), quickly when every other value is text or None."""
    items = tuple((k, v) for k, v in quantity.items() if k != "value")
    if all(v is None or type(v) is str for _, v in items):
        return ("flat", tuple(k for k, _ in quantity.items()), items)
    shape = dict(quantity)
    shape["value"] = None
    return _freeze(shape)


class _Column:
    """One field's values: a code per record and the distinct values."""

    def __init__(self) -> None:
        self.codes = array("i")
        self.same: int | None = None  # every record's code, when ``codes`` is not kept
        self.values: list[Any] = []
        self.index: dict[Any, int] = {}
        self.templates: list[dict[str, Any]] = []
        self.flat: list[bool] = []
        self.template_index: dict[Any, int] = {}
        self.ints: array | None = None
        self.floats: array | None = None

    def _number(self, which: str, typecode: str, at: int, value: Any) -> None:
        column = getattr(self, which)
        if column is None:
            column = array(typecode, bytes(array(typecode).itemsize * at))
            setattr(self, which, column)
        while len(column) < at:
            column.append(0)
        column.append(value)

    def add(self, at: int, value: Any) -> None:
        """Append ``value`` as the value of record ``at`` (``at == len(codes)``)."""
        kind = type(value)
        if value is None or kind is str:
            code = self.index.get(value)
            if code is None:
                code = self.index[value] = len(self.values)
                self.values.append(value)
            self.codes.append(code)
            return
        if kind is int and -(2 ** 63) <= value < 2 ** 63:
            self.codes.append(_INT)
            self._number("ints", "q", at, value)
            return
        if kind is float:
            self.codes.append(_FLOAT)
            self._number("floats", "d", at, value)
            return
        if kind is dict and type(value.get("value")) is float:
            key = _template_key(value)
            t = self.template_index.get(key)
            if t is None:
                shape = dict(value)
                shape["value"] = None
                t = self.template_index[key] = len(self.templates)
                self.templates.append(copy.deepcopy(shape))
                self.flat.append(all(not isinstance(v, _MUTABLE) for v in shape.values()))
            self.codes.append(_TEMPLATE - t)
            self._number("floats", "d", at, value["value"])
            return
        key = _freeze(value)
        code = self.index.get(key)
        if code is None:
            code = self.index[key] = len(self.values)
            self.values.append(copy.deepcopy(value) if isinstance(value, _MUTABLE) else value)
        self.codes.append(code)

    def code_array(self, n: int) -> np.ndarray:
        """int32 ``(n,)``: every record's code (read-only)."""
        if self.same is not None:
            return np.broadcast_to(np.int32(self.same), (n,))
        return np.frombuffer(self.codes, dtype=np.int32)[:n]

    def seal(self, n: int) -> None:
        """Drop the build-time indexes; pad the number columns to ``n`` records."""
        self.index, self.template_index = {}, {}
        if len(self.codes) < n:
            self.codes.extend(array("i", bytes(4 * (n - len(self.codes)))))
        for which in ("ints", "floats"):
            column = getattr(self, which)
            if column is not None and len(column) < n:
                column.extend(array(column.typecode, bytes(column.itemsize * (n - len(column)))))

    def get(self, i: int) -> Any:
        code = self.same if self.same is not None else self.codes[i]
        if code >= 0:
            value = self.values[code]
            return copy.deepcopy(value) if isinstance(value, _MUTABLE) else value
        if code == _INT:
            assert self.ints is not None
            return self.ints[i]
        assert self.floats is not None
        if code == _FLOAT:
            return self.floats[i]
        t = _TEMPLATE - code
        out = dict(self.templates[t])
        out["value"] = self.floats[i]
        return out if self.flat[t] else copy.deepcopy(out)


def coded(codes: np.ndarray, values: list[Any]) -> _Column:
    """A field whose value for record ``i`` is ``values[codes[i]]`` (``values`` kept as
    they are: never changed afterwards)."""
    column = _Column()
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    if codes.size and bool((codes == codes[0]).all()):
        column.same = int(codes[0])
    else:
        column.codes = array("i", codes.tobytes())
    column.values = list(values)
    return column


def integers(values: np.ndarray) -> _Column:
    """A field holding one integer a record (int64)."""
    column = _Column()
    column.same = _INT
    column.ints = array("q", np.ascontiguousarray(values, dtype=np.int64).tobytes())
    return column


def quantities(templated: np.ndarray, template: dict[str, Any], values: np.ndarray,
               codes: np.ndarray, others: list[Any]) -> _Column:
    """A quantity field: where ``templated`` (bool per record) the dict ``template`` with
    ``value`` the record's float of ``values``; elsewhere ``others[codes[i]]``."""
    column = coded(np.where(templated, _TEMPLATE, codes), others)
    shape = dict(template)
    shape["value"] = None
    column.templates = [shape]
    column.flat = [all(not isinstance(v, _MUTABLE) for v in shape.values())]
    column.floats = array("d", np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return column


class QuantityColumn:
    """One quantity field across the records, as columns.

    Attributes:
        kinds: ``int32`` per record: ``-1`` when the field is absent or not a
            dict, else an index into ``dicts``.
        dicts: the distinct quantity dicts (a template's ``value`` is the record's,
            in ``values``).
        values: float64 per record: the value of a templated quantity (NaN elsewhere).
        templated: bool per distinct dict: its value is per record (``values``).
    """

    def __init__(self, kinds: np.ndarray, dicts: list[dict[str, Any]], values: np.ndarray,
                 templated: list[bool]) -> None:
        self.kinds, self.dicts, self.values, self.templated = kinds, dicts, values, templated


class ScanRecords(Sequence[dict[str, Any]]):
    """A read-only sequence of scan records (dicts) held as columns (module doc).

    Build with :meth:`of` from any iterable of dicts; index, iterate, ``len`` and
    compare with a list as a list of those dicts.  Each access builds a fresh dict:
    changing it never changes the records.
    """

    def __init__(self) -> None:
        self._n = 0
        self._shapes: list[tuple[str, ...]] = []
        self._shape_index: dict[tuple[str, ...], int] = {}
        self._shape_codes = array("i")
        self._columns: dict[str, _Column] = {}

    @classmethod
    def of(cls, records: Iterable[dict[str, Any]]) -> ScanRecords:
        """The records of ``records`` (each a dict; read once, not kept)."""
        out = cls()
        for record in records:
            out._append(record)
        return out.sealed()

    def append(self, record: dict[str, Any]) -> None:
        """Add ``record`` (a dict; not kept) at the end, while building (before
        :meth:`sealed`)."""
        self._append(record)

    def sealed(self) -> ScanRecords:
        """End building: drop the build-time indexes; returns ``self``."""
        for column in self._columns.values():
            column.seal(self._n)
        self._shape_index = {}
        return self

    @classmethod
    def from_columns(cls, n: int, columns: dict[str, _Column]) -> ScanRecords:
        """``n`` records of the fields of ``columns`` in that order (every record has
        them all), each field made by :func:`coded`, :func:`integers` or
        :func:`quantities`."""
        out = cls()
        out._n = n
        out._shapes = [tuple(columns)]
        out._shape_codes = array("i", bytes(4 * n))
        out._columns = dict(columns)
        return out

    def _append(self, record: dict[str, Any]) -> None:
        keys = tuple(record)
        code = self._shape_index.get(keys)
        if code is None:
            code = self._shape_index[keys] = len(self._shapes)
            self._shapes.append(keys)
        self._shape_codes.append(code)
        at = self._n
        for key, value in record.items():
            column = self._columns.get(key)
            if column is None:
                column = self._columns[key] = _Column()
            while len(column.codes) < at:
                column.codes.append(0)
            column.add(at, value)
        self._n += 1

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("scan record index out of range")
        keys = self._shapes[self._shape_codes[i]]
        return {key: self._columns[key].get(i) for key in keys}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for i in range(self._n):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ScanRecords | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                          strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ScanRecords({self._n} records)"

    def __deepcopy__(self, _memo: dict[int, Any]) -> list[dict[str, Any]]:
        return list(self)

    def present(self, field: str) -> np.ndarray:
        """bool per record: the record has key ``field``."""
        has = np.array([field in keys for keys in self._shapes], dtype=bool)
        if not has.size:
            return np.zeros(0, dtype=bool)
        return has[np.frombuffer(self._shape_codes, dtype=np.int32)]

    def text(self, field: str, default: Any = None) -> tuple[np.ndarray, list[Any]]:
        """``(codes, values)``: field ``field`` of record ``i`` is ``values[codes[i]]``
        (``default`` where absent); numbers held in columns are given as ``values`` too
        (one per record), so any field can be read this way."""
        n = self._n
        column = self._columns.get(field)
        if column is None:
            return np.zeros(n, dtype=np.int32), [default]
        codes = np.array(column.code_array(n))
        values = list(column.values)
        absent = ~self.present(field)
        special = np.flatnonzero((codes < 0) & ~absent)
        for i in special:
            codes[i] = len(values)
            values.append(column.get(int(i)))
        codes[absent] = len(values)
        values.append(default)
        return codes, values

    def integers(self, field: str) -> np.ndarray | None:
        """int64 per record: field ``field`` when every record holds an integer there
        (``int``, not ``bool``); else None."""
        column = self._columns.get(field)
        n = self._n
        if column is None or not bool(self.present(field).all()):
            return None
        codes = column.code_array(n)
        if column.ints is not None and bool((codes == _INT).all()):
            return np.frombuffer(column.ints, dtype=np.int64)[:n].copy()
        codes_, values = self.text(field)
        if not all(type(v) is int and -(2 ** 63) <= v < 2 ** 63 for v in values[:-1]):
            return None
        return np.array(values[:-1] or [0], dtype=np.int64)[codes_]

    def quantity(self, field: str) -> QuantityColumn:
        """Field ``field`` of every record as a :class:`QuantityColumn`."""
        n = self._n
        column = self._columns.get(field)
        absent = ~self.present(field) if n else np.zeros(0, dtype=bool)
        if column is None:
            return QuantityColumn(np.full(n, -1, dtype=np.int32), [], np.full(n, np.nan), [])
        codes = column.code_array(n)
        dicts: list[dict[str, Any]] = []
        templated: list[bool] = []
        kinds = np.full(n, -1, dtype=np.int32)
        for code, value in enumerate(column.values):
            if isinstance(value, dict):
                kinds[codes == code] = len(dicts)
                dicts.append(value)
                templated.append(False)
        for t, template in enumerate(column.templates):
            kinds[codes == _TEMPLATE - t] = len(dicts)
            dicts.append(template)
            templated.append(True)
        kinds[absent] = -1
        values = np.full(n, np.nan)
        if column.floats is not None:
            held = codes <= _TEMPLATE
            values[held] = np.frombuffer(column.floats, dtype=np.float64)[:n][held]
        return QuantityColumn(kinds, dicts, values, templated)
