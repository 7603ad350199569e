"""The text view: strings shown whole, one per line with its index.

A scalar string is shown as it is; along an axis, the first
:data:`MAX_TEXT_VALUES` values from the chosen position are shown (the table
pages through all of them).  Text that was not valid UTF-8 is marked.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from inspector.formats.nodes.cell_text import cell_text
from inspector.formats.nodes.data import ColumnSpec, NodeData
from inspector.jobs import JobRunner
from inspector.ui.data.reading import ReadFailure, read_values
from inspector.ui.data.slicing import SliceState
from inspector.ui.message_label import MessageLabel

#: Values shown at once along an axis.
MAX_TEXT_VALUES = 1000


class TextView(QWidget):
    """Whole strings of one text column."""

    def __init__(self, node: NodeData, state: SliceState, spec: ColumnSpec, jobs: JobRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.node, self.state, self.spec, self.jobs = node, state, spec, jobs
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setObjectName("dataText")
        self.text.setAccessibleName(f"Text of {node.location}")
        self.status = MessageLabel(parent=self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.status)
        self._key = f"text:{id(self)}"
        self.first = 0
        self.busy = False
        self._request()

    def job_keys(self) -> tuple[str, ...]:
        return (self._key,)

    def _request(self) -> None:
        node, st = self.node, self.state
        if node.is_null:
            self.text.setPlainText("")
            self.status.setText("Null dataspace: no value.")
            return
        sel: list[Any] = list(st.index) if node.ndim else []
        if node.ndim:
            assert node.shape is not None
            self.first = st.index[st.rows]
            sel[st.rows] = slice(self.first, self.first + MAX_TEXT_VALUES)
        self.busy = True
        self.jobs.submit(lambda _ctx: read_values(node, tuple(sel)), on_done=self._shown,
                         on_error=self._failed, key=self._key)

    def _failed(self, message: str, _tb: str) -> None:
        self.busy = False
        self.status.setText(f"cannot read: {message}")

    def is_idle(self) -> bool:
        """The text is shown (nothing read or waiting)."""
        return not self.busy

    def _shown(self, got: Any) -> None:
        self.busy = False
        if isinstance(got, ReadFailure):
            self.status.setText(f"Cannot read the values: {got.message}")
            return
        col = got.column(self.spec.name)
        values = col.values.reshape(-1).tolist()
        bad = col.escaped.reshape(-1).tolist() if col.escaped is not None else [False] * len(
            values)
        if self.node.ndim == 0:
            self.text.setPlainText(cell_text(col.kind, values[0]))
        else:
            lines = [f"[{self.first + i}] {cell_text(col.kind, v)}" for i, v in enumerate(values)]
            self.text.setPlainText("\n".join(lines))
        n = self.node.size
        notes = []
        if self.node.ndim and len(values) < n:
            notes.append(f"values {self.first}–{self.first + len(values) - 1} of {n:,} "
                         "(the table shows them all)")
        if any(bad):
            notes.append(f"{sum(bad)} not valid UTF-8: invalid bytes shown as \\x escapes")
        self.status.setText("; ".join(notes))
