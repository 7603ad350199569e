"""Structural validation of archives of any size: no verdict without the check.

Archives whose radius and mask are small are examined at open from the arrays
read whole; larger ones by the deferred verification, which folds the radius
and mask in row blocks (``inspector.formats.aucx.structure``).  The same
archive through both paths gives the same findings and summary; where the
check cannot run (cancelled, the row limit), ``structure_ok`` is null, a
``structure.not-checked`` finding says why, ``verify`` exits 1 and the window
says "not checked".  Archives are generated at test time with openauc's
synthetic API (the reference's own verdicts are the oracle).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.aucx import reader as aucx_reader
from inspector.formats.aucx import structure as aucx_structure
from inspector.formats.aucx import write_aucx
from tests.test_auc_structure_oracle import _per_scan_rows, ours_from_dict

openauc = pytest.importorskip("openauc")


def _generate(path: Path, scenario: str, n_scans: int, n_points: int) -> Path:
    from openauc.synthetic import SyntheticExperimentConfig, generate_experiment

    exp = generate_experiment(SyntheticExperimentConfig(
        scenario=scenario, n_scans=n_scans, n_points=n_points, seed=7))
    exp.export(path)
    return path


@pytest.fixture(scope="module")
def invalid_400(tmp_path_factory) -> Path:
    """openauc's invalid-structure scenario at 400 scans x 3 000 points."""
    return _generate(tmp_path_factory.mktemp("inv") / "inv.aucx", "invalid-structure",
                     400, 3000)


@pytest.fixture(scope="module")
def per_scan_5000(tmp_path_factory) -> Path:
    """5 000 per-scan rows (radius + mask 1.35 MB)."""
    return _generate(tmp_path_factory.mktemp("ps") / "ps.aucx", "per-scan-radius", 5000, 30)


def _structure_of(path: Path) -> tuple[list[Any], Any, Any, Any]:
    """(structural findings, summary.structure, readiness, structure_ok) after verify."""
    with open_document(path) as doc:
        doc.verify()
        found = [f.to_json() for f in doc.findings if f.scope != "integrity"]
        return (found, doc.summary.get("structure"), doc.summary.get("readiness"),
                doc.structure_ok)


def _streamed(monkeypatch: pytest.MonkeyPatch, block: int | None = None) -> None:
    monkeypatch.setattr(aucx_reader, "EXPERIMENT_LOAD_LIMIT", 0)
    if block is not None:
        monkeypatch.setattr(aucx_structure, "BLOCK_BYTES", block)


