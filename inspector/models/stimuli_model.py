"""List model of a recording's stimuli: typed-ID captions and lazy thumbnails.

The model does no decoding.  The first time a view asks for a row's
decoration (i.e. the item became visible) it emits
:attr:`StimuliModel.thumbnail_requested`; the UI decodes the image on a
background job and hands the scaled ``QImage`` back with
:meth:`StimuliModel.set_thumbnail` (or :meth:`StimuliModel.set_failed`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPen, QPixmap

from inspector.formats.document import Stimulus
from inspector.models.multi_data import OneEntryPerCell
from inspector.models.roles import CopyRole, LocationRole, NameRole, ValueRole
from inspector.models.style import muted_color
from inspector.models.value_text import value_text, value_type_name

_D = Qt.ItemDataRole

#: Thumbnail edge in pixels.
THUMB = 96

#: Row state: not yet requested / decoding / shown / failed.
STATE_NEW, STATE_LOADING, STATE_DONE, STATE_FAILED = range(4)


def placeholder_pixmap(failed: bool, size: int = THUMB) -> QPixmap:
    """A framed box (decoding) or a crossed-out box (cannot be loaded)."""
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    c = QColor(muted_color())
    p.setPen(QPen(c, 1.5, Qt.PenStyle.DashLine if not failed else Qt.PenStyle.SolidLine))
    p.drawRect(4, 4, size - 8, size - 8)
    if failed:
        p.drawLine(12, 12, size - 12, size - 12)
        p.drawLine(size - 12, 12, 12, size - 12)
    p.end()
    return pix


class StimuliModel(OneEntryPerCell, QAbstractListModel):
    """One row per :class:`Stimulus`; caption = typed ID (``3`` vs ``"3"``)."""

    thumbnail_requested = Signal(int)

    def __init__(self, stimuli: list[Stimulus], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._stimuli = list(stimuli)
        self._state = [STATE_NEW] * len(self._stimuli)
        self._icons: dict[int, QIcon] = {}
        self._errors: dict[int, str] = {}
        self._loading_icon: QIcon | None = None
        self._failed_icon: QIcon | None = None

    def stimulus(self, row: int) -> Stimulus:
        return self._stimuli[row]

    def state(self, row: int) -> int:
        return self._state[row]

    def error(self, row: int) -> str | None:
        return self._errors.get(row)

    def set_thumbnail(self, row: int, image: QImage) -> None:
        """Show ``image`` (already scaled) for ``row``."""
        self._icons[row] = QIcon(QPixmap.fromImage(image))
        self._state[row] = STATE_DONE
        idx = self.index(row)
        self.dataChanged.emit(idx, idx)

    def set_failed(self, row: int, message: str) -> None:
        """Mark ``row`` as not loadable (placeholder shown, message in the tooltip)."""
        self._state[row] = STATE_FAILED
        self._errors[row] = message
        idx = self.index(row)
        self.dataChanged.emit(idx, idx)

    def caption(self, row: int) -> str:
        return value_text(self._stimuli[row].stim_id, limit=60)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._stimuli)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _D.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = index.row()
        s = self._stimuli[row]
        if role == _D.DisplayRole:
            return self.caption(row)
        if role == _D.DecorationRole:
            st = self._state[row]
            if st == STATE_DONE:
                return self._icons[row]
            if st == STATE_NEW:
                self._state[row] = STATE_LOADING
                self.thumbnail_requested.emit(row)
            if self._state[row] == STATE_FAILED:
                if self._failed_icon is None:
                    self._failed_icon = QIcon(placeholder_pixmap(True))
                return self._failed_icon
            if self._loading_icon is None:
                self._loading_icon = QIcon(placeholder_pixmap(False))
            return self._loading_icon
        if role == _D.ToolTipRole:
            text = (f"ID {self.caption(row)} ({value_type_name(s.stim_id)}), "
                    f"stored as {s.kind}\n{s.location}")
            if row in self._errors:
                text += f"\ncannot be loaded: {self._errors[row]}"
            return text
        if role == _D.ForegroundRole and self._state[row] == STATE_FAILED:
            return muted_color()
        if role == _D.SizeHintRole:
            return QSize(THUMB + 24, THUMB + 36)
        if role == _D.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        if role == ValueRole:
            return s.stim_id
        if role == CopyRole or role == NameRole:
            return self.caption(row)
        if role == LocationRole:
            return s.location
        return None


