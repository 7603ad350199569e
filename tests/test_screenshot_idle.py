"""Runs last (its name): two tests run the application's own event loop through
run_gui, which quits the QApplication; tests after it in the same process fail.
``--screenshot`` saves the window only once every plot is drawn in its final state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from inspector import app as app_mod
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
REC = FIXTURES / "vneurotk" / "v1" / "continuous_small_chunks.h5"


class FakeWindow(QWidget):
    """Only what :func:`wait_until_idle` looks at."""

    def __init__(self) -> None:
        super().__init__()
        self.idle = False
        self.asked = 0

    def is_idle(self) -> bool:
        self.asked += 1
        return self.idle


def test_wait_until_idle_waits_for_two_idle_polls(qtbot):
    win = FakeWindow()
    qtbot.addWidget(win)
    calls = []
    app_mod.wait_until_idle(win, 60_000, calls.append)
    qtbot.waitUntil(lambda: win.asked >= 5, timeout=5000)
    assert calls == []  # busy: never called
    win.idle = True
    qtbot.waitUntil(lambda: bool(calls), timeout=5000)
    assert calls == [False]


def test_wait_until_idle_gives_up_at_the_time_limit(qtbot):
    win = FakeWindow()
    qtbot.addWidget(win)
    calls = []
    app_mod.wait_until_idle(win, 100, calls.append)
    qtbot.waitUntil(lambda: bool(calls), timeout=5000)
    assert calls == [True] and not win.idle


def _run_gui_child(code: str) -> tuple[dict, str]:
    """Run ``code`` (which calls ``run_gui``) in a fresh interpreter: ``app.exec()`` and
    ``quit()`` leave the test process's event loop unable to deliver queued events from
    other threads (seen with pytest-qt), so the real entry point runs apart."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300, check=True)
    # the child's own line; PySide6 may add a line of its own as the interpreter exits
    # ("Failed to find converter ...", a queued signal of a job still running at exit)
    ours = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    return json.loads(ours[-1]), proc.stderr


@pytest.mark.slow
def test_screenshot_warns_when_the_window_stays_busy(tmp_path):
    out = tmp_path / "busy.png"
    got, err = _run_gui_child(f"""
        import json
        from inspector import app as app_mod
        from inspector.ui.main_window import MainWindow
        app_mod.SCREENSHOT_TIMEOUT_MS = 300
        MainWindow.is_idle = lambda self: False
        code = app_mod.run_gui([{str(REC)!r}], screenshot={str(out)!r}, size=(800, 500))
        print(json.dumps({{"code": code}}))
    """)
    assert got == {"code": 0}
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "warning: the window was still busy after 0.3 s" in err and str(out) in err


@pytest.mark.slow
def test_screenshot_waits_for_the_exact_plot(tmp_path):
    """Envelopes are made slow; the window is saved once the plot shows them, not before."""
    out = tmp_path / "rec.png"
    got, err = _run_gui_child(f"""
        import json, time
        from inspector import app as app_mod
        from inspector.ui.main_window import MainWindow
        from inspector.ui.plots import neural_reads as neural_mod

        real = neural_mod.envelope_with_preview

        def slow(*args, **kwargs):
            time.sleep(0.4)  # longer than the old fixed settling delay after all_ready
            return real(*args, **kwargs)

        neural_mod.envelope_with_preview = slow
        seen = {{}}
        grab = MainWindow.grab

        def grab_and_look(self, *args):
            tab = self.current_tab()
            view = tab.plot.view if tab is not None and tab.plot is not None else None
            seen["idle"] = self.is_idle()
            seen["status"] = view.status.text() if view is not None else None
            seen["exact"] = view is not None and bool(view.lines) and all(
                ln.exact and ln.x is not None for ln in view.lines)
            return grab(self, *args)

        MainWindow.grab = grab_and_look
        seen["code"] = app_mod.run_gui([{str(REC)!r}], screenshot={str(out)!r}, size=(900, 600))
        print(json.dumps(seen))
    """)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert got == {"idle": True, "status": "showing the range of values per screen pixel",
                   "exact": True, "code": 0}
    assert "warning" not in err
