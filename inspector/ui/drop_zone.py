"""Files dropped on the window: opened, or compared with the current document.

While one file or URL is dragged over the window and a document is open, two
zones cover the window (:class:`DropZones`): **Open** (left) and **Compare with
NAME** (right, NAME the current document).  Dropping on the right zone opens a
Compare tab of the current document and the dropped file
(:func:`inspector.ui.compare.action.open_compare`); anywhere else the dropped files
open as documents, as they always do when no document is open or several files
are dragged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QWidget

from inspector.formats.remote.path import is_url
from inspector.ui.window_paths import remote_refusal

OPEN = "open"
COMPARE = "compare"
#: Gap around and between the zones, in pixels.
MARGIN = 16


class DropZones(QWidget):
    """The two drop targets over ``window`` while a drag is on it (hidden otherwise);
    it never takes mouse or drop events itself: the window passes it the drag's
    position (:meth:`zone_at`, :meth:`hover`)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window_widget = window
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.compare_name = ""
        self.hovered: str | None = None
        self.hide()

    def show_over(self, name: str) -> None:
        """Cover the window, offering to compare with the document ``name``."""
        self.compare_name = name
        self.hovered = None
        self.setGeometry(self.window_widget.rect())
        self.raise_()
        self.show()

    def rects(self) -> dict[str, QRectF]:
        """Each zone's rectangle, in this widget's (= the window's) coordinates."""
        w, h = self.width(), self.height()
        half = (w - 3 * MARGIN) / 2
        return {OPEN: QRectF(MARGIN, MARGIN, half, h - 2 * MARGIN),
                COMPARE: QRectF(2 * MARGIN + half, MARGIN, half, h - 2 * MARGIN)}

    def zone_at(self, pos: QPointF) -> str:
        """The zone under ``pos`` (window coordinates): :data:`COMPARE` or :data:`OPEN`."""
        return COMPARE if self.isVisible() and self.rects()[COMPARE].contains(pos) else OPEN

    def hover(self, pos: QPointF) -> None:
        zone = self.zone_at(pos)
        if zone != self.hovered:
            self.hovered = zone
            self.update()

    def paintEvent(self, _event: Any) -> None:  # noqa: N802 - Qt's name
        pal = self.palette()
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        texts = {OPEN: "Open", COMPARE: f"Compare with\n{self.compare_name}"}
        p.fillRect(self.rect(), pal.color(QPalette.ColorRole.Window))
        font = QFont(self.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 1.5)
        else:
            font.setPixelSize(round(font.pixelSize() * 1.5))
        p.setFont(font)
        for zone, rect in self.rects().items():
            hovered = zone == self.hovered
            fill = pal.color(QPalette.ColorRole.Highlight if hovered else QPalette.ColorRole.Base)
            if hovered:
                fill.setAlpha(48)
            p.setBrush(fill)
            p.setPen(QPen(pal.color(QPalette.ColorRole.Highlight if hovered
                                    else QPalette.ColorRole.PlaceholderText),
                          3 if hovered else 2, Qt.PenStyle.DashLine))
            p.drawRoundedRect(rect, 12, 12)
            p.setPen(pal.color(QPalette.ColorRole.WindowText))
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                       texts[zone])
        p.end()


def _dragged(event: Any) -> list[str]:
    """The local paths and URLs of a drag or drop event."""
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    return [u.toLocalFile() if u.isLocalFile() else u.toString() for u in urls]


def _current_path(window: Any) -> Path | None:
    tab = window.current_tab()
    return getattr(tab, "path", None) if tab is not None else None


def drag_entered(window: Any, zones: DropZones, event: Any) -> None:
    """Accept a drag of files; offer the zones when one file comes to a window with a
    document open."""
    if not event.mimeData().hasUrls():
        return
    event.acceptProposedAction()
    current = _current_path(window)
    if current is not None and len(_dragged(event)) == 1:
        zones.show_over(Path(str(current)).name)
        zones.hover(event.position())


def drag_moved(zones: DropZones, event: Any) -> None:
    if event.mimeData().hasUrls():
        event.acceptProposedAction()
        zones.hover(event.position())


def dropped(window: Any, zones: DropZones, event: Any, open_dropped: Any) -> None:
    """Compare the dropped file with the current document when it lands on the Compare
    zone; else hand the dropped files to ``open_dropped(event)``."""
    zone = zones.zone_at(event.position())
    zones.hide()
    current = _current_path(window)
    files = _dragged(event)
    if zone == COMPARE and current is not None and len(files) == 1:
        target = files[0]
        if Path(target).exists() or is_url(target):
            from inspector.ui.compare.action import open_compare

            event.acceptProposedAction()
            open_compare(window, current, target)
            return
    open_dropped(event)


def open_dropped(window: Any, event: Any) -> None:
    """Open the dropped files and http(s)/s3 URLs as documents (other URLs: a message)."""
    urls = event.mimeData().urls()
    paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
    links = [u.toString() for u in urls if not u.isLocalFile()]
    remote = [u for u in links if is_url(u)]
    other = [u for u in links if not is_url(u)]
    if paths or links:
        event.acceptProposedAction()
    if paths:
        window.open_paths(paths)
    if remote:
        window.open_paths(remote, remember=False)
    if other:
        window.statusBar().showMessage(remote_refusal(other))
