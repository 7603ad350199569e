"""The columns a long CSV/TSV table's scans are gathered into as it is read.

:class:`LongScans` keeps every observation in typed arrays and :class:`FirstValues` the
first value of each optional column per scan, so that a table of 1 000 000 scans is held
as a few arrays rather than one object per scan (:mod:`.layouts` fills them).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

import numpy as np


class FirstValues:
    """The first non-blank value of one optional column per scan, and its line, as
    columns: the text in one UTF-8 buffer (no string a scan), line 0 for none."""

    def __init__(self) -> None:
        self.blob = bytearray()
        self.start = array("q")
        self.end = array("q")
        self.line = array("q")
        self.seq = array("q")

    def get(self, k: int) -> tuple[str, int] | None:
        """``(value, line)`` of scan ``k``, or None."""
        if k >= len(self.line) or not self.line[k]:
            return None
        return self.blob[self.start[k]:self.end[k]].decode("utf-8"), self.line[k]

    def grow(self, n: int) -> None:
        """Make room for ``n`` scans."""
        missing = n - len(self.line)
        if missing > 0:
            zeros = bytes(8 * missing)
            for column in (self.start, self.end, self.line, self.seq):
                column.frombytes(zeros)

    def keep_many(self, ks: np.ndarray, values: np.ndarray, lines: np.ndarray,
                  seq: np.ndarray) -> None:
        """:meth:`keep` for each scan of ``ks`` (room made: :meth:`grow`)."""
        if not ks.size:
            return
        texts = values.tolist()
        sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        ends = len(self.blob) + np.cumsum(sizes)
        self.blob += b"".join(texts)
        for column, data in ((self.start, ends - sizes), (self.end, ends),
                             (self.line, lines), (self.seq, seq)):
            np.frombuffer(column, dtype=np.int64)[ks] = data

    def keep(self, k: int, value: str, line: int, seq: int) -> None:
        """Record ``value`` (first seen at ``line``; the ``seq``-th value kept) for scan
        ``k``."""
        missing = k + 1 - len(self.line)
        if missing > 0:
            zeros = bytes(8 * missing)
            for column in (self.start, self.end, self.line, self.seq):
                column.frombytes(zeros)
        self.seq[k] = seq
        self.start[k] = len(self.blob)
        self.blob += value.encode("utf-8")
        self.end[k] = len(self.blob)
        self.line[k] = line


@dataclass
class LongScans:
    """The scans of a long table as its rows are read, in first-appearance order, as
    columns: per observation its scan number, radius, signal and line (32 bytes), in
    file order; per scan its first line and the first value of each optional column."""

    order: list[str] = field(default_factory=list)
    number: dict[str, int] = field(default_factory=dict)
    first_line: array = field(default_factory=lambda: array("q"))
    scan_of: array = field(default_factory=lambda: array("i"))
    radius: array = field(default_factory=lambda: array("d"))
    signal: array = field(default_factory=lambda: array("d"))
    line: array = field(default_factory=lambda: array("q"))
    first: dict[str, FirstValues] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    kept: int = 0
    suspicious: bool = False  # the last block read had suspect lines

    def __contains__(self, scan_id: str) -> bool:
        return scan_id in self.number

    def scan(self, scan_id: str, line: int) -> int:
        """The number of scan ``scan_id`` (a new scan starts at ``line``)."""
        k = self.number.get(scan_id)
        if k is None:
            k = self.number[scan_id] = len(self.order)
            self.order.append(scan_id)
            self.first_line.append(line)
        return k

    def add(self, scan_id: str, radius: float, signal: float, line: int) -> int:
        """Append one observation to its scan (creating the scan at its first row)."""
        k = self.scan(scan_id, line)
        self.scan_of.append(k)
        self.radius.append(radius)
        self.signal.append(signal)
        self.line.append(line)
        return k

    def extend(self, numbers: np.ndarray, radii: np.ndarray, signals: np.ndarray,
               lines: np.ndarray) -> None:
        """Append observations (scan numbers, ``float64``, ``float64``, ``int64``; file
        order) of scans already numbered."""
        self.scan_of.frombytes(np.ascontiguousarray(numbers, np.int32).tobytes())
        self.radius.frombytes(np.ascontiguousarray(radii, np.float64).tobytes())
        self.signal.frombytes(np.ascontiguousarray(signals, np.float64).tobytes())
        self.line.frombytes(np.ascontiguousarray(lines, np.int64).tobytes())

    def value(self, column: str, k: int) -> tuple[str, int] | None:
        """The first value of ``column`` for scan ``k`` and its line, or None."""
        values = self.first.get(column)
        return values.get(k) if values is not None else None

    def keep(self, column: str, k: int, value: str, line: int) -> None:
        """Record the first value of ``column`` for scan ``k``."""
        self.kept += 1
        self.first.setdefault(column, FirstValues()).keep(k, value, line, self.kept)

    def register(self, ids: list[str], lines: np.ndarray) -> np.ndarray:
        """Number new scans ``ids`` (first rows at ``lines``); their numbers (int64)."""
        base = len(self.order)
        self.number.update(zip(ids, range(base, base + len(ids)), strict=True))
        self.order.extend(ids)
        self.first_line.frombytes(np.ascontiguousarray(lines, dtype=np.int64).tobytes())
        return np.arange(base, base + len(ids), dtype=np.int64)

    def keep_many(self, column: str, ks: np.ndarray, values: np.ndarray,
                  lines: np.ndarray) -> None:
        """:meth:`keep` for each scan of ``ks`` that has no value of ``column`` yet
        (``values``: an ``S`` array of ASCII text)."""
        store = self.first.setdefault(column, FirstValues())
        store.grow(len(self.order))
        fresh = np.frombuffer(store.line, dtype=np.int64)[ks] == 0
        ks, values, lines = ks[fresh], values[fresh], lines[fresh]
        seq = np.arange(self.kept + 1, self.kept + 1 + ks.size, dtype=np.int64)
        self.kept += int(ks.size)
        store.keep_many(ks, values, lines, seq)

    def values_of(self, k: int) -> list[tuple[str, tuple[str, int]]]:
        """``(column, (value, line))`` of scan ``k``'s first values, in the order they
        were kept."""
        found = []
        for column, values in self.first.items():
            got = values.get(k)
            if got is not None:
                found.append((values.seq[k], column, got))
        found.sort()
        return [(column, got) for _, column, got in found]

    def grouped(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(radius, signal, bounds)``: the values scan by scan (line order within a
        scan; no copy when the rows already are) and where each scan starts."""
        scan_of = np.frombuffer(self.scan_of, dtype=np.int32)
        counts = np.bincount(scan_of, minlength=len(self.order))
        bounds = np.zeros(len(self.order) + 1, dtype=np.int64)
        np.cumsum(counts, out=bounds[1:])
        radius = np.frombuffer(self.radius, dtype=np.float64)
        signal = np.frombuffer(self.signal, dtype=np.float64)
        if bool((scan_of[1:] >= scan_of[:-1]).all()):  # rows already scan by scan
            return radius, signal, bounds
        order = np.argsort(scan_of, kind="stable")
        return radius[order], signal[order], bounds

    def duplicates(self, listed: int) -> tuple[list[tuple[int, str, float, int]], int]:
        """``(line, scan id, radius, first line)`` of the first ``listed`` observations (in
        line order) repeating an earlier radius of their scan, and how many there are.

        Found by one stable sort of every observation by scan and radius (and line, when
        the rows are not in line order), walked :data:`_WALK` sorted positions at a time
        into one flag a row; the first line of a repeated radius is found by a binary
        search of the sorted order.  Beside the columns this holds the order (8 bytes an
        observation) and the flags (1 byte), never a full-length copy of a column.
        """
        if len(self.line) < 2:
            return [], 0
        scan_of = np.frombuffer(self.scan_of, dtype=np.int32)
        radius = np.frombuffer(self.radius, dtype=np.float64)
        lines = np.frombuffer(self.line, dtype=np.int64)
        in_order = bool((lines[1:] > lines[:-1]).all())
        keys = (radius, scan_of) if in_order else (lines, radius, scan_of)
        order = np.lexsort(keys)  # stable: equal keys stay in row (= line) order
        repeats = np.zeros(lines.size, dtype=np.bool_)
        total = 0
        for a in range(0, order.size - 1, _WALK):
            here = order[a:a + _WALK + 1]
            same = scan_of[here[1:]] == scan_of[here[:-1]]
            same &= radius[here[1:]] == radius[here[:-1]]
            total += int(np.count_nonzero(same))
            repeats[here[1:][same]] = True
        if not total:
            return [], 0
        rows = _first_rows(repeats, listed) if in_order else _by_line(repeats, lines, listed)
        found = []
        for row in rows.tolist():
            k, r = int(scan_of[row]), float(radius[row])
            head = _first_at(order, scan_of, radius, k, r)
            found.append((int(lines[row]), self.order[k], r, int(lines[head])))
        return found, total


