"""The members section: two archives, member by member, by digest.

Both archives' checksum tables (``Document.checksums``) are filled by their
verification, which streams every member through SHA-256 once; here only the
digests are compared, so no member is read again.  Members are compared only
when both tables verified (every row ``ok``): a digest that did not verify says
nothing about the bytes.  Member bytes are representation (``content=False``):
what they hold is compared by the other sections, which skip the arrays whose
members carry the same digest on both sides (:func:`same_members`).  The
manifest and provenance members hold the export record: their digests differ
between two exports of one experiment.  Nothing here imports Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.formats.compare.model import ADDED, CHANGED, REMOVED, Collector, Difference

if TYPE_CHECKING:
    from inspector.formats.capabilities import ChecksumTable

SECTION = "members"
#: Members whose bytes change with every export (they hold the export record).
EXPORT_RECORD_MEMBERS = frozenset({"manifest.json", "provenance.json", "checksums.sha256"})


def verified(table: ChecksumTable | None) -> bool:
    """True when ``table`` verified and every member's digest matched."""
    return (table is not None and table.verified and bool(table.members)
            and all(m.status == "ok" for m in table.members))


def digests(table: ChecksumTable) -> dict[str, str | None]:
    """Member name -> its computed SHA-256 (the list's own digest for ``checksums.sha256``)."""
    return {m.name: m.computed or m.recorded for m in table.members}


def same_members(a: ChecksumTable | None, b: ChecksumTable | None) -> frozenset[str]:
    """Names of the members with the same verified digest in both archives."""
    if not (verified(a) and verified(b)):
        return frozenset()
    assert a is not None and b is not None
    da, db = digests(a), digests(b)
    return frozenset(n for n, d in da.items() if d is not None and db.get(n) == d)


def compare_members(out: Collector, a: ChecksumTable | None, b: ChecksumTable | None) -> None:
    """Compare two archives' members by digest (nothing unless both are archives)."""
    if a is None or b is None:  # not two archives: their contents are compared elsewhere
        return
    for side, table in (("A", a), ("B", b)):
        if not verified(table):
            out.skip(SECTION, "", f"the checksums of {side} do not verify: member digests "
                     "are not compared (see its findings)")
            return
    da, db = digests(a), digests(b)
    for name in list(da) + [n for n in db if n not in da]:
        x, y = da.get(name), db.get(name)
        if x == y:
            continue
        kind = ADDED if x is None else REMOVED if y is None else CHANGED
        note = ("export record (differs between exports)" if name in EXPORT_RECORD_MEMBERS
                else "")
        out.add(Difference(SECTION, kind, name, x, y, content=False, note=note))
