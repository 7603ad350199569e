"""The bar a tab shows when its file changed on disk after it was opened.

A document reads its file lazily; once the file is replaced, rewritten or
removed, every further read is refused (the finding ``file.changed``,
:mod:`inspector.formats.sources.file_identity`) so that two snapshots are never
mixed.  This bar, above the tab's views, says so and offers **Reload**: the
window then reopens the file in the same tab position (as File > Reload,
F5).  Nothing here names a format.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from inspector.models.style import severity_icon


class ReloadBar(QWidget):
    """A one-line bar: "⚠ The file changed on disk … [Reload]".

    Args:
        message: the ``file.changed`` finding's message (shown as the tooltip).
        parent: Qt parent widget.

    Attributes:
        label: the text of the bar.
        button: the Reload button.

    Signals:
        reload_requested(): Reload was pressed.
    """

    reload_requested = Signal()

    def __init__(self, message: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reloadBar")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        icon = QLabel()
        icon.setPixmap(severity_icon("error").pixmap(16, 16))
        self.label = QLabel("The file changed on disk after it was opened: nothing more is "
                            "read from it here. Reload to see its current contents.")
        self.label.setWordWrap(True)
        self.label.setToolTip(message)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = QPushButton("&Reload")
        self.button.setToolTip("Open the file again in this tab (F5)")
        self.button.clicked.connect(self.reload_requested)
        lay.addWidget(icon)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.button)
