"""An image of a 2-D slice of a node, downsampled to the screen by a strided read.

The rows and columns sampled come from
:func:`~inspector.formats.nodes.image_plan.image_plan`: about one sample per screen
pixel, with steps widened to whole chunks when that would decode too many
chunks of a chunked dataset (the status line then says the image is coarse).
A first image decodes at most
:data:`~inspector.formats.nodes.data.IMAGE_FIRST_BYTES`; when it is coarse, a
second read refines it within
:data:`~inspector.formats.nodes.image_plan.IMAGE_BUDGET_BYTES`.  Zooming in reads
the visible region again at screen resolution after :data:`DEBOUNCE_MS`.  A colour
bar beside the image sets the levels; the colour map is chosen in a box.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QTimer
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QWidget

from inspector.formats.nodes.data import ColumnSpec, NodeData
from inspector.formats.nodes.image_plan import (
    IMAGE_BUDGET_BYTES,
    IMAGE_FIRST_BYTES,
    ImagePlan,
    image_plan,
)
from inspector.jobs import JobRunner
from inspector.ui.colormaps import colormap
from inspector.ui.data.curve import as_real
from inspector.ui.data.reading import ReadFailure, read_values
from inspector.ui.data.slicing import SliceState
from inspector.ui.plots.base import PlotView

#: Colour maps offered (pyqtgraph ships them).
COLOUR_MAPS = ("viridis", "magma", "inferno", "plasma", "cividis", "CET-L1", "CET-D1", "turbo")
DEBOUNCE_MS = 150


def finite_levels(a: np.ndarray) -> tuple[float, float]:
    """``(low, high)`` over the finite values (``(0, 1)`` when there is none)."""
    finite = a[np.isfinite(a)]
    if finite.size == 0:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    return (lo, hi) if hi > lo else (lo - 0.5, hi + 0.5)


def rgb_axis(node: NodeData, state: SliceState) -> int | None:
    """The axis of a 3-D ``uint8`` node holding 3 or 4 colour components (the one axis
    shown neither as rows nor as columns), else None: such an array is a picture."""
    shape = node.shape or ()
    try:
        byte = np.dtype(getattr(node.type, "numpy", "") or "V").kind == "u" \
            and np.dtype(node.type.numpy).itemsize == 1
    except TypeError:
        byte = False
    if len(shape) != 3 or state.cols is None or not byte:
        return None
    other = ({0, 1, 2} - {state.rows, state.cols}).pop()
    return other if shape[other] in (3, 4) else None


class ImageView(PlotView):
    """The image of one numeric column over the state's rows and columns.

    Attributes:
        plan: the sampling of the image shown (None before the first read).
        image: the float64 image shown (rows x columns).
    """

    x_label = "column"
    y_label = "row"

    def __init__(self, node: NodeData, state: SliceState, spec: ColumnSpec, part: str,
                 jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.node, self.state, self.spec, self.part, self.jobs = node, state, spec, part, jobs
        assert state.cols is not None and node.shape is not None
        self.n_rows, self.n_cols = node.shape[state.rows], node.shape[state.cols]
        self.plan: ImagePlan | None = None
        self.image: np.ndarray | None = None
        self.requests = 0
        self._key = f"image:{id(self)}"
        self.item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.item)
        self.plot_item.vb.invertY(True)
        self.plot_item.setLabel("bottom", f"axis {state.cols}")
        self.plot_item.setLabel("left", f"axis {state.rows}")
        self.bar = pg.ColorBarItem(values=(0, 1), colorMap=colormap("viridis"),
                                   interactive=True, width=16)
        self.bar.setImageItem(self.item, insert_in=self.plot_item)
        row = QHBoxLayout()
        row.addWidget(QLabel("Colour map:"))
        self.cmap = QComboBox()
        self.cmap.addItems(COLOUR_MAPS)
        self.cmap.setAccessibleName("Colour map")
        self.cmap.currentTextChanged.connect(self.set_colour_map)
        row.addWidget(self.cmap)
        self.rgb_axis = rgb_axis(node, state)
        self.rgb = QCheckBox("RGB")
        self.rgb.setToolTip("Show the colour axis as red, green, blue (alpha) of each pixel")
        self.rgb.setVisible(self.rgb_axis is not None)
        self.rgb.setChecked(self.rgb_axis is not None)  # a (H, W, 3) uint8 array is a picture
        self.rgb.toggled.connect(self._rgb_toggled)
        row.addWidget(self.rgb)
        row.addStretch(1)
        self.controls.addLayout(row)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.request_visible)
        self.plot_item.vb.setRange(QRectF(0, 0, self.n_cols, self.n_rows), padding=0.01)
        self.plot_item.vb.sigRangeChanged.connect(lambda *_a: self._timer.start())
        self._asked: tuple[range, range, int] | None = None
        self.busy = False
        self.request(range(self.n_rows), range(self.n_cols))

    def job_keys(self) -> tuple[str, ...]:
        return (self._key,)

    def _rgb_toggled(self, _on: bool) -> None:
        self.plan, self._asked = None, None
        self.request_visible()

    def set_colour_map(self, name: str) -> None:
        """Use the pyqtgraph colour map ``name`` for the image and its bar."""
        self.bar.setColorMap(colormap(name))

    def _pixels(self) -> tuple[int, int]:
        vb = self.plot_item.vb
        return max(64, int(vb.height()) or 600), max(64, int(vb.width()) or 800)

    def request_visible(self) -> None:
        """Read the visible region again when it needs another sampling."""
        (x0, x1), (y0, y1) = self.plot_item.vb.viewRange()
        rows = range(max(0, math.floor(y0)), min(self.n_rows, math.ceil(y1)))
        cols = range(max(0, math.floor(x0)), min(self.n_cols, math.ceil(x1)))
        if len(rows) and len(cols):
            self.request(rows, cols)

    def request(self, rows: range, cols: range, refine: bool = False) -> None:
        """Sample ``rows x cols`` at screen resolution on a keyed job (a quick first
        image; ``refine``: the second, within the full budget)."""
        budget = IMAGE_BUDGET_BYTES if refine else IMAGE_FIRST_BYTES
        if self._asked == (rows, cols, budget):
            return
        self._asked = (rows, cols, budget)
        st, node = self.state, self.node
        assert st.cols is not None
        plan = image_plan(rows, cols, self._pixels(), node.storage.chunks, (st.rows, st.cols),
                          max(1, node.type.size), budget=budget)
        if self.plan is not None and plan.rows == self.plan.rows and plan.cols == self.plan.cols:
            return
        sel: list[Any] = list(st.index)
        sel[st.rows] = slice(plan.rows.start, plan.rows.stop, plan.rows.step)
        sel[st.cols] = slice(plan.cols.start, plan.cols.stop, plan.cols.step)
        colour = self.rgb_axis if self.rgb.isChecked() else None
        if colour is not None:
            sel[colour] = slice(None)
        self.requests += 1
        spec, part, transpose = self.spec, self.part, st.rows > st.cols
        order = [a for a in sorted((st.rows, st.cols, colour)) if a is not None] \
            if colour is not None else []

        def work(_ctx: Any) -> Any:
            got = read_values(node, tuple(sel))
            if isinstance(got, ReadFailure):
                return got
            img = as_real(got.column(spec.name).values, spec.kind, part)
            if order:  # rows, columns, colour
                img = np.transpose(img, [order.index(a) for a in (st.rows, st.cols, colour)
                                         if a is not None])  # (colour is not None here)
                return plan, img, (rows, cols, refine)
            return plan, (img.T if transpose else img), (rows, cols, refine)

        self.busy = True
        self.jobs.submit(work, on_done=self._drawn, on_error=self._failed, key=self._key)

    def _failed(self, message: str, _tb: str) -> None:
        self.busy = False
        self.status.setText(f"cannot draw: {message}")

    def is_idle(self) -> bool:
        """The image of the region shown is drawn (nothing read or waiting)."""
        return not (self.busy or self._timer.isActive())

    def _drawn(self, result: Any) -> None:
        self.busy = False
        if isinstance(result, ReadFailure):
            self.show_placeholder(f"Cannot read the values: {result.message}")
            return
        plan, img, (rows, cols, refined) = result
        self.plan, self.image = plan, img
        colour = img.ndim == 3
        lo, hi = (0.0, 255.0) if colour else finite_levels(img)
        shown = np.where(np.isfinite(img), img, np.nan) if not colour else img
        self.item.setImage(shown, autoLevels=False, levels=(lo, hi))
        self.bar.setVisible(not colour)
        self.cmap.setEnabled(not colour)
        sr, sc = plan.cell
        top = plan.rows.start - sr // 2
        left = plan.cols.start - sc // 2
        self.item.setRect(QRectF(left, top, len(plan.cols) * sc, len(plan.rows) * sr))
        if not colour:
            self.bar.setLevels((lo, hi))
        every = "every element" if (sr, sc) == (1, 1) else f"every {sr}×{sc} elements"
        coarse = (" — coarse: reading every pixel would decode too many chunks; zoom in "
                  "for detail") if plan.coarse else ""
        self.status.setText(f"{img.shape[0]:,}×{img.shape[1]:,} samples of "
                            f"{self.n_rows:,}×{self.n_cols:,}, {every}; "
                            f"≈{plan.touched_bytes / 1e6:.1f} MB decoded{coarse}")
        if plan.coarse and not refined:
            self.request(rows, cols, refine=True)
