"""Display trees and table facts of an opened recording.

* :func:`trial_meta_facts`: the ``trial_meta`` entry of the summary (rows,
  columns, pandas dtype names, index facts; corpus README "expected.json").
* :func:`build_header_tree`: ``doc.header``: format, schema and writer
  version, data mode, neural storage/shape/dtype, channels, trials...
* :func:`build_provenance_tree`: ``doc.provenance``: writer version and, per
  visual-representation record, the extraction provenance fields (schema 0:
  every field ``"unknown"``; seed "Provenance boundary").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.document import Document, Node
from inspector.formats.hdf5.reader import contents_header
from inspector.formats.hdf5.values import plain, typed
from inspector.formats.vneurotk.labels import Labels
from inspector.formats.vneurotk.trials import TrialArrays
from inspector.formats.vneurotk.vision import VisionRecord

if TYPE_CHECKING:
    from inspector.formats.table import Table


def trial_meta_facts(table: Table) -> dict[str, Any]:
    """Summary facts of the trial-metadata table (:meth:`Table.facts`, JSON-ready)."""
    facts = table.facts()
    return {**facts,
            "columns": [plain(c) for c in facts["columns"]],
            "index_name": plain(facts["index_name"]),
            "columns_index_name": plain(facts["columns_index_name"]),
            "first_index": [typed(v) for v in facts["first_index"]]}


@dataclass
class HeaderParts:
    """The opened parts shown in the header tree (None where absent)."""

    mode: str | None = None
    neuro: ArrayRef | None = None
    labels: Labels | None = None
    trials: TrialArrays | None = None
    records: list[VisionRecord] = field(default_factory=list)


def _neuro_node(h: Node, neuro: ArrayRef) -> None:
    n = h.add("neural array", None, kind="group", location=neuro.location)
    n.add("storage", neuro.storage)
    n.add("shape", list(neuro.shape))
    n.add("dtype", str(neuro.dtype))
    if neuro.attrs.get("sfreq") is not None:
        n.add("sampling rate", neuro.attrs["sfreq"], detail="Hz")
    chs = neuro.attrs.get("ch_names")
    if chs:
        c = n.add("channels", len(chs), kind="group", location="/neuro_info@ch_names")
        for i, name in enumerate(chs):
            c.add(str(i), name)


def build_header_tree(doc: Document, parts: HeaderParts | None) -> None:
    """Fill ``doc.header`` from the summary and the opened parts."""
    h = doc.header
    s = doc.summary
    h.add("schema version", s.get("schema_version"), location="/@vneurotk_schema_version")
    h.add("writer version", s.get("writer_version"), location="/@writer_version")
    if parts is None:
        return
    h.add("data mode", parts.mode, location="/@data_mode")
    if parts.neuro is not None:
        _neuro_node(h, parts.neuro)
    starts = parts.trials.starts if parts.trials is not None else None
    if starts is not None:
        count = int(starts.shape[0]) if starts.ndim >= 1 else f"scalar {starts.dtype}"
        h.add("trials", count, location="/trial_starts")
    labels = parts.labels
    if labels is not None:
        h.add("stimulus labels", f"{labels.count} ({labels.encoding}, {labels.dtype})",
              location="/stim_labels")
    tm = doc.tables.get("trial_meta")
    if tm is not None:
        h.add("trial metadata", f"{len(tm):,} rows x {tm.n_columns:,} columns",
              location="/trial_meta")
    if parts.records:
        h.add("visual representations", len(parts.records), location="/vision_store")
    if doc.stimuli:
        h.add("stimulus images", len(doc.stimuli), location="/stimuli_db")


def plain_header_tree(tree: Node | None, kind: str, reason: str, detail: str = "") -> Node:
    """The header of an HDF5 file that is not a recording: what it is, why it is not a
    recording, and how many groups, datasets, links and root attributes it holds."""
    h = contents_header(tree, kind)
    h.children.insert(1, Node("not a recording", reason, location="/", detail=detail))
    return h


def _record_node(root: Node, r: VisionRecord) -> None:
    n = root.add(f"{r.model} / {r.module_name}", None, kind="group", location=r.location,
                 detail=r.module_type)
    where = f"{r.location}@extraction_provenance"
    if r.rejected:
        n.detail += " (rejected: " + ", ".join(p.code for p in r.problems) + ")"
    if r.provenance is None and r.provenance_text is None:
        n.detail += " (no extraction_provenance: fields unknown)"
    if r.provenance_text is not None:
        n.add("extraction_provenance (as stored)", r.provenance_text, location=where)
    for k, v in r.provenance_as_read.items():
        if isinstance(v, dict):
            d = n.add(k, None, kind="group", location=where)
            for dk, dv in v.items():
                d.add(dk, dv)
        else:
            n.add(k, v, location=where)


def build_provenance_tree(doc: Document, writer_version: str | None,
                          records: list[VisionRecord]) -> None:
    """Fill ``doc.provenance``: the writer version and one node per vision record,
    rejected records included (seed, 'Provenance boundary')."""
    root = Node("provenance", kind="group")
    root.add("writer version", writer_version if writer_version is not None else "unknown",
             location="/@writer_version")
    for r in records:
        _record_node(root, r)
    doc.provenance = root
