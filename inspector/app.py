"""The GUI entry point: build the application, open files, optionally screenshot."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from inspector import APP_ID, APP_NAME, __version__
from inspector.formats.workers import worker_pool
from inspector.resources_access import sample_files

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from inspector.ui.main_window import MainWindow


def make_application(argv: Sequence[str] | None = None) -> QApplication:
    """Create (or return) the QApplication with the app's identity set."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    from inspector.ui.icons import app_icon

    app = cast("QApplication", QApplication.instance())
    if app is None:
        app = QApplication(list(argv) if argv is not None else [sys.argv[0]])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName("Inspector")
    app.setOrganizationDomain("vneurotk.org")
    app.setApplicationVersion(__version__)
    QGuiApplication.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())  # a null icon when the files are missing
    return app


def run_gui(files: Sequence[str], screenshot: str | None = None,
            size: tuple[int, int] | None = None) -> int:
    """Show the main window with ``files`` (or the bundled samples) and run the event loop.

    With ``screenshot``, waits until every tab is populated, saves a PNG of the
    window and returns 0 (1 if the PNG could not be written).

    The shared worker pool (:mod:`inspector.formats.workers`) is open for as
    long as the window runs and shut down when it closes.
    """
    with worker_pool():
        return _run_window(files, screenshot, size)


def _run_window(files: Sequence[str], screenshot: str | None,
                size: tuple[int, int] | None) -> int:
    app = make_application()
    from PySide6.QtCore import QTimer

    from inspector.ui.main_window import MainWindow

    win = MainWindow()
    if screenshot:
        win.resize(*(size or (1280, 800)))
    else:
        win.resize(1280, 800)
        win.restore_geometry()
    targets = list(files) or [str(p) for p in sample_files()]
    win.show()
    win.open_paths(targets)
    if not files and targets:
        win.all_ready.connect(lambda: win.statusBar().showMessage(
            f"No file given: showing the {len(targets)} bundled sample files. "
            "Open your own with File > Open (Ctrl+O) or drop them on the window."))
    if screenshot:
        result = {"code": 1}

        def grab() -> None:
            app.processEvents()
            pix = win.grab()
            result["code"] = 0 if pix.save(screenshot) else 1
            if result["code"]:
                print(f"inspector: could not write {screenshot}", file=sys.stderr)
            win.close()
            app.quit()

        def settle() -> None:
            QTimer.singleShot(getattr(win, "settle_ms", 800), grab)

        win.all_ready.connect(settle)
        if not targets:
            settle()
        QTimer.singleShot(120_000, grab)  # never hang forever
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
