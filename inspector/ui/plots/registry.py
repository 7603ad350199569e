"""The views of one array, chosen in one place.

Each :class:`ArrayView` says, for an array of a document, whether it can show
it and with what priority (:attr:`ArrayView.priority`: None when it cannot;
the highest wins), and builds the view (:attr:`ArrayView.make`).  The choice
reads only the document's capabilities (``doc.auc``, ``doc.trials``,
``doc.features``) and the array's rank; never a format name.  This is the
pattern of silx's ``DataViewer`` (each ``DataView`` answers
``getDataPriority``).

Adding a view: one module with the view and its ``ArrayView`` (see
:mod:`inspector.ui.plots.view_request`), and one line in :data:`ARRAY_VIEWS`.
"""

from __future__ import annotations

from inspector.ui.plots.auc import AUC
from inspector.ui.plots.features import FEATURES
from inspector.ui.plots.neural import LINES
from inspector.ui.plots.patterns import PATTERNS
from inspector.ui.plots.view_request import ArrayView, ViewRequest, auc_array_names

__all__ = ["AUC", "ARRAY_VIEWS", "FEATURES", "LINES", "PATTERNS", "ArrayView", "ViewRequest",
           "auc_array_names", "choose", "register"]

#: Every view of an array; the one with the highest priority is shown.
ARRAY_VIEWS: list[ArrayView] = [
    AUC,
    PATTERNS,
    LINES,
    FEATURES,
]


def register(view: ArrayView) -> None:
    """Offer ``view`` for every array it gives a priority to (a plug-in's one line)."""
    ARRAY_VIEWS.append(view)


def choose(request: ViewRequest) -> ArrayView | None:
    """The view with the highest priority for ``request`` (the first listed on a tie),
    or None when no view can show it."""
    best: tuple[int, ArrayView] | None = None
    for view in ARRAY_VIEWS:
        p = view.priority(request)
        if p is not None and (best is None or p > best[0]):
            best = (p, view)
    return best[1] if best is not None else None
