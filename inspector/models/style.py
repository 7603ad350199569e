"""Colours, fonts and status icons derived from the current palette.

Nothing is hard-coded to white or black: colours are picked for the
application palette's window lightness, so they stay readable in both light
and dark themes.  Checksum statuses are told apart by colour, icon shape and
text, never by colour alone.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QGuiApplication,
    QIcon,
    QPainter,
    QPalette,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QApplication, QStyle

#: Status -> (kind, short text).  Kind selects colour and icon shape.
STATUS_KIND = {
    "ok": "ok",
    "pending": "pending",
    "cancelled": "pending",
    "mismatch": "bad",
    "missing-member": "bad",
    "unlisted": "bad",
    "malformed-entry": "bad",
    "duplicate-entry": "bad",
    "refused": "bad",
}

_LIGHT = {"ok": "#1b7a32", "bad": "#c0262d", "warn": "#9a5a00", "pending": None,
          "string": "#8a4b12"}
_DARK = {"ok": "#6fdc8c", "bad": "#ff8a8a", "warn": "#ffc266", "pending": None, "string": "#e8b07a"}


def _palette() -> QPalette:
    return QGuiApplication.palette()


def is_dark(palette: QPalette | None = None) -> bool:
    """True when the palette's window colour is dark."""
    pal = palette or _palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < 128


def muted_color(palette: QPalette | None = None) -> QColor:
    """Greyed text colour for missing/unknown values (palette's placeholder text)."""
    pal = palette or _palette()
    c = pal.color(QPalette.ColorRole.PlaceholderText)
    if not c.isValid() or c == pal.color(QPalette.ColorRole.Text):
        c = pal.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    return c


def kind_color(kind: str, palette: QPalette | None = None) -> QColor:
    """Colour for ``"ok"``, ``"bad"``, ``"warn"``, ``"pending"`` or ``"string"``."""
    table = _DARK if is_dark(palette) else _LIGHT
    name = table.get(kind)
    return muted_color(palette) if name is None else QColor(name)


def status_color(status: str, palette: QPalette | None = None) -> QColor:
    """Text colour of a checksum status."""
    return kind_color(STATUS_KIND.get(status, "bad"), palette)


def italic_font() -> QFont:
    """The application font in italics (missing values)."""
    f = QFont(QGuiApplication.font())
    f.setItalic(True)
    return f


def monospace_font() -> QFont:
    """A fixed-pitch font (digests)."""
    f = QFont("monospace")
    f.setStyleHint(QFont.StyleHint.Monospace)
    return f


def _status_icon(kind: str, dark: bool) -> QIcon:
    size = 16
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    color = QColor((_DARK if dark else _LIGHT).get(kind) or ("#9a9a9a" if dark else "#7a7a7a"))
    pen = QPen(color, 2.0)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    if kind == "ok":  # filled circle with a check mark
        p.setBrush(QBrush(color))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawEllipse(QRectF(1, 1, 14, 14))
        p.setPen(QPen(QColor("#ffffff") if not dark else QColor("#10301a"), 2.0))
        p.drawPolyline([QPointF(4.5, 8.5), QPointF(7, 11), QPointF(11.5, 5)])
    elif kind == "bad":  # filled square with a cross
        p.setBrush(QBrush(color))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawRoundedRect(QRectF(1, 1, 14, 14), 2, 2)
        p.setPen(QPen(QColor("#ffffff") if not dark else QColor("#3a0d0d"), 2.0))
        p.drawLine(QPointF(5, 5), QPointF(11, 11))
        p.drawLine(QPointF(11, 5), QPointF(5, 11))
    else:  # hollow circle with three dots: pending
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(QRectF(1.5, 1.5, 13, 13))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(color))
        for x in (5, 8, 11):
            p.drawEllipse(QPointF(x, 8), 1.1, 1.1)
    p.end()
    return QIcon(pix)


def status_icon(status: str) -> QIcon:
    """Icon of a checksum status: check (ok), cross (failed), dots (pending).

    Drawn on each call; callers cache it (no module-level Qt objects, which
    would outlive the QApplication at interpreter exit).
    """
    return _status_icon(STATUS_KIND.get(status, "bad"), is_dark())


_SEVERITY_PIXMAPS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
}


def severity_icon(severity: str) -> QIcon:
    """The style's critical/warning/information icon for a finding severity."""
    style = QApplication.style()
    return style.standardIcon(
        _SEVERITY_PIXMAPS.get(severity, QStyle.StandardPixmap.SP_MessageBoxQuestion))
