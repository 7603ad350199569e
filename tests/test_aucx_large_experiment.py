"""A large experiment.json: written one scan at a time, read as it inflates.

The writer encodes experiment.json scan by scan (byte-identical to encoding the whole
object at once); the reader parses one above ``EXPERIMENT_MEMBER_LIMIT`` as it
inflates, its scans straight into columns, with the verdicts of the in-memory parser.
The limits are lowered here so that small archives take the streamed path; openauc
0.1.0a1 is the oracle for what the archives hold.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fuzz.aucx_model_edits import read_members, write_archive
from inspector.cli import json_line
from inspector.formats.auc.export import load_source
from inspector.formats.auc.model import AucExperiment
from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.aucx import jsonstream, open_archive
from inspector.formats.aucx import reader as aucx_reader
from inspector.formats.aucx import writer as aucx_writer
from inspector.formats.aucx.writer import dumps, experiment_blocks, experiment_record, write_aucx

openauc = pytest.importorskip("openauc")
CORPUS = Path(__file__).parent / "fixtures" / "aucx"
STAMP = "2026-01-02T03:04:05Z"


def _experiment(n: int) -> AucExperiment:
    """``n`` scans of three points on a shared axis, each with its own elapsed time."""
    scans = ScanRecords.of(
        {"scan_id": f"scan{i:06d}", "index": i,
         "elapsed_time": {"value": 60.0 * i, "unit": "s", "unit_label": None,
                          "status": "present", "provenance": "supplied"},
         "cell": "1", "annotations": [f"n={i}"] if i % 3 == 0 else []}
        for i in range(n))
    signal = np.arange(3 * n, dtype=np.float64).reshape(n, 3) / 7.0
    return AucExperiment(
        metadata={"experiment_id": "large"}, instrument=None, samples=[], scans=scans,
        provenance=None, mode="shared", radius_unit="cm", signal_unit="AU",
        scan_ids=[f"scan{i:06d}" for i in range(n)], radius=np.array([6.0, 6.1, 6.2]),
        signal=signal, mask=np.ones((n, 3), dtype=bool))


def rewrite_member(src: Path, dest: Path, name: str, data: bytes) -> None:
    """``src`` with member ``name`` replaced by ``data`` (checksums recomputed)."""
    write_archive(dest, [(n, data if n == name else d) for n, d in read_members(src)])


def _line(path: Path) -> str:
    doc = open_archive(path)
    try:
        doc.verify()
        return json_line(doc.to_json())
    finally:
        doc.close()


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("s*.aucx")))
def test_experiment_json_encoded_scan_by_scan_is_the_whole_encoding(name):
    exp = load_source(CORPUS / name)
    assert b"".join(experiment_blocks(exp)) == dumps(experiment_record(exp))


def test_no_scans_and_many_blocks_encode_as_the_whole(monkeypatch):
    monkeypatch.setattr(aucx_writer, "_BLOCK", 10_000)
    for n in (0, 1, 5000):
        exp = _experiment(n)
        blocks = list(experiment_blocks(exp))
        assert b"".join(blocks) == dumps(experiment_record(exp))
        assert (len(blocks) == 1) == (n < 2)
        assert all(10_000 <= len(b) < 10_400 for b in blocks[:-1])


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.aucx")))
def test_streamed_parse_gives_the_in_memory_report(name, monkeypatch):
    path = CORPUS / name
    whole = _line(path)
    monkeypatch.setattr(aucx_reader, "EXPERIMENT_MEMBER_LIMIT", 0)
    monkeypatch.setattr(jsonstream, "BLOCK", 7)
    assert _line(path) == whole


def test_archive_above_the_in_memory_limit_is_written_read_back_and_loads(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr(aucx_reader, "EXPERIMENT_MEMBER_LIMIT", 4096)
    monkeypatch.setattr(jsonstream, "BLOCK", 1000)
    dest = tmp_path / "large.aucx"
    write_aucx(_experiment(300), dest, exported_at=STAMP)
    with zipfile.ZipFile(dest) as zf:
        assert zf.getinfo("experiment.json").file_size > 20 * 4096
    doc = open_archive(dest)
    try:
        doc.verify()
        assert doc.ok and doc.verified
        exp = doc.auc.experiment
        assert isinstance(exp.scans, ScanRecords) and len(exp.scans) == 300
        reference = openauc.load(dest).to_dict()
        ours = json.loads(json.dumps(list(exp.scans)))
        assert ours == [{k: r[k] for k in mine} for mine, r in zip(ours, reference["scans"],
                                                                    strict=True)]
        with zipfile.ZipFile(dest) as zf:
            assert ours == json.loads(zf.read("experiment.json"))["scans"]
        assert exp.scans[299]["elapsed_time"]["value"] == 17940.0
        assert exp.scans[3]["annotations"] == ["n=3"]
        assert np.array_equal(exp.signal, np.asarray(reference["observations"]["signal"]))
    finally:
        doc.close()


def _streamed_findings(tmp_path: Path, text: bytes, monkeypatch) -> list[tuple[str, str]]:
    src = CORPUS / "src_long_csv.aucx"
    path = tmp_path / "edited.aucx"
    rewrite_member(src, path, "experiment.json", text)
    monkeypatch.setattr(aucx_reader, "EXPERIMENT_MEMBER_LIMIT", 0)
    monkeypatch.setattr(jsonstream, "BLOCK", 5)
    doc = open_archive(path)
    try:
        return [(f.code, f.message) for f in doc.findings]
    finally:
        doc.close()


def test_streamed_parse_reports_bad_json_with_its_place(tmp_path, monkeypatch):
    with zipfile.ZipFile(CORPUS / "src_long_csv.aucx") as zf:
        text = zf.read("experiment.json")
    cut = text.index(b'"scans"') + 40
    found = _streamed_findings(tmp_path, text[:cut] + b"}" + text[cut:], monkeypatch)
    invalid = [m for c, m in found if c == "json.invalid"]
    assert len(invalid) == 1 and "experiment.json is not valid JSON" in invalid[0]
    with pytest.raises(json.JSONDecodeError) as whole:
        json.loads(text[:cut] + b"}" + text[cut:])
    assert invalid[0].endswith(f": {whole.value.msg} at character {whole.value.pos}")


def test_streamed_parse_reads_nan_as_openauc_with_a_note(tmp_path, monkeypatch):
    with zipfile.ZipFile(CORPUS / "src_long_csv.aucx") as zf:
        payload = json.loads(zf.read("experiment.json"))
    payload["scans"][1]["temperature"] = {"value": float("nan"), "unit": "degC",
                                         "unit_label": None, "status": "present",
                                         "provenance": "supplied"}
    found = _streamed_findings(tmp_path, json.dumps(payload, indent=2).encode(), monkeypatch)
    assert [c for c, _ in found if c == "json.non-finite-number"] == ["json.non-finite-number"]


def test_more_scan_records_than_the_limit_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonstream, "MAX_SCANS", 1)
    with zipfile.ZipFile(CORPUS / "src_long_csv.aucx") as zf:
        text = zf.read("experiment.json")
    found = _streamed_findings(tmp_path, text, monkeypatch)
    assert ("json.invalid", "experiment.json is not valid JSON: its scans hold more than 1 "
            "records, the most Inspector reads") in found


@pytest.mark.slow
def test_verify_json_summarises_the_scan_ids_of_a_large_archive(tmp_path):
    dest = tmp_path / "many.aucx"
    write_aucx(_experiment(10_001), dest, exported_at=STAMP)
    doc = open_archive(dest)
    try:
        doc.verify()
        summary = doc.to_json()["summary"]
        ids = summary["scan_ids"]
    finally:
        doc.close()
    assert summary["structure"]["points_per_scan"] == {"summarised": True, "count": 10_001,
                                                       "first": [3] * 5, "last": [3] * 5}
    assert ids == {"summarised": True, "count": 10_001,
                   "first": [f"scan{i:06d}" for i in range(5)],
                   "last": [f"scan{i:06d}" for i in range(9996, 10_001)]}


def test_a_provenance_that_cannot_be_encoded_is_refused_after_the_experiment(tmp_path,
                                                                           monkeypatch):
    monkeypatch.setattr(aucx_writer, "_check_models", lambda *_: None)  # reach the encoder
    exp = _experiment(3)
    exp.provenance = {"parser_name": "x", "warnings": [float("nan")]}
    with pytest.raises(aucx_writer.ArchiveWriteError, match="cannot encode the experiment "
                       "as JSON: Out of range float values are not JSON compliant"):
        write_aucx(exp, tmp_path / "bad.aucx", exported_at=STAMP)
    assert list(tmp_path.iterdir()) == []


def test_npy_header_messages_name_no_memory_address():
    from inspector.formats.aucx.npyfmt import NpyHeaderError, parse_header

    body = b"{'descr': f(), 'fortran_order': False, 'shape': (3,), }" + b" " * 6 + b"\n"
    with pytest.raises(NpyHeaderError) as caught:
        parse_header(b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body)
    assert str(caught.value) == ("malformed .npy header: malformed node or string on line 1: "
                                 "<ast.Call object>")


def test_the_read_back_of_an_export_builds_no_scans_table(tmp_path, monkeypatch):
    def no_table(_scans):
        raise AssertionError("the scans table was built")

    monkeypatch.setattr(aucx_reader, "scans_table", no_table)
    dest = write_aucx(_experiment(50), tmp_path / "x.aucx", exported_at=STAMP)
    monkeypatch.undo()
    doc = open_archive(dest)
    try:
        doc.verify()
        assert doc.ok and len(doc.tables["scans"]) == 50
        assert doc.tables["scans"].column(0).tolist() == [f"scan{i:06d}" for i in range(50)]
    finally:
        doc.close()
