"""Qt classes defined on a background thread are built on the GUI thread.

The preload thread (:mod:`inspector.runtime.preload`) imports pyqtgraph and the
view modules, whose ``class`` statements define about 230 Python subclasses of
Qt classes.  Building such a class makes shiboken record per-type data.  On
Python before 3.12 shiboken keeps that data in one process-wide
``std::unordered_map`` (``PepType_SOTP`` in ``libshiboken/pep384impl.cpp``)
and inserts into it under the interpreter lock only, while the GUI thread
reads it without that lock: ``SignalManager::retrieveMetaObject``, the
``metaObject()`` of every Qt object made from Python, avoids the lock on
purpose (PYSIDE-803) and calls ``retrieveTypeUserData``.  An insertion that
rehashes the map frees the buckets the GUI thread is reading.  The crash
seen (SIGSEGV in ``PySide::MetaObjectBuilder::update`` with a null builder,
reached from ``QMetaObject::cast`` while a tab bar painted) had the preload
thread creating types; in a process where PySide6 makes its own classes
lazily it happened about once in 45 starts under load.

So, on a thread inside :meth:`ClassBuilds.diverted`, a ``class`` statement with
a Qt base is handed to the GUI thread, which runs it (the body and the type's
creation: 19 ms for all 230 classes, 0.6 ms at most for one) while the
background thread waits; every other statement of the module still runs on the
background thread.  Should the GUI thread not take the request within
:data:`GUI_WAIT_S` (its event loop not running, the application quitting), the
background thread builds the class itself, as before; it does so at once while
the GUI thread waits for an import (then it runs no Qt code, and it may wait for
the very module being imported).
"""

from __future__ import annotations

import builtins
import importlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal
from shiboken6 import Shiboken

#: The metatype of every Qt class and of every Python subclass of one.
QT_TYPE: type = type(Shiboken.Object)
#: Seconds a background thread waits for the GUI thread to take a class before it
#: builds the class itself.
GUI_WAIT_S = 2.0
#: Seconds between two looks at whether the GUI thread can take the class at all.
WAIT_SLICE_S = 0.005

_build_class_itself = builtins.__build_class__
_diverting: dict[int, _Diversion] = {}  # thread id -> its diversion (each thread sets its own)


class _Request:
    """One ``class`` statement waiting for the GUI thread; claimed by one side only."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.args = args
        self.kwargs = kwargs
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self._claimed = False
        self._lock = threading.Lock()

    def claim(self) -> bool:
        """True for the first caller only: that side builds the class."""
        with self._lock:
            if self._claimed:
                return False
            self._claimed = True
            return True

    def build(self) -> None:
        try:
            self.result = _build_class_itself(*self.args, **self.kwargs)
        except BaseException as exc:  # noqa: BLE001 - raised again on the requesting thread
            self.error = exc
        finally:
            self.done.set()


class _GuiBuilder(QObject):
    """Lives on the GUI thread; builds the classes requested from other threads."""

    requested = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.gui_thread = threading.get_ident()
        self.built = 0  # classes built for other threads (read on the GUI thread)
        self.stopped = threading.Event()  # set when the application quits
        self.requested.connect(self._build)  # (queued: emitted from other threads)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stopped.set)

    def _build(self, request: _Request) -> None:
        if request.claim():
            self.built += 1
            request.build()


class _Diversion:
    """One background thread's diversion; only that thread touches it."""

    def __init__(self, builder: _GuiBuilder) -> None:
        self.builder = builder
        self.given_up = False  # the GUI thread once did not answer: build here from now on


def gui_blocked_on_import(gui_thread: int) -> bool:
    """True while the thread ``gui_thread`` waits for a module another thread is importing.

    The GUI thread then runs no Qt code, so a class can be built off it safely;
    it may be waiting for the very import that waits for it.  Reads the import
    system's record of blocked threads (``importlib._bootstrap._blocking_on``:
    a lock per thread in 3.11, a list of locks from 3.12); False where it has none.
    """
    blocking = getattr(importlib._bootstrap, "_blocking_on", None)
    if blocking is None:
        return False
    try:
        return bool(blocking.get(gui_thread))
    except Exception:  # noqa: BLE001 - a private structure: treat anything odd as "not blocked"
        return False


