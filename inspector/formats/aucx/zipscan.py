"""Read a ZIP central directory and local headers without decompressing anything.

This is the "safety before work" step of AUCX reading (AUCX 1.0 format
document, "Safety"; AUCX on-disk notes §4 step 2).  It parses the
end-of-central-directory record, every central directory entry and every
local header itself (PKWARE APPNOTE 6.3.x, sections 4.3.7, 4.3.12, 4.3.16
and 4.5.3 for ZIP64), so the checks do not depend on the running Python's
:mod:`zipfile` version, and reports:

* member names that are empty, directory entries, absolute (``/x``, ``C:``),
  traversing (``..``) or backslash-separated;
* duplicate member names;
* the encrypted flag (general purpose bit 0) in the central or local header;
* declared uncompressed sizes above 512 MiB per member or 2 GiB in total;
* entries whose local header + compressed data span overlaps another entry's,
  or runs into the central directory or past the end of the file;
* compression methods other than stored (0) and deflate (8);
* far more members than an AUCX archive has (it has 7): a warning above
  :data:`MANY_MEMBERS`; a central directory larger than
  :data:`MAX_CENTRAL_DIRECTORY_BYTES` or holding more than
  :data:`MAX_ENTRIES` entries is not read at all.

Every step is linear in the number of entries except the overlap check,
which sorts the spans once (O(n log n)).  Nothing here raises for bad input:
problems are findings of the rules in :mod:`.rules`, located at the member
they concern.  The :class:`ZipScan` returned is immutable.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import BinaryIO

from inspector.formats.aucx import rules as R
from inspector.formats.findings import Finding, Rule
from inspector.formats.remote.path import as_source
from inspector.formats.sources.file_identity import FILE_CHANGED, FileChangedError

#: AUCX 1.0 format document, "Safety": members declaring more than 512 MiB are rejected.
MAX_MEMBER_BYTES = 512 * 1024 * 1024
#: AUCX 1.0 format document, "Safety": more than 2 GiB declared in total is rejected.
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024

#: An AUCX archive has 7 members; above this many a ``zip.many-members``
#: warning is given (the members are still listed and hashed).
MANY_MEMBERS = 1000
#: Central directories with more entries than this are not read (fatal
#: ``zip.too-many-members``, nothing listed).  An AUCX archive has 7
#: members.  Every entry costs a member-tree node, a checksum row and a
#: hashing step: a directory of 1 000 000 empty entries took 48 s and 1.95 GB
#: to open and verify and printed a 142 MB ``verify --json`` line; 20 000
#: take about 2 s and 50 MB above the interpreter.
MAX_ENTRIES = 20_000
#: Central directories larger than this are not read (fatal): a 7-member
#: archive needs well under 1 KiB; 20 000 entries with 100-byte names need
#: about 3 MiB.
MAX_CENTRAL_DIRECTORY_BYTES = 16 << 20

STORED = 0
DEFLATED = 8

_EOCD = struct.Struct("<4s4H2LH")
_EOCD_SIG = b"PK\x05\x06"
_Z64_LOC = struct.Struct("<4sLQL")
_Z64_LOC_SIG = b"PK\x06\x07"
_Z64_EOCD = struct.Struct("<4sQ2H2L4Q")
_Z64_EOCD_SIG = b"PK\x06\x06"
_CDIR = struct.Struct("<4s4B4HL2L5H2L")
_CDIR_SIG = b"PK\x01\x02"
_LOCAL = struct.Struct("<4s2B4HL2L2H")
_LOCAL_SIG = b"PK\x03\x04"
_U32 = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class ZipEntry:
    """One central-directory entry with its local-header facts.

    Attributes:
        name: decoded member name (UTF-8 when flag bit 11 is set, else cp437).
        index: position in the central directory.
        flags: central-directory general purpose flags.
        method: compression method (0 stored, 8 deflate).
        crc: CRC-32 recorded in the central directory.
        compressed_size, file_size: sizes in bytes from the central directory
            (ZIP64 extra applied).
        header_offset: absolute offset of the local header in the file.
        data_offset: absolute offset of the compressed data (None when the
            local header could not be read).
        span_end: end (exclusive) of the entry's compressed data, including a
            data descriptor when flag bit 3 is set.
        date_time, external_attr, create_system, create_version: raw facts
            for the member tree.
        safe: False when any safety check failed: such a member is never
            decompressed.
        duplicate: True for every entry whose name occurs more than once.
    """

    name: str
    index: int
    flags: int
    method: int
    crc: int
    compressed_size: int
    file_size: int
    header_offset: int
    date_time: tuple[int, int, int, int, int, int]
    external_attr: int
    create_system: int
    create_version: int
    data_offset: int | None = None
    span_end: int | None = None
    safe: bool = True
    duplicate: bool = False


@dataclass(frozen=True)
class ZipScan:
    """Result of :func:`scan_zip` (immutable).

    ``entries`` in central-directory order; ``problems`` (findings) in
    discovery order; ``fatal`` is True when no central directory could be
    read at all (not a ZIP, truncated, too large); ``file_size`` the archive
    size in bytes; ``comment`` the archive comment.
    """

    path: Path
    file_size: int = 0
    entries: tuple[ZipEntry, ...] = ()
    problems: tuple[Finding, ...] = ()
    fatal: bool = False
    comment: bytes = b""
    _index: Mapping[str, ZipEntry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, ZipEntry] = {}
        for e in self.entries:
            index.setdefault(e.name, e)
        object.__setattr__(self, "_index", MappingProxyType(index))

    def first(self, name: str) -> ZipEntry | None:
        """The first entry called ``name`` (the one shown for duplicates); O(1)."""
        return self._index.get(name)

    @property
    def names(self) -> list[str]:
        """Unique member names in central-directory order."""
        return list(self._index)


def unsafe_name_reason(name: str) -> str | None:
    """Why ``name`` is not an acceptable AUCX member name, or None if it is.

    Rules (AUCX 1.0 format document, "Safety"; AUCX on-disk notes §4 step 2):
    not empty, not a directory entry, no backslash, not absolute (``/x`` or a
    drive letter ``C:``), no ``..`` component; and no control character (a NUL
    ends the name for C tools, a line break splits its ``checksums.sha256`` line).
    """
    if not name:
        return "is empty"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return "contains a control character (NUL, line break...)"
    if name.endswith("/"):
        return "is a directory entry"
    if "\\" in name:
        return "uses backslashes"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "is absolute"
    if ".." in name.split("/"):
        return "traverses directories ('..')"
    return None


def _dos_datetime(date: int, time: int) -> tuple[int, int, int, int, int, int]:
    return (
        (date >> 9) + 1980,
        (date >> 5) & 0xF,
        date & 0x1F,
        time >> 11,
        (time >> 5) & 0x3F,
        (time & 0x1F) * 2,
    )


def _zip64_extra(extra: bytes, need: list[str]) -> dict[str, int] | None:
    """Values of the ZIP64 extended information field (APPNOTE 4.5.3)."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + size]
        if tag == 0x0001:
            out: dict[str, int] = {}
            off = 0
            for key in need:
                if off + 8 > len(body):
                    return None
                out[key] = struct.unpack_from("<Q", body, off)[0]
                off += 8
            return out
        pos += 4 + size
    return None


