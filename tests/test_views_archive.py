"""Issue 5: the views of AUCX archives and AUC sources: checksums streamed live, provenance,
scans; deferred checks reset the views they change."""

from __future__ import annotations

import threading
import zipfile
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from inspector.formats import open_document
from inspector.formats.capabilities import CheckResult, ChecksumTable, MemberStatus, Progress
from inspector.formats.document import Document, MemberCheck, Node
from inspector.formats.findings import Finding, Severity
from inspector.formats.table import Table
from inspector.jobs import JobRunner
from inspector.models.roles import StatusRole
from inspector.ui.document_tab import DocumentTab
from tests.conftest import FIXTURES, load_expected, open_window

EXPECTED = {e["file"]: e for e in load_expected("aucx")}


def _statuses(panel):
    m = panel.model
    return {m.member(r).name: m.index(r, 1).data(StatusRole) for r in range(m.rowCount())}


# -- streaming verification on a hand-built document ------------------------------------
class GatedCheck:
    """A deferred checksum check over hand-made rows; waits at the second row for ``gate``."""

    title = "Verifying checksums"

    def __init__(self, rows: tuple[MemberCheck, ...], gate: threading.Event,
                 bad: str | None) -> None:
        self.rows, self.gate, self.bad = rows, gate, bad

    def run(self, progress=None, cancelled=None) -> CheckResult:
        done: list[MemberCheck] = []
        findings: list[Finding] = []
        n = len(self.rows)
        for i, m in enumerate(self.rows):
            if i == 1:
                self.gate.wait(10)
            if cancelled and cancelled():
                done += [replace(r, status=MemberStatus.CANCELLED) for r in self.rows[i:]]
                return CheckResult(tuple(findings), ChecksumTable(tuple(done)), complete=False)
            bad = m.name == self.bad
            row = replace(m, computed="f" * 64 if bad else m.recorded,
                          status=MemberStatus.MISMATCH if bad else MemberStatus.OK)
            if bad:
                findings.append(Finding(Severity.ERROR, "checksums.mismatch",
                                        f"mismatch for {m.name}", m.name))
            done.append(row)
            if progress:
                progress(Progress(i + 1, n, row))
        return CheckResult(tuple(findings), ChecksumTable(tuple(done), verified=True))


def _gated_doc(n: int, gate: threading.Event, bad: str | None = None) -> Document:
    doc = Document(FIXTURES / "aucx" / "hand-built.aucx", format="aucx")
    rows = tuple(MemberCheck(f"m{i}.bin", f"{i:064x}") for i in range(n))
    doc.checksums = ChecksumTable(rows)
    doc.tree = Node("hand-built.aucx", kind="group")
    for m in rows:
        doc.tree.add(m.name, kind="member", location=m.name)
    doc.checks = [GatedCheck(rows, gate, bad)]
    return doc


def test_checksum_rows_fill_in_live_then_verdict(qtbot):
    gate = threading.Event()
    jobs = JobRunner()
    tab = DocumentTab(FIXTURES / "aucx" / "hand-built.aucx", jobs)
    qtbot.addWidget(tab)
    tab.set_document(_gated_doc(3, gate, bad="m2.bin"))
    qtbot.waitUntil(lambda: tab.has_views, timeout=5000)  # (built over a few turns)
    panel = tab.checksums
    assert not tab.is_ready
    qtbot.waitUntil(lambda: _statuses(panel)["m0.bin"] == "ok", timeout=5000)
    assert _statuses(panel) == {"m0.bin": "ok", "m1.bin": "pending", "m2.bin": "pending"}
    assert panel.verdict == "Verifying… 1 of 3 members checked"
    assert panel.progress.isVisibleTo(tab) and panel.cancel.isEnabled()
    with qtbot.waitSignal(tab.ready, timeout=5000):
        gate.set()
    assert _statuses(panel) == {"m0.bin": "ok", "m1.bin": "ok", "m2.bin": "mismatch"}
    assert panel.verdict.startswith("1 of 3 members failed: m2.bin (MISMATCH)")
    assert not panel.progress.isVisibleTo(tab) and not panel.cancel.isVisibleTo(tab)
    assert tab.is_ready and tab.verify_state == "done"
    jobs.wait(2000)


