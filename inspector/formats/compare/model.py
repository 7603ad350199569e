"""The difference model of ``inspector diff`` and its JSON form (docs/diff.md).

A comparison produces :class:`Difference` objects, each in one
:data:`SECTIONS` section, and :class:`NotCompared` notes for what could not be
compared (and is therefore never called equal).  A difference is either of
*content* (the data differ: a value, a row, a scan, a stimulus) or of
*representation* (``content=False``: the schema version, the writer, chunking
and compression, archive member bytes, import and export records): the
verdict :attr:`DiffReport.equal` goes by content alone.

Nothing here imports Qt or numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Version of the JSON object ``inspector diff --json`` prints (docs/diff.md).
DIFF_SCHEMA = 2

#: The sections of a report, in the order they are compared and listed.
SECTIONS: tuple[str, ...] = (
    "format", "header", "trials", "stimuli", "scans", "arrays", "members", "objects",
    "provenance",
)

#: Kinds of difference (``Difference.kind``).
CHANGED = "changed"
ADDED = "added"
REMOVED = "removed"
VALUES = "values"
SHAPE = "shape"
DTYPE = "dtype"
STORAGE = "storage"
KIND = "kind"


@dataclass(frozen=True)
class DiffOptions:
    """How values are compared.

    Attributes:
        rtol, atol: values ``a`` (first file) and ``b`` are equal when
            ``|a - b| <= atol + rtol * |b|`` (``numpy.isclose``; NaN equals NaN).
            Both 0 by default: equal values.
        exact: compare stored values bit for bit (NaN payloads, ``-0.0`` and
            ``0.0`` differ); the tolerance is then unused.
        first: stop at the first content difference found.
        jobs: threads reading and comparing array chunks (0: the number of CPUs).
        verify: verify both archives' member digests before comparing (else two
            archives' members are compared by their stored bytes, unverified).
        digests_only: compare two archives' members by their recorded digests and
            ZIP metadata alone, reading no member bytes.
    """

    rtol: float = 0.0
    atol: float = 0.0
    exact: bool = False
    first: bool = False
    jobs: int = 0
    verify: bool = False
    digests_only: bool = False

    def to_json(self) -> dict[str, Any]:
        """The ``options`` object of the JSON report."""
        return {"rtol": self.rtol, "atol": self.atol, "exact": self.exact,
                "first": self.first, "verify": self.verify,
                "digests_only": self.digests_only}


@dataclass(frozen=True)
class Difference:
    """One thing that differs between document A and document B.

    Attributes:
        section: one of :data:`SECTIONS`.
        kind: ``changed``, ``added`` (only in B), ``removed`` (only in A),
            ``values`` (array values), ``shape``, ``dtype``, ``storage`` (chunks,
            compression), ``kind`` (an object of another kind).
        path: where, in the section's terms (``neuro_info.sfreq``,
            ``trial_meta[3].rt``, ``scan_002.signal``, ``arrays/neuro``).
        a, b: the JSON-ready value in A and in B (None when absent or not shown).
        content: False for a difference of representation only (see the module notes).
        detail: further JSON-ready facts (the counts and extremes of array values).
        note: one sentence saying what the difference is, when a value pair does not.
    """

    section: str
    kind: str
    path: str
    a: Any = None
    b: Any = None
    content: bool = True
    detail: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """The JSON object of one difference (docs/diff.md, "differences")."""
        out: dict[str, Any] = {"section": self.section, "kind": self.kind, "path": self.path,
                               "content": self.content, "a": self.a, "b": self.b}
        if self.detail:
            out["detail"] = self.detail
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class NotCompared:
    """A part that could not be compared, and why (never reported equal)."""

    section: str
    path: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"section": self.section, "path": self.path, "reason": self.reason}


@dataclass
class Side:
    """What the report says of one document: its path, format and findings."""

    path: str
    format: str
    kind: str
    ok: bool
    findings: list[dict[str, str]]
    verified: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "format": self.format, "kind": self.kind, "ok": self.ok,
                "verified": self.verified, "findings": self.findings}


@dataclass
class DiffReport:
    """The outcome of comparing document A with document B.

    Attributes:
        a, b: the two documents' paths, formats and findings.
        options: how values were compared.
        differences: in :data:`SECTIONS` order, then in the order found.
        not_compared: what could not be compared.
        stopped: True when ``--first`` stopped the comparison at a difference.
        not_checked: sentences naming the checks not made (``"member digests not
            verified; use --verify"``); what was compared is still compared.
    """

    a: Side
    b: Side
    options: DiffOptions
    differences: list[Difference] = field(default_factory=list)
    not_compared: list[NotCompared] = field(default_factory=list)
    stopped: bool = False
    not_checked: list[str] = field(default_factory=list)

    @property
    def content_differences(self) -> list[Difference]:
        return [d for d in self.differences if d.content]

    @property
    def equal(self) -> bool:
        """True when every part was compared and no content differs (within tolerance)."""
        return not self.content_differences and not self.not_compared and not self.stopped

    @property
    def identical(self) -> bool:
        """True when nothing differs at all, representation included."""
        return self.equal and not self.differences

    @property
    def complete(self) -> bool:
        """True when every part was compared (no ``--first`` stop, nothing left out)."""
        return not self.not_compared and not self.stopped

    def counts(self) -> dict[str, dict[str, int]]:
        """Per section: content differences, representation differences."""
        out: dict[str, dict[str, int]] = {}
        for d in self.differences:
            c = out.setdefault(d.section, {"content": 0, "representation": 0})
            c["content" if d.content else "representation"] += 1
        return {s: out[s] for s in SECTIONS if s in out}

    def to_json(self) -> dict[str, Any]:
        """The ``inspector diff --json`` object (docs/diff.md)."""
        return {
            "diff_schema": DIFF_SCHEMA,
            "a": self.a.to_json(), "b": self.b.to_json(),
            "options": self.options.to_json(),
            "equal": self.equal, "identical": self.identical, "complete": self.complete,
            "counts": self.counts(),
            "differences": [d.to_json() for d in self.differences],
            "not_compared": [n.to_json() for n in self.not_compared],
            "not_checked": list(self.not_checked),
        }


class FirstFound(Exception):
    """Raised inside a comparison run with ``first`` set, once a content difference is
    recorded: the engine stops there."""


class Collector:
    """Where comparers put what they find, in order; stops at the first content
    difference when ``options.first`` is set (raises :class:`FirstFound`)."""

    def __init__(self, options: DiffOptions) -> None:
        self.options = options
        self.differences: list[Difference] = []
        self.not_compared: list[NotCompared] = []

    def add(self, diff: Difference) -> None:
        """Record ``diff``.

        Raises:
            FirstFound: ``diff`` is a content difference and ``options.first`` is set.
        """
        self.differences.append(diff)
        if diff.content and self.options.first:
            raise FirstFound()

    def skip(self, section: str, path: str, reason: str) -> None:
        """Record that ``path`` of ``section`` could not be compared, and why."""
        self.not_compared.append(NotCompared(section, path, reason))
