"""The runtime measures of the GUI process, in one place (docs/runtime.md).

Each measure answers one way a desktop app written in Python can freeze or crash:

* :mod:`.interpreter_lock`: a short thread switch interval, so a job running Python
  keeps the GUI thread waiting for the interpreter lock briefly;
* :mod:`.threads`: background threads at a lower CPU priority;
* :mod:`.garbage`: cyclic garbage collected on the GUI thread only, held during
  start-up and warm-up, and what start-up made frozen out of the collector's reach;
* :mod:`.qt_option` and :mod:`.qt_classes`: Qt classes built on the GUI thread only;
* :mod:`.preload`: heavy modules imported on a background thread, one at a time.

:func:`start_gui` is the one entry point: ``inspector.app.make_application`` calls
it to make the application.  ``inspector/__init__.py`` applies :mod:`.qt_option`
(it must run before PySide6 is imported), and jobs and the preload thread lower
their own priority as they start.  :mod:`.switches` leaves a measure out for a
paired benchmark.  This package imports Qt only inside :func:`start_gui` and its
Qt modules; the format layer never imports it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication


def start_gui(argv: Sequence[str] | None = None) -> tuple[QApplication, bool]:
    """The process's ``QApplication`` (made from ``argv`` if none exists) with every measure
    in force, and whether this call made it.

    In order: the switch interval (:mod:`.interpreter_lock`); the application; the
    GUI-thread collector (:mod:`.garbage`); when the process starts, full collections
    held until the window's warm-up; and the types of every Qt class pyqtgraph uses
    created on this (the GUI) thread (:mod:`.qt_classes`) at the event loop's first
    turn, so that loading those Qt modules (0.1 to 0.2 s, mostly reading their
    libraries) does not delay the window and overlaps the first document's opening
    on its job.  The preload thread's loader creates them first (on this thread,
    before the thread starts) should it be made earlier.  Call on the main thread.
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from inspector.runtime.garbage import hold_during_start_up, install_gui_thread_collector
    from inspector.runtime.interpreter_lock import shorten_switch_interval
    from inspector.runtime.qt_classes import create_qt_types
    from inspector.runtime.switches import enabled

    shorten_switch_interval()
    app = cast("QApplication | None", QApplication.instance())
    starting = app is None
    if app is None:
        app = QApplication(list(argv) if argv is not None else [sys.argv[0]])
    QTimer.singleShot(0, app, create_qt_types)  # on this thread, once the loop runs
    if enabled("gui-collector"):
        install_gui_thread_collector(app)
    if starting:
        hold_during_start_up(app)
    return app, starting
