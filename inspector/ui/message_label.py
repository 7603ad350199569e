"""A one-line message whose length never changes the layout around it.

A plain ``QLabel`` asks for the width of its whole text: a long message (the
reason a read failed, with the file's path) widened the plot's column and
squeezed every other pane of the tab.  :class:`MessageLabel` asks for no width
and one line of height; a text longer than its width is shown up to an
ellipsis at its end, and whole in the tooltip (the findings dock has it whole
too when it is a finding).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

#: Width a message label asks for (pixels): a layout gives it the room there is.
ASKED_WIDTH = 40


class MessageLabel(QLabel):
    """A selectable one-line message; ``text()`` is the whole message, what is shown ends
    with "…" when it does not fit (the whole text is then the tooltip).

    Args:
        text: the first message.
        parent: Qt parent widget.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        """Show ``text`` (up to an ellipsis when it is wider than the label)."""
        self._full = str(text)
        self._fit()

    def text(self) -> str:
        """The whole message (not the part shown)."""
        return self._full

    def shown_text(self) -> str:
        """What the label shows (the message, or its start and "…")."""
        return super().text()

    def _fit(self) -> None:
        width = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight,
                                              max(width, 1))
        super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit()

    def _line_height(self) -> int:
        m = self.contentsMargins()
        return self.fontMetrics().height() + m.top() + m.bottom() + 2 * self.margin()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """One line (empty or not: a message never changes the height) of no set width."""
        return QSize(ASKED_WIDTH, self._line_height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(0, self._line_height())


def wrap_freely(label: QLabel) -> QLabel:
    """Make ``label`` wrap its text and ask for no width of its own: a long word (a path)
    is cut at the label's edge rather than widening the layout.  Returns ``label``."""
    label.setWordWrap(True)
    policy = label.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
    label.setSizePolicy(policy)
    return label