def _find_eocd(fh: BinaryIO, size: int) -> tuple[int, bytes] | None:
    """Offset and bytes of the end-of-central-directory record, or None."""
    tail_len = min(size, _EOCD.size + 0xFFFF)
    fh.seek(size - tail_len)
    tail = fh.read(tail_len)
    pos = tail.rfind(_EOCD_SIG)
    while pos >= 0:
        if pos + _EOCD.size <= len(tail):
            comment_len = struct.unpack_from("<H", tail, pos + 20)[0]
            if pos + _EOCD.size + comment_len <= len(tail):
                return size - tail_len + pos, tail[pos:]
        pos = tail.rfind(_EOCD_SIG, 0, pos)
    return None


@dataclass(frozen=True)
class _Directory:
    """Where the central directory is: its entry count, size, start and the
    number of bytes prefixed to the ZIP data."""

    n_total: int
    cd_size: int
    cd_start: int
    concat: int


class _Scanner:
    """Builds one :class:`ZipScan`; private to :func:`scan_zip`."""

    def __init__(self, path: Path, fh: BinaryIO) -> None:
        self.path = path
        self.fh = fh
        self.file_size = 0
        self.comment = b""
        self.entries: list[ZipEntry] = []
        self.problems: list[Finding] = []
        self.fatal = False

    def report(self, rule: Rule, message: str, location: str = "") -> None:
        self.problems.append(rule.finding(message, location))

    def stop(self, rule: Rule, message: str) -> None:
        """A problem that ends the scan: the directory cannot be used."""
        self.fatal = True
        self.report(rule, message)

    def refuse(self, i: int, rule: Rule, message: str) -> None:
        """Entry ``i`` failed a safety check: report it and mark it unsafe."""
        self.entries[i] = replace(self.entries[i], safe=False)
        self.report(rule, message, self.entries[i].name)

    def result(self) -> ZipScan:
        return ZipScan(self.path, self.file_size, tuple(self.entries), tuple(self.problems),
                       self.fatal, self.comment)

    # -- the steps -----------------------------------------------------------
    def run(self) -> None:
        directory = self._directory()
        if directory is None:
            return
        if not self._read_entries(directory):
            return
        if len(self.entries) != directory.n_total:
            self.report(R.ZIP_ENTRY_COUNT,
                        f"the end record announces {directory.n_total} entries but the "
                        f"central directory holds {len(self.entries)}")
        if not self.entries:
            self.report(R.ZIP_EMPTY,
                        "the ZIP archive contains no members; an AUCX archive needs "
                        "manifest.json, its parts and checksums.sha256")
            return
        if len(self.entries) > MANY_MEMBERS:
            self.report(R.ZIP_MANY_MEMBERS,
                        f"the archive holds {len(self.entries)} ZIP entries; an AUCX archive "
                        "has 7 members, so this is far more than expected (every entry is "
                        "still listed and hashed)")
        self._check_entries()
        for i in range(len(self.entries)):
            self._read_local(i, directory.cd_start)
        self.problems += _check_overlaps(self.entries)

    def _directory(self) -> _Directory | None:
        """Find the end record (and ZIP64 end record); None when fatal."""
        fh = self.fh
        fh.seek(0, 2)
        size = self.file_size = fh.tell()
        fh.seek(0)
        head = fh.read(4)
        found = _find_eocd(fh, size) if size >= _EOCD.size else None
        if found is None:
            if head == _LOCAL_SIG:
                self.stop(R.ZIP_TRUNCATED,
                          "the file starts like a ZIP archive but has no "
                          "end-of-central-directory record: the archive is truncated or its "
                          "central directory is lost")
            else:
                self.stop(R.ZIP_NOT_A_ZIP,
                          "not a ZIP archive (no ZIP end-of-central-directory record); an "
                          "AUCX archive is a ZIP of parts")
            return None
        eocd_pos, eocd = found
        (_, _disk, _cd_disk, _n_disk, n_total, cd_size, cd_offset,
         comment_len) = _EOCD.unpack_from(eocd)
        self.comment = eocd[_EOCD.size : _EOCD.size + comment_len]
        found64 = self._zip64_end(eocd_pos, n_total, cd_size, cd_offset)
        if found64 is None:
            return None
        n_total, cd_size, cd_offset, cd_end = found64
        return self._place(n_total, cd_size, cd_offset, cd_end)

    def _zip64_end(self, eocd_pos: int, n_total: int, cd_size: int,
                   cd_offset: int) -> tuple[int, int, int, int] | None:
        """Counts from the ZIP64 end of central directory when there is one
        (APPNOTE 4.3.14/4.3.15); ``cd_end`` is where the directory ends.
        None (fatal, reported) when the locator points outside the file: any
        offset up to 2**64 - 1 is representable, so it is compared with the
        file's size before it is used."""
        if eocd_pos < _Z64_LOC.size:
            return n_total, cd_size, cd_offset, eocd_pos
        self.fh.seek(eocd_pos - _Z64_LOC.size)
        loc = self.fh.read(_Z64_LOC.size)
        if loc[:4] != _Z64_LOC_SIG:
            return n_total, cd_size, cd_offset, eocd_pos
        _, _, z64_off, _ = _Z64_LOC.unpack(loc)
        if z64_off > eocd_pos - _Z64_LOC.size:
            self.stop(R.ZIP_TRUNCATED,
                      f"the ZIP64 end-of-central-directory locator points at offset {z64_off}, "
                      f"beyond its own position ({eocd_pos - _Z64_LOC.size}) in a file of "
                      f"{self.file_size} bytes: truncated or corrupt archive")
            return None
        self.fh.seek(z64_off)
        rec = self.fh.read(_Z64_EOCD.size)
        if len(rec) != _Z64_EOCD.size or rec[:4] != _Z64_EOCD_SIG:
            return n_total, cd_size, cd_offset, eocd_pos
        vals = _Z64_EOCD.unpack(rec)
        return vals[7], vals[8], vals[9], z64_off

    def _place(self, n_total: int, cd_size: int, cd_offset: int,
               cd_end: int) -> _Directory | None:
        concat = cd_end - cd_size - cd_offset
        if concat < 0 or cd_end - cd_size < 0:
            self.stop(R.ZIP_TRUNCATED,
                      f"the central directory ({cd_size} bytes at offset {cd_offset}) does not "
                      "fit before its end record: truncated or corrupt archive")
            return None
        if concat > 0:
            self.report(R.ZIP_PREFIXED_DATA,
                        f"{concat} bytes precede the ZIP data; offsets are shifted accordingly")
        if cd_size > MAX_CENTRAL_DIRECTORY_BYTES or n_total > MAX_ENTRIES:
            self.stop(R.ZIP_TOO_MANY_MEMBERS,
                      f"the central directory announces {n_total} entries in {cd_size} bytes, "
                      f"above the reader's limits ({MAX_ENTRIES} entries, "
                      f"{MAX_CENTRAL_DIRECTORY_BYTES} bytes); an AUCX archive has 7 members, "
                      "so it is not read further")
            return None
        return _Directory(n_total, cd_size, cd_offset + concat, concat)

    def _read_entries(self, d: _Directory) -> bool:
        """Parse every central directory entry; False when fatal."""
        self.fh.seek(d.cd_start)
        cdir = self.fh.read(d.cd_size)
        if len(cdir) != d.cd_size:
            self.stop(R.ZIP_TRUNCATED, "the central directory is cut short")
            return False
        pos = 0
        while pos < len(cdir):
            if pos + _CDIR.size > len(cdir) or cdir[pos : pos + 4] != _CDIR_SIG:
                self.stop(R.ZIP_BAD_CENTRAL_DIRECTORY,
                          f"central directory entry {len(self.entries)} is malformed (bad "
                          "signature or cut short)")
                return False
            if len(self.entries) >= MAX_ENTRIES:
                self.entries.clear()  # nothing is listed, as when the end record says so
                self.stop(R.ZIP_TOO_MANY_MEMBERS,
                          f"the central directory holds more than {MAX_ENTRIES} entries; an "
                          "AUCX archive has 7 members, so it is not read further")
                return False
            pos = self._entry(cdir, pos, d.concat)
        return True

    def _entry(self, cdir: bytes, pos: int, concat: int) -> int:
        """Parse the entry at ``pos``; return the position of the next one."""
        (_, create_version, create_system, _extract_version, _reserved, flags, method, dtime,
         ddate, crc, csize, usize, nlen, xlen, clen, _disk_start, _iattr, eattr,
         offset) = _CDIR.unpack_from(cdir, pos)
        raw_name = cdir[pos + _CDIR.size : pos + _CDIR.size + nlen]
        extra = cdir[pos + _CDIR.size + nlen : pos + _CDIR.size + nlen + xlen]
        member = (raw_name.decode("utf-8", errors="replace") if flags & 0x800
                  else raw_name.decode("cp437"))
        need = [k for k, v in (("file_size", usize), ("compressed_size", csize),
                               ("header_offset", offset)) if v == _U32]
        if need:
            z64 = _zip64_extra(extra, need)
            if z64 is None:
                self.report(R.ZIP_BAD_ZIP64_EXTRA,
                            f"member {member!r} needs a ZIP64 extra field that is missing or "
                            "short", member)
                z64 = {}
            usize = z64.get("file_size", usize)
            csize = z64.get("compressed_size", csize)
            offset = z64.get("header_offset", offset)
        self.entries.append(ZipEntry(
            name=member, index=len(self.entries), flags=flags, method=method, crc=crc,
            compressed_size=csize, file_size=usize, header_offset=offset + concat,
            date_time=_dos_datetime(ddate, dtime), external_attr=eattr,
            create_system=create_system, create_version=create_version))
        return pos + _CDIR.size + nlen + xlen + clen

    def _check_entries(self) -> None:
        """Names, duplicates, encryption, methods and declared sizes."""
        counts: dict[str, int] = {}
        for e in self.entries:
            counts[e.name] = counts.get(e.name, 0) + 1
        reported_dup: set[str] = set()
        for i, e in enumerate(self.entries):
            self._check_name(i)
            if counts[e.name] > 1:
                self.entries[i] = replace(self.entries[i], duplicate=True)
                if e.name not in reported_dup:
                    reported_dup.add(e.name)
                    self.report(R.ZIP_DUPLICATE_MEMBER,
                                f"{counts[e.name]} ZIP entries are named {e.name!r}; duplicate "
                                "member names are rejected", e.name)
            self._check_flags(i)
        total = sum(e.file_size for e in self.entries)
        if total > MAX_TOTAL_BYTES:
            self.entries[:] = [replace(e, safe=False) for e in self.entries]
            self.report(R.ZIP_TOTAL_SIZE,
                        f"members declare {total} bytes uncompressed in total, above the "
                        f"{MAX_TOTAL_BYTES}-byte (2 GiB) limit")

    def _check_name(self, i: int) -> None:
        e = self.entries[i]
        why = unsafe_name_reason(e.name)
        if why is not None:
            self.refuse(i, R.ZIP_UNSAFE_NAME,
                        f"member name {e.name!r} {why}; absolute, '..', backslash and "
                        "control-character names and directory entries are rejected")

    def _check_flags(self, i: int) -> None:
        e = self.entries[i]
        if e.flags & 0x1:
            self.refuse(i, R.ZIP_ENCRYPTED,
                        f"member {e.name!r} has the encrypted flag set (general purpose bit 0); "
                        "encrypted members are rejected and never decompressed")
        if e.method not in (STORED, DEFLATED):
            self.refuse(i, R.ZIP_UNSUPPORTED_COMPRESSION,
                        f"member {e.name!r} uses compression method {e.method}; only stored (0) "
                        "and deflate (8) are read")
        if e.file_size > MAX_MEMBER_BYTES:
            self.refuse(i, R.ZIP_DECLARED_SIZE,
                        f"member {e.name!r} declares {e.file_size} bytes uncompressed, above "
                        f"the {MAX_MEMBER_BYTES}-byte (512 MiB) limit")

    def _read_local(self, i: int, cd_start: int) -> None:
        """The local header of entry ``i`` (APPNOTE 4.3.7) and its data span."""
        e = self.entries[i]
        if e.header_offset + _LOCAL.size > cd_start:  # (a ZIP64 offset may exceed any seek)
            self.refuse(i, R.ZIP_DATA_OUT_OF_BOUNDS,
                        f"member {e.name!r}'s local header offset {e.header_offset} lies in "
                        f"or past the central directory at {cd_start}: a local header "
                        "precedes the central directory")
            return
        self.fh.seek(e.header_offset)
        raw = self.fh.read(_LOCAL.size)
        if len(raw) != _LOCAL.size or raw[:4] != _LOCAL_SIG:
            self.refuse(i, R.ZIP_BAD_LOCAL_HEADER,
                        f"member {e.name!r} has no valid local header at offset "
                        f"{e.header_offset}")
            return
        (_, _ver, _sys, lflags, lmethod, _t, _d, _crc, _lcsize, lusize, nlen,
         xlen) = _LOCAL.unpack(raw)
        lname_raw = self.fh.read(nlen)
        lextra = self.fh.read(xlen)
        lname = lname_raw.decode("utf-8" if lflags & 0x800 else "cp437", errors="replace")
        self._compare_local(i, lname, lflags, lmethod, lusize, lextra)
        data_offset = e.header_offset + _LOCAL.size + nlen + xlen
        end = data_offset + e.compressed_size
        if e.flags & 0x8 and end <= cd_start:
            self.fh.seek(end)
            end += 16 if self.fh.read(4) == b"PK\x07\x08" else 12
        self.entries[i] = _spanned(self.entries[i], data_offset, end)
        if end > cd_start:
            self.refuse(i, R.ZIP_DATA_OUT_OF_BOUNDS,
                        f"member {e.name!r}'s data (bytes {data_offset}-{end}) runs into the "
                        f"central directory at {cd_start} or past the end of the file: "
                        "truncated or overlapping archive")

    def _compare_local(self, i: int, lname: str, lflags: int, lmethod: int, lusize: int,
                       lextra: bytes) -> None:
        """The local header must agree with the central one."""
        e = self.entries[i]
        if lname != e.name:
            self.refuse(i, R.ZIP_NAME_MISMATCH,
                        f"member {e.name!r} is called {lname!r} in its local header; the two "
                        "headers must agree")
        if lflags & 0x1 and not e.flags & 0x1:
            self.refuse(i, R.ZIP_ENCRYPTED,
                        f"member {e.name!r} has the encrypted flag set in its local header; "
                        "encrypted members are rejected")
        if lmethod != e.method:
            self.refuse(i, R.ZIP_HEADER_MISMATCH,
                        f"member {e.name!r}: local and central headers disagree on the "
                        "compression method")
        if lflags & 0x8:
            return
        if lusize == _U32:
            lusize = (_zip64_extra(lextra, ["file_size", "compressed_size"]) or {}).get(
                "file_size", 0)
        if lusize > MAX_MEMBER_BYTES and e.file_size <= MAX_MEMBER_BYTES:
            self.refuse(i, R.ZIP_DECLARED_SIZE,
                        f"member {e.name!r}'s local header declares {lusize} bytes, above the "
                        f"{MAX_MEMBER_BYTES}-byte (512 MiB) limit")


