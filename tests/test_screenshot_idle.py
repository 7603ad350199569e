"""``--screenshot`` saves the window only once every plot is drawn in its final state."""

from __future__ import annotations

import sys
import time

import pytest
from PySide6.QtWidgets import QWidget

from inspector import app as app_mod
from inspector.ui.main_window import MainWindow
from inspector.ui.plots import neural as neural_mod
from tests.conftest import FIXTURES

REC = FIXTURES / "vneurotk" / "v1" / "continuous_small_chunks.h5"


@pytest.fixture(autouse=True)
def _switch_interval():
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)  # make_application shortens it for the GUI


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


def test_screenshot_warns_when_the_window_stays_busy(qtbot, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(app_mod, "SCREENSHOT_TIMEOUT_MS", 300)
    monkeypatch.setattr(MainWindow, "is_idle", lambda self: False)
    out = tmp_path / "busy.png"
    assert app_mod.run_gui([str(REC)], screenshot=str(out), size=(800, 500)) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    err = capsys.readouterr().err
    assert "warning: the window was still busy after 0.3 s" in err and str(out) in err


def test_screenshot_waits_for_the_exact_plot(qtbot, tmp_path, monkeypatch, capsys):
    """Envelopes are made slow; the window is saved once the plot shows them, not before."""
    real = neural_mod.envelope_with_preview

    def slow(*args, **kwargs):
        time.sleep(0.4)  # longer than the old fixed settling delay after all_ready
        return real(*args, **kwargs)

    monkeypatch.setattr(neural_mod, "envelope_with_preview", slow)
    seen = {}
    grab = MainWindow.grab

    def grab_and_look(self, *args):
        tab = self.current_tab()
        view = tab.plot.view if tab is not None and tab.plot is not None else None
        seen["idle"] = self.is_idle()
        seen["status"] = view.status.text() if view is not None else None
        seen["exact"] = view is not None and bool(view.lines) and all(
            ln.exact and ln.x is not None for ln in view.lines)
        return grab(self, *args)

    monkeypatch.setattr(MainWindow, "grab", grab_and_look)
    out = tmp_path / "rec.png"
    assert app_mod.run_gui([str(REC)], screenshot=str(out), size=(900, 600)) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert seen == {"idle": True, "status": "showing the range of values per screen pixel", "exact": True}
    assert "warning" not in capsys.readouterr().err
