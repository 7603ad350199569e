"""Keep the findings list readable for archives with thousands of members.

An AUCX archive has 7 members; a hostile one can have 100 000, each of which
would otherwise produce its own finding for the same rule (unlisted member,
checksum mismatch, ...).  :func:`cap_repeated` keeps the first
:data:`MAX_PER_CODE` findings of each code and replaces the rest by one
finding saying how many were left out.  Per-member statuses
(``doc.members``) are not affected.
"""

from __future__ import annotations

from inspector.formats.document import Finding

#: Findings kept per code; the rest are counted in one summary finding.
MAX_PER_CODE = 100


def cap_repeated(findings: list[Finding], start: int = 0,
                 limit: int = MAX_PER_CODE) -> list[Finding]:
    """``findings`` with those from index ``start`` on capped per code.

    Order is kept; for each code with more than ``limit`` findings after
    ``start``, the first ``limit`` stay and one finding (same severity and
    code, location ``""``) stating the number left out follows the last kept
    one.  Linear in ``len(findings)``; returns the list unchanged (same
    object) when nothing is capped.
    """
    counts: dict[str, int] = {}
    for f in findings[start:]:
        counts[f.code] = counts.get(f.code, 0) + 1
    if all(n <= limit for n in counts.values()):
        return findings
    out = findings[:start]
    seen: dict[str, int] = {}
    for f in findings[start:]:
        n = seen.get(f.code, 0) + 1
        seen[f.code] = n
        if n <= limit:
            out.append(f)
        if n == limit and counts[f.code] > limit:
            out.append(Finding(
                f.severity, f.code,
                f"... and {counts[f.code] - limit} more {f.code!r} finding(s) like the "
                f"above, at other members (only the first {limit} are listed; the member "
                "table shows every member's status)", ""))
    return out
