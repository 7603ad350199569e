"""Build the inspector :class:`Document` of a Beckman run.

The document offers what the other AUC sources offer (docs/architecture.md,
"Seams"): a header tree, a raw tree of the scan files (size, SHA-256,
description, the eight header fields), the ``groups`` and ``scans`` tables,
the arrays of the offered group, its AUC experiment
(:class:`~inspector.formats.capabilities.AucScans`) and export to AUCX
(:class:`~inspector.formats.capabilities.ExperimentExport`), the import provenance
and a ``verify --json`` summary.  A group of wavelength scans (WA/WI) is shown
but offers neither ``auc`` nor ``export``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.auc.model import AucExperiment, summary_list
from inspector.formats.beckman.header import FIELD_NAMES, Header
from inspector.formats.beckman.model import build_experiment, experiment_id, mask_of, padded
from inspector.formats.beckman.names import SCAN_TYPES
from inspector.formats.beckman.run import Group, Run, number_text, read_run
from inspector.formats.beckman.scanfile import ScanFile
from inspector.formats.capabilities import AucScans, ExperimentExport, ExperimentGroups
from inspector.formats.document import Document, FormatId, Node
from inspector.formats.findings import Finding
from inspector.formats.table import Table

if TYPE_CHECKING:
    import pandas as pd

#: ``Document.kind_label`` of a Beckman run.
KIND_LABEL = "Beckman XL-A/XL-I run"
#: ``Document.tree_title``: the raw tree lists the scan files.
TREE_TITLE = "Scan files"
#: Other folder entries listed in the tree at most.
MAX_OTHERS = 200
#: Scan files given a node of their own (in the raw tree and among the provenance's
#: source checksums) at most; the others are counted in one node (the ``scans`` table
#: and ``verify --json`` still cover every file).
MAX_FILE_NODES = 10_000


class BeckmanError(ValueError):
    """The run offers no experiment to export; ``findings`` lists its errors."""

    def __init__(self, message: str, findings: list[Finding]) -> None:
        super().__init__(message)
        self.findings = findings


def groups_table(run: Run) -> pd.DataFrame:
    """One row per group: key, type, optical system, cell, channel, wavelength or radius,
    scans, first and last file, and whether it is the offered one."""
    rows = []
    for g in run.groups:
        stype = SCAN_TYPES[g.type]
        rows.append({
            "group": g.key, "type": g.type, "optical_system": stype.optical_system,
            "cell": g.cell, "channel": g.channel,
            "wavelength_nm": g.position if g.radial else np.nan,
            "radius_cm": np.nan if g.radial else g.position,
            "scans": len(g.files), "first_file": g.files[0].name.name,
            "last_file": g.files[-1].name.name, "offered": g is run.selected,
            "exportable": g.radial,
        })
    import pandas as pd

    return pd.DataFrame(rows, columns=["group", "type", "optical_system", "cell", "channel",
                                       "wavelength_nm", "radius_cm", "scans", "first_file",
                                       "last_file", "offered", "exportable"])


def scans_table(g: Group) -> pd.DataFrame:
    """One row per scan of ``g``: file, points, radius range (wavelength range for WA/WI),
    the header fields, the third column's point count and the description line (floats;
    NaN where absent).  Built a column at a time (no dict a scan)."""
    x = "radius" if g.radial else "wavelength"
    files = g.files
    headers = [f.header for f in files]
    assert all(h is not None for h in headers)
    heads: list[Header] = headers  # type: ignore[assignment]
    nan = np.nan
    columns: dict[str, list[Any]] = {
        "scan_id": [f.name.name for f in files], "index": list(range(len(files))),
        "points": [f.points for f in files],
        f"{x}_min": [float(f.x.min()) if f.points else nan for f in files],
        f"{x}_max": [float(f.x.max()) if f.points else nan for f in files],
        "elapsed_time_s": [h.seconds for h in heads], "rotor_speed_rpm": [h.rpm for h in heads],
        "temperature_c": [h.temperature for h in heads],
        "wavelength_nm": [h.position if g.radial else nan for h in heads],
        "radius_cm": [nan if g.radial else h.position for h in heads],
        "omega2t": [h.omega2t for h in heads], "count": [h.count for h in heads],
        "cell": [h.cell for h in heads], "channel": [f.name.channel for f in files],
        "third_column_points": [f.third_points for f in files],
        "description": [f.description for f in files],
    }
    import pandas as pd

    return pd.DataFrame(columns)


def _file_node(root: Node, f: ScanFile) -> None:
    """A scan file's node: size, digest, description and the header fields."""
    name = f.name.name
    detail = (f"{f.name.type} cell {f.name.cell}, {f.points:,} point(s) ({f.third_points:,} with "
              f"a third column), {f.size:,} bytes")
    node = root.add(name, kind="file", location=name, detail=detail)
    node.add("size", f.size, location=name)
    node.add("sha256", f.sha256, location=name)
    node.add("description", f.description, location=f"{name}:1")
    if f.header is not None:
        head = node.add("header", kind="group", location=f"{name}:2")
        for label, text in zip(FIELD_NAMES, f.header.fields, strict=True):
            head.add(label, text, location=f"{name}:2")


