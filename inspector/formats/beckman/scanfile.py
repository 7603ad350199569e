"""Read one scan file: its description, its header line and its data lines.

Layout (UltraScan III ``utils/us_dataIO.cpp`` ``US_DataIO::readLegacyFile``;
UltraScan III wiki, "Legacy raw data formats"): line 1 is free text, line 2
the header (:mod:`.header`), then one line per point: the radius (cm; the
wavelength in nm for WA/WI scans), the value and an optional third column
(standard deviation for RA, the second intensity reading for RI, ignored for
IP), separated by spaces or tabs.  Lines may end in LF or CRLF; blank lines at
the end are ignored.  Every malformed line is an error located at
``<file>:<line>``; values are kept exactly as written, in file order.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from inspector.formats.beckman import rules as R
from inspector.formats.beckman.header import (
    NUMBER,
    Header,
    HeaderProblem,
    parse_header,
    split_fields,
)
from inspector.formats.beckman.names import SCAN_TYPES, ScanName
from inspector.formats.findings import Findings
from inspector.formats.remote.transport import RemoteError

#: Bytes of one scan file Inspector reads at most (a scan is tens of kilobytes).
MAX_FILE_BYTES = 64 << 20
#: Bytes a fast-path data block may hold besides digits (anything else: per-line path).
_NUMERIC = b" \t\r\n0123456789+-.eE"
_LINE_END = re.compile(rb"\r\n|\r|\n")
_NON_FINITE = frozenset({"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity",
                         "+infinity", "-infinity"})


@dataclass
class ScanFile:
    """One scan file as read.

    Attributes:
        name: what the file name states.
        path: the file's path (or URL) as text (a string, not a path object: a run
            holds up to 100 000 files).
        size: bytes (0 when unreadable).
        sha256: lowercase hex digest of its bytes (``""`` when unreadable).
        description: line 1 as text (undecodable bytes escaped ``\\xNN``).
        header: line 2 parsed, or None when it is missing or broken.
        columns: float64 ``(3, points)``: the three data columns in one array (one
            object a file, not three: a run holds up to 100 000 files), read through
            :attr:`x`, :attr:`value` and :attr:`third`.
        third_points: how many lines have a third column.
        numbers: int64 ``(points,)``: the line number of each point, or None for
            3, 4, ... (a clean data block; read through :attr:`lines`).
        errors: how many error findings this file produced.
    """

    name: ScanName
    path: str
    size: int = 0
    sha256: str = ""
    description: str = ""
    header: Header | None = None
    columns: np.ndarray = field(default_factory=lambda: np.empty((3, 0)))
    third_points: int = 0
    numbers: np.ndarray | None = None
    errors: int = 0

    @property
    def x(self) -> np.ndarray:
        """float64 ``(points,)``: column 1 (radius in cm; wavelength in nm for WA/WI)."""
        return self.columns[0]

    @property
    def value(self) -> np.ndarray:
        """float64 ``(points,)``: column 2, in the type's signal unit."""
        return self.columns[1]

    @property
    def third(self) -> np.ndarray:
        """float64 ``(points,)``: column 3, NaN where a line has none."""
        return self.columns[2]

    @property
    def lines(self) -> np.ndarray:
        """int64 ``(points,)``: the line number of each point."""
        return self.numbers if self.numbers is not None else _line_numbers(self.points)

    @property
    def ok(self) -> bool:
        """True when the file produced no error finding."""
        return self.errors == 0

    @property
    def points(self) -> int:
        """Data points read."""
        return int(self.columns.shape[1])


class _Col:
    """Reports into the document's collector and counts this file's errors."""

    def __init__(self, findings: Findings, scan: ScanFile) -> None:
        self.findings, self.scan = findings, scan

    def report(self, rule: R.Rule, message: str, line: int | None = None) -> None:
        where = self.scan.name.name if line is None else f"{self.scan.name.name}:{line}"
        self.findings.report(rule, message, where)
        if rule.severity is R.E:
            self.scan.errors += 1


