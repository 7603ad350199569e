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
are never collapsed (they hold what the tab is about).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QWidget

#: Share of the tab's width given to the plot panel.
PLOT_SHARE = 0.55
#: Share of the left column's height given to the detail pane.
DETAIL_SHARE = 0.15
#: Share of the width given to the detail pane when there is no plot.
DETAIL_SHARE_NO_PLOT = 0.4


def _split(orientation: Qt.Orientation, first: QWidget, second: QWidget,
           second_share: float) -> QSplitter:
    split = QSplitter(orientation)
    split.setChildrenCollapsible(True)
    split.addWidget(first)
    split.addWidget(second)
    split.setCollapsible(0, False)
    split.setStretchFactor(0, round(100 * (1 - second_share)))
    split.setStretchFactor(1, round(100 * second_share))
    # proportions: the splitter scales them to its size when it is first laid out
    split.setSizes([round(1000 * (1 - second_share)), round(1000 * second_share)])
    return split


def lay_out_tab(views: QWidget, detail: QWidget, plot: QWidget | None) -> QSplitter:
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