@pytest.mark.slow
def test_invalid_structure_at_400_by_3000_is_reported(invalid_400, capsys):
    """The case that used to print OK: openauc validate fails it, so do we."""
    from openauc.cli import app
    from typer.testing import CliRunner

    assert CliRunner().invoke(app, ["validate", str(invalid_400)]).exit_code == 1
    assert main(["verify", "--json", str(invalid_400)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["structure_ok"] is False
    codes = [f["code"] for f in report["findings"] if f["severity"] == "error"]
    assert codes == ["structure.duplicate_scan_id", "structure.scan_id_mismatch"]
    ref = openauc.load(invalid_400).summary_data().to_dict()
    assert report["summary"]["structure"] == json.loads(json.dumps(ref))


@pytest.mark.parametrize("fixture", ["invalid_400", "per_scan_5000"])
@pytest.mark.slow
def test_streamed_path_equals_the_in_memory_path(fixture, request, monkeypatch):
    path = request.getfixturevalue(fixture)
    with monkeypatch.context() as m:
        m.setattr(aucx_reader, "STRUCTURE_READ_LIMIT", 1 << 40)  # read whole at open
        in_memory = _structure_of(path)
    assert in_memory[1] is not None and in_memory[3] is not None
    _streamed(monkeypatch, block=64 << 10)  # several blocks
    streamed = _structure_of(path)
    assert streamed == in_memory
    assert streamed[1]["n_scans"] == len(streamed[1]["points_per_scan"])
    if fixture == "invalid_400":  # openauc's own summary takes ~20 s at 5 000 scans
        ref = openauc.load(path)
        assert streamed[1] == json.loads(json.dumps(ref.summary_data().to_dict()))
        assert streamed[3] == ref.validate_structure().is_valid


def test_rows_with_holes_and_turns_fold_block_by_block(tmp_path, monkeypatch):
    """Per-scan rows that reverse, repeat and are empty, folded one row per block."""
    from openauc.synthetic import SyntheticExperimentConfig, generate_experiment

    d = generate_experiment(SyntheticExperimentConfig(
        scenario="per-scan-radius", n_scans=5, n_points=8, seed=3)).to_dict()
    _per_scan_rows(d, [[6.0, 6.1, 6.05], [6.3, 6.2, 6.1], [], [6.0, 6.0, 6.1],
                       [6.0, 6.2, 6.1, 6.1]])
    path = write_aucx(ours_from_dict(copy.deepcopy(d)), tmp_path / "rows.aucx",
                      exported_at="2026-06-01T12:00:00Z")
    in_memory = _structure_of(path)
    _streamed(monkeypatch, block=1)
    assert _structure_of(path) == in_memory
    codes = {f["code"] for f in in_memory[0]}
    assert {"structure.radius_not_monotonic", "structure.duplicate_radius_within_scan",
            "structure.empty_scan"} <= codes


@pytest.mark.slow
def test_a_deferred_structure_is_pending_until_verified(invalid_400, monkeypatch):
    _streamed(monkeypatch)
    with open_document(invalid_400) as doc:
        assert doc.structure is None and doc.structure_ok is None
        assert doc.to_json()["structure_ok"] is None
        doc.verify()
        assert doc.structure is not None and doc.structure_ok is False
        assert not [f for f in doc.findings if f.code == "structure.not-checked"]


def test_a_cancelled_verification_leaves_the_structure_not_checked(invalid_400, monkeypatch):
    _streamed(monkeypatch)
    with open_document(invalid_400) as doc:
        doc.verify(cancelled=lambda: True)
        assert doc.structure_ok is None and doc.to_json()["structure_ok"] is None
        notes = [f for f in doc.findings if f.code == "structure.not-checked"]
        assert len(notes) == 1 and "cancelled" in notes[0].message
        assert notes[0].scope == "structure" and notes[0].severity == "warning"
        doc.verify()  # a later complete run checks it
        assert doc.structure_ok is False
        assert not [f for f in doc.findings if f.code == "structure.not-checked"]


@pytest.mark.slow
def test_cancelled_between_row_blocks(per_scan_5000, monkeypatch):
    """Cancellation is polled between row blocks of the structural pass too."""
    _streamed(monkeypatch, block=4096)
    calls = {"n": 0}

    def cancel_late() -> bool:
        calls["n"] += 1
        return calls["n"] > 12  # after hashing started, inside the fold

    with open_document(per_scan_5000) as doc:
        doc.verify(cancelled=cancel_late)
        assert doc.structure_ok is None
        assert [f.code for f in doc.findings if f.scope == "structure"] == [
            "structure.not-checked"]


@pytest.mark.slow
def test_the_row_limit_is_a_documented_not_checked(invalid_400, monkeypatch, capsys):
    _streamed(monkeypatch)
    monkeypatch.setattr(aucx_structure, "ROW_LIMIT", 100)
    assert main(["verify", "--json", str(invalid_400)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["structure_ok"] is None
    notes = [f for f in report["findings"] if f["code"] == "structure.not-checked"]
    assert len(notes) == 1 and "hard limit" in notes[0]["message"]
    assert "structure" not in report["summary"]
    assert main(["verify", str(invalid_400)]) == 1
    assert "(structure: not checked)" in capsys.readouterr().out
    assert main(["verify", "--integrity-only", str(invalid_400)]) == 0


def test_an_archive_that_fails_integrity_is_not_examined(tmp_path):
    path = tmp_path / "cut.aucx"
    path.write_bytes(b"PK\x03\x04 not a whole archive")
    with open_document(path) as doc:
        doc.verify()
        assert doc.structure_ok is None
        assert [f.code for f in doc.findings if f.scope != "integrity"] == [
            "structure.not-checked"]


@pytest.mark.slow
def test_the_window_says_not_checked(invalid_400, monkeypatch, qtbot):
    from inspector.ui.main_window import MainWindow

    _streamed(monkeypatch)
    monkeypatch.setattr(aucx_structure, "ROW_LIMIT", 100)
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_paths([str(invalid_400)])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=30000)
    tab = win.current_tab()
    assert "no findings" not in tab.status_text
    assert "structure: not checked" in tab.checksums.banner.text()
    assert "structure: not checked" in tab.status_text  # the verdict says it, once
    assert tab.status_text.count("not checked") == 1
    assert tab.summary is None


@pytest.mark.slow
def test_the_window_shows_a_structure_checked_while_verifying(invalid_400, monkeypatch,
                                                              qtbot):
    from inspector.ui.main_window import MainWindow

    _streamed(monkeypatch)
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_paths([str(invalid_400)])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=30000)
    tab = win.current_tab()
    assert "structure: 2 errors" in tab.checksums.banner.text()
    assert tab.summary is not None
    assert tab.views.indexOf(tab.summary) >= 0


@pytest.mark.slow
def test_opening_holds_no_large_radius_and_mask(invalid_400, monkeypatch):
    """An experiment too large to load (its signal over ``EXPERIMENT_LOAD_LIMIT``) whose
    radius and mask are over ``STRUCTURE_READ_LIMIT`` is examined by the verification,
    not at open; read whole at open with the limit raised, the verdict is the same."""
    with open_document(invalid_400) as doc:
        assert doc.auc is not None and doc.auc.experiment is None
        assert doc.structure is None and doc.structure_unchecked == aucx_reader.DEFERRED_NOTE
        doc.verify()
        deferred = doc.structure_ok, doc.summary.get("structure")
    monkeypatch.setattr(aucx_reader, "STRUCTURE_READ_LIMIT", 1 << 40)
    with open_document(invalid_400) as doc:
        assert doc.structure is not None
        assert (doc.structure_ok, doc.summary.get("structure")) == deferred
