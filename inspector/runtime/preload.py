"""Heavy modules imported on a background thread, handed to the GUI thread when ready.

The plots package (pyqtgraph, about 200 ms to import) and the format readers
(numpy, h5py, pandas) must not be imported on the GUI thread while the window
is shown: an import is one long step the event loop cannot interrupt
(docs/architecture.md, "Contracts": the GUI thread never blocks for more
than 50 ms).  :func:`when_imported` imports a module on a plain Python
thread and calls back on the GUI thread once it is importable without work.

Only module *code* runs on that thread: the modules define classes and
constants; no widget (no ``QObject`` at all) is created there.  Widgets are
built by the callback, on the GUI thread.  The modules' subclasses of Qt
classes are built on the GUI thread too, and the Qt modules pyqtgraph imports
are imported (their types created) there before the thread starts
(:mod:`inspector.runtime.qt_classes`: creating a type on another thread could
crash the GUI thread).
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable
from types import ModuleType

from PySide6.QtCore import QObject, Signal

from inspector.formats.registry import IMPORT_LOCK
from inspector.runtime.qt_classes import ClassBuilds, create_qt_types
from inspector.runtime.threads import lower_thread_priority

#: The plots package: pyqtgraph and every plot view.
PLOTS = "inspector.ui.plots"


def loaded(name: str) -> ModuleType | None:
    """The module ``name`` if it is imported completely (not still initialising), else None."""
    module = sys.modules.get(name)
    if module is None:
        return None
    spec = getattr(module, "__spec__", None)
    if spec is not None and getattr(spec, "_initializing", False):
        return None
    return module


class _Loader(QObject):
    """Lives on the GUI thread; imports a queue of modules on one background thread.

    The queue is the only state both threads touch (under a lock); results
    cross back as queued signals.
    """

    imported = Signal(str)
    failed = Signal(str, str)
    drained = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.waiting: dict[str, list[tuple[Callable[[ModuleType], None],
                                           Callable[[str], None] | None]]] = {}
        self._lock = threading.Lock()
        self._queue: deque[str] = deque()
        self._thread: threading.Thread | None = None
        self.when_drained: list[Callable[[], None]] = []
        self.classes = ClassBuilds()  # the thread's Qt classes are built on the GUI thread
        create_qt_types()  # and so are the types its imports would create (once: start_gui)
        self.imported.connect(self._imported)
        self.failed.connect(self._failed)
        self.drained.connect(self._drained)

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._thread is not None

    def start(self, name: str, first: bool = False) -> None:
        """Queue ``name`` (at the front with ``first``) and start the thread if idle."""
        with self._lock:
            if name in self._queue:
                if not first:
                    return
                self._queue.remove(name)
            if first:
                self._queue.appendleft(name)
            else:
                self._queue.append(name)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="inspector preload")
                self._thread.start()

    def clear(self) -> None:
        """Drop the queued modules nobody waits for."""
        with self._lock:
            self._queue = deque(n for n in self._queue if n in self.waiting)

    def _run(self) -> None:  # the background thread: module code only, no QObject is made here
        lower_thread_priority()
        while True:
            with self._lock:
                if not self._queue:
                    self._thread = None
                    break
                name = self._queue.popleft()
            try:
                # (one importing thread at a time: see IMPORT_LOCK)
                with IMPORT_LOCK, self.classes.diverted():
                    importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001 - reported on the GUI thread
                self.failed.emit(name, f"{type(exc).__name__}: {exc}")
            else:
                self.imported.emit(name)
        self.drained.emit()

    def _imported(self, name: str) -> None:
        module = sys.modules[name]
        for on_ready, _ in self.waiting.pop(name, []):
            on_ready(module)

    def _drained(self) -> None:
        if self.busy:  # queued again since
            return
        callbacks, self.when_drained = self.when_drained, []
        for callback in callbacks:
            callback()

    def _failed(self, name: str, message: str) -> None:
        for _, on_error in self.waiting.pop(name, []):
            if on_error is not None:
                on_error(message)


_loader: _Loader | None = None


def _the_loader() -> _Loader:
    global _loader
    if _loader is None:
        _loader = _Loader()
    return _loader


def when_imported(name: str, on_ready: Callable[[ModuleType], None],
                  on_error: Callable[[str], None] | None = None) -> None:
    """Call ``on_ready(module)`` on the GUI thread once ``name`` is imported.

    At once when it already is; otherwise the module is imported on the
    background thread, before any module only preloaded, and ``on_ready``
    runs from the event loop afterwards.  ``on_error(message)`` is called
    instead if the import raised.  Call from the GUI thread only.  A callback
    that belongs to a widget should check that the widget still wants it.
    """
    module = loaded(name)
    if module is not None:
        on_ready(module)
        return
    loader = _the_loader()
    loader.waiting.setdefault(name, []).append((on_ready, on_error))
    loader.start(name, first=True)


def preload(names: Iterable[str]) -> None:
    """Import ``names`` on the background thread, in order (nothing is called back)."""
    for name in names:
        if loaded(name) is None:
            _the_loader().start(name)


def when_drained(callback: Callable[[], None]) -> None:
    """Call ``callback()`` on the GUI thread once the background thread has nothing left to
    import: at once when it is idle.  Call from the GUI thread only."""
    if not busy():
        callback()
        return
    _the_loader().when_drained.append(callback)


def cancel_preloads() -> None:
    """Drop the queued modules nobody waits for (the one being imported finishes)."""
    if _loader is not None:
        _loader.clear()


def busy() -> bool:
    """True while the background thread is importing."""
    return _loader is not None and _loader.busy
