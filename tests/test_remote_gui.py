"""The window opens URLs: File > Open URL… (Ctrl+Shift+O), dropped http(s) URLs,
URL::/node; the open runs on a job, and a slow open can be cancelled.  The
server is started here on 127.0.0.1 (tests/range_server.py)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QInputDialog
from range_server import RangeServer

from inspector.formats.remote.path import RemotePath
from inspector.formats.remote.source import RemoteOptions
from tests.conftest import FIXTURES, open_window

RECORDING = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
ARCHIVE = FIXTURES / "aucx" / "src_demo_experiment.aucx"


@pytest.fixture()
def server():
    with RangeServer(latency=0.0, slow_seconds=20.0) as srv:
        srv.add("rec/x.h5", RECORDING.read_bytes())
        srv.add("a.aucx", ARCHIVE.read_bytes())
        yield srv


def _wait_ready(qtbot, win, count=1):
    qtbot.waitUntil(lambda: len(win.document_tabs()) == count
                    and all(t.is_ready for t in win.document_tabs()), timeout=30000)


@pytest.mark.slow
def test_open_url_action_opens_the_url_in_a_tab(qtbot, monkeypatch, server):
    win = open_window(qtbot)
    assert win.act_open_url.shortcut().toString() == "Ctrl+Shift+O"
    url = server.url("rec/x.h5")
    monkeypatch.setattr(QInputDialog, "getText",
                        staticmethod(lambda *a, **k: (f"  {url}::/trial_starts ", True)))
    win.act_open_url.trigger()
    _wait_ready(qtbot, win)
    tab = win.current_tab()
    assert isinstance(tab.path, RemotePath) and tab.path.url == url
    assert win.tabs.tabText(0) == "x.h5" and win.tabs.tabToolTip(0).startswith(url)
    assert tab.doc.format == "vneurotk-recording" and tab.doc.ok
    assert tab.doc.header is not None and tab.doc.tree is not None and "neuro" in tab.doc.arrays
    assert tab.initial_node == "/trial_starts"
    # the same URL again brings its tab forward
    win.open_url_text(url)
    assert len(win.document_tabs()) == 1


def test_a_typed_text_that_is_not_a_url_is_refused(qtbot, monkeypatch):
    win = open_window(qtbot)
    monkeypatch.setattr(QInputDialog, "getText",
                        staticmethod(lambda *a, **k: ("ftp://example.org/x.h5", True)))
    win.act_open_url.trigger()
    assert win.document_tabs() == []
    assert "Not opened" in win.statusBar().currentMessage()


def test_a_dropped_http_url_opens_and_verifies(qtbot, server):
    win = open_window(qtbot)
    mime = QMimeData()
    mime.setUrls([QUrl(server.url("a.aucx"))])
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                    Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    win.dropEvent(ev)
    _wait_ready(qtbot, win)
    tab = win.current_tab()
    assert tab.doc.format == "aucx" and tab.doc.verified and tab.doc.ok
    assert all(m.status == "ok" for m in tab.doc.checksums.members)


def test_a_dead_url_shows_its_finding(qtbot, server):
    win = open_window(qtbot)
    win.open_url_text(server.url("missing.h5"))
    _wait_ready(qtbot, win)
    tab = win.current_tab()
    assert [f.code for f in tab.doc.findings] == ["remote.not-found"]
    assert tab.failure is not None
    from inspector.models.open_failure import open_failure

    page = open_failure(tab.doc)
    assert page.where[0] == server.url("missing.h5") and "network" in page.tries[0]


def test_a_slow_open_can_be_cancelled(qtbot, server):
    data = RECORDING.read_bytes()
    server.add("slow/x.h5", data)
    url = server.url("slow/x.h5")
    win = open_window(qtbot)
    # the first block arrives, then every later request hangs until cancelled
    path = RemotePath(url, RemoteOptions(timeout=1.0))
    path.stat()
    server.faults["slow/x.h5"] = "slow"
    path.resource._blocks.data.clear()
    tab = win.open_path(path, remember=False)
    assert tab.cancel_open is not None
    qtbot.waitUntil(lambda: path.progress() is not None, timeout=10000)
    tab.cancel_open.click()
    # the request in flight ends at its timeout at the latest; no later request is made
    qtbot.waitUntil(lambda: tab.doc is not None, timeout=20000)
    codes = [f.code for f in tab.doc.findings]
    assert {"remote.cancelled", "remote.timeout"} & set(codes), codes
    assert "internal.reader-failed" not in codes and not tab.doc.ok


@pytest.mark.slow
def test_inspector_url_on_the_command_line_opens_it(server, tmp_path):
    """``inspector URL::/node --screenshot OUT`` in a fresh interpreter (it quits its
    QApplication): the window opens the URL and saves the picture."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "url.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root))
    proc = subprocess.run(
        [sys.executable, "-m", "inspector", "--screenshot", str(out), "--size", "900x600",
         f"{server.url('rec/x.h5')}::/trial_starts"],
        capture_output=True, text=True, cwd=root, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert server.seen.get("rec/x.h5", 0) >= 1
