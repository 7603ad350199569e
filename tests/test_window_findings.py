"""The first hour in the window: findings per document, counts, detail, status bar,
and a clear page for a file that cannot be opened."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from inspector.cli import format_report
from inspector.formats import open_document
from inspector.formats.document import Document
from inspector.formats.findings import Finding, Severity
from inspector.formats.registry import reader_for
from inspector.models.findings_model import FILE_COLUMN, severity_counts_text
from inspector.ui.findings_dock import FindingsDock
from inspector.ui.main_window import MainWindow, file_filter
from tests.conftest import FIXTURES, open_window

FLIP = FIXTURES / "aucx/bad_signal_byte_flip.aucx"
TRUNCATED = FIXTURES / "vneurotk/edited/truncated_half.h5"
REC = FIXTURES / "vneurotk/v1/continuous_dense_f32_intids.h5"


def _rows(win):
    m = win.findings.model
    return [m.finding(r) for r in range(m.rowCount())]


def _headless(path):
    with open_document(path) as doc:
        doc.verify()
        return [(f.code, f.message, f.location) for f in doc.findings], format_report(doc)


def test_counts_are_pluralised_and_notes_include_info():
    def f(sev):
        return Finding(sev, "x.y", "m")

    assert severity_counts_text([]) == "no findings"
    assert severity_counts_text([f(Severity.ERROR)]) == "1 error"
    assert severity_counts_text(
        [f(Severity.ERROR), f(Severity.WARNING), f(Severity.WARNING), f(Severity.INFO)]
    ) == "1 error, 2 warnings, 1 note"
    assert severity_counts_text([f(Severity.INFO)] * 3 + [f(Severity.ERROR)] * 2) \
        == "2 errors, 3 notes"


def test_dock_title_counts_what_it_lists(qtbot):
    dock = FindingsDock()
    qtbot.addWidget(dock)
    rows = [("a.h5", Finding(Severity.WARNING, "w", "one"), None),
            ("a.h5", Finding(Severity.INFO, "i", "two"), None)]
    dock.set_rows(rows, all_files=False)
    assert dock.windowTitle() == "Findings: 1 warning, 1 note"
    assert dock.view.isColumnHidden(FILE_COLUMN)
    dock.set_rows([], all_files=False)
    assert dock.windowTitle() == "Findings: none"


def test_dock_follows_the_current_tab_with_an_all_files_toggle(qtbot, tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00" * 10)
    win = open_window(qtbot, FLIP, junk)
    flip_tab, junk_tab = win.document_tabs()
    assert win.current_tab() is flip_tab
    flip_codes, _ = _headless(FLIP)
    assert [(f.code, f.message, f.location) for _, f, _ in _rows(win)] == flip_codes
    assert {owner for _, _, owner in _rows(win)} == {flip_tab}
    assert win.findings.view.isColumnHidden(FILE_COLUMN)
    win.tabs.setCurrentWidget(junk_tab)
    assert [f.code for _, f, _ in _rows(win)] == ["format.unrecognised"]
    assert win.findings.windowTitle() == "Findings: 1 error"
    win.findings.all_files.setChecked(True)
    labels = [label for label, _, _ in _rows(win)]
    assert sorted(set(labels)) == ["bad_signal_byte_flip.aucx", "junk.bin"]
    assert len(labels) == len(flip_codes) + 1
    assert not win.findings.view.isColumnHidden(FILE_COLUMN)
    win.findings.all_files.setChecked(False)
    assert [f.code for _, f, _ in _rows(win)] == ["format.unrecognised"]


@pytest.mark.parametrize("path", [FLIP, FIXTURES / "vneurotk/edited/hdr_version_2.h5",
                                  FIXTURES / "auc-delimited/malformed_duplicate"])
@pytest.mark.slow
def test_messages_never_repeat_the_file_name(qtbot, path):
    win = open_window(qtbot, path)
    rows = _rows(win)
    assert rows
    for _, f, _ in rows:
        assert path.name not in f.message, f
    _, report = _headless(path)
    assert f"{path.name}: {rows[0][1].message}" in report  # the text report names it, once


def test_selecting_a_finding_shows_its_full_text_and_rule(qtbot):
    win = open_window(qtbot, FLIP)
    dock = win.findings
    m = dock.model
    row = next(r for r in range(m.rowCount()) if m.finding(r)[1].code == "checksums.mismatch")
    f = m.finding(row)[1]
    assert f.rule
    dock.view.selectRow(dock.proxy.mapFromSource(m.index(row, 0)).row())
    text = dock.detail.toPlainText()
    assert text.startswith(f.message)
    assert f"rule: {f.rule}" in text and f"code: {f.code}" in text
    assert f"location: {f.location}" in text
    assert "file:" not in text  # one file listed: no file line
    dock.view.clearSelection()
    assert dock.detail.toPlainText() == ""


def test_status_bar_follows_the_current_tab_and_clears(qtbot, tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00" * 10)
    win = open_window(qtbot, REC, junk)
    rec_tab, junk_tab = win.document_tabs()
    bar = win.statusBar()
    assert bar.currentMessage() == rec_tab.status_text
    assert rec_tab.status_text.startswith(rec_tab.doc.kind_label)
    assert severity_counts_text(rec_tab.doc.findings) in rec_tab.status_text
    win.tabs.setCurrentWidget(junk_tab)
    assert bar.currentMessage() == junk_tab.status_text
    assert "1 error" in junk_tab.status_text
    win.close_tab(win.tabs.indexOf(junk_tab))
    assert bar.currentMessage() == rec_tab.status_text
    win.close_tab(0)
    assert win.tabs.count() == 0 and bar.currentMessage() == ""
    assert win.findings.model.rowCount() == 0


def test_truncated_recording_shows_what_failed_where_and_what_to_try(qtbot):
    win = open_window(qtbot, TRUNCATED)
    tab = win.current_tab()
    assert tab.has_views and tab.failure is not None
    assert tab.views.currentWidget() is tab.failure
    assert tab.views.tabText(0) == "Could not open"
    page = tab.failure.text
    error = next(f for f in tab.doc.findings if f.severity == "error")
    assert page.startswith(f"Could not open {TRUNCATED.name}")
    assert error.message in page
    assert str(TRUNCATED) in page
    assert "What to try:" in page and "Reload (F5)" in page and "inspector verify" in page
    assert "truncat" in page.lower()
    tab.failure.copy_details()
    assert QGuiApplication.clipboard().text() == page


def test_reader_failure_page_names_the_bug_and_keeps_the_traceback(qtbot, monkeypatch):
    reader = reader_for(REC)

    def broken(path, options):
        raise RuntimeError("boom in the reader")

    monkeypatch.setattr(reader, "open", broken)
    win = open_window(qtbot, REC)
    tab = win.current_tab()
    assert tab.failure is not None
    page = tab.failure.text
    assert "boom in the reader" in page and "bug in Inspector" in page
    assert tab.failure.details is not None
    assert "RuntimeError: boom in the reader" in tab.failure.details.toPlainText()
    assert [f.code for _, f, _ in _rows(win)] == ["internal.reader-failed"]


def test_open_job_failure_is_a_page_too(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    tab = win.open_path(Path("/nonexistent/never.h5"))
    qtbot.waitUntil(lambda: tab.is_ready, timeout=20000)
    assert tab.failure is not None and "Check the path" in tab.failure.text
    again = MainWindow()
    qtbot.addWidget(again)
    from inspector.ui.document_tab import DocumentTab

    t = DocumentTab(Path("x.h5"), again.jobs)
    qtbot.addWidget(t)
    t.set_failed("OSError: gone", "Traceback (most recent call last): ...")
    assert t.failure is not None and "opening failed: OSError: gone" in t.failure.text
    assert isinstance(t.doc, Document) and not t.doc.ok


@pytest.mark.slow
def test_good_files_show_no_failure_page(qtbot):
    win = open_window(qtbot, REC, FLIP)
    assert all(t.failure is None for t in win.document_tabs())


def test_open_dialog_filters_come_from_the_registry():
    from inspector.formats.registry import open_filters

    text = file_filter()
    entries = text.split(";;")
    assert entries[0].startswith("Inspector files (") and entries[-1] == "All files (*)"
    for name, patterns in open_filters():
        assert f"{name} ({' '.join(patterns)})" in entries


def test_the_same_rows_again_do_not_reset_the_findings(qtbot):
    dock = FindingsDock()
    qtbot.addWidget(dock)
    owner = object()
    findings = [Finding(Severity.ERROR, f"code.{i}", f"message {i}", f"/loc{i}") for i in range(30)]
    rows = [("a.h5", f, owner) for f in findings]
    resets: list[int] = []
    dock.model.modelReset.connect(lambda: resets.append(1))
    dock.set_rows(rows, all_files=False)
    dock.set_rows(list(rows), all_files=False)  # (a new list of the same findings)
    assert len(resets) == 1
    dock.set_rows(rows, all_files=True)  # (the File column shows now)
    dock.set_rows(rows[:-1], all_files=True)
    copies = [("a.h5", Finding(f.severity, f.code, f.message, f.location), owner)
              for f in findings[:-1]]
    dock.set_rows(copies, all_files=True)  # (equal findings, other objects: a cap note)
    assert len(resets) == 3
    moved = [("a.h5", Finding(f.severity, f.code, f.message + "!", f.location), owner)
             for f in findings[:-1]]
    dock.set_rows(moved, all_files=True)
    dock.set_rows(moved, all_files=False)
    dock.set_rows([(label, f, object()) for label, f, _ in moved], all_files=False)
    assert len(resets) == 6
    assert dock.model.rowCount() == 29 and dock.model.finding(0)[1] is moved[0][1]


def test_a_documents_cap_notes_listed_again_do_not_reset_the_findings(qtbot):
    from inspector.formats.findings import Findings, Rule, Scope

    rule = Rule("code.many", Severity.WARNING, Scope.STRUCTURE, "seed")
    findings = Findings(limit=3)
    for i in range(5):
        findings.report(rule, f"message {i}", f"/loc{i}")
    first, again = list(findings), list(findings)
    assert first[-1] is not again[-1] and first[-1] == again[-1]  # (the note is made afresh)
    dock = FindingsDock()
    qtbot.addWidget(dock)
    owner = object()
    resets: list[int] = []
    dock.model.modelReset.connect(lambda: resets.append(1))
    dock.set_rows([("a.h5", f, owner) for f in first], all_files=False)
    dock.set_rows([("a.h5", f, owner) for f in again], all_files=False)
    assert len(resets) == 1 and dock.model.rowCount() == 4


def _many_findings() -> list[tuple[str, Finding, object]]:
    owner = object()
    severities = [Severity.INFO, Severity.ERROR, Severity.WARNING]
    return [("a.h5", Finding(severities[i % 3], f"code.{i % 7}", f"message {i}", f"/loc{i}",
                             "notes §1" if i % 2 else ""), owner) for i in range(60)]


def test_the_findings_cells_and_the_severity_sort_follow_the_rule(qtbot):
    from inspector.formats.findings import SEVERITIES
    from inspector.models.findings_model import SEVERITY_WORD, SeverityRankRole
    from inspector.models.roles import CopyRole, LocationRole, NameRole

    dock = FindingsDock()
    qtbot.addWidget(dock)
    rows = _many_findings()
    dock.set_rows(rows, all_files=True)
    m = dock.model
    assert [m.finding(r) for r in range(m.rowCount())] == rows  # (the model keeps their order)
    for r, (label, f, _owner) in enumerate(rows):
        texts = [SEVERITY_WORD[f.severity], f.code, f.message, f.location, label]
        for col, text in enumerate(texts):
            index = m.index(r, col)
            assert index.data() == text and index.data(CopyRole) == text
            assert index.data(LocationRole) == f.location and index.data(NameRole) == f.code
            tip = f"{f.message}\n\nrule: {f.rule}" if col == 2 and f.rule else text
            assert index.data(Qt.ItemDataRole.ToolTipRole) == tip
            rank = SEVERITIES.index(f.severity) if col == 0 else text
            assert index.data(SeverityRankRole) == rank
        assert m.index(r, 0).data(Qt.ItemDataRole.DecorationRole) is not None
    shown = [dock.model.finding(dock.proxy.mapToSource(dock.proxy.index(r, 0)).row())[1]
             for r in range(dock.proxy.rowCount())]
    oracle = sorted((f for _, f, _ in rows), key=lambda f: SEVERITIES.index(f.severity))
    assert shown == oracle  # errors first, ties in the order found (a stable sort)
    dock.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    shown = [dock.proxy.index(r, 1).data() for r in range(dock.proxy.rowCount())]
    assert shown == sorted((f.code for _, f, _ in rows), reverse=True)


def test_sorting_and_painting_the_findings_never_enter_python(qtbot):
    import sys

    dock = FindingsDock()
    qtbot.addWidget(dock)
    dock.resize(900, 600)
    dock.show()
    dock.set_rows(_many_findings(), all_files=True)
    qtbot.waitUntil(lambda: not dock.compact, timeout=5000)
    calls: list[str] = []

    def profile(frame, event, _arg):
        if event == "call" and "inspector" in frame.f_code.co_filename:
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        dock.view.sortByColumn(2, Qt.SortOrder.AscendingOrder)
        dock.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        dock.view.viewport().repaint()
    finally:
        sys.setprofile(None)
    assert calls == []
    assert dock.proxy.rowCount() == 60
