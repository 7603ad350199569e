"""Findings: the rules a file can break, and the one collector every reader uses.

A :class:`Rule` is declared once, in the ``rules.py`` of the format package
that checks it, with its code, severity, a sentence in our own words and the
source of the rule (a seed document, a spec section, a reference library's
documentation).  Every rule is listed in :data:`RULES`, from which
``docs/findings.md`` is generated (``python -m inspector.formats.rulebook``).

A reader reports a broken rule with :meth:`Findings.report`: the severity,
code, rule source and scope come from the rule, the message and the location
from the place where the rule was checked.  Messages never name the file: the
GUI has a File column, and the text report prefixes the file name in one place
(:func:`with_file`).  Repeated findings of one code are capped in one place,
the collector (:data:`MAX_PER_CODE`).

Nothing here imports Qt (docs/architecture.md, "Layers").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import overload


class Severity(StrEnum):
    """How bad a finding is, most severe first in :data:`SEVERITIES`."""

    ERROR = "error"
    """The file breaks a rule; a document with an error is not ok."""
    WARNING = "warning"
    """Readable, but suspicious or outside what the format document promises."""
    INFO = "info"
    """A remark (a historical schema, an inferred mode)."""


#: Severities, most severe first.
SEVERITIES: tuple[Severity, ...] = (Severity.ERROR, Severity.WARNING, Severity.INFO)


class Scope(StrEnum):
    """Which question a finding answers (AUCX format document, "Validation").

    ``integrity``: is the container readable, safe and self-consistent (for a
    recording: does it follow the recording format).  ``structure`` and
    ``validation``: is the experiment inside consistent.
    """

    INTEGRITY = "integrity"
    STRUCTURE = "structure"
    VALIDATION = "validation"


@dataclass(frozen=True)
class Finding:
    """One problem or remark about a file.

    Attributes:
        severity: see :class:`Severity`.
        code: short stable identifier of the rule, e.g. ``"header.partial"``.
        message: one sentence saying what is wrong here; never the file name.
        location: where in the file: an HDF5 path (``"/neuro"``, ``"/g@attr"``),
            an archive member (``"arrays/mask.npy"``) or ``"file:line"`` for
            text sources; ``""`` for the file as a whole.
        rule: the source of the rule (``Rule.source``); ``""`` only for
            findings made outside a rule catalogue (tests).
        scope: see :class:`Scope`.
    """

    severity: Severity
    code: str
    message: str
    location: str = ""
    rule: str = ""
    scope: Scope = Scope.INTEGRITY

    def __post_init__(self) -> None:
        # Accept plain strings from callers and keep the enum types.
        object.__setattr__(self, "severity", Severity(self.severity))
        object.__setattr__(self, "scope", Scope(self.scope))

    def to_json(self) -> dict[str, str]:
        """The ``verify --json`` form: severity, code, message, location, rule, scope."""
        return {
            "severity": str(self.severity),
            "code": self.code,
            "message": self.message,
            "location": self.location,
            "rule": self.rule,
            "scope": str(self.scope),
        }


@dataclass(frozen=True)
class Rule:
    """A rule a file can break, declared once with its severity and source.

    Attributes:
        code: the finding code (unique across all formats).
        severity: the severity of every finding of this rule.
        summary: the rule in our own words (for ``docs/findings.md``).
        source: where the rule comes from, e.g.
            ``"AUCX 1.0 format document, 'Safety'"``.
        scope: see :class:`Scope`.
    """

    code: str
    severity: Severity
    summary: str
    source: str
    scope: Scope = Scope.INTEGRITY

    def finding(self, message: str, location: str = "") -> Finding:
        """A :class:`Finding` of this rule at ``location``."""
        return Finding(self.severity, self.code, message, location, self.source, self.scope)


#: Every declared rule by code, in declaration order.
RULES: dict[str, Rule] = {}


def rule(code: str, severity: Severity, summary: str, source: str,
         scope: Scope = Scope.INTEGRITY) -> Rule:
    """Declare a rule and list it in :data:`RULES`.

    Raises:
        ValueError: ``code`` was declared before with another definition.
    """
    new = Rule(code, Severity(severity), summary, source, Scope(scope))
    old = RULES.get(code)
    if old is not None and old != new:
        raise ValueError(f"finding code {code!r} declared twice with different definitions")
    RULES[code] = new
    return new


#: Findings kept per code by a collector; the rest are counted in one note.
MAX_PER_CODE = 100


class Findings:
    """The ordered findings of one document, capped per code.

    Iterating yields the findings in discovery order.  For a code reported
    more than ``limit`` times, the first ``limit`` findings are kept and one
    note of the same code and severity follows the last kept one, saying how
    many were left out.  Not thread-safe: only the thread that owns the
    document adds to it (docs/architecture.md, "Deferred work").
    """

    def __init__(self, findings: Iterable[Finding] = (), *, limit: int = MAX_PER_CODE) -> None:
        self._limit = limit
        self._kept: list[Finding] = []
        self._counts: dict[str, int] = {}
        self._note_after: dict[str, Finding] = {}
        self.extend(findings)

    # -- adding ------------------------------------------------------------
    def report(self, rule: Rule, message: str, location: str = "") -> Finding:
        """Record a finding of ``rule`` at ``location`` and return it."""
        finding = rule.finding(message, location)
        self.add(finding)
        return finding

    def add(self, finding: Finding) -> None:
        """Record an already made finding (for instance from a check result)."""
        n = self._counts.get(finding.code, 0) + 1
        self._counts[finding.code] = n
        if n <= self._limit:
            self._kept.append(finding)
            if n == self._limit:
                self._note_after[finding.code] = finding

    def extend(self, findings: Iterable[Finding]) -> None:
        """Record several findings in order."""
        for finding in findings:
            self.add(finding)

    def withdraw(self, findings: Iterable[Finding]) -> None:
        """Remove these findings (the very objects) and recount the caps.

        Used when a deferred check runs again: its earlier findings are
        replaced by those of the new run.
        """
        gone = {id(f) for f in findings}
        if not gone:
            return
        kept = [f for f in self._kept if id(f) not in gone]
        counts = dict(self._counts)
        for f in self._kept:
            if id(f) in gone:
                counts[f.code] -= 1
        self._kept, self._note_after = [], {}
        self._counts = {}
        for f in kept:
            self.add(f)
        for code, n in counts.items():  # findings counted beyond the cap stay counted
            self._counts[code] = max(self._counts.get(code, 0), n)

    # -- reading -----------------------------------------------------------
    def _notes(self) -> dict[int, Finding]:
        """Cap notes keyed by the id of the kept finding they follow."""
        notes: dict[int, Finding] = {}
        for code, last in self._note_after.items():
            left_out = self._counts[code] - self._limit
            if left_out > 0:
                notes[id(last)] = Finding(
                    last.severity, code,
                    f"... and {left_out} more {code!r} finding(s) like the above "
                    f"(only the first {self._limit} are listed)", "", last.rule, last.scope)
        return notes

    def __iter__(self) -> Iterator[Finding]:
        notes = self._notes()
        for finding in self._kept:
            yield finding
            note = notes.get(id(finding))
            if note is not None:
                yield note

    def as_list(self) -> list[Finding]:
        """The findings as a new list (what :meth:`__iter__` yields)."""
        return list(self)

    def __len__(self) -> int:
        return len(self._kept) + len(self._notes())

    def __bool__(self) -> bool:
        return bool(self._kept)

    @overload
    def __getitem__(self, index: int) -> Finding: ...
    @overload
    def __getitem__(self, index: slice) -> list[Finding]: ...
    def __getitem__(self, index: int | slice) -> Finding | list[Finding]:
        return self.as_list()[index]

    def count(self, code: str) -> int:
        """How many findings of ``code`` were reported (capped ones included)."""
        return self._counts.get(code, 0)

    @property
    def has_errors(self) -> bool:
        """True when any error finding was reported."""
        return any(f.severity is Severity.ERROR for f in self._kept)

    def has_errors_in(self, *scopes: Scope) -> bool:
        """True when an error finding of one of ``scopes`` was reported."""
        return any(f.severity is Severity.ERROR and f.scope in scopes for f in self._kept)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Findings):
            return self.as_list() == other.as_list()
        if isinstance(other, list | tuple):
            return self.as_list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Findings({self.as_list()!r})"


# A Python object's default repr ("<_io.BytesIO object at 0x7f...>"), which some libraries
# put in their messages (Pillow: "cannot identify image file <_io.BytesIO object at ...>"):
# it names nothing the user can find, and differs from run to run.
_OBJECT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-fA-F]+>")


def cause(exc: BaseException) -> str:
    """Why a library call failed, in that library's words, for a finding's message.

    The text of ``exc`` without Python's exception class name (a user reads
    "Unable to synchronously open object (bad object header version number)",
    not "OSError: ..."); a ``KeyError``'s key unquoted; an object's default
    repr (``<_io.BytesIO object at 0x...>``) left out; a plain phrase when
    the library gave no text.  Reader bugs keep the class name
    (``internal.reader-failed``, docs/architecture.md "Contracts").
    """
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    text = " ".join(_OBJECT_REPR.sub("", text).split())
    return text or "no reason was given"


def with_file(name: str, finding: Finding) -> str:
    """The text-report line of ``finding`` in file ``name``: the one place the
    file name is added to a message."""
    where = f" [{printable(finding.location)}]" if finding.location else ""
    return f"{name}: {finding.message}{where}"


#: Control characters (C0 and DEL) as ``\xNN``: a location naming a hostile member or
#: node prints on one terminal line without driving the terminal.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)}


def printable(text: str) -> str:
    """``text`` with its control characters written as ``\\xNN`` escapes (for text reports)."""
    return text.translate(_CONTROLS)
