"""Stream one ZIP member's decompressed bytes in bounded blocks.

Used by verification (SHA-256 while inflating), by the small-member readers
(JSON, checksums) and by the lazy ``.npy`` array references.  Memory stays
bounded: compressed data is read ``READ_BLOCK`` bytes at a time and inflated
with an output cap of ``OUT_BLOCK`` bytes per step (``zlib.decompressobj``
with ``max_length``), so a deflate bomb never allocates more than one block.

A member producing more bytes than its central directory declares is stopped
at the declared size (seed "Safety": declared sizes are limits).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from inspector.formats.aucx.zipscan import DEFLATED, STORED, ZipEntry

READ_BLOCK = 1 << 20
OUT_BLOCK = 1 << 20


@dataclass
class StreamResult:
    """What streaming a whole member established.

    ``size`` decompressed bytes delivered; ``crc`` their CRC-32;
    ``problem`` a ``(code, message)`` pair or None.
    """

    size: int = 0
    crc: int = 0
    problem: tuple[str, str] | None = None


class MemberStream:
    """Iterate the decompressed bytes of one safe :class:`ZipEntry`.

    ``for block in MemberStream(path, entry): ...`` yields ``bytes`` blocks of
    at most ``out_block`` bytes; afterwards :attr:`result` holds the size,
    CRC-32 and any problem (``zip.size-exceeded`` when inflating would pass
    the declared size, ``zip.size-short``, ``zip.corrupt-data``,
    ``zip.crc-mismatch``).  ``limit`` stops after that many bytes (used to
    read an ``.npy`` header) without reporting a problem.  ``crc=False``
    skips the CRC-32.
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

    def __iter__(self) -> Iterator[bytes]:
        e = self.entry
        if e.data_offset is None or not e.safe:
            self.result.problem = ("zip.refused", f"member {e.name!r} failed a safety check")
            return
        declared = e.file_size
        cap = declared if self.limit is None else min(declared, self.limit)
        res = self.result
        crc = 0
        with open(self.path, "rb") as fh:
            fh.seek(e.data_offset)
            remaining_in = e.compressed_size
            if e.method == STORED:
                while remaining_in > 0 and res.size < cap:
                    want = min(self.read_block, remaining_in, cap - res.size)
                    block = fh.read(want)
                    if not block:
                        res.problem = ("zip.corrupt-data", "stored data ends early")
                        break
                    remaining_in -= len(block)
                    res.size += len(block)
                    if self.do_crc:
                        crc = zlib.crc32(block, crc)
                    yield block
                if self.limit is None and res.problem is None:
                    if e.compressed_size > declared:
                        res.problem = ("zip.size-exceeded",
                                       f"stored data holds {e.compressed_size} bytes but "
                                       f"{declared} are declared; reading stopped at the "
                                       "declared size")
                    elif res.size < declared:
                        res.problem = ("zip.size-short",
                                       f"holds {res.size} bytes but declares {declared}")
            elif e.method == DEFLATED:
                d = zlib.decompressobj(-15)
                pending = b""
                full = self.limit is None or self.limit >= declared
                while full or res.size < cap:
                    drained = False
                    if not pending:
                        if d.eof:
                            break
                        if remaining_in > 0:
                            pending = fh.read(min(self.read_block, remaining_in))
                            remaining_in -= len(pending)
                        if not pending:
                            # input used up: zlib may still hold output
                            drained = True
                    try:
                        out = d.decompress(pending, min(self.out_block, cap - res.size + 1))
                    except zlib.error as exc:
                        res.problem = ("zip.corrupt-data", f"deflate data is corrupt: {exc}")
                        return
                    pending = b"" if d.eof else d.unconsumed_tail
                    if not out:
                        if drained:
                            break
                        continue
                    if res.size + len(out) > cap:
                        out = out[: cap - res.size]
                        if full:
                            res.problem = ("zip.size-exceeded",
                                           f"inflates to more than the {declared} bytes its "
                                           "headers declare; stopped at the declared size")
                    res.size += len(out)
                    if self.do_crc:
                        crc = zlib.crc32(out, crc)
                    if out:
                        yield out
                    if res.problem:
                        break
                if not full:
                    res.crc = crc
                    return
                if res.problem is None:
                    if not d.eof:
                        res.problem = ("zip.corrupt-data",
                                       "deflate stream ends before its end-of-stream marker "
                                       "(truncated data)")
                    elif res.size < declared:
                        res.problem = ("zip.size-short",
                                       f"inflates to {res.size} bytes but declares {declared}")
            else:
                res.problem = ("zip.unsupported-compression", f"method {e.method}")
                return
        res.crc = crc
        if (self.do_crc and self.limit is None and res.problem is None
                and crc != e.crc):
            res.problem = ("zip.crc-mismatch",
                           f"CRC-32 {crc:08x} differs from the recorded {e.crc:08x}")


def read_member(path: Path, entry: ZipEntry, max_bytes: int) -> tuple[bytes | None, str | None]:
    """The whole decompressed member if it is at most ``max_bytes`` long.

    Returns ``(data, None)`` or ``(None, reason)``.  Used for the small JSON
    and checksum members at open time.
    """
    if entry.file_size > max_bytes:
        return None, f"declares {entry.file_size} bytes, more than the {max_bytes} read at open"
    stream = MemberStream(path, entry)
    data = b"".join(stream)
    if stream.result.problem is not None:
        return None, stream.result.problem[1]
    return data, None