def _spanned(e: ZipEntry, data_offset: int, span_end: int) -> ZipEntry:
    """``e`` with its local-header facts (positional: twice as fast as
    ``dataclasses.replace``, and this runs once per entry)."""
    return ZipEntry(e.name, e.index, e.flags, e.method, e.crc, e.compressed_size, e.file_size,
                    e.header_offset, e.date_time, e.external_attr, e.create_system,
                    e.create_version, data_offset, span_end, e.safe, e.duplicate)


def _check_overlaps(entries: list[ZipEntry]) -> list[Finding]:
    """Mark unsafe every entry whose span starts inside an earlier-starting
    span; return the ``zip.overlap`` findings.

    Spans (local header to end of data) are sorted by start once; walking
    them keeps the span reaching furthest so far, so each entry is compared
    with one other: O(n log n) for n entries.  Two spans overlap exactly when
    the later-starting one starts before the furthest end seen so far.
    """
    found: list[Finding] = []
    spans = sorted((e for e in entries if e.span_end is not None),
                   key=lambda e: (e.header_offset, e.index))
    reach: ZipEntry | None = None
    for e in spans:
        assert e.span_end is not None
        if reach is not None and reach.span_end is not None and e.header_offset < reach.span_end:
            entries[e.index] = replace(entries[e.index], safe=False)
            found.append(R.ZIP_OVERLAP.finding(
                f"member {e.name!r} (bytes {e.header_offset}-{e.span_end}) overlaps member "
                f"{reach.name!r} (bytes {reach.header_offset}-{reach.span_end}); overlapping "
                "entries are rejected (ZIP bomb and ambiguity guard)", e.name))
        if reach is None or reach.span_end is None or e.span_end > reach.span_end:
            reach = e
    return found