def _wait_for_gui(request: _Request, diversion: _Diversion) -> None:
    """Wait until the GUI thread has built ``request``, or build it here when the GUI
    thread cannot: it waits for an import, the application quits, or :data:`GUI_WAIT_S`
    passed (then every later class of this diversion is built here too)."""
    builder = diversion.builder
    deadline = time.monotonic() + GUI_WAIT_S
    while not request.done.wait(WAIT_SLICE_S):
        late = time.monotonic() > deadline
        if late or builder.stopped.is_set() or gui_blocked_on_import(builder.gui_thread):
            if request.claim():
                diversion.given_up = late
                request.build()
                return


def _build_class(func: Any, name: str, *bases: Any, **kwargs: Any) -> Any:
    """``builtins.__build_class__``: a Qt class on a diverted thread goes to the GUI thread."""
    diversion = _diverting.get(threading.get_ident())
    if (diversion is None or diversion.given_up
            or not any(isinstance(base, QT_TYPE) for base in bases)):
        return _build_class_itself(func, name, *bases, **kwargs)
    app = QCoreApplication.instance()
    if app is None or app.closingDown() or diversion.builder.stopped.is_set():
        return _build_class_itself(func, name, *bases, **kwargs)
    request = _Request((func, name, *bases), kwargs)
    diversion.builder.requested.emit(request)
    _wait_for_gui(request, diversion)
    request.done.wait()
    if request.error is not None:
        raise request.error
    return request.result


class ClassBuilds:
    """The GUI thread's side: make it on the GUI thread, then use :meth:`diverted` on others."""

    def __init__(self) -> None:
        self._builder = _GuiBuilder()
        builtins.__build_class__ = _build_class  # type: ignore[assignment]

    @property
    def built(self) -> int:
        """How many classes the GUI thread has built for other threads."""
        return self._builder.built

    @contextmanager
    def diverted(self) -> Iterator[None]:
        """On the calling (background) thread, hand ``class`` statements with a Qt base
        to the GUI thread until the block ends."""
        ident = threading.get_ident()
        _diverting[ident] = _Diversion(self._builder)
        try:
            yield
        finally:
            del _diverting[ident]


#: The Qt modules pyqtgraph imports: its Qt shim (``pyqtgraph/Qt/__init__.py``) looks up
#: every name of the first three (``_copy_attrs``) and imports QtSvg, QtOpenGLWidgets and
#: QtTest where they exist; ``graphicsItems/PColorMeshItem.py`` imports QtOpenGL.  Importing
#: a module creates its classes' types on the importing thread, or, where PySide6 creates
#: them lazily, the first look-up of each does.
QT_MODULES = ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets", "PySide6.QtSvg",
              "PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets", "PySide6.QtTest")


def create_qt_types() -> int:
    """Import :data:`QT_MODULES` and create every class type they still lack, on the calling
    (GUI) thread, so that importing pyqtgraph on another thread creates none.

    A type created while another thread uses Qt can crash the process (module docstring):
    pyqtgraph's import on the preload thread imports QtSvg, QtOpenGL, QtOpenGLWidgets and
    QtTest (0.1 to 0.2 s on the loaded 2-core machine, most of it QtOpenGL's types), and,
    in a process where PySide6 creates types lazily (it was imported before ``inspector``:
    ``inspector.QT_CLASSES_LAZY``), its look-up of every QtCore/QtGui/QtWidgets name
    creates about 590 more (0.9 s there).  Once done, a call only compares names (under
    1 ms).  A module missing from the installation is skipped, as pyqtgraph skips it.
    Returns the number of types created by look-up.
    """
    count = 0
    for module_name in QT_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        made = vars(module)
        for attribute in dir(module):
            if attribute not in made:
                getattr(module, attribute)
                count += 1
    return count
