"""Heatmap of a ``patterns`` array ``(rows, features)`` with a colour bar."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from inspector.formats.analysis.arrays import ArrayRef
from inspector.jobs import JobRunner
from inspector.ui.colormaps import colormap
from inspector.ui.plots.base import PlotView, ReadFailed, read_or_failure

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


class PatternView(PlotView):
    """Rows on y, features on x, values coloured (viridis) with a colour bar.

    Each cell is centred on its row and feature index, so that the axes'
    integer ticks name cells, not the boundaries between them.
    """

    x_label = "feature"
    y_label = "row"

    def __init__(self, ref: ArrayRef, jobs: JobRunner, parent: QWidget | None = None,
                 plot_widget: pg.PlotWidget | None = None) -> None:
        super().__init__(parent, plot_widget)
        self.ref = ref
        self.jobs = jobs
        self.image: np.ndarray | None = None
        self.step = 1
        self.img_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.img_item)
        self.plot_item.setLabel("bottom", "feature")
        self.plot_item.setLabel("left", "row")
        self.plot_item.invertY(True)
        self.plot_item.showGrid(x=False, y=False)
        self.colorbar: pg.ColorBarItem | None = None
        self._reading = False
        if ref.size == 0:
            self.show_placeholder(
                f"{ref.name}: empty array (shape {tuple(ref.shape)}): nothing to plot")
            return
        self.status.setText("reading…")
        self._reading = True
        jobs.submit(lambda ctx: read_or_failure(ref, lambda: read_image(ref)),
                    on_done=self._show, on_error=self._failed,
                    key=self.job_keys()[0])

    def job_keys(self) -> tuple[str, ...]:
        """The key of this view's image read (see :meth:`PlotView.job_keys`)."""
        return (f"image:{id(self)}",)

    def is_idle(self) -> bool:
        """True once the image was read (or could not be)."""
        return not self._reading

    def _failed(self, message: str, tb: str) -> None:
        self._reading = False
        self.show_placeholder(f"cannot read {self.ref.name}: {message}")

    def _show(self, result: Any) -> None:
        if isinstance(result, ReadFailed):
            self._failed(result.message, "")
            self.report(result)
            return
        img, step = result
        self._reading = False
        self.image, self.step = img, step
        finite = img[np.isfinite(img)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if hi <= lo:
            hi = lo + 1.0
        self.img_item.setImage(img, levels=(lo, hi), autoLevels=False)
        # cell (row r, feature f) is centred on (f, r): the integer ticks name cells
        self.img_item.setRect(-0.5, -0.5 * step, img.shape[1], img.shape[0] * step)
        cmap = colormap("viridis")
        self.colorbar = pg.ColorBarItem(values=(lo, hi), colorMap=cmap, interactive=True,
                                        label=str(self.ref.attrs.get("unit", "value")))
        self.colorbar.setImageItem(self.img_item, insert_in=self.plot_item)
        self.plot_item.vb.autoRange(padding=0)
        note = f", every {step}th row" if step > 1 else ""
        self.status.setText(f"{img.shape[0]:,} × {img.shape[1]:,}{note}; range {lo:.4g} … {hi:.4g}")

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        return []

    def export_csv(self, path: Any) -> int:
        """Write the drawn image as CSV: one line per row, one column per feature."""
        if self.image is None:
            return 0
        np.savetxt(path, self.image, delimiter=",", fmt="%.9g",
                   header=",".join(f"f{i}" for i in range(self.image.shape[1])), comments="")
        return int(self.image.shape[0])
