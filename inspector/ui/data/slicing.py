"""Which part of an N-D node a data view shows: :class:`SliceState` and its controls.

A view shows one or two axes of a node (a table's rows and columns, an
image's rows and columns, a curve's x axis and the axis whose positions are
drawn as lines); every other axis is fixed at a position chosen with a spin
box.  The state is kept per shape by :class:`~inspector.ui.data.panel.DataPanel`,
so moving to another dataset of the same shape keeps the choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSpinBox, QWidget

#: Roles of the two shown axes, per view kind.
ROLES = {"table": ("Rows", "Columns"), "image": ("Rows (y)", "Columns (x)"),
         "curve": ("x axis", "Lines"), "text": ("Rows", "")}


@dataclass
class SliceState:
    """The shown axes and the position along every other axis.

    Attributes:
        shape: the node's shape.
        rows, cols: the axes of a table or image (``cols`` None for one axis).
        x, lines: the curve's x axis and the axis drawn as several lines (or None).
        index: the position along each axis (used for the axes not shown).
    """

    shape: tuple[int, ...]
    rows: int = 0
    cols: int | None = None
    x: int = 0
    lines: int | None = None
    index: list[int] = field(default_factory=list)

    @classmethod
    def default(cls, shape: tuple[int, ...]) -> SliceState:
        """The two longest axes as rows and columns (the later of equal ones, in axis
        order: a ``(height, width, 3)`` colour image shows height by width); the longest
        axis as x, the last other one as lines."""
        n = len(shape)
        if n == 0:
            return cls(shape, 0, None, 0, None, [])
        if n >= 2:
            rows, cols = sorted(sorted(range(n), key=lambda a: (shape[a], a))[-2:])
        else:
            rows, cols = 0, None
        x = max(range(n), key=lambda a: (shape[a], -a))
        others = [a for a in range(n) if a != x]
        return cls(shape, rows, cols, x, others[-1] if others else None, [0] * n)

    def shown(self, view: str) -> tuple[int | None, int | None]:
        """The two axes ``view`` shows (``(x, lines)`` for a curve)."""
        return (self.x, self.lines) if view == "curve" else (self.rows, self.cols)

    def fixed(self, view: str, one_axis: bool = False) -> dict[int, int]:
        """The position of every axis ``view`` does not show."""
        a, b = self.shown(view)
        if one_axis:
            b = None
        return {i: self.index[i] for i in range(len(self.shape)) if i not in (a, b)}


class SliceControls(QWidget):
    """Two axis choosers and a spin box per other axis.

    Signals:
        changed(): the user chose other axes or positions.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state: SliceState | None = None
        self.view = "table"
        self.one_axis = False
        self._lay = QHBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        self.first_label, self.second_label = QLabel(), QLabel()
        self.first, self.second = QComboBox(), QComboBox()
        self.first.setAccessibleName("First shown axis")
        self.second.setAccessibleName("Second shown axis")
        for w in (self.first_label, self.first, self.second_label, self.second):
            self._lay.addWidget(w)
        self.first.activated.connect(lambda _i: self._axes_chosen(0))
        self.second.activated.connect(lambda _i: self._axes_chosen(1))
        self.spins: dict[int, QSpinBox] = {}
        self._spin_row = QHBoxLayout()
        self._lay.addLayout(self._spin_row)
        self._lay.addStretch(1)

    def set_state(self, state: SliceState, view: str, one_axis: bool = False) -> None:
        """Show ``state`` for ``view`` (``one_axis``: a table of several columns)."""
        self.state, self.view, self.one_axis = state, view, one_axis
        n = len(state.shape)
        first_role, second_role = ROLES.get(view, ROLES["table"])
        self.first_label.setText(f"{first_role}:")
        self.second_label.setText(f"{second_role}:")
        axes = [f"axis {i} ({state.shape[i]:,})" for i in range(n)]
        a, b = state.shown(view)
        self.first.clear()
        self.first.addItems(axes)
        self.first.setCurrentIndex(a or 0)
        self.second.clear()
        if view == "curve":
            self.second.addItem("none")
        self.second.addItems(axes)
        show_second = not one_axis and view != "text"
        self.second_label.setVisible(show_second)
        self.second.setVisible(show_second)
        if b is not None:
            self.second.setCurrentIndex(b + (1 if view == "curve" else 0))
        elif view == "curve":
            self.second.setCurrentIndex(0)
        self._rebuild_spins()

    def _axes_chosen(self, which: int) -> None:
        st = self.state
        if st is None:
            return
        a = self.first.currentIndex()
        b = self.second.currentIndex() - (1 if self.view == "curve" else 0)
        b_axis: int | None = b if b >= 0 else None
        old_a, old_b = st.shown(self.view)
        if b_axis == a:  # the same axis twice: swap with the other role
            if which == 0:
                b_axis = old_a if old_a != a else None
            else:
                a = old_b if old_b is not None and old_b != b_axis else (a + 1) % len(st.shape)
        if self.view == "curve":
            st.x, st.lines = a, b_axis
        else:
            st.rows = a
            st.cols = b_axis if b_axis is not None else (a + 1) % len(st.shape)
        self.set_state(st, self.view, self.one_axis)
        self.changed.emit()

    def _rebuild_spins(self) -> None:
        while self._spin_row.count():
            item = self._spin_row.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.spins = {}
        st = self.state
        if st is None:
            return
        for axis, pos in st.fixed(self.view, self.one_axis or self.view == "text").items():
            spin = QSpinBox()
            spin.setRange(0, max(0, min(st.shape[axis] - 1, 2**31 - 1)))
            spin.setValue(pos)
            spin.setPrefix(f"axis {axis}: ")
            spin.setSuffix(f" / {st.shape[axis]:,}")
            spin.setKeyboardTracking(False)
            spin.setAccessibleName(f"Position along axis {axis}")
            spin.valueChanged.connect(lambda v, a=axis: self._moved(a, v))
            self._spin_row.addWidget(spin)
            self.spins[axis] = spin
        self.setVisible(len(st.shape) >= 2 or bool(self.spins))

    def _moved(self, axis: int, value: int) -> None:
        if self.state is not None:
            self.state.index[axis] = int(value)
            self.changed.emit()
