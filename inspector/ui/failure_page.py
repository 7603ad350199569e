"""The page a tab shows for a file it could not open: what failed, where, what to try."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from inspector.models.open_failure import OpenFailure
from inspector.models.style import severity_icon


def _section(title: str, lines: tuple[str, ...]) -> str:
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    return f"<p><b>{escape(title)}</b></p><ul style='margin-top:0'>{items}</ul>"


class FailurePage(QScrollArea):
    """A readable account of an :class:`OpenFailure`, with the reader's traceback if any.

    Attributes:
        text: the page's text as plain text (what "Copy details" copies first).
    """

    def __init__(self, failure: OpenFailure, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.failure = failure
        self.setWidgetResizable(True)
        self.setObjectName("failurePage")
        body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(24, 20, 24, 20)
        top = QHBoxLayout()
        icon = QLabel()
        icon.setPixmap(severity_icon("error").pixmap(32, 32))
        title = QLabel(f"<h2 style='margin:0'>{escape(failure.title)}</h2>")
        top.addWidget(icon)
        top.addWidget(title, 1)
        lay.addLayout(top)
        self.summary = QLabel(
            _section("What failed", failure.what or ("the reader reported an error",))
            + _section("Where", failure.where)
            + _section("What to try", failure.tries))
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAccessibleName("Why the file could not be opened")
        lay.addWidget(self.summary)
        self.details: QPlainTextEdit | None = None
        if failure.details:
            self.details = QPlainTextEdit(failure.details)
            self.details.setReadOnly(True)
            self.details.setAccessibleName("Reader traceback")
            self.details.setMinimumHeight(160)
            lay.addWidget(QLabel("<b>Details for the bug report</b>"))
            lay.addWidget(self.details, 1)
        copy = QPushButton("Copy details")
        copy.setToolTip("Copy this page (and the traceback, if any) to the clipboard")
        copy.clicked.connect(self.copy_details)
        lay.addWidget(copy, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addStretch(1)
        self.setWidget(body)

    @property
    def text(self) -> str:
        """The page as plain text."""
        f = self.failure
        parts = [f.title, "", "What failed:", *[f"  {w}" for w in f.what], "", "Where:",
                 *[f"  {w}" for w in f.where], "", "What to try:", *[f"  {t}" for t in f.tries]]
        if f.details:
            parts += ["", f.details]
        return "\n".join(parts)

    def copy_details(self) -> None:
        """Put :attr:`text` on the clipboard."""
        QGuiApplication.clipboard().setText(self.text)
