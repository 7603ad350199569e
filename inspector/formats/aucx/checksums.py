"""Parse and write ``checksums.sha256`` (seed "Checksums").

Line format: ``<64 lowercase hex digits><two spaces><member name>``, one per
member except the checksum file itself, sorted by member name, each line
ending in ``\\n`` (AUCX on-disk notes §1).  Parsing never stops at the first bad
line: every line is classified, so each problem can become its own finding
located at the member it concerns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CHECKSUM_MEMBER = "checksums.sha256"
#: Lines classified at most: an AUCX archive has 6 checksummed members; a
#: file with more lines gets ``checksums.too-many-lines`` and the rest is
#: not read (bounded time and memory).
MAX_LINES = 10_000
_HEX = re.compile(r"[0-9a-fA-F]+")
_LOWER64 = re.compile(r"[0-9a-f]{64}")


@dataclass
class ChecksumLine:
    """One non-blank line of ``checksums.sha256``.

    Attributes:
        number: 1-based line number.
        text: the line without its end-of-line.
        name: the member it names (recovered leniently for a malformed line
            when possible, else None).
        digest: the recorded digest, lower-cased when it is 64 hex digits,
            else None.
        problem: ``(code, message)`` when the line breaks the format, else None.
            Codes: ``checksums.malformed-line`` (separator),
            ``checksums.digest-length`` (not 64 hex digits),
            ``checksums.digest-not-lowercase`` (upper-case hex: the seed
            requires lowercase), ``checksums.duplicate-entry``.
    """

    number: int
    text: str
    name: str | None
    digest: str | None
    problem: tuple[str, str] | None = None


@dataclass
class ChecksumFile:
    """All lines of a checksum file; ``problem`` for whole-file failures."""

    lines: list[ChecksumLine] = field(default_factory=list)
    problem: tuple[str, str] | None = None

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
    ``<digest>  <name>`` with a 64-digit lowercase hex digest is well-formed; anything else gets a problem (see
    :class:`ChecksumLine`).  A second line naming the same member gets
    ``checksums.duplicate-entry``.
    """
    result = ChecksumFile()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        result.problem = ("checksums.not-utf8", f"{CHECKSUM_MEMBER} is not UTF-8 text: {exc}")
        return result
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(result.lines) >= MAX_LINES:
            result.problem = (
                "checksums.too-many-lines",
                f"{CHECKSUM_MEMBER} has more than {MAX_LINES} lines; only the first "
                f"{MAX_LINES} are read (an AUCX archive checksums 6 members), so members "
                "listed after line " + str(number - 1) + " are not verified")
            break
        digest, sep, name = line.partition("  ")
        entry = ChecksumLine(number, line, None, None)
        if not sep or not name.strip():
            parts = line.split(None, 1)
            if len(parts) == 2:
                entry.name = parts[1]
            entry.problem = (
                "checksums.malformed-line",
                f"{CHECKSUM_MEMBER} line {number} is malformed: expected "
                f"'<64-hex digest>  <member name>' (two spaces), got {_clip(line)} (AUCX 1.0 format, 'Checksums')")
        else:
            entry.name = name
            digest = digest.strip()
            if len(digest) != 64 or not _HEX.fullmatch(digest):
                entry.problem = (
                    "checksums.digest-length",
                    f"{CHECKSUM_MEMBER} line {number} does not carry a 64-digit hexadecimal "
                    f"SHA-256 digest ({len(digest)} characters: {_clip(digest)}) (AUCX 1.0 format, 'Checksums')")
            else:
                entry.digest = digest.lower()
                if not _LOWER64.fullmatch(digest):
                    entry.problem = (
                        "checksums.digest-not-lowercase",
                        f"{CHECKSUM_MEMBER} line {number} writes its digest in upper-case hex; "
                        "the seed's line format is '<64 lowercase hex digits>  <name>' "
                        "(AUCX 1.0 format, 'Checksums')")
        if entry.name is not None:
            if entry.name in seen and entry.problem is None:
                entry.problem = (
                    "checksums.duplicate-entry",
                    f"{CHECKSUM_MEMBER} line {number} lists {entry.name!r} again; repeated "
                    "member names are rejected (AUCX 1.0 format, 'Checksums')")
            seen.add(entry.name)
        result.lines.append(entry)
    if not result.lines:
        result.problem = ("checksums.empty", f"{CHECKSUM_MEMBER} lists no members")
    return result


def _clip(text: str) -> str:
    """``repr(text)``, shortened to about 100 characters for a message."""
    shown = repr(text)
    return shown if len(shown) <= 100 else shown[:97] + "..."


def checksum_document(digests: dict[str, str]) -> bytes:
    """``<digest>  <name>\\n`` lines sorted by name (AUCX on-disk notes §1)."""
    return "".join(f"{d}  {n}\n" for n, d in sorted(digests.items())).encode("utf-8")
