"""The status-bar line of a document tab and the note under its checksum table.

Both are worded from the document's findings and capabilities only; nothing is
read from the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspector.formats.capabilities import MemberCheck
from inspector.formats.document import Document
from inspector.models.checksum_model import FAILED
from inspector.models.findings_model import count_text, severity_counts_text


def counts_text(doc: Document) -> str:
    """The findings by severity; for a file of another kind than the format checked,
    those about the file apart from those saying it is not of the format."""
    if doc.mismatch is None:
        return severity_counts_text(doc.findings)
    others = [f for f in doc.findings if f.code in doc.mismatch.codes]
    return (f"{severity_counts_text(doc.file_findings())}; as a {doc.mismatch.format}: "
            f"{severity_counts_text(others)} (see Findings)")


def status_line(doc: Document, checksums: Any, notice: str, selection: Any) -> str:
    """``kind — checksum verdict — findings — notes — trial selection`` of a tab whose
    work is over.  ``checksums``: the checksum panel (its ``verdict``) or None;
    ``selection``: the trial selection or None."""
    missing = any(f.code == "file.not-found" for f in doc.findings)
    parts = ["No such file or folder" if missing else doc.kind_label]
    if checksums is not None:
        parts.append(checksums.verdict)
    parts.append(counts_text(doc))
    if doc.structure_unchecked is not None and "structure: not checked" not in parts[1]:
        parts.append("structure not checked")  # (once: the verdict may say it)
    if notice:
        parts.append(notice)
    if selection is not None and not selection.is_empty():
        parts.append(selection.text())
    return " — ".join(parts)


def checksum_note(doc: Document, members: Iterable[MemberCheck]) -> str:
    """The note under an archive's checksum table: the error findings not about a member
    that failed its digest, and the structure's verdict."""
    failed = {m.name for m in members if m.status in FAILED}
    integrity = [f for f in doc.findings if f.severity == "error" and f.scope == "integrity"]
    n = sum(1 for f in integrity if f.location not in failed)
    structure = sum(1 for f in doc.findings if f.severity == "error" and f.scope != "integrity")
    notes = []
    if n:
        errors = count_text(n, "other error finding" if failed else "error finding")
        notes.append(f"{errors} (see Findings)")
    if doc.structure_unchecked is not None:
        notes.append("structure: not checked (see Findings)")
    elif structure:
        notes.append(f"structure: {count_text(structure, 'error')}")
    return " · ".join(notes)
