"""The two generic table layouts and how one is chosen (rules in :mod:`.rules`).

``generic-long`` (``docs/formats/generic-delimited.md``, "Long format"): one
row per radial observation; required columns ``scan``, ``radius_cm``,
``signal``; optional per-scan columns ``elapsed_seconds``,
``acquisition_timestamp``, ``cell``, ``channel``, ``wavelength_nm``,
``optical_system``, ``signal_unit``, ``rotor_speed_rpm``, ``temperature_c``,
``source_scan_id``.  Rows keep their order; a duplicate ``(scan, radius)`` is a
conflict; a non-numeric or non-finite ``radius_cm``/``signal`` is an error; an
optional column with two different (non-blank) values within one scan is a
conflict.  A long table names at most :data:`MAX_SCANS` scans (Inspector's limit):
the row that starts one more is ``table.too-many-scans`` and reading stops there.

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

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from inspector.formats.delimited import fastrows
from inspector.formats.delimited.lines import Block
from inspector.formats.delimited.manifest import Manifest
from inspector.formats.delimited.rules import (
    LAYOUT_AMBIGUOUS,
    LAYOUT_NOT_DETECTED,
    LAYOUT_UNKNOWN_FORMAT,
    MANIFEST_WIDE_NEEDS_COLUMNS,
    TABLE_BAD_TIMESTAMP,
    TABLE_DUPLICATE_COLUMN,
    TABLE_DUPLICATE_OBSERVATION,
    TABLE_DUPLICATE_RADIUS,
    TABLE_EMPTY_SCAN_ID,
    TABLE_FIELD_COUNT,
    TABLE_IGNORED_COLUMN,
    TABLE_INCONSISTENT_SCAN_VALUE,
    TABLE_MISSING_COLUMN,
    TABLE_NO_SCANS,
    TABLE_NON_FINITE,
    TABLE_NOT_A_NUMBER,
    TABLE_TOO_MANY_SCANS,
    TABLE_UNKNOWN_OPTICAL_SYSTEM,
)
from inspector.formats.delimited.stages import MAX_ERRORS_PER_STAGE, Stages
from inspector.formats.delimited.table import Table
from inspector.formats.delimited.values import (
    format_datetime,
    parse_optical_table,
    parse_timestamp,
    shown,
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
#: Optional long-format columns holding numbers.
LONG_NUMERIC = ("elapsed_seconds", "wavelength_nm", "rotor_speed_rpm", "temperature_c")
#: Per-scan fields a wide mapping entry may supply.
WIDE_SCAN_FIELDS = ("elapsed_seconds", "wavelength_nm", "optical_system", "rotor_speed_rpm",
                    "temperature_c", "cell", "channel", "source_scan_id")
#: Scans a long table may name (Inspector's limit, docs/architecture.md "Contracts"):
#: each scan costs a few kilobytes of metadata in the model; a run has hundreds.
MAX_SCANS = 100_000
MINIMUM_CONFIDENCE = 0.5
TIE_MARGIN = 0.15


@dataclass
class ScanInputs:
    """Per-scan metadata as the table or the wide mapping supplies it (None: not supplied).

    ``origin`` maps each supplied field to its location and ``origin_text`` to
    the same place in words (``"line 3"``, ``"columns.scans[0].cell"``) for
    messages, which never name the file; ``location``/``place`` are those of
    the scan itself.
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
    origin_text: dict[str, str] = field(default_factory=dict)
    location: str = ""
    place: str = ""


@dataclass
class ParsedLayout:
    """What a layout parser read, before it becomes the canonical model.

    Attributes:
        format_id: ``"generic-long"`` or ``"generic-wide"``.
        scan_ids: in first-appearance (long) or mapping (wide) order.
        radii, signals: float sequences per scan (lists, or typed ``array("d")``),
            row order kept.
        inputs: per-scan metadata supplied by the table or the mapping.
        signal_units: distinct ``signal_unit`` cell values -> where each first
            appears, in words (``"line 2"``).
        radius_column: name of the radius column.
        always_shared: wide tables share one axis by definition.
    """

    format_id: str
    scan_ids: list[str]
    radii: list[Sequence[float]]
    signals: list[Sequence[float]]
    inputs: list[ScanInputs]
    signal_units: dict[str, str]
    radius_column: str
    always_shared: bool = False


