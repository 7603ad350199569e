"""The context menu of every plot: only entries that work and are tested.

pyqtgraph gives each plot a view-box menu ("View All", "X axis" and "Y axis"
panels, "Mouse Mode") and a "Plot Options" menu (Transforms with a power
spectrum that raises on the curves the views draw, Downsample, Average,
Alpha, Points, Grid).  Those are taken out; a plot's menu holds:

- "View all" (the whole data range), or the view's own "Reset view" in its
  place (:func:`inspector.ui.plots.navigation.add_reset_action`);
- "Show grid" (checkable; on by default);
- "Log y axis" (checkable) in views that offer it (:attr:`PlotView.offers_log_y`),
  enabled only while every plotted value is positive (a logarithm of zero or of a
  negative value is not drawn);
- the export entries of :mod:`inspector.ui.plot_export`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtGui import QAction

#: Object names of the menu's own entries (tests and :func:`add_reset_action` find them).
VIEW_ALL = "view-all"
GRID = "show-grid"
LOG_Y = "log-y"
#: The grid's opacity when shown.
GRID_ALPHA = 0.2


def strip_pyqtgraph_entries(view: Any) -> None:
    """Take pyqtgraph's entries out of ``view``'s plot menus: the view box's panels and
    the plot item's "Plot Options" (which pyqtgraph appends to every menu shown)."""
    menu = view.plot_item.vb.menu
    for action in list(menu.actions()):
        menu.removeAction(action)
    view.plot_item.setMenuEnabled(False, enableViewBoxMenu=None)
    view.plot_widget.scene().contextMenu = []  # pyqtgraph's own export dialog entry


def positive_data(view: Any) -> bool:
    """True when ``view`` plots at least one finite value and all of them are > 0."""
    seen = False
    for _name, _x, y in view.curves():
        finite = y[np.isfinite(y)]
        if finite.size and float(finite.min()) <= 0.0:
            return False
        seen = seen or bool(finite.size)
    return seen


def install_plot_menu(view: Any) -> None:
    """Give ``view`` (a :class:`~inspector.ui.plots.base.PlotView`) the menu described above,
    without the export entries (:func:`inspector.ui.plot_export.install_export_menu` adds them)."""
    strip_pyqtgraph_entries(view)
    menu = view.plot_item.vb.menu
    view_all = QAction("View all", menu)
    view_all.setObjectName(VIEW_ALL)
    view_all.setToolTip("Show the whole data range")
    view_all.triggered.connect(lambda _checked=False: view.plot_item.vb.autoRange())
    menu.addAction(view_all)
    grid = QAction("Show grid", menu)
    grid.setObjectName(GRID)
    grid.setCheckable(True)
    grid.setChecked(True)
    grid.toggled.connect(lambda on: view.plot_item.showGrid(x=on, y=on, alpha=GRID_ALPHA))
    menu.addAction(grid)
    if getattr(view, "offers_log_y", False):
        log_y = QAction("Log y axis", menu)
        log_y.setObjectName(LOG_Y)
        log_y.setCheckable(True)
        log_y.toggled.connect(lambda on: set_log_y(view, on))
        menu.addAction(log_y)
        menu.aboutToShow.connect(lambda: refresh_log_y(view, log_y))


def set_log_y(view: Any, on: bool) -> None:
    """Show ``view``'s y axis on a log scale (``on``) or a linear one, and fit the data."""
    view.plot_item.setLogMode(x=False, y=on)
    view.plot_item.vb.autoRange()


def refresh_log_y(view: Any, action: QAction) -> None:
    """Enable "Log y axis" only while every plotted value is positive (an axis on a log
    scale stays switchable back)."""
    action.setEnabled(action.isChecked() or positive_data(view))


def menu_action(view: Any, name: str) -> QAction | None:
    """The entry of ``view``'s plot menu with object name ``name`` (None if absent)."""
    for action in view.plot_item.vb.menu.actions():
        if action.objectName() == name:
            return action
    return None
