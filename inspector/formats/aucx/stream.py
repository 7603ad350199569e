"""Stream one ZIP member's decompressed bytes in bounded blocks.

Used by verification (SHA-256 while inflating), by the small-member readers
(JSON, checksums) and by the lazy ``.npy`` array references.  Memory stays
bounded: compressed data is read ``READ_BLOCK`` bytes at a time and inflated
with an output cap of ``OUT_BLOCK`` bytes per step (``zlib.decompressobj``
with ``max_length``), so a deflate bomb never allocates more than one block.

A member producing more bytes than its central directory declares is stopped
at the declared size (AUCX 1.0 format document, "Safety": declared sizes are
limits).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from inspector.formats.aucx import rules as R
from inspector.formats.aucx.zipscan import DEFLATED, STORED, ZipEntry
from inspector.formats.findings import Finding, Rule

READ_BLOCK = 1 << 20
OUT_BLOCK = 1 << 20


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
        self.path = Path(path)
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
            self.result.crc = zlib.crc32(block, self.result.crc)

    def __iter__(self) -> Iterator[bytes]:
        e = self.entry
        if e.data_offset is None or not e.safe:
            self._fail(R.ZIP_REFUSED, "the member failed a safety check and is not read")
            return
        if e.method not in (STORED, DEFLATED):
            self._fail(R.ZIP_UNSUPPORTED_COMPRESSION,
                       f"the member uses compression method {e.method}")
            return
        with open(self.path, "rb") as fh:
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
        d = zlib.decompressobj(-15)
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
                drained = not pending  # input used up: zlib may still hold output
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

    def _inflate(self, d: zlib._Decompress, data: bytes) -> bytes | None:
        """The next output block (at most one past the cap), or None when corrupt."""
        try:
            return d.decompress(data, min(self.out_block, self._cap - self.result.size + 1))
        except zlib.error as exc:
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

    def _check_end(self, d: zlib._Decompress) -> None:
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
