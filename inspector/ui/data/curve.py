"""A curve of a node: one line along the x axis, or several lines of a 2-D slice.

Real numbers of a dataset that the format offers as an
:class:`~inspector.formats.analysis.arrays.ArrayRef` (``NodeData.array_ref()``) are drawn
from :meth:`ArrayRef.envelope` of the visible range at the plot's pixel width,
so a 10^8-sample dataset plots lazily (chunk summaries on HDF5).  Other
numeric columns (a compound field, an attribute, booleans, complex parts) are
read with a stride of about two samples per pixel, and the status line says
so.  Panning or zooming asks again after :data:`DEBOUNCE_MS` on one keyed job.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QWidget

from inspector.formats.analysis.arrays import ArrayRef, Envelope
from inspector.formats.nodes.data import ColumnKind, ColumnSpec, NodeData
from inspector.jobs import JobContext, JobRunner
from inspector.ui.data.reading import ReadFailure, guarded, read_values
from inspector.ui.data.slicing import SliceState
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.navigation import fit_legend_columns, legend_below

#: Lines drawn at once from a 2-D slice (from the chosen position on).
MAX_LINES = 16
DEBOUNCE_MS = 80
#: Parts of a complex number that can be plotted.
COMPONENTS = ("real", "imaginary", "magnitude", "phase")
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22"]


def as_real(values: np.ndarray, kind: ColumnKind, part: str = "real") -> np.ndarray:
    """float64 values to plot: a part of complex numbers, booleans as 0/1."""
    a = np.asarray(values)
    if kind == ColumnKind.COMPLEX:
        parts: dict[str, Callable[[np.ndarray], np.ndarray]] = {
            "real": np.real, "imaginary": np.imag, "magnitude": np.abs, "phase": np.angle}
        fn = parts[part]
        return np.asarray(fn(a), dtype=np.float64)
    return a.astype(np.float64)


def zigzag(env: Envelope) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` through the bin minima and maxima (raw samples when zoomed in)."""
    if env.raw:
        return env.x.astype(np.float64), np.asarray(env.lo, dtype=np.float64)
    c = env.centers()
    y = np.empty(2 * len(env))
    y[0::2], y[1::2] = env.lo, env.hi
    return np.repeat(c, 2), y


