"""Expand every row of a tree view a few hundred rows an event-loop turn.

``QTreeView.expandAll`` lays out every row in one call: 1 000 header nodes
took 50 ms on the GUI thread, over the 50 ms the window may stall
(docs/architecture.md, "Contracts").  :func:`expand_all` expands the same
rows in pre-order, :data:`ROWS_PER_TURN` rows now and as many on each later
turn, so a small tree is expanded at once and a large one fills in from the
top, where the user looks first.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QTimer
from PySide6.QtWidgets import QTreeView

#: Rows made visible per event-loop turn (about 10 ms of layout on this machine).
ROWS_PER_TURN = 200

_RUNNING = "_inspector_expansion"  # the view's current expansion (a newer one supersedes it)


def expand_all(view: QTreeView, rows_per_turn: int = ROWS_PER_TURN) -> None:
    """Expand every row of ``view`` (as ``view.expandAll()``), ``rows_per_turn``
    newly shown rows now and per later event-loop turn.

    A later call for the same view supersedes an expansion still under way;
    rows removed meanwhile, or by a reset of the model, are skipped (the
    pending rows are held as persistent indexes).
    """
    token = object()
    setattr(view, _RUNNING, token)
    model = view.model()
    pending = [QPersistentModelIndex(model.index(r, 0)) for r in reversed(range(model.rowCount()))]
    _expand_some(view, token, pending, rows_per_turn)


def expanding(view: QTreeView) -> bool:
    """An :func:`expand_all` of ``view`` has rows left to expand."""
    return getattr(view, _RUNNING, None) is not None


def _expand_some(view: QTreeView, token: object, pending: list[QPersistentModelIndex],
                 budget: int) -> None:
    if getattr(view, _RUNNING, None) is not token:
        return
    model = view.model()
    shown = 0
    while pending and shown < budget:
        index = QModelIndex(pending.pop())  # type: ignore[call-overload]  # (a persistent index)
        if not index.isValid() or not model.hasChildren(index):
            continue
        view.expand(index)  # (fetches the first rows of a lazily filled node)
        n = model.rowCount(index)
        shown += n
        pending.extend(QPersistentModelIndex(model.index(r, 0, index))
                       for r in reversed(range(n)))
    if pending:
        QTimer.singleShot(0, view, lambda: _expand_some(view, token, pending, budget))
    else:
        setattr(view, _RUNNING, None)
