"""Icons drawn from the current style (no files needed)."""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

_SEVERITY_PIXMAPS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
}


def severity_icon(severity: str) -> QIcon:
    """The standard critical/warning/information icon for a finding severity."""
    style = QApplication.style()
    return style.standardIcon(_SEVERITY_PIXMAPS.get(severity, QStyle.StandardPixmap.SP_MessageBoxQuestion))
