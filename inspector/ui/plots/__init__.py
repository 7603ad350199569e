"""Lazy plots of document arrays (issue 6).

:class:`PlotPanel` is the entry point used by the document tab:
``PlotPanel(doc, jobs, parent=None)`` then ``panel.show_array(name)``.
The views: :class:`NeuralView` (continuous and epochs, lazy envelopes),
:class:`PatternView` (heatmap), :class:`AucView` (scans).
"""

import sys

from inspector.ui.plots.auc import AucView
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.neural import NeuralView
from inspector.ui.plots.panel import PlotPanel
from inspector.ui.plots.patterns import PatternView

__all__ = ["AucView", "NeuralView", "PatternView", "PlotPanel", "PlotView"]

#: PySide6 6.12 on Python < 3.12 drops a reference to ``True``/``None`` on
#: many calls (signal emits with object arguments, ``QGraphicsItem.update``,
#: ``QWidget.grab``): measured with ``sys.getrefcount``.  Python 3.12+ makes
#: these objects immortal; on 3.11 their count reaches zero after a few
#: thousand plot updates and the interpreter aborts ("bool_dealloc").  Holding
#: extra references, in a list that is itself never freed (not even at
#: interpreter shutdown), postpones that far beyond a session (~10 MB).
if sys.version_info < (3, 12):
    import ctypes

    _REFCOUNT_GUARD = [True, False, None] * 400_000
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(_REFCOUNT_GUARD))
