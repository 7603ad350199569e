"""What File > Export to AUCX… needs to know about a document, from its capabilities.

A document can be exported when it offers :class:`~inspector.formats.
capabilities.ExperimentExport` (``doc.export``) and it is not known to be bad: once
its deferred checks ran, a document with an error is not exported, so that a
corrupt archive is never re-checksummed as if it were valid.  Nothing here
names a format.
"""

from __future__ import annotations

from pathlib import Path

from inspector.formats.document import Document
from inspector.formats.remote.path import is_url

#: Said when no document is open (or it is still opening).
NO_DOCUMENT = ("Export to AUCX needs an open AUC document (an AUC experiment, such as an "
               "archive or a scan table).")


def export_unavailable_reason(doc: Document | None, offered: bool | None = None) -> str | None:
    """Why Export to AUCX is disabled for ``doc`` (None when it is available).

    ``offered``: whether the document offered an export when it was opened
    (a check that withdraws the AUC experiment also withdraws the export);
    defaults to whether it offers one now.
    """
    if doc is None:
        return NO_DOCUMENT
    if offered is None:
        offered = doc.export is not None
    if not offered:
        return (f"{doc.name} ({doc.kind_label}) holds no AUC experiment; only documents "
                "with an AUC experiment can be exported to AUCX.")
    if (doc.verified and not doc.ok) or doc.export is None:
        return (f"{doc.name} has errors (see Findings); an AUC document that fails its "
                "checks is not exported, so that a corrupt archive is never re-checksummed "
                "as if it were valid.")
    return None


def export_source(doc: Document) -> Document | Path:
    """What to hand to ``export_to_aucx`` for ``doc``.

    The document itself once its checks are over (the exporter asks its
    ``export.load()``, reading what opening kept); before that its path, so
    that the exporter opens and verifies the source on its own and refuses a
    corrupt one with an ``ExportError`` saying why (an unverified archive is
    never laundered into a freshly checksummed one).
    """
    return doc if doc.verified else doc.path


def suggested_export_path(doc: Document) -> Path:
    """``<experiment_id>.aucx`` beside the source (the file name stem without an ID): in the
    folder holding a source file, and beside (never inside) a source folder (a scan folder
    or a run folder being exported is no place for its archive)."""
    exp_id = doc.export.experiment_id if doc.export is not None else None
    if not exp_id:
        exp_id = doc.path.stem or "experiment"
    if is_url(doc.path):  # a URL's folder is not a place to write to
        folder = Path.home()
    else:
        folder = doc.path.parent
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(exp_id)).strip(".")
    return folder / f"{safe or 'experiment'}.aucx"