def select_layout(manifest: Manifest, table: Table, col: Stages) -> str | None:
    """The layout id to parse with (see module rules); None and an error otherwise."""
    declared = manifest.format
    if declared:
        if declared not in FORMATS:
            col.report(LAYOUT_UNKNOWN_FORMAT, f"unknown format {shown(declared)}; supported "
                       f"formats: {', '.join(FORMATS)}", manifest.loc("format"))
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
        col.report(LAYOUT_NOT_DETECTED,
                   f"the manifest declares no format and no layout is recognised (scores "
                   f"{detail}; threshold {MINIMUM_CONFIDENCE:.2f}): a long table needs columns "
                   f"{list(LONG_REQUIRED)}, a wide table a 'columns' mapping",
                   table.loc(table.header_line))
        return None
    if runner >= MINIMUM_CONFIDENCE and best - runner < TIE_MARGIN:
        col.report(LAYOUT_AMBIGUOUS,
                   f"cannot choose between {best_id!r} and {runner_id!r} (scores {detail}); "
                   "declare 'format' in the manifest", manifest.loc("format"))
        return None
    return best_id


def _cell_float(raw: str, column: str, line: int, table: Table, col: Stages) -> float | None:
    """The finite number in a cell; None (and an error at ``name:line``) otherwise."""
    value = table_float(raw)
    if value is None:
        col.report(TABLE_NOT_A_NUMBER, f"line {line}, column {shown(column)}: expected a finite "
                   f"number, got {shown(raw)}", table.loc(line))
        return None
    if value != value or value in (float("inf"), float("-inf")):
        col.report(TABLE_NON_FINITE, f"line {line}, column {shown(column)}: value must be "
                   f"finite, got {shown(raw)}", table.loc(line))
        return None
    return value


def _check_header(table: Table, used: set[str] | None, layout: str, col: Stages) -> None:
    """Warn about repeated column names; note the columns ``layout`` does not read."""
    seen: set[str] = set()
    for name in table.header:
        if name in seen:
            col.report(TABLE_DUPLICATE_COLUMN, f"column {shown(name)} appears more than once "
                       "in the header; only the first is read", table.loc(name))
        seen.add(name)
    known = used if used is not None else set(LONG_REQUIRED) | set(LONG_OPTIONAL)
    why = "is not mapped by the manifest" if used is not None else f"is not a {layout} column"
    for name in table.header:
        if name not in known:
            col.report(TABLE_IGNORED_COLUMN, f"column {shown(name)} {why} and is not read",
                       table.loc(name))


def _field_count_ok(row: tuple[str, ...], line: int, table: Table, col: Stages) -> bool:
    """False (and an error) when ``row`` has another field count than the header.

    Cannot happen after delimiter detection; kept for safety.
    """
    if len(row) == len(table.header):
        return True
    col.report(TABLE_FIELD_COUNT, f"line {line}: expected {len(table.header)} fields, got "
               f"{len(row)}", table.loc(line))
    return False


@dataclass
class _LongScans:
    """The scans of a long table as its rows are read, in first-appearance order
    (values in typed arrays: 24 bytes an observation, its line number included)."""

    order: list[str] = field(default_factory=list)
    radii: dict[str, array] = field(default_factory=dict)
    signals: dict[str, array] = field(default_factory=dict)
    lines: dict[str, array] = field(default_factory=dict)
    first_line: dict[str, int] = field(default_factory=dict)
    raw_cols: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)

    def add(self, scan_id: str, radius: float, signal: float, line: int) -> None:
        """Append one observation to its scan (creating the scan at its first row)."""
        if scan_id not in self.radii:
            self.order.append(scan_id)
            self.radii[scan_id] = array("d")
            self.signals[scan_id] = array("d")
            self.lines[scan_id] = array("q")
            self.raw_cols[scan_id] = {}
            self.first_line[scan_id] = line
        self.radii[scan_id].append(radius)
        self.signals[scan_id].append(signal)
        self.lines[scan_id].append(line)

    def extend(self, scan_id: str, radii: np.ndarray, signals: np.ndarray,
               lines: np.ndarray) -> None:
        """Append observations (``float64``, ``float64``, ``int64``, row order) to a scan."""
        if scan_id not in self.radii:
            self.add(scan_id, float(radii[0]), float(signals[0]), int(lines[0]))
            radii, signals, lines = radii[1:], signals[1:], lines[1:]
        self.radii[scan_id].frombytes(np.ascontiguousarray(radii, np.float64).tobytes())
        self.signals[scan_id].frombytes(np.ascontiguousarray(signals, np.float64).tobytes())
        self.lines[scan_id].frombytes(np.ascontiguousarray(lines, np.int64).tobytes())

    def duplicates(self, listed: int) -> tuple[list[tuple[int, str, float, int]], int]:
        """``(line, scan id, radius, first line)`` of the first ``listed`` observations (in
        line order) repeating an earlier radius of their scan, and how many there are
        (found by sorting each scan's radii: about 17 bytes an observation at most)."""
        found: list[tuple[int, str, float, int]] = []
        total = 0
        for scan_id in self.order:
            r = np.frombuffer(self.radii[scan_id], dtype=np.float64)
            repeats = _repeats(r)
            if repeats is None:
                continue
            lines = np.frombuffer(self.lines[scan_id], dtype=np.int64)
            total += int(np.count_nonzero(repeats))
            for i in np.flatnonzero(repeats)[:listed]:  # rows are in line order
                first = int(np.argmax(r == r[i]))
                found.append((int(lines[i]), scan_id, float(r[i]), int(lines[first])))
            found = sorted(found)[:listed]
        return found, total