def test_cancel_verification(qtbot):
    gate = threading.Event()
    jobs = JobRunner()
    tab = DocumentTab(FIXTURES / "aucx" / "hand-built.aucx", jobs)
    qtbot.addWidget(tab)
    tab.set_document(_gated_doc(4, gate))
    qtbot.waitUntil(lambda: tab.checksums is not None
                    and _statuses(tab.checksums)["m0.bin"] == "ok", timeout=5000)
    with qtbot.waitSignal(tab.ready, timeout=5000):
        tab.checksums.cancel.click()
        gate.set()
    assert tab.verify_state == "cancelled"
    assert list(_statuses(tab.checksums).values()) == ["ok", "cancelled", "cancelled", "cancelled"]
    assert tab.checksums.verdict.startswith("Verification cancelled: 1 of 4 members checked")
    jobs.wait(2000)


# -- corpus archives ---------------------------------------------------------------------
def test_valid_archive_all_members_verified(qtbot):
    exp = EXPECTED["src_demo_experiment.aucx"]
    win = open_window(qtbot, FIXTURES / "aucx/src_demo_experiment.aucx")
    tab = win.current_tab()
    assert [tab.views.tabText(i) for i in range(tab.views.count())] == [
        "Header", "Scans", "Provenance", "Summary", "Checksums"]
    panel = tab.checksums
    st = _statuses(panel)
    assert sorted(st) == sorted(exp["info"]["members"])
    assert set(st.values()) == {"ok"}
    m = panel.model
    for r in range(m.rowCount()):
        name = m.member(r).name
        assert m.index(r, 3).data() == exp["member_sha256"][name]
    assert panel.verdict == f"All {len(exp['member_sha256'])} members verified"
    scans = tab.tables["scans"].model
    assert scans.rowCount() == exp["info"]["n_scans"]
    headers = [scans.headerData(c, Qt.Orientation.Horizontal) for c in range(scans.columnCount())]
    col = headers.index("scan_id")
    assert [scans.index(r, col).data() for r in range(scans.rowCount())] == exp["info"]["scan_ids"]


def test_byte_flip_archive_mismatch_on_signal(qtbot):
    exp = EXPECTED["bad_signal_byte_flip.aucx"]
    win = open_window(qtbot, FIXTURES / "aucx/bad_signal_byte_flip.aucx")
    tab = win.current_tab()
    panel = tab.checksums
    st = _statuses(panel)
    assert st.pop("arrays/signal.npy") == "mismatch"
    assert set(st.values()) == {"ok"}
    row = panel.model.row_of("arrays/signal.npy")
    assert panel.model.index(row, 3).data() == exp["member_sha256"]["arrays/signal.npy"]
    assert panel.model.index(row, 1).data() == "MISMATCH"
    assert panel.model.index(row, 1).data(Qt.ItemDataRole.DecorationRole) is not None
    assert panel.verdict.startswith("1 of 7 members failed: arrays/signal.npy")
    # the findings dock was refreshed after verification and a click selects the member
    fm = win.findings.model
    rows = [fm.finding(r) for r in range(fm.rowCount())]
    hit = next((f, owner) for _, f, owner in rows if f.location == "arrays/signal.npy")
    panel.view.setCurrentIndex(panel.model.index(0, 0))
    tab.views.setCurrentIndex(0)
    win._finding_activated(*hit)
    assert tab.views.currentWidget() is panel
    assert panel.view.currentIndex().row() == row
    # copy the computed digest
    panel.view.setCurrentIndex(panel.model.index(row, 3))
    acts = {a.text(): a for a in panel.view.actions()}
    acts["Copy value"].trigger()
    assert QGuiApplication.clipboard().text() == exp["member_sha256"]["arrays/signal.npy"]
    acts["Copy recorded digest"].trigger()
    recorded = exp["reference_error"]["message"].split("recorded ")[1][:64]
    assert QGuiApplication.clipboard().text() == recorded


