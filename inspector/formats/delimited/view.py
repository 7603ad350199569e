"""Build the inspector :class:`Document` of a delimited import.

The document offers the same capabilities as an AUCX archive: a header tree,
a raw tree of the source files, an import-provenance tree, a ``scans`` table,
the ``radius``/``signal``/``mask`` arrays, the AUC experiment
(:class:`~inspector.formats.capabilities.AucScans`), export to AUCX
(:class:`~inspector.formats.capabilities.ExperimentExport`) and a ``verify --json``
summary.  A rejected source still shows what was resolved (files, digests,
manifest content) next to its findings, and still offers export, whose
``load`` raises the import's :class:`~.errors.DelimitedError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.auc.model import AucExperiment, summary_list, summary_model
from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.auc.structure import DelimitedLocator, examine, publish
from inspector.formats.capabilities import AucScans, ExperimentExport
from inspector.formats.delimited.layouts import LONG
from inspector.formats.delimited.loader import ImportResult
from inspector.formats.delimited.manifest import key_path
from inspector.formats.delimited.values import MAX_SHOWN, shown
from inspector.formats.document import FORMAT_DELIMITED, Document, Node
from inspector.formats.table import PlainColumn, Table, read_only_objects

if TYPE_CHECKING:
    import pandas as pd

#: ``Document.kind_label`` of a delimited source.
KIND_LABEL = "CSV/TSV AUC scan table"
#: ``Document.tree_title``: the raw tree lists the source files.
TREE_TITLE = "Source files"


def _qvalue(q: dict[str, Any] | None) -> float:
    """The value of a quantity object as a float, NaN when absent."""
    if not q or q.get("value") is None:
        return math.nan
    return float(q["value"])


def _text_column(label: str, values: np.ndarray) -> PlainColumn:
    """A text column as pandas infers it from the rows: ``str`` (a missing value NaN)
    when some value is text, ``object`` when every value is None."""
    missing = np.array([v is None for v in values.tolist()], dtype=bool)
    if missing.all():
        return PlainColumn(label, read_only_objects(values.tolist()), "object")
    if missing.any():
        values = values.copy()
        values[missing] = math.nan
    values.setflags(write=False)
    return PlainColumn(label, values, "str")


def _number_column(label: str, values: np.ndarray, dtype: str) -> PlainColumn:
    values = np.asarray(values, dtype=dtype)
    values.setflags(write=False)
    return PlainColumn(label, values, dtype)


def _quantity_values(records: ScanRecords, field: str) -> tuple[np.ndarray, np.ndarray]:
    """``(value, status)`` per record of quantity ``field``: the value as a float (NaN
    when absent) and the ``status`` (None when absent), each distinct dict read once."""
    col = records.quantity(field)
    value = [math.nan] + [_qvalue(q) if not t else math.nan
                          for q, t in zip(col.dicts, col.templated, strict=True)]
    status: list[Any] = [None] + [q.get("status") for q in col.dicts]
    pick = (col.kinds + 1).astype(np.intp)
    values = np.array(value, dtype=np.float64)[pick]
    templated = np.array([False, *col.templated], dtype=bool)[pick]
    values[templated] = col.values[templated]
    statuses = np.empty(len(status), dtype=object)
    statuses[:] = status
    return values, statuses[pick]


def _spread_text(records: ScanRecords, field: str, convert: Callable[[Any], Any]) -> np.ndarray:
    codes, values = records.text(field)
    out = np.empty(len(values), dtype=object)
    out[:] = [convert(v) for v in values]
    return out[codes]


def _radius_ranges(exp: AucExperiment) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points, radius_min, radius_max)`` per scan row, over its real points."""
    mask = np.asarray(exp.mask, dtype=bool)
    radius = np.broadcast_to(np.asarray(exp.radius, dtype=np.float64), mask.shape)
    points = np.count_nonzero(mask, axis=1).astype(np.int64)
    low = np.where(mask, radius, np.inf).min(axis=1, initial=np.inf)
    high = np.where(mask, radius, -np.inf).max(axis=1, initial=-np.inf)
    none = points == 0
    low[none] = math.nan
    high[none] = math.nan
    return points, low, high