def _repeats(r: np.ndarray) -> np.ndarray | None:
    """``bool (n,)``: which values of ``r`` repeat an earlier one; None when none does."""
    if r.size < 2:
        return None
    ordered = np.sort(r)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    del ordered
    order = np.argsort(r, kind="stable")
    ordered = r[order]
    same = ordered[1:] == ordered[:-1]
    del ordered
    repeats = np.zeros(r.size, dtype=bool)
    repeats[order[1:]] = same
    return repeats


def _long_observation(row: tuple[str, ...], line: int, idx: dict[str, int], table: Table,
                      scans: _LongScans, col: Stages) -> str | None:
    """Read the scan, radius and signal of one row into ``scans``; its scan id, or None."""
    scan_id = row[idx["scan"]].strip()
    if not scan_id:
        col.report(TABLE_EMPTY_SCAN_ID, f"line {line}: empty scan identifier", table.loc(line))
        return None
    radius = _cell_float(row[idx["radius_cm"]], "radius_cm", line, table, col)
    signal = _cell_float(row[idx["signal"]], "signal", line, table, col)
    if radius is None or signal is None:
        return None
    scans.add(scan_id, radius, signal, line)
    return scan_id


def _long_optional(row: tuple[str, ...], line: int, scan_id: str,
                   optional: list[tuple[str, int]], table: Table, scans: _LongScans,
                   col: Stages) -> None:
    """Keep the first non-blank value of each optional column per scan; a different later
    value is a conflict.  ``signal_unit`` is collected per file, not per scan."""
    for column, i in optional:
        value = row[i].strip()
        if not value:
            continue
        if column == "signal_unit":
            scans.units.setdefault(value, f"line {line}")
            continue
        existing = scans.raw_cols[scan_id].get(column)
        if existing is not None and existing[0] != value:
            col.report(TABLE_INCONSISTENT_SCAN_VALUE,
                       f"line {line}: scan {shown(scan_id)} has inconsistent {column!r} values "
                       f"{shown(existing[0])} (line {existing[1]}) and {shown(value)}",
                       table.loc(line))
            continue
        if existing is None:
            scans.raw_cols[scan_id][column] = (value, line)


def _slow_long_block(block: Block, table: Table, idx: dict[str, int],
                     optional: list[tuple[str, int]], scans: _LongScans, col: Stages) -> bool:
    """Read a block line by line (every finding in line order); False when a row starts
    one scan more than :data:`MAX_SCANS` (reported; the rest is not read)."""
    for k in range(len(block)):
        line, row = int(block.numbers[k]), tuple(block.text(k).split(table.delimiter))
        if not _field_count_ok(row, line, table, col):
            continue
        if len(scans.order) >= MAX_SCANS and row[idx["scan"]].strip() not in scans.radii:
            col.report(TABLE_TOO_MANY_SCANS, f"line {line} starts scan {MAX_SCANS + 1:,}; a "
                       f"table has at most {MAX_SCANS:,} scans (the rest is not read)",
                       table.loc(line))
            return False
        scan_id = _long_observation(row, line, idx, table, scans, col)
        if scan_id is not None:
            _long_optional(row, line, scan_id, optional, table, scans, col)
    return True


