"""Oracle: openauc 0.1.0a1 (test-only) judges our delimited import and our AUCX export.

For every valid delimited corpus source, the archive we export loads in
openauc and its ``to_dict()`` equals ``openauc.load(source).to_dict()`` except
for the import time, the source path and the parser version; every invalid
source is rejected by both.  Crafted sources widen the comparison to rules
the corpus does not exercise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspector
from inspector.formats.auc.export import ExportError, export_to_aucx
from inspector.formats.delimited import load_delimited, run_import

openauc = pytest.importorskip("openauc")
OpenAUCError = pytest.importorskip("openauc.exceptions").OpenAUCError

ROOT = Path(__file__).parent / "fixtures" / "auc-delimited"
ENTRIES = json.loads((ROOT / "expected.json").read_text(encoding="utf-8"))
IGNORED = ("imported_at", "source_path", "parser_version")
STAMP = "2026-01-01T00:00:00Z"


def _strip(d: dict) -> dict:
    d = json.loads(json.dumps(d, default=str))
    d["provenance"] = {k: v for k, v in d["provenance"].items() if k not in IGNORED}
    return d


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
@pytest.mark.slow
def test_exported_archive_loads_in_reference(tmp_path, entry):
    source = ROOT / entry["file"]
    dest = tmp_path / "out.aucx"
    if not entry["valid"]:
        with pytest.raises(OpenAUCError):
            openauc.load(source)
        with pytest.raises(ExportError):
            export_to_aucx(source, dest, exported_at=STAMP)
        assert not dest.exists()
        return
    export_to_aucx(source, dest, exported_at=STAMP)
    assert openauc.validate_aucx(dest).is_valid
    restored = openauc.load(dest).to_dict()
    assert _strip(restored) == _strip(openauc.load(source).to_dict())
    assert _strip(restored) == _strip(entry["to_dict"])
    assert restored["provenance"]["parser_version"] == inspector.__version__
    info = openauc.inspect_aucx(dest)
    assert info.export.software == "Inspector"


M = {"schema_version": "1.0", "data_file": "scans.csv", "experiment": {"experiment_id": "e"}}

#: (name, {file: content}, path to open inside the folder)
CRAFTED = [
    ("tsv_in_csv", {"scans.csv": "scan\tradius_cm\tsignal\na\t5.9\t1\n", "manifest.json": M}, ""),
    ("both_consistent_txt", {"scans.txt": "scan,radius_cm\tsignal\na,5.9\t1\n",
                             "manifest.json": {**M, "data_file": "scans.txt"}}, ""),
    ("declared_tab", {"scans.csv": "scan\tradius_cm\tsignal\na\t5.9\t1\n",
                      "manifest.json": {**M, "delimiter": "tab"}}, ""),
    ("declared_spaced_comma", {"scans.csv": "scan,radius_cm,signal\na,5.9,1\n",
                               "manifest.json": {**M, "delimiter": " , "}}, ""),
    ("header_only", {"scans.csv": "scan,radius_cm,signal\n", "manifest.json": M}, ""),
    ("wide_no_rows", {"scans.csv": "r,a\n", "manifest.json": {
        **M, "format": "generic-wide",
        "columns": {"radius": "r", "scans": [{"column": "a", "scan_id": "A"}]}}}, ""),
    ("wide_same_column_twice", {"scans.csv": "r,a\n5.9,1\n", "manifest.json": {
        **M, "format": "generic-wide", "columns": {"radius": "r", "scans": [
            {"column": "a", "scan_id": "A"}, {"column": "a", "scan_id": "B"}]}}}, ""),
    ("detect_tie", {"scans.csv": "scan,radius_cm,signal\na,5.9,1\n", "manifest.json": {
        **M, "columns": {"radius": "radius_cm", "scans": [{"column": "signal", "scan_id": "A"}]}}},
     ""),
    ("yaml_int_cell", {"scans.csv": "scan,radius_cm,signal\na,5.9,1\n", "manifest.yaml":
                       "schema_version: '1.0'\ndata_file: scans.csv\n"
                       "experiment: {experiment_id: e}\ndefaults: {cell: 1}\n"}, ""),
    ("numeric_text_default", {
        "scans.csv": "scan,radius_cm,signal,wavelength_nm\na,5.9,1,280.0\n",
        "manifest.json": {**M, "defaults": {"wavelength_nm": " 2.8e2 "}}}, ""),
    ("optical_name_in_table", {
        "scans.csv": "scan,radius_cm,signal,optical_system\na,5.9,1,FLUORESCENCE\n",
        "manifest.json": M}, ""),
    ("elapsed_text_conflict", {
        "scans.csv": "scan,radius_cm,signal,elapsed_seconds\na,5.9,1,0\na,6,1,0.0\n",
        "manifest.json": M}, ""),
    ("timestamps", {"scans.csv": "scan,radius_cm,signal,acquisition_timestamp\n"
                                 "a,5.9,1,2024-01-01T10:00:00.000001-00:30\nb,5.9,1,20240101T100000Z\n",
                    "manifest.json": M}, ""),
    ("units_and_samples", {"scans.csv": "scan,radius_cm,signal,signal_unit\na,5.9,1,Fringe\n",
                           "manifest.json": {**M, "samples": [
                               {"sample_id": "s", "concentration_value": "1",
                                "concentration_unit": "uM"},
                               {"sample_id": "t", "concentration_unit": "x",
                                "density": True}]}}, ""),
    ("negative_elapsed", {"scans.csv": "scan,radius_cm,signal,elapsed_seconds\na,5.9,1,-0.5\n",
                          "manifest.json": M}, ""),
    ("nan_in_json_manifest", {"scans.csv": "scan,radius_cm,signal\na,5.9,1\n",
                              "manifest.json": '{"schema_version": "1.0", '
                              '"data_file": "scans.csv", "experiment": {"experiment_id": "e"}, '
                              '"instrument": {"temperature_c": NaN}}'},
     ""),
    ("blank_and_crlf", {"scans.csv": "scan,radius_cm,signal\r\n\r\na,5.9,1\r\n  \r\nb,5.9,2\r\n",
                        "manifest.json": M}, "scans.csv"),
    ("bom_header", {"scans.csv": "\ufeffscan,radius_cm,signal\na,5.9,1\n", "manifest.json": M}, ""),
    ("other_data_file", {"scans.csv": "scan,radius_cm,signal\na,5.9,1\n", "other.csv": "x,y\n1,2\n",
                         "manifest.json": M}, "other.csv"),
    ("unicode_digits", {"scans.csv": "scan,radius_cm,signal\na,٥.٩,1\n", "manifest.json": M}, ""),
]


def _write(folder: Path, files: dict) -> None:
    folder.mkdir()
    for name, content in files.items():
        text = json.dumps(content) if isinstance(content, dict) else content
        (folder / name).write_text(text, encoding="utf-8", newline="")


@pytest.mark.parametrize("name, files, target", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_crafted_sources_agree_with_reference(tmp_path, name, files, target):
    folder = tmp_path / name
    _write(folder, files)
    path = folder / target if target else folder
    try:
        ref = openauc.load(path).to_dict()
    except Exception:  # noqa: BLE001 - the reference raises pydantic errors too
        ref = None
    ours = run_import(path)
    assert ours.ok is (ref is not None), [f.to_json() for f in ours.findings]
    if ref is not None:
        assert _strip(ours.experiment.to_dict()) == _strip(ref)
        dest = tmp_path / "out.aucx"
        export_to_aucx(load_delimited(path), dest, exported_at=STAMP)
        assert _strip(openauc.load(dest).to_dict()) == _strip(ref)
    else:
        assert [f for f in ours.findings if f.severity == "error"][0].location
