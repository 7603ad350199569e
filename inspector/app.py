"""The GUI entry point: build the application, open files, optionally screenshot."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from inspector import APP_ID, APP_NAME, __version__
from inspector.formats.decoding.workers import worker_pool
from inspector.resources_access import sample_files

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from inspector.ui.main_window import MainWindow


#: Qt messages that tell a user nothing: the offscreen platform (``--screenshot`` on a
#: machine without a display) prints this one for every window it lays out.
QUIET_QT_MESSAGES = frozenset({"This plugin does not support propagateSizeHints()"})

_message_handler: list[object] = []  # the installed handler, kept alive


def quiet_qt_messages() -> None:
    """Drop :data:`QUIET_QT_MESSAGES` from Qt's output; every other message goes on as before.

    Installed once per process (``qInstallMessageHandler``); messages pass to the
    handler that was there before, or to standard error.
    """
    if _message_handler:
        return
    from PySide6.QtCore import qInstallMessageHandler

    previous: list[Callable[..., object] | None] = [None]

    def handler(mode: object, context: object, message: str) -> None:
        if message in QUIET_QT_MESSAGES:
            return
        if previous[0] is not None:
            previous[0](mode, context, message)
        else:
            print(message, file=sys.stderr)

    _message_handler.append(handler)
    previous[0] = qInstallMessageHandler(handler)


def make_application(argv: Sequence[str] | None = None) -> QApplication:
    """Create (or return) the QApplication with the app's identity set.

    Every runtime measure is put in force first (:func:`inspector.runtime.start_gui`,
    docs/runtime.md).
    """
    from PySide6.QtGui import QGuiApplication

    from inspector.runtime import start_gui
    from inspector.ui.icons import app_icon

    app, _ = start_gui(argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName("Inspector")
    app.setOrganizationDomain("vneurotk.org")
    app.setApplicationVersion(__version__)
    QGuiApplication.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())  # a null icon when the files are missing
    return app


def run_gui(files: Sequence[str], screenshot: str | None = None,
            size: tuple[int, int] | None = None, theme: str | None = None,
            qt_options: Sequence[str] = ()) -> int:
    """Show the main window with ``files`` (or the bundled samples) and run the event loop.

    With ``screenshot``, waits until the window is idle (:func:`wait_until_idle`:
    every tab populated and verified, every plot drawn in its final state; a
    warning on stderr if :data:`SCREENSHOT_TIMEOUT_MS` passed first), saves a
    PNG of the window and returns 0 (1 if the PNG could not be written).
    ``theme`` (``system``, ``light``, ``dark``) overrides the one chosen in
    View > Theme for this run; ``qt_options`` (e.g. ``["-style", "Fusion"]``)
    go to the ``QApplication``.  Only files the user asked for enter File >
    Open Recent: neither the bundled samples nor the files of a screenshot run.

    The shared worker pool (:mod:`inspector.formats.decoding.workers`) is open for as
    long as the window runs and shut down when it closes.
    """
    with worker_pool():
        return _run_window(files, screenshot, size, theme, qt_options)


#: Longest wait for ``--screenshot`` (milliseconds) before the window is saved as it is.
SCREENSHOT_TIMEOUT_MS = 120_000
#: How often ``--screenshot`` looks whether the window is idle (milliseconds).
IDLE_POLL_MS = 20


def wait_until_idle(win: MainWindow, timeout_ms: int,
                    on_done: Callable[[bool], None]) -> QTimer:
    """Call ``on_done(timed_out)`` once ``win.is_idle()`` holds on two polls in a row.

    Every tab's views are populated, its checks over, its models filled and
    its plots drawn in their final state (no job in flight, no request
    pending).  After ``timeout_ms`` without that, ``on_done(True)`` is called
    instead.  Polls every :data:`IDLE_POLL_MS` on the event loop; returns the
    polling timer (stopped when done).
    """
    from PySide6.QtCore import QElapsedTimer, QTimer

    clock = QElapsedTimer()
    clock.start()
    poll = QTimer(win)
    poll.setInterval(IDLE_POLL_MS)
    state = {"seen": 0}

    def check() -> None:
        state["seen"] = state["seen"] + 1 if win.is_idle() else 0
        timed_out = clock.elapsed() >= timeout_ms
        if state["seen"] >= 2 or timed_out:
            poll.stop()
            on_done(timed_out and state["seen"] < 2)

    poll.timeout.connect(check)
    poll.start()
    return poll


def _run_window(files: Sequence[str], screenshot: str | None,
                size: tuple[int, int] | None, theme: str | None = None,
                qt_options: Sequence[str] = ()) -> int:
    quiet_qt_messages()
    app = make_application([sys.argv[0], *qt_options])

    from inspector.ui.main_window import MainWindow
    from inspector.ui.theme import apply_theme, saved_theme

    apply_theme(theme or saved_theme())
    win = MainWindow()
    if screenshot:
        win.keep_geometry = False  # the user's next window keeps its own size
        win.resize(*(size or (1280, 800)))
    else:
        win.resize(1280, 800)
        win.restore_geometry()
    targets = list(files) or [str(p) for p in sample_files()]
    win.show()
    win.open_paths(targets, remember=bool(files) and not screenshot)
    if not files and targets:
        win.all_ready.connect(lambda: win.statusBar().showMessage(
            f"No file given: showing the {len(targets)} bundled sample files. "
            "Open your own with File > Open (Ctrl+O) or drop them on the window."))
    if screenshot:
        result = {"code": 1}

        def grab(timed_out: bool) -> None:
            if timed_out:
                print(f"inspector: warning: the window was still busy after "
                      f"{SCREENSHOT_TIMEOUT_MS / 1000:g} s; {screenshot} shows it as it was",
                      file=sys.stderr)
            app.processEvents()
            pix = win.grab()
            wanted = size or (1280, 800)
            if (win.width(), win.height()) != wanted:  # the window's minimum size won
                print(f"inspector: warning: the window cannot be made as small as "
                      f"{wanted[0]}x{wanted[1]}; {screenshot} is {pix.width()}x{pix.height()}",
                      file=sys.stderr)
            result["code"] = 0 if pix.save(screenshot) else 1
            if result["code"]:
                print(f"inspector: could not write {screenshot}", file=sys.stderr)
            win.close()
            app.quit()

        wait_until_idle(win, SCREENSHOT_TIMEOUT_MS, grab)
        app.exec()
        _drain(win)
        return result["code"]
    code = app.exec()
    _drain(win)
    return code


def _drain(win: MainWindow) -> None:
    """Let the window's jobs stop before the worker pool shuts down."""
    win.jobs.cancel_all()
    win.jobs.wait(5000)
