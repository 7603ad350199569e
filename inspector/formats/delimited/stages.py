"""The findings of one import, stage by stage.

The import runs in stages (:mod:`.loader`); each stage reports every problem it
finds, and a stage that found an error ends the import at its
:meth:`Stages.checkpoint`.  Findings go to the shared
:class:`~inspector.formats.findings.Findings` collector with the severity of
their :class:`~inspector.formats.findings.Rule` (:mod:`.rules`).  At most
:data:`MAX_ERRORS_PER_STAGE` errors of one stage are listed one by one; the
rest are counted in one ``source.more-errors`` finding at the checkpoint.
"""

from __future__ import annotations

from inspector.formats.delimited.errors import DelimitedError, SourceParseError
from inspector.formats.delimited.rules import SOURCE_MORE_ERRORS, error_class
from inspector.formats.findings import Findings, Rule, Severity

#: At most this many errors of one stage are reported one by one.
MAX_ERRORS_PER_STAGE = 50


class Abort(Exception):
    """Internal: a stage found errors, later stages cannot run."""


class Stages:
    """The findings of one import and the first rule it broke.

    Attributes:
        findings: the shared collector (it becomes the document's).
        first_error: the rule of the first error reported, or None.
    """

    def __init__(self, findings: Findings | None = None) -> None:
        self.findings = findings if findings is not None else Findings()
        self.first_error: Rule | None = None
        self._stage_errors = 0
        self._suppressed = 0

    def report(self, rule: Rule, message: str, location: str = "") -> None:
        """Record a finding of ``rule`` (errors beyond the stage limit are only counted)."""
        if rule.severity is Severity.ERROR:
            if self.first_error is None:
                self.first_error = rule
            self._stage_errors += 1
            if self._stage_errors > MAX_ERRORS_PER_STAGE:
                self._suppressed += 1
                return
        self.findings.report(rule, message, location)

    def count_more(self, rule: Rule, n: int) -> None:
        """Count ``n`` further errors of ``rule`` not listed one by one (found in bulk;
        they join the stage's ``source.more-errors`` count)."""
        if n <= 0:
            return
        if self.first_error is None:
            self.first_error = rule
        self._stage_errors += n
        self._suppressed += n

    @property
    def has_errors(self) -> bool:
        """True once any error was reported."""
        return self.first_error is not None

    def checkpoint(self) -> None:
        """End a stage: count the errors not listed; raise :class:`Abort` after any error."""
        if self._suppressed:
            self.findings.report(SOURCE_MORE_ERRORS,
                                 f"{self._suppressed} further error(s) of the same stage "
                                 "not listed")
            self._suppressed = 0
        self._stage_errors = 0
        if self.has_errors:
            raise Abort()

    def exception(self) -> DelimitedError:
        """The :class:`DelimitedError` subclass of the first error, carrying every finding."""
        cls = error_class(self.first_error) if self.first_error is not None else SourceParseError
        errors = [f for f in self.findings if f.severity is Severity.ERROR]
        message = errors[0].message if errors else "the source was rejected"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more error(s))"
        return cls(message, self.findings)
