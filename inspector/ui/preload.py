"""Heavy modules imported on a background thread, handed to the GUI thread when ready.

The plots package (pyqtgraph, about 200 ms to import) and the format readers
(numpy, h5py, pandas) must not be imported on the GUI thread while the window
is shown: an import is one long step the event loop cannot interrupt
(docs/architecture.md, "Contracts": the GUI thread never blocks for more
than 50 ms).  :func:`when_imported` imports a module on a plain Python
thread and calls back on the GUI thread once it is importable without work.

Only module *code* runs on that thread: the modules define classes and
constants; no widget (no ``QObject`` at all) is created there.  Widgets are
built by the callback, on the GUI thread.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable
from types import ModuleType

from PySide6.QtCore import QObject, Signal

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
    """Lives on the GUI thread; its signals carry a finished import across threads."""

    imported = Signal(str)
    failed = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.running: set[str] = set()
        self.waiting: dict[str, list[tuple[Callable[[ModuleType], None],
                                           Callable[[str], None] | None]]] = {}
        self.imported.connect(self._imported)
        self.failed.connect(self._failed)

    def start(self, name: str) -> None:
        if name in self.running:
            return
        self.running.add(name)

        def run() -> None:  # a plain thread: module code only, no QObject is made here
            try:
                importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001 - reported on the GUI thread
                self.failed.emit(name, f"{type(exc).__name__}: {exc}")
            else:
                self.imported.emit(name)

        threading.Thread(target=run, name=f"import {name}").start()

    def _imported(self, name: str) -> None:
        self.running.discard(name)
        module = sys.modules[name]
        for on_ready, _ in self.waiting.pop(name, []):
            on_ready(module)

    def _failed(self, name: str, message: str) -> None:
        self.running.discard(name)
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

    At once when it already is; otherwise the module is imported on a
    background thread (once, however many callers wait) and ``on_ready`` runs
    from the event loop afterwards.  ``on_error(message)`` is called instead
    if the import raised.  Call from the GUI thread only.  A callback that
    belongs to a widget should check that the widget still wants it.
    """
    module = loaded(name)
    if module is not None:
        on_ready(module)
        return
    loader = _the_loader()
    loader.waiting.setdefault(name, []).append((on_ready, on_error))
    loader.start(name)


def preload(name: str) -> None:
    """Import ``name`` on a background thread now (nothing is called back)."""
    if loaded(name) is None:
        _the_loader().start(name)
