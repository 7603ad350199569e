"""The numbered lines of a data file, read in bounded memory.

The file is read in chunks of :data:`CHUNK` bytes.  The lines are those of
``text.splitlines()`` on the whole decoded file (``\\n``, ``\\r\\n``, ``\\r``
and the other separators Python splits on), numbered from 1, blank ones left
out; nothing else is kept.  A line longer than :data:`MAX_LINE_BYTES` bytes
is never held: its bytes are counted and dropped as they are read, and it is
returned as a :class:`LongLine` (numbered as one line) for the
``table.line-too-long`` finding (Inspector's safety limits,
docs/architecture.md "Contracts": memory follows what is shown, not what a
file holds; no table line of a scan table is that long: 100 000 columns of
numbers take a few megabytes).

Text is UTF-8; the first invalid byte stops the reading and is given as its
offset in the file, as decoding the whole file would give it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO

#: Longest line kept, in bytes (16 MiB); longer ones are counted and dropped.
MAX_LINE_BYTES = 16 << 20
#: Bytes read at a time.
CHUNK = 1 << 20


@dataclass(frozen=True)
class LongLine:
    """A line longer than the limit: its 1-based number and its length in bytes."""

    number: int
    size: int


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


#: The line breaks ``str.splitlines`` knows besides ``\n`` and ``\r`` (never in a line
#: ended by :meth:`_Lines.end`, which ends at the first ``\n`` or ``\r``, except last).
_OTHER_BREAKS = frozenset("\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


class _BadText(Exception):
    """Invalid UTF-8 at ``offset`` in the file."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


class _Lines:
    """State of one scan: the partial line carried across chunks, the line count."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.scan = LineScan()
        self.number = 0  # lines counted so far
        self.part = bytearray()  # the current line's bytes so far (at most ``cap``)
        self.part_at = 0  # its offset in the file
        self.dropped = -1  # bytes of the current line when it is too long, else -1

    def _keep(self, text: str) -> None:
        # (a text without a break is its own single line: splitlines() does not copy it)
        for line in text.splitlines():
            self.number += 1
            if line and not line.isspace():
                self.scan.lines.append((self.number, line))

    def decode(self, data: bytes | bytearray, at: int) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _BadText(at + exc.start) from None

    def extend(self, data: bytes, at: int) -> None:
        """``data`` (at file offset ``at``) continues the current line, unterminated."""
        if self.dropped >= 0:
            self.dropped += len(data)
        elif len(self.part) + len(data) > self.cap:
            self.dropped = len(self.part) + len(data)
            self.part = bytearray()
        else:
            if not self.part:
                self.part_at = at
            self.part += data

    def end(self, data: bytes, at: int, terminated: bool = True) -> None:
        """``data`` ends the current line (with a line break when ``terminated``)."""
        self.extend(data, at)
        if self.dropped >= 0:
            self.number += 1
            self.scan.long.append(LongLine(self.number, self.dropped))
        elif self.part or terminated:
            part, self.part = self.part, bytearray()
            text = self.decode(part, self.part_at)
            del part  # the line is held once, as text
            self._keep(text)
            if terminated and (not text or text[-1] in _OTHER_BREAKS):
                self.number += 1  # the empty line this break ends
        self.part, self.dropped = bytearray(), -1

    def whole(self, data: bytes, at: int) -> None:
        """``data`` (shorter than the limit) holds whole lines, each with its break."""
        self._keep(self.decode(data, at))


def _first_break(data: bytes) -> tuple[int, int]:
    """``(start, end)`` of the first line break of ``data`` (``\\r\\n`` is one)."""
    n, r = data.find(b"\n"), data.find(b"\r")
    start = min(i for i in (n, r) if i >= 0)
    end = start + (2 if data[start:start + 2] == b"\r\n" else 1)
    return start, end


def _chunk(state: _Lines, data: bytes, at: int) -> None:
    """One chunk: the line it ends, the whole lines after it, the start of the next."""
    last = max(data.rfind(b"\n"), data.rfind(b"\r"))
    if last < 0:
        state.extend(data, at)
        return
    start, end = _first_break(data)
    state.end(data[:start], at)
    if end <= last:
        state.whole(data[end:last + 1], at + end)
    state.extend(data[last + 1:], at + last + 1)


def scan_lines(fh: BinaryIO, cap: int = MAX_LINE_BYTES, chunk: int = CHUNK) -> LineScan:
    """The numbered non-blank lines of the binary file ``fh`` (see the module doc).

    ``chunk`` must not exceed ``cap`` (a line inside one chunk is never too long).

    Raises:
        OSError: the file cannot be read.
    """
    assert 0 < chunk <= cap
    state = _Lines(cap)
    at, carry = 0, b""
    try:
        while data := fh.read(chunk):
            data = carry + data
            carry = b""
            if data.endswith(b"\r"):  # it may pair with a "\n" the next chunk starts with
                data, carry = data[:-1], b"\r"
            _chunk(state, data, at)
            at += len(data)
        if carry:
            _chunk(state, carry, at)
        if state.part or state.dropped >= 0:
            state.end(b"", at, terminated=False)
    except _BadText as exc:
        state.scan.bad_utf8 = exc.offset
    return state.scan
