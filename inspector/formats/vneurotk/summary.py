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

from typing import Any

import pandas as pd

from inspector.formats.document import Document, Node
from inspector.formats.vneurotk.values import plain, typed


def trial_meta_facts(df: pd.DataFrame) -> dict[str, Any]:
    """Summary facts of the trial-metadata DataFrame."""
    return {
        "rows": int(len(df)),
        "columns": [plain(c) for c in df.columns],
        "dtypes": [str(d) for d in df.dtypes],
        "index_name": plain(df.index.name),
        "index_dtype": str(df.index.dtype),
        "index_kind": type(df.index).__name__,
        "columns_index_kind": type(df.columns).__name__,
        "columns_index_name": plain(df.columns.name),
        "first_index": [typed(v) for v in list(df.index[:3])],
    }


def build_header_tree(doc: Document, parts: dict[str, Any] | None) -> None:
    """Fill ``doc.header`` from the summary and the opened parts."""
    h = doc.header
    s = doc.summary
    h.add("schema version", s.get("schema_version"), location="/@vneurotk_schema_version")
    h.add("writer version", s.get("writer_version"), location="/@writer_version")
    if parts is None:
        return
    h.add("data mode", parts.get("mode"), location="/@data_mode")
    neuro = parts.get("neuro")
    if neuro is not None:
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
    trials = parts.get("trials")
    if trials is not None and trials.starts is not None:
        h.add("trials", int(len(trials.starts)), location="/trial_starts")
    labels = parts.get("labels")
    if labels is not None:
        h.add("stimulus labels", f"{labels.count} ({labels.encoding}, {labels.dtype})", location="/stim_labels")
    tm = doc.tables.get("trial_meta")
    if tm is not None:
        h.add("trial metadata", f"{len(tm)} rows x {len(tm.columns)} columns", location="/trial_meta")
    recs = parts.get("records") or []
    if recs:
        h.add("visual representations", len(recs), location="/vision_store")
    if doc.stimuli:
        h.add("stimulus images", len(doc.stimuli), location="/stimuli_db")


def build_provenance_tree(doc: Document, writer_version: str | None, records: list, schema: int) -> None:
    """Fill ``doc.provenance`` (writer version, one node per vision record)."""
    root = Node("provenance", kind="group")
    root.add("writer version", writer_version if writer_version is not None else "unknown",
             location="/@writer_version")
    for r in records:
        n = root.add(f"{r.model} / {r.module_name}", None, kind="group", location=r.location,
                     detail=r.module_type)
        if r.provenance is None:
            n.detail += " (no extraction_provenance: fields unknown)"
        for k, v in r.provenance_as_read.items():
            if isinstance(v, dict):
                d = n.add(k, None, kind="group", location=f"{r.location}@extraction_provenance")
                for dk, dv in v.items():
                    d.add(dk, dv)
            else:
                n.add(k, v, location=f"{r.location}@extraction_provenance")
    doc.provenance = root
