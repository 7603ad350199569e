"""The members section: two archives, member by member.

How members are matched depends on what is known of them
(:func:`match_members`, docs/diff.md "Archives"):

* both archives verified (``--verify``, or a caller that verified them): by the
  SHA-256 each verification computed;
* by default (:data:`STORED`): by their recorded digests and their stored
  (compressed) bytes.  When the compression method, sizes and CRC-32 of a member
  are the same in both archives its stored bytes are compared as they lie in the
  files: equal stored bytes are equal content, proved without inflating.  Only
  members whose stored bytes differ are inflated and their SHA-256 compared.
  A member whose stored bytes are equal while the checksum files record different
  digests for it is a content difference: one of the checksum files is wrong;
* ``--digests-only`` (:data:`RECORDED`): by the recorded digests and the ZIP
  directory's CRC-32 and sizes alone; no member byte is read.

Member bytes are representation (``content=False``): what they hold is compared
by the other sections, which skip the arrays whose members are equal
(:attr:`MemberMatch.same`).  The manifest and provenance members hold the export
record: they differ between two exports of one experiment.  Nothing here imports Qt.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from inspector.formats.compare.model import (
    ADDED,
    CHANGED,
    REMOVED,
    Collector,
    Difference,
    NotCompared,
)

if TYPE_CHECKING:
    from inspector.formats.capabilities import ArchiveMembers, ChecksumTable, StoredMember
    from inspector.formats.document import Document

SECTION = "members"
#: Members whose bytes change with every export (they hold the export record).
EXPORT_RECORD_MEMBERS = frozenset({"manifest.json", "provenance.json", "checksums.sha256"})
#: The checksum list: it records no digest of itself.
CHECKSUMS = "checksums.sha256"
#: How members were matched (``detail.by`` of a members difference).
VERIFIED = "verified digests"
STORED = "stored bytes"
RECORDED = "recorded digests"
#: Stored bytes compared per read, per archive.
RANGE_BYTES = 8 << 20
#: ``not_checked`` notes of the report (docs/diff.md).
NOT_VERIFIED = "member digests not verified; use --verify"
NOT_CONTENT = ("array contents not checked (mask, finite values); use --verify: an "
               "array member whose content differs while the experiments compare equal is "
               "listed under members only")
NOT_READ = ("member bytes not read (--digests-only): members compared by their recorded "
            "digests and ZIP metadata")


@dataclass
class MemberMatch:
    """What matching two archives' members found.

    Attributes:
        same: members with the same content in both (their arrays are not read again).
        unread: members that differ by recorded digest and were not read
            (``--digests-only``): their arrays' values are not compared.
        differences, not_compared: the members section, in member order.
    """

    same: frozenset[str] = frozenset()
    unread: frozenset[str] = frozenset()
    differences: list[Difference] = field(default_factory=list)
    not_compared: list[NotCompared] = field(default_factory=list)

    def emit(self, out: Collector) -> None:
        """Put the section's differences and what was not compared into ``out``."""
        out.not_compared.extend(self.not_compared)
        for d in self.differences:
            out.add(d)


def verified(table: ChecksumTable | None) -> bool:
    """True when ``table`` verified and every member's digest matched."""
    return (table is not None and table.verified and bool(table.members)
            and all(m.status == "ok" for m in table.members))


def digests(table: ChecksumTable) -> dict[str, str | None]:
    """Member name -> its computed SHA-256 (the list's own digest for ``checksums.sha256``)."""
    return {m.name: m.computed or m.recorded for m in table.members}


def recorded(table: ChecksumTable) -> dict[str, str | None]:
    """Member name -> the digest its checksum list records (None when unlisted)."""
    return {m.name: m.recorded for m in table.members}


def match_members(a: Document, b: Document, digests_only: bool = False,
                  jobs: int = 0) -> MemberMatch:
    """Match the members of two archives (an empty match unless both are archives).

    Both verified: by computed digests; else by stored bytes, or with
    ``digests_only`` by recorded digests and ZIP metadata (see the module notes).
    ``jobs``: threads reading stored bytes (0: the CPUs).
    """
    ta, tb = a.checksums, b.checksums
    if ta is None or tb is None:  # not two archives: their contents are compared elsewhere
        return MemberMatch()
    if ta.verified or tb.verified:
        return _by_verified(ta, tb)
    if a.member_data is None or b.member_data is None:
        return MemberMatch(not_compared=[NotCompared(SECTION, "", "the members of A or B "
                                                      "cannot be read")])
    names = _names(ta, tb)
    if digests_only:
        return _by_recorded(names, recorded(ta), recorded(tb), a.member_data, b.member_data)
    return _by_stored(names, recorded(ta), recorded(tb), a.member_data, b.member_data,
                      jobs or os.cpu_count() or 1)


