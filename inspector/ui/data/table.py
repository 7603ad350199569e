"""A virtual table over a :class:`~inspector.formats.nodes.data.NodeData`.

:class:`NodeTableModel` reads only what the view paints: ``data()`` never
reads the file; a cell whose page is not loaded shows ``…`` and asks for
its page; pages asked for within :data:`REQUEST_DELAY_MS` are read together
on jobs (keyed, so a page is read once at a time) and cached (at most
:data:`MAX_PAGES`).  Scrolling a 10^8-row dataset to its end therefore reads
the pages on screen, not the rows in between.

Layouts: a node with several columns (a compound type) or one axis is a
table of rows x columns (fields); a node with one column and two or more
axes is the matrix of two chosen axes (:class:`~inspector.ui.data.slicing.SliceState`),
the other axes fixed.  Cell text is :func:`~inspector.formats.nodes.cell_text.cell_text`,
as ``inspector dump`` writes it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QVBoxLayout, QWidget

from inspector.formats.nodes.cell_text import cell_text
from inspector.formats.nodes.data import CELL_LIMIT, NUMERIC_KINDS, ColumnKind, ColumnSpec, NodeData
from inspector.jobs import JobRunner
from inspector.models.multi_data import OneEntryPerCell
from inspector.models.roles import CopyRole
from inspector.models.style import kind_color
from inspector.ui.data.reading import ReadFailure, read_values
from inspector.ui.data.slicing import SliceState

#: Rows per page read; columns per page of a matrix.
PAGE_ROWS = 128
PAGE_COLS = 64
#: Pages kept in memory.
MAX_PAGES = 64
#: Pages asked for within this delay are read together.
REQUEST_DELAY_MS = 15
#: Qt counts rows and columns in ints.
QT_MAX = 2**31 - 1
PENDING = "…"

_Page = tuple[list[ColumnSpec], list[np.ndarray], list[np.ndarray | None]]


class NodeTableModel(OneEntryPerCell, QAbstractTableModel):
    """Rows x columns of a node, read page by page on jobs.

    Signals:
        failed(object): the first page that could not be read (a :class:`ReadFailure`).

    Attributes:
        reads: every selection read so far (tests check what was read).
    """

    failed = Signal(object)

    def __init__(self, node: NodeData, state: SliceState, jobs: JobRunner,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self.node, self.state, self.jobs = node, state, jobs
        self.reads: list[tuple[Any, ...]] = []
        self._pages: OrderedDict[tuple[int, int], _Page] = OrderedDict()
        self._pending: set[tuple[int, int]] = set()
        self._wanted: set[tuple[int, int]] = set()
        self._failed_pages: set[tuple[int, int]] = set()
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REQUEST_DELAY_MS)
        self._timer.timeout.connect(self._request)
        self.matrix = len(node.columns) == 1 and node.ndim >= 2
        shape = node.shape or ()
        if node.is_null:
            self.n_rows, self.n_cols = 0, 0
        elif node.ndim == 0:
            self.n_rows, self.n_cols = 1, len(node.columns)
        elif self.matrix:
            assert state.cols is not None
            self.n_rows, self.n_cols = shape[state.rows], shape[state.cols]
        else:
            self.n_rows, self.n_cols = shape[state.rows], len(node.columns)
        self.truncated = self.n_rows > QT_MAX or self.n_cols > QT_MAX

    # -- shape ------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else min(self.n_rows, QT_MAX)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else min(self.n_cols, QT_MAX)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Vertical:
            return str(section) if role == Qt.ItemDataRole.DisplayRole else None
        if self.matrix:
            return str(section) if role == Qt.ItemDataRole.DisplayRole else None
        spec = self.node.columns[section] if section < len(self.node.columns) else None
        if spec is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return spec.label
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{spec.label}: {spec.type.text}"
        return None

    # -- pages --------------------------------------------------------------
    def page_of(self, row: int, col: int) -> tuple[int, int]:
        return row // PAGE_ROWS, (col // PAGE_COLS) if self.matrix else 0

    def selection(self, page: tuple[int, int]) -> tuple[Any, ...]:
        """The node selection of one page (the other axes at their chosen positions)."""
        if self.node.ndim == 0:
            return ()
        sel: list[Any] = list(self.state.index)
        r0 = page[0] * PAGE_ROWS
        sel[self.state.rows] = slice(r0, min(self.n_rows, r0 + PAGE_ROWS))
        if self.matrix:
            assert self.state.cols is not None
            c0 = page[1] * PAGE_COLS
            sel[self.state.cols] = slice(c0, min(self.n_cols, c0 + PAGE_COLS))
        return tuple(sel)

    def _lookup(self, row: int, col: int) -> tuple[ColumnKind, Any, bool] | None:
        page = self.page_of(row, col)
        got = self._pages.get(page)
        if got is None:
            if page not in self._pending and page not in self._failed_pages and \
                    not self._closed:
                self._wanted.add(page)
                if not self._timer.isActive():  # pages asked for meanwhile join this read
                    self._timer.start()
            return None
        self._pages.move_to_end(page)
        specs, arrays, escaped = got
        r = row - page[0] * PAGE_ROWS
        if self.matrix:
            c = col - page[1] * PAGE_COLS
            bad = escaped[0]
            return specs[0].kind, arrays[0][r, c], bool(bad[r, c]) if bad is not None else False
        bad = escaped[col]
        a = arrays[col]
        if self.node.ndim == 0:
            return specs[col].kind, a[()], bool(bad[()]) if bad is not None else False
        return specs[col].kind, a[r], bool(bad[r]) if bad is not None else False

    def _request(self) -> None:
        wanted, self._wanted = self._wanted, set()
        node = self.node
        for page in sorted(wanted):
            if page in self._pages or page in self._pending:
                continue
            self._pending.add(page)
            sel = self.selection(page)
            self.reads.append(sel)
            self._submit_read(node, page, sel)

    def _submit_read(self, node: Any, page: tuple[int, int], sel: Any) -> None:
        def failed(message: str, _tb: str) -> None:
            self._read_failed(page, ReadFailure(message))

        self.jobs.submit(lambda _ctx: read_values(node, sel),
                         on_done=lambda values: self._arrived(page, values),
                         on_error=failed, key=self._key(page))

    def _key(self, page: tuple[int, int]) -> str:
        return f"table:{id(self)}:{page[0]}:{page[1]}"

    def _arrived(self, page: tuple[int, int], values: Any) -> None:
        if self._closed:
            return
        if isinstance(values, ReadFailure):
            self._read_failed(page, values)
            return
        self._pending.discard(page)
        arrays, escaped = [], []
        transpose = self.matrix and self.state.cols is not None and \
            self.state.rows > self.state.cols
        for col in values.columns:
            a, bad = col.values, col.escaped
            if transpose:
                a, bad = a.T, (bad.T if bad is not None else None)
            arrays.append(a)
            escaped.append(bad)
        self._pages[page] = ([c.spec for c in values.columns], arrays, escaped)
        while len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)
        self._changed(page)

    def _read_failed(self, page: tuple[int, int], failure: ReadFailure) -> None:
        """A page could not be read: it stays "…" (not asked for again) and the panel
        is told once."""
        self._failed_pages.add(page)
        self._pending.discard(page)
        if len(self._failed_pages) == 1:
            self.failed.emit(failure)

    def _changed(self, page: tuple[int, int]) -> None:
        r0 = page[0] * PAGE_ROWS
        r1 = min(self.rowCount(), r0 + PAGE_ROWS) - 1
        c0 = page[1] * PAGE_COLS if self.matrix else 0
        c1 = (min(self.columnCount(), c0 + PAGE_COLS) if self.matrix else self.columnCount()) - 1
        if r1 >= r0 and c1 >= c0:
            self.dataChanged.emit(self.index(r0, c0), self.index(r1, c1))

    def is_idle(self) -> bool:
        """No page asked for or on its way."""
        return not (self._pending or self._wanted or self._timer.isActive())

    def shutdown(self) -> None:
        """Stop asking for pages and drop the reads on their way (the view is going)."""
        self._closed = True
        self._timer.stop()
        for page in list(self._pending):
            self.jobs.cancel(self._key(page))
        self._pending.clear()

    # -- cells ----------------------------------------------------------------
    def cell(self, row: int, col: int) -> tuple[ColumnKind, Any, bool] | None:
        """``(kind, value, escaped)`` of a loaded cell, else None (its page is asked for)."""
        return self._lookup(row, col)

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        got = self._lookup(index.row(), index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return PENDING if got is None else cell_text(got[0], got[1], CELL_LIMIT)
        if got is None:
            if role == Qt.ItemDataRole.ForegroundRole:
                return kind_color("pending")
            return None
        kind, value, escaped = got
        if role == CopyRole:
            return cell_text(kind, value)
        if role == Qt.ItemDataRole.ToolTipRole and escaped:
            return "Not valid UTF-8: the bytes that are not are shown as \\x escapes"
        if role == Qt.ItemDataRole.ForegroundRole and escaped:
            return kind_color("warn")
        if role == Qt.ItemDataRole.TextAlignmentRole and kind in NUMERIC_KINDS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def source_index(self, row: int, col: int) -> tuple[int, ...]:
        """The node index of a cell (for a matrix both axes; else the row)."""
        idx = list(self.state.index)
        if self.node.ndim == 0:
            return ()
        idx[self.state.rows] = row
        if self.matrix and self.state.cols is not None:
            idx[self.state.cols] = col
        return tuple(idx)


class TableView(QWidget):
    """A :class:`NodeTableModel` in a table view with uniform rows.

    Signals:
        value_selected(str, str): a loaded cell became current: ``(title, full text)``.
        failed(object): a page could not be read.
    """

    value_selected = Signal(str, str)
    failed = Signal(object)

    def __init__(self, node: NodeData, state: SliceState, jobs: JobRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.node = node
        self.model = NodeTableModel(node, state, jobs, self)
        self.model.failed.connect(self.failed)
        self.view = QTableView(self)
        self.view.setObjectName("dataTable")
        self.view.setAccessibleName(f"Values of {node.location}")
        self.view.setModel(self.model)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        rows = self.view.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        cols = self.view.horizontalHeader()
        cols.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        cols.setDefaultSectionSize(96 if self.model.matrix else 120)
        cols.setStretchLastSection(not self.model.matrix and self.model.n_cols <= 4)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.selectionModel().currentChanged.connect(self._current)
        self.model.dataChanged.connect(self._maybe_current)
        palette = self.view.palette()
        palette.setColor(QPalette.ColorRole.PlaceholderText, kind_color("pending"))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.view)

    def _current(self, cur: QModelIndex, _prev: QModelIndex) -> None:
        if cur.isValid():
            self._emit(cur.row(), cur.column())

    def _maybe_current(self, *_args: Any) -> None:
        cur = self.view.currentIndex()
        if cur.isValid() and self.model.cell(cur.row(), cur.column()) is not None:
            self._emit(cur.row(), cur.column())

    def _emit(self, row: int, col: int) -> None:
        got = self.model.cell(row, col)
        if got is None:
            return
        idx = self.model.source_index(row, col)
        where = "[" + ", ".join(str(i) for i in idx) + "]" if idx else ""
        label = "" if self.model.matrix else self.node.columns[col].name
        title = f"{self.node.location}{where}" + (f" {label}" if label else "")
        text = cell_text(got[0], got[1])
        if got[2]:
            text += "\n\n(not valid UTF-8: the invalid bytes are shown as \\x escapes)"
        self.value_selected.emit(title, text)

    def scroll_to_row(self, row: int) -> None:
        """Make ``row`` visible (tests and keyboard navigation)."""
        self.view.scrollTo(self.model.index(row, 0))

    def is_idle(self) -> bool:
        """The pages on screen are shown (or failed)."""
        return self.model.is_idle()

    def shutdown(self) -> None:
        self.model.shutdown()
