"""Parse and write ``checksums.sha256`` (AUCX 1.0 format document, "Checksums").

Line format: ``<64 lowercase hex digits><two spaces><member name>``, one per
member except the checksum file itself, sorted by member name, each line
ending in ``\\n`` (AUCX on-disk notes §1).  Parsing never stops at the first bad
line: every line is classified, so each problem can become its own finding
located at the member it concerns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from inspector.formats.aucx import rules as R
from inspector.formats.findings import Finding

CHECKSUM_MEMBER = "checksums.sha256"
#: Lines classified at most: an AUCX archive has 6 checksummed members; a
#: file with more lines gets ``checksums.too-many-lines`` and the rest is
#: not read (bounded time and memory).
MAX_LINES = 10_000
_HEX = re.compile(r"[0-9a-fA-F]+")
_LOWER64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class ChecksumLine:
    """One non-blank line of ``checksums.sha256``.

    Attributes:
        number: 1-based line number.
        text: the line without its end-of-line.
        name: the member it names (recovered leniently for a malformed line
            when possible, else None).
        digest: the recorded digest, lower-cased when it is 64 hex digits,
            else None.
        problem: the finding when the line breaks the format, else None; it is
            located at the member the line names (at ``checksums.sha256`` when
            no name could be recovered).  Rules: ``checksums.malformed-line``
            (separator), ``checksums.digest-length`` (not 64 hex digits),
            ``checksums.digest-not-lowercase`` (upper-case hex: the line
            format asks for lowercase), ``checksums.duplicate-entry``.
    """

    number: int
    text: str
    name: str | None
    digest: str | None
    problem: Finding | None = None

    @property
    def recorded(self) -> str:
        """What the line records as the digest (its first word when malformed)."""
        return self.digest if self.digest else self.text.split(None, 1)[0]


@dataclass(frozen=True)
class ChecksumFile:
    """All lines of a checksum file; ``problem`` for whole-file failures
    (a finding at ``checksums.sha256``)."""

    lines: tuple[ChecksumLine, ...] = ()
    problem: Finding | None = None

    def entries(self) -> dict[str, ChecksumLine]:
        """First line per member name (lines whose name could be recovered)."""
        out: dict[str, ChecksumLine] = {}
        for line in self.lines:
            if line.name is not None:
                out.setdefault(line.name, line)
        return out


def parse_checksums(raw: bytes) -> ChecksumFile:
    """Classify every line of a ``checksums.sha256`` member.

    Never raises.  At most :data:`MAX_LINES` non-blank lines are classified
    (then ``problem`` is ``checksums.too-many-lines``).  A line
    ``<digest>  <name>`` with a 64-digit lowercase hex digest is
    well-formed; anything else gets a problem (see :class:`ChecksumLine`).
    A second line naming the same member gets ``checksums.duplicate-entry``.
    Rules: AUCX 1.0 format document, "Checksums".
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ChecksumFile(problem=R.CHECKSUMS_NOT_UTF8.finding(
            f"{CHECKSUM_MEMBER} is not UTF-8 text: {exc}", CHECKSUM_MEMBER))
    lines: list[ChecksumLine] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(lines) >= MAX_LINES:
            return ChecksumFile(tuple(lines), R.CHECKSUMS_TOO_MANY_LINES.finding(
                f"{CHECKSUM_MEMBER} has more than {MAX_LINES} lines; only the first "
                f"{MAX_LINES} are read (an AUCX archive checksums 6 members), so members "
                f"listed after line {number - 1} are not verified", CHECKSUM_MEMBER))
        entry = _classify(number, line)
        name = entry.name
        if name is not None:
            if name in seen and entry.problem is None:
                entry = replace(entry, problem=R.CHECKSUMS_DUPLICATE_ENTRY.finding(
                    f"{CHECKSUM_MEMBER} line {number} lists {name!r} again; repeated "
                    "member names are rejected", name))
            seen.add(name)
        lines.append(entry)
    if not lines:
        return ChecksumFile((), R.CHECKSUMS_EMPTY.finding(
            f"{CHECKSUM_MEMBER} lists no members", CHECKSUM_MEMBER))
    return ChecksumFile(tuple(lines))


def _classify(number: int, line: str) -> ChecksumLine:
    """One line on its own: its name, digest and format problem."""
    digest, sep, name = line.partition("  ")
    if not sep or not name.strip():
        parts = line.split(None, 1)
        named = parts[1] if len(parts) == 2 else None
        return ChecksumLine(number, line, named, None, R.CHECKSUMS_MALFORMED_LINE.finding(
            f"{CHECKSUM_MEMBER} line {number} is malformed: expected '<64-hex digest>  "
            f"<member name>' (two spaces), got {_clip(line)}", named or CHECKSUM_MEMBER))
    digest = digest.strip()
    if len(digest) != 64 or not _HEX.fullmatch(digest):
        return ChecksumLine(number, line, name, None, R.CHECKSUMS_DIGEST_LENGTH.finding(
            f"{CHECKSUM_MEMBER} line {number} does not carry a 64-digit hexadecimal SHA-256 "
            f"digest ({len(digest)} characters: {_clip(digest)})", name))
    problem = None
    if not _LOWER64.fullmatch(digest):
        problem = R.CHECKSUMS_DIGEST_NOT_LOWERCASE.finding(
            f"{CHECKSUM_MEMBER} line {number} writes its digest in upper-case hex; the line "
            "format is '<64 lowercase hex digits>  <name>'", name)
    return ChecksumLine(number, line, name, digest.lower(), problem)


def _clip(text: str) -> str:
    """``repr(text)``, shortened to about 100 characters for a message."""
    shown = repr(text)
    return shown if len(shown) <= 100 else shown[:97] + "..."


def checksum_document(digests: dict[str, str]) -> bytes:
    """``<digest>  <name>\\n`` lines sorted by name (AUCX on-disk notes §1)."""
    return "".join(f"{d}  {n}\n" for n, d in sorted(digests.items())).encode("utf-8")