def lists_member(path: Path, name: str) -> bool | None:
    """Whether ``path``'s central directory lists ``name`` (names only, nothing
    else parsed or checked).

    Returns None when the directory cannot be read within the reader's
    limits (no end record, truncated, malformed, more than
    :data:`MAX_ENTRIES` entries or :data:`MAX_CENTRAL_DIRECTORY_BYTES`
    bytes), so a sniffer can hand such a file to the reader, which says what
    is wrong.  Memory and time are bounded by those limits.

    Raises:
        OSError: the file cannot be read.
    """
    wanted = name.encode("utf-8")
    p = as_source(path)
    with p.open("rb") as fh:
        scanner = _Scanner(p, fh)
        d = scanner._directory()
        if d is None:
            return None
        fh.seek(d.cd_start)
        cdir = fh.read(d.cd_size)
    if len(cdir) != d.cd_size:
        return None
    pos = seen = 0
    while pos < len(cdir):
        if pos + _CDIR.size > len(cdir) or cdir[pos : pos + 4] != _CDIR_SIG or seen >= MAX_ENTRIES:
            return None
        nlen, xlen, clen = struct.unpack_from("<3H", cdir, pos + 28)
        if cdir[pos + _CDIR.size : pos + _CDIR.size + nlen] == wanted:
            return True
        pos += _CDIR.size + nlen + xlen + clen
        seen += 1
    return False


def scan_zip(path: Path) -> ZipScan:
    """Parse ``path``'s central directory and local headers; decompress nothing.

    Returns a :class:`ZipScan`; never raises for bad input (a file that
    cannot be read becomes a fatal ``file.unreadable`` problem).  Every check
    listed in the module docstring is applied; each failing entry has
    ``safe = False``.
    """
    p = as_source(path)
    try:
        with p.open("rb") as fh:
            scanner = _Scanner(p, fh)
            scanner.run()
            return scanner.result()
    except FileChangedError as exc:  # a snapshot's path now names another file
        return ZipScan(p, fatal=True, problems=(FILE_CHANGED.finding(str(exc)),))
    except OSError as exc:
        return ZipScan(p, fatal=True, problems=(R.FILE_UNREADABLE.finding(
            f"the file cannot be read: {exc.strerror or type(exc).__name__}"),))
