"""How a document tab divides its room: the plot first, the side panels collapsible.

With a plot::

    +---------------------+-------------------------------+
    | views (tabs)        |                               |
    |                     |  plot panel (PLOT_SHARE of    |
    +---------------------+  the width, the full height)  |
    | detail pane         |                               |
    +---------------------+-------------------------------+

Without one, the views and the detail pane sit side by side.  Every
splitter can be dragged; the detail pane can be collapsed into its splitter
handle (a drag or a double-click on the handle brings it back).  The views
are never collapsed (they hold what the tab is about).  The shares hold as
the window is resized, until the user drags a handle.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter, QWidget

#: Share of the tab's width given to the plot panel.
PLOT_SHARE = 0.55
#: Share of the left column's height given to the detail pane.
DETAIL_SHARE = 0.15
#: Share of the width given to the detail pane when there is no plot.
DETAIL_SHARE_NO_PLOT = 0.4


class ShareSplitter(QSplitter):
    """A two-widget splitter that keeps its second widget at ``share`` of its size until
    the user drags the handle (from then on the user's sizes are kept)."""

    def __init__(self, orientation: Qt.Orientation, share: float) -> None:
        super().__init__(orientation)
        self.share = share
        self.user_sized = False
        self.splitterMoved.connect(self._moved)

    def _moved(self, _pos: int, _index: int) -> None:
        self.user_sized = True

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.apply_share()

    def apply_share(self) -> None:
        """Size the two widgets by :attr:`share` (unless the user sized them)."""
        if self.user_sized or self.count() != 2:
            return
        sizes = self.sizes()
        total = sum(sizes)
        if total <= 0 or 0 in sizes:  # not laid out yet, or a side folded away
            return
        second = round(total * self.share)
        self.blockSignals(True)
        try:
            self.setSizes([total - second, second])
        finally:
            self.blockSignals(False)


def _split(orientation: Qt.Orientation, first: QWidget, second: QWidget,
           second_share: float) -> ShareSplitter:
    split = ShareSplitter(orientation, second_share)
    split.setChildrenCollapsible(True)
    split.addWidget(first)
    split.addWidget(second)
    split.setCollapsible(0, False)
    split.setStretchFactor(0, round(100 * (1 - second_share)))
    split.setStretchFactor(1, round(100 * second_share))
    split.setSizes([round(1000 * (1 - second_share)), round(1000 * second_share)])
    return split


def lay_out_tab(views: QWidget, detail: QWidget, plot: QWidget | None) -> ShareSplitter:
    """The splitter holding a tab's ``views``, ``detail`` pane and ``plot`` (None: no plot).

    Returns the outer (horizontal) splitter; with a plot, its first widget
    is the vertical splitter of the views over the detail pane.
    """
    if plot is None:
        return _split(Qt.Orientation.Horizontal, views, detail, DETAIL_SHARE_NO_PLOT)
    left = _split(Qt.Orientation.Vertical, views, detail, DETAIL_SHARE)
    left.setObjectName("viewsAndDetail")
    outer = _split(Qt.Orientation.Horizontal, left, plot, PLOT_SHARE)
    outer.setCollapsible(1, False)
    return outer