def _first_lines(content: bytes) -> tuple[bytes, bytes | None, bytes]:
    """Line 1, line 2 (None when the file ends before it) and the rest (from line 3)."""
    ends = _LINE_END.finditer(content)
    first = next(ends, None)
    if first is None:
        return content, None, b""
    second = next(ends, None)
    if second is None:
        return content[: first.start()], content[first.end():] or None, b""
    return (content[: first.start()], content[first.end(): second.start()],
            content[second.end():])


def read_scan(path: Path, name: ScanName, findings: Findings) -> ScanFile:
    """Read the scan file ``path`` (named ``name``), reporting into ``findings``.

    Never raises for bad input: an unreadable or oversized file, a missing or
    broken header line, malformed data lines are findings (rules in :mod:`.rules`).
    """
    scan = ScanFile(name, str(path))
    col = _Col(findings, scan)
    content = _read_bytes(path, scan, col)
    if content is None:
        return scan
    line1, line2, body = _first_lines(content)
    scan.description = _description(line1, col)
    if line2 is None:
        col.report(R.NO_HEADER_LINE, "the file ends before its header line (line 2)")
        return scan
    scan.header = _header(line2, scan, col)
    body = body.rstrip()
    if not body:
        col.report(R.NO_DATA, "no data line follows the header line", 2)
        return scan
    if not _fast_data(body, scan):
        _slow_data(body, scan, col)
    _check_radii(scan, col)
    return scan


def _check_radii(scan: ScanFile, col: _Col) -> None:
    """Warn once per scan about a repeated radius and once about radii that decrease."""
    x = scan.x
    if x.size < 2 or bool((np.diff(x) > 0).all()):
        return
    order = np.argsort(x, kind="stable")
    same = np.flatnonzero(x[order][1:] == x[order][:-1])
    if same.size:
        i = int(order[same + 1].min())  # the first point, in file order, repeating an earlier one
        col.report(R.DUPLICATE_RADIUS, f"radius {float(x[i])!r} appears more than once "
                   f"({same.size} repeat(s) in this scan)", int(scan.lines[i]))
    falling = np.flatnonzero(np.diff(x) < 0)
    if falling.size:
        i = int(falling[0]) + 1
        col.report(R.RADIUS_NOT_INCREASING, f"radius {float(x[i])!r} is below the previous "
                   f"point's {float(x[i - 1])!r} ({falling.size} decrease(s) in this scan)",
                   int(scan.lines[i]))


def _read_bytes(path: Path, scan: ScanFile, col: _Col) -> bytes | None:
    """The file's bytes (size and digest recorded), or None after a finding."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            scan.size = size
            col.report(R.FILE_TOO_LARGE, f"{size:,} bytes; Inspector reads scan files of at "
                       f"most {MAX_FILE_BYTES:,} bytes")
            return None
        content = path.read_bytes()
    except RemoteError as exc:  # a scan file at a URL: the network rule, naming the URL
        col.report(exc.rule, exc.message)
        return None
    except OSError as exc:
        col.report(R.UNREADABLE, f"cannot be read ({exc.strerror or exc})")
        return None
    scan.size = len(content)
    scan.sha256 = hashlib.sha256(content).hexdigest()
    return content


def _description(raw: bytes, col: _Col) -> str:
    """Line 1 as text: UTF-8, else escaped (``\\xNN``) with a warning."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        col.report(R.DESCRIPTION_NOT_UTF8, f"the description line is not UTF-8 (byte "
                   f"0x{raw[exc.start]:02x} at column {exc.start + 1}); it is kept with "
                   "undecodable bytes escaped", 1)
        return raw.decode("utf-8", errors="backslashreplace")


