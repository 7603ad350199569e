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

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from inspector.formats.delimited import fastrows
from inspector.formats.delimited.lines import Block
from inspector.formats.delimited.long_scans import FirstValues, LongScans
from inspector.formats.delimited.manifest import Manifest
from inspector.formats.delimited.rules import (
    LAYOUT_AMBIGUOUS,
    LAYOUT_NOT_DETECTED,
    LAYOUT_UNKNOWN_FORMAT,
    TABLE_BAD_TIMESTAMP,
    TABLE_DUPLICATE_COLUMN,
    TABLE_DUPLICATE_OBSERVATION,
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
#: scans are held as columns, about 350 bytes a scan from the parser to the verified
#: document (``verify`` of 1 000 000 one-point scans peaks near 400 MB); a run has hundreds.
MAX_SCANS = 1_000_000
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
        radius_values, signal_values: float64, every scan's values one scan after
            another (row order kept within a scan); scan ``k`` is
            ``bounds[k]:bounds[k + 1]`` (:meth:`radius`, :meth:`signal`).  A wide
            table's ``radius_values`` is its one shared axis.
        bounds: int64 ``(scans + 1,)``: where each scan's values start.
        inputs: per-scan metadata supplied by the table or the mapping (a sequence
            that may build each :class:`ScanInputs` when asked).
        signal_units: distinct ``signal_unit`` cell values -> where each first
            appears, in words (``"line 2"``).
        radius_column: name of the radius column.
        always_shared: wide tables share one axis by definition.
        locations: per scan, the location of its first row or its mapping entry.
        columns: a long table's optional per-scan columns, every scan at once
            (:class:`ScanColumn`), when none of their values is a finding; else None.
    """

    format_id: str
    scan_ids: list[str]
    radius_values: np.ndarray
    signal_values: np.ndarray
    bounds: np.ndarray
    inputs: Sequence[ScanInputs]
    signal_units: dict[str, str]
    radius_column: str
    always_shared: bool = False
    locations: Sequence[str] = ()
    columns: dict[str, ScanColumn] | None = None

    def lengths(self) -> np.ndarray:
        """int64 per scan: its observations."""
        return np.diff(self.bounds)

    def radius(self, k: int) -> np.ndarray:
        """The radius values of scan ``k``, row order."""
        if self.always_shared:
            return self.radius_values
        return self.radius_values[self.bounds[k]:self.bounds[k + 1]]

    def signal(self, k: int) -> np.ndarray:
        """The signal values of scan ``k``, row order."""
        return self.signal_values[self.bounds[k]:self.bounds[k + 1]]


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


def cell_float(raw: str, column: str, line: int, table: Table, col: Stages) -> float | None:
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


def check_header(table: Table, used: set[str] | None, layout: str, col: Stages) -> None:
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


def field_count_ok(row: tuple[str, ...], line: int, table: Table, col: Stages) -> bool:
    """False (and an error) when ``row`` has another field count than the header.

    Cannot happen after delimiter detection; kept for safety.
    """
    if len(row) == len(table.header):
        return True
    col.report(TABLE_FIELD_COUNT, f"line {line}: expected {len(table.header)} fields, got "
               f"{len(row)}", table.loc(line))
    return False


def _long_observation(row: tuple[str, ...], line: int, idx: dict[str, int], table: Table,
                      scans: LongScans, col: Stages) -> tuple[str, int] | None:
    """Read the scan, radius and signal of one row into ``scans``; its scan id and number,
    or None."""
    scan_id = row[idx["scan"]].strip()
    if not scan_id:
        col.report(TABLE_EMPTY_SCAN_ID, f"line {line}: empty scan identifier", table.loc(line))
        return None
    radius = cell_float(row[idx["radius_cm"]], "radius_cm", line, table, col)
    signal = cell_float(row[idx["signal"]], "signal", line, table, col)
    if radius is None or signal is None:
        return None
    return scan_id, scans.add(scan_id, radius, signal, line)


def _long_optional(row: tuple[str, ...], line: int, scan: tuple[str, int],
                   optional: list[tuple[str, int]], table: Table, scans: LongScans,
                   col: Stages) -> None:
    """Keep the first non-blank value of each optional column per scan; a different later
    value is a conflict.  ``signal_unit`` is collected per file, not per scan."""
    scan_id, k = scan
    for column, i in optional:
        value = row[i].strip()
        if not value:
            continue
        if column == "signal_unit":
            scans.units.setdefault(value, f"line {line}")
            continue
        existing = scans.value(column, k)
        if existing is not None and existing[0] != value:
            col.report(TABLE_INCONSISTENT_SCAN_VALUE,
                       f"line {line}: scan {shown(scan_id)} has inconsistent {column!r} values "
                       f"{shown(existing[0])} (line {existing[1]}) and {shown(value)}",
                       table.loc(line))
            continue
        if existing is None:
            scans.keep(column, k, value, line)


def _slow_long_block(block: Block, table: Table, idx: dict[str, int],
                     optional: list[tuple[str, int]], scans: LongScans, col: Stages) -> bool:
    """Read a block line by line (every finding in line order); False when a row starts
    one scan more than :data:`MAX_SCANS` (reported; the rest is not read)."""
    for k in range(len(block)):
        line, row = int(block.numbers[k]), tuple(block.text(k).split(table.delimiter))
        if not field_count_ok(row, line, table, col):
            continue
        if len(scans.order) >= MAX_SCANS and row[idx["scan"]].strip() not in scans:
            col.report(TABLE_TOO_MANY_SCANS, f"line {line} starts scan {MAX_SCANS + 1:,}; a "
                       f"table has at most {MAX_SCANS:,} scans (the rest is not read)",
                       table.loc(line))
            return False
        scan = _long_observation(row, line, idx, table, scans, col)
        if scan is not None:
            _long_optional(row, line, scan, optional, table, scans, col)
    return True


@dataclass
class _FastBlock:
    """A block's scans as :func:`_fast_long_block` groups them: ``ids`` in first-appearance
    order, ``rows`` the block's row indices of each, in line order."""

    block: Block
    starts: np.ndarray
    ends: np.ndarray
    ids: list[str]
    firsts: np.ndarray  # int64 (scans,): the block's row index of each scan's first row
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
    ids = unique[order].astype(str).tolist()
    return _FastBlock(block, starts, ends, ids, first[order], scan_of)


@dataclass
class _Found:
    """The first non-blank value of an optional column per scan of a block (per distinct
    value for ``signal_unit``), in row order: ``values`` (``S`` array), their ``lines``
    and ``scans`` (index in the block's ``ids``)."""

    values: np.ndarray
    lines: np.ndarray
    scans: np.ndarray


def _fast_optional(fb: _FastBlock, column: str, i: int, scans: LongScans,
                   known: np.ndarray) -> _Found | None:
    """The :class:`_Found` of ``column`` in the block; None when a value is untrimmed,
    long or differs from its scan's first (``known``: the scan number of each of the
    block's scans read before it, -1 for a new one)."""
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
    found = _Found(values[first], b.numbers[rows[first]], fb.scan_of[rows[first]])
    if column == "signal_unit":
        return found
    firsts = np.empty(len(fb.ids), dtype=values.dtype)
    firsts[found.scans] = found.values
    if (values != firsts[fb.scan_of[rows]]).any():
        return None
    for j in np.flatnonzero(known[found.scans] >= 0).tolist():
        old = scans.value(column, int(known[found.scans[j]]))
        if old is not None and old[0] != found.values[j].decode("ascii"):
            return None
    return found


def _known_scans(scans: LongScans, ids: list[str]) -> np.ndarray:
    """int64 per id: its scan number, -1 for an id not seen yet."""
    return np.array([-1 if k is None else k for k in map(scans.number.get, ids)],
                    dtype=np.int64)


def _fast_long_block(block: Block, table: Table, idx: dict[str, int],
                     optional: list[tuple[str, int]], scans: LongScans) -> bool:
    """Read a simple block by numpy when it holds no finding (see :mod:`.fastrows`);
    False (nothing read) otherwise."""
    fb = _fast_scans(block, table, idx["scan"])
    if fb is None:
        return False
    known = _known_scans(scans, fb.ids)
    new = np.flatnonzero(known < 0)
    if len(scans.order) + new.size > MAX_SCANS:
        return False
    radius = fastrows.numbers(block, fb.starts[:, idx["radius_cm"]], fb.ends[:, idx["radius_cm"]])
    signal = fastrows.numbers(block, fb.starts[:, idx["signal"]], fb.ends[:, idx["signal"]])
    if radius is None or signal is None:
        return False
    extra = [(c, _fast_optional(fb, c, i, scans, known)) for c, i in optional]
    if any(found is None for _, found in extra):
        return False
    numbers = known
    numbers[new] = scans.register([fb.ids[j] for j in new.tolist()],
                                  block.numbers[fb.firsts[new]])
    scans.extend(numbers[fb.scan_of], radius, signal, block.numbers)
    for column, found in extra:
        assert found is not None
        if column == "signal_unit":
            for value, line in zip(found.values.tolist(), found.lines.tolist(), strict=True):
                scans.units.setdefault(value.decode("ascii"), f"line {line}")
        else:
            scans.keep_many(column, numbers[found.scans], found.values, found.lines)
    return True


#: Shortest run of lines between suspect lines read by numpy (a shorter one costs less
#: line by line than numpy's fixed cost a call).
MIN_RUN = 256


def _long_block(block: Block, table: Table, idx: dict[str, int],
                optional: list[tuple[str, int]], scans: LongScans, col: Stages) -> bool:
    """Read a block by numpy when it holds no finding; else its suspect lines
    (:func:`~.fastrows.suspects`) line by line and the runs of lines between them by numpy
    again (each run line by line if refused).  Lines are read in order either way, so the
    findings and the scans are those of reading line by line, and a malformed line costs
    about what a good one does (after a block with suspect lines, the next is searched
    for them first).  False when reading stops (:data:`MAX_SCANS`)."""
    if not block.simple:
        return _slow_long_block(block, table, idx, optional, scans, col)
    if not scans.suspicious and _fast_long_block(block, table, idx, optional, scans):
        return True
    bad = fastrows.suspects(block, table.delimiter, len(table.header), idx["scan"],
                            (idx["radius_cm"], idx["signal"]))
    scans.suspicious = bool(bad.any())
    if not bad.any() and _fast_long_block(block, table, idx, optional, scans):
        return True
    if not bad.any() or bad.all():
        return _slow_long_block(block, table, idx, optional, scans, col)
    edges = np.flatnonzero(np.diff(bad.astype(np.int8))) + 1
    for first, stop in zip(np.r_[0, edges].tolist(), np.r_[edges, len(block)].tolist(),
                           strict=True):
        part = block.lines(first, stop)
        if bad[first] or stop - first < MIN_RUN \
                or not _fast_long_block(part, table, idx, optional, scans):
            if not _slow_long_block(part, table, idx, optional, scans, col):
                return False
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
    check_header(table, None, LONG, col)
    idx = {name: table.index(name) for name in table.header}
    optional = [(c, idx[c]) for c in LONG_OPTIONAL if c in idx]
    scans = LongScans()
    for block in table.rows.blocks():
        if not _long_block(block, table, idx, optional, scans, col):
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
    radius_values, signal_values, bounds = scans.grouped()
    scans.number = {}
    scans.scan_of = scans.radius = scans.signal = scans.line = array("q")
    inputs = _LongInputs(scans, table)
    columns = long_columns(scans)
    if columns is None:
        for k in range(len(inputs)):
            _long_inputs(k, scans, table, col)
    if col.has_errors:
        return None
    return ParsedLayout(LONG, scans.order, radius_values, signal_values, bounds, inputs,
                        scans.units,
                        "radius_cm", locations=_FirstRows(scans, table), columns=columns)


@dataclass
class ScanColumn:
    """One optional per-scan column of a long table, every scan at once.

    Attributes:
        present: bool per scan: the column supplies a value (its first non-blank one).
        numbers: float64 per scan for a numeric column (NaN where absent), else None.
        codes, values: for a text column, scan ``k``'s value is ``values[codes[k]]``
            (parsed as :class:`ScanInputs` holds it: an ISO-8601 timestamp re-written,
            an optical system named canonically); None where absent.
    """

    present: np.ndarray
    numbers: np.ndarray | None = None
    codes: np.ndarray | None = None
    values: list[Any] = field(default_factory=list)


def _first_texts(values: FirstValues, n: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(present, codes, texts)``: the distinct first values of a column and a code per
    scan (the text of scan ``k`` is ``texts[codes[k]]``; code 0 (``""``) where absent)."""
    lines = np.zeros(n, dtype=np.int64)
    lines[:len(values.line)] = np.frombuffer(values.line, dtype=np.int64)
    present = lines > 0
    codes = np.zeros(n, dtype=np.int32)
    index: dict[bytes, int] = {b"": 0}
    blob = bytes(values.blob)
    start, end = values.start, values.end
    for k in np.flatnonzero(present).tolist():
        codes[k] = index.setdefault(blob[start[k]:end[k]], len(index))
    return present, codes, [b.decode("utf-8") for b in index]


def _cell_number(text: bytes) -> float | None:
    """:func:`~.values.table_float` of a cell's UTF-8 bytes."""
    try:
        return float(text)  # the same syntax as float() of the text, for ASCII text
    except ValueError:
        return table_float(text.decode("utf-8"))


def _numbers_column(values: FirstValues, n: int) -> ScanColumn | None:
    """A numeric column read value by value (no text kept); None when a value is not a
    finite number."""
    lines = np.zeros(n, dtype=np.int64)
    lines[:len(values.line)] = np.frombuffer(values.line, dtype=np.int64)
    present = lines > 0
    numbers = np.full(n, math.nan)
    blob, start, end = bytes(values.blob), values.start, values.end
    for k in np.flatnonzero(present).tolist():
        number = _cell_number(blob[start[k]:end[k]])
        if number is None or not math.isfinite(number):
            return None
        numbers[k] = number
    return ScanColumn(present, numbers=numbers)


def _long_column(column: str, values: FirstValues, n: int) -> ScanColumn | None:
    """The :class:`ScanColumn` of ``column``; None when some value is one
    :func:`_long_inputs` reports (not a finite number, a timestamp or an optical system)."""
    if column in LONG_NUMERIC:
        return _numbers_column(values, n)
    present, codes, texts = _first_texts(values, n)
    if column == "acquisition_timestamp":
        stamps = [parse_timestamp(t) for t in texts]
        if any(stamps[c] is None for c in np.unique(codes[present]).tolist()):
            return None
        out: list[Any] = [None, *(format_datetime(d) if d is not None else None
                                  for d in stamps[1:])]
    elif column == "optical_system":
        out = [None, *(parse_optical_table(t) for t in texts[1:])]
        if any(out[c] is None for c in np.unique(codes[present]).tolist()):
            return None
    else:
        out = [None, *texts[1:]]
    return ScanColumn(present, codes=codes, values=out)


def long_columns(scans: LongScans) -> dict[str, ScanColumn] | None:
    """Every optional per-scan column of a long table as a :class:`ScanColumn`; None when
    some scan's value is a finding (then each scan is read on its own, in order)."""
    n = len(scans.order)
    out = {}
    for column, values in scans.first.items():
        found = _long_column(column, values, n)
        if found is None:
            return None
        out[column] = found
    return out


class _LongInputs(Sequence[ScanInputs]):
    """The :class:`ScanInputs` of a long table's scans, each built when asked (from the
    columns of :class:`LongScans`: no object a scan is kept)."""

    def __init__(self, scans: LongScans, table: Table) -> None:
        self._scans, self._table = scans, table

    def __len__(self) -> int:
        return len(self._scans.order)

    def __getitem__(self, k: int) -> ScanInputs:  # type: ignore[override]
        if not 0 <= k < len(self):
            raise IndexError(k)
        return _long_inputs(k, self._scans, self._table, Stages())


class _FirstRows(Sequence[str]):
    """Per scan of a long table, the location of its first row (``"name:LINE"``)."""

    def __init__(self, scans: LongScans, table: Table) -> None:
        self._scans, self._table = scans, table

    def __len__(self) -> int:
        return len(self._scans.order)

    def __getitem__(self, k: int) -> str:  # type: ignore[override]
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self._table.loc(self._scans.first_line[k])


def _long_inputs(k: int, scans: LongScans, table: Table, col: Stages) -> ScanInputs:
    """The per-scan metadata of long-format scan ``k``, from its first values per column
    (in the order they were first met; problems reported to ``col``)."""
    scan_id, first = scans.order[k], scans.first_line[k]
    out = ScanInputs(scan_id=scan_id, location=table.loc(first), place=f"line {first}")
    for column, (raw, line) in scans.values_of(k):
        out.origin[column] = table.loc(line)
        out.origin_text[column] = f"line {line}"
        if column in LONG_NUMERIC:
            setattr(out, column, cell_float(raw, column, line, table, col))
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
