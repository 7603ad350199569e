"""Table model of an archive's checksum table (one row per member).

Rows are the immutable :class:`~inspector.formats.capabilities.MemberCheck`
rows of the document's checksum table; :meth:`ChecksumModel.update_member`
applies a row streamed by the verification job (``Progress.member``), so the
table fills in live.  Status is given as
text, icon and colour (never colour alone).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from inspector.formats.document import MemberCheck
from inspector.models.multi_data import OneEntryPerCell
from inspector.models.roles import CopyRole, LocationRole, NameRole, StatusRole
from inspector.models.style import is_dark, monospace_font, muted_color, status_color, status_icon

_D = Qt.ItemDataRole

COLUMNS = ("Member", "Status", "Recorded", "Computed")

#: What each column holds (the headers' tooltips: the digest columns' titles are short,
#: so that they stay whole in a narrow table).
COLUMN_TIPS = (
    "Member of the archive (its path inside the ZIP)",
    "Result of comparing the member's bytes with its listed digest",
    "Recorded digest: the SHA-256 listed for the member in checksums.sha256",
    "Computed digest: the SHA-256 of the member's bytes as read",
)

#: Human text of each status.
STATUS_TEXT = {
    "pending": "pending…",
    "ok": "ok",
    "mismatch": "MISMATCH",
    "missing-member": "missing member",
    "unlisted": "unlisted",
    "malformed-entry": "malformed entry",
    "duplicate-entry": "duplicate entry",
    "cancelled": "not checked (cancelled)",
    "refused": "refused (unsafe)",
}

#: The recorded digest of a member checksums.sha256 does not list (its tooltip says so:
#: the Status column already tells an unlisted member, and a dash keeps the column narrow).
NOT_LISTED = "—"
#: Tooltip of :data:`NOT_LISTED`.
NOT_LISTED_TIP = "not listed in checksums.sha256"

#: Statuses of a member not checked (yet): the rest count as checked in the verdict.
UNCHECKED = frozenset({"pending", "cancelled"})

#: Statuses that count as a failed member in the verdict.
FAILED = frozenset(
    {"mismatch", "missing-member", "unlisted", "malformed-entry", "duplicate-entry", "refused"}
)


class ChecksumModel(OneEntryPerCell, QAbstractTableModel):
    """Columns: member name, status, recorded digest, computed digest (headed "Recorded"
    and "Computed"; :data:`COLUMN_TIPS` says what each holds)."""

    def __init__(self, members: Sequence[MemberCheck] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[MemberCheck] = []
        self._by_name: dict[str, list[int]] = {}
        self.checked = 0  # rows whose status is not in UNCHECKED
        #: Every status shown since :meth:`set_members` (a status column fits the widest).
        self.statuses: set[str] = set()
        self._icons: dict[tuple[str, bool], object] = {}
        self.set_members(members or [])

    def set_members(self, members: Sequence[MemberCheck]) -> None:
        """Replace every row with ``members`` (immutable rows are kept as they are)."""
        self.beginResetModel()
        self._rows = list(members)
        self._by_name = {}
        for i, m in enumerate(self._rows):
            self._by_name.setdefault(m.name, []).append(i)
        self.checked = sum(1 for m in self._rows if m.status not in UNCHECKED)
        self.statuses = {m.status for m in self._rows}
        self.endResetModel()

    def update_member(self, m: MemberCheck) -> int:
        """Apply a streamed row (``Progress.member``) and return its row number.

        The first still-pending row of that name is replaced (a name listed
        twice has two rows), else the first row of that name; an unknown
        name is appended.  Constant time per row, so streaming 100 000
        members stays linear.
        """
        rows = self._by_name.get(m.name)
        self.checked += m.status not in UNCHECKED
        self.statuses.add(m.status)
        if not rows:
            row = len(self._rows)
            self.beginInsertRows(QModelIndex(), row, row)
            self._rows.append(m)
            self._by_name[m.name] = [row]
            self.endInsertRows()
            return row
        row = next((i for i in rows if self._rows[i].status == "pending"), rows[0])
        self.checked -= self._rows[row].status not in UNCHECKED
        self._rows[row] = m
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
        return row

    def member(self, row: int) -> MemberCheck:
        return self._rows[row]

    def members(self) -> list[MemberCheck]:
        return list(self._rows)

    def row_of(self, name: str) -> int:
        """Row of the member called ``name`` (-1 if none)."""
        rows = self._by_name.get(name)
        return rows[0] if rows else -1

    def counts(self) -> dict[str, int]:
        """Number of rows per status."""
        out: dict[str, int] = {}
        for r in self._rows:
            out[r.status] = out.get(r.status, 0) + 1
        return out

    # -- Qt -----------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = _D.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _D.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == _D.ToolTipRole:
            return COLUMN_TIPS[section]
        if orientation == Qt.Orientation.Vertical and role == _D.DisplayRole:
            return str(section + 1)
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _D.DisplayRole) -> Any:
        if not index.isValid():
            return None
        m = self._rows[index.row()]
        col = index.column()
        if role == _D.DisplayRole:
            if col == 0:
                return m.name
            if col == 1:
                return STATUS_TEXT.get(m.status, m.status)
            digest = m.recorded if col == 2 else m.computed
            if digest is None:
                if col == 2:
                    return NOT_LISTED
                return "—" if m.status not in ("pending",) else ""
            return digest
        if role == _D.ToolTipRole:
            if col == 1:
                return f"{m.name}: {STATUS_TEXT.get(m.status, m.status)}"
            if col == 2 and m.recorded is None:
                return NOT_LISTED_TIP
            return self.data(index, _D.DisplayRole)
        if role == CopyRole:
            return (m.name, m.status, m.recorded or "", m.computed or "")[col]
        if role == StatusRole:
            return m.status
        if role in (LocationRole, NameRole):
            return m.name
        if role == _D.DecorationRole and col == 1:
            key = (m.status, is_dark())
            icon = self._icons.get(key)
            if icon is None:
                icon = self._icons[key] = status_icon(m.status)
            return icon
        if role == _D.ForegroundRole:
            if col == 1:
                return status_color(m.status)
            if col == 3 and m.status == "mismatch":
                return status_color(m.status)
            if (col == 2 and m.recorded is None) or (col == 3 and m.computed is None):
                return muted_color()
            return None
        if role == _D.FontRole and col in (2, 3):
            return monospace_font()
        return None
