"""PySide6 builds every Qt class's Python type when its module is imported, not on first use.

PySide6 (6.8 and later) creates each Qt class's Python type when it is first used
("lazy loading"), and that creation is not safe when two threads do it at once:
pyqtgraph's import walks every QtCore/QtGui/QtWidgets class, and doing so on the
preload thread (:mod:`.preload`) while the GUI thread used another class for the
first time crashed the process (SIGSEGV in the event loop).  It also held the
interpreter lock for about 0.4 s, stalling the GUI thread.  With the option off,
PySide6 creates every type when its module is imported, on the thread that imports
it first: the GUI thread (docs/architecture.md, "Threads").

:func:`apply` must run before PySide6 is imported: ``inspector/__init__.py`` calls it.
"""

from __future__ import annotations

import os
import sys

from inspector.runtime.switches import ENV

#: PySide6's own switch (``0``: create every type at import).
OPTION = "PYSIDE6_OPTION_LAZY"


def apply() -> bool:
    """Turn PySide6's lazy class creation off unless the environment already chose.

    Returns whether PySide6 still creates Qt classes lazily in this process: it was
    imported before ``inspector``, the option was set otherwise, or the measure is
    left out (``eager-qt-classes`` in :data:`~inspector.runtime.switches.ENV`);
    :func:`inspector.runtime.start_gui` then creates them all on the GUI thread.
    """
    if "eager-qt-classes" not in os.environ.get(ENV, ""):
        os.environ.setdefault(OPTION, "0")
    return "PySide6" in sys.modules or os.environ.get(OPTION, "1") != "0"
