"""The data panel: any dataset or attribute of a document in a table, curve, image or text.

The document tab hands it a location (a click in the HDF5 objects tree, or
``FILE::/path`` on the command line).  The panel looks the node up on a job
through the document's :class:`~inspector.formats.capabilities.ObjectData`,
picks the views that suit its shape and column kinds
(:func:`~inspector.ui.data.choose.views_for`), and shows the preferred one
with a switch for the others, a field chooser for compound types, a part
chooser for complex numbers and the axis controls of N-D nodes.  The axes
and positions chosen are kept per shape.  Every read runs on a job; nothing
here touches the file.

Signals tell the tab what to show in the detail pane (the node's type
description, a selected value) and which findings to add (a read failure).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.capabilities import ObjectData
from inspector.formats.nodes.data import NUMERIC_KINDS, ColumnKind, ColumnSpec, NodeData
from inspector.jobs import JobRunner
from inspector.ui.data.choose import CURVE, IMAGE, TABLE, TEXT, TITLES, views_for
from inspector.ui.data.curve import COMPONENTS, CurveView
from inspector.ui.data.image import ImageView
from inspector.ui.data.reading import ReadFailure, guarded
from inspector.ui.data.slicing import SliceControls, SliceState
from inspector.ui.data.table import TableView
from inspector.ui.data.text import TextView
from inspector.ui.message_label import wrap_freely


def shape_text(node: NodeData) -> str:
    """``"(100, 3) 32-bit float"``-style summary of a node for the panel's title."""
    if node.shape is None:
        shape = "null dataspace"
    elif node.shape == ():
        shape = "scalar"
    else:
        shape = "(" + ", ".join(f"{n:,}" for n in node.shape) + ")"
    return f"{shape} · {node.type.text}"


