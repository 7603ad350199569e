"""Qt subclasses defined on the preload thread are built on the GUI thread.

On Python before 3.12 shiboken records every new Qt type in one unlocked hash
map that the GUI thread reads without the interpreter lock (see
``inspector/runtime/qt_classes.py``); building Qt classes on two threads crashed the
process about once in 45 starts.
"""

from __future__ import annotations

import sys
import threading
import types

import pytest
from PySide6.QtCore import QObject

from inspector.runtime import preload, qt_classes
from inspector.runtime.qt_classes import ClassBuilds, gui_blocked_on_import
from tests.window_child import run_python


def _on_thread(target) -> threading.Thread:
    thread = threading.Thread(target=target)
    thread.start()
    return thread


def test_a_qt_class_of_a_diverted_thread_is_built_on_the_gui_thread(qtbot):
    builds = ClassBuilds()
    made: dict[str, object] = {}

    def define() -> None:
        made["thread"] = threading.get_ident()
        with builds.diverted():
            class Widget(QObject):
                body_thread = threading.get_ident()

                def hello(self) -> str:
                    return "hello"

            class Plain:
                body_thread = threading.get_ident()

        made["widget"], made["plain"] = Widget, Plain

    thread = _on_thread(define)
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=10_000)
    widget, plain = made["widget"], made["plain"]
    assert widget.body_thread == threading.get_ident() != made["thread"]
    assert plain.body_thread == made["thread"]  # no Qt base: built where it is defined
    assert builds.built == 1
    assert issubclass(widget, QObject) and widget().hello() == "hello"


def test_a_class_outside_a_diversion_is_built_where_it_is_defined(qtbot):
    builds = ClassBuilds()
    made: dict[str, int] = {}

    def define() -> None:
        class Widget(QObject):
            body_thread = threading.get_ident()

        made["body"], made["thread"] = Widget.body_thread, threading.get_ident()

    thread = _on_thread(define)
    thread.join(10)
    assert made["body"] == made["thread"] != threading.get_ident()
    assert builds.built == 0


def test_an_error_in_the_class_body_is_raised_on_the_defining_thread(qtbot):
    builds = ClassBuilds()
    caught: list[BaseException] = []

    def define() -> None:
        try:
            with builds.diverted():
                class Broken(QObject):
                    value = 1 / 0
        except ZeroDivisionError as exc:
            caught.append(exc)

    thread = _on_thread(define)
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=10_000)
    assert len(caught) == 1 and builds.built == 1


def test_when_the_gui_thread_does_not_answer_the_thread_builds_its_classes_itself(
        qtbot, monkeypatch):
    monkeypatch.setattr(qt_classes, "GUI_WAIT_S", 0.05)
    builds = ClassBuilds()
    bodies: list[int] = []

    def define() -> None:
        with builds.diverted():
            for _ in range(3):
                class Widget(QObject):
                    bodies.append(threading.get_ident())

    thread = _on_thread(define)
    thread.join(10)  # (the GUI thread runs no event loop meanwhile: nobody answers)
    assert not thread.is_alive()
    assert bodies == [thread.ident] * 3 and builds.built == 0
    qtbot.wait(20)  # the stale requests arrive: each is already built, none is built twice
    assert builds.built == 0


def test_gui_blocked_on_import_sees_a_thread_waiting_for_another_threads_import(tmp_path,
                                                                                  monkeypatch):
    gate = threading.Event()
    (tmp_path / "held_module.py").write_text(
        "import held_gate\nassert held_gate.GATE.wait(10)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "held_gate", types.SimpleNamespace(GATE=gate))
    holder = _on_thread(lambda: __import__("held_module"))
    while "held_module" not in sys.modules:  # the holder is inside the module's code
        threading.Event().wait(0.001)
    waiter = _on_thread(lambda: __import__("held_module"))
    seen = False
    for _ in range(2000):
        seen = gui_blocked_on_import(waiter.ident)
        if seen:
            break
        threading.Event().wait(0.001)
    assert not gui_blocked_on_import(threading.get_ident())
    gate.set()
    holder.join(10)
    waiter.join(10)
    assert seen
    assert not gui_blocked_on_import(waiter.ident)
    assert sys.modules["held_module"].__name__ == "held_module"  # (it was imported whole)
    sys.modules.pop("held_module", None)


def test_the_preload_thread_builds_a_view_modules_qt_classes_on_the_gui_thread(
        qtbot, tmp_path, monkeypatch):
    (tmp_path / "preloaded_view.py").write_text(
        "import threading\nfrom PySide6.QtWidgets import QWidget\n"
        "MODULE_THREAD = threading.get_ident()\n"
        "class View(QWidget):\n    BODY_THREAD = threading.get_ident()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    ready: list = []
    preload.when_imported("preloaded_view", ready.append)
    qtbot.waitUntil(lambda: bool(ready), timeout=20_000)
    module = ready[0]
    assert module.View.BODY_THREAD == threading.get_ident() != module.MODULE_THREAD
    sys.modules.pop("preloaded_view", None)


LAZY_FIRST = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
import PySide6.QtWidgets  # before inspector: PySide6 creates classes lazily
from inspector import QT_CLASSES_LAZY
from inspector.app import make_application
missing = lambda m: sum(1 for n in dir(m) if n.startswith("Q") and n not in vars(m))
before = missing(PySide6.QtWidgets)
app = make_application()
made = missing(PySide6.QtWidgets) == 0  # not yet: the window is not delayed by them
app.processEvents()  # the event loop's first turn creates them, on this thread
print("lazy", QT_CLASSES_LAZY, before > 100, made, missing(PySide6.QtWidgets))
"""


@pytest.mark.slow
def test_make_application_creates_lazy_qt_classes_on_the_gui_thread(monkeypatch):
    monkeypatch.delenv("PYSIDE6_OPTION_LAZY", raising=False)
    out = run_python(LAZY_FIRST, timeout=120)
    assert "lazy True True False 0" in out.split("\n")


@pytest.mark.parametrize("name", ["inspector.ui.plots", "inspector.ui.trials"])
@pytest.mark.slow
def test_the_view_modules_qt_classes_are_all_built_on_the_gui_thread(name):
    """Importing a view package (with pyqtgraph) on the preload thread in a fresh
    process: every class with a Qt base is built on the GUI thread."""
    code = f"""
import threading
import inspector
from inspector.app import make_application
from inspector.runtime import preload, qt_classes
app = make_application()
gui = threading.get_ident()
off = []
build = qt_classes._build_class_itself
def spy(func, name, *bases, **kw):
    cls = build(func, name, *bases, **kw)
    if any(isinstance(b, qt_classes.QT_TYPE) for b in bases) and threading.get_ident() != gui:
        off.append(name)
    return cls
qt_classes._build_class_itself = spy  # (every class statement ends there, on either side)
done = []
preload.when_imported("{name}", done.append)
while not done:
    app.processEvents()
print("built", preload._the_loader().classes.built > 50, "off", len(off))
"""
    out = run_python(code, timeout=180)
    assert "built True off 0" in out.split("\n")
