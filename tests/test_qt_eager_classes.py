"""PySide6 creates every Qt class when its module is imported, once ``inspector`` is imported.

PySide6's lazy class creation is not safe from two threads at once, and the
preload thread imports pyqtgraph (which touches every class) while the GUI
thread runs: see ``inspector/__init__.py``.
"""

from __future__ import annotations

import pytest

from tests.window_child import run_python

CHECK = """
import inspector
import PySide6.QtCore, PySide6.QtGui, PySide6.QtWidgets
for module in (PySide6.QtCore, PySide6.QtGui, PySide6.QtWidgets):
    missing = [n for n in dir(module) if n.startswith("Q") and n not in vars(module)]
    print(module.__name__, len(missing))
"""


@pytest.mark.slow
def test_importing_inspector_first_makes_pyside_create_its_classes_at_import(monkeypatch):
    monkeypatch.delenv("PYSIDE6_OPTION_LAZY", raising=False)  # as in a user's shell
    lines = run_python(CHECK, timeout=120).split("\n")
    counts = dict(line.split() for line in lines if line.startswith("PySide6."))
    assert counts == {"PySide6.QtCore": "0", "PySide6.QtGui": "0", "PySide6.QtWidgets": "0"}


def test_without_the_option_classes_are_created_lazily(monkeypatch):
    """The oracle: the check above sees lazy creation when PySide6 is left to its default."""
    monkeypatch.delenv("PYSIDE6_OPTION_LAZY", raising=False)
    code = CHECK.replace("import inspector\n", "")
    lines = run_python(code, timeout=120).split("\n")
    counts = dict(line.split() for line in lines if line.startswith("PySide6."))
    assert int(counts["PySide6.QtWidgets"]) > 100