def scans_columns(exp: AucExperiment) -> Table:
    """:func:`scans_table` as plain columns (no pandas), read from the columns of
    :class:`~inspector.formats.auc.scan_records.ScanRecords`: no record is built.
    The frame it gives (:meth:`Table.frame`) equals :func:`scans_table`'s."""
    records = exp.scans
    if not isinstance(records, ScanRecords) or not len(records) \
            or len(records) > exp.n_scans or exp.mask.ndim != 2:
        return Table.of_frame(scans_table(exp))
    if records.integers("index") is None:
        return Table.of_frame(scans_table(exp))
    return Table.of_lazy_columns(lambda: _scan_columns(exp, records), range(len(records)))


def _same(v: Any) -> Any:
    return v


def _scan_columns(exp: AucExperiment, records: ScanRecords) -> tuple[PlainColumn, ...]:
    """The columns of :func:`scans_columns`."""
    n = len(records)
    index = records.integers("index")
    assert index is not None
    points, low, high = (a[:n] for a in _radius_ranges(exp))
    elapsed, elapsed_status = _quantity_values(records, "elapsed_time")

    def text(field: str) -> PlainColumn:
        return _text_column(field, _spread_text(records, field, _same))

    columns = [
        text("scan_id"), _number_column("index", index, "int64"),
        _number_column("points", points, "int64"),
        _number_column("radius_min", low, "float64"),
        _number_column("radius_max", high, "float64"),
        _number_column("elapsed_time_s", elapsed, "float64"),
        _text_column("elapsed_status", elapsed_status),
        text("acquired_at"), text("cell"), text("channel"), text("optical_system"),
        _number_column("wavelength_nm", _quantity_values(records, "wavelength")[0], "float64"),
        _number_column("rotor_speed_rpm", _quantity_values(records, "rotor_speed")[0],
                       "float64"),
        _number_column("temperature_c", _quantity_values(records, "temperature")[0],
                       "float64"),
        text("source_file"),
        _text_column("annotations", _spread_text(records, "annotations",
                                                 lambda v: "; ".join(v or []))),
    ]
    return tuple(columns)


def scans_table(exp: AucExperiment) -> pd.DataFrame:
    """One row per scan: id, index, point count, radius range, elapsed time, conditions.

    Quantities are floats in their retained units (NaN where absent);
    ``elapsed_status`` keeps the present/missing/unknown/not_applicable status.
    """
    rows = []
    for i, s in enumerate(exp.scans):
        r = exp.scan_radius(i) if i < exp.n_scans else np.empty(0)
        rows.append({
            "scan_id": s.get("scan_id"),
            "index": s.get("index"),
            "points": int(r.size),
            "radius_min": float(r.min()) if r.size else math.nan,
            "radius_max": float(r.max()) if r.size else math.nan,
            "elapsed_time_s": _qvalue(s.get("elapsed_time")),
            "elapsed_status": (s.get("elapsed_time") or {}).get("status"),
            "acquired_at": s.get("acquired_at"),
            "cell": s.get("cell"),
            "channel": s.get("channel"),
            "optical_system": s.get("optical_system"),
            "wavelength_nm": _qvalue(s.get("wavelength")),
            "rotor_speed_rpm": _qvalue(s.get("rotor_speed")),
            "temperature_c": _qvalue(s.get("temperature")),
            "source_file": s.get("source_file"),
            "annotations": "; ".join(s.get("annotations") or []),
        })
    import pandas as pd

    return pd.DataFrame(rows)


#: Nodes of the manifest content shown at most (the rest is counted in one node).
MAX_TREE_NODES = 10_000


def _label(key: str | int) -> str:
    """The tree label of a manifest key: ``[i]`` for a list item, a long key cut."""
    if isinstance(key, int):
        return f"[{key}]"
    return key if len(key) <= MAX_SHOWN else shown(key)[1:-1]