@dataclass
class _FastBlock:
    """A block's scans as :func:`_fast_long_block` groups them: ``ids`` in first-appearance
    order, ``rows`` the block's row indices of each, in line order."""

    block: Block
    starts: np.ndarray
    ends: np.ndarray
    ids: list[str]
    rows: list[np.ndarray]
    scan_of: np.ndarray  # int64 (lines,): index in ``ids`` of each row's scan


def _fast_scans(block: Block, table: Table, i_scan: int) -> _FastBlock | None:
    """The scans of a block whose scan cells are trimmed and short; None otherwise."""
    bounds = fastrows.field_bounds(block, table.delimiter, len(table.header))
    if bounds is None:
        return None
    starts, ends = bounds
    if not fastrows.trimmed(block, starts[:, i_scan], ends[:, i_scan]):
        return None
    m = fastrows.cells(block, starts[:, i_scan], ends[:, i_scan])
    if m is None:
        return None
    unique, first, inverse = np.unique(fastrows.as_bytes(m), return_index=True,
                                       return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    scan_of = rank[inverse.reshape(-1)]
    by_scan = np.argsort(scan_of, kind="stable")
    cuts = np.cumsum(np.bincount(scan_of, minlength=order.size))[:-1]
    ids = [unique[k].decode("ascii") for k in order]
    return _FastBlock(block, starts, ends, ids, np.split(by_scan, cuts), scan_of)


def _fast_optional(fb: _FastBlock, column: str, i: int,
                   scans: _LongScans) -> list[tuple[str, int, int]] | None:
    """``(value, line, scan index)`` of the first non-blank value of ``column`` per scan of
    the block (``signal_unit``: per distinct value); None when a value is untrimmed, long
    or differs from its scan's first."""
    b = fb.block
    s, e = fb.starts[:, i], fb.ends[:, i]
    empty = fastrows.blank(b, s, e)
    if empty is None:
        return None
    keep = ~empty
    s, e = s[keep], e[keep]
    m = fastrows.cells(b, s, e) if fastrows.trimmed(b, s, e) else None
    if m is None:
        return None
    values, rows = fastrows.as_bytes(m), np.flatnonzero(keep)
    key = values if column == "signal_unit" else fb.scan_of[rows]
    _, first = np.unique(key, return_index=True)
    first.sort()
    found = [(values[k].decode("ascii"), int(b.numbers[rows[k]]), int(fb.scan_of[rows[k]]))
             for k in first]
    if column == "signal_unit":
        return found
    firsts = np.empty(len(fb.ids), dtype=values.dtype)
    firsts[fb.scan_of[rows[first]]] = values[first]
    if (values != firsts[fb.scan_of[rows]]).any():
        return None
    for value, _, k in found:
        old = scans.raw_cols.get(fb.ids[k], {}).get(column)
        if old is not None and old[0] != value:
            return None
    return found


def _fast_long_block(block: Block, table: Table, idx: dict[str, int],
                     optional: list[tuple[str, int]], scans: _LongScans) -> bool:
    """Read a simple block by numpy when it holds no finding (see :mod:`.fastrows`);
    False (nothing read) otherwise."""
    fb = _fast_scans(block, table, idx["scan"])
    if fb is None:
        return False
    new = sum(1 for sid in fb.ids if sid not in scans.radii)
    if len(scans.order) + new > MAX_SCANS:
        return False
    radius = fastrows.numbers(block, fb.starts[:, idx["radius_cm"]], fb.ends[:, idx["radius_cm"]])
    signal = fastrows.numbers(block, fb.starts[:, idx["signal"]], fb.ends[:, idx["signal"]])
    if radius is None or signal is None:
        return False
    extra = [(c, _fast_optional(fb, c, i, scans)) for c, i in optional]
    if any(found is None for _, found in extra):
        return False
    for sid, rows in zip(fb.ids, fb.rows, strict=True):
        scans.extend(sid, radius[rows], signal[rows], block.numbers[rows])
    for column, found in extra:
        for value, line, k in found or ():
            if column == "signal_unit":
                scans.units.setdefault(value, f"line {line}")
            else:
                scans.raw_cols[fb.ids[k]].setdefault(column, (value, line))
    return True


def _missing_long_columns(table: Table, col: Stages) -> bool:
    """True (and an error per column) when a required long-format column is absent."""
    missing = [c for c in LONG_REQUIRED if c not in table.header]
    for c in missing:
        col.report(TABLE_MISSING_COLUMN, f"missing required column {c!r}; the long format "
                   f"needs {list(LONG_REQUIRED)}", table.loc(c))
    return bool(missing)


def parse_long(manifest: Manifest, table: Table, col: Stages) -> ParsedLayout | None:
    """Read a ``generic-long`` table (see module rules); None when an error was recorded."""
    if _missing_long_columns(table, col):
        return None
    _check_header(table, None, LONG, col)
    idx = {name: table.index(name) for name in table.header}
    optional = [(c, idx[c]) for c in LONG_OPTIONAL if c in idx]
    scans = _LongScans()
    for block in table.rows.blocks():
        if block.simple and _fast_long_block(block, table, idx, optional, scans):
            continue
        if not _slow_long_block(block, table, idx, optional, scans, col):
            return None
    listed, total = scans.duplicates(MAX_ERRORS_PER_STAGE + 1)
    for line, scan_id, radius, first in listed:
        col.report(TABLE_DUPLICATE_OBSERVATION,
                   f"line {line}: duplicate observation for scan {shown(scan_id)} at radius "
                   f"{radius} (first at line {first})", table.loc(line))
    col.count_more(TABLE_DUPLICATE_OBSERVATION, total - len(listed))
    if not scans.order and not col.has_errors:
        col.report(TABLE_NO_SCANS, "no scans found in the data file (no data rows)",
                   table.loc(table.header_line))
    if col.has_errors:
        return None
    order = scans.order
    inputs = [_long_inputs(s, scans.raw_cols[s], scans.first_line[s], table, col) for s in order]
    if col.has_errors:
        return None
    return ParsedLayout(LONG, order, [scans.radii[s] for s in order],
                        [scans.signals[s] for s in order], inputs, scans.units, "radius_cm")


def _long_inputs(scan_id: str, cols: dict[str, tuple[str, int]], first: int, table: Table,
                 col: Stages) -> ScanInputs:
    """The per-scan metadata of one long-format scan, from its first values per column."""
    out = ScanInputs(scan_id=scan_id, location=table.loc(first), place=f"line {first}")
    for column, (raw, line) in cols.items():
        out.origin[column] = table.loc(line)
        out.origin_text[column] = f"line {line}"
        if column in LONG_NUMERIC:
            setattr(out, column, _cell_float(raw, column, line, table, col))
        elif column == "acquisition_timestamp":
            dt = parse_timestamp(raw)
            if dt is None:
                col.report(TABLE_BAD_TIMESTAMP, f"line {line} (scan {shown(scan_id)}): "
                           f"acquisition_timestamp {shown(raw)} is not ISO-8601", table.loc(line))
            else:
                out.acquired_at = format_datetime(dt)
        elif column == "optical_system":
            value = parse_optical_table(raw)
            if value is None:
                col.report(TABLE_UNKNOWN_OPTICAL_SYSTEM, f"line {line} (scan {shown(scan_id)}): "
                           f"unknown optical_system {shown(raw)}", table.loc(line))
            out.optical_system = value
        else:  # cell, channel, source_scan_id: text kept verbatim (stripped)
            setattr(out, column, raw)
    return out


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
        if not _field_count_ok(row, line, table, col):
            continue
        r = _cell_float(row[i_radius], radius_name, line, table, col)
        if r is not None:
            if r in seen:
                col.report(TABLE_DUPLICATE_RADIUS, f"line {line}: duplicate radius {r} (first "
                           f"at line {seen[r]}); wide scans share one radius axis",
                           table.loc(line))
            else:
                seen[r] = line
            radius.append(r)
        for pos, (sc, i, _) in enumerate(mapped):
            s = _cell_float(row[i], sc["column"], line, table, col)
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
    _check_header(table, {radius_name, *(sc["column"] for sc, _, _ in mapped)}, WIDE, col)
    radius, signals = _wide_rows(table, radius_name, i_radius, mapped, col)
    if col.has_errors:
        return None
    return ParsedLayout(WIDE, [sc["scan_id"] for sc, _, _ in mapped],
                        [list(radius) for _ in mapped], list(signals),
                        _wide_inputs(manifest, mapped), {}, radius_name, always_shared=True)
