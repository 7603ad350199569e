"""Issue 8 item 3: File > Export to AUCX… in the GUI (dialogs replaced by test doubles)."""

from __future__ import annotations

import shutil

import pytest

from inspector.models.roles import StatusRole
from tests.conftest import FIXTURES, load_expected, open_window

AUCX = {e["file"]: e for e in load_expected("aucx")}


class Dialogs:
    """Records every dialog the window would show and answers as told."""

    def __init__(self, win, path, replace=True, open_it=False):
        self.asked, self.replace_asked, self.offered, self.errors = [], [], [], []
        win.ask_export_path = lambda suggested: (self.asked.append(suggested), path)[1]
        win.confirm_replace = lambda p: (self.replace_asked.append(p), replace)[1]
        win.offer_open = lambda p: (self.offered.append(p), open_it)[1]
        win.report_error = self.errors.append


def _export(qtbot, win):
    with qtbot.waitSignal(win.export_finished, timeout=20000) as sig:
        win.act_export.trigger()
    return sig.args


@pytest.mark.slow
def test_export_disabled_for_recordings_with_reason(qtbot):
    win = open_window(qtbot, FIXTURES / "vneurotk/v1/continuous_dense_f32_intids.h5")
    assert not win.act_export.isEnabled()
    assert "VneuroTK recording" in win.act_export.toolTip()
    assert win.act_export.statusTip() == win.act_export.toolTip()
    assert win.act_export.shortcut().toString() == "Ctrl+E"


@pytest.mark.slow
def test_export_delimited_source_and_open_result(qtbot, tmp_path):
    win = open_window(qtbot, FIXTURES / "auc-delimited/demo_experiment")
    assert win.act_export.isEnabled()
    dest = tmp_path / "out.aucx"
    d = Dialogs(win, str(dest), open_it=True)
    ok, text = _export(qtbot, win)
    assert (ok, text) == (True, str(dest))
    exp_id = AUCX["src_demo_experiment.aucx"]["info"]["experiment_id"]
    assert d.asked == [str(FIXTURES / "auc-delimited" / f"{exp_id}.aucx")]  # beside the folder
    assert d.replace_asked == [] and d.errors == [] and d.offered == [str(dest)]
    assert dest.is_file()
    qtbot.waitUntil(lambda: win.tabs.count() == 2 and win.all_tabs_ready(), timeout=20000)
    tab = win.current_tab()
    assert tab.path == dest
    m = tab.checksums.model
    statuses = {m.member(r).name: m.index(r, 1).data(StatusRole) for r in range(m.rowCount())}
    assert sorted(statuses) == sorted(AUCX["src_demo_experiment.aucx"]["info"]["members"])
    assert set(statuses.values()) == {"ok"}
    assert tab.checksums.verdict == "All 7 members verified"


@pytest.mark.slow
def test_existing_destination_is_confirmed_once(qtbot, tmp_path):
    win = open_window(qtbot, FIXTURES / "aucx/src_long_csv.aucx")
    dest = tmp_path / "existing.aucx"
    dest.write_bytes(b"old")
    d = Dialogs(win, str(dest), replace=False)
    win.act_export.trigger()
    assert d.replace_asked == [str(dest)] and dest.read_bytes() == b"old"
    d = Dialogs(win, str(dest), replace=True)
    ok, _ = _export(qtbot, win)
    assert ok and d.replace_asked == [str(dest)] and d.errors == []
    assert dest.read_bytes()[:2] == b"PK"
    exp_id = AUCX["src_long_csv.aucx"]["info"]["experiment_id"]
    assert d.asked == [str(FIXTURES / "aucx" / f"{exp_id}.aucx")]


@pytest.mark.slow
def test_export_disabled_for_a_document_with_errors(qtbot, tmp_path):
    src = tmp_path / "flip.aucx"
    shutil.copy(FIXTURES / "aucx/bad_signal_byte_flip.aucx", src)
    win = open_window(qtbot, src)
    assert not win.act_export.isEnabled()
    assert "has errors" in win.act_export.toolTip()


@pytest.mark.slow
def test_failed_export_says_why_and_leaves_no_file(qtbot, tmp_path):
    src = tmp_path / "flip.aucx"
    shutil.copy(FIXTURES / "aucx/bad_signal_byte_flip.aucx", src)
    win = open_window(qtbot, src)
    dest = tmp_path / "new.aucx"
    d = Dialogs(win, str(dest))
    with qtbot.waitSignal(win.export_finished, timeout=20000) as sig:
        win.start_export(src, dest, False)  # e.g. a script or a stale menu state
    ok, text = sig.args
    assert not ok and d.errors == [text] and d.offered == []
    assert "signal.npy" in text or "checksum" in text.lower()
    assert not dest.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flip.aucx"]


@pytest.mark.slow
def test_export_into_a_missing_folder_fails_cleanly(qtbot, tmp_path):
    src = tmp_path / "demo.aucx"
    shutil.copy(FIXTURES / "aucx/src_demo_experiment.aucx", src)
    win = open_window(qtbot, src)
    dest = tmp_path / "missing" / "new.aucx"
    d = Dialogs(win, str(dest))
    ok, text = _export(qtbot, win)
    assert not ok and d.errors == [text]
    assert "does not exist" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.aucx"]


@pytest.mark.slow
def test_export_refuses_to_overwrite_the_open_document(qtbot, tmp_path):
    src = tmp_path / "a.aucx"
    shutil.copy(FIXTURES / "aucx/src_long_csv.aucx", src)
    before = src.read_bytes()
    win = open_window(qtbot, src)
    d = Dialogs(win, str(src))
    win.act_export.trigger()
    assert len(d.errors) == 1 and "never" in d.errors[0]
    assert d.replace_asked == [] and src.read_bytes() == before


def test_export_of_an_archive_openauc_would_reject_is_refused_naming_why(qtbot, tmp_path):
    """Issue 34 point 3: a value openauc's models refuse (a scan's cell as a number)."""
    import json

    from fuzz.aucx_model_edits import read_members, write_archive

    members = read_members(FIXTURES / "aucx/syn_equilibrium_s1_6x200.aucx")
    i = next(k for k, (name, _) in enumerate(members) if name == "experiment.json")
    experiment = json.loads(members[i][1])
    experiment["scans"][2]["cell"] = 1
    members[i] = ("experiment.json", json.dumps(experiment).encode())
    src = tmp_path / "cell.aucx"
    write_archive(src, members)
    win = open_window(qtbot, src)
    assert not win.act_export.isEnabled()
    assert "has errors" in win.act_export.toolTip()
    dest = tmp_path / "new.aucx"
    d = Dialogs(win, str(dest))
    with qtbot.waitSignal(win.export_finished, timeout=20000) as sig:
        win.start_export(src, dest, False)
    ok, text = sig.args
    assert not ok and d.errors == [text]
    assert "experiment.json:scans[2].cell" in text and "ScanMetadata" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cell.aucx"]
