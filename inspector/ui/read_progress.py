"""The fraction done of a long read, with Cancel, floating over the view it fills.

A read that is still running :data:`SHOW_AFTER_MS` after it started shows a small
box in the top right corner of its view: a bar "``done`` of ``total`` ``unit``" and
a Cancel button.  The box floats over the view (it is no part of a layout), so
showing and hiding it never moves anything else.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QProgressBar, QPushButton, QWidget

#: A read shows its progress once it has run this long (milliseconds).
SHOW_AFTER_MS = 1000
#: Room between the box and its view's edges (pixels).
MARGIN = 8


class ReadProgress(QFrame):
    """The progress box of the reads of one view (``host``: the widget it floats over).

    Signals:
        cancel_requested(): Cancel was pressed (the box hides itself).
    """

    cancel_requested = Signal()

    def __init__(self, host: QWidget, unit: str, tooltip: str = "Stop this read") -> None:
        super().__init__(host)
        self.setObjectName("readProgress")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.unit = unit
        self.bar = QProgressBar(self)
        self.bar.setFormat(f"counting {unit}…")
        self.bar.setMinimumWidth(self.fontMetrics().horizontalAdvance(
            f"0,000,000 of 0,000,000 {unit} (100%)") + 24)
        self.cancel = QPushButton("Cancel", self)
        self.cancel.setToolTip(tooltip)
        self.cancel.clicked.connect(self._cancelled)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(self.bar)
        lay.addWidget(self.cancel)
        self.running = False
        self._timer = QTimer(self, singleShot=True, interval=SHOW_AFTER_MS)
        self._timer.timeout.connect(self._reveal)
        host.installEventFilter(self)
        self.hide()

    def counted_format(self, done: int, total: int) -> str:
        """The bar's text once the total is known: "``done`` of ``total`` unit (p%)", the
        counts grouped by thousands ("1,012 of 4,096 chunks (24%)")."""
        return f"{done:,} of {total:,} {self.unit} (%p%)"

    def start(self, total: int = 0) -> None:
        """A read began: the box shows after :data:`SHOW_AFTER_MS` if it is still running.
        ``total`` 0: not known yet (the bar says "counting ``unit``…" until
        :meth:`update_progress`)."""
        self.running = True
        self.bar.setRange(0, max(int(total), 1))
        self.bar.setValue(0)
        self.bar.setFormat(self.counted_format(0, total) if total > 0
                           else f"counting {self.unit}…")
        self._timer.start()

    def update_progress(self, done: int, total: int) -> None:
        """``done`` of ``total`` read."""
        done = min(int(done), max(int(total), 1))
        self.bar.setFormat(self.counted_format(done, int(total)))
        self.bar.setRange(0, max(int(total), 1))
        self.bar.setValue(done)

    def finish(self) -> None:
        """The read ended (done, failed or cancelled): the box goes."""
        self.running = False
        self._timer.stop()
        self.hide()

    def _cancelled(self) -> None:
        self.finish()
        self.cancel_requested.emit()

    def _reveal(self) -> None:
        if self.running:
            self.adjustSize()
            self._place()
            self.show()
            self.raise_()

    def _place(self) -> None:
        host = self.parentWidget()
        if host is not None:
            self.move(max(0, host.width() - self.width() - MARGIN), MARGIN)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False
