"""Checksum view of an archive: verdict banner, progress and Cancel, member table."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.document import MemberCheck
from inspector.models.checksum_model import FAILED, STATUS_TEXT, UNCHECKED, ChecksumModel
from inspector.models.roles import CopyRole
from inspector.models.style import kind_color, status_icon
from inspector.ui.columns import fit_columns_to_width
from inspector.ui.copy_support import install_copy_actions


def verdict_text(members: list[MemberCheck], state: str) -> tuple[str, str]:
    """``(kind, text)`` of the banner for ``state`` in verifying/done/cancelled/failed.

    kind is ``"pending"``, ``"ok"`` or ``"bad"``.
    """
    n = len(members)
    done = sum(1 for m in members if m.status not in UNCHECKED)
    failed = [m for m in members if m.status in FAILED]
    noun = "member" if n == 1 else "members"
    if state == "verifying":
        return "pending", verifying_text(done, n)
    if state == "error":
        return "bad", f"Verification could not finish ({done} of {n} {noun} checked)"
    if failed:
        shown = ", ".join(f"{m.name} ({STATUS_TEXT.get(m.status, m.status)})" for m in failed[:4])
        more = f", and {len(failed) - 4} more" if len(failed) > 4 else ""
        text = f"{len(failed)} of {n} {noun} failed: {shown}{more}"
        if state == "cancelled":
            text += f" (cancelled after {done} of {n})"
        return "bad", text
    if state == "cancelled":
        return "pending", (f"Verification cancelled: {done} of {n} {noun} checked, "
                           "none failed so far")
    if done < n:  # the check ended without reading them (the file changed on disk)
        return "bad", f"Not verified: {n - done} of {n} {noun} not checked"
    if n == 0:
        return "bad", "No members to verify"
    return "ok", f"All {n} {noun} verified"


def status_width(view: QTableView) -> int:
    """Width of the Status column (pixels): its widest status text with its icon, or its
    header, whichever is wider (a status is never shortened)."""
    metrics = view.fontMetrics()
    icon = view.iconSize().width() if view.iconSize().isValid() else 16
    text = max(metrics.horizontalAdvance(t) for t in STATUS_TEXT.values())
    header = view.horizontalHeader().sectionSizeHint(1)
    return max(text + max(icon, 16) + STATUS_ROOM, header)


#: Room beside a status's icon and text (pixels): the cell's margins and the icon's spacing.
STATUS_ROOM = 20


def verifying_text(checked: int, members: int) -> str:
    """The banner while verifying: ``"Verifying… 2 of 3 members checked"``."""
    return f"Verifying… {checked} of {members} {'member' if members == 1 else 'members'} checked"


class ChecksumPanel(QWidget):
    """Banner + progress bar + Cancel above a table of members.

    Signals:
        cancel_requested(): the Cancel button was pressed.
        member_selected(str): the current row's member name.
    """

    cancel_requested = Signal()
    member_selected = Signal(str)

    def __init__(self, members: list[MemberCheck], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ChecksumModel(members, self)
        self.state = "pending"
        self.extra_note = ""
        self._restyling = False
        self._banner_kind = ""  # the kind the banner is tinted for
        self.banner_icon = QLabel(self)
        self.banner = QLabel(self)
        self.banner.setObjectName("verdictBanner")
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(220)
        self.progress.setFormat("%v / %m")
        self.cancel = QPushButton("Cancel", self)
        self.cancel.setToolTip("Stop verifying the remaining members")
        self.cancel.clicked.connect(self.cancel_requested)
        self.banner_box = QWidget(self)
        self.banner_box.setAutoFillBackground(True)
        bl = QHBoxLayout(self.banner_box)
        bl.setContentsMargins(8, 6, 8, 6)
        bl.addWidget(self.banner_icon)
        bl.addWidget(self.banner, 1)
        bl.addWidget(self.progress)
        bl.addWidget(self.cancel)
        self.view = QTableView(self)
        self.view.setAccessibleName("Checksums")
        self.view.setModel(self.model)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.setWordWrap(False)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.setColumnWidth(0, 160)
        self.view.setColumnWidth(1, status_width(self.view))
        # every column stays in view: the status as wide as its widest word, the digests
        # give up room first (the detail pane and the tooltip have them in full)
        fit_columns_to_width(self.view, grow=2, shrink=((3, 0.2), (2, 0.2)),
                             fixed={1: status_width(self.view)})
        install_copy_actions(self.view, value_column=None, extra=[
            ("Copy recorded digest", lambda: self._digest(2)),
            ("Copy computed digest", lambda: self._digest(3)),
        ])
        self.view.selectionModel().currentChanged.connect(self._current)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.banner_box)
        lay.addWidget(self.view, 1)
        self.set_state("pending")

    def _digest(self, col: int) -> str:
        idx = self.view.currentIndex()
        return str(idx.siblingAtColumn(col).data(CopyRole) or "") if idx.isValid() else ""

    def _current(self, cur: QModelIndex, _prev: QModelIndex) -> None:
        if cur.isValid():
            self.member_selected.emit(self.model.member(cur.row()).name)

    # -- verification state ---------------------------------------------
    def start(self) -> None:
        """Verification began."""
        self._set_progress(0, self.model.rowCount())
        self.set_state("verifying")

    def on_progress(self, done: int, total: int, member: MemberCheck | None) -> None:
        """A member was checked (``progress(done, total, member_check)``)."""
        if member is not None:
            self.model.update_member(member)
        self._set_progress(done, total)
        self.set_state("verifying")

    def _set_progress(self, done: int, total: int) -> None:
        """Move the bar on the next paint: ``QProgressBar.setValue`` repaints at once,
        which paints every pending change of the window inside this slot."""
        bar = self.progress
        bar.setUpdatesEnabled(False)
        bar.setRange(0, max(total, 1))
        bar.setValue(done)
        bar.setUpdatesEnabled(True)  # (schedules the repaint)

    def finish(self, members: list[MemberCheck], state: str = "done") -> None:
        """Verification ended: ``state`` is done, cancelled or error."""
        if members:
            self.model.set_members(members)
        self.set_state(state)

    def set_state(self, state: str) -> None:
        self.state = state
        running = state in ("verifying", "pending")
        self.progress.setVisible(running)
        self.cancel.setVisible(running)
        self.cancel.setEnabled(state == "verifying")
        if state == "pending":
            kind, text = "pending", "Verification not started"
        elif state == "verifying":
            # (constant time: a check delivers its members' reports together, and the
            # verdict over every row for each of them made a large archive quadratic)
            kind, text = "pending", verifying_text(self.model.checked, self.model.rowCount())
        else:
            kind, text = verdict_text(self.model.members(), state)
        if self.extra_note and not running:
            text += f" · {self.extra_note}"
        self.banner.setText(text)
        self.banner_box.setToolTip(text)
        self._style_banner(kind)

    def _style_banner(self, kind: str) -> None:
        """Icon and tint of the banner for ``kind`` (only when it changes: setting a palette
        restyles the banner's children)."""
        if kind == self._banner_kind:
            return
        self._banner_kind = kind
        icon_status = {"ok": "ok", "bad": "mismatch"}.get(kind, "pending")
        self.banner_icon.setPixmap(status_icon(icon_status).pixmap(16, 16))
        pal = self.banner_box.palette()
        base = self.palette().color(QPalette.ColorRole.Window)
        accent = kind_color(kind)
        pal.setColor(QPalette.ColorRole.Window, _mix(base, accent, 0.16))
        self.banner_box.setPalette(pal)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """Re-derive the banner colours when the system palette switches light/dark."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) \
                and hasattr(self, "banner_box") and not self._restyling:
            self._restyling = True
            try:
                self._banner_kind = ""  # the new palette: tint again
                self.set_state(self.state)
            finally:
                self._restyling = False

    @property
    def verdict(self) -> str:
        return self.banner.text()

    def select_member(self, name: str) -> bool:
        row = self.model.row_of(name)
        if row < 0:
            return False
        idx = self.model.index(row, 0)
        self.view.setCurrentIndex(idx)
        self.view.selectionModel().select(
            idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(idx)
        return True


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor(
        round(a.red() * (1 - t) + b.red() * t),
        round(a.green() * (1 - t) + b.green() * t),
        round(a.blue() * (1 - t) + b.blue() * t),
    )
