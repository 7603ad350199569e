"""A ``pg.ViewBox`` whose context menu is made when it is first wanted.

pyqtgraph's ``ViewBox`` builds its ``ViewBoxMenu`` (two axis-control forms,
a few dozen widgets) in its constructor: a quarter of the 20 to 35 ms a
``PlotWidget`` takes on the GUI thread, for a menu most plots never open.
:class:`LazyMenuViewBox` makes it on the first right-click, or the first
time code reads ``vb.menu``; what the views add to the menu (a reset action,
the exports) is queued with :func:`on_menu` and applied, in order, when it is
made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyqtgraph as pg
from pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu import ViewBoxMenu
from PySide6.QtWidgets import QMenu


class LazyMenuViewBox(pg.ViewBox):
    """A ``pg.ViewBox`` with its context menu enabled but built on first use.

    Attributes:
        menu: the ``ViewBoxMenu`` (reading it builds it and applies the queued
            :func:`on_menu` additions); None while the menu is disabled.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._menu: QMenu | None = None
        self._menu_made = False
        self._menu_additions: list[Callable[[QMenu], None]] = []
        self._listing_views = False
        enabled = kwargs.pop("enableMenu", True)
        super().__init__(*args, enableMenu=False, **kwargs)
        self.state["enableMenu"] = enabled  # shown on demand: see ``menu``

    @property  # type: ignore[override]
    def menu(self) -> QMenu | None:
        if self._menu is None and not self._menu_made and not self._listing_views \
                and self.menuEnabled():
            self._make_menu()
        return self._menu

    @menu.setter
    def menu(self, value: QMenu | None) -> None:
        self._menu = value
        self._menu_made = self._menu_made or value is not None

    @property
    def menu_made(self) -> bool:
        """True once the context menu has been built."""
        return self._menu_made

    def queue_menu_addition(self, add: Callable[[QMenu], None]) -> None:
        """Call ``add(menu)`` when the menu is made (at once if it is made already)."""
        if self._menu_made and self._menu is not None:
            add(self._menu)
        else:
            self._menu_additions.append(add)

    def _make_menu(self) -> None:
        self._menu_made = True
        self._menu = ViewBoxMenu(self)
        self.updateViewLists()  # the axis-link lists of the new menu
        additions, self._menu_additions = self._menu_additions, []
        for add in additions:
            add(self._menu)

    def updateViewLists(self) -> None:  # noqa: N802 - pyqtgraph's name
        """pyqtgraph's view-list update, without building the menu to fill its lists."""
        self._listing_views = not self._menu_made
        try:
            super().updateViewLists()
        finally:
            self._listing_views = False


def on_menu(vb: pg.ViewBox, add: Callable[[QMenu], None]) -> None:
    """Call ``add(menu)`` with ``vb``'s context menu: when it is made, for a
    :class:`LazyMenuViewBox`, else at once (a menu-less view box is skipped)."""
    if isinstance(vb, LazyMenuViewBox):
        vb.queue_menu_addition(add)
    elif vb.menu is not None:
        add(vb.menu)
