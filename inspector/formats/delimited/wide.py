"""The wide CSV/TSV layout: one radius column and one signal column per scan, the
scans' metadata from the manifest (the format document's generic wide layout)."""

from __future__ import annotations

from typing import Any

import numpy as np

from inspector.formats.delimited.layouts import (
    WIDE,
    WIDE_SCAN_FIELDS,
    ParsedLayout,
    ScanInputs,
    cell_float,
    check_header,
    field_count_ok,
)
from inspector.formats.delimited.manifest import Manifest
from inspector.formats.delimited.rules import (
    MANIFEST_WIDE_NEEDS_COLUMNS,
    TABLE_DUPLICATE_RADIUS,
    TABLE_MISSING_COLUMN,
)
from inspector.formats.delimited.stages import Stages
from inspector.formats.delimited.table import Table
from inspector.formats.delimited.values import shown

_WideColumn = tuple[dict[str, Any], int, str]


def _wide_columns(manifest: Manifest, table: Table,
                  col: Stages) -> tuple[int, list[_WideColumn]] | None:
    """The radius column index and ``(mapping entry, column index, key path)`` per scan;
    None (and errors) when the mapping is absent or names columns the header lacks."""
    columns = manifest.columns
    if columns is None:
        col.report(MANIFEST_WIDE_NEEDS_COLUMNS, "the wide format needs a 'columns' mapping in "
                   "the manifest (radius column and scan columns)", manifest.loc("columns"))
        return None
    radius_name = columns["radius"]
    i_radius = table.index(radius_name)
    if i_radius < 0:
        col.report(TABLE_MISSING_COLUMN, f"radius column {shown(radius_name)} (manifest "
                   "columns.radius) is not in the header", table.loc(radius_name))
    mapped: list[_WideColumn] = []
    for k, sc in enumerate(columns["scans"]):
        i = table.index(sc["column"])
        if i < 0:
            col.report(TABLE_MISSING_COLUMN, f"scan column {shown(sc['column'])} (manifest "
                       f"columns.scans[{k}]) is not in the header", table.loc(sc["column"]))
        mapped.append((sc, i, f"columns.scans[{k}]"))
    return (i_radius, mapped) if not col.has_errors else None


def _wide_rows(table: Table, radius_name: str, i_radius: int, mapped: list[_WideColumn],
               col: Stages) -> tuple[list[float], list[list[float]]]:
    """The shared radius axis and one signal list per mapped scan column."""
    radius: list[float] = []
    seen: dict[float, int] = {}
    signals: list[list[float]] = [[] for _ in mapped]
    for line, row in table.rows:
        if not field_count_ok(row, line, table, col):
            continue
        r = cell_float(row[i_radius], radius_name, line, table, col)
        if r is not None:
            if r in seen:
                col.report(TABLE_DUPLICATE_RADIUS, f"line {line}: duplicate radius {r} (first "
                           f"at line {seen[r]}); wide scans share one radius axis",
                           table.loc(line))
            else:
                seen[r] = line
            radius.append(r)
        for pos, (sc, i, _) in enumerate(mapped):
            s = cell_float(row[i], sc["column"], line, table, col)
            if s is not None:
                signals[pos].append(s)
    return radius, signals


def _wide_inputs(manifest: Manifest, mapped: list[_WideColumn]) -> list[ScanInputs]:
    """The per-scan metadata the manifest's mapping supplies for each scan column."""
    inputs = []
    for sc, _, key in mapped:
        loc = manifest.loc(key)
        si = ScanInputs(scan_id=sc["scan_id"], location=loc, place=key)
        for name in WIDE_SCAN_FIELDS:
            if sc[name] is not None:
                setattr(si, name, sc[name])
                si.origin[name] = f"{loc}.{name}"
                si.origin_text[name] = f"{key}.{name}"
        inputs.append(si)
    return inputs


def parse_wide(manifest: Manifest, table: Table, col: Stages) -> ParsedLayout | None:
    """Read a ``generic-wide`` table (see module rules); None when an error was recorded."""
    found = _wide_columns(manifest, table, col)
    if found is None:
        return None
    i_radius, mapped = found
    assert manifest.columns is not None
    radius_name = manifest.columns["radius"]
    check_header(table, {radius_name, *(sc["column"] for sc, _, _ in mapped)}, WIDE, col)
    radius, signals = _wide_rows(table, radius_name, i_radius, mapped, col)
    if col.has_errors:
        return None
    counts = [len(values) for values in signals]
    bounds = np.zeros(len(signals) + 1, dtype=np.int64)
    np.cumsum(counts, out=bounds[1:])
    inputs = _wide_inputs(manifest, mapped)
    return ParsedLayout(WIDE, [sc["scan_id"] for sc, _, _ in mapped],
                        np.asarray(radius, dtype=np.float64),
                        np.asarray([v for values in signals for v in values], dtype=np.float64),
                        bounds, inputs, {}, radius_name, always_shared=True,
                        locations=tuple(si.location for si in inputs))
