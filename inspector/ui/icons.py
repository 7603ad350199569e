"""Icons: the application and AUCX file icons shipped with the package, and
finding-severity icons drawn from the current style.

The shipped icons are located by :mod:`inspector.resources_access`
(``importlib.resources``), never relative to the working directory.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QIcon

from inspector.models.style import severity_icon
from inspector.resources_access import APP_ICON, AUCX_ICON, icon_pngs

__all__ = ["app_icon", "aucx_icon", "severity_icon"]


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