def _header(raw: bytes, scan: ScanFile, col: _Col) -> Header | None:
    """Line 2 parsed and checked against the file name; None after an error."""
    got = parse_header(raw.decode("ascii", errors="replace"))
    if isinstance(got, HeaderProblem):
        rule = {"fields": R.HEADER_FIELDS, "negative": R.HEADER_NEGATIVE}.get(
            got.kind, R.HEADER_VALUE)
        col.report(rule, got.message, 2)
        return None
    if got.extra:
        col.report(R.HEADER_EXTRA_FIELDS, f"line 2 has {got.extra} field(s) after the eighth "
                   "(ignored)", 2)
    stype = SCAN_TYPES[scan.name.type]
    ok = True
    if got.letter not in stype.letters:
        col.report(R.TYPE_LETTER, f"line 2 starts with type letter {got.letter!r} but the file "
                   f"name says {stype.code} ({stype.title}, written "
                   f"{' or '.join(stype.letters)})", 2)
        ok = False
    if got.cell != scan.name.cell:
        col.report(R.CELL_MISMATCH, f"line 2 says cell {got.cell} but the file name says cell "
                   f"{scan.name.cell}", 2)
        ok = False
    return got if ok else None


#: Line numbers 3, 4, ... shared (read-only) by the scans of a clean data block.
_LINES = np.arange(3, 3 + 4096, dtype=np.int64)
_LINES.flags.writeable = False


def _line_numbers(rows: int) -> np.ndarray:
    """int64 ``(rows,)``: 3, 4, ...: a view of one shared array for a scan of up to 4 096
    points (a run of 100 000 files holds no copy each), else its own."""
    return _LINES[:rows] if rows <= _LINES.size else np.arange(3, 3 + rows, dtype=np.int64)


def _fast_data(body: bytes, scan: ScanFile) -> bool:
    """Parse a clean data block in one call; False when any line needs a closer look.

    Clean: only digits, signs, points, exponents, spaces, tabs and line ends
    (LF or CRLF); every line two or three numbers, the same count on every
    line, no blank line, every value finite.  ``numpy.loadtxt`` converts with
    correct rounding (the same float64 as Python's ``float``).
    """
    if body.translate(None, _NUMERIC):
        return False
    try:
        a = np.loadtxt(io.BytesIO(body), dtype=np.float64, comments=None, ndmin=2)
    except ValueError:
        return False
    rows = body.count(b"\n") + 1  # loadtxt skips blank lines: a blank line gives fewer rows
    if a.shape[0] != rows or a.shape[1] not in (2, 3) or not np.isfinite(a).all():
        return False
    columns = np.full((3, rows), np.nan)
    columns[:a.shape[1]] = a.T
    scan.columns, scan.third_points = columns, (rows if a.shape[1] == 3 else 0)
    return True


def _values(fields: list[bytes], line: int, col: _Col) -> list[float] | None:
    """The numbers of one data line's fields, or None after an error finding."""
    out = []
    for k, raw in enumerate(fields, start=1):
        text = raw.decode("ascii", errors="replace")
        if NUMBER.fullmatch(text) is None:
            if text.lower() in _NON_FINITE:
                col.report(R.NON_FINITE, f"column {k} is {text!r}, not a finite number", line)
            else:
                col.report(R.MALFORMED_LINE, f"column {k} {text[:40]!r} is not a number", line)
            return None
        value = float(text)
        if not math.isfinite(value):
            col.report(R.NON_FINITE, f"column {k} {text[:40]!r} overflows to {value}", line)
            return None
        out.append(value)
    return out


#: Malformed data lines of one file looked into one by one (each a finding); the rest
#: are counted in one finding, so a malformed line costs no more than a good one.
MAX_DETAILED_LINES = 50
_NUM = rb"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
#: A good data line: two or three numbers (:data:`~.header.NUMBER`) between spaces/tabs.
_GOOD_LINE = re.compile(rb"[ \t]*" + _NUM + rb"[ \t]+" + _NUM + rb"(?:[ \t]+" + _NUM
                        + rb")?[ \t]*")
#: Bytes of the data block split into lines at a time (bounds the list of lines).
_BLOCK = 1 << 20


@dataclass
class _Rows:
    """The data lines read so far (typed arrays: 32 bytes a point) and the bad ones."""

    x: array = field(default_factory=lambda: array("d"))
    value: array = field(default_factory=lambda: array("d"))
    third: array = field(default_factory=lambda: array("d"))
    numbers: array = field(default_factory=lambda: array("q"))
    missing_third: int = 0
    first_missing_third: int = 0
    blank_at: int | None = None
    after_blank_reported: bool = False
    detailed: int = 0  # malformed lines reported one by one
    unlisted: int = 0  # malformed lines past MAX_DETAILED_LINES, counted
    first_unlisted: int = 0

    def add(self, line: int, values: list[float]) -> None:
        if len(values) == 2:
            if not self.missing_third:
                self.first_missing_third = line
            self.missing_third += 1
            values.append(math.nan)
        self.x.append(values[0])
        self.value.append(values[1])
        self.third.append(values[2])
        self.numbers.append(line)


