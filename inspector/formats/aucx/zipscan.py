"""Read a ZIP central directory and local headers without decompressing anything.

This is the "safety before work" step of AUCX reading (seed
``002_59993c7ffff01d56.txt``, "Safety"; spec ``aucx-archive.md`` section 4
step 2).  It parses the end-of-central-directory record, every central
directory entry and every local header itself (PKWARE APPNOTE 6.3.x, sections
4.3.7, 4.3.12, 4.3.16 and 4.5.3 for ZIP64), so the checks do not depend on
the running Python's :mod:`zipfile` version, and reports:

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
problems are :class:`ZipProblem` records.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

#: Seed "Safety": members declaring more than 512 MiB are rejected.
MAX_MEMBER_BYTES = 512 * 1024 * 1024
#: Seed "Safety": more than 2 GiB declared in total is rejected.
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024

#: An AUCX archive has 7 members; above this many a ``zip.many-members``
#: warning is given (the members are still listed and hashed).
MANY_MEMBERS = 1000
#: Central directories with more entries than this are not read (fatal).
MAX_ENTRIES = 1_000_000
#: Central directories larger than this are not read (fatal): a 7-member
#: archive needs well under 1 KiB; 1M short names need about 64 MiB.
MAX_CENTRAL_DIRECTORY_BYTES = 64 << 20

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


@dataclass(frozen=True)
class ZipProblem:
    """One container-level problem.

    ``code`` is the finding code (``zip.*``), ``location`` the member name
    concerned (``""`` for the archive as a whole).
    """

    code: str
    message: str
    location: str = ""


@dataclass
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


@dataclass
class ZipScan:
    """Result of :func:`scan_zip`.

    ``entries`` in central-directory order; ``problems`` in discovery order;
    ``fatal`` is True when no central directory could be read at all (not a
    ZIP, truncated); ``file_size`` the archive size in bytes.
    """

    path: Path
    file_size: int = 0
    entries: list[ZipEntry] = field(default_factory=list)
    problems: list[ZipProblem] = field(default_factory=list)
    fatal: bool = False
    comment: bytes = b""

    _index: dict[str, ZipEntry] | None = field(default=None, repr=False)
    _index_len: int = field(default=-1, repr=False)

    def _by_name(self) -> dict[str, ZipEntry]:
        # rebuilt only when entries were added since (O(n) once, O(1) lookups)
        if self._index is None or self._index_len != len(self.entries):
            index: dict[str, ZipEntry] = {}
            for e in self.entries:
                index.setdefault(e.name, e)
            self._index, self._index_len = index, len(self.entries)
        return self._index

    def first(self, name: str) -> ZipEntry | None:
        """The first entry called ``name`` (the one shown for duplicates); O(1)."""
        return self._by_name().get(name)

    @property
    def names(self) -> list[str]:
        """Unique member names in central-directory order."""
        return list(self._by_name())


def unsafe_name_reason(name: str) -> str | None:
    """Why ``name`` is not an acceptable AUCX member name, or None if it is.

    Rules (seed "Safety"; AUCX on-disk notes §4 step 2): not empty, not a directory
    entry, no backslash, not absolute (``/x`` or a drive letter ``C:``), no
    ``..`` component.
    """
    if not name:
        return "is empty"
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


def _find_eocd(fh, size: int) -> tuple[int, bytes] | None:
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


def scan_zip(path: Path) -> ZipScan:
    """Parse ``path``'s central directory and local headers; decompress nothing.

    Returns a :class:`ZipScan`; never raises for bad input (an unreadable
    file becomes a fatal problem).  Every check listed in the module
    docstring is applied; each failing entry gets ``safe = False``.
    """
    scan = ZipScan(Path(path))
    try:
        with open(path, "rb") as fh:
            _scan(fh, scan)
    except OSError as exc:
        scan.fatal = True
        scan.problems.append(ZipProblem("file.unreadable", f"{path.name}: cannot be read: {exc}"))
    return scan


def _scan(fh, scan: ZipScan) -> None:
    name = scan.path.name
    fh.seek(0, 2)
    size = fh.tell()
    scan.file_size = size
    fh.seek(0)
    head = fh.read(4)
    found = _find_eocd(fh, size) if size >= _EOCD.size else None
    if found is None:
        scan.fatal = True
        if head == _LOCAL_SIG:
            scan.problems.append(ZipProblem(
                "zip.truncated",
                f"{name}: starts like a ZIP archive but has no end-of-central-directory "
                "record: the archive is truncated or its central directory is lost "
                "(APPNOTE 4.3.16; AUCX 1.0 format, 'Safety': unreadable ZIP)"))
        else:
            scan.problems.append(ZipProblem(
                "zip.not-a-zip",
                f"{name}: is not a ZIP archive (no ZIP end-of-central-directory record); "
                "an AUCX archive is a ZIP of parts (AUCX 1.0 format, 'AUCX — the archival container')"))
        return
    eocd_pos, eocd = found
    (_, _disk, _cd_disk, _n_disk, n_total, cd_size, cd_offset, comment_len) = _EOCD.unpack_from(eocd)
    scan.comment = eocd[_EOCD.size : _EOCD.size + comment_len]
    cd_end = eocd_pos
    # ZIP64 end of central directory (APPNOTE 4.3.14/4.3.15)
    if eocd_pos >= _Z64_LOC.size:
        fh.seek(eocd_pos - _Z64_LOC.size)
        loc = fh.read(_Z64_LOC.size)
        if loc[:4] == _Z64_LOC_SIG:
            _, _, z64_off, _ = _Z64_LOC.unpack(loc)
            fh.seek(z64_off)
            rec = fh.read(_Z64_EOCD.size)
            if len(rec) == _Z64_EOCD.size and rec[:4] == _Z64_EOCD_SIG:
                vals = _Z64_EOCD.unpack(rec)
                n_total, cd_size, cd_offset = vals[7], vals[8], vals[9]
                cd_end = z64_off
    concat = cd_end - cd_size - cd_offset
    if concat < 0 or cd_end - cd_size < 0:
        scan.fatal = True
        scan.problems.append(ZipProblem(
            "zip.truncated",
            f"{name}: the central directory ({cd_size} bytes at offset {cd_offset}) does not "
            "fit before its end record: truncated or corrupt archive (APPNOTE 4.3.16)"))
        return
    if concat > 0:
        scan.problems.append(ZipProblem(
            "zip.prefixed-data",
            f"{name}: {concat} bytes precede the ZIP data; offsets are shifted accordingly"))
    cd_start = cd_offset + concat
    if cd_size > MAX_CENTRAL_DIRECTORY_BYTES or n_total > MAX_ENTRIES:
        scan.fatal = True
        scan.problems.append(ZipProblem(
            "zip.too-many-members",
            f"{name}: the central directory announces {n_total} entries in {cd_size} bytes, "
            f"above the reader's limits ({MAX_ENTRIES} entries, {MAX_CENTRAL_DIRECTORY_BYTES} "
            "bytes); an AUCX archive has 7 members, so it is not read further "
            "(AUCX 1.0 format, 'Structure' and 'Safety')"))
        return
    fh.seek(cd_start)
    cdir = fh.read(cd_size)
    if len(cdir) != cd_size:
        scan.fatal = True
        scan.problems.append(ZipProblem("zip.truncated", f"{name}: the central directory is cut short"))
        return
    pos = 0
    while pos < len(cdir):
        if pos + _CDIR.size > len(cdir) or cdir[pos : pos + 4] != _CDIR_SIG:
            scan.fatal = True
            scan.problems.append(ZipProblem(
                "zip.bad-central-directory",
                f"{name}: central directory entry {len(scan.entries)} is malformed "
                "(bad signature or cut short; APPNOTE 4.3.12)"))
            return
        (_, create_version, create_system, _extract_version, _reserved, flags, method, dtime,
         ddate, crc, csize, usize, nlen, xlen, clen, _disk_start, _iattr, eattr,
         offset) = _CDIR.unpack_from(cdir, pos)
        raw_name = cdir[pos + _CDIR.size : pos + _CDIR.size + nlen]
        extra = cdir[pos + _CDIR.size + nlen : pos + _CDIR.size + nlen + xlen]
        pos += _CDIR.size + nlen + xlen + clen
        if flags & 0x800:
            member = raw_name.decode("utf-8", errors="replace")
        else:
            member = raw_name.decode("cp437")
        need = [k for k, v in (("file_size", usize), ("compressed_size", csize),
                               ("header_offset", offset)) if v == _U32]
        if need:
            z64 = _zip64_extra(extra, need)
            if z64 is None:
                scan.problems.append(ZipProblem(
                    "zip.bad-zip64-extra",
                    f"{name}: member {member!r} needs a ZIP64 extra field that is missing "
                    "or short (APPNOTE 4.5.3)", member))
                z64 = {}
            usize = z64.get("file_size", usize)
            csize = z64.get("compressed_size", csize)
            offset = z64.get("header_offset", offset)
        if len(scan.entries) >= MAX_ENTRIES:
            scan.fatal = True
            scan.problems.append(ZipProblem(
                "zip.too-many-members",
                f"{name}: the central directory holds more than {MAX_ENTRIES} entries; an "
                "AUCX archive has 7 members, so it is not read further "
                "(AUCX 1.0 format, 'Structure' and 'Safety')"))
            return
        scan.entries.append(ZipEntry(
            name=member, index=len(scan.entries), flags=flags, method=method, crc=crc,
            compressed_size=csize, file_size=usize, header_offset=offset + concat,
            date_time=_dos_datetime(ddate, dtime), external_attr=eattr,
            create_system=create_system, create_version=create_version))
    if len(scan.entries) != n_total:
        scan.problems.append(ZipProblem(
            "zip.entry-count",
            f"{name}: the end record announces {n_total} entries but the central directory "
            f"holds {len(scan.entries)} (APPNOTE 4.3.16)"))
    if not scan.entries:
        scan.problems.append(ZipProblem(
            "zip.empty",
            f"{name}: the ZIP archive contains no members; an AUCX archive needs "
            "manifest.json, its parts and checksums.sha256 (AUCX 1.0 format, 'Structure')"))
        return
    if len(scan.entries) > MANY_MEMBERS:
        scan.problems.append(ZipProblem(
            "zip.many-members",
            f"{name}: the archive holds {len(scan.entries)} ZIP entries; an AUCX archive has "
            f"7 members (AUCX 1.0 format, 'Structure'), so this is far more than expected "
            "(every entry is still listed and hashed)"))
    _check_entries(fh, scan, cd_start)


def _check_entries(fh, scan: ZipScan, cd_start: int) -> None:
    name = scan.path.name
    problems = scan.problems
    counts: dict[str, int] = {}
    for e in scan.entries:
        counts[e.name] = counts.get(e.name, 0) + 1
    total = 0
    reported_dup: set[str] = set()
    for e in scan.entries:
        why = unsafe_name_reason(e.name)
        if why is not None:
            e.safe = False
            problems.append(ZipProblem(
                "zip.unsafe-name",
                f"{name}: member name {e.name!r} {why}; absolute, '..' and backslash names "
                "and directory entries are rejected (AUCX 1.0 format, 'Safety')", e.name))
        if counts[e.name] > 1:
            e.duplicate = True
            if e.name not in reported_dup:
                reported_dup.add(e.name)
                problems.append(ZipProblem(
                    "zip.duplicate-member",
                    f"{name}: {counts[e.name]} ZIP entries are named {e.name!r}; duplicate "
                    "member names are rejected (AUCX 1.0 format, 'Safety')", e.name))
        if e.flags & 0x1:
            e.safe = False
            problems.append(ZipProblem(
                "zip.encrypted",
                f"{name}: member {e.name!r} has the encrypted flag set (general purpose bit 0); "
                "encrypted members are rejected and never decompressed (AUCX 1.0 format, 'Safety')", e.name))
        if e.method not in (STORED, DEFLATED):
            e.safe = False
            problems.append(ZipProblem(
                "zip.unsupported-compression",
                f"{name}: member {e.name!r} uses compression method {e.method}; only stored (0) "
                "and deflate (8) are read (AUCX on-disk notes §2)", e.name))
        if e.file_size > MAX_MEMBER_BYTES:
            e.safe = False
            problems.append(ZipProblem(
                "zip.declared-size",
                f"{name}: member {e.name!r} declares {e.file_size} bytes uncompressed, above the "
                f"{MAX_MEMBER_BYTES}-byte (512 MiB) limit (AUCX 1.0 format, 'Safety')", e.name))
        total += e.file_size
    if total > MAX_TOTAL_BYTES:
        for e in scan.entries:
            e.safe = False
        problems.append(ZipProblem(
            "zip.total-size",
            f"{name}: members declare {total} bytes uncompressed in total, above the "
            f"{MAX_TOTAL_BYTES}-byte (2 GiB) limit (AUCX 1.0 format, 'Safety')"))
    # Local headers and data spans (APPNOTE 4.3.7, 4.3.9)
    for e in scan.entries:
        _read_local(fh, scan, e, cd_start)
    _check_overlaps(scan)


def _check_overlaps(scan: ZipScan) -> None:
    """Flag every entry whose span starts inside an earlier-starting span.

    Spans (local header to end of data) are sorted by start once; walking
    them keeps the span reaching furthest so far, so each entry is compared
    with one other: O(n log n) for n entries.  Two spans overlap exactly when
    the later-starting one starts before the furthest end seen so far.
    """
    name = scan.path.name
    spans = sorted((e for e in scan.entries if e.span_end is not None),
                   key=lambda e: (e.header_offset, e.index))
    reach: ZipEntry | None = None
    for e in spans:
        if reach is not None and e.header_offset < reach.span_end:
            e.safe = False
            scan.problems.append(ZipProblem(
                "zip.overlap",
                f"{name}: member {e.name!r} (bytes {e.header_offset}-{e.span_end}) overlaps "
                f"member {reach.name!r} (bytes {reach.header_offset}-{reach.span_end}); "
                "overlapping entries are rejected (ZIP bomb / ambiguity guard, AUCX 1.0 format, 'Safety')",
                e.name))
        if reach is None or e.span_end > reach.span_end:
            reach = e


def _read_local(fh, scan: ZipScan, e: ZipEntry, cd_start: int) -> None:
    name = scan.path.name
    fh.seek(e.header_offset)
    raw = fh.read(_LOCAL.size)
    if len(raw) != _LOCAL.size or raw[:4] != _LOCAL_SIG:
        e.safe = False
        scan.problems.append(ZipProblem(
            "zip.bad-local-header",
            f"{name}: member {e.name!r} has no valid local header at offset {e.header_offset} "
            "(APPNOTE 4.3.7)", e.name))
        return
    (_, _ver, _sys, lflags, lmethod, _t, _d, _crc, _lcsize, lusize, nlen, xlen) = _LOCAL.unpack(raw)
    lname_raw = fh.read(nlen)
    lextra = fh.read(xlen)
    lname = lname_raw.decode("utf-8" if lflags & 0x800 else "cp437", errors="replace")
    if lname != e.name:
        e.safe = False
        scan.problems.append(ZipProblem(
            "zip.name-mismatch",
            f"{name}: member {e.name!r} is called {lname!r} in its local header; the two "
            "headers must agree (APPNOTE 4.3.7)", e.name))
    if lflags & 0x1 and not e.flags & 0x1:
        e.safe = False
        scan.problems.append(ZipProblem(
            "zip.encrypted",
            f"{name}: member {e.name!r} has the encrypted flag set in its local header; "
            "encrypted members are rejected (AUCX 1.0 format, 'Safety')", e.name))
    if lmethod != e.method:
        e.safe = False
        scan.problems.append(ZipProblem(
            "zip.header-mismatch",
            f"{name}: member {e.name!r}: local and central headers disagree on the "
            "compression method (APPNOTE 4.3.7)", e.name))
    if not lflags & 0x8:
        if lusize == _U32:
            z = _zip64_extra(lextra, ["file_size", "compressed_size"]) or {}
            lusize = z.get("file_size", 0)
        if lusize > MAX_MEMBER_BYTES and e.file_size <= MAX_MEMBER_BYTES:
            e.safe = False
            scan.problems.append(ZipProblem(
                "zip.declared-size",
                f"{name}: member {e.name!r}'s local header declares {lusize} bytes, above the "
                f"{MAX_MEMBER_BYTES}-byte (512 MiB) limit (AUCX 1.0 format, 'Safety')", e.name))
    e.data_offset = e.header_offset + _LOCAL.size + nlen + xlen
    end = e.data_offset + e.compressed_size
    if e.flags & 0x8:
        fh.seek(end)
        sig = fh.read(4)
        end += 16 if sig == b"PK\x07\x08" else 12
    e.span_end = end
    if end > cd_start:
        e.safe = False
        scan.problems.append(ZipProblem(
            "zip.data-out-of-bounds",
            f"{name}: member {e.name!r}'s data (bytes {e.data_offset}-{end}) runs into the "
            f"central directory at {cd_start} or past the end of the file: truncated or "
            "overlapping archive (APPNOTE 4.3.6)", e.name))
