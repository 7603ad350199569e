"""The rules of findings the window itself makes (no Qt here).

Most findings come from the readers.  The window adds a few that only it
can see: a stimulus image that fails to decode when its thumbnail is drawn,
and a deferred check or an open job that raised (a bug in Inspector).  A
format package that declares one of these codes itself keeps its own
declaration (one code = one rule, :mod:`inspector.formats.findings`).
"""

from __future__ import annotations

from inspector.formats.findings import RULES, Rule, Severity, rule
from inspector.formats.registry import readers

_SOURCE = "Inspector's window contract (docs/architecture.md, 'Deferred work')"


def _declared(code: str, severity: Severity, summary: str, source: str) -> Rule:
    readers()  # every format package has declared its rules before we look
    existing = RULES.get(code)
    return existing if existing is not None else rule(code, severity, summary, source)


STIMULUS_UNLOADABLE = _declared(
    "stimulus.unloadable", Severity.WARNING,
    "A stimulus image listed by the file cannot be decoded or found when it is shown.",
    "Inspector's stimulus contract (inspector/formats/capabilities.py, 'Stimulus.load')")
CHECK_FAILED = _declared(
    "internal.verify-failed", Severity.ERROR,
    "A deferred check raised an unexpected exception: a bug in Inspector, not a verdict "
    "on the file.", _SOURCE)
OPEN_FAILED = _declared(
    "internal.open-failed", Severity.ERROR,
    "The job opening the file raised an unexpected exception: a bug in Inspector.", _SOURCE)
