"""Inspector: a desktop inspector for VneuroTK HDF5 recordings and AUCX archives."""

import os as _os
import sys as _sys

# PySide6 (6.8 and later) creates each Qt class's Python type when it is first
# used ("lazy loading"), and that creation is not safe when two threads do it at
# once: pyqtgraph's import walks every QtCore/QtGui/QtWidgets class, and doing so
# on the preload thread while the GUI thread used another class for the first time
# crashed the process (SIGSEGV in the event loop).  It also held the GIL for about
# 0.4 s, stalling the GUI thread.  With the option off, PySide6 creates every type
# when its module is imported, on the thread that imports it first: the GUI thread
# (docs/architecture.md, "Threads").  It must be set before PySide6 is imported.
_os.environ.setdefault("PYSIDE6_OPTION_LAZY", "0")
#: PySide6 creates Qt classes lazily in this process: it was imported before
#: ``inspector`` or the option was set otherwise; ``make_application`` then
#: creates them all on the GUI thread (``inspector.ui.qt_classes``).
QT_CLASSES_LAZY = "PySide6" in _sys.modules or _os.environ["PYSIDE6_OPTION_LAZY"] != "0"

__version__ = "0.1.0"
APP_ID = "org.vneurotk.Inspector"
APP_NAME = "Inspector"
