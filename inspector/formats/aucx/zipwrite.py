"""A minimal deterministic ZIP writer for AUCX archives.

Writes exactly the layout of a canonical AUCX 1.0 export (spec
``aucx-archive.md`` section 2; corpus README "What a canonical openauc 1.0
export looks like"): every entry deflated at level 6 (raw deflate, APPNOTE
4.4.5 method 8), timestamp 1980-01-01 00:00:00, version made by 20 with
creator system 0, version needed 20, external attributes ``0o644 << 16``, no
data descriptors, no extra fields, no comments.  Sizes and CRC-32 are patched
into each local header after its data is written, so members are streamed in
blocks and never held compressed in memory.  Not ZIP64: every AUCX member is
at most 512 MiB and the archive at most 2 GiB plus overhead (AUCX 1.0 format
document, "Safety").
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Iterable
from typing import IO

_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CDIR = struct.Struct("<4s4B4HL2L5H2L")
_EOCD = struct.Struct("<4s4H2LH")
_DOS_DATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01
_DOS_TIME = 0
_VERSION = 20
_PERMS = 0o644 << 16
LEVEL = 6
_LIMIT = 0xFFFFFFFF


class ZipStreamWriter:
    """Append members to a seekable binary file, then :meth:`close` to finish.

    ``add(name, blocks)`` deflates the byte blocks of one member and returns
    its SHA-256 hex digest (of the uncompressed bytes).  Raises
    ``ValueError`` if a member or the archive would need ZIP64.
    """

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self._central: list[bytes] = []

    def add(self, name: str, blocks: Iterable[bytes | memoryview]) -> str:
        """Deflate ``blocks`` as member ``name``; return their SHA-256 hex digest.

        Raises:
            ValueError: the member or the archive would need ZIP64.
        """
        raw_name = name.encode("utf-8")
        flags = 0 if raw_name.isascii() else 0x800
        offset = self.fh.tell()
        self.fh.write(_LOCAL.pack(b"PK\x03\x04", _VERSION, 0, flags, 8, _DOS_TIME, _DOS_DATE,
                                  0, 0, 0, len(raw_name), 0))
        self.fh.write(raw_name)
        comp = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
        crc = 0
        size = 0
        csize = 0
        digest = hashlib.sha256()
        for block in blocks:
            if not len(block):
                continue
            crc = zlib.crc32(block, crc)
            digest.update(block)
            size += len(block)
            out = comp.compress(block)
            csize += len(out)
            self.fh.write(out)
        out = comp.flush()
        csize += len(out)
        self.fh.write(out)
        end = self.fh.tell()
        if size > _LIMIT or csize > _LIMIT or end > _LIMIT:
            raise ValueError(f"member {name!r} would need ZIP64 ({size} bytes)")
        self.fh.seek(offset + 14)
        self.fh.write(struct.pack("<3L", crc, csize, size))
        self.fh.seek(end)
        self._central.append(
            _CDIR.pack(b"PK\x01\x02", _VERSION, 0, _VERSION, 0, flags, 8, _DOS_TIME, _DOS_DATE,
                       crc, csize, size, len(raw_name), 0, 0, 0, 0, _PERMS, offset) + raw_name)
        return digest.hexdigest()

    def close(self) -> None:
        """Write the central directory and the end record."""
        start = self.fh.tell()
        for rec in self._central:
            self.fh.write(rec)
        size = self.fh.tell() - start
        n = len(self._central)
        self.fh.write(_EOCD.pack(b"PK\x05\x06", 0, 0, n, n, size, start, 0))
