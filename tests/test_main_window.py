"""Issue 2: the window opens files on jobs, in tabs, by drop, and lists findings."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from inspector.ui.main_window import MainWindow, split_node
from tests.conftest import FIXTURES, open_window


def _wait_ready(qtbot, win):
    qtbot.waitUntil(lambda: win.document_tabs() and all(t.is_ready for t in win.document_tabs()),
                    timeout=20000)


def test_split_node():
    p, node = split_node("a/b.h5::/neuro")
    assert str(p) == "a/b.h5" and node == "/neuro"
    assert split_node("c.h5")[1] is None


def test_opens_each_file_in_its_own_tab(qtbot, tmp_path):
    win = open_window(qtbot)
    bad = tmp_path / "junk.bin"
    bad.write_bytes(b"\x00" * 10)
    win.open_paths([str(bad), str(FIXTURES / "vneurotk/edited/not_hdf5.h5")])
    _wait_ready(qtbot, win)
    assert win.tabs.count() == 2
    assert [win.tabs.tabText(i) for i in range(2)] == ["junk.bin", "not_hdf5.h5"]
    win.findings.all_files.setChecked(True)  # the dock lists the current tab's findings by default
    codes = [win.findings.model.finding(r)[1].code for r in range(win.findings.model.rowCount())]
    assert codes == ["format.unrecognised", "format.unrecognised"]


def test_drop_several_files(qtbot, tmp_path):
    win = open_window(qtbot)
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("a")
    b.write_text("b")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(a)), QUrl.fromLocalFile(str(b))])
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                    Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    win.dropEvent(ev)
    _wait_ready(qtbot, win)
    assert [t.path.name for t in win.document_tabs()] == ["a.txt", "b.txt"]


def test_dropped_url_is_refused_with_a_message(qtbot):
    # http(s) and s3 URLs open (tests/test_remote_gui.py); other schemes are refused.
    win = open_window(qtbot)
    mime = QMimeData()
    mime.setUrls([QUrl("ftp://example.org/data/recording.h5")])
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                    Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    win.dropEvent(ev)
    message = win.statusBar().currentMessage()
    assert "ftp://example.org/data/recording.h5" in message and "Not opened" in message
    assert win.document_tabs() == []


def test_close_tab(qtbot, tmp_path):
    win = open_window(qtbot)
    a = tmp_path / "a.txt"
    a.write_text("a")
    win.open_paths([str(a)])
    _wait_ready(qtbot, win)
    win.act_close.trigger()
    assert win.tabs.count() == 0
    assert win.findings.model.rowCount() == 0


def test_open_recent_lists_opened_files(qtbot, tmp_path):
    win = open_window(qtbot)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a")
    b.write_text("b")
    win.open_paths([str(a), str(b)])
    _wait_ready(qtbot, win)
    win._fill_recent()
    texts = [act.text() for act in win.recent_menu.actions()]
    assert texts[:2] == [str(b.resolve()), str(a.resolve())]
    win.close_tab(0)
    win.close_tab(0)
    win.recent_menu.actions()[1].trigger()  # reopens a.txt
    _wait_ready(qtbot, win)
    assert [t.path.name for t in win.document_tabs()] == ["a.txt"]


def test_one_tab_per_file(qtbot, tmp_path):
    win = open_window(qtbot)
    a = tmp_path / "a.txt"
    a.write_text("a")
    first = win.open_path(a)
    second = win.open_path(tmp_path / "." / "a.txt")
    assert first is second and win.tabs.count() == 1


def test_reload_replaces_tab_in_place(qtbot, tmp_path):
    win = open_window(qtbot)
    paths = [tmp_path / n for n in ("a.txt", "b.txt", "c.txt")]
    for p in paths:
        p.write_text(p.stem)
    win.open_paths([str(p) for p in paths])
    _wait_ready(qtbot, win)
    win.tabs.setCurrentIndex(1)
    old = win.current_tab()
    paths[1].write_bytes(b"\x89HDF\r\n\x1a\n" + b"\x00" * 8)  # now claims to be HDF5
    qtbot.keyClick(win, Qt.Key.Key_F5)
    if win.current_tab() is old:  # the key event needs an active window; use the action
        win.act_reload.trigger()
    _wait_ready(qtbot, win)
    assert [t.path.name for t in win.document_tabs()] == ["a.txt", "b.txt", "c.txt"]
    new = win.current_tab()
    assert new is not old and win.tabs.currentIndex() == 1
    assert old.doc.format != "hdf5"
    assert new.doc.format == "hdf5" and not new.doc.ok  # read again from disk


def test_geometry_is_remembered(qtbot):
    win = open_window(qtbot)
    win.resize(700, 500)
    win.show()
    qtbot.waitExposed(win)
    win.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.restore_geometry()
    assert (again.width(), again.height()) == (700, 500)


def test_about_names_library_versions(qtbot, monkeypatch):
    import h5py
    import numpy
    from PySide6.QtCore import qVersion
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: shown.append(text))
    win = open_window(qtbot)
    win.show_about()
    text = shown[0]
    for v in (qVersion(), h5py.version.version, h5py.version.hdf5_version, numpy.__version__):
        assert v in text


def test_all_ready_waits_for_verification(qtbot):
    win = open_window(qtbot)
    with qtbot.waitSignal(win.all_ready, timeout=20000):
        win.open_paths([str(FIXTURES / "aucx/bad_signal_byte_flip.aucx"),
                        str(FIXTURES / "vneurotk/edited/not_hdf5.h5")])
    tab = win.document_tabs()[0]
    assert tab.verify_state == "done" and tab.doc.verified
    codes = {win.findings.model.finding(r)[1].code for r in range(win.findings.model.rowCount())}
    assert "checksums.mismatch" in codes


def test_close_tab_while_verifying(qtbot):
    win = open_window(qtbot)
    tab = win.open_path(FIXTURES / "aucx/syn_moving_boundary_large_s123_10x3000.aucx")
    qtbot.waitUntil(lambda: tab.has_views, timeout=20000)
    win.close_tab(0)
    win.jobs.wait(10000)
    assert win.tabs.count() == 0
