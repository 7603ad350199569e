"""The AUC plot's legend: one checkable row per scan, built in constant time.

A ``QListWidget`` of 500 scans cost 30-110 ms of GUI-thread time to build
(eight Python calls an item: the item, its flags, check state, swatch pixmap,
icon...), and a ``QListView`` lays out every row when shown (1.7 s of GUI-thread
time for a million, even with uniform sizes).  :class:`ScanList` is a one-column
``QTableView`` (rows of one fixed height: nothing laid out per row) over
:class:`ScanListModel`,
which answers from the view's arrays (IDs, colours, the shown flags) when Qt
asks for a row, and paints a swatch the first time a colour is shown.  It
keeps the few ``QListWidget`` calls the views and tests use (``count``,
``item(i)`` with ``text``/``icon``/``checkState``/``setCheckState``/
``isSelected``/``setSelected``, ``row``, ``selectedItems``, ``setCurrentRow``,
``scrollToItem``) and its two signals, ``itemChanged`` (a check box) and
``itemSelectionChanged``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle, QTableView, QWidget

from inspector.models.multi_data import OneEntryPerCell
from inspector.models.value_text import cut_text

#: Side of a colour swatch, in pixels.
SWATCH = 12
#: Characters of a scan ID a row shows, and its tooltip (a longer ID ends in "…";
#: laying out a 100 000-character ID took 110 ms of every paint of the list).
SHOWN_CHARS, TIP_CHARS = 200, 2000
#: IDs measured at each end of the list for its width.
WIDTH_SAMPLE = 100

_Index = QModelIndex | QPersistentModelIndex


class ScanListModel(OneEntryPerCell, QAbstractListModel):
    """Rows of scan IDs with a check box (shown or hidden) and a colour swatch.

    Args:
        ids: one label per scan.
        colors: one ``QColor`` per scan.
        parent: Qt parent.

    Signals:
        check_changed(int, bool): row ``i`` was checked (True) or unchecked.
    """

    check_changed = Signal(int, bool)

    def __init__(self, ids: Sequence[str], colors: Sequence[Any], parent: Any = None) -> None:
        super().__init__(parent)
        self.ids = ids
        self.shown = [True] * len(self.ids)
        self._colors: Sequence[Any] = colors
        self._icons: dict[int, QIcon] = {}

    def set_colors(self, colors: Sequence[Any]) -> None:
        """New swatch colours (a theme change)."""
        self._colors, self._icons = colors, {}
        if self.ids:
            self.dataChanged.emit(self.index(0), self.index(len(self.ids) - 1),
                                  [Qt.ItemDataRole.DecorationRole])

    def icon(self, row: int) -> QIcon:
        """The swatch of ``row`` (painted once)."""
        icon = self._icons.get(row)
        if icon is None:
            swatch = QPixmap(SWATCH, SWATCH)
            swatch.fill(QColor(self._colors[row]))
            icon = self._icons[row] = QIcon(swatch)
        return icon

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt API
        return 0 if parent.isValid() else len(self.ids)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = index.row()
        if role == Qt.ItemDataRole.DisplayRole:
            return cut_text(self.ids[row], SHOWN_CHARS)
        if role == Qt.ItemDataRole.ToolTipRole:
            return cut_text(self.ids[row], TIP_CHARS)
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if self.shown[row] else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.DecorationRole:
            return self.icon(row)
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsUserCheckable)

    def setData(self, index: _Index, value: Any,  # noqa: N802 - Qt API
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.CheckStateRole:
            return False
        state = value if isinstance(value, Qt.CheckState) else Qt.CheckState(value)
        shown = state == Qt.CheckState.Checked
        row = index.row()
        if self.shown[row] != shown:
            self.shown[row] = shown
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
            self.check_changed.emit(row, shown)
        return True


class ScanItem:
    """What ``ScanList.item(row)`` returns: the ``QListWidgetItem`` calls on one row."""

    def __init__(self, view: ScanList, row: int) -> None:
        self._view, self.row = view, row

    def text(self) -> str:
        return self._view.model_.ids[self.row]

    def icon(self) -> QIcon:
        return self._view.model_.icon(self.row)

    def checkState(self) -> Qt.CheckState:  # noqa: N802 - QListWidgetItem API
        return Qt.CheckState.Checked if self._view.model_.shown[self.row] \
            else Qt.CheckState.Unchecked

    def setCheckState(self, state: Qt.CheckState) -> None:  # noqa: N802 - QListWidgetItem API
        self._view.model_.setData(self._view.model_.index(self.row), state,
                                  Qt.ItemDataRole.CheckStateRole)

    def isSelected(self) -> bool:  # noqa: N802 - QListWidgetItem API
        return self._view.selectionModel().isRowSelected(self.row, QModelIndex())

    def setSelected(self, on: bool) -> None:  # noqa: N802 - QListWidgetItem API
        flag = QItemSelectionModel.SelectionFlag
        self._view.selectionModel().select(self._view.model_.index(self.row),
                                           flag.Select if on else flag.Deselect)


class ScanList(QTableView):
    """The legend list (see the module notes).

    Signals:
        itemChanged(ScanItem): a row's check box changed.
        itemSelectionChanged(): the selected rows changed.
    """

    itemChanged = Signal(object)  # noqa: N815 - QListWidget's names
    itemSelectionChanged = Signal()  # noqa: N815

    def __init__(self, ids: Sequence[str], colors: Sequence[Any],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_ = ScanListModel(ids, colors, self)
        self.setModel(self.model_)
        self.horizontalHeader().hide()
        self.horizontalHeader().setStretchLastSection(True)
        rows = self.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # one height: no per-row layout
        rows.setDefaultSectionSize(max(self.fontMetrics().height(), SWATCH) + 4)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.model_.check_changed.connect(lambda row, _on: self.itemChanged.emit(self.item(row)))
        self.selectionModel().selectionChanged.connect(
            lambda *_a: self.itemSelectionChanged.emit())

    def count(self) -> int:
        return len(self.model_.ids)

    def item(self, row: int) -> ScanItem:
        return ScanItem(self, row)

    def row(self, item: ScanItem) -> int:
        return item.row

    def selected_rows(self) -> set[int]:
        """The selected rows."""
        return {i.row() for i in self.selectionModel().selectedRows()}

    def selectedItems(self) -> list[ScanItem]:  # noqa: N802 - QListWidget API
        return [self.item(r) for r in sorted(self.selected_rows())]

    def select_rows(self, rows: set[int]) -> None:
        """Select exactly ``rows``: one selection change (one ``itemSelectionChanged``)."""
        sel = QItemSelection()
        for r in sorted(rows):
            sel.select(self.model_.index(r), self.model_.index(r))
        self.selectionModel().select(sel, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        if rows:
            self.scrollTo(self.model_.index(min(rows)))

    def setCurrentRow(self, row: int) -> None:  # noqa: N802 - QListWidget API
        self.selectionModel().setCurrentIndex(
            self.model_.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect)

    def scrollToItem(self, item: ScanItem) -> None:  # noqa: N802 - QListWidget API
        self.scrollTo(self.model_.index(item.row))

    def width_hint(self) -> int:
        """The width that shows the longest ID with its check box and swatch (of the first
        and last :data:`WIDTH_SAMPLE` IDs: a million would take seconds)."""
        metrics = self.fontMetrics()
        ids = self.model_.ids
        sample = ids if len(ids) <= 2 * WIDTH_SAMPLE else [*ids[:WIDTH_SAMPLE],
                                                            *ids[-WIDTH_SAMPLE:]]
        text = max((metrics.horizontalAdvance(s) for s in sample), default=0)
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        return text + SWATCH + 2 * self.frameWidth() + 40 + bar  # (a scroll bar takes room)
