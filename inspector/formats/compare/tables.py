"""The trials section: trial structure and tables (trial metadata), row by row.

Trial markers, per-trial stimulus IDs (typed: ``1`` and ``"1"`` differ),
windows and per-sample labels are compared value by value.  A table's rows are
matched by a key column when one is unique on both sides (the first such column
common to both, of integers or text), else by position; columns added or
removed, changed cells (``trial_meta[3].rt``, or ``trial_meta[trial_no=7].rt``
by key) and column dtypes (representation) are reported.  Nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.compare.fields import plain, scalars_equal, typed, typed_key
from inspector.formats.compare.model import (
    ADDED,
    CHANGED,
    DTYPE,
    REMOVED,
    SHAPE,
    VALUES,
    Collector,
    Difference,
)
from inspector.formats.compare.values import compare_arrays_in_memory

if TYPE_CHECKING:
    from inspector.formats.capabilities import TrialStructure
    from inspector.formats.table import Table

SECTION = "trials"
#: Most cell differences listed per table; the others are counted.
MAX_CELLS_LISTED = 200
#: Labels read per block when comparing per-sample stimulus labels.
LABEL_BLOCK = 1 << 20


def compare_trials(out: Collector, a: TrialStructure | None, b: TrialStructure | None) -> None:
    """Compare two trial structures (either may be None: no trial structure).

    The sampling rate, trial window and baseline are header fields (``neuro_info``,
    ``trial_info``), compared there."""
    if a is None or b is None:
        if a is not b:
            out.add(Difference(SECTION, ADDED if a is None else REMOVED, "trial structure",
                               None if a is None else a.data_mode,
                               None if b is None else b.data_mode))
        return
    if a.data_mode != b.data_mode:
        out.add(Difference(SECTION, CHANGED, "data_mode", a.data_mode, b.data_mode))
    for name in ("trial_starts", "trial_ends", "vision_onsets"):
        compare_numbers(out, SECTION, name, getattr(a, name), getattr(b, name))
    compare_ids(out, "trial_stim_ids", a.trial_stim_ids, b.trial_stim_ids)
    if a.trial is not None and b.trial is not None:
        from inspector.formats.compare.arrays import compare_pair

        compare_pair(out, "trial", a.trial, b.trial, section=SECTION)
    compare_labels(out, a.stim_labels, b.stim_labels)


def compare_numbers(out: Collector, section: str, path: str, a: Any, b: Any) -> None:
    """Compare two small in-memory arrays (None: absent)."""
    if a is None or b is None:
        if a is not None or b is not None:
            out.add(Difference(section, ADDED if a is None else REMOVED, path,
                               plain(a), plain(b)))
        return
    compare_arrays_in_memory(out, section, path, np.asarray(a), np.asarray(b))


def compare_ids(out: Collector, path: str, a: tuple[Any, ...] | None,
                b: tuple[Any, ...] | None) -> None:
    """Compare two sequences of typed IDs position by position."""
    if a is None or b is None:
        if a is not None or b is not None:
            out.add(Difference(SECTION, ADDED if a is None else REMOVED, path))
        return
    if len(a) != len(b):
        out.add(Difference(SECTION, SHAPE, path, len(a), len(b)))
        return
    bad = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if typed_key(x) != typed_key(y)]
    if bad:
        i = bad[0]
        out.add(Difference(SECTION, VALUES, path, typed(a[i]), typed(b[i]),
                           detail={"compared": len(a), "differing": len(bad),
                                   "first_index": [i]},
                           note=f"{len(bad):,} of {len(a):,} IDs differ (first at {i:,})"))


def compare_labels(out: Collector, a: Any, b: Any) -> None:
    """Compare per-sample stimulus labels (lazy: ``shape``, ``dtype``, ``read``) in blocks."""
    if a is None or b is None:
        if a is not None or b is not None:
            out.add(Difference(SECTION, ADDED if a is None else REMOVED, "stim_labels"))
        return
    if tuple(a.shape) != tuple(b.shape):
        out.add(Difference(SECTION, SHAPE, "stim_labels", list(a.shape), list(b.shape)))
        return
    if not a.shape:
        out.skip(SECTION, "stim_labels", "the labels are a scalar, not one per sample")
        return
    n = int(a.shape[0])
    differing, first = 0, None
    for s in range(0, n, LABEL_BLOCK):
        sel = slice(s, min(n, s + LABEL_BLOCK))
        mask = _labels_differ(np.asarray(a.read(sel)), np.asarray(b.read(sel)))
        count = int(np.count_nonzero(mask))
        if count and first is None:
            at = np.unravel_index(int(np.argmax(mask.reshape(-1))), mask.shape)
            first = [int(at[0]) + s, *(int(i) for i in at[1:])]
        differing += count
    if differing:
        out.add(Difference(SECTION, VALUES, "stim_labels",
                           detail={"compared": int(np.prod(a.shape)), "differing": differing,
                                   "first_index": first},
                           note=f"{differing} stimulus labels differ"))


def _labels_differ(va: np.ndarray, vb: np.ndarray) -> np.ndarray:
    if va.dtype.kind in "biuf" and vb.dtype.kind in "biuf":
        return np.asarray((va != vb) & ~(np.isnan(va.astype(float)) & np.isnan(vb.astype(float))))
    flat = [typed_key(x) != typed_key(y) for x, y in zip(va.reshape(-1), vb.reshape(-1),
                                                          strict=True)]
    return np.array(flat, dtype=bool).reshape(va.shape)


def compare_tables(out: Collector, a: Mapping[str, Table], b: Mapping[str, Table],
                   skip: tuple[str, ...] = (), section: str = SECTION) -> None:
    """Compare the tables of two documents by name (``skip``: compared elsewhere)."""
    for name in [n for n in a if n not in skip] + [n for n in b if n not in a and n not in skip]:
        ta, tb = a.get(name), b.get(name)
        if ta is None or tb is None:
            out.add(Difference(section, ADDED if ta is None else REMOVED, name,
                               None if ta is None else len(ta), None if tb is None else len(tb)))
            continue
        compare_table(out, name, ta, tb, section)


def compare_table(out: Collector, name: str, a: Table, b: Table, section: str = SECTION) -> None:
    """Compare two tables: columns (by label), dtypes, then rows and cells."""
    la, lb = list(a.labels), list(b.labels)
    for label in la:
        if label not in lb:
            out.add(Difference(section, REMOVED, f"{name}.{label}", note="column"))
    for label in lb:
        if label not in la:
            out.add(Difference(section, ADDED, f"{name}.{label}", note="column"))
    common = [c for c in la if c in lb]
    da, db = dict(zip(la, a.dtype_names, strict=True)), dict(zip(lb, b.dtype_names, strict=True))
    for c in common:
        if da[c] != db[c]:
            out.add(Difference(section, DTYPE, f"{name}.{c}", da[c], db[c], content=False))
    cols_a = {c: a.column(la.index(c)) for c in common}
    cols_b = {c: b.column(lb.index(c)) for c in common}
    key = _key_column(common, cols_a, cols_b)
    rows = _match_rows(out, name, section, key, cols_a, cols_b, len(a), len(b))
    _compare_cells(out, name, section, rows, cols_a, cols_b)


def _key_column(common: list[Any], ca: Mapping[Any, np.ndarray],
                cb: Mapping[Any, np.ndarray]) -> Any:
    """The first common column of integers or text unique on both sides, or None."""
    for c in common:
        va, vb = ca[c], cb[c]
        if va.dtype.kind in "fcb" or vb.dtype.kind in "fcb":
            continue
        ka, kb = [typed_key(v) for v in va], [typed_key(v) for v in vb]
        if len(set(ka)) == len(ka) and len(set(kb)) == len(kb) and set(ka) & set(kb):
            return c
    return None


def _match_rows(out: Collector, name: str, section: str, key: Any,
                ca: Mapping[Any, np.ndarray], cb: Mapping[Any, np.ndarray],
                na: int, nb: int) -> list[tuple[str, int, int]]:
    """Pairs ``(row label, row in A, row in B)``; rows of one side only are reported."""
    if key is None:
        for i in range(nb, na):
            out.add(Difference(section, REMOVED, f"{name}[{i}]", note="row"))
        for i in range(na, nb):
            out.add(Difference(section, ADDED, f"{name}[{i}]", note="row"))
        return [(f"{name}[{i}]", i, i) for i in range(min(na, nb))]
    ka = {typed_key(v): i for i, v in enumerate(ca[key])}
    kb = {typed_key(v): i for i, v in enumerate(cb[key])}
    for k, i in ka.items():
        if k not in kb:
            out.add(Difference(section, REMOVED, f"{name}[{key}={plain(ca[key][i])}]",
                               note="row"))
    for k, i in kb.items():
        if k not in ka:
            out.add(Difference(section, ADDED, f"{name}[{key}={plain(cb[key][i])}]",
                               note="row"))
    return [(f"{name}[{key}={plain(ca[key][i])}]", i, kb[k]) for k, i in ka.items() if k in kb]


def _compare_cells(out: Collector, name: str, section: str, rows: list[tuple[str, int, int]],
                   ca: Mapping[Any, np.ndarray], cb: Mapping[Any, np.ndarray]) -> None:
    listed = more = 0
    o = out.options
    for label, i, j in rows:
        for c in ca:
            x, y = _cell(ca[c][i]), _cell(cb[c][j])
            if _cells_equal(x, y, o.rtol, o.atol):
                continue
            if listed >= MAX_CELLS_LISTED:
                more += 1
                continue
            listed += 1
            out.add(Difference(section, CHANGED, f"{label}.{c}", plain(x), plain(y),
                               detail={"table": name, "row_a": i, "row_b": j,
                                       "column": plain(c)}))
    if more:
        out.add(Difference(section, CHANGED, name, detail={"unlisted_cells": more},
                           note=f"{more} more cells differ"))


def _cell(v: Any) -> Any:
    item = getattr(v, "item", None)
    if callable(item) and not isinstance(v, str | bytes):
        try:
            return item()
        except (TypeError, ValueError):
            return v
    return v


def _cells_equal(x: Any, y: Any, rtol: float, atol: float) -> bool:
    if isinstance(x, float) and isinstance(y, float):
        return scalars_equal(x, y, rtol, atol)
    if typed_key(x) == typed_key(y):
        return True
    return scalars_equal(x, y, rtol, atol) if not isinstance(x, str) else False