class DataPanel(QWidget):
    """Values of one dataset or attribute at a time.

    Signals:
        node_shown(object): the :class:`NodeData` now shown.
        node_missing(str): a location names no dataset or attribute.
        finding(object): a :class:`~inspector.formats.findings.Finding` to add to the
            document (a node that cannot be opened or read).
        value_selected(str, str): ``(title, full text)`` of a selected table cell.

    Attributes:
        node: the node shown (None before the first one arrives).
        view_name: ``"table"``, ``"curve"``, ``"image"`` or ``"text"``.
        view: the view widget.
        states: the axis choice of each shape seen.
    """

    node_shown = Signal(object)
    node_missing = Signal(str)
    finding = Signal(object)
    value_selected = Signal(str, str)

    def __init__(self, objects: ObjectData, jobs: JobRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.objects, self.jobs = objects, jobs
        self.node: NodeData | None = None
        self.location = ""
        self.view_name = ""
        self.view: QWidget | None = None
        self.states: dict[tuple[int, ...], SliceState] = {}
        self._chosen_view = ""
        self._looking = False
        self._key = f"data-node:{id(self)}"
        self.title = QLabel("Select a dataset or attribute to see its values.")
        wrap_freely(self.title)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._build_controls()
        self.body = QStackedWidget(self)
        self.message = QLabel("")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        wrap_freely(self.message)
        self.body.addWidget(self.message)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.title)
        lay.addLayout(self.bar)
        lay.addWidget(self.slicing)
        lay.addWidget(self.body, 1)
        self.destroyed.connect(lambda *_a: self.jobs.cancel(self._key))

    def _build_controls(self) -> None:
        self.bar = QHBoxLayout()
        self.switch = QButtonGroup(self)
        self.switch.setExclusive(True)
        self.buttons: dict[str, QToolButton] = {}
        for name in (TABLE, CURVE, IMAGE, TEXT):
            b = QToolButton()
            b.setText(TITLES[name])
            b.setCheckable(True)
            b.setAccessibleName(f"Show as {TITLES[name].lower()}")
            b.clicked.connect(lambda _c=False, n=name: self.choose_view(n))
            self.switch.addButton(b)
            self.buttons[name] = b
            self.bar.addWidget(b)
        self.field_label = QLabel("Field:")
        self.field = QComboBox()
        self.field.setAccessibleName("Field shown")
        self.field.activated.connect(lambda _i: self._rebuild())
        self.part_label = QLabel("Part:")
        self.part = QComboBox()
        self.part.addItems(COMPONENTS)
        self.part.setAccessibleName("Part of the complex numbers shown")
        self.part.activated.connect(lambda _i: self._rebuild())
        for w in (self.field_label, self.field, self.part_label, self.part):
            self.bar.addWidget(w)
        self.bar.addStretch(1)
        self.slicing = SliceControls(self)
        self.slicing.changed.connect(self._rebuild)
        self._set_controls_visible(False)

    def _set_controls_visible(self, on: bool) -> None:
        for b in self.buttons.values():
            b.setVisible(on and b.isEnabled())
        if not on:
            for w in (self.field_label, self.field, self.part_label, self.part, self.slicing):
                w.setVisible(False)

    # -- which node ---------------------------------------------------------
    def show_location(self, location: str) -> None:
        """Look ``location`` up on a job and show it (``node_missing`` if there is none)."""
        self.location = location
        self._say(f"Reading {location}…")
        objects = self.objects
        self._looking = True
        self.jobs.submit(lambda _ctx: guarded(lambda: objects.node(location)),
                         on_done=lambda got: self._arrived(location, got),
                         on_error=lambda m, _tb: self._arrived(location, ReadFailure(m)),
                         key=self._key)

    def is_idle(self) -> bool:
        """The node asked for is shown and its view has drawn what it shows."""
        if self._looking:
            return False
        is_idle = getattr(self.view, "is_idle", None)
        return is_idle is None or bool(is_idle())

    def _arrived(self, location: str, got: Any) -> None:
        if location != self.location:
            return
        self._looking = False
        if isinstance(got, ReadFailure):
            if got.finding is not None:
                self.finding.emit(got.finding)
            self._say(f"{location} cannot be opened: {got.message}")
        elif got is None:
            self._say(f"{location} holds no values (it is a group, or names nothing).")
            self.node_missing.emit(location)
        else:
            self.set_node(got)

    def set_node(self, node: NodeData) -> None:
        """Show ``node`` in its preferred view (or the view chosen last, if it suits)."""
        self.node = node
        self.location = node.location
        self.title.setText(f"<b>{_esc(node.location)}</b> &nbsp;{_esc(shape_text(node))}")
        views = views_for(node)
        for name, b in self.buttons.items():
            b.setEnabled(name in views)
        self._set_controls_visible(True)
        self.view_name = self._chosen_view if self._chosen_view in views else views[0]
        self.buttons[self.view_name].setChecked(True)
        if node.shape is not None and node.shape not in self.states:
            self.states[node.shape] = SliceState.default(node.shape)
        self.node_shown.emit(node)
        self._fill_fields()
        self._rebuild()

    def choose_view(self, name: str) -> None:
        """Switch to view ``name`` (kept for the next node that suits it)."""
        if self.node is None or not self.buttons[name].isEnabled():
            return
        self._chosen_view = self.view_name = name
        self.buttons[name].setChecked(True)
        self._fill_fields()
        self._rebuild()

    def _fields(self) -> tuple[ColumnSpec, ...]:
        assert self.node is not None
        if self.view_name in (CURVE, IMAGE):
            return self.node.numeric_columns
        if self.view_name == TEXT:
            return tuple(c for c in self.node.columns if c.kind == ColumnKind.TEXT)
        return ()

    def _fill_fields(self) -> None:
        keep = self.field.currentText()
        fields = self._fields()
        self.field.clear()
        self.field.addItems([c.label for c in fields])
        if keep in [c.label for c in fields]:
            self.field.setCurrentText(keep)
        many = len(fields) > 1
        self.field_label.setVisible(many)
        self.field.setVisible(many)

    def current_field(self) -> ColumnSpec | None:
        """The column a curve, image or text view shows."""
        fields = self._fields()
        if not fields:
            return None
        return fields[max(0, self.field.currentIndex())]

    # -- the view -------------------------------------------------------------
    def _drop_view(self) -> None:
        if self.view is not None:
            for key in getattr(self.view, "job_keys", lambda: ())():
                self.jobs.cancel(key)
            shutdown = getattr(self.view, "shutdown", None)
            if shutdown is not None:
                shutdown()
            self.body.removeWidget(self.view)
            self.view.deleteLater()
            self.view = None

    def _say(self, text: str) -> None:
        self._drop_view()
        self.message.setText(text)
        self.body.setCurrentWidget(self.message)

    def _rebuild(self) -> None:
        node = self.node
        if node is None:
            return
        spec = self.current_field()
        complex_part = spec is not None and spec.kind == ColumnKind.COMPLEX and \
            self.view_name in (CURVE, IMAGE)
        self.part_label.setVisible(complex_part)
        self.part.setVisible(complex_part)
        if node.is_null:
            self.slicing.setVisible(False)
            self._say("Null dataspace: this node holds no value (its type is in the detail "
                      "pane).")
            return
        state = self.states.get(node.shape or (), SliceState.default(node.shape or ()))
        one_axis = self.view_name == TABLE and len(node.columns) > 1
        self.slicing.set_state(state, self.view_name, one_axis)
        self._drop_view()
        self.view = self._make_view(node, state, spec)
        self.body.addWidget(self.view)
        self.body.setCurrentWidget(self.view)

    def _make_view(self, node: NodeData, state: SliceState, spec: ColumnSpec | None) -> QWidget:
        part = self.part.currentText()
        if self.view_name == CURVE and spec is not None and spec.kind in NUMERIC_KINDS:
            return CurveView(node, state, spec, part, self.jobs)
        if self.view_name == IMAGE and spec is not None and state.cols is not None:
            return ImageView(node, state, spec, part, self.jobs)
        if self.view_name == TEXT and spec is not None:
            return TextView(node, state, spec, self.jobs)
        table = TableView(node, state, self.jobs)
        table.value_selected.connect(self.value_selected)
        table.failed.connect(self._read_failed)
        return table

    def _read_failed(self, failure: ReadFailure) -> None:
        if failure.finding is not None:
            self.finding.emit(failure.finding)

    def shutdown(self) -> None:
        """Cancel every read on its way (the tab is closing)."""
        self.jobs.cancel(self._key)
        self._drop_view()


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
