"""Inspector: a desktop inspector for VneuroTK HDF5 recordings and AUCX archives."""

from inspector.runtime import qt_option as _qt_option

#: PySide6 creates Qt classes lazily in this process (``inspector.runtime.qt_option``:
#: turned off here, before PySide6 is imported, unless something chose otherwise);
#: ``inspector.runtime.start_gui`` then creates them all on the GUI thread.
QT_CLASSES_LAZY = _qt_option.apply()

__version__ = "0.1.0"
APP_ID = "org.vneurotk.Inspector"
APP_NAME = "Inspector"
