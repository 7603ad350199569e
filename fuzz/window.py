"""A fuzzing target that opens each mutant in the real window (offscreen).

``python -m fuzz --target fuzz.window:inspect_window --mem-limit-mb 8192 --rss-budget-mb 0 ...``
runs, in each child: a ``MainWindow`` shown and warmed up (every reader and view
module imported, as the window does once idle: ``MainWindow.warmed_up``), the
mutant opened in it through to idle (checks over, models filled, plots drawn),
then every page of its tab shown in turn, each through to idle again.  A
5 ms ``QTimer`` probe on the GUI thread measures the longest gap between its
ticks.  The mutant fails (an escaped :class:`WindowFailure`, so the harness
keeps a reproducer) when

- a slot or event handler raised (``sys.excepthook`` was called),
- the GUI thread stalled for more than :data:`STALL_LIMIT_MS`,
- a visible text shows Python exception text (``Traceback``, ``...Error:``),
- the window was not idle within :data:`IDLE_LIMIT_S`.

The returned line is the document's verify-JSON line, so the usual report
checks apply too.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from fuzz.targets import Inspection

#: Longest gap between two probe ticks (5 ms apart) the window may show, milliseconds
#: (``FUZZ_WINDOW_STALL_MS`` overrides it: stalls are only meaningful on a quiet machine).
STALL_LIMIT_MS = float(os.environ.get("FUZZ_WINDOW_STALL_MS", "100"))
#: Longest wait for the window to become idle after each step, seconds.
#: (``FUZZ_WINDOW_IDLE_S`` overrides it: tests on a loaded machine allow more.)
IDLE_LIMIT_S = float(os.environ.get("FUZZ_WINDOW_IDLE_S", "8"))
#: Text that is Python speaking, not the application.
EXCEPTION_TEXT = re.compile(r"Traceback \(most recent call last\)|\b[A-Z]\w*(Error|Exception): ")


class WindowFailure(AssertionError):
    """The window misbehaved on a mutant (the message says how)."""


def inspect_window(path: Path) -> Inspection:
    """Open ``path`` in the window, show each of its pages and return its verify-JSON line.

    Raises:
        WindowFailure: see the module docstring.
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from inspector.formats.decoding.workers import worker_pool

    with worker_pool():
        return _run(path)


def _run(path: Path) -> Inspection:
    app, win = _window()
    raised: list[str] = []
    sys.excepthook = lambda t, v, tb: raised.append(f"{t.__name__}: {v}")
    probe = _Probe(app)
    try:
        tabs = win.open_paths([str(path)], remember=False)
        _until_idle(app, win, "opening")
        for page in _pages(tabs[0]):
            page()
            _until_idle(app, win, "showing a page")
        line = _line(tabs[0])
        texts = _visible_texts(win)
    finally:
        probe.stop()
        sys.excepthook = sys.__excepthook__
    _judge(raised, probe.max_gap_ms, texts)
    win.close()
    return Inspection(line)


def _window() -> tuple[Any, Any]:
    """The shown main window, once its warm-up has imported every module (a user drops a
    file onto a window that is already open: the first file's imports are start-up's)."""
    from inspector.app import make_application
    from inspector.ui.main_window import MainWindow

    app = make_application()
    win = MainWindow()
    win.resize(1280, 800)
    win.show()
    deadline = time.monotonic() + IDLE_LIMIT_S * 4
    while not win.warmed_up:
        if time.monotonic() > deadline:
            raise WindowFailure("the window did not warm up")
        app.processEvents()
        time.sleep(0.005)
    return app, win


class _Probe:
    """A 5 ms timer on the GUI thread; ``max_gap_ms`` is the longest time between ticks."""

    def __init__(self, app: Any) -> None:
        from PySide6.QtCore import QTimer

        self.max_gap_ms = 0.0
        self._last = time.perf_counter()
        self._timer = QTimer(app)
        self._timer.setInterval(5)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.max_gap_ms = max(self.max_gap_ms, (now - self._last) * 1000.0)
        self._last = now

    def stop(self) -> None:
        self._timer.stop()


def _until_idle(app: Any, win: Any, what: str) -> None:
    deadline = time.monotonic() + IDLE_LIMIT_S
    seen = 0
    while seen < 2:
        if time.monotonic() > deadline:
            raise WindowFailure(f"the window was not idle {IDLE_LIMIT_S:.0f} s after {what}")
        app.processEvents()
        time.sleep(0.005)
        seen = seen + 1 if win.is_idle() else 0


def _pages(tab: Any) -> list[Any]:
    """One callable per page of every tab widget inside the document's tab."""
    from PySide6.QtWidgets import QTabWidget

    pages = []
    for widget in tab.findChildren(QTabWidget):
        for index in range(widget.count()):
            pages.append(lambda w=widget, i=index: w.setCurrentIndex(i))
    return pages


def _line(tab: Any) -> str:
    from inspector.cli import json_line

    if tab.doc is None:
        raise WindowFailure("the tab has no document after opening")
    return json_line(tab.doc.to_json())


def _visible_texts(win: Any) -> list[str]:
    """Texts of labels, text panes, the status bar and every item model's cells."""
    from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt
    from PySide6.QtWidgets import QAbstractItemView, QLabel, QPlainTextEdit, QTextEdit

    texts = [w.text() for w in win.findChildren(QLabel)]
    texts += [w.toPlainText() for w in win.findChildren(QTextEdit)]
    texts += [w.toPlainText() for w in win.findChildren(QPlainTextEdit)]
    texts.append(win.statusBar().currentMessage())
    for view in win.findChildren(QAbstractItemView):
        model = view.model()
        if model is None:
            continue
        root = QModelIndex()
        columns = 1 if isinstance(model, QAbstractListModel) else model.columnCount(root)
        for row in range(min(model.rowCount(root), 200)):
            for col in range(min(columns, 10)):
                value = model.data(model.index(row, col), Qt.ItemDataRole.DisplayRole)
                if isinstance(value, str):
                    texts.append(value)
    return texts


def _judge(raised: list[str], max_gap_ms: float, texts: list[str]) -> None:
    if raised:
        raise WindowFailure(f"a slot raised: {raised[0]}")
    if max_gap_ms > STALL_LIMIT_MS:
        raise WindowFailure(f"the GUI thread stalled for {max_gap_ms:.0f} ms")
    shown = [t for t in texts if EXCEPTION_TEXT.search(t)]
    if shown:
        raise WindowFailure(f"the window shows exception text: {shown[0][:200]!r}")