def _block_lines(body: bytes) -> Iterator[list[bytes]]:
    """``body.splitlines()`` in lists of about :data:`_BLOCK` bytes (a CRLF never split)."""
    at = 0
    while at < len(body):
        cut = body.find(b"\n", min(at + _BLOCK, len(body)))
        if cut < 0:
            cut = len(body)
        yield body[at:cut].splitlines()
        at = cut + 1


def _good(raw: bytes) -> list[float] | None:
    """The two or three finite numbers of a well-formed data line, else None."""
    m = _GOOD_LINE.fullmatch(raw)
    if m is None:
        return None
    values = [float(v) for v in m.groups() if v is not None]
    return values if all(math.isfinite(v) for v in values) else None


def _bad_line(raw: bytes, line: int, rows: _Rows, col: _Col) -> None:
    """A line that is not two or three finite numbers: a finding (the first
    :data:`MAX_DETAILED_LINES`), else counted."""
    if rows.detailed >= MAX_DETAILED_LINES:
        if not rows.unlisted:
            rows.first_unlisted = line
        rows.unlisted += 1
        return
    rows.detailed += 1
    fields = [f.encode("latin-1") for f in split_fields(raw.decode("latin-1"))]
    if len(fields) not in (2, 3):
        col.report(R.MALFORMED_LINE, f"{len(fields)} field(s); a data line is radius, value "
                   f"and an optional third column: {_shown(raw)}", line)
        return
    values = _values(fields, line, col)
    if values is not None:  # (cannot happen: _good accepts every such line)
        rows.add(line, values)


def _slow_data(body: bytes, scan: ScanFile, col: _Col) -> None:
    """Parse the data lines one by one, reporting malformed lines (the first
    :data:`MAX_DETAILED_LINES` one by one, the rest in one count)."""
    rows = _Rows()
    line = 2
    for block in _block_lines(body):
        for raw in block:
            line += 1
            if not raw.strip(b" \t"):
                rows.blank_at = rows.blank_at or line
                continue
            if rows.blank_at is not None and not rows.after_blank_reported:
                col.report(R.DATA_AFTER_BLANK, f"a data line follows the blank line "
                           f"{rows.blank_at}; UltraScan would stop reading the scan there", line)
                rows.after_blank_reported = True
            values = _good(raw)
            if values is None:
                _bad_line(raw, line, rows, col)
            else:
                rows.add(line, values)
    _keep_rows(rows, scan, col)


def _keep_rows(rows: _Rows, scan: ScanFile, col: _Col) -> None:
    """The arrays of ``scan`` from ``rows``; the counted lines and missing third columns."""
    if rows.unlisted:
        col.report(R.MALFORMED_LINE, f"{rows.unlisted:,} further data line(s) from this one on "
                   "are not two or three finite numbers (after the first "
                   f"{MAX_DETAILED_LINES} malformed lines, they are counted, not listed)",
                   rows.first_unlisted)
    scan.columns = np.vstack([np.frombuffer(column, dtype=np.float64)
                              for column in (rows.x, rows.value, rows.third)])
    scan.numbers = np.frombuffer(rows.numbers, dtype=np.int64).copy()
    n = len(rows.numbers)
    scan.third_points = n - rows.missing_third
    if scan.third_points and rows.missing_third:
        col.report(R.THIRD_COLUMN_MISSING, f"{rows.missing_third} of {n} data line(s) "
                   "have no third column (recorded as missing)", rows.first_missing_third)


def _shown(raw: bytes) -> str:
    """A data line for a message: escaped, at most 60 characters."""
    text = raw.decode("ascii", errors="backslashreplace")
    return repr(text if len(text) <= 60 else text[:57] + "...")
