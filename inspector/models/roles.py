"""Custom item-data roles shared by every model of :mod:`inspector.models`."""

from __future__ import annotations

from PySide6.QtCore import Qt

_U = Qt.ItemDataRole.UserRole

#: The :class:`inspector.formats.document.Node` behind a tree row.
NodeRole = _U + 1
#: The file location a row stands for (HDF5 path, archive member, ``file:line``).
LocationRole = _U + 2
#: Full, untruncated text of a cell, as copied to the clipboard.
CopyRole = _U + 3
#: The raw Python value of a cell (typed: int 1 and str "1" differ).
ValueRole = _U + 4
#: True when the cell holds a missing value (None, NA, NaT, NaN).
MissingRole = _U + 5
#: A checksum row's status string (one of ``MEMBER_STATUSES``).
StatusRole = _U + 6
#: Name of the row (first column's plain text), for "Copy name".
NameRole = _U + 7
#: Sort key of a cell.
SortRole = _U + 8
#: Lowercased text a tree filter searches in a row (first column): name, location and
#: value text.
FilterRole = _U + 9
