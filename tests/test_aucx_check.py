"""The AUCX verification as a deferred check: ``run`` never touches the
document, and the result it returns leaves the document consistent once
applied (docs/architecture.md, "Deferred work")."""

from __future__ import annotations

import copy
import hashlib
import threading
import zipfile

import numpy as np

from inspector.formats.aucx import open_archive
from inspector.formats.capabilities import CheckResult, Progress
from tests.conftest import FIXTURES, load_expected

AUCX = FIXTURES / "aucx"
BY_FILE = {e["file"]: e for e in load_expected("aucx")}


def _snapshot(doc) -> dict:
    return {
        "findings": doc.findings.as_list(),
        "summary": copy.deepcopy(doc.summary),
        "header": copy.deepcopy(doc.header),
        "tree": copy.deepcopy(doc.tree),
        "provenance": copy.deepcopy(doc.provenance),
        "tables": {k: v.frame().copy() for k, v in doc.tables.items()},
        "table_locations": dict(doc.table_locations),
        "arrays": dict(doc.arrays),
        "checksums": doc.checksums,
        "auc": doc.auc,
        "export": doc.export,
        "checks": list(doc.checks),
        "signal": doc.auc.experiment.signal.copy(),
    }


def _assert_same(doc, before: dict) -> None:
    assert doc.findings.as_list() == before["findings"]
    assert doc.summary == before["summary"]
    assert doc.header == before["header"] and doc.tree == before["tree"]
    assert doc.provenance == before["provenance"]
    assert doc.tables.keys() == before["tables"].keys()
    assert all(doc.tables[k].frame().equals(v) for k, v in before["tables"].items())
    assert doc.table_locations == before["table_locations"]
    assert doc.arrays == before["arrays"]
    assert doc.checksums is before["checksums"]
    assert {m.status for m in doc.checksums.members} == {"pending"}
    assert doc.auc is before["auc"] and doc.export is before["export"]
    assert doc.checks == before["checks"] and doc.verified is False
    np.testing.assert_array_equal(doc.auc.experiment.signal, before["signal"])


def test_run_leaves_the_document_untouched():
    doc = open_archive(AUCX / "syn_per_scan_radius_s2_8x150.aucx")
    before = _snapshot(doc)
    events: list[Progress] = []
    result: list[CheckResult] = []
    # on another thread, as the GUI runs it
    t = threading.Thread(target=lambda: result.append(doc.checks[0].run(events.append)))
    t.start()
    t.join()
    _assert_same(doc, before)
    assert result[0].complete and [e.done for e in events] == list(range(1, 8))
    assert all(isinstance(e, Progress) and e.total == 7 for e in events)
    cancelled = doc.checks[0].run(None, lambda: True)
    assert not cancelled.complete
    _assert_same(doc, before)
    doc.apply(doc.checks[0], result[0])
    assert doc.verified and doc.checksums.verified
    assert doc.auc.experiment is not None  # every member verified: the model stays


def _with_edited_experiment(tmp_path):
    """src_readiness_rich.aucx whose experiment.json gained a trailing space
    (still valid JSON) while checksums.sha256 keeps the old digest."""
    src = AUCX / "src_readiness_rich.aucx"
    out = tmp_path / "edited.aucx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "experiment.json":
                data += b" "
            zout.writestr(info.filename, data)
    return out


def test_applied_result_withdraws_what_failed(tmp_path):
    path = _with_edited_experiment(tmp_path)
    doc = open_archive(path)
    assert doc.ok and "scans" in doc.tables and doc.table_locations["scans"] == "experiment.json"
    assert doc.auc.experiment is not None and doc.auc.experiment_id
    check = doc.checks[0]
    result = check.run()
    assert result.withdraw_tables == ("scans",) and not result.withdraw_auc
    doc.apply(check, result)
    # findings: exactly the mismatch, at the member, without the file name, and the
    # structure judged at open taken back (not judged on a member that does not verify)
    assert [(f.severity, f.code, f.location) for f in doc.findings] == [
        ("error", "checksums.mismatch", "experiment.json"),
        ("warning", "structure.not-checked", "")]
    assert doc.structure_ok is None
    assert path.name not in doc.findings[0].message
    digest = hashlib.sha256(zipfile.ZipFile(path).read("experiment.json")).hexdigest()
    assert f"computed {digest}" in doc.findings[0].message
    # checksum table: verified, the one failed row
    assert doc.checksums.verified and doc.verified
    rows = {m.name: m.status for m in doc.checksums.members}
    assert rows.pop("experiment.json") == "mismatch" and set(rows.values()) == {"ok"}
    assert doc.summary["members"] == [m.to_json() for m in doc.checksums.members]
    assert doc.summary["checksum_verified"] is False
    # tables and AUC capability: the scans table and the experiment are withdrawn
    assert "scans" not in doc.tables and "scans" not in doc.table_locations
    assert doc.auc is not None and doc.auc.experiment is None
    assert doc.auc.experiment_id is None and doc.summary["experiment_id"] is None
    assert doc.auc.untrusted_arrays == frozenset()
    assert doc.auc.scan_ids == tuple(BY_FILE["src_readiness_rich.aucx"]["info"]["scan_ids"])
    assert set(doc.arrays) == {"radius", "signal", "mask"}  # verified arrays stay
    # the header says so, in a new tree
    integrity = doc.header.children[-1]
    assert (integrity.name, integrity.value) == ("integrity", "failed verification")
    assert [(c.name, c.value) for c in integrity.children] == [("experiment.json", "mismatch")]
    assert next(n for n in doc.header.children if n.name == "experiment_id").detail == (
        "not verified")


def test_failed_array_member_is_untrusted(tmp_path):
    doc = open_archive(AUCX / "bad_signal_byte_flip.aucx")
    doc.verify()
    assert doc.auc.untrusted_arrays == frozenset({"signal"})
    assert doc.auc.experiment is None and "signal" in doc.arrays
    assert doc.export is not None  # offered; its load() refuses the archive


def test_failed_manifest_withdraws_the_auc_capability(tmp_path):
    src = AUCX / "src_readiness_rich.aucx"
    out = tmp_path / "manifest.aucx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            zout.writestr(info.filename, data + b"\n" if info.filename == "manifest.json"
                          else data)
    doc = open_archive(out)
    assert doc.auc is not None and doc.export is not None
    doc.verify()
    assert {(f.code, f.location) for f in doc.findings} == {
        ("checksums.mismatch", "manifest.json"), ("structure.not-checked", "")}
    assert doc.auc is None and doc.export is None
