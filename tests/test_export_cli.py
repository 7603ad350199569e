"""``inspector export`` end to end (delimited and AUCX sources), :func:`export_to_aucx` errors,
and export by the documents' export capability."""

from __future__ import annotations

import hashlib
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.auc.export import ExportError, export_to_aucx, load_source
from inspector.formats.aucx import read_experiment
from inspector.formats.capabilities import ExperimentExport
from inspector.formats.delimited import load_delimited
from inspector.formats.document import Document
from inspector.formats.findings import Finding

FIX = Path(__file__).parent / "fixtures"
DELIMITED = FIX / "auc-delimited"
SAMPLE = Path(__file__).parent.parent / "resources" / "samples" / "demo_scans"
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


# -- export by capability ----------------------------------------------------

def test_an_open_verified_document_is_exported_by_its_capability(tmp_path):
    with open_document(SAMPLE) as doc:
        assert doc.export is not None and doc.verified and doc.ok
        dest = export_to_aucx(doc, tmp_path / "doc.aucx", exported_at=STAMP)
        exp = doc.auc.experiment
    assert read_experiment(dest).to_dict() == exp.to_dict()
    assert _without_import_time(exp.to_dict()) == _without_import_time(
        load_delimited(SAMPLE).to_dict())


def test_an_open_document_with_errors_is_refused_with_its_findings(tmp_path):
    with open_document(DELIMITED / "malformed_duplicate") as doc:
        with pytest.raises(ExportError) as info:
            export_to_aucx(doc, tmp_path / "o.aucx")
    message = str(info.value)
    assert message.startswith("malformed_duplicate: not a valid CSV/TSV AUC scan table: ")
    assert "scans.csv:3: " in message
    assert info.value.findings and info.value.findings[0].location == "scans.csv:3"
    assert list(tmp_path.iterdir()) == []


def test_an_unverified_open_document_is_refused_and_left_alone(tmp_path):
    with open_document(FIX / "aucx" / "src_long_csv.aucx") as doc:
        assert not doc.verified
        before = doc.findings.as_list()
        with pytest.raises(ExportError, match="not verified yet"):
            export_to_aucx(doc, tmp_path / "o.aucx")
        assert not doc.verified and doc.findings.as_list() == before
    assert list(tmp_path.iterdir()) == []


def test_a_document_without_export_is_not_an_auc_source(tmp_path):
    src = FIX / "vneurotk/v1/continuous_dense_f32_intids.h5"
    with pytest.raises(ExportError, match="continuous_dense_f32_intids.h5: not an AUC source"):
        export_to_aucx(src, tmp_path / "o.aucx")
    assert list(tmp_path.iterdir()) == []


class _Rejected(Exception):
    def __init__(self, findings):
        super().__init__("rejected")
        self.findings = findings


def _offering(tmp_path, load) -> Document:
    doc = Document(tmp_path / "src.thing", kind_label="thing")
    doc.export = ExperimentExport("x", load)
    return doc


def test_any_exception_carrying_findings_lists_them(tmp_path):
    errors = [Finding("error", f"c.{i}", f"problem {i}", f"m{i}") for i in range(7)]
    warning = Finding("warning", "c.w", "only a warning", "w")

    def load():
        raise _Rejected([warning, *errors])

    with pytest.raises(ExportError) as info:
        load_source(_offering(tmp_path, load))
    assert str(info.value) == ("src.thing: not a valid thing: m0: problem 0; m1: problem 1; "
                               "m2: problem 2; m3: problem 3; m4: problem 4; "
                               "... and 2 more error(s)")
    assert info.value.findings == [warning, *errors]


def test_a_load_failure_without_findings_gives_its_reason_in_plain_words(tmp_path):
    def load():
        raise OSError("disk gone")

    with pytest.raises(ExportError, match=r"^src.thing: not a valid thing: disk gone$"):
        load_source(_offering(tmp_path, load))


def test_a_bug_in_load_is_not_disguised_as_a_verdict(tmp_path):
    def load():
        raise KeyError("bug")

    with pytest.raises(KeyError):
        load_source(_offering(tmp_path, load))


def test_an_experiment_passes_through():
    exp = load_delimited(SAMPLE)
    assert load_source(exp) is exp
