"""A view that reads one array on a job and draws it as a heat map with a colour bar.

:class:`~inspector.ui.plots.patterns.PatternView` (rows x features) and
:class:`~inspector.ui.plots.features.FeatureView` (stimuli x features) share it: the
read on a job, a read that fails because of the file (its text instead of the plot,
its finding to the document), and the heat map itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from inspector.formats.analysis.arrays import ArrayRef
from inspector.jobs import JobRunner
from inspector.ui.colormaps import colormap
from inspector.ui.plots.base import PlotView, ReadFailed, read_or_failure

#: ``read() -> (image, step)``: float64 ``(rows', columns)`` values (NaN where not
#: finite) and the rows of the array per drawn row; run on a job.
ImageRead = Callable[[], tuple[np.ndarray, int]]


class HeatMapView(PlotView):
    """Reads ``ref`` with :meth:`start_read` and draws it (:meth:`draw_heat_map`).

    Attributes:
        ref: the array shown; jobs: runs its read.
        image: the values drawn, ``(rows', columns)`` float64 (None until read).
        step: rows of the array per drawn row.
        img_item: the heat map (row-major, rows downwards); colorbar: its colour bar.
    """

    def __init__(self, ref: ArrayRef, jobs: JobRunner, parent: QWidget | None = None,
                 plot_widget: pg.PlotWidget | None = None) -> None:
        super().__init__(parent, plot_widget)
        self.ref, self.jobs = ref, jobs
        self.image: np.ndarray | None = None
        self.step = 1
        self._reading = False
        self.img_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.img_item)
        self.plot_item.invertY(True)
        self.plot_item.showGrid(x=False, y=False)
        self.colorbar: pg.ColorBarItem | None = None

    def is_idle(self) -> bool:
        """True once the values were read (or could not be)."""
        return not self._reading

    def start_read(self, read: ImageRead) -> None:
        """Read the image with ``read`` on a job (key: the first of :meth:`job_keys`); an
        empty or 0-d array says so instead."""
        ref = self.ref
        if ref.size == 0 or ref.ndim == 0:
            self.show_placeholder(f"{ref.name}: empty array (shape {tuple(ref.shape)}): "
                                  "nothing to plot")
            return
        self.status.setText("reading…")
        self._reading = True
        self.jobs.submit(lambda ctx: read_or_failure(ref, read),
                         on_done=self._show, on_error=self._failed, key=self.job_keys()[0])

    def _failed(self, message: str, tb: str) -> None:
        self._reading = False
        self.show_placeholder(f"cannot read {self.ref.name}: {message}")

    def _show(self, result: Any) -> None:
        if isinstance(result, ReadFailed):
            self._failed(result.message, "")
            self.report(result)
            return
        self._reading = False
        self.image, self.step = result
        self.image_read(self.image)

    def image_read(self, img: np.ndarray) -> None:
        """The image was read (:attr:`image`, :attr:`step`): draw it (subclasses)."""
        raise NotImplementedError

    def draw_heat_map(self, img: np.ndarray) -> tuple[float, float]:
        """Draw ``img`` with a viridis colour bar over its finite range; cell (row r,
        column f) is centred on ``(f, r * step)``, so that the integer ticks name cells.
        Returns the range ``(lo, hi)`` (``hi > lo``)."""
        finite = img[np.isfinite(img)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        hi = hi if hi > lo else lo + 1.0
        self.img_item.setImage(img, levels=(lo, hi), autoLevels=False)
        self.img_item.setRect(-0.5, -0.5 * self.step, img.shape[1], img.shape[0] * self.step)
        self.colorbar = pg.ColorBarItem(values=(lo, hi), colorMap=colormap("viridis"),
                                        interactive=True,
                                        label=str(self.ref.attrs.get("unit") or "value"))
        self.colorbar.setImageItem(self.img_item, insert_in=self.plot_item)
        self.plot_item.vb.autoRange(padding=0)
        return lo, hi
