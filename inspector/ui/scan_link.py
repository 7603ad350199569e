"""One scan selection for a whole tab: the Scans table, the scan list and the plot agree.

Selecting scans in any of them selects the same scans in the others:

- rows of the document's scan table (the table with a ``scan_id`` column,
  else the one ``AucScans.table`` declares) select those scans in the AUC plot's list,
  which highlights their curves;
- selecting in the scan list, or clicking a curve on the plot (the view
  selects its list row itself), selects the scans' rows in the table.

A finding about one scan (its location names ``scans[i]``) selects that scan
(:func:`select_scan_of`).  Scans are matched by ID (``AucScans.scan_ids`` against the table's
``scan_id`` column), else by position.  The plot view is replaced when
another array is shown or a check changed the document; new views are
picked up when they are added to the plot panel.  Nothing is read from the
file here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QObject
from PySide6.QtWidgets import QAbstractItemView

if TYPE_CHECKING:  # both import pandas or pyqtgraph: the tab imports them when it needs them
    import numpy as np  # (imported where used: the window starts without numpy)

    from inspector.ui.plots.auc import AucView
    from inspector.ui.table_panel import TablePanel

#: The column that names a table row's scan.
ID_COLUMN = "scan_id"


def is_scan_view(view: object) -> bool:
    """True for a view with a scan list and scan selection (:class:`AucView`)."""
    return all(hasattr(view, name) for name in ("scan_list", "scan_ids", "select_scans",
                                                  "selected_scans"))


def scan_table(tables: dict[str, TablePanel], declared: object = None) -> TablePanel | None:
    """The table listing the scans: one with a ``scan_id`` column, else the one whose
    table is ``declared`` (``AucScans.table``, the document's table of one row per scan)."""
    for panel in tables.values():
        if ID_COLUMN in [str(c) for c in panel.model.labels]:
            return panel
    return next((p for p in tables.values() if declared is not None
                 and p.model.table is declared), None)


def _declared_scans(tab: Any) -> object:
    """``tab.doc.auc.table`` (None when the document offers no AUC experiment)."""
    auc = getattr(getattr(tab, "doc", None), "auc", None)
    return getattr(auc, "table", None)


class ScanLink(QObject):
    """Keeps the scan selection of a tab's scan table and AUC plot in step.

    Args:
        table: the scan table panel (None: only the plot, nothing to link).
        plot: the tab's plot panel (its ``view`` is an :class:`AucView` or not).
    """

    def __init__(self, table: TablePanel | None, plot: QObject | None) -> None:
        super().__init__(plot)
        self.table = table
        self.plot = plot
        self._busy = False
        self._views: set[int] = set()
        self._scans: tuple[object, object, np.ndarray] | None = None  # (view, table, scans)
        if table is not None:
            table.view.selectionModel().selectionChanged.connect(self._table_changed)
            table.destroyed.connect(self._table_gone)
        if plot is not None:
            plot.installEventFilter(self)
            self._hook(getattr(plot, "view", None))

    # -- wiring -----------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.ChildAdded:
            child: Any = event
            self._hook(child.child())
        return False

    def _hook(self, view: Any) -> None:
        if not is_scan_view(view) or id(view) in self._views:
            return
        self._views.add(id(view))
        view.scan_list.itemSelectionChanged.connect(lambda v=view: self._plot_changed(v))
        view.destroyed.connect(lambda *_a, key=id(view): self._views.discard(key))
        self._table_changed()  # a new view starts with the table's selection

    def _table_gone(self, *_args: Any) -> None:
        self.table = None

    def view(self) -> AucView | None:
        """The AUC view shown now (None when the plot shows something else)."""
        view = getattr(self.plot, "view", None)
        return view if is_scan_view(view) else None

    # -- mapping ----------------------------------------------------------
    def _row_scans(self, view: AucView) -> np.ndarray:
        """int64: the scan index of every table row (position in the table), -1 when
        unknown (made once per view and table: a million rows take a second)."""
        import numpy as np

        assert self.table is not None
        table = self.table.model.table
        cached = self._scans
        if cached is not None and cached[0] is view and cached[1] is table:
            return cached[2]
        cols = [str(c) for c in table.labels]
        ids = table.column(cols.index(ID_COLUMN)).tolist() if ID_COLUMN in cols else None
        if ids is not None and ids == list(view.scan_ids):  # the table lists them in order
            scans = np.arange(len(ids), dtype=np.int64)
        elif ids is not None:
            where = {sid: i for i, sid in enumerate(view.scan_ids)}
            scans = np.array([where.get(str(v), -1) for v in ids], dtype=np.int64)
        else:
            scans = np.arange(len(table), dtype=np.int64)
            scans[scans >= len(view.scan_ids)] = -1
        self._scans = (view, table, scans)
        return scans

    # -- directions -------------------------------------------------------
    def _table_changed(self, *_args: Any) -> None:
        view = self.view()
        if self._busy or self.table is None or view is None:
            return
        model = self.table.model
        rows = {i.row() for i in self.table.view.selectionModel().selectedIndexes()}
        chosen: set[int] = set()
        if rows:  # (none selected: the table's scans are not looked up)
            import numpy as np

            scans = self._row_scans(view)
            chosen = set(scans[model.source_rows(np.fromiter(rows, np.int64))].tolist()) - {-1}
        self._busy = True
        try:
            view.select_scans(chosen)
        finally:
            self._busy = False

    def _plot_changed(self, view: AucView) -> None:
        if self._busy or self.table is None or view is not self.view():
            return
        import numpy as np

        chosen = set(view.selected_scans())
        scans = self._row_scans(view)
        model = self.table.model
        picked = np.flatnonzero(np.isin(scans, np.fromiter(chosen, np.int64)))
        rows = model.display_rows(picked).tolist()
        selection = QItemSelection()
        last = model.columnCount() - 1
        for r in rows:
            selection.select(model.index(r, 0), model.index(r, last))
        self._busy = True
        try:
            sm = self.table.view.selectionModel()
            sm.select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            if rows:
                self.table.view.scrollTo(model.index(rows[0], 0),
                                         QAbstractItemView.ScrollHint.EnsureVisible)
        finally:
            self._busy = False


def link_scans(tab: Any) -> ScanLink | None:
    """Link the scan selection of a document tab (``tab.tables``, ``tab.plot``, ``tab.doc.auc``).

    Returns the link (owned by the plot panel), or None when the document
    offers no AUC experiment or has no plot.
    """
    doc = getattr(tab, "doc", None)
    if doc is None or doc.auc is None or getattr(tab, "plot", None) is None:
        return None
    link = ScanLink(scan_table(tab.tables, doc.auc.table), tab.plot)
    tab.scan_link = link
    return link


#: A scan record named in a finding's location (``experiment.json:scans[3].cell``).
SCAN_IN_LOCATION = re.compile(r"(?:^|[:.])scans\[(\d+)\]")


def scan_of_location(location: str) -> int | None:
    """The position of the one scan ``location`` names (``scans[3]``), else None
    (``scans[*]``: every scan, or no scan)."""
    match = SCAN_IN_LOCATION.search(location)
    return int(match[1]) if match is not None else None


def select_scan_of(tab: Any, location: str) -> bool:
    """Select the scan a finding's ``location`` names in ``tab``'s scan table (the plot's
    scan list follows, :class:`ScanLink`) and show the table; False when it names none or
    the tab has no such scan."""
    position = scan_of_location(location)
    table = scan_table(getattr(tab, "tables", {}) or {}, _declared_scans(tab))
    if position is None or table is None or position >= len(table.model.table):
        return False
    import numpy as np

    table.select_rows(np.array([position], dtype=np.int64))
    tab.views.setCurrentWidget(table)
    return True

