"""Issue 2: the window opens files on jobs, in tabs, by drop, and lists findings."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from inspector.ui.main_window import MainWindow, split_node
from tests.conftest import FIXTURES


def _window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1024, 640)
    return win


def _wait_ready(qtbot, win):
    qtbot.waitUntil(lambda: win.document_tabs() and all(t.is_ready for t in win.document_tabs()),
                    timeout=20000)


def test_split_node():
    p, node = split_node("a/b.h5::/neuro")
    assert str(p) == "a/b.h5" and node == "/neuro"
    assert split_node("c.h5")[1] is None


def test_opens_each_file_in_its_own_tab(qtbot, tmp_path):
    win = _window(qtbot)
    bad = tmp_path / "junk.bin"
    bad.write_bytes(b"\x00" * 10)
    win.open_paths([str(bad), str(FIXTURES / "vneurotk/edited/not_hdf5.h5")])
    _wait_ready(qtbot, win)
    assert win.tabs.count() == 2
    assert [win.tabs.tabText(i) for i in range(2)] == ["junk.bin", "not_hdf5.h5"]
    codes = [win.findings.model.finding(r)[1].code for r in range(win.findings.model.rowCount())]
    assert codes == ["format.unrecognised", "format.unrecognised"]


def test_drop_several_files(qtbot, tmp_path):
    win = _window(qtbot)
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


def test_close_tab(qtbot, tmp_path):
    win = _window(qtbot)
    a = tmp_path / "a.txt"
    a.write_text("a")
    win.open_paths([str(a)])
    _wait_ready(qtbot, win)
    win.act_close.trigger()
    assert win.tabs.count() == 0
    assert win.findings.model.rowCount() == 0