def _names(a: ChecksumTable, b: ChecksumTable) -> list[str]:
    na = [m.name for m in a.members]
    seen = set(na)
    return na + [m.name for m in b.members if m.name not in seen]


def _note(name: str) -> str:
    return "export record (differs between exports)" if name in EXPORT_RECORD_MEMBERS else ""


def _by_verified(a: ChecksumTable, b: ChecksumTable) -> MemberMatch:
    """Both archives verified: members by the digests their verification computed."""
    match = MemberMatch()
    for side, table in (("A", a), ("B", b)):
        if not verified(table):
            match.not_compared.append(NotCompared(
                SECTION, "", f"the checksums of {side} do not verify: member digests are not "
                "compared (see its findings)"))
            return match
    da, db = digests(a), digests(b)
    match.same = frozenset(n for n, d in da.items() if d is not None and db.get(n) == d)
    for name in list(da) + [n for n in db if n not in da]:
        x, y = da.get(name), db.get(name)
        if x != y:
            kind = ADDED if name not in da else REMOVED if name not in db else CHANGED
            match.differences.append(Difference(SECTION, kind, name, x, y, content=False,
                                                detail={"by": VERIFIED}, note=_note(name)))
    return match


def _one_side(name: str, ra: dict[str, str | None], rb: dict[str, str | None],
              present_a: bool, present_b: bool, by: str) -> Difference | None:
    """The difference of a member present in one archive only, or None."""
    if present_a == present_b:
        return None
    return Difference(SECTION, REMOVED if present_a else ADDED, name,
                      ra.get(name) if present_a else None, rb.get(name) if present_b else None,
                      content=False, detail={"by": by}, note=_note(name))


def _in_both(names: list[str], ra: dict[str, str | None], rb: dict[str, str | None],
             ma: ArchiveMembers, mb: ArchiveMembers, by: str,
             match: MemberMatch,
             ) -> Iterator[tuple[str, StoredMember | None, StoredMember | None]]:
    """``(name, stored in A, stored in B)`` of each member both archives hold; a member
    one side lacks is added to ``match`` as a difference of that side."""
    pa, pb = set(ma.names), set(mb.names)
    for name in names:
        one = _one_side(name, ra, rb, name in pa, name in pb, by)
        if one is not None:
            match.differences.append(one)
        elif name in pa:
            yield name, ma.stored(name), mb.stored(name)


def _by_recorded(names: list[str], ra: dict[str, str | None], rb: dict[str, str | None],
                 ma: ArchiveMembers, mb: ArchiveMembers) -> MemberMatch:
    """``--digests-only``: recorded digests and ZIP metadata; no member byte read."""
    match, same, unread = MemberMatch(), set(), set()
    for name, sa, sb in _in_both(names, ra, rb, ma, mb, RECORDED, match):
        zip_same = (sa is not None and sb is not None
                    and (sa.crc, sa.file_size) == (sb.crc, sb.file_size))
        x, y = ra.get(name), rb.get(name)
        detail = {"by": RECORDED, "recorded": {"a": x, "b": y}}
        if name == CHECKSUMS or x is None or y is None:
            if zip_same:
                same.add(name)
            elif name == CHECKSUMS:
                match.differences.append(Difference(SECTION, CHANGED, name, content=False,
                                                    detail=detail, note=_note(name)))
            else:
                match.not_compared.append(NotCompared(
                    SECTION, name, "a checksum file does not list it, and its bytes are not "
                    "read (--digests-only)"))
        elif x == y and zip_same:
            same.add(name)
        elif x == y:
            match.differences.append(Difference(
                SECTION, CHANGED, name, x, y, detail=detail,
                note="the recorded digests are equal but the ZIP CRC-32 or size differ: one "
                "member does not match its recorded digest"))
        else:
            unread.add(name)
            match.differences.append(Difference(SECTION, CHANGED, name, x, y, content=False,
                                                detail=detail, note=_note(name)))
    match.same, match.unread = frozenset(same), frozenset(unread)
    return match


