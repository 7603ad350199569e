"""Icons: the application and AUCX file icons shipped with the package, and
finding-severity icons drawn from the current style.

The shipped icons are located by :mod:`inspector.resources_access`
(``importlib.resources``), never relative to the working directory.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

from inspector.resources_access import APP_ICON, AUCX_ICON, icon_pngs

_SEVERITY_PIXMAPS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
}


def severity_icon(severity: str) -> QIcon:
    """The standard critical/warning/information icon for a finding severity."""
    style = QApplication.style()
    return style.standardIcon(_SEVERITY_PIXMAPS.get(severity, QStyle.StandardPixmap.SP_MessageBoxQuestion))


def _png_icon(name: str) -> QIcon:
    icon = QIcon()
    try:
        pngs = icon_pngs(name)
    except FileNotFoundError:
        return icon  # a broken installation gets Qt's default icon, not a crash
    for size, path in pngs.items():
        icon.addFile(str(path), QSize(size, size))
    return icon


def app_icon() -> QIcon:
    """The application icon (window icon, about box) at every shipped PNG size (16-256 px).

    Returns a null ``QIcon`` (``isNull()``) if the icon files are missing.
    """
    return _png_icon(APP_ICON)


def aucx_icon() -> QIcon:
    """The icon of AUCX archives (MIME type ``application/x-aucx``), e.g. for tabs and lists."""
    return _png_icon(AUCX_ICON)
