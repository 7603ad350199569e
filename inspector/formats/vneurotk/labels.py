"""Per-sample stimulus labels (VneuroTK on-disk notes §3), read lazily in blocks.

Storage (root attributes): ``stim_labels_encoding`` = ``typed_scalars`` (a
typed scalar sequence group, VneuroTK on-disk notes §4, NaN allowed), ``native`` or
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
Trade-off: the scan is linear in the number of samples (a few ms per million
float labels); it is the only part of opening that is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import h5py
import numpy as np

from inspector.formats.vneurotk.scalars import CODE_FLOAT, MISSING_CODES, decode_one, sequence_parts
from inspector.formats.vneurotk.source import H5Source, RuleError
from inspector.formats.vneurotk.values import as_text, is_missing

LABEL_BLOCK = 1 << 20


@dataclass
class LabelScan:
    """What one pass over the labels found (flat C order)."""

    first: list[Any] = field(default_factory=list)
    non_missing_count: int = 0
    first_non_missing: list[Any] = field(default_factory=list)
    at: dict[int, Any] = field(default_factory=dict)


class Labels:
    """Lazy view of ``/stim_labels``.

    Attributes:
        encoding: ``"typed_scalars"``, ``"native"`` or ``"legacy"``.
        is_str: legacy byte-string labels.
        shape: logical shape (after ``stim_labels_shape``).
        dtype: numpy dtype name of the labels as read (``"float64"``,
            ``"object"``...).
        count: number of elements.
    """

    def __init__(self, source: H5Source, f: h5py.File) -> None:
        self._source = source
        enc = as_text(f.attrs.get("stim_labels_encoding", "legacy"))
        self.encoding = enc.value if enc is not None else "legacy"
        obj = f["stim_labels"]
        self._types = self._values = self._ds = None
        if self.encoding == "typed_scalars":
            self._types, self._values = sequence_parts(obj, "/stim_labels")
            n = int(self._types.shape[0])
            self.is_str = False
            self.dtype = "object"
        else:
            if not isinstance(obj, h5py.Dataset):
                raise RuleError("labels.not-dataset", f"/stim_labels must be a dataset for encoding {self.encoding!r} (VneuroTK on-disk notes §3)", "/stim_labels")
            self._ds = obj
            n = int(np.prod(obj.shape, dtype=np.int64)) if obj.shape is not None else 0
            self.is_str = bool(np.asarray(f.attrs.get("stim_labels_is_str", False)).reshape(-1)[0]) if "stim_labels_is_str" in f.attrs else False
            self.dtype = "object" if self.is_str else np.dtype(obj.dtype).name
            if obj.dtype.kind in "SO" and not self.is_str:
                self.dtype = "object"
        self.count = n
        self.shape: tuple[int, ...] = (n,)
        if "stim_labels_shape" in f.attrs:
            raw = np.asarray(f.attrs["stim_labels_shape"]).reshape(-1)
            try:
                shape = tuple(int(x) for x in raw)
            except (TypeError, ValueError):
                raise RuleError("labels.bad-shape", f"stim_labels_shape {raw!r} is not a list of integers (VneuroTK on-disk notes §3)", "/@stim_labels_shape") from None
            if int(np.prod(shape, dtype=np.int64)) != n or any(x < 0 for x in shape):
                raise RuleError(
                    "labels.shape-mismatch",
                    f"stim_labels_shape {list(shape)} does not hold the {n} stored labels (VneuroTK on-disk notes §3)",
                    "/@stim_labels_shape",
                )
            self.shape = shape

    # -- decoding ------------------------------------------------------------
    def _decode_block(self, a: int, b: int, need_all: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """Return ``(missing_mask, values_or_None)`` for elements ``[a, b)``."""
        if self._types is not None:
            codes = np.asarray(self._source.read(self._types, slice(a, b))).astype(np.int64)
            bad = ~np.isin(codes, np.arange(1, 8))
            if bad.any():
                raise RuleError("scalar.unknown-code", f"/stim_labels/types holds unknown typed scalar code {int(codes[bad][0])} (VneuroTK on-disk notes §4)", "/stim_labels/types")
            missing = np.isin(codes, MISSING_CODES)
            has_float = bool((codes == CODE_FLOAT).any())
            if not (need_all or has_float):
                return missing, None
            payload = np.asarray(self._source.read(self._values, slice(a, b)), dtype=object)
            vals = np.empty(b - a, dtype=object)
            for i, (c, p) in enumerate(zip(codes, payload, strict=True)):
                vals[i] = decode_one(int(c), p, allow_nonfinite=True, location="/stim_labels")
            missing = np.fromiter((is_missing(v) for v in vals), dtype=bool, count=b - a)
            return missing, vals
        raw = np.asarray(self._source.read(self._ds, slice(a, b)) if self._ds.ndim == 1 else
                         self._source.read(self._ds, ...).reshape(-1)[a:b])
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

    def scan(self, positions: list[int] | np.ndarray = ()) -> LabelScan:
        """One blockwise pass: first 5, non-missing count/first 5, labels at ``positions``.

        Raises:
            RuleError: an unknown type code or malformed payload.
            OSError: the file changed or cannot be read.
        """
        pos = np.unique(np.asarray(list(positions), dtype=np.int64))
        if self._ds is not None and not self.is_str and self._ds.dtype.kind in "fiub" and self._ds.ndim == 1:
            return self._scan_numeric(pos)
        out = LabelScan()
        for a in range(0, self.count, LABEL_BLOCK):
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
        return out

    def _scan_numeric(self, pos: np.ndarray) -> LabelScan:
        """Fast path for native numeric labels: one reused buffer, NaN counting only."""
        out = LabelScan()
        ds = self._ds
        buf = np.empty(min(LABEL_BLOCK, max(self.count, 1)), dtype=ds.dtype)
        is_float = ds.dtype.kind == "f"
        for a in range(0, self.count, LABEL_BLOCK):
            b = min(self.count, a + LABEL_BLOCK)
            self._source.check()
            v = buf[: b - a]
            try:
                ds.read_direct(v, np.s_[a:b], np.s_[0 : b - a])
            except (OSError, RuntimeError, TypeError) as exc:
                raise OSError(f"{self._source.path}: cannot read {ds.name}: {exc}") from exc
            if len(out.first) < 5:
                out.first.extend(_py(x) for x in v[: 5 - len(out.first)])
            nan = np.isnan(v) if is_float else None
            n_missing = int(np.count_nonzero(nan)) if nan is not None else 0
            out.non_missing_count += (b - a) - n_missing
            if len(out.first_non_missing) < 5:
                idx = np.flatnonzero(~nan) if nan is not None else np.arange(b - a)
                out.first_non_missing.extend(_py(v[i]) for i in idx[: 5 - len(out.first_non_missing)])
            want = pos[(pos >= a) & (pos < b)]
            if want.size:
                for p, x in zip(want.tolist(), v[want - a].tolist(), strict=True):
                    out.at[p] = x
        return out

    def read(self, selection: Any = Ellipsis) -> np.ndarray:
        """Decode ``labels[selection]`` (reads the flat range covering it)."""
        flat_idx = np.arange(self.count).reshape(self.shape)[selection]
        idx = np.asarray(flat_idx).reshape(-1)
        if idx.size == 0:
            return np.asarray(flat_idx, dtype=object)
        a, b = int(idx.min()), int(idx.max()) + 1
        _, vals = self._decode_block(a, b, True)
        res = np.asarray(vals)[idx - a]
        return res.reshape(np.shape(flat_idx))


def _py(v: Any) -> Any:
    """numpy scalar to Python scalar (keeps None/NA/NaT and str)."""
    if isinstance(v, np.generic):
        return v.item()
    return v