def _more_files(node: Node, count: int) -> None:
    """One node counting the scan files past :data:`MAX_FILE_NODES` (none when all fit)."""
    if count > MAX_FILE_NODES:
        node.add("...", f"{count - MAX_FILE_NODES:,} more scan file(s) not shown",
                 kind="note")


def _tree(run: Run) -> Node:
    """The raw tree: every scan file, then the folder's other entries (not read)."""
    root = Node(run.name, kind="group", location="")
    for f in run.files[:MAX_FILE_NODES]:
        _file_node(root, f)
    _more_files(root, len(run.files))
    if run.others:
        others = root.add("other entries", kind="group", detail=f"{len(run.others)} (not read)")
        for name in run.others[:MAX_OTHERS]:
            others.add(name, kind="note")
        if len(run.others) > MAX_OTHERS:
            others.add("...", f"{len(run.others) - MAX_OTHERS} more", kind="note")
    return root


def _header(doc: Document, run: Run, exp: AucExperiment | None) -> None:
    """The header tree: format, files, groups, the offered group and its experiment."""
    h = doc.header
    h.add("format", str(FormatId.BECKMAN))
    h.add("source", run.name, detail="folder" if run.path.is_dir() else "scan file")
    h.add("scan files", len(run.files))
    groups = h.add("groups", len(run.groups), kind="group")
    for each in run.groups:
        stype = SCAN_TYPES[each.type]
        groups.add(each.key, f"{len(each.files):,} scan(s)", location=each.files[0].name.name,
                   detail=f"{stype.title}, cell {each.cell}, channel {each.channel or '-'}, "
                          f"{number_text(each.position)} {'nm' if each.radial else 'cm'}"
                          + (" (offered)" if each is run.selected else ""))
    g = run.selected
    if g is None:
        return
    h.add("group", g.key, detail="the group shown and exported; 'inspector export FOLDER "
                                 "OUT.aucx --group KEY' exports another")
    h.add("optical system", SCAN_TYPES[g.type].optical_system)
    h.add("scans", len(g.files))
    if exp is not None:
        h.add("experiment id", exp.experiment_id)
        h.add("radius axis mode", exp.mode)
        h.add("points", exp.n_points, detail="per scan (padded width in per_scan mode)")
        h.add("radius unit", exp.radius_unit)
        h.add("signal unit", exp.signal_unit)
        h.add("parser version", (exp.provenance or {}).get("parser_version"))


def _provenance_tree(prov: dict[str, Any]) -> Node:
    """The import provenance as a tree (one node per field, per checksum, per list item)."""
    root = Node("import", kind="group", location="provenance.import")
    for key in ("parser_name", "parser_version", "imported_at", "source_path",
                "source_filename", "sha256"):
        root.add(key, prov.get(key))
    files = root.add("source_checksums", kind="group", detail=str(len(prov["source_checksums"])))
    for entry in prov["source_checksums"][:MAX_FILE_NODES]:
        f = files.add(entry["role"], entry["filename"], kind="file", location=entry["filename"],
                      detail=f"{entry['byte_size']} bytes")
        for k in ("role", "filename", "algorithm", "value", "byte_size"):
            f.add(k, entry.get(k), location=entry["filename"])
    _more_files(files, len(prov["source_checksums"]))
    for key in ("warnings", "assumptions", "transformations", "supplied_values",
                "converted_values", "inferred_values", "user_confirmed_values", "unknown_values"):
        items = prov.get(key) or []
        group = root.add(key, kind="group", detail=str(len(items)))
        for i, text in enumerate(items):
            group.add(f"[{i}]", text)
    return root


