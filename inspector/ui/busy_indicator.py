"""A calm "working…" indicator: a few dots stepping four times a second.

An indeterminate ``QProgressBar`` repaints about sixty times a second; every
repaint of a widget made from Python takes the interpreter lock, which the
background jobs (opening, verifying, plotting) then have to hand back.
Measured offscreen on two cores, importing the readers on a job took 1.5x as
long while one animated.  This indicator repaints four times a second, and
only while it is visible.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QLabel, QWidget

#: Milliseconds between two steps of the animation.
STEP_MS = 250
_FRAMES = ("●○○○", "○●○○", "○○●○", "○○○●")


class BusyIndicator(QLabel):
    """Dots stepping while shown (the accessible name says "busy")."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(_FRAMES[0], parent)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAccessibleName("busy")
        self._step = 0
        self._timer = QTimer(self)
        self._timer.setInterval(STEP_MS)
        self._timer.timeout.connect(self._advance)

    def _advance(self) -> None:
        self._step = (self._step + 1) % len(_FRAMES)
        self.setText(_FRAMES[self._step])

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._timer.start()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 - Qt override
        super().hideEvent(event)
        self._timer.stop()