def _by_stored(names: list[str], ra: dict[str, str | None], rb: dict[str, str | None],
               ma: ArchiveMembers, mb: ArchiveMembers, jobs: int) -> MemberMatch:
    """By default: stored bytes compared first; members whose stored bytes differ are
    inflated and their SHA-256 compared."""
    match, same = MemberMatch(), set()
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="diff-members") as pool:
        for name, sa, sb in _in_both(names, ra, rb, ma, mb, STORED, match):
            if sa is None or sb is None:
                match.not_compared.append(NotCompared(
                    SECTION, name, f"the member of {'A' if sa is None else 'B'} failed a ZIP "
                    "safety check or occurs twice: it is not read"))
                continue
            try:
                diff = _stored_pair(sa, sb, ra.get(name), rb.get(name), pool, 2 * jobs)
            except OSError as exc:
                match.not_compared.append(NotCompared(SECTION, name, f"could not be read: "
                                                      f"{exc.strerror or exc}"))
                continue
            if isinstance(diff, str):
                match.not_compared.append(NotCompared(SECTION, name, diff))
            elif diff is None or diff.content:
                same.add(name)  # equal content (a checksum file may still be wrong)
                match.differences += [diff] if diff is not None else []
            else:
                match.differences.append(diff)
    match.same = frozenset(same)
    return match


def _stored_pair(sa: StoredMember, sb: StoredMember, x: str | None, y: str | None,
                 pool: ThreadPoolExecutor, width: int) -> Difference | str | None:
    """One member present in both archives: None when equal, a :class:`Difference`,
    or a sentence saying why it could not be compared.

    Raises:
        OSError: an archive cannot be read.
    """
    name = sa.name
    detail: dict[str, object] = {"by": STORED, "recorded": {"a": x, "b": y}}
    meta = (sa.method, sa.compressed_size, sa.file_size, sa.crc)
    if meta == (sb.method, sb.compressed_size, sb.file_size, sb.crc) and _stored_equal(
            sa, sb, pool, width):
        if name == CHECKSUMS or x == y:
            return None
        return Difference(SECTION, CHANGED, name, x, y, detail=detail,
                          note="the stored bytes are equal but the checksum files record "
                          "different digests: one of the checksum files is wrong")
    fa, fb = pool.submit(sa.content_digest), pool.submit(sb.content_digest)
    (ca, pa), (cb, pb) = fa.result(), fb.result()
    if pa is not None or pb is not None:
        return f"{'A' if pa is not None else 'B'}: {pa if pa is not None else pb}"
    detail["by"] = "content digests"
    if ca == cb:
        if name == CHECKSUMS or x == y:
            return None
        return Difference(SECTION, CHANGED, name, x, y, detail=detail,
                          note="the contents are equal but the checksum files record "
                          "different digests: one of the checksum files is wrong")
    return Difference(SECTION, CHANGED, name, ca, cb, content=False, detail=detail,
                      note=_content_note(name, ca, cb, x, y))


def _content_note(name: str, ca: str, cb: str, x: str | None, y: str | None) -> str:
    """Says which member does not match the digest its checksum file records."""
    wrong = [s for s, c, r in (("A", ca, x), ("B", cb, y)) if r is not None and c != r]
    if wrong and name != CHECKSUMS:
        return (f"the content of {' and '.join(wrong)} does not match the digest its "
                "checksum file records")
    return _note(name)


def _stored_equal(sa: StoredMember, sb: StoredMember, pool: ThreadPoolExecutor,
                  width: int) -> bool:
    """True when the stored bytes of two members of the same stored size are equal
    (compared in ranges on ``pool``, at most ``width`` ranges in flight; stops at the
    first differing range).

    Raises:
        OSError: an archive cannot be read.
    """
    pending: set[Future[bool]] = set()
    try:
        for offset in range(0, sa.compressed_size, RANGE_BYTES):
            pending.add(pool.submit(_range_equal, sa, sb, offset))
            if len(pending) >= width:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                if not all(f.result() for f in done):
                    return False
        return all(f.result() for f in pending)
    finally:
        for f in pending:
            f.cancel()


def _range_equal(sa: StoredMember, sb: StoredMember, offset: int) -> bool:
    return sa.read_stored(offset, RANGE_BYTES) == sb.read_stored(offset, RANGE_BYTES)
