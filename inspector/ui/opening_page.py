"""The page a document tab shows while its file opens: a busy indicator, and for a URL
the bytes read so far with a Cancel button."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from inspector.formats.remote.path import RemotePath
from inspector.ui.busy_indicator import BusyIndicator


class OpeningPage(QWidget):
    """"Opening NAME…" over a busy indicator.

    Attributes:
        cancel_open: Cancel for a URL being opened (None for a local file).
    """

    def __init__(self, path: Path | RemotePath, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.addStretch(1)
        self.label = QLabel(f"Opening {path.name}…")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(self.label)
        lay.addWidget(BusyIndicator(), 0, Qt.AlignmentFlag.AlignHCenter)
        self.cancel_open: QPushButton | None = None
        self._timer: QTimer | None = None
        if isinstance(path, RemotePath):
            self._watch_remote(lay, path)
        lay.addStretch(2)

    def _watch_remote(self, layout: QVBoxLayout, path: RemotePath) -> None:
        """A URL opens over the network: show the bytes read so far, offer Cancel."""
        self.cancel_open = QPushButton("Cancel", self)
        self.cancel_open.clicked.connect(path.cancel)
        layout.addWidget(self.cancel_open, 0, Qt.AlignmentFlag.AlignHCenter)
        self._timer = QTimer(self)
        self._timer.setInterval(250)

        def show() -> None:
            got = path.progress()
            if got is not None:
                self.label.setText(f"Opening {path.name}… {got[1] / 1e6:.1f} MB read in "
                                   f"{got[0]} requests")
        self._timer.timeout.connect(show)
        self._timer.start()

    def stop(self) -> None:
        """The document arrived: the bytes read are no longer shown."""
        if self._timer is not None:
            self._timer.stop()