def _arrays(g: Group, exp: AucExperiment | None) -> dict[str, NumpyArrayRef]:
    """Column 1 (``radius``, or ``wavelength`` for WA/WI), ``signal``, ``mask`` and the
    third column (named by type), float64/bool ``(scans, width)`` NaN-padded."""
    files = g.files
    first = files[0].name.name
    x_name = "radius" if g.radial else "wavelength"
    third = SCAN_TYPES[g.type].third_column
    arrays = {
        x_name: exp.radius if exp is not None else padded(files, "x"),
        "signal": exp.signal if exp is not None else padded(files, "value"),
        "mask": exp.mask if exp is not None else mask_of(files),
        third: padded(files, "third"),
    }
    units = {x_name: "cm" if g.radial else "nm", "signal": SCAN_TYPES[g.type].signal_unit}
    out = {}
    for name, a in arrays.items():
        ref = NumpyArrayRef(name, a, location=first, sample_axis=1)
        ref.attrs.update({"unit": units.get(name), "scan_ids": [f.name.name for f in files],
                          "radius_axis_mode": "per_scan"})
        out[name] = ref
    return out


class _Records(Sequence[dict[str, Any]]):
    """The ``source_files`` records of the scan files, made as they are asked for (a
    summarised list asks for ten of 100 000)."""

    def __init__(self, files: list[ScanFile]) -> None:
        self.files = files

    def __len__(self) -> int:
        return len(self.files)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self._record(f) for f in self.files[i]]
        return self._record(self.files[i])

    @staticmethod
    def _record(f: ScanFile) -> dict[str, Any]:
        return {"role": "scan_file", "filename": f.name.name, "algorithm": "sha256",
                "value": f.sha256, "byte_size": f.size}


def _summary(run: Run, exp: AucExperiment | None) -> dict[str, Any]:
    """The ``verify --json`` facts: parser, files, groups, the offered group's experiment."""
    summary: dict[str, Any] = {
        "parser": "beckman-xl",
        "source_files": summary_list(_Records(run.files)),  # type: ignore[arg-type]
        "groups": summary_list([{"group": g.key, "type": g.type, "cell": g.cell,
                                 "channel": g.channel, "position": g.position,
                                 "scans": len(g.files)} for g in run.groups]),
        "group": run.selected.key if run.selected else None,
    }
    if exp is not None:
        summary.update({"experiment_id": exp.experiment_id, "radius_axis_mode": exp.mode,
                        "n_scans": exp.n_scans, "n_points": exp.n_points,
                        "scan_ids": summary_list(exp.scan_ids), "radius_unit": exp.radius_unit,
                        "signal_unit": exp.signal_unit})
    return summary


def _loader(run: Run, exp: AucExperiment | None) -> Callable[[], AucExperiment]:
    """The ``ExperimentExport.load`` of the offered group: its experiment, or BeckmanError."""

    def load() -> AucExperiment:
        if exp is None:
            raise BeckmanError("the offered group has errors; no experiment to export",
                               run.findings.as_list())
        return exp

    return load


def build_document(run: Run, imported_at: datetime | None = None) -> Document:
    """The :class:`Document` of ``run`` (findings, tree, groups always; the rest per group).

    The offered radial group whose files all read without error gives the
    experiment (``auc``, provenance); a radial group always offers ``export``,
    whose ``load`` raises :class:`BeckmanError` when there is no experiment.
    """
    doc = Document(run.path, format=FormatId.BECKMAN, kind_label=KIND_LABEL,
                   tree_title=TREE_TITLE, findings=run.findings)
    g = run.selected
    exp = build_experiment(run, g, imported_at) if g is not None and g.radial and g.ok else None
    doc.tree = _tree(run)
    _header(doc, run, exp)
    doc.summary = _summary(run, exp)
    doc.tables["groups"] = Table.of_frame(groups_table(run))
    doc.table_locations["groups"] = ""
    doc.groups = ExperimentGroups(tuple(grp.key for grp in run.groups),
                                  g.key if g is not None else None,
                                  lambda key: build_document(read_run(run.path, key), imported_at))
    if g is None:
        return doc
    doc.tables["scans"] = Table.of_frame(scans_table(g))
    doc.table_locations["scans"] = g.files[0].name.name
    doc.arrays = dict(_arrays(g, exp))
    if g.radial:
        doc.export = ExperimentExport(experiment_id(run, g), _loader(run, exp))
    if exp is not None:
        doc.provenance = _provenance_tree(exp.provenance or {})
        doc.auc = AucScans(scan_ids=tuple(exp.scan_ids), radius_unit=exp.radius_unit,
                           signal_unit=exp.signal_unit, experiment_id=exp.experiment_id,
                           experiment=exp, table=doc.tables["scans"])
    return doc
