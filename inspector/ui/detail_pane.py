"""The detail pane: the full, copyable value of the selected node, cell or member."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from inspector.formats.document import Node
from inspector.models.node_tree_model import node_full_text, node_type_text
from inspector.models.value_text import is_missing, value_text, value_type_name


class DetailPane(QWidget):
    """A title line and a read-only, selectable text box."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.title = QLabel("Select a node, cell or member to see its full value.")
        self.title.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setObjectName("detailText")
        self.text.setAccessibleName("Selected value")
        self.text.setMinimumHeight(2 * self.fontMetrics().height() + 12)  # the pane folds small
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.title)
        lay.addWidget(self.text, 1)

    def show_node(self, n: Node) -> None:
        """Name, type, location and full value of a tree node."""
        self.title.setText(f"<b>{_esc(n.name)}</b> &nbsp;<i>{_esc(node_type_text(n))}</i>")
        lines = []
        if n.location:
            lines.append(f"location: {n.location}")
        if n.detail:
            lines.append(f"details: {n.detail}")
        body = node_full_text(n)
        if isinstance(n.value, str):
            body = value_text(n.value, limit=10_000_000)
        lines.append("")
        lines.append(body)
        self.text.setPlainText("\n".join(lines).lstrip("\n"))

    def show_value(self, title: str, value: Any, extra: str = "") -> None:
        """A table cell or other value: type, then full text (strings quoted)."""
        kind = "missing" if is_missing(value) else value_type_name(value)
        self.title.setText(f"<b>{_esc(title)}</b> &nbsp;<i>{_esc(kind)}</i>")
        text = value_text(value, limit=10_000_000)
        self.text.setPlainText((extra + "\n\n" if extra else "") + text)

    def show_text(self, title: str, text: str) -> None:
        self.title.setText(f"<b>{_esc(title)}</b>")
        self.text.setPlainText(text)


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
