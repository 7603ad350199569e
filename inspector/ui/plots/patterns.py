"""Heatmap of a ``patterns`` array ``(rows, features)`` with a colour bar."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from inspector.formats.analysis.arrays import ArrayRef
from inspector.jobs import JobRunner
from inspector.ui.plots.heat_map import HeatMapView
from inspector.ui.plots.view_request import ArrayView, ViewRequest

#: Rows x features drawn at most; taller arrays are shown every k-th row.
MAX_PIXELS = 4_000_000


def read_image(ref: ArrayRef, max_pixels: int = MAX_PIXELS) -> tuple[np.ndarray, int]:
    """float64 ``(rows', features)`` image of a 2-D ref and the row step used.

    Non-finite values become NaN (drawn transparent).  Arrays with more than
    ``max_pixels`` values are read every ``step``-th row.
    """
    rows, cols = (int(ref.shape[0]), int(ref.shape[1])) if ref.ndim == 2 else (1, int(ref.shape[0]))
    step = max(1, int(np.ceil(rows * cols / max_pixels)))
    if ref.ndim == 2:
        img = ref.read((slice(0, rows, step), slice(None)))
    else:
        img = ref.read(Ellipsis).reshape(1, -1)
    img = np.asarray(img, dtype=np.float64)
    img[~np.isfinite(img)] = np.nan
    return img, step


class PatternView(HeatMapView):
    """Rows on y, features on x, values coloured (viridis) with a colour bar.

    Each cell is centred on its row and feature index, so that the axes'
    integer ticks name cells, not the boundaries between them.
    """

    x_label = "feature"
    y_label = "row"

    def __init__(self, ref: ArrayRef, jobs: JobRunner, parent: QWidget | None = None,
                 plot_widget: pg.PlotWidget | None = None) -> None:
        super().__init__(ref, jobs, parent, plot_widget)
        self.plot_item.setLabel("bottom", "feature")
        self.plot_item.setLabel("left", "row")
        self.start_read(lambda: read_image(ref))

    def job_keys(self) -> tuple[str, ...]:
        """The key of this view's image read (see :meth:`PlotView.job_keys`)."""
        return (f"image:{id(self)}",)

    def image_read(self, img: np.ndarray) -> None:
        lo, hi = self.draw_heat_map(img)
        note = f", every {self.step}th row" if self.step > 1 else ""
        self.status.setText(f"{img.shape[0]:,} × {img.shape[1]:,}{note}; "
                            f"range {lo:.4g} … {hi:.4g}")

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        return []

    def export_csv(self, path: Any) -> int:
        """Write the drawn image as CSV: one line per row, one column per feature."""
        if self.image is None:
            return 0
        np.savetxt(path, self.image, delimiter=",", fmt="%.9g",
                   header=",".join(f"f{i}" for i in range(self.image.shape[1])), comments="")
        return int(self.image.shape[0])


# -- its place in the view registry (inspector.ui.plots.registry) ---------------------
def _patterns_priority(r: ViewRequest) -> int | None:
    trials = r.doc.trials
    patterns = trials is not None and trials.data_mode == "patterns"
    return 20 if patterns and r.ref is not None and r.ref.ndim == 2 else None


def _make_patterns(r: ViewRequest) -> PatternView:
    assert r.ref is not None
    return PatternView(r.ref, r.jobs, plot_widget=r.plot_widget)


PATTERNS = ArrayView("patterns heat map", _patterns_priority, _make_patterns)