def _manifest_tree(root: Node, raw: dict[str, Any], manifest_name: str) -> None:
    """Add the parsed manifest under ``root``, iteratively, with key-path locations.

    A value that contains itself (a YAML alias back to an enclosing anchor) is
    shown once and then marked; at most :data:`MAX_TREE_NODES` nodes are added.
    """
    budget = MAX_TREE_NODES
    stack: list[tuple[Node, Any, str, frozenset[int]]] = [(root, raw, "", frozenset())]
    while stack:
        node, value, prefix, above = stack.pop()
        above = above | {id(value)}
        items = value.items() if isinstance(value, dict) else enumerate(value)
        pending = []
        for i, (k, v) in enumerate(items):
            if budget <= 0:
                node.add("...", f"{len(value) - i:,} more value(s) not shown", kind="note")
                stack.clear()
                break
            budget -= 1
            key = k if isinstance(value, list) else str(k)
            path = key_path(prefix, key)
            loc = f"{manifest_name}:{path}"
            if not isinstance(v, dict | list):
                node.add(_label(key), v, location=loc)
            elif id(v) in above:
                node.add(_label(key), "(the enclosing value again: a YAML alias)",
                         kind="alias", location=loc)
            else:
                pending.append((node.add(_label(key), kind="group", location=loc), v, path,
                                above))
        stack.extend(reversed(pending))


def _source_tree(res: ImportResult) -> Node:
    root = Node(res.path.name or str(res.path), kind="group", location="")
    digests = {f.role: f for f in res.files}
    if res.layout is not None:
        mf = res.layout.manifest_file
        m = root.add(mf.name, kind="file", location=mf.name, detail="manifest")
        if "manifest" in digests:
            d = digests["manifest"]
            m.detail = f"manifest, {d.size:,} bytes"
            m.add("size", d.size, location=mf.name)
            m.add("sha256", d.sha256, location=mf.name)
        if res.manifest is not None:
            _manifest_tree(m.add("content", kind="group", location=f"{mf.name}:"),
                           res.manifest.raw, mf.name)
    if res.data_file is not None:
        name = res.data_file.name
        t = root.add(name, kind="file", location=name, detail="data file")
        if "data_file" in digests:
            d = digests["data_file"]
            t.detail = f"data file, {d.size:,} bytes"
            t.add("size", d.size, location=name)
            t.add("sha256", d.sha256, location=name)
        if res.table is not None:
            tab = res.table
            t.add("delimiter", {",": "comma", "\t": "tab"}[tab.delimiter], location=name)
            t.add("rows", len(tab.rows), location=name)
            cols = t.add("columns", kind="group", location=f"{name}:{tab.header_line}")
            for c in tab.header:
                cols.add(c, kind="column", location=f"{name}:{c}")
    return root


def _provenance_tree(prov: dict[str, Any]) -> Node:
    root = Node("import", kind="group", location="provenance.import")
    for key in ("parser_name", "parser_version", "imported_at", "source_path",
                "source_filename", "sha256"):
        root.add(key, prov.get(key))
    files = root.add("source_checksums", kind="group")
    for entry in prov.get("source_checksums", []):
        f = files.add(entry["role"], entry["filename"], kind="file", location=entry["filename"],
                      detail=f"{entry['byte_size']} bytes")
        for k in ("role", "filename", "algorithm", "value", "byte_size"):
            f.add(k, entry.get(k), location=entry["filename"])
    for key in ("warnings", "assumptions", "transformations", "supplied_values",
                "converted_values", "inferred_values", "user_confirmed_values", "unknown_values"):
        items = prov.get(key) or []
        group = root.add(key, kind="group", detail=str(len(items)))
        for i, text in enumerate(items):
            group.add(f"[{i}]", text)
    return root


def _loader(res: ImportResult) -> Callable[[], AucExperiment]:
    """The ``ExperimentExport.load`` of an import: its experiment, or its error raised."""

    def load() -> AucExperiment:
        if not res.ok or res.experiment is None:
            raise res.error()
        return res.experiment

    return load


def _header(doc: Document, res: ImportResult) -> None:
    """The header tree: format, layout and files; the experiment's facts when imported."""
    h = doc.header
    h.add("format", FORMAT_DELIMITED)
    h.add("parser", res.format_id, detail="layout")
    if res.layout is not None:
        h.add("manifest", res.layout.manifest_file.name, location=res.layout.manifest_file.name)
    if res.data_file is not None:
        h.add("data file", res.data_file.name, location=res.data_file.name)
    exp = res.experiment
    if exp is None:
        return
    id_loc = f"{res.layout.manifest_file.name}:experiment.experiment_id" if res.layout else ""
    h.add("experiment id", exp.experiment_id, location=id_loc)
    h.add("experiment type", exp.metadata.get("experiment_type"))
    h.add("radius axis mode", exp.mode)
    h.add("scans", exp.n_scans)
    h.add("points", exp.n_points, detail="per scan (padded width in per_scan mode)")
    h.add("radius unit", exp.radius_unit)
    h.add("signal unit", exp.signal_unit)
    h.add("parser version", (exp.provenance or {}).get("parser_version"))


