"""Plots follow the palette: background, axes, grid, legend and the view's own colours.

A plot view built in one theme keeps pyqtgraph colours it was given at
construction; after a theme switch (View > Theme, or the system's light/dark
switch) Qt sends each widget a palette-change event and
:class:`inspector.ui.plots.base.PlotView` calls :func:`follow_palette`,
which restyles the plot from the widget's current palette and then calls
the view's ``palette_changed()`` hook if it has one (the AUC view recolours
its scans for the new background).
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QWidget

_R = QPalette.ColorRole


def follow_palette(view: QWidget) -> None:
    """Restyle ``view``'s plot (``view.plot_widget``, ``view.plot_item``) from its palette."""
    widget: Any = getattr(view, "plot_widget", None)
    item: Any = getattr(view, "plot_item", None)
    if widget is None or item is None:
        return
    palette = view.palette()
    text = palette.color(_R.Text)
    widget.setBackground(palette.color(_R.Base))
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(text))
        axis.setTextPen(pg.mkPen(text))  # also recolours the axis label
    legend = item.legend
    if legend is not None:
        box = palette.color(_R.Base)
        box.setAlpha(200)
        legend.setBrush(pg.mkBrush(box))
        legend.setPen(pg.mkPen(palette.color(_R.Mid)))
        legend.setLabelTextColor(text)
    hook = getattr(view, "palette_changed", None)
    if callable(hook):
        hook()
