"""Keep ``inspector verify --json`` lines short whatever a file holds.

A text a file stores (a version string, a stimulus ID, an attribute) can be as long
as the variable-length value limit allows; a report quotes such texts in its
summary and findings.  :func:`bounded` shortens every text of a JSON-ready object
to :data:`MAX_REPORT_TEXT` characters, saying how long it was, so one report line
stays far under 2 MB.  Nothing here imports Qt.
"""

from __future__ import annotations

from typing import Any

#: Characters of one text kept in a report (the rest is counted, not listed).
MAX_REPORT_TEXT = 4096
#: Nesting followed; deeper values are kept as they are.
_MAX_DEPTH = 64


def short_text(text: str, limit: int = MAX_REPORT_TEXT) -> str:
    """``text``, or its first ``limit`` characters and how many it holds in all."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters in all; the first {limit:,} shown)"


def bounded(obj: Any, _depth: int = 0) -> Any:
    """A copy of the JSON-ready ``obj`` (dicts, lists, tuples, scalars) whose texts,
    keys included, are shortened with :func:`short_text`; the same object when
    nothing needed it."""
    if isinstance(obj, str):
        return short_text(obj)
    if _depth > _MAX_DEPTH:
        return obj
    if isinstance(obj, dict):
        return {short_text(k) if isinstance(k, str) else k: bounded(v, _depth + 1)
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [bounded(v, _depth + 1) for v in obj]
    return obj
