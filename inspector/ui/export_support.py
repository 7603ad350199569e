"""What the GUI's File > Export to AUCX… needs to know about a document (issue 8 item 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.formats.document import FORMAT_AUCX, FORMAT_DELIMITED, FORMAT_RECORDING, Document

#: Formats that can be exported to AUCX.
EXPORTABLE = (FORMAT_AUCX, FORMAT_DELIMITED)


def export_unavailable_reason(doc: Document | None) -> str | None:
    """Why Export to AUCX is disabled for ``doc`` (None when it is available)."""
    if doc is None:
        return "Export to AUCX needs an open AUC document (an AUCX archive or a CSV/TSV scan table)."
    if doc.format in EXPORTABLE:
        if doc.verified and not doc.ok:
            return (f"{doc.name} has errors (see Findings); an AUC document that fails its "
                    "checks is not exported, so that a corrupt archive is never re-checksummed "
                    "as if it were valid.")
        return None
    if doc.format == FORMAT_RECORDING:
        return (f"{doc.name} is a VneuroTK recording; only AUC documents (AUCX archives and "
                "CSV/TSV scan tables) can be exported to AUCX.")
    return (f"{doc.name} was not recognised as an AUC document; only AUCX archives and "
            "CSV/TSV scan tables can be exported to AUCX.")


def export_source(doc: Document) -> Any:
    """What to hand to ``export_to_aucx``.

    The experiment already loaded (``doc.extra["experiment"]``) when the
    document is verified and has no error; otherwise the path, so that the
    exporter re-reads and verifies the source and refuses a corrupt one with
    an ``ExportError`` saying why (an unverified archive is never laundered
    into a freshly checksummed one).
    """
    exp = doc.extra.get("experiment")
    if exp is not None and doc.ok and doc.verified:
        return exp
    return doc.path


def suggested_export_path(doc: Document) -> Path:
    """``<experiment_id>.aucx`` in the source's folder (file name stem if no ID)."""
    exp = doc.extra.get("experiment")
    exp_id = getattr(exp, "experiment_id", None) if exp is not None else None
    if not exp_id:
        exp_id = doc.summary.get("experiment_id") if isinstance(doc.summary, dict) else None
    if not exp_id:
        exp_id = doc.path.stem or "experiment"
    folder = doc.path if doc.path.is_dir() else doc.path.parent
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(exp_id)).strip(".") or "experiment"
    return folder / f"{safe}.aucx"
