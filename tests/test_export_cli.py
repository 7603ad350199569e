"""``inspector export`` end to end (delimited and AUCX sources) and :func:`export_to_aucx` errors."""

from __future__ import annotations

import hashlib
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.aucx import read_experiment
from inspector.formats.delimited import load_delimited
from inspector.formats.export import ExportError, export_to_aucx

FIX = Path(__file__).parent / "fixtures"
DELIMITED = FIX / "auc-delimited"
SAMPLE = Path(__file__).parent.parent / "inspector" / "resources" / "samples" / "demo_scans"
STAMP = "2026-01-01T00:00:00Z"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _without_import_time(d: dict) -> dict:
    d = dict(d)
    d["provenance"] = {k: v for k, v in d["provenance"].items() if k != "imported_at"}
    return d


@pytest.mark.parametrize("source", ["long_csv", "wide_tsv", "per_scan", "long_tsv/scans.tsv",
                                    "matching_manifests/manifest.yaml"])
def test_cli_exports_delimited_source(tmp_path, capsys, source):
    dest = tmp_path / "out.aucx"
    assert main(["export", str(DELIMITED / source), str(dest), "--exported-at", STAMP]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {dest}"
    with open_document(dest) as doc:
        doc.verify()
        assert doc.ok, [f.to_json() for f in doc.findings]
        assert doc.format == "aucx"
    restored = read_experiment(dest).to_dict()
    original = load_delimited(DELIMITED / source).to_dict()
    assert _without_import_time(restored) == _without_import_time(original)
    assert restored["provenance"]["parser_name"] == original["provenance"]["parser_name"]


def test_export_is_deterministic_for_a_fixed_time(tmp_path):
    exp = load_delimited(SAMPLE)
    a = export_to_aucx(exp, tmp_path / "a.aucx", exported_at=STAMP)
    b = export_to_aucx(exp, tmp_path / "b.aucx", exported_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert a.read_bytes() == b.read_bytes()


def test_sample_exports_and_round_trips(tmp_path):
    dest = tmp_path / "demo.aucx"
    assert main(["export", str(SAMPLE), str(dest)]) == 0
    restored = read_experiment(dest)
    assert restored.experiment_id == "demo-sv-001"
    assert restored.scan_ids == ["scan_001", "scan_002", "scan_003", "scan_004"]
    assert restored.n_points == 12 and restored.signal_unit == "AU"


def test_cli_reexports_an_aucx_archive(tmp_path):
    src = FIX / "aucx" / "src_per_scan.aucx"
    dest = tmp_path / "again.aucx"
    assert main(["export", str(src), str(dest), "--exported-at", STAMP]) == 0
    assert read_experiment(dest).to_dict() == read_experiment(src).to_dict()


def test_existing_destination_is_refused_then_overwritten(tmp_path, capsys):
    dest = tmp_path / "out.aucx"
    dest.write_bytes(b"keep me")
    assert main(["export", str(SAMPLE), str(dest)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert dest.read_bytes() == b"keep me"
    assert main(["export", str(SAMPLE), str(dest), "--overwrite"]) == 0
    assert read_experiment(dest).experiment_id == "demo-sv-001"


@pytest.mark.parametrize("source, needle", [
    (DELIMITED / "malformed_duplicate", "scans.csv:3"),
    (DELIMITED / "conflict", "manifest.json:defaults.cell"),
    (DELIMITED / "ambiguous_manifest", "both a JSON and a YAML manifest"),
    (FIX / "aucx" / "bad_signal_byte_flip.aucx", "arrays/signal.npy"),
    (FIX / "aucx" / "bad_not_a_zip.aucx", "bad_not_a_zip.aucx"),
    (DELIMITED / "README.md", "not an AUC source"),
    (FIX / "nope", "no such file"),
])
def test_invalid_source_fails_and_leaves_nothing(tmp_path, capsys, source, needle):
    dest = tmp_path / "out.aucx"
    assert main(["export", str(source), str(dest)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("inspector export: ") and needle in err
    assert list(tmp_path.iterdir()) == []


def test_missing_destination_folder(tmp_path, capsys):
    dest = tmp_path / "missing" / "out.aucx"
    assert main(["export", str(SAMPLE), str(dest)]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


def test_bad_exported_at(tmp_path, capsys):
    assert main(["export", str(SAMPLE), str(tmp_path / "o.aucx"), "--exported-at", "soon"]) == 1
    assert "ISO-8601" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_destination_that_is_a_folder_or_the_source(tmp_path):
    with pytest.raises(ExportError, match="is a folder"):
        export_to_aucx(SAMPLE, tmp_path)
    src = tmp_path / "a.aucx"
    shutil.copyfile(FIX / "aucx" / "src_long_csv.aucx", src)
    before = _sha(src)
    with pytest.raises(ExportError, match="source file itself"):
        export_to_aucx(src, src, overwrite=True)
    assert _sha(src) == before


def test_write_failure_is_an_export_error_and_leaves_nothing(tmp_path):
    exp = load_delimited(SAMPLE)
    exp.signal[0, 0] = float("nan")  # a shared-axis archive cannot hold a non-finite observation
    dest = tmp_path / "out.aucx"
    with pytest.raises(ExportError, match="writing the archive failed"):
        export_to_aucx(exp, dest)
    assert list(tmp_path.iterdir()) == []


def test_progress_is_reported(tmp_path):
    steps = []
    export_to_aucx(SAMPLE, tmp_path / "o.aucx", progress=lambda d, t, m: steps.append((d, t)))
    assert steps[0] == (0, 3) and steps[-1] == (3, 3)


def test_inputs_are_not_modified(tmp_path):
    before = {p.name: _sha(p) for p in SAMPLE.iterdir()}
    export_to_aucx(SAMPLE, tmp_path / "o.aucx")
    assert {p.name: _sha(p) for p in SAMPLE.iterdir()} == before
