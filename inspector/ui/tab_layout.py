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
the window is resized, until the user drags a handle.  Where the views' tab titles
need more than their share (a narrow window), the plot gives way, down to
:data:`PLOT_SHARE_LEAST` of the width, so that no title is cut or scrolled.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

#: Share of the tab's width given to the plot panel.
PLOT_SHARE = 0.55
#: Share of the left column's height given to the detail pane.
DETAIL_SHARE = 0.15
#: Share of the width given to the detail pane when there is no plot.
DETAIL_SHARE_NO_PLOT = 0.4
#: Least share of the tab's width the plot keeps when the views' tabs want more room.
PLOT_SHARE_LEAST = 0.4


class ShareSplitter(QSplitter):
    """A two-widget splitter that keeps its second widget at ``share`` of its size until
    the user drags the handle (from then on the user's sizes are kept)."""

    def __init__(self, orientation: Qt.Orientation, share: float) -> None:
        super().__init__(orientation)
        self.share = share
        self.user_sized = False
        #: The width (or height) the first widget needs, when it needs more than its share
        #: (the plot then gives way down to :data:`PLOT_SHARE_LEAST`); None: the share rules.
        self.first_wants: Callable[[], int] | None = None
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
        if self.first_wants is not None:
            second = max(min(second, total - self.first_wants()),
                         min(second, round(total * PLOT_SHARE_LEAST)))
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
    if isinstance(views, QTabWidget):  # every tab's title whole, no scroll arrows
        outer.first_wants = lambda: tabs_width(views)
        _Relayout(views, outer)
    return outer


def tabs_width(tabs: QTabWidget) -> int:
    """The width ``tabs`` needs to show every tab's title without scroll arrows (Qt's
    size hint of its tab bar, plus what the widget puts beside the bar)."""
    bar = tabs.tabBar()
    beside = max(0, tabs.width() - bar.width()) if bar.isVisible() else 0
    return bar.sizeHint().width() + beside


class _Relayout(QObject):
    """Applies ``split``'s share again when ``tabs`` asks for a new layout (a tab added
    or renamed changes the room its titles need)."""

    def __init__(self, tabs: QTabWidget, split: ShareSplitter) -> None:
        super().__init__(tabs)
        self.split = split
        tabs.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LayoutRequest:
            self.split.apply_share()
        return False
