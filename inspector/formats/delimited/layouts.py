"""The two generic table layouts and how one is chosen.

``generic-long`` (``docs/formats/generic-delimited.md``, "Long format"): one
row per radial observation; required columns ``scan``, ``radius_cm``,
``signal``; optional per-scan columns ``elapsed_seconds``,
``acquisition_timestamp``, ``cell``, ``channel``, ``wavelength_nm``,
``optical_system``, ``signal_unit``, ``rotor_speed_rpm``, ``temperature_c``,
``source_scan_id``.  Rows keep their order; a duplicate ``(scan, radius)`` is a
conflict; a non-numeric or non-finite ``radius_cm``/``signal`` is an error; an
optional column with two different (non-blank) values within one scan is a
conflict.

``generic-wide`` ("Wide format"): one radius column and one signal column per
scan, mapped by the manifest's ``columns`` block; scans share the radius axis,
so a repeated radius is a conflict.

Selection (``parser-detection.md``): the manifest's ``format`` if given
(unknown ids are rejected), else detection: long scores 0.8 with all three
required columns (0.1 per column otherwise); wide scores 0.8 when the
manifest's ``columns`` mapping names only header columns, else 0; the best
must reach 0.5 and beat the runner-up (if that also reaches 0.5) by 0.15.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.formats.delimited.errors import Collector
from inspector.formats.delimited.manifest import Manifest
from inspector.formats.delimited.table import Table
from inspector.formats.delimited.values import (
    format_datetime,
    parse_optical_table,
    parse_timestamp,
    table_float,
)

LONG = "generic-long"
WIDE = "generic-wide"
FORMATS = (LONG, WIDE)
LONG_REQUIRED = ("scan", "radius_cm", "signal")
LONG_OPTIONAL = (
    "elapsed_seconds",
    "acquisition_timestamp",
    "cell",
    "channel",
    "wavelength_nm",
    "optical_system",
    "signal_unit",
    "rotor_speed_rpm",
    "temperature_c",
    "source_scan_id",
)
MINIMUM_CONFIDENCE = 0.5
TIE_MARGIN = 0.15
RULE_LONG = "[generic-delimited: long format]"
RULE_WIDE = "[generic-delimited: wide format]"
RULE_DETECT = "[parser-detection: selection]"


@dataclass
class ScanInputs:
    """Per-scan metadata as the table or the wide mapping supplies it (None: not supplied).

    ``origin`` maps each supplied field to its location (for conflict messages).
    """

    scan_id: str
    elapsed_seconds: float | None = None
    acquired_at: str | None = None
    cell: str | None = None
    channel: str | None = None
    wavelength_nm: float | None = None
    optical_system: str | None = None
    rotor_speed_rpm: float | None = None
    temperature_c: float | None = None
    source_scan_id: str | None = None
    origin: dict[str, str] = field(default_factory=dict)
    location: str = ""


@dataclass
class ParsedLayout:
    """What a layout parser read, before it becomes the canonical model.

    Attributes:
        format_id: ``"generic-long"`` or ``"generic-wide"``.
        scan_ids: in first-appearance (long) or mapping (wide) order.
        radii, signals: float lists per scan, row order kept.
        inputs: per-scan metadata supplied by the table or the mapping.
        signal_units: distinct ``signal_unit`` cell values -> first location.
        radius_column: name of the radius column.
        always_shared: wide tables share one axis by definition.
    """

    format_id: str
    scan_ids: list[str]
    radii: list[list[float]]
    signals: list[list[float]]
    inputs: list[ScanInputs]
    signal_units: dict[str, str]
    radius_column: str
    always_shared: bool = False


def select_layout(manifest: Manifest, table: Table, col: Collector) -> str | None:
    """The layout id to parse with (see module rules); None and an error otherwise."""
    declared = manifest.format
    if declared:
        if declared not in FORMATS:
            col.error("unsupported", "layout.unknown-format",
                      f"{manifest.name}: unknown format {declared!r}; supported formats: "
                      f"{', '.join(FORMATS)} {RULE_DETECT}", manifest.loc("format"))
            return None
        return declared
    present = [c for c in LONG_REQUIRED if c in table.header]
    long_score = 0.8 if len(present) == len(LONG_REQUIRED) else 0.1 * len(present)
    columns = manifest.columns
    wide_score = 0.0
    if columns is not None:
        wanted = [columns["radius"], *(s["column"] for s in columns["scans"])]
        wide_score = 0.8 if all(w in table.header for w in wanted) else 0.0
    scores = sorted([(long_score, LONG), (wide_score, WIDE)], key=lambda t: t[0], reverse=True)
    (best, best_id), (runner, runner_id) = scores
    detail = f"{LONG}={long_score:.2f}; {WIDE}={wide_score:.2f}"
    if best < MINIMUM_CONFIDENCE:
        col.error("unsupported", "layout.not-detected",
                  f"{table.name}: the manifest declares no format and no layout is recognised "
                  f"(scores {detail}; threshold {MINIMUM_CONFIDENCE:.2f}): a long table needs "
                  f"columns {list(LONG_REQUIRED)}, a wide table a 'columns' mapping "
                  f"{RULE_DETECT}", table.loc(table.header_line))
        return None
    if runner >= MINIMUM_CONFIDENCE and best - runner < TIE_MARGIN:
        col.error("ambiguous", "layout.ambiguous",
                  f"{table.name}: cannot choose between {best_id!r} and {runner_id!r} "
                  f"(scores {detail}); declare 'format' in the manifest {RULE_DETECT}",
                  manifest.loc("format"))
        return None
    return best_id


def _cell_float(raw: str, column: str, line: int, table: Table, col: Collector,
                rule: str) -> float | None:
    value = table_float(raw)
    if value is None:
        col.error("parse", "table.not-a-number",
                  f"{table.name} line {line}, column {column!r}: expected a finite number, "
                  f"got {raw!r} {rule}", table.loc(line))
        return None
    if value != value or value in (float("inf"), float("-inf")):
        col.error("parse", "table.non-finite",
                  f"{table.name} line {line}, column {column!r}: value must be finite, "
                  f"got {raw!r} {rule}", table.loc(line))
        return None
    return value


def _check_header(table: Table, col: Collector) -> None:
    seen: set[str] = set()
    for name in table.header:
        if name in seen:
            col.warning("table.duplicate-column",
                        f"{table.name}: column {name!r} appears more than once in the header; "
                        "only the first is read", table.loc(name))
        seen.add(name)


def parse_long(manifest: Manifest, table: Table, col: Collector) -> ParsedLayout | None:
    """Read a ``generic-long`` table (see module rules); None when an error was recorded."""
    missing = [c for c in LONG_REQUIRED if c not in table.header]
    for c in missing:
        col.error("parse", "table.missing-column",
                  f"{table.name}: missing required column {c!r}; the long format needs "
                  f"{list(LONG_REQUIRED)} {RULE_LONG}", table.loc(c))
    if missing:
        return None
    _check_header(table, col)
    known = set(LONG_REQUIRED) | set(LONG_OPTIONAL)
    for name in table.header:
        if name not in known:
            col.info("table.ignored-column",
                     f"{table.name}: column {name!r} is not a generic-long column and is not read",
                     table.loc(name))
    idx = {name: table.index(name) for name in table.header}
    i_scan, i_radius, i_signal = idx["scan"], idx["radius_cm"], idx["signal"]
    optional = [(c, idx[c]) for c in LONG_OPTIONAL if c in idx]

    order: list[str] = []
    radii: dict[str, list[float]] = {}
    signals: dict[str, list[float]] = {}
    first_line: dict[str, int] = {}
    seen: dict[tuple[str, float], int] = {}
    raw_cols: dict[str, dict[str, tuple[str, int]]] = {}
    units: dict[str, str] = {}
    n_fields = len(table.header)
    for line, row in table.rows:
        if len(row) != n_fields:  # cannot happen after delimiter detection; kept for safety
            col.error("parse", "table.field-count",
                      f"{table.name} line {line}: expected {n_fields} fields, got {len(row)} "
                      f"{RULE_LONG}", table.loc(line))
            continue
        scan_id = row[i_scan].strip()
        if not scan_id:
            col.error("parse", "table.empty-scan-id",
                      f"{table.name} line {line}: empty scan identifier {RULE_LONG}",
                      table.loc(line))
            continue
        radius = _cell_float(row[i_radius], "radius_cm", line, table, col, RULE_LONG)
        signal = _cell_float(row[i_signal], "signal", line, table, col, RULE_LONG)
        if radius is None or signal is None:
            continue
        pair = (scan_id, radius)
        if pair in seen:
            col.error("conflict", "table.duplicate-observation",
                      f"{table.name} line {line}: duplicate observation for scan {scan_id!r} at "
                      f"radius {radius} (first at line {seen[pair]}) {RULE_LONG}",
                      table.loc(line))
            continue
        seen[pair] = line
        if scan_id not in radii:
            order.append(scan_id)
            radii[scan_id] = []
            signals[scan_id] = []
            raw_cols[scan_id] = {}
            first_line[scan_id] = line
        radii[scan_id].append(radius)
        signals[scan_id].append(signal)
        for column, i in optional:
            value = row[i].strip()
            if not value:
                continue
            if column == "signal_unit":
                units.setdefault(value, table.loc(line))
                continue
            existing = raw_cols[scan_id].get(column)
            if existing is not None and existing[0] != value:
                col.error("conflict", "table.inconsistent-scan-value",
                          f"{table.name} line {line}: scan {scan_id!r} has inconsistent "
                          f"{column!r} values {existing[0]!r} (line {existing[1]}) and {value!r} "
                          f"{RULE_LONG}", table.loc(line))
                continue
            if existing is None:
                raw_cols[scan_id][column] = (value, line)
    if not order and not col.has_errors:
        col.error("parse", "table.no-scans", f"{table.name}: no scans found in the data file "
                  f"(no data rows) {RULE_LONG}", table.loc(table.header_line))
    if col.has_errors:
        return None

    inputs = [_long_inputs(s, raw_cols[s], first_line[s], table, col) for s in order]
    if col.has_errors:
        return None
    return ParsedLayout(LONG, order, [radii[s] for s in order], [signals[s] for s in order],
                        inputs, units, "radius_cm")


def _long_inputs(scan_id: str, cols: dict[str, tuple[str, int]], first: int, table: Table,
                 col: Collector) -> ScanInputs:
    out = ScanInputs(scan_id=scan_id, location=table.loc(first))
    for column, (raw, line) in cols.items():
        out.origin[column] = table.loc(line)
        if column in ("elapsed_seconds", "wavelength_nm", "rotor_speed_rpm", "temperature_c"):
            setattr(out, column, _cell_float(raw, column, line, table, col, RULE_LONG))
        elif column == "acquisition_timestamp":
            dt = parse_timestamp(raw)
            if dt is None:
                col.error("parse", "table.bad-timestamp",
                          f"{table.name} line {line} (scan {scan_id!r}): acquisition_timestamp "
                          f"{raw!r} is not ISO-8601 {RULE_LONG}", table.loc(line))
            else:
                out.acquired_at = format_datetime(dt)
        elif column == "optical_system":
            value = parse_optical_table(raw)
            if value is None:
                col.error("parse", "table.unknown-optical-system",
                          f"{table.name} line {line} (scan {scan_id!r}): unknown optical_system "
                          f"{raw!r} {RULE_LONG}", table.loc(line))
            out.optical_system = value
        else:  # cell, channel, source_scan_id: text kept verbatim (stripped)
            setattr(out, column, raw)
    return out


def parse_wide(manifest: Manifest, table: Table, col: Collector) -> ParsedLayout | None:
    """Read a ``generic-wide`` table (see module rules); None when an error was recorded."""
    columns = manifest.columns
    if columns is None:
        col.error("manifest", "manifest.wide-needs-columns",
                  f"{table.name}: the wide format needs a 'columns' mapping in the manifest "
                  f"(radius column and scan columns) {RULE_WIDE}", manifest.loc("columns"))
        return None
    radius_name = columns["radius"]
    i_radius = table.index(radius_name)
    if i_radius < 0:
        col.error("parse", "table.missing-column",
                  f"{table.name}: radius column {radius_name!r} (manifest columns.radius) is not in "
                  f"the header {RULE_WIDE}", table.loc(radius_name))
    mapped: list[tuple[dict[str, Any], int, str]] = []
    for k, sc in enumerate(columns["scans"]):
        i = table.index(sc["column"])
        if i < 0:
            col.error("parse", "table.missing-column",
                      f"{table.name}: scan column {sc['column']!r} (manifest columns.scans[{k}]) is "
                      f"not in the header {RULE_WIDE}", table.loc(sc["column"]))
        mapped.append((sc, i, manifest.loc(f"columns.scans[{k}]")))
    if col.has_errors:
        return None
    _check_header(table, col)
    used = {radius_name, *(sc["column"] for sc, _, _ in mapped)}
    for name in table.header:
        if name not in used:
            col.info("table.ignored-column",
                     f"{table.name}: column {name!r} is not mapped by the manifest and is not read",
                     table.loc(name))

    radius: list[float] = []
    seen: dict[float, int] = {}
    signals: list[list[float]] = [[] for _ in mapped]
    n_fields = len(table.header)
    for line, row in table.rows:
        if len(row) != n_fields:  # cannot happen after delimiter detection; kept for safety
            col.error("parse", "table.field-count",
                      f"{table.name} line {line}: expected {n_fields} fields, got {len(row)}",
                      table.loc(line))
            continue
        r = _cell_float(row[i_radius], radius_name, line, table, col, RULE_WIDE)
        if r is not None:
            if r in seen:
                col.error("conflict", "table.duplicate-radius",
                          f"{table.name} line {line}: duplicate radius {r} (first at line "
                          f"{seen[r]}); wide scans share one radius axis {RULE_WIDE}",
                          table.loc(line))
            else:
                seen[r] = line
            radius.append(r)
        for pos, (sc, i, _) in enumerate(mapped):
            s = _cell_float(row[i], sc["column"], line, table, col, RULE_WIDE)
            if s is not None:
                signals[pos].append(s)
    if col.has_errors:
        return None
    inputs = []
    for sc, _, loc in mapped:
        si = ScanInputs(scan_id=sc["scan_id"], location=loc)
        for key in ("elapsed_seconds", "wavelength_nm", "optical_system", "rotor_speed_rpm",
                    "temperature_c", "cell", "channel", "source_scan_id"):
            if sc[key] is not None:
                setattr(si, key, sc[key])
                si.origin[key] = f"{loc}.{key}"
        inputs.append(si)
    return ParsedLayout(WIDE, [sc["scan_id"] for sc, _, _ in mapped],
                        [list(radius) for _ in mapped], signals, inputs, {}, radius_name,
                        always_shared=True)
