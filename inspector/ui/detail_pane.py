"""The detail pane: the full, copyable value of the selected node, cell or member."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from inspector.formats.document import Node
from inspector.formats.nodes.node import LinkTarget
from inspector.models.node_tree_model import node_full_text, node_type_text
from inspector.models.value_text import is_missing, value_text, value_type_name


class DetailPane(QWidget):
    """A title line and a read-only, selectable text box.

    For a link node, an "Open target" button beside the title emits
    ``open_target`` with its :class:`~inspector.formats.nodes.node.LinkTarget`.
    """

    open_target = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("Select a node, cell or member to see its full value.")
        self.title.setWordWrap(True)
        self.target: LinkTarget | None = None
        self._target_location = ""
        self.open_button = QPushButton("Open target")
        self.open_button.setAccessibleName("Open the target of this link")
        self.open_button.setVisible(False)
        self.open_button.clicked.connect(lambda: self.open_target.emit(self.target))
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setObjectName("detailText")
        self.text.setAccessibleName("Selected value")
        self.text.setMinimumHeight(2 * self.fontMetrics().height() + 12)  # the pane folds small
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title, 1)
        top.addWidget(self.open_button)
        lay.addLayout(top)
        lay.addWidget(self.text, 1)

    def _set_target(self, n: Node | None) -> None:
        """Offer "Open target" for a link that leads somewhere."""
        self.target = n.target if n is not None else None
        self._target_location = n.location if n is not None else ""
        target = self.target
        usable = target is not None and not target.dangling
        self.open_button.setVisible(usable)
        if target is not None and usable:
            where = "" if target.in_this_file else f" in {target.file}"
            self.open_button.setToolTip(f"Open {target.path}{where}")

    def show_node(self, n: Node) -> None:
        """Name, type, location and full value of a tree node."""
        self.title.setText(f"<b>{_esc(n.name)}</b> &nbsp;<i>{_esc(node_type_text(n))}</i>")
        self._set_target(n)
        lines = []
        if n.location:
            lines.append(f"location: {n.location}")
        if n.detail:
            lines.append(f"details: {n.detail}")
        body = node_full_text(n)
        if isinstance(n.value, str):
            body = value_text(n.value, limit=10_000_000)
        if n.target is not None:
            lines.append(f"target: {n.target.address()}"
                         + (" (dangling: nothing there)" if n.target.dangling else ""))
        lines.append("")
        lines.append(body)
        self.text.setPlainText("\n".join(lines).lstrip("\n"))

    def show_value(self, title: str, value: Any, extra: str = "") -> None:
        """A table cell or other value: type, then full text (strings quoted)."""
        self._set_target(None)
        kind = "missing" if is_missing(value) else value_type_name(value)
        self.title.setText(f"<b>{_esc(title)}</b> &nbsp;<i>{_esc(kind)}</i>")
        text = value_text(value, limit=10_000_000)
        self.text.setPlainText((extra + "\n\n" if extra else "") + text)

    def show_text(self, title: str, text: str) -> None:
        """A title and a text (a data node's type, a member's status).

        The "Open target" button stays for the link node shown last when
        ``title`` is its location (the data views describing what it leads to).
        """
        if self.target is None or title != self._target_location:
            self._set_target(None)
        self.title.setText(f"<b>{_esc(title)}</b>")
        self.text.setPlainText(text)


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
