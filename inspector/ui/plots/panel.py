"""The plot area of a document tab: picks the right view for an array."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from inspector.formats.document import Document
from inspector.jobs import JobRunner
from inspector.ui.plots.auc import AucView
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.neural import NeuralView
from inspector.ui.plots.patterns import PatternView

#: ``doc.extra`` keys holding trial markers (sample positions).
MARKER_KEYS = ("trial_starts", "trial_ends", "vision_onsets")
#: Array names that belong to an AUC experiment.
AUC_ARRAYS = ("radius", "signal", "mask")


class PlotPanel(QWidget):
    """A plot of one array of a document, read lazily on background jobs.

    ``show_array(name)`` chooses the view:

    - AUC arrays (``radius``/``signal``/``mask``, with ``doc.extra["experiment"]``
      or the three arrays): :class:`AucView`, every scan overlaid;
    - ``data_mode`` ``"patterns"`` (``ref.attrs``): :class:`PatternView` heatmap;
    - 3-D arrays (epochs) and 1-D/2-D arrays (continuous): :class:`NeuralView`.

    Args:
        doc: the opened document (``arrays``, ``extra``).
        jobs: the runner that executes every read.
        parent: Qt parent widget.

    Attributes:
        view: the current :class:`PlotView` (None before ``show_array``).
    """

    def __init__(self, doc: Document, jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.jobs = jobs
        self.current: str | None = None
        self.view: PlotView | None = None
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        self._message = QLabel("Select an array to plot.")
        self._message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._lay.addWidget(self._message)

    def _set_view(self, view: QWidget) -> None:
        if self.view is not None:
            self._lay.removeWidget(self.view)
            self.view.deleteLater()
        self._message.hide()
        self.view = view
        self._lay.addWidget(view, 1)

    def message(self) -> str:
        return self._message.text() if self._message.isVisible() or self.view is None else ""

    def show_array(self, name: str) -> None:
        """Plot ``doc.arrays[name]`` (an unknown name shows a message)."""
        self.current = name
        ref = self.doc.arrays.get(name)
        exp = self.doc.extra.get("experiment")
        if name in AUC_ARRAYS and (exp is not None or all(a in self.doc.arrays for a in ("radius", "signal"))):
            self._show_auc(exp)
            return
        if ref is None:
            if self.view is not None:
                self.view.hide()
            self._message.setText(f"No array named {name!r} in {self.doc.name}.")
            self._message.show()
            return
        mode = str(ref.attrs.get("data_mode") or self.doc.summary.get("data_mode") or "")
        if mode == "patterns" and ref.ndim == 2:
            self._set_view(PatternView(ref, self.jobs))
            return
        markers = {k: self.doc.extra[k] for k in MARKER_KEYS if self.doc.extra.get(k) is not None}
        if ref.ndim <= 3:
            self._set_view(NeuralView(ref, self.jobs, markers))
            return
        self._message.setText(f"{name}: {ref.ndim}-D arrays are not plotted (shape {tuple(ref.shape)}).")
        self._message.show()

    def _auc_view(self, *args: Any) -> None:
        try:
            self._set_view(AucView(*args))
        except (ValueError, TypeError) as exc:  # damaged arrays: say why, never guess
            self._message.setText(f"cannot plot the scans: {exc} (see Findings)")
            self._message.show()

    def _show_auc(self, exp: Any) -> None:
        if exp is not None:
            self._auc_view(exp.radius, exp.signal, exp.mask, list(exp.scan_ids),
                           exp.radius_unit, exp.signal_unit)
            return
        arrays = self.doc.arrays

        def work(ctx):
            radius = arrays["radius"].read()
            signal = arrays["signal"].read()
            mask = arrays["mask"].read() if "mask" in arrays else None
            return radius, signal, mask

        def done(res):
            radius, signal, mask = res
            n = np.asarray(signal).shape[0] if np.asarray(signal).ndim == 2 else 1
            ids = list(self.doc.summary.get("scan_ids") or [f"scan {i + 1}" for i in range(n)])
            self._auc_view(radius, signal, mask, ids,
                           str(self.doc.summary.get("radius_unit") or ""),
                           str(self.doc.summary.get("signal_unit") or ""))

        def failed(message, tb):
            self._message.setText(f"cannot read the scans: {message}")
            self._message.show()

        self.jobs.submit(work, on_done=done, on_error=failed, key=f"auc:{id(self)}")