#: Sorted positions compared at a time by :meth:`LongScans.duplicates`.
_WALK = 1 << 20


def _first_rows(flags: np.ndarray, listed: int) -> np.ndarray:
    """``int64``: the first ``listed`` rows flagged, in row order (read a stretch at a
    time, not one index per flag)."""
    found: list[np.ndarray] = []
    got = 0
    for a in range(0, flags.size, _WALK):
        if got >= listed:
            break
        hits = np.flatnonzero(flags[a:a + _WALK])[:listed - got] + a
        found.append(hits)
        got += hits.size
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def _by_line(flags: np.ndarray, lines: np.ndarray, listed: int) -> np.ndarray:
    """``int64``: the first ``listed`` rows flagged, in line order (rows not in line
    order: every flagged row sorted by its line)."""
    rows = np.flatnonzero(flags)
    return rows[np.argsort(lines[rows], kind="stable")[:listed]]


def _first_at(order: np.ndarray, scan_of: np.ndarray, radius: np.ndarray, k: int,
              r: float) -> int:
    """The row at the first sorted position of scan ``k`` at radius ``r`` (finite: a
    repeated radius equals itself), by binary search of ``order`` (sorted by scan, then
    radius with NaN last)."""
    lo, hi = 0, order.size
    while lo < hi:
        mid = (lo + hi) // 2
        row = int(order[mid])
        s = int(scan_of[row])
        if s < k or (s == k and float(radius[row]) < r):
            lo = mid + 1
        else:
            hi = mid
    return int(order[lo])
