"""Stream one ZIP member's decompressed bytes in bounded blocks.

Used by verification (SHA-256 while inflating), by the small-member readers
(JSON, checksums) and by the lazy ``.npy`` array references.  Memory stays
bounded: compressed data is read ``READ_BLOCK`` bytes at a time and inflated
with an output cap of ``OUT_BLOCK`` bytes per step by the one decoder's
streaming decompressor (:func:`inspector.formats.decoding.inflate.stream_decompressor`,
``decompress`` with ``max_length``), so a deflate bomb never allocates more
than one block.

A member producing more bytes than its central directory declares is stopped
at the declared size (AUCX 1.0 format document, "Safety": declared sizes are
limits).

:class:`InflateCursor` reads byte ranges of one deflated member for the lazy
``.npy`` arrays: it keeps its inflate state between reads, so ranges read in
ascending order inflate every byte once, and a bounded set of checkpoints
(copies of the inflate state at regular offsets), so a range before the
current position is inflated from the nearest checkpoint, not from the
member's start (a zlib state, as only zlib's can be copied:
:func:`inspector.formats.decoding.inflate.copyable_decompressor`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from inspector.formats.aucx import rules as R
from inspector.formats.aucx.zipscan import DEFLATED, STORED, ZipEntry
from inspector.formats.decoding import inflate
from inspector.formats.findings import Finding, Rule
from inspector.formats.remote.path import as_source

READ_BLOCK = 1 << 20
OUT_BLOCK = 1 << 20
#: :class:`InflateCursor` keeps at most this many checkpoints per member ...
MAX_CHECKPOINTS = 64
#: ... at least this many decompressed bytes apart (each holds a copy of the
#: inflate state: about 40 KB, most of it the 32 KB deflate window).
CHECKPOINT_SPACING = 4 << 20


@dataclass
class StreamResult:
    """What streaming a whole member established.

    ``size`` decompressed bytes delivered; ``crc`` their CRC-32;
    ``problem`` a finding located at the member, or None.
    """

    size: int = 0
    crc: int = 0
    problem: Finding | None = None


class MemberStream:
    """Iterate the decompressed bytes of one safe :class:`ZipEntry`.

    ``for block in MemberStream(path, entry): ...`` yields ``bytes`` blocks of
    at most ``out_block`` bytes; afterwards :attr:`result` holds the size,
    CRC-32 and any problem (``zip.size-exceeded`` when inflating would pass
    the declared size, ``zip.size-short``, ``zip.corrupt-data``,
    ``zip.crc-mismatch``, ``zip.refused`` for an unsafe entry,
    ``zip.unsupported-compression``).  ``limit`` stops after that many bytes
    (used to read an ``.npy`` header) without reporting a problem.
    ``crc=False`` skips the CRC-32.  Iterating raises ``OSError`` when the
    archive cannot be read.
    """

    def __init__(self, path: Path, entry: ZipEntry, *, limit: int | None = None,
                 out_block: int = OUT_BLOCK, read_block: int = READ_BLOCK,
                 crc: bool = True) -> None:
        self.path = as_source(path)
        self.entry = entry
        self.limit = limit
        self.out_block = out_block
        self.read_block = read_block
        self.do_crc = crc
        self.result = StreamResult()
        declared = entry.file_size
        self._cap = declared if limit is None else min(declared, limit)

    def _fail(self, rule: Rule, message: str) -> None:
        self.result.problem = rule.finding(message, self.entry.name)

    def _count(self, block: bytes) -> None:
        self.result.size += len(block)
        if self.do_crc:
            self.result.crc = inflate.crc32(block, self.result.crc)

    def __iter__(self) -> Iterator[bytes]:
        e = self.entry
        if e.data_offset is None or not e.safe:
            self._fail(R.ZIP_REFUSED, "the member failed a safety check and is not read")
            return
        if e.method not in (STORED, DEFLATED):
            self._fail(R.ZIP_UNSUPPORTED_COMPRESSION,
                       f"the member uses compression method {e.method}")
            return
        with self.path.open("rb") as fh:
            fh.seek(e.data_offset)
            if e.method == STORED:
                yield from self._stored(fh)
            else:
                yield from self._deflated(fh)
        self._check_crc()

    # -- stored ------------------------------------------------------------
    def _stored(self, fh: BinaryIO) -> Iterator[bytes]:
        e, res = self.entry, self.result
        remaining = e.compressed_size
        while remaining > 0 and res.size < self._cap:
            block = fh.read(min(self.read_block, remaining, self._cap - res.size))
            if not block:
                self._fail(R.ZIP_CORRUPT_DATA, "the member's stored data ends early")
                return
            remaining -= len(block)
            self._count(block)
            yield block
        if self.limit is not None:
            return
        if e.compressed_size > e.file_size:
            self._fail(R.ZIP_SIZE_EXCEEDED,
                       f"the member's stored data holds {e.compressed_size} bytes but "
                       f"{e.file_size} are declared; reading stopped at the declared size")
        elif res.size < e.file_size:
            self._fail(R.ZIP_SIZE_SHORT,
                       f"the member holds {res.size} bytes but declares {e.file_size}")

    # -- deflated ----------------------------------------------------------
    def _deflated(self, fh: BinaryIO) -> Iterator[bytes]:
        e, res = self.entry, self.result
        d = inflate.stream_decompressor()
        full = self.limit is None or self.limit >= e.file_size
        remaining = e.compressed_size
        pending = b""
        while full or res.size < self._cap:
            drained = False
            if not pending:
                if d.eof:
                    break
                if remaining > 0:
                    pending = fh.read(min(self.read_block, remaining))
                    remaining -= len(pending)
                drained = not pending  # input used up: the inflater may still hold output
            out = self._inflate(d, pending)
            if out is None:
                return
            pending = b"" if d.eof else d.unconsumed_tail
            if not out:
                if drained:
                    break
                continue
            out = self._clip(out, full)
            self._count(out)
            if out:
                yield out
            if res.problem is not None:
                return
        if full:
            self._check_end(d)

    def _inflate(self, d: Any, data: bytes) -> bytes | None:
        """The next output block (at most one past the cap), or None when corrupt."""
        try:
            return d.decompress(data, min(self.out_block, self._cap - self.result.size + 1))
        except inflate.STREAM_ERRORS as exc:
            self._fail(R.ZIP_CORRUPT_DATA, f"the member's deflate data is corrupt: {exc}")
            return None

    def _clip(self, out: bytes, full: bool) -> bytes:
        """``out`` cut at the cap; passing the declared size is a problem."""
        room = self._cap - self.result.size
        if len(out) <= room:
            return out
        if full:
            self._fail(R.ZIP_SIZE_EXCEEDED,
                       f"the member inflates to more than the {self.entry.file_size} bytes its "
                       "headers declare; reading stopped at the declared size")
        return out[:room]

    def _check_end(self, d: Any) -> None:
        if self.result.problem is not None:
            return
        if not d.eof:
            self._fail(R.ZIP_CORRUPT_DATA,
                       "the member's deflate stream ends before its end-of-stream marker "
                       "(truncated data)")
        elif self.result.size < self.entry.file_size:
            self._fail(R.ZIP_SIZE_SHORT,
                       f"the member inflates to {self.result.size} bytes but declares "
                       f"{self.entry.file_size}")

    def _check_crc(self) -> None:
        res = self.result
        if self.do_crc and self.limit is None and res.problem is None and res.crc != self.entry.crc:
            self._fail(R.ZIP_CRC_MISMATCH,
                       f"the member's CRC-32 {res.crc:08x} differs from the recorded "
                       f"{self.entry.crc:08x}")


def read_member(path: Path, entry: ZipEntry,
                max_bytes: int) -> tuple[bytes | None, str | None]:
    """The whole decompressed member if it is at most ``max_bytes`` long.

    Returns ``(data, None)`` or ``(None, reason)``.  Used for the small JSON
    and checksum members at open time.

    Raises:
        OSError: the archive cannot be read.
    """
    if entry.file_size > max_bytes:
        return None, f"declares {entry.file_size} bytes, more than the {max_bytes} read at open"
    stream = MemberStream(path, entry)
    data = b"".join(stream)
    if stream.result.problem is not None:
        return None, stream.result.problem.message
    return data, None


@dataclass(frozen=True)
class Checkpoint:
    """A place to resume inflating a member from.

    Attributes:
        out: decompressed bytes before this point.
        consumed: compressed bytes consumed before it (offset from the
            member's data).
        state: a copy of the inflate state there (copied again to resume,
            never used itself).
        crc: CRC-32 of the decompressed bytes before ``out``.
    """

    out: int
    consumed: int
    state: Any
    crc: int


class InflateCursor:
    """Byte ranges of one deflated, safe :class:`ZipEntry`, inflated incrementally.

    :meth:`read` resumes from where the previous read ended when the new
    range starts there or later (a scan of the member in ascending ranges
    inflates each byte once), else from the nearest :class:`Checkpoint` at or
    before the range (taken every ``spacing`` decompressed bytes, at most
    :data:`MAX_CHECKPOINTS`), else from the member's start.  Memory: the
    live inflate state, at most ``read_block`` bytes of compressed input and
    the checkpoints (about 40 KB each; at most ``file_size // spacing``),
    whatever the member's size.

    Not thread-safe: its owner serialises the reads (one at a time).

    Attributes:
        inflated: decompressed bytes produced so far, skipped ones included
            (the cost of every read: tests and benchmarks).
        resumed_at: the decompressed offset the last read started inflating
            from (its checkpoint's, the previous position or 0).
        crc_ok: None until a read reached the member's declared end; then
            whether the CRC-32 of its bytes is the recorded one (the CRC is
            carried along by every read and checkpoint).  A mismatch is not
            raised: verification reports it (``zip.crc-mismatch``) and the
            member's arrays are then shown as not verified.
    """

    def __init__(self, path: Path, entry: ZipEntry, *, spacing: int | None = None,
                 read_block: int = READ_BLOCK, out_block: int = OUT_BLOCK) -> None:
        if entry.method != DEFLATED or entry.data_offset is None or not entry.safe:
            raise ValueError(f"{entry.name}: not a safe deflated member")
        self.path = as_source(path)
        self.entry = entry
        self._data_offset = entry.data_offset
        even = -(-entry.file_size // MAX_CHECKPOINTS)
        self.spacing = max(1, spacing if spacing is not None else max(CHECKPOINT_SPACING, even))
        self.read_block = read_block
        self.out_block = out_block
        self.inflated = 0
        self.resumed_at = 0
        self.crc_ok: bool | None = None
        self._points: list[Checkpoint] = []
        self._marks: set[int] = set()  # spacing marks that have their checkpoint
        self._start_over()

    @property
    def checkpoints(self) -> tuple[int, ...]:
        """The decompressed offsets of the checkpoints held, ascending."""
        return tuple(p.out for p in self._points)

    @property
    def position(self) -> int:
        """The decompressed offset the next read continues from without a restart."""
        return self._out

    def _start_over(self) -> None:
        self._d = inflate.copyable_decompressor()
        self._out = 0
        self._crc = 0
        self._fed = 0  # compressed bytes read from the file
        self._pending = b""  # read but not consumed yet

    def _resume(self, cp: Checkpoint) -> None:
        self._d = cp.state.copy()
        self._out, self._crc = cp.out, cp.crc
        self._fed, self._pending = cp.consumed, b""

    def _seek(self, start: int) -> None:
        """Go to the nearest place at or before ``start`` to inflate from."""
        at = bisect.bisect_right(self.checkpoints, start) - 1
        cp = self._points[at] if at >= 0 else None
        here = self._out if self._out <= start else -1
        if cp is not None and cp.out > here:
            self._resume(cp)
        elif here < 0:
            self._start_over()
        self.resumed_at = self._out

    def read(self, start: int, stop: int) -> bytes:
        """Decompressed bytes ``[start, stop)`` of the member.

        Args:
            start, stop: offsets in the decompressed member, ``0 <= start <= stop``.

        Returns:
            ``stop - start`` bytes; fewer when the member ends first (it
            inflates to less than ``stop``, or ``stop`` passes its declared
            size: inflating never goes past that).

        Raises:
            OSError: the archive cannot be read or the deflate data is corrupt.
        """
        if not 0 <= start <= stop:
            raise ValueError(f"invalid range [{start}, {stop})")
        stop = min(stop, self.entry.file_size)
        start = min(start, stop)
        self._seek(start)
        with self.path.open("rb") as fh:
            fh.seek(self._data_offset + self._fed)
            self._inflate_to(fh, start, keep=False)
            return self._inflate_to(fh, stop, keep=True)

    def _inflate_to(self, fh: BinaryIO, target: int, *, keep: bool) -> bytes:
        """Inflate up to decompressed offset ``target``; the bytes when ``keep``."""
        parts: list[bytes] = []
        while self._out < target:
            out = self._step(fh, min(self.out_block, target - self._out))
            if out is None:
                break  # the member ends before target
            if keep:
                parts.append(out)
        return b"".join(parts)

    def _step(self, fh: BinaryIO, n: int) -> bytes | None:
        """At most ``n`` more decompressed bytes (b"" when only input was consumed);
        None at the end of the member's data."""
        drained = False
        if not self._pending:
            if self._d.eof:
                return None
            if self._fed < self.entry.compressed_size:
                self._pending = fh.read(min(self.read_block,
                                            self.entry.compressed_size - self._fed))
                self._fed += len(self._pending)
            drained = not self._pending  # the inflater may still hold output
        try:
            out = self._d.decompress(self._pending, n)
        except inflate.STREAM_ERRORS as exc:
            raise OSError(f"{self.entry.name}: the member's deflate data is corrupt: "
                          f"{exc}") from exc
        self._pending = b"" if self._d.eof else self._d.unconsumed_tail
        if not out:
            return None if drained else b""
        self._advance(out)
        return out

    def _advance(self, out: bytes) -> None:
        """Count ``out``; take a checkpoint on passing a spacing mark that has none."""
        before = self._out
        self._out += len(out)
        self.inflated += len(out)
        self._crc = inflate.crc32(out, self._crc)
        mark = self._out // self.spacing
        if mark > before // self.spacing and mark not in self._marks:
            self._marks.add(mark)
            cp = Checkpoint(self._out, self._fed - len(self._pending), self._d.copy(), self._crc)
            bisect.insort(self._points, cp, key=lambda p: p.out)
        if self._out == self.entry.file_size:
            self.crc_ok = self._crc == self.entry.crc