def test_multi_problem_archive_verdict_names_each_failure(qtbot):
    win = open_window(qtbot, FIXTURES / "aucx/multi_signal_flip_unlisted_member_bad_line.aucx")
    panel = win.current_tab().checksums
    st = _statuses(panel)
    assert st["arrays/signal.npy"] == "mismatch" and st["extras/unlisted.bin"] == "unlisted"
    assert panel.verdict.startswith("3 of 8 members failed")
    for name in ("arrays/signal.npy", "extras/unlisted.bin", "provenance.json"):
        assert name in panel.verdict


def test_archive_provenance_keeps_import_and_export_apart(qtbot):
    exp = EXPECTED["src_demo_experiment.aucx"]["info"]["export"]
    win = open_window(qtbot, FIXTURES / "aucx/src_demo_experiment.aucx")
    root = win.current_tab().provenance.model.root
    top = {c.name: c for c in root.children}
    assert {"import", "export"} <= set(top)
    export = {c.name: c.value for c in top["export"].children}
    for key in ("software", "software_version", "exported_at", "member_count"):
        assert export[key] == exp[key]
    imp = top["import"]
    sources = next(c for c in imp.children if c.name == "source_files")
    roles = sorted(f.value for s in sources.children for f in s.children if f.name == "role")
    assert "data_file" in roles
    assert not any(c.name == "exported_at" for c in imp.walk())


def test_delimited_source_has_scans_but_no_checksums(qtbot):
    win = open_window(qtbot, FIXTURES / "auc-delimited/demo_experiment")
    tab = win.current_tab()
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert titles[:2] == ["Header", "Scans"] and "Checksums" not in titles
    assert tab.checksums is None and tab.is_ready
    assert win.act_export.isEnabled()


# -- deferred checks reset the views --------------------------------------------------
def _tampered_experiment(tmp_path):
    """The demo archive with experiment.json altered and its old checksum kept."""
    out = tmp_path / "tampered_experiment.aucx"
    with zipfile.ZipFile(FIXTURES / "aucx/src_demo_experiment.aucx") as zin, \
            zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "experiment.json":
                assert data.count(b'"demo-rotor"') == 1
                data = data.replace(b'"demo-rotor"', b'"demo-rotoX"')  # still valid JSON
            zout.writestr(info, data)
    return out


def test_experiment_checksum_mismatch_withdraws_scans_as_headless(qtbot, tmp_path):
    path = _tampered_experiment(tmp_path)
    with open_document(path) as doc:
        assert "scans" in doc.tables  # offered at open, before the checksums are known
        doc.verify()
        headless = [(f.severity, f.code, f.message, f.location) for f in doc.findings]
        headless_tables = set(doc.tables)
        headless_status = {m.name: str(m.status) for m in doc.checksums.members}
        headless_auc = doc.auc
    assert headless_status["experiment.json"] == "mismatch"
    assert "scans" not in headless_tables
    win = open_window(qtbot, path)
    tab = win.current_tab()
    assert tab.verify_state == "done"
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert "Scans" not in titles and "scans" not in tab.tables
    assert set(tab.tables) == headless_tables
    panel = tab.checksums
    assert _statuses(panel) == headless_status
    row = panel.model.row_of("experiment.json")
    assert panel.model.index(row, 1).data() == "MISMATCH"
    assert panel.verdict.startswith("1 of 7 members failed: experiment.json (MISMATCH)")
    fm = win.findings.model
    shown = [fm.finding(r)[1] for r in range(fm.rowCount())]
    assert sorted((f.severity, f.code, f.message, f.location) for f in shown) == sorted(headless)
    assert any(f.code == "checksums.mismatch" and f.location == "experiment.json" for f in shown)
    assert all(path.name not in f.message for f in shown)
    if headless_auc is None:  # the experiment was withdrawn: the plot says so
        assert tab.plot is None or "no longer plotted" in tab.plot.message()
    else:
        auc = tab.doc.auc
        assert auc.scan_ids == headless_auc.scan_ids
        assert auc.untrusted_arrays == headless_auc.untrusted_arrays


