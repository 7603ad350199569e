"""The numbered lines of a data file, read in bounded memory, as offsets.

The file is read in chunks of :data:`CHUNK` bytes and given as :class:`Block` s:
the bytes of whole lines of the file with the offsets (numpy ``int64``) of the
non-blank ones, never a Python object per line.  The lines are those of
``text.splitlines()`` on the whole decoded file (``\\n``, ``\\r\\n``, ``\\r``
and the other separators Python splits on), numbered from 1, blank ones (only
whitespace) left out.  A block of printable ASCII, tabs and ``\\r``/``\\n``
breaks (a *simple* block) is split by numpy over its bytes; any other block
is decoded and split by Python.  A line longer than :data:`MAX_LINE_BYTES`
bytes is never held: its bytes are counted and dropped as they are read, and
it is reported as a :class:`LongLine` (numbered as one line) for the
``table.line-too-long`` finding (Inspector's safety limits,
docs/architecture.md "Contracts": memory follows what is shown, not what a
file holds; no table line of a scan table is that long: 100 000 columns of
numbers take a few megabytes).

Text is UTF-8; the first invalid byte stops the reading and is given as its
offset in the file, as decoding the whole file would give it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import numpy as np

#: Longest line kept, in bytes (16 MiB); longer ones are counted and dropped.
MAX_LINE_BYTES = 16 << 20
#: Bytes read at a time.
CHUNK = 1 << 20

#: Byte classes of a simple block: 0 printable, 1 blank (space, tab), 2 ``\n``,
#: 3 ``\r``, 5 anything else (the block is split by Python).
_CLASS = np.full(256, 5, dtype=np.uint8)
_CLASS[0x21:0x7F] = 0
_CLASS[[0x20, 0x09]] = 1
_CLASS[0x0A] = 2
_CLASS[0x0D] = 3


@dataclass(frozen=True)
class LongLine:
    """A line longer than the limit: its 1-based number and its length in bytes."""

    number: int
    size: int


@dataclass
class Block:
    """Whole lines of a file: their bytes and the offsets of the non-blank ones.

    Attributes:
        data: the bytes (UTF-8), line breaks included.
        at: file offset of ``data[0]``.
        starts, ends: ``int64 (lines,)`` offsets in ``data`` of each non-blank
            line (``ends`` excludes the break).
        numbers: ``int64 (lines,)`` their 1-based line numbers in the file.
        simple: ``data`` holds only printable ASCII, tabs, spaces and breaks.
    """

    data: bytes
    at: int
    starts: np.ndarray
    ends: np.ndarray
    numbers: np.ndarray
    simple: bool

    def __len__(self) -> int:
        return int(self.starts.size)

    def text(self, i: int) -> str:
        """Line ``i`` of the block as text."""
        return self.data[int(self.starts[i]):int(self.ends[i])].decode("utf-8")

    def count(self, byte: int) -> np.ndarray:
        """``int64 (lines,)``: how often ``byte`` (ASCII) occurs in each line."""
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        if len(self) <= _FEW_LINES:  # a few (long) lines: counted in place, no arrays
            needle = bytes((byte,))
            return np.array([self.data.count(needle, int(a), int(b))
                             for a, b in zip(self.starts, self.ends, strict=True)],
                            dtype=np.int64)
        at = np.flatnonzero(np.frombuffer(self.data, np.uint8) == byte)
        return (np.searchsorted(at, self.ends) - np.searchsorted(at, self.starts)).astype(
            np.int64)

    def lines(self, first: int, stop: int) -> Block:
        """The block of lines ``first:stop`` (their bytes only, offsets rebased)."""
        if first >= stop:
            return Block(b"", self.at, self.starts[:0], self.ends[:0], self.numbers[:0],
                         self.simple)
        base, end = int(self.starts[first]), int(self.ends[stop - 1])
        return Block(self.data[base:end], self.at + base, self.starts[first:stop] - base,
                     self.ends[first:stop] - base, self.numbers[first:stop], self.simple)

    def after(self, number: int) -> Block:
        """The block without its lines numbered ``number`` or less."""
        keep = self.numbers > number
        return Block(self.data, self.at, self.starts[keep], self.ends[keep],
                     self.numbers[keep], self.simple)


def _simple_lines(arr: np.ndarray, cls: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``(starts, ends, lines)`` of every line of a simple block (blank ones included)."""
    n = arr.size
    nl = np.flatnonzero(cls == 2)
    cr = np.flatnonzero(cls == 3)
    if cr.size:
        crlf = (cr + 1 < n) & (arr[np.minimum(cr + 1, n - 1)] == 0x0A)
        cr = cr[~crlf]
    breaks = np.sort(np.concatenate((nl, cr)))
    after_cr = (arr[breaks] == 0x0A) & (breaks > 0) & (arr[np.maximum(breaks - 1, 0)] == 0x0D)
    ends = breaks - after_cr
    starts = np.concatenate(([0], breaks[:-1] + 1)) if breaks.size else breaks
    if not breaks.size or breaks[-1] != n - 1:  # an unterminated last line
        starts = np.append(starts, breaks[-1] + 1 if breaks.size else 0)
        ends = np.append(ends, n)
    return starts.astype(np.int64), ends.astype(np.int64), int(starts.size)


