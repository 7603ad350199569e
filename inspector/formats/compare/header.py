"""The format and header sections: what each file is, and its metadata fields.

The format section says whether the files are of one format (content: a
recording is not an archive) and of one schema or layout (representation: a
schema-0 recording and its schema-1 rewrite hold the same data; a long and a
wide scan table the same scans).  The header section compares the metadata
fields a reader reports (a recording's ``neuro_info``, ``vision_info``,
``trial_info``; an AUC experiment's metadata, instrument, samples and units),
field by field.  Nothing here imports Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.formats.compare.fields import MISSING, compare_fields
from inspector.formats.compare.model import CHANGED, Collector, Difference

if TYPE_CHECKING:
    from inspector.formats.document import Document

#: Summary keys naming the schema or layout of a file (representation).
SCHEMA_KEYS = ("schema_version", "aucx_format_version", "parser")
#: Summary keys compared by other sections, or facts derived from them.
ELSEWHERE = frozenset({
    "schema_version", "aucx_format_version", "parser", "writer_version", "header",
    "members", "checksum_verified", "structure", "readiness", "export", "trial_meta",
    "stimuli", "vision_records", "trial_stim_ids", "stim_labels", "neuro", "scan_ids",
    "n_scans", "n_points", "source_files", "model", "size", "groups", "datasets", "links",
    "root_attributes", "experiment_id", "radius_unit", "signal_unit", "radius_axis_mode",
})


def compare_format(out: Collector, a: Document, b: Document,
                   same_content_kind: bool = False) -> None:
    """Format and schema or layout (representation, reported once).

    A different format is a content difference, unless ``same_content_kind``: both
    documents hold an AUC experiment (a scan table and an archive of the same scans)."""
    if str(a.format) != str(b.format):
        out.add(Difference("format", CHANGED, "format", str(a.format), str(b.format),
                           content=not same_content_kind,
                           note=f"{a.kind_label} against {b.kind_label}"))
    for key in SCHEMA_KEYS:
        x, y = a.summary.get(key, MISSING), b.summary.get(key, MISSING)
        if x is MISSING and y is MISSING:
            continue
        compare_fields(out, "format", key, x, y, content=False)


def compare_header(out: Collector, a: Document, b: Document, experiments: bool) -> None:
    """The metadata fields of the summary not compared by another section; the AUC
    experiment's ID and units too unless ``experiments`` (both experiments are loaded:
    :func:`~inspector.formats.compare.scans.compare_experiment_fields` compares them)."""
    fa = _fields(a.summary)
    fb = _fields(b.summary)
    if not experiments:
        for key in ("experiment_id", "radius_unit", "signal_unit"):
            if key in a.summary or key in b.summary:
                fa[key] = a.summary.get(key, MISSING)
                fb[key] = b.summary.get(key, MISSING)
    for key in list(fa) + [k for k in fb if k not in fa]:
        compare_fields(out, "header", key, fa.get(key, MISSING), fb.get(key, MISSING))


def _fields(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in ELSEWHERE}