def _arrays(res: ImportResult, exp: AucExperiment) -> dict[str, NumpyArrayRef]:
    """``radius`` float64 ``(points,)`` or ``(scans, points)``, ``signal`` float64 and
    ``mask`` bool ``(scans, points)``, located at their data-file columns."""
    data_name = res.data_file.name if res.data_file else ""
    units = {"radius": exp.radius_unit, "signal": exp.signal_unit}
    rloc = f"{data_name}:{res.parsed.radius_column}" if res.parsed else data_name
    sloc = f"{data_name}:signal" if res.format_id == LONG else data_name
    radius = NumpyArrayRef("radius", exp.radius, location=rloc,
                           sample_axis=0 if exp.radius.ndim == 1 else 1)
    signal = NumpyArrayRef("signal", exp.signal, location=sloc, sample_axis=1)
    mask = NumpyArrayRef("mask", exp.mask, location=data_name, sample_axis=1)
    ids = list(exp.scan_ids)  # (one list shared by the three: nobody changes it)
    for ref in (radius, signal, mask):
        ref.attrs.update({"unit": units.get(ref.name), "scan_ids": ids,
                          "radius_axis_mode": exp.mode})
    return {"radius": radius, "signal": signal, "mask": mask}


def _summary(res: ImportResult) -> dict[str, Any]:
    """The ``verify --json`` summary (the experiment's facts and model when imported)."""
    summary: dict[str, Any] = {
        "parser": res.format_id,
        "source_files": [f.to_checksum() for f in res.files],
    }
    exp = res.experiment
    if exp is not None:
        summary.update({
            "experiment_id": exp.experiment_id,
            "radius_axis_mode": exp.mode,
            "n_scans": exp.n_scans,
            "n_points": exp.n_points,
            "scan_ids": summary_list(exp.scan_ids),
            "radius_unit": exp.radius_unit,
            "signal_unit": exp.signal_unit,
            "model": summary_model(exp),
        })
    return summary


def build_document(res: ImportResult) -> Document:
    """The :class:`Document` for an import result (rejected or not).

    Every document offers ``export`` (its ``load`` raises the import's
    :class:`~.errors.DelimitedError` for a rejected source); an imported one
    also offers provenance, the ``scans`` table, the arrays and ``auc``.
    """
    doc = Document(res.path, format=FORMAT_DELIMITED, kind_label=KIND_LABEL,
                   tree_title=TREE_TITLE, findings=res.findings)
    doc.export = ExperimentExport(res.experiment.experiment_id if res.experiment else None,
                            _loader(res))
    doc.tree = _source_tree(res)
    _header(doc, res)
    doc.summary = _summary(res)
    exp = res.experiment
    if exp is None:
        return doc
    doc.provenance = _provenance_tree(exp.provenance or {})
    doc.tables["scans"] = scans_columns(exp)
    doc.table_locations["scans"] = res.data_file.name if res.data_file else ""
    doc.arrays = dict(_arrays(res, exp))
    doc.auc = AucScans(scan_ids=tuple(exp.scan_ids), radius_unit=exp.radius_unit,
                       signal_unit=exp.signal_unit, experiment_id=exp.experiment_id,
                       experiment=exp, radius_array="radius", signal_array="signal",
                       mask_array="mask", table=doc.tables["scans"])
    _structure(doc, res, exp)
    return doc


def _structure(doc: Document, res: ImportResult, exp: AucExperiment) -> None:
    """The structural validation, readiness and summary of the imported experiment."""
    rows = res.parsed.locations if res.parsed is not None else ()
    locate = DelimitedLocator(res.manifest.name if res.manifest is not None else "",
                              res.data_file.name if res.data_file is not None else "", rows)
    doc.structure = examine(exp, locate=locate)
    publish(doc.structure, doc.findings, doc.summary)
