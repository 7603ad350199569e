"""The human-readable report of ``inspector diff`` (the JSON form is :meth:`DiffReport.to_json`).

Both documents' findings first, then only what differs, section by section:
``~`` changed, ``+`` only in B, ``-`` only in A, ``!=`` values; representation
differences are marked ``(representation)``.  Nothing here imports Qt.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.formats.compare.model import (
    ADDED,
    REMOVED,
    SECTIONS,
    Difference,
    DiffReport,
    Side,
)

#: Characters of one value shown in a line.
VALUE_CHARS = 80
_MARK = {ADDED: "+", REMOVED: "-"}


def render(report: DiffReport) -> str:
    """The text report."""
    lines = [f"A: {report.a.path} ({report.a.kind})", f"B: {report.b.path} ({report.b.kind})"]
    for label, s in (("A", report.a), ("B", report.b)):
        lines += _findings(label, s)
    for section in SECTIONS:
        diffs = [d for d in report.differences if d.section == section]
        if diffs:
            lines.append(f"{section}:")
            lines += [f"  {line(d)}" for d in diffs]
    if report.not_compared:
        lines.append("not compared:")
        lines += [f"  {n.section} {n.path or '(all)'}: {n.reason}" for n in report.not_compared]
    if report.not_checked:
        lines.append("not checked:")
        lines += [f"  {n}" for n in report.not_checked]
    lines.append(verdict(report))
    return "\n".join(lines)


def _findings(label: str, s: Side) -> list[str]:
    if not s.findings:
        return []
    out = [f"findings of {label}:"]
    for f in s.findings:
        where = f" [{f['location']}]" if f.get("location") else ""
        out.append(f"  {f['severity']:<7} {f['code']}: {f['message']}{where}")
    return out


def line(d: Difference) -> str:
    """One difference as one line."""
    mark = _MARK.get(d.kind, "!=" if d.kind == "values" else "~")
    text = f"{mark} {d.path}"
    if d.kind not in (ADDED, REMOVED, "values", "changed"):
        text += f" ({d.kind})"
    if d.kind == "values":
        text += ": " + _values(d.detail, d.note)
    elif d.a is not None or d.b is not None:
        if d.kind == ADDED:
            text += f": {_short(d.b)}"
        elif d.kind == REMOVED:
            text += f": {_short(d.a)}"
        else:
            text += f": {_short(d.a)} -> {_short(d.b)}"
    if d.note and d.kind != "values":
        text += f" ({d.note})"
    if not d.content:
        text += " (representation)"
    return text


def _values(detail: dict[str, Any], note: str) -> str:
    parts = [note] if note else []
    if detail.get("max_abs") is not None:
        parts.append(f"max abs diff {detail['max_abs']:.6g}" if isinstance(detail["max_abs"], float)
                     else f"max abs diff {detail['max_abs']}")
    if detail.get("max_rel") is not None:
        parts.append(f"max rel diff {detail['max_rel']:.6g}" if isinstance(detail["max_rel"], float)
                     else f"max rel diff {detail['max_rel']}")
    if detail.get("first_index") is not None:
        parts.append(f"first at {detail['first_index']}")
    return "; ".join(parts)


def _short(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 3] + "..."


def verdict(report: DiffReport) -> str:
    """The last line: equal, equal in content, different, or not fully compared."""
    content = len(report.content_differences)
    rep = len(report.differences) - content
    if report.stopped:
        return "verdict: different (stopped at the first difference: --first)"
    if content:
        return f"verdict: different: {content} content difference(s), {rep} of representation"
    if report.not_compared:
        return (f"verdict: not fully compared: {len(report.not_compared)} part(s) could not "
                "be compared; no content difference found in the rest")
    if rep:
        return f"verdict: equal in content ({rep} difference(s) of representation)"
    return "verdict: identical"
