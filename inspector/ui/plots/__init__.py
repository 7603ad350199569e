"""Lazy plots of document arrays.

:class:`PlotPanel` is the entry point used by the document tab:
``PlotPanel(doc, jobs, parent=None)`` then ``panel.show_array(name)``.
The views: :class:`NeuralView` (continuous and epochs, lazy envelopes),
:class:`PatternView` (heatmap), :class:`AucView` (scans).
"""

from inspector.ui.plots.auc import AucView
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.neural import NeuralView
from inspector.ui.plots.panel import PlotPanel
from inspector.ui.plots.patterns import PatternView

__all__ = ["AucView", "NeuralView", "PatternView", "PlotPanel", "PlotView"]
