"""Every auc-delimited corpus entry: our verdict, findings and model against expected.json."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import inspector
from inspector.cli import format_report
from inspector.formats import open_document
from inspector.formats.delimited import DelimitedError, load_delimited, open_delimited
from inspector.formats.document import FORMAT_DELIMITED
from inspector.formats.findings import RULES

ROOT = Path(__file__).parent / "fixtures" / "auc-delimited"
ENTRIES = json.loads((ROOT / "expected.json").read_text(encoding="utf-8"))
VALID = [e for e in ENTRIES if e["valid"]]
INVALID = [e for e in ENTRIES if not e["valid"]]
IGNORED = ("imported_at", "source_path", "parser_version")

#: Where the first error of each rejected entry must point.
EXPECTED_LOCATION = {
    "matching_manifests": "matching_manifests",
    "ambiguous_manifest": "ambiguous_manifest",
    "malformed_duplicate": "scans.csv:3",
    "malformed_missing_column": "scans.csv:signal",
    "malformed_nonfinite": "scans.csv:3",
    "conflict": "manifest.json:defaults.cell",
}


def _strip(d: dict) -> dict:
    out = dict(d)
    out["provenance"] = {k: v for k, v in d["provenance"].items() if k not in IGNORED}
    return out


def test_corpus_is_complete():
    assert len(ENTRIES) == 16
    assert len(VALID) == 10 and len(INVALID) == 6
    assert set(EXPECTED_LOCATION) == {e["file"] for e in INVALID}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_verdict_matches_reference(entry):
    """The one check of each entry's verdict: opened through the registry, fully verified,
    no finding from a reader that failed."""
    with open_document(ROOT / entry["file"]) as doc:
        doc.verify()
        assert doc.format == FORMAT_DELIMITED
        assert not [f for f in doc.findings if f.code.startswith("internal.")]
        assert doc.ok is entry["valid"], [f.to_json() for f in doc.findings]


@pytest.mark.parametrize("entry", VALID, ids=[e["file"] for e in VALID])
def test_model_equals_reference_to_dict(entry):
    doc = open_delimited(ROOT / entry["file"])
    ours = doc.summary["model"]
    ref = entry["to_dict"]
    assert list(ours) == list(ref)
    for key in ("metadata", "instrument", "samples", "scans", "observations"):
        assert ours[key] == ref[key], key
    assert _strip(ours)["provenance"] == _strip(ref)["provenance"]
    prov = ours["provenance"]
    assert prov["parser_version"] == inspector.__version__
    assert prov["source_path"].endswith(ref["provenance"]["source_path"])
    assert Path(prov["source_path"]).is_absolute()
    assert prov["imported_at"].endswith("Z")


@pytest.mark.parametrize("entry", VALID, ids=[e["file"] for e in VALID])
def test_source_checksums_are_the_file_digests(entry):
    doc = open_delimited(ROOT / entry["file"])
    folder = (ROOT / entry["file"])
    folder = folder if folder.is_dir() else folder.parent
    checksums = doc.summary["model"]["provenance"]["source_checksums"]
    assert [c["role"] for c in checksums] == ["manifest", "data_file"]
    for c in checksums:
        data = (folder / c["filename"]).read_bytes()
        assert c["value"] == hashlib.sha256(data).hexdigest()
        assert c["byte_size"] == len(data)
    assert doc.summary["source_files"] == checksums
    # the source tree and the provenance tree show the same digests
    tree_digests = {n.value for n in doc.tree.walk() if n.name == "sha256"}
    assert tree_digests == {c["value"] for c in checksums}
    prov_values = {n.value for n in doc.provenance.walk() if n.name == "value"}
    assert prov_values == {c["value"] for c in checksums}


@pytest.mark.parametrize("entry", VALID, ids=[e["file"] for e in VALID])
def test_document_views(entry):
    doc = open_delimited(ROOT / entry["file"])
    ref = entry["to_dict"]
    obs = ref["observations"]
    s = doc.summary
    assert s["experiment_id"] == ref["metadata"]["experiment_id"]
    assert s["radius_axis_mode"] == obs["mode"]
    assert s["scan_ids"] == obs["scan_ids"]
    assert s["n_scans"] == len(obs["scan_ids"])
    assert s["n_points"] == len(obs["signal"][0])
    assert (s["radius_unit"], s["signal_unit"]) == (obs["radius_unit"], obs["signal_unit"])
    assert s["parser"] == ref["provenance"]["parser_name"]
    signal = doc.arrays["signal"].read()
    mask = doc.arrays["mask"].read()
    radius = doc.arrays["radius"].read()
    assert signal.dtype == np.float64 and mask.dtype == np.bool_
    expected_signal = np.array([[np.nan if v is None else v for v in row] for row in obs["signal"]])
    np.testing.assert_array_equal(signal, expected_signal)
    if obs["mode"] == "shared":
        assert radius.shape == (s["n_points"],) and mask.all()
        np.testing.assert_array_equal(radius, obs["radius"])
    else:
        assert mask.tolist() == obs["mask"]
        assert radius.shape == signal.shape
    table = doc.tables["scans"].frame()
    assert table["scan_id"].tolist() == obs["scan_ids"]
    assert table["points"].tolist() == [int(m) for m in mask.sum(axis=1)]
    assert doc.auc.experiment.to_dict()["observations"] == obs
    assert doc.auc.scan_ids == tuple(obs["scan_ids"])
    assert (doc.auc.radius_unit, doc.auc.signal_unit) == (obs["radius_unit"], obs["signal_unit"])
    assert doc.auc.experiment_id == doc.export.experiment_id == ref["metadata"]["experiment_id"]
    assert doc.export.load() is doc.auc.experiment
    assert doc.kind_label == "CSV/TSV AUC scan table" and doc.tree_title == "Source files"
    assert doc.table_locations["scans"] in {n.name for n in doc.tree.children}
    assert not hasattr(doc, "extra")  # capabilities, no untyped dict
    header = {n.name: n.value for n in doc.header.children}
    assert header["format"] == FORMAT_DELIMITED
    assert header["scans"] == s["n_scans"]
    assert header["parser"] == ref["provenance"]["parser_name"]
    json.dumps(doc.to_json(), allow_nan=False)


@pytest.mark.parametrize("entry", INVALID, ids=[e["file"] for e in INVALID])
def test_rejected_findings_name_file_and_place(entry):
    doc = open_delimited(ROOT / entry["file"])
    errors = [f for f in doc.findings if f.severity == "error"]
    assert errors
    assert errors[0].location == EXPECTED_LOCATION[entry["file"]]
    assert "model" not in doc.summary and doc.auc is None and not hasattr(doc, "extra")
    with pytest.raises(DelimitedError) as info:
        doc.export.load()
    assert info.value.findings[0].location == EXPECTED_LOCATION[entry["file"]]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_messages_never_name_the_file_and_the_report_does(entry):
    doc = open_document(ROOT / entry["file"])
    report = format_report(doc)
    data_files = {n.name for n in doc.tree.children}
    for f in doc.findings:
        assert doc.name not in f.message and not any(n in f.message for n in data_files)
        assert f.rule and RULES[f.code].severity == f.severity
        assert f"{doc.name}: {f.message}" in report


@pytest.mark.parametrize("entry", INVALID, ids=[e["file"] for e in INVALID])
def test_strict_api_raises_reference_class(entry):
    with pytest.raises(DelimitedError) as info:
        load_delimited(ROOT / entry["file"])
    assert info.value.reference_class == entry["reference_error"]["class"]
    assert info.value.findings
    assert info.value.findings[0].location == EXPECTED_LOCATION[entry["file"]]


def test_reference_messages_carry_the_same_facts():
    """The reference messages' key facts appear in ours (row, scan, radius, column, values)."""
    by_file = {e["file"]: e for e in INVALID}
    dup = open_delimited(ROOT / "malformed_duplicate").findings[0].message
    assert "line 3" in dup and "'scan_001'" in dup and "5.9" in dup
    nonfinite = open_delimited(ROOT / "malformed_nonfinite").findings[0].message
    assert "line 3" in nonfinite and "'signal'" in nonfinite and "'nan'" in nonfinite
    conflict = open_delimited(ROOT / "conflict").findings[0].message
    assert "cell is '2' in the data" in conflict and "'1' in the manifest defaults" in conflict
    assert "cell is '2' in the data but '1' in the manifest defaults" in \
        by_file["conflict"]["reference_error"]["message"]


def test_strict_api_returns_experiment_with_fixed_import_time():
    from datetime import UTC, datetime

    exp = load_delimited(ROOT / "long_csv",
                         imported_at=datetime(2025, 12, 31, 23, 59, 58, 123456, tzinfo=UTC))
    ref = next(e for e in VALID if e["file"] == "long_csv")["to_dict"]
    ours = exp.to_dict()
    assert ours["provenance"]["imported_at"] == ref["provenance"]["imported_at"]
    assert _strip(ours) == _strip(ref)
