"""Checksum view of an archive: verdict banner, progress and Cancel, member table."""

from __future__ import annotations

from collections.abc import Iterable

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
from inspector.models.checksum_model import (
    FAILED,
    STATUS_TEXT,
    UNCHECKED,
    ChecksumModel,
)
from inspector.models.roles import CopyRole
from inspector.models.style import kind_color, status_icon
from inspector.ui.columns import fit_columns_to_width, set_fixed_width
from inspector.ui.copy_support import install_copy_actions
from inspector.ui.elide import WordElideDelegate


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
        return "bad", f"Verification could not finish ({done:,} of {n:,} {noun} checked)"
    if failed:
        shown = ", ".join(f"{m.name} ({STATUS_TEXT.get(m.status, m.status)})" for m in failed[:4])
        more = f", and {len(failed) - 4:,} more" if len(failed) > 4 else ""
        text = f"{len(failed):,} of {n:,} {noun} failed: {shown}{more}"
        if state == "cancelled":
            text += f" (cancelled after {done:,} of {n:,})"
        return "bad", text
    if state == "cancelled":
        return "pending", (f"Verification cancelled: {done:,} of {n:,} {noun} checked, "
                           "none failed so far")
    if done < n:  # the check ended without reading them (the file changed on disk)
        return "bad", f"Not verified: {n - done:,} of {n:,} {noun} not checked"
    if n == 0:
        return "bad", "No members to verify"
    return "ok", f"All {n:,} {noun} verified"


def status_width(view: QTableView, statuses: Iterable[str] = ()) -> int:
    """Width of the Status column (pixels): the widest text of ``statuses`` (those shown)
    with its icon, or its header, whichever is wider (a status is never shortened)."""
    metrics = view.fontMetrics()
    icon = view.iconSize().width() if view.iconSize().isValid() else 16
    text = max((metrics.horizontalAdvance(STATUS_TEXT.get(t, t)) for t in statuses), default=0)
    header = view.horizontalHeader().sectionSizeHint(1)
    return max(text + max(icon, 16) + STATUS_ROOM, header)


def checksum_widths(natural: dict[int, int], available: int,
                    floors: dict[int, int]) -> dict[int, int]:
    """Widths of the member (0) and digest (2, 3) columns in ``available`` pixels.

    Each gets what it needs (``natural``) while they fit, the spare going to the
    recorded digest.  Else the digests give up room first, evenly, down to ``floors``
    (their headers whole: a digest is whole in the tooltip and the detail pane), then
    the member's name down to its floor (it then shows its end); below the floors the
    table scrolls sideways.
    """
    widths = dict(natural)
    over = sum(widths.values()) - available
    if over <= 0:
        if 2 in widths:
            widths[2] -= over
        return widths
    digests = [c for c in (2, 3) if c in widths]
    room = max(sum(floors.get(c, 0) for c in digests),
               sum(widths[c] for c in digests) - over)
    for k, c in enumerate(sorted(digests, key=lambda c: widths[c] - floors.get(c, 0))):
        share = room // (len(digests) - k)
        widths[c] = min(widths[c], max(floors.get(c, 0), share))
        room -= widths[c]
    over = sum(widths.values()) - available
    if over > 0 and 0 in widths:
        widths[0] = max(floors.get(0, 0), widths[0] - over)
    return widths


#: Room beside a status's icon and text (pixels): the cell's margins and the icon's spacing.
STATUS_ROOM = 20
#: Narrowest the member column is made (pixels) before the table scrolls sideways.
MEMBER_FLOOR = 80


def verifying_text(checked: int, members: int) -> str:
    """The banner while verifying: ``"Verifying… 2 of 3 members checked"``."""
    noun = "member" if members == 1 else "members"
    return f"Verifying… {checked:,} of {members:,} {noun} checked"


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
        self.progress.setFormat("0 / 0")
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
        # the status as wide as its widest word shown; the digests give up room first (the
        # detail pane and the tooltip have them in full), down to their headers; a
        # member's name keeps its end ("…signal.npy")
        self.view.setItemDelegate(WordElideDelegate(self.view, end_columns=frozenset({0})))
        fit_columns_to_width(self.view, policy=self._widths,
                             fixed={1: status_width(self.view, self.model.statuses)})
        self._shown_statuses = len(self.model.statuses)
        for signal in (self.model.dataChanged, self.model.rowsInserted, self.model.modelReset):
            signal.connect(self._fit_status)
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

    def _widths(self, natural: dict[int, int], available: int) -> dict[int, int]:
        header = self.view.horizontalHeader()
        floors = {0: MEMBER_FLOOR, 2: header.sectionSizeHint(2), 3: header.sectionSizeHint(3)}
        return checksum_widths(natural, available, floors)

    def _fit_status(self, *_args: object) -> None:
        """A status not shown before may be wider: the Status column follows (constant
        time while no new status appears: members stream in one at a time)."""
        if len(self.model.statuses) != self._shown_statuses:
            self._shown_statuses = len(self.model.statuses)
            set_fixed_width(self.view, 1, status_width(self.view, self.model.statuses))

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
        bar.setFormat(f"{done:,} / {total:,}")  # (Qt's %v and %m are not grouped)
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
