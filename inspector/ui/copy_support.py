"""Copy actions for every tree and table: "Copy value" (Ctrl+C), "Copy name", "Copy location".

Values are copied in full (the model's :data:`CopyRole`), not as the
truncated display text.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView

from inspector.models.roles import CopyRole, LocationRole, NameRole


def _text(index: QModelIndex, role: int) -> str:
    v = index.data(role)
    if v is None and role == CopyRole:
        v = index.data(Qt.ItemDataRole.DisplayRole)
    return "" if v is None else str(v)


def selected_rows(view: QAbstractItemView) -> list[QModelIndex]:
    """Column-0 indexes of the selected rows (or of the current row), in view order."""
    sm = view.selectionModel()
    rows: dict[tuple, QModelIndex] = {}
    if sm is not None:
        for idx in sm.selectedIndexes():
            first = idx.siblingAtColumn(0)
            rows.setdefault((_path(first)), first)
    if not rows:
        cur = view.currentIndex()
        if cur.isValid():
            return [cur.siblingAtColumn(0)]
        return []
    return [rows[k] for k in sorted(rows)]


def _path(idx: QModelIndex) -> tuple:
    out = []
    while idx.isValid():
        out.append(idx.row())
        idx = idx.parent()
    return tuple(reversed(out))


def copy_cells(view: QAbstractItemView, value_column: int | None) -> str:
    """Text of the selection: the value column of selected rows, or a TSV grid of cells."""
    if value_column is not None:
        lines = [_text(i.siblingAtColumn(value_column), CopyRole) for i in selected_rows(view)]
        return "\n".join(lines)
    sm = view.selectionModel()
    cells = list(sm.selectedIndexes()) if sm is not None else []
    cur = view.currentIndex()
    one_row = len({(i.row(), i.parent()) for i in cells}) <= 1
    if not cells or (one_row and cur.isValid() and (not cells or cells[0].row() == cur.row())):
        # a single row (tables select whole rows): the cell under the cursor
        return _text(cur, CopyRole) if cur.isValid() else ""
    grid: dict[int, dict[int, str]] = {}
    for i in cells:
        grid.setdefault(i.row(), {})[i.column()] = _text(i, CopyRole)
    cols = sorted({c for r in grid.values() for c in r})
    return "\n".join("\t".join(grid[r].get(c, "") for c in cols) for r in sorted(grid))


def set_clipboard(text: str) -> None:
    """Put ``text`` on the system clipboard."""
    QGuiApplication.clipboard().setText(text)


def install_copy_actions(
    view: QAbstractItemView,
    value_column: int | None = None,
    with_location: bool = True,
    extra: list[tuple[str, Callable[[], str]]] | None = None,
) -> list[QAction]:
    """Add a context menu and Ctrl+C to ``view``.

    Args:
        view: a tree or table view.
        value_column: for trees, the column whose value "Copy value" copies for
            each selected row; None copies the selected cells (TSV).
        with_location: add "Copy location" (the row's :data:`LocationRole`).
        extra: further ``(label, text function)`` entries.
    Returns the actions (first: "Copy value").
    """
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    acts: list[QAction] = []

    def add(label: str, fn: Callable[[], str],
            shortcut: QKeySequence | QKeySequence.StandardKey | None = None) -> None:
        a = QAction(label, view)
        if shortcut is not None:
            a.setShortcut(shortcut)
            a.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        a.triggered.connect(lambda: set_clipboard(fn()))
        view.addAction(a)
        acts.append(a)

    add("Copy value", lambda: copy_cells(view, value_column), QKeySequence.StandardKey.Copy)
    add("Copy name", lambda: "\n".join(_text(i, NameRole) or _text(i, Qt.ItemDataRole.DisplayRole)
                                       for i in selected_rows(view)))
    if with_location:
        add("Copy location", lambda: "\n".join(_text(i, LocationRole) for i in selected_rows(view)))
    for label, fn in extra or []:
        add(label, fn)
    return acts
