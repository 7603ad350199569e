"""What ``inspector verify`` and ``dump`` print: the text report of a document, its strict-JSON
line, and any text made safe for a terminal."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from inspector.formats.findings import printable, with_file

if TYPE_CHECKING:
    from inspector.formats.document import Document


def format_report(doc: Document) -> str:
    """The human-readable ``verify`` report of one document.

    The file name is prefixed to each finding here, once (:func:`with_file`);
    finding messages never carry it themselves.
    """
    verdict = "OK" if doc.ok else "NOT OK"
    if doc.structure_ok is None:
        if doc.format != "unknown":  # (a file read as no format: its findings say why)
            verdict += " (structure: not checked)"
    elif not doc.structure_ok:
        verdict += " (structure: errors)"
    lines = [f"{doc.path}: {doc.format}: {verdict}"]
    if doc.mismatch is not None:  # what the file is, beside the verdict on the format
        lines.append(f"  {doc.kind_label}: {doc.mismatch.reason}")
    for key, value in doc.summary.items():
        if key in ("members",):
            continue
        text = json.dumps(json_safe(value), ensure_ascii=False, default=str)
        if len(text) > 100:
            text = text[:97] + "..."
        lines.append(f"  {key}: {text}")
    members = doc.checksums.members if doc.checksums is not None else ()
    if members:
        bad = [m for m in members if m.status != "ok"]
        lines.append(f"  checksums: {len(members) - len(bad)}/{len(members)} members ok")
        for m in bad:
            lines.append(f"    {m.status:<16} {printable(m.name)}")
    if doc.findings:
        lines.append("  findings:")
        for f in doc.findings:
            lines.append(f"    {f.severity:<7} {f.code}: {with_file(doc.name, f)}")
    return "\n".join(lines)


def json_safe(value: Any) -> Any:
    """``value`` with non-finite floats written as the corpus writes them ("NaN",
    "Infinity", "-Infinity") and text that is not valid UTF-8 (lone surrogates)
    backslash-escaped, so that one JSON line can always be printed."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def json_line(obj: Any) -> str:
    """One strict-JSON line (RFC 8259: no NaN), falling back to :func:`json_safe`."""
    try:
        text = json.dumps(obj, ensure_ascii=False, allow_nan=False, default=str)
        text.encode("utf-8")
        return text
    except (ValueError, UnicodeEncodeError):
        return json.dumps(json_safe(obj), ensure_ascii=False, allow_nan=False, default=str)


def render_document(doc: Document, as_json: bool) -> str:
    """What ``verify`` prints for one document: its JSON line, or its text report."""
    return json_line(doc.to_json()) if as_json else json_safe(format_report(doc))
