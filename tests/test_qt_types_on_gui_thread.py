"""No Qt type is created on the preload thread: pyqtgraph's import there creates none.

Creating a Qt class's type while another thread uses Qt can crash the process
(``inspector/runtime/qt_classes.py``).  pyqtgraph's Qt shim
(``pyqtgraph/Qt/__init__.py``) looks up every QtCore/QtGui/QtWidgets name
(``_copy_attrs``), which creates each type where PySide6 creates them lazily, and
imports QtSvg, QtOpenGLWidgets (with QtOpenGL) and QtTest, which creates theirs.
``docs/screenshots/take.py`` imported PySide6 before ``inspector`` and made its
``QApplication`` itself, so the preload thread created about 590 types while the
window was being shown: SIGSEGV in ``_copy_attrs`` in 2 of about 13 runs.
"""

from __future__ import annotations

import pytest

from tests.window_child import run_python

#: Preloads the plots package (pyqtgraph) in a fresh process and prints what the preload
#: thread found lazily missing when it started and which PySide6 modules it imported.
PRELOAD_PLOTS = """
import sys, threading
{start}
from PySide6.QtWidgets import QApplication
from inspector.runtime import preload
from inspector.runtime.qt_classes import QT_MODULES
seen = {{"lazy": None, "imports": set()}}

def lazy_types():
    modules = [sys.modules[name] for name in QT_MODULES[:3]]
    return sum(name not in vars(m) for m in modules for name in dir(m))

def hook(event, args):
    if threading.current_thread() is threading.main_thread():
        return
    if seen["lazy"] is None:  # the preload thread's first event
        seen["lazy"] = lazy_types()
    if event == "import" and args[0].startswith("PySide6."):
        seen["imports"].add(args[0])

sys.addaudithook(hook)
preload.when_imported("inspector.ui.plots", lambda m: app.quit(),
                      lambda error: (print(error), app.quit()))
app.exec()
print("lazy", seen["lazy"], "imports", ",".join(sorted(seen["imports"])) or "none")
"""

#: As a script may start: PySide6 first (it then creates types lazily), its own QApplication.
SCRIPT_START = """
import PySide6.QtWidgets
import inspector
from PySide6.QtWidgets import QApplication
app = QApplication([])
"""
#: As ``inspector`` starts: ``inspector`` first, the application from ``make_application``.
APP_START = """
import inspector
from inspector.app import make_application
app = make_application()
"""


@pytest.mark.parametrize("start", [SCRIPT_START, APP_START], ids=["script", "app"])
@pytest.mark.slow
def test_preloading_pyqtgraph_creates_no_qt_type_off_the_gui_thread(start, monkeypatch):
    monkeypatch.delenv("PYSIDE6_OPTION_LAZY", raising=False)  # as in a user's shell
    out = run_python(PRELOAD_PLOTS.format(start=start), timeout=180,
                     env={"QT_QPA_PLATFORM": "offscreen"})
    assert out.strip().splitlines()[-1] == "lazy 0 imports none"


@pytest.mark.slow
def test_the_oracle_sees_pyqtgraphs_qt_imports_on_the_preload_thread(monkeypatch):
    """The check above, with the Qt modules left to the preload thread, sees them there."""
    monkeypatch.delenv("PYSIDE6_OPTION_LAZY", raising=False)
    start = ("from inspector.runtime import qt_classes\n"
             "qt_classes.create_qt_types = lambda: 0\n") + APP_START
    out = run_python(PRELOAD_PLOTS.format(start=start), timeout=180,
                     env={"QT_QPA_PLATFORM": "offscreen"})
    assert out.strip().splitlines()[-1] == (
        "lazy 0 imports PySide6.QtOpenGL,PySide6.QtOpenGLWidgets,PySide6.QtSvg,PySide6.QtTest")


TAKE_PY = """
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("take", "docs/screenshots/take.py")
spec.loader.exec_module(importlib.util.module_from_spec(spec))  # (its main() not run)
print("option", os.environ.get("PYSIDE6_OPTION_LAZY"), "PySide6", "PySide6" in sys.modules)
"""


def test_the_screenshot_script_imports_inspector_before_pyside6(monkeypatch):
    monkeypatch.delenv("PYSIDE6_OPTION_LAZY", raising=False)
    out = run_python(TAKE_PY, timeout=120)
    assert out.strip().splitlines()[-1] == "option 0 PySide6 False"
