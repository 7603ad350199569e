"""The application's orderly end: what Qt and the threads hold is released while Python runs.

Left to the interpreter's exit, the ``QApplication`` is destroyed by PySide's own exit
handler (``QtCore.__moduleShutdown``, registered with :mod:`atexit`): it runs the C++
destructor of every ``QObject`` still owned by Python (parentless windows, pyqtgraph's
parentless context menus, job runners and their thread pools, in no particular order)
with the interpreter lock released, then deletes the application.  A destructor that
calls back into Python there, or an object deleted before something that still points to
it, crashed the process after everything else had finished (``SIGSEGV`` with no Python
frame).  :func:`shut_down` does the same work first, in order, while the interpreter and
the event loop's objects are whole: windows closed and deleted, jobs and imports finished,
cyclic garbage collected on the GUI thread, and only then the application shut down
(``QCoreApplication.shutdown``), so that the exit handler finds nothing left to do.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QCoreApplication, QEvent, QThreadPool

from inspector.jobs import stop_all_runners
from inspector.ui import preload

#: Longest wait for each thread pool, and for the preload thread (milliseconds).
WAIT_MS = 10_000


def release(app: QCoreApplication, wait_ms: int = WAIT_MS) -> dict[str, int]:
    """Close and delete every top-level widget, cancel and wait for every job runner, the
    global thread pool and the preload thread, and collect the cyclic garbage; the
    application itself is left running.  Call on the GUI thread.

    Returns what it found: ``widgets`` (top-level widgets closed), ``runners``
    (job runners stopped), ``garbage`` (unreachable objects collected),
    ``graphics_items`` (:func:`delete_stray_graphics_items`).
    """
    import shiboken6
    from PySide6.QtWidgets import QApplication

    widgets = QApplication.topLevelWidgets() if isinstance(app, QApplication) else []
    for widget in widgets:
        if shiboken6.isValid(widget):  # (closing one may have deleted another)
            widget.close()
        if shiboken6.isValid(widget):
            widget.deleteLater()
    _flush(app)
    preload.cancel_preloads()
    end = time.monotonic() + wait_ms / 1000
    while preload.busy() and time.monotonic() < end:
        _flush(app)
        time.sleep(0.005)
    runners = stop_all_runners(wait_ms)
    QThreadPool.globalInstance().waitForDone(wait_ms)
    _flush(app)
    garbage = gc.collect()  # (on this thread: see inspector.ui.garbage)
    _flush(app)
    strays = delete_stray_graphics_items()
    _flush(app)
    return {"widgets": len(widgets), "runners": runners, "garbage": garbage,
            "graphics_items": strays}


def delete_stray_graphics_items() -> int:
    """Delete every graphics item Python still owns outside any scene, and its children,
    through a scene made for them; returns how many top items there were.

    Such items (legend keys once; a plot item left half-built when its window closed) were
    still alive at the application's shutdown, and deleting one there crashed in
    ``QGraphicsWidget::~QGraphicsWidget`` under PySide's ``destroyQCoreApplication``.  A
    scene deletes its items parents first (``QGraphicsScene.clear``), as a closed window
    does.  Not enough for the half-built plot item, whose deletion still crashes here
    (left open: what had already been freed under it is not known).
    """
    import shiboken6
    from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

    strays = [o for o in gc.get_objects()
              if isinstance(o, QGraphicsItem) and shiboken6.isValid(o)
              and shiboken6.ownedByPython(o) and o.scene() is None and o.parentItem() is None]
    if strays:
        scene = QGraphicsScene()
        for item in strays:
            scene.addItem(item)
        scene.clear()
        shiboken6.delete(scene)
    return len(strays)


def shut_down(app: QCoreApplication, wait_ms: int = WAIT_MS) -> dict[str, int]:
    """:func:`release`, then delete the application and every ``QObject`` Python still
    owns (``QCoreApplication.shutdown``).  Nothing of Qt is usable afterwards; call once,
    on the GUI thread, when the event loop has returned.  Returns :func:`release`'s counts.
    """
    counts = release(app, wait_ms)
    app.shutdown()
    return counts


def _flush(app: QCoreApplication) -> None:
    """Deliver the posted events, the deferred deletes among them."""
    app.processEvents()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