def _text_lines(data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(starts, ends, index, lines)`` of the non-blank lines of any block, by Python's
    ``splitlines`` (``index``: 0-based line index in the block).

    Raises:
        UnicodeDecodeError: ``data`` is not UTF-8.
    """
    starts, ends, index = [], [], []
    pos = 0
    pieces = data.decode("utf-8").splitlines(keepends=True)
    for k, piece in enumerate(pieces):
        line = piece.splitlines()[0]
        size = len(piece.encode("utf-8"))
        if line and not line.isspace():
            starts.append(pos)
            ends.append(pos + len(line.encode("utf-8")))
            index.append(k)
        pos += size
    return (np.array(starts, np.int64), np.array(ends, np.int64), np.array(index, np.int64),
            len(pieces))


class _BadText(Exception):
    """Invalid UTF-8 at ``offset`` in the file."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


#: At most this many lines in a block are counted line by line (:meth:`Block.count`).
_FEW_LINES = 4096


def _any_between(mask: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``bool (lines,)``: whether ``mask`` (``bool (bytes,)``) holds a True between each
    line's start and end (one byte of memory per byte, where a running count took four)."""
    if not starts.size:
        return np.zeros(0, dtype=np.bool_)
    if starts[-1] >= mask.size:  # (not from a block: its lines start inside it)
        return np.array([mask[a:b].any() for a, b in zip(starts, ends, strict=True)],
                        dtype=np.bool_)
    bounds = np.empty(2 * starts.size, dtype=np.int64)
    bounds[0::2], bounds[1::2] = starts, ends
    if bounds[-1] >= mask.size:  # the last range runs to the end, as reduceat's last does
        bounds = bounds[:-1]
    found = np.logical_or.reduceat(mask, bounds)[0::2]
    found[starts == ends] = False  # reduceat gives one byte for an empty range
    return found


def make_block(data: bytes, at: int, number: int) -> tuple[Block, int]:
    """The block of ``data`` (whole lines at file offset ``at``; the line before it is
    numbered ``number``) and how many lines it holds, blank ones included.

    Raises:
        _BadText: ``data`` is not UTF-8.
    """
    arr = np.frombuffer(data, dtype=np.uint8)
    cls = _CLASS[arr]
    if not (cls == 5).any():
        starts, ends, lines = _simple_lines(arr, cls)
        keep = _any_between(cls == 0, starts, ends)
        numbers = np.arange(number + 1, number + 1 + lines, dtype=np.int64)[keep]
        return Block(data, at, starts[keep], ends[keep], numbers, True), lines
    try:
        starts, ends, index, lines = _text_lines(data)
    except UnicodeDecodeError as exc:
        raise _BadText(at + exc.start) from None
    return Block(data, at, starts, ends, index + number + 1, False), lines


@dataclass
class LineReader:
    """Reads a file's blocks (:meth:`blocks`); what it found besides them.

    Attributes:
        long: the lines dropped for their length, in file order.
        bad_utf8: offset in the file of the first byte that is not UTF-8
            (reading stopped there), or None.
        number: lines counted so far.
    """

    cap: int = MAX_LINE_BYTES
    chunk: int = CHUNK
    long: list[LongLine] = field(default_factory=list)
    bad_utf8: int | None = None
    number: int = 0

    def blocks(self, fh: BinaryIO) -> Iterator[Block]:
        """The blocks of the binary file ``fh`` in file order (see the module doc);
        stops at the first invalid UTF-8 (``bad_utf8``).

        Raises:
            OSError: the file cannot be read.
        """
        assert 0 < self.chunk <= self.cap
        try:
            yield from self._read(fh)
        except _BadText as exc:
            self.bad_utf8 = exc.offset

    def _emit(self, data: bytes, at: int) -> Iterator[Block]:
        if data:
            block, lines = make_block(data, at, self.number)
            self.number += lines
            if len(block):
                yield block

    def _chunks(self, fh: BinaryIO) -> Iterator[bytes]:
        """The file's bytes in chunks, a final ``\r`` held back until the next byte is
        known (``\r\n`` is one break)."""
        carry = b""
        while True:
            new = fh.read(self.chunk)
            if not new:
                if carry:
                    yield carry
                return
            data, carry = carry + new, b""
            if data.endswith(b"\r"):
                data, carry = data[:-1], b"\r"
            yield data

    def _read(self, fh: BinaryIO) -> Iterator[Block]:
        part = bytearray()  # the current line's bytes so far (at most ``cap``)
        part_at, dropped, at = 0, -1, 0  # dropped: the current line's size once too long
        for data in self._chunks(fh):
            last = max(data.rfind(b"\n"), data.rfind(b"\r"))
            if last < 0:
                if dropped >= 0 or len(part) + len(data) > self.cap:
                    dropped = max(dropped, len(part)) + len(data)
                    part = bytearray()
                else:
                    part_at = part_at if part else at
                    part += data
                at += len(data)
                continue
            first = min(i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0)
            if max(dropped, len(part)) + first > self.cap:
                self.number += 1
                self.long.append(LongLine(self.number, max(dropped, len(part)) + first))
                end = first + (2 if data[first:first + 2] == b"\r\n" else 1)
                whole, whole_at = data[end:last + 1], at + end
            elif part:
                whole, whole_at = bytes(part) + data[:last + 1], part_at
            else:
                whole, whole_at = data[:last + 1], at
            part, dropped = bytearray(data[last + 1:]), -1
            part_at = at + last + 1
            yield from self._emit(whole, whole_at)
            at += len(data)
        if dropped >= 0:
            self.number += 1
            self.long.append(LongLine(self.number, dropped))
        else:
            yield from self._emit(bytes(part), part_at)


@dataclass
class LineScan:
    """What :func:`scan_lines` found.

    Attributes:
        lines: ``(1-based line number, text)`` of every non-blank line kept.
        long: the lines dropped for their length, in file order.
        bad_utf8: offset in the file of the first byte that is not UTF-8
            (reading stopped there), or None.
    """

    lines: list[tuple[int, str]] = field(default_factory=list)
    long: list[LongLine] = field(default_factory=list)
    bad_utf8: int | None = None


def scan_lines(fh: BinaryIO, cap: int = MAX_LINE_BYTES, chunk: int = CHUNK) -> LineScan:
    """Every numbered non-blank line of the binary file ``fh`` as text (a small file's
    lines, for tests and tools; the reader itself keeps :class:`Block` s).

    ``chunk`` must not exceed ``cap`` (a line inside one chunk is never too long).

    Raises:
        OSError: the file cannot be read.
    """
    reader = LineReader(cap, chunk)
    scan = LineScan()
    for block in reader.blocks(fh):
        scan.lines.extend((int(block.numbers[i]), block.text(i)) for i in range(len(block)))
    scan.long, scan.bad_utf8 = reader.long, reader.bad_utf8
    return scan
