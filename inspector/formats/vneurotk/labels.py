"""Per-sample stimulus labels, read lazily in blocks.

Storage (root attributes): ``stim_labels_encoding`` = ``typed_scalars`` (a
typed scalar sequence group, recording notes §4, NaN allowed), ``native`` or
absent (legacy: a plain dataset; with ``stim_labels_is_str`` true it holds
UTF-8 byte strings where the empty string means missing).
``stim_labels_shape`` reshapes the flat array.

Labels are as long as the recording (one per sample), so they are never held
whole: :meth:`Labels.scan` streams the dataset in blocks of
:data:`LABEL_BLOCK` elements once and collects what the summary needs (first
elements, non-missing count, first non-missing values, the labels at given
flat positions).  For typed labels the uint8 ``types`` dataset decides most
cases; the text payloads are read only for blocks that hold floats (NaN
placeholders must be told apart from real float IDs) or wanted positions.
The scan is linear in the number of samples (a few ms per million float
labels locally; the whole dataset over a network), so it is no part of
opening: it runs as a deferred check (:mod:`.label_check`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import h5py
import numpy as np

from inspector.formats.hdf5 import external_guard
from inspector.formats.hdf5.arrays import normalize_selection
from inspector.formats.hdf5.heap import read_attribute
from inspector.formats.hdf5.read_watch import ReadStopped
from inspector.formats.hdf5.source import H5Source, RuleError
from inspector.formats.hdf5.values import as_text, is_missing
from inspector.formats.vneurotk import rules as R
from inspector.formats.vneurotk.scalars import (
    CODE_FLOAT,
    MISSING_CODES,
    decode_one,
    sequence_parts,
)

#: Labels read per block (1 MiB of float64).  h5py holds the interpreter lock for a
#: whole read: a block of 8 MiB kept the GUI thread waiting 30 to 60 ms while the
#: scan ran beside the first paint of a recording (docs/architecture.md, "Contracts").
LABEL_BLOCK = 1 << 17

#: Called before each block of a scan with ``(blocks done, blocks in all)``; it may
#: raise (:class:`ScanCancelled`) to stop the scan there.
BlockFn = Callable[[int, int], None]


class ScanCancelled(Exception):
    """Raised by a :data:`BlockFn` to stop a scan between blocks."""


def _blocks(count: int, on_block: BlockFn | None) -> range:
    """The block starts of a scan of ``count`` labels, after the first callback."""
    starts = range(0, count, LABEL_BLOCK)
    if on_block is not None:
        on_block(0, len(starts))
    return starts


@dataclass
class LabelScan:
    """What one pass over the labels found (flat C order)."""

    first: list[Any] = field(default_factory=list)
    non_missing_count: int = 0
    first_non_missing: list[Any] = field(default_factory=list)
    at: dict[int, Any] = field(default_factory=dict)


def _is_str_flag(f: h5py.File) -> bool:
    """``stim_labels_is_str`` as one boolean (absent: False).

    Raises:
        RuleError: ``labels.bad-is-str`` for anything but one boolean or 0/1.
    """
    if "stim_labels_is_str" not in f.attrs:
        return False
    raw = np.asarray(read_attribute(f, "stim_labels_is_str"))
    if raw.size != 1 or raw.dtype.kind not in "biu" or int(raw.reshape(-1)[0]) not in (0, 1):
        shown = f"{raw.dtype} of shape {raw.shape}" if raw.size != 1 else repr(raw.reshape(-1)[0])
        raise RuleError(R.LABELS_BAD_IS_STR,
                        f"stim_labels_is_str must be one boolean, got {shown}",
                        "/@stim_labels_is_str")
    return bool(raw.reshape(-1)[0])


def _labels_shape(f: h5py.File, n: int) -> tuple[int, ...]:
    """``stim_labels_shape`` checked against the ``n`` stored labels (absent: ``(n,)``).

    Raises:
        RuleError: ``labels.bad-shape`` (not integers) or
            ``labels.shape-mismatch`` (negative, or a product other than ``n``).
    """
    if "stim_labels_shape" not in f.attrs:
        return (n,)
    raw = np.asarray(read_attribute(f, "stim_labels_shape")).reshape(-1)
    integral = raw.dtype.kind in "iu" or (
        raw.dtype.kind == "f" and bool(np.all(np.isfinite(raw)))
        and bool(np.all(raw == np.round(raw))))
    if not integral:
        raise RuleError(R.LABELS_BAD_SHAPE,
                        f"stim_labels_shape {raw.tolist()!r} is not a list of integers",
                        "/@stim_labels_shape")
    shape = tuple(int(x) for x in raw)
    product = 1
    for x in shape:  # Python ints: no overflow however large the entries
        product *= x
    if product != n or any(x < 0 for x in shape) or not shape:
        raise RuleError(R.LABELS_SHAPE_MISMATCH,
                        f"stim_labels_shape {list(shape)} does not hold the {n} stored labels",
                        "/@stim_labels_shape")
    return shape


class Labels:
    """Lazy view of ``/stim_labels``.

    Attributes:
        encoding: ``"typed_scalars"``, ``"native"`` or ``"legacy"``.
        is_str: legacy byte-string labels.
        shape: logical shape (after ``stim_labels_shape``).
        dtype: numpy dtype name of the labels as read (``"float64"``,
            ``"object"``...).
        count: number of elements.

    Raises:
        RuleError: the labels break a rule of notes §3 or §4.
    """

    def __init__(self, source: H5Source, f: h5py.File) -> None:
        self._source = source
        enc = as_text(read_attribute(f, "stim_labels_encoding", "legacy"))
        self.encoding = enc.value if enc is not None else "legacy"
        obj = f["stim_labels"]
        self._types: h5py.Dataset | None = None
        self._values: h5py.Dataset | None = None
        self._ds: h5py.Dataset | None = None
        self.is_str = False
        if self.encoding == "typed_scalars":
            self._types, self._values = sequence_parts(obj, "/stim_labels")
            n = int(self._types.shape[0])
            self.dtype = "object"
        else:
            n = self._init_dataset(f, obj)
        self.count = n
        self.shape: tuple[int, ...] = _labels_shape(f, n)

    def _init_dataset(self, f: h5py.File, obj: Any) -> int:
        """Native or legacy labels: a plain dataset; returns the element count."""
        if not isinstance(obj, h5py.Dataset):
            raise RuleError(R.LABELS_NOT_DATASET,
                            f"/stim_labels must be a dataset for encoding {self.encoding!r}",
                            "/stim_labels")
        self._ds = obj
        n = 1
        for x in obj.shape or (0,):
            n *= int(x)
        self.is_str = _is_str_flag(f)
        self.dtype = "object" if self.is_str else np.dtype(obj.dtype).name
        if obj.dtype.kind in "SO" and not self.is_str:
            self.dtype = "object"
        return n

    # -- decoding ------------------------------------------------------------
    def _decode_typed(self, a: int, b: int,
                      need_all: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """Typed labels ``[a, b)``: the payloads are read only when needed."""
        assert self._types is not None and self._values is not None
        codes = np.asarray(self._source.read(self._types, slice(a, b))).astype(np.int64)
        bad = ~np.isin(codes, np.arange(1, 8))
        if bad.any():
            raise RuleError(R.SCALAR_UNKNOWN_CODE,
                            f"/stim_labels/types holds unknown typed scalar code "
                            f"{int(codes[bad][0])}", "/stim_labels/types")
        missing = np.isin(codes, MISSING_CODES)
        if not (need_all or bool((codes == CODE_FLOAT).any())):
            return missing, None
        payload = np.asarray(self._source.read(self._values, slice(a, b)), dtype=object)
        vals = np.empty(b - a, dtype=object)
        for i, (c, p) in enumerate(zip(codes, payload, strict=True)):
            vals[i] = decode_one(int(c), p, allow_nonfinite=True, location="/stim_labels")
        missing = np.fromiter((is_missing(v) for v in vals), dtype=bool, count=b - a)
        return missing, vals

    def _read_flat(self, a: int, b: int) -> np.ndarray:
        """Elements ``[a, b)`` of the plain dataset in C order (reads whole rows only)."""
        ds = self._ds
        assert ds is not None
        if ds.ndim <= 1:
            return np.asarray(self._source.read(ds, slice(a, b) if ds.ndim else ())).reshape(-1)
        per_row = 1
        for x in ds.shape[1:]:
            per_row *= int(x)
        r0, r1 = a // per_row, -(-b // per_row)
        rows = np.asarray(self._source.read(ds, slice(r0, r1))).reshape(-1)
        return rows[a - r0 * per_row: b - r0 * per_row]

    def _decode_block(self, a: int, b: int,
                      need_all: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """Return ``(missing_mask, values_or_None)`` for elements ``[a, b)``."""
        if self._types is not None:
            return self._decode_typed(a, b, need_all)
        raw = self._read_flat(a, b)
        if self.is_str:
            vals = np.empty(b - a, dtype=object)
            for i, v in enumerate(raw):
                t = as_text(v)
                s = t.value if t is not None else str(v)
                vals[i] = np.nan if s == "" else s
            missing = np.fromiter((is_missing(v) for v in vals), dtype=bool, count=b - a)
            return missing, vals
        if raw.dtype.kind == "f":
            return np.isnan(raw), raw
        if raw.dtype.kind in "SO":
            return np.zeros(raw.shape, dtype=bool), raw.astype(object)
        return np.zeros(raw.shape, dtype=bool), raw

    def scan(self, positions: list[int] | np.ndarray | tuple[int, ...] = (),
             on_block: BlockFn | None = None) -> LabelScan:
        """One blockwise pass: first 5, non-missing count/first 5, labels at ``positions``.

        ``on_block(done, total)`` is called before the first block and after
        each block (progress; it may raise to stop the scan).

        Raises:
            RuleError: an unknown type code or malformed payload.
            OSError: the file changed or cannot be read.
        """
        pos = np.unique(np.asarray(list(positions), dtype=np.int64))
        ds = self._ds
        if ds is not None and not self.is_str and ds.dtype.kind in "fiub" and ds.ndim == 1:
            return self._scan_numeric(pos, on_block)
        out = LabelScan()
        for i, a in enumerate(_blocks(self.count, on_block)):
            b = min(self.count, a + LABEL_BLOCK)
            want = pos[(pos >= a) & (pos < b)]
            need_all = a < 5 or len(out.first_non_missing) < 5 or want.size > 0
            missing, vals = self._decode_block(a, b, need_all)
            if vals is not None:
                if len(out.first) < 5:
                    out.first.extend(_py(v) for v in vals[: 5 - len(out.first)])
                if len(out.first_non_missing) < 5:
                    idx = np.flatnonzero(~missing)[: 5 - len(out.first_non_missing)]
                    out.first_non_missing.extend(_py(vals[i]) for i in idx)
                for p in want:
                    out.at[int(p)] = _py(vals[int(p) - a])
            out.non_missing_count += int((~missing).sum())
            _done(on_block, i, self.count)
        return out

    def _scan_numeric(self, pos: np.ndarray, on_block: BlockFn | None) -> LabelScan:
        """Fast path for native numeric labels: one reused buffer, NaN counting only."""
        out = LabelScan()
        ds = self._ds
        assert ds is not None
        buf = np.empty(min(LABEL_BLOCK, max(self.count, 1)), dtype=ds.dtype)
        is_float = ds.dtype.kind == "f"
        for i, a in enumerate(_blocks(self.count, on_block)):
            b = min(self.count, a + LABEL_BLOCK)
            self._source.check()
            v = buf[: b - a]
            try:
                with external_guard.watched(ds):  # out of bounds: never read; pipes: stopped
                    ds.read_direct(v, np.s_[a:b], np.s_[0 : b - a])
            except (external_guard.ExternalRefused, ReadStopped):
                raise
            except (OSError, RuntimeError, TypeError) as exc:
                raise OSError(f"cannot read {ds.name}: {exc}") from exc
            if len(out.first) < 5:
                out.first.extend(_py(x) for x in v[: 5 - len(out.first)])
            nan = np.isnan(v) if is_float else None
            n_missing = int(np.count_nonzero(nan)) if nan is not None else 0
            out.non_missing_count += (b - a) - n_missing
            if len(out.first_non_missing) < 5:
                idx = np.flatnonzero(~nan) if nan is not None else np.arange(b - a)
                room = 5 - len(out.first_non_missing)
                out.first_non_missing.extend(_py(v[i]) for i in idx[:room])
            want = pos[(pos >= a) & (pos < b)]
            if want.size:
                for p, x in zip(want.tolist(), v[want - a].tolist(), strict=True):
                    out.at[p] = x
            _done(on_block, i, self.count)
        return out

    def read(self, selection: Any = Ellipsis) -> np.ndarray:
        """Decode ``labels[selection]`` (integers, slices, Ellipsis).

        Reads the flat range covering the selection; never builds an index
        array larger than the selection.

        Raises:
            IndexError, TypeError: see :func:`~.arrays.normalize_selection`.
            RuleError, OSError: as for :meth:`scan`.
        """
        sel = normalize_selection(selection, self.shape)
        axes = [np.arange(n)[s] if isinstance(s, slice) else np.array([s])
                for s, n in zip(sel, self.shape, strict=True)]
        out_shape = tuple(len(ax) for ax, s in zip(axes, sel, strict=True)
                          if isinstance(s, slice))
        if any(len(ax) == 0 for ax in axes):
            return np.empty(out_shape, dtype=object)
        idx = np.ravel_multi_index(np.ix_(*axes), self.shape).reshape(-1)
        a, b = int(idx.min()), int(idx.max()) + 1
        _, vals = self._decode_block(a, b, True)
        return np.asarray(vals)[idx - a].reshape(out_shape)


def _done(on_block: BlockFn | None, index: int, count: int) -> None:
    """Tell ``on_block`` that block ``index`` of a scan of ``count`` labels is done."""
    if on_block is not None:
        on_block(index + 1, -(-count // LABEL_BLOCK))


def _py(v: Any) -> Any:
    """numpy scalar to Python scalar (keeps None/NA/NaT and str)."""
    if isinstance(v, np.generic):
        return v.item()
    return v