class ResultCheck:
    """A deferred check that returns a fixed result once ``gate`` opens."""

    title = "Checking by hand"

    def __init__(self, result: CheckResult, gate: threading.Event | None = None) -> None:
        self.result, self.gate = result, gate
        self.saw_cancel = False

    def run(self, progress=None, cancelled=None) -> CheckResult:
        if self.gate is not None:
            while not self.gate.wait(0.01):
                if cancelled and cancelled():
                    self.saw_cancel = True
                    return CheckResult(complete=False)
        return self.result


def _table_doc() -> Document:
    import pandas as pd

    doc = Document(FIXTURES / "aucx" / "hand-built.aucx", format="aucx")
    doc.header = Node("header", kind="group")
    doc.header.add("state", "before")
    doc.tables = {"scans": Table.of_frame(pd.DataFrame({"scan_id": ["a", "b"]})),
                  "other": Table.of_frame(pd.DataFrame({"x": [1]}))}
    doc.table_locations = {"scans": "experiment.json", "other": ""}
    return doc


def test_a_check_result_resets_header_tables_and_findings(qtbot):
    jobs = JobRunner()
    doc = _table_doc()
    header = Node("header", kind="group")
    header.add("state", "after")
    mismatch = Finding(Severity.ERROR, "checksums.mismatch", "does not match", "experiment.json")
    check = ResultCheck(CheckResult((mismatch,), header=header, withdraw_tables=("scans",)))
    doc.checks = [check]
    tab = DocumentTab(doc.path, jobs)
    qtbot.addWidget(tab)
    with qtbot.waitSignal(tab.ready, timeout=5000):
        tab.set_document(doc)
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert titles == ["Header", "other"] and set(tab.tables) == {"other"}
    model = tab.header_panel.header.model
    assert [c.value for c in model.root.children] == ["after"]
    assert model.index(0, 1).data() == '"after"'
    assert tab.findings() == [mismatch] and doc.checks == [] and doc.verified
    assert tab.verify_state == "done"
    jobs.wait(2000)


def test_closing_the_tab_cancels_the_running_check_and_releases_the_file(qtbot):
    jobs = JobRunner()
    doc = _table_doc()
    closed = []
    doc.on_close(lambda: closed.append(True))
    gate = threading.Event()
    check = ResultCheck(CheckResult(), gate)
    doc.checks = [check]
    tab = DocumentTab(doc.path, jobs)
    qtbot.addWidget(tab)
    tab.set_document(doc)
    qtbot.waitUntil(lambda: tab.verify_state == "running", timeout=5000)
    assert not closed
    tab.close_document()
    qtbot.waitUntil(lambda: check.saw_cancel and bool(closed), timeout=5000)
    jobs.wait(2000)
    assert closed == [True]  # once, by the job that held the file
    assert doc.checks == [check]  # a cancelled check stays pending


@pytest.mark.slow
def test_auc_source_has_a_summary_view_equal_to_its_structure(qtbot):
    """The Summary tab shows what ``openauc inspect`` answers (the document's structure)."""
    win = open_window(qtbot, FIXTURES / "auc-delimited/demo_experiment")
    tab = win.current_tab()
    doc = tab.doc
    assert doc.structure is not None and tab.summary is not None
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert "Summary" in titles
    summary, readiness = tab.summary.model.root.children
    assert summary.name == "summary" and readiness.name == "readiness"
    assert [n.name for n in summary.children] == [str(k) for k in doc.structure.summary]
    assert [(n.name, n.value) for n in readiness.children] == [
        (str(e.analysis), str(e.status)) for e in doc.structure.readiness]
    assert doc.summary["structure"] == doc.structure.summary