class CurveView(PlotView):
    """Lines of one numeric column along the state's x axis.

    Args:
        node: the node; ``spec`` one of its numeric columns; ``part`` the part
            of complex numbers plotted.
        state: the x axis, the axis drawn as lines (or None) and the fixed positions.
    """

    x_label = "index"
    offers_log_y = True

    def __init__(self, node: NodeData, state: SliceState, spec: ColumnSpec, part: str,
                 jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.node, self.state, self.spec, self.part, self.jobs = node, state, spec, part, jobs
        shape = node.shape or ()
        self.n = shape[state.x] if shape else 1
        self.ref: ArrayRef | None = None
        if len(node.columns) == 1 and spec.kind == ColumnKind.NUMBER:
            self.ref = node.array_ref()
        self.line_positions = self._line_positions()
        self.y_label = spec.label if spec.name else node.name
        self.plot_item.setLabel("bottom", f"axis {state.x}")
        self.plot_item.setLabel("left", self.y_label if spec.kind != ColumnKind.COMPLEX
                                else f"{self.y_label} ({part})")
        self.items: list[pg.PlotDataItem] = []
        legend = None
        if len(self.line_positions) > 1:  # in a row under the axis: it never covers a line
            legend = legend_below(self.plot_item, self.palette().color(QPalette.ColorRole.Text))
        for k, pos in enumerate(self.line_positions):
            name = f"axis {state.lines} = {pos}" if pos is not None else self.y_label
            item = self.plot_item.plot([], [], pen=pg.mkPen(PALETTE[k % len(PALETTE)]),
                                       connect="finite")
            item.opts["name"] = name  # (named after: pyqtgraph would add it to the legend)
            if legend is not None:
                legend.addItem(item, name)
            self.items.append(item)
        if legend is not None:
            fit_legend_columns(self.plot_item, legend)
        self.requests = 0
        self._key = f"curve:{id(self)}"
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.request)
        vb = self.plot_item.vb
        vb.enableAutoRange(axis="y")
        vb.setAutoVisible(y=True)
        self.plot_item.setXRange(0, max(1, self.n - 1), padding=0.02)
        vb.sigXRangeChanged.connect(lambda *_a: self._timer.start())
        self._shown: tuple[int, int, int] | None = None
        self.busy = False
        self.request()

    def job_keys(self) -> tuple[str, ...]:
        return (self._key,)

    def _line_positions(self) -> list[int | None]:
        st, shape = self.state, self.node.shape or ()
        if st.lines is None or not shape:
            return [None]
        first = st.index[st.lines]
        return list(range(first, min(shape[st.lines], first + MAX_LINES)))

    def _index(self, line: int | None) -> list[Any]:
        st = self.state
        idx: list[Any] = list(st.index)
        idx[st.x] = None
        if st.lines is not None and line is not None:
            idx[st.lines] = line
        return idx

    def visible_range(self) -> tuple[int, int, int]:
        """``(start, stop, pixels)`` of the x range shown, clipped to the axis."""
        (x0, x1), _ = self.plot_item.vb.viewRange()
        start = max(0, int(math.floor(x0)))
        stop = min(self.n, int(math.ceil(x1)) + 1)
        width = int(self.plot_item.vb.width()) or 800
        return start, max(start + 1, stop), max(100, width)

    def request(self) -> None:
        """Ask for the lines of the visible range (one keyed job; a newer one replaces it)."""
        if not self.node.shape:
            self.show_placeholder("A scalar has no curve: see the table.")
            return
        start, stop, bins = self.visible_range()
        if self._shown == (start, stop, bins):
            return
        self._shown = (start, stop, bins)
        self.requests += 1
        self.busy = True
        work = self._envelopes if self.ref is not None else self._strided
        self.jobs.submit(lambda ctx: guarded(lambda: work(ctx, start, stop, bins)),
                         on_done=self._drawn, on_error=self._failed, key=self._key)

    def _failed(self, message: str, _tb: str) -> None:
        self.busy = False
        self.status.setText(f"cannot draw: {message}")

    def is_idle(self) -> bool:
        """The lines of the range shown are drawn (nothing read or waiting)."""
        return not (self.busy or self._timer.isActive())

    def _envelopes(self, ctx: JobContext, start: int, stop: int, bins: int) -> Any:
        assert self.ref is not None
        out, exact, raw = [], True, True
        for line in self.line_positions:
            env = self.ref.envelope(tuple(self._index(line)), start, stop, bins,
                                    cancelled=lambda: ctx.cancelled)
            out.append(zigzag(env))
            exact &= env.exact
            raw &= env.raw
        what = "every sample" if raw else ("min/max per pixel" if exact
                                           else "min/max per pixel, sampled (not exact)")
        return out, f"{stop - start:,} of {self.n:,} samples: {what}"  # as _strided says it

    def _strided(self, _ctx: JobContext, start: int, stop: int, bins: int) -> Any:
        step = max(1, -(-(stop - start) // (2 * bins)))
        sel: list[Any] = list(self.state.index)
        sel[self.state.x] = slice(start, stop, step)
        lines = self.line_positions
        first, last = lines[0], lines[-1]
        if self.state.lines is not None and first is not None and last is not None:
            sel[self.state.lines] = slice(first, last + 1)
        got = read_values(self.node, tuple(sel))
        if isinstance(got, ReadFailure):
            return got
        y = as_real(got.column(self.spec.name).values, self.spec.kind, self.part)
        if self.state.lines is not None and lines[0] is not None:
            if self.state.lines < self.state.x:
                y = y.T
        else:
            y = y.reshape(-1, 1)
        x = np.arange(start, stop, step, dtype=np.float64)
        out = [(x, y[:, k]) for k in range(y.shape[1])]
        how = "every sample" if step == 1 else f"every {step}th sample (extremes may be missed)"
        return out, f"{stop - start:,} of {self.n:,} samples: {how}"

    def _drawn(self, result: Any) -> None:
        self.busy = False
        if isinstance(result, ReadFailure):
            self.show_placeholder(f"Cannot read the values: {result.message}")
            return
        lines, text = result
        for item, (x, y) in zip(self.items, lines, strict=False):
            y = np.where(np.isfinite(y), y, np.nan)
            item.setData(x, y, connect="finite")
        self.status.setText(text)
