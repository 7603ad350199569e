"""How an AUC plot draws its scans: the two line layers, the symbols, pens and colours.

:class:`AucDrawing` is the first layer of :class:`~inspector.ui.plots.auc.AucView`
(see its module docstring): it hands the lines built on a job to the two
:class:`~inspector.ui.plots.raster_layer.RasterLayer` objects, draws symbols
when few points are in view, gives auto-range the data's extent, and holds the
scans' colours and pens.

An experiment of more scans than :data:`MAX_DRAWN_SCANS` draws every ``k``-th
scan and the selected ones (:func:`~inspector.formats.analysis.scan_rows.drawn_rows`;
the status line says so): the lines, pens and pixels held are those of the
drawn scans (``_rows``, ascending), whatever the number of scans.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainterPath, QPalette, QPen

from inspector.formats.analysis.scan_envelope import ScanEnvelopes, ScanShape
from inspector.formats.analysis.scan_rows import drawn_rows, stride
from inspector.formats.capabilities import AucScans
from inspector.jobs import JobRunner
from inspector.ui.colormaps import colormap
from inspector.ui.plots.auc_colors import ScanColors, scan_cell_codes
from inspector.ui.plots.auc_scans import pens
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.raster_layer import LinePaths, RasterLayer
from inspector.ui.plots.scan_list import ScanList

#: Symbols are drawn when every scan shows its exact points and all scans
#: together have at most this many in range.
MAX_SYMBOL_POINTS = 3000
#: Alpha (of 255) of the scans not selected while others are highlighted.
DIM_ALPHA = 50
#: Highlighted scans are drawn 3 pixels wide when at most this many are
#: selected, else 1 (wide pens cost about ten times as much to draw).
WIDE_HIGHLIGHTS = 16
#: Most scans drawn (every k-th of more), besides at most MAX_SELECTED_DRAWN selected ones.
MAX_DRAWN_SCANS = 1000
MAX_SELECTED_DRAWN = 200
#: Most distinct symbol colours: with more drawn scans, neighbours in scan order share one
#: (pyqtgraph renders a symbol image per brush: 1 000 brushes took 0.2 s).
SYMBOL_COLOURS = 64

#: The scans' colour map, read as the module is imported (off the GUI thread: runtime.preload).
_VIRIDIS = colormap("viridis")


class AucDrawing(PlotView):
    """The line layers, symbols, colours and pens of an AUC plot.

    The attributes declared here are set by :class:`~inspector.ui.plots.auc.AucView`
    (where they are described).
    """

    auc: AucScans
    jobs: JobRunner
    shape: ScanShape
    scan_ids: list[str]
    colors: ScanColors
    scan_list: ScanList
    symbols: pg.ScatterPlotItem
    envelopes: ScanEnvelopes | None
    extent: tuple[float, float] | None
    _shown: np.ndarray
    _symbol_points: list[tuple[np.ndarray, np.ndarray]]
    _bounds: pg.PlotCurveItem

    def _make_layers(self, n: int) -> None:
        """The two line layers, with empty lines until the first result."""
        self._rows = self.wanted_rows(())
        empty = (np.empty(0), np.empty(0))
        self._curves: list[tuple[np.ndarray, np.ndarray]] = [empty] * self._rows.size
        self._paths: LinePaths = LinePaths(self._curves)
        self._plain = pens(self.colors.take(self._rows), 1)
        self._wide_pens: list[QPen] | None = None  # built at the first highlight
        self.lines = RasterLayer(self.jobs)
        self.highlights = RasterLayer(self.jobs, pixels_from=self.lines)
        self.highlights.setZValue(10)
        for layer in (self.lines, self.highlights):
            layer.set_lines(self._paths, self._plain, QRectF(), self._curves, self._curves)

    def _palette_colors(self, n: int) -> ScanColors:
        """Each cell its own hue, its scans light to dark in order; one cell: viridis."""
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        return ScanColors(scan_cell_codes(self.auc, n), dark, _VIRIDIS)

    def wanted_rows(self, selected: Any) -> np.ndarray:
        """The scans to draw with ``selected`` selected (see the module notes)."""
        return drawn_rows(self.shape.scans, selected, MAX_DRAWN_SCANS, MAX_SELECTED_DRAWN)

    def _at(self, i: int) -> int | None:
        """The position of scan ``i`` among the drawn lines, None when it is not drawn."""
        j = int(np.searchsorted(self._rows, i))
        return j if j < self._rows.size and self._rows[j] == i else None

    def _sampled(self) -> str:
        """What the status line says when not every scan is drawn ("" when every one is)."""
        n = self.shape.scans
        if n <= MAX_DRAWN_SCANS:
            return ""
        k = stride(n, MAX_DRAWN_SCANS)
        nth = {1: "st", 2: "nd", 3: "rd"}.get(k % 10 if k % 100 not in (11, 12, 13) else 0,
                                              "th")
        return f"; showing every {k}{nth} scan of {n:,} (select scans to see them)"

    @property
    def ready(self) -> bool:
        """True when what was drawn last is on screen: no line layer still drawing."""
        return not (self.lines.pending or self.highlights.pending)

    # -- drawing ---------------------------------------------------------------------
    def _frame(self, env: ScanEnvelopes) -> None:
        """First result: show all of it and keep pans near the data."""
        vb = self.plot_item.vb
        span = env.r1 - env.r0
        vb.setLimits(xMin=env.r0 - 0.5 * span, xMax=env.r1 + 0.5 * span)
        vb.setXRange(env.r0, env.r1, padding=0)

    def _draw(self, env: ScanEnvelopes, curves: list[tuple[np.ndarray, np.ndarray]],
              paths: LinePaths, extent: QRectF, rows: np.ndarray) -> None:
        self.envelopes = env
        exact = all(p is not None or c == 0 for p, c in zip(env.points, env.counts, strict=True))
        real = int(env.counts.sum())
        self._draw_lines(curves, paths, extent, rows)
        symbols = exact and real <= MAX_SYMBOL_POINTS
        self._symbol_points = list(curves) if symbols else []
        self._draw_symbols()
        self._update_bounds()
        whole = self.extent is None or (env.r0 <= self.extent[0] and env.r1 >= self.extent[1])
        where = "" if whole else " in range"
        if self.shape.scans > MAX_DRAWN_SCANS:  # the envelopes hold the drawn scans alone
            where = " of the scans drawn" + where
        how = "" if exact else ", showing the range of values per screen pixel"
        self.status.setText(f"{self.shape.scans:,} scans, {real:,} measured points{where}{how}"
                            f"{self._sampled()}")

    def _draw_lines(self, curves: list[tuple[np.ndarray, np.ndarray]],
                    paths: LinePaths, extent: QRectF, rows: np.ndarray) -> None:
        """Hand the lines of scans ``rows`` (built on the job's thread) to the two layers."""
        if not np.array_equal(rows, self._rows):
            self._rows = rows
            self._plain, self._wide_pens = pens(self.colors.take(rows), 1), None
        self._curves, self._paths = curves, paths
        self.lines.set_lines(paths, self._plain, extent, curves, token=curves)
        self.highlights.set_lines(paths, self._highlight_pens(self._selected()), extent, curves,
                                  token=curves)  # the same lines: it reuses their pixels
        self._show_lines()

    def _update_bounds(self, *args: Any) -> None:
        """Give auto-range the data's extent (x) and the visible scans' range (y, this view)."""
        env, ext = self.envelopes, self.extent
        if env is None or ext is None:
            self._bounds.setData([], [])
            return
        (x0, x1), _ = self.plot_item.vb.viewRange()
        yr = env.value_range(x0, x1, self._shown[self._rows])
        if yr is None:
            self._bounds.setData([], [])
            return
        mid = (max(x0, ext[0]) + min(x1, ext[1])) / 2
        self._bounds.setData(np.array([ext[0], mid, mid, ext[1]]),
                             np.array([yr[0], yr[0], yr[1], yr[1]]))

    @property
    def symbols_shown(self) -> bool:
        """True when the scans' points are drawn with symbols (few points on screen)."""
        return bool(self._symbol_points)

    def _draw_symbols(self) -> None:
        """One scatter item for every visible scan's points, in the scans' (dimmed) colours."""
        if not self._symbol_points:
            self.symbols.setData([], [])
            return
        sel = self._selected()
        xs, ys, brushes = [], [], []
        rows = self._rows.tolist()
        group = max(1, -(-len(rows) // SYMBOL_COLOURS))  # neighbours share a brush
        made: dict[tuple[int, bool], Any] = {}
        for j, (x, y) in enumerate(self._symbol_points):
            i = rows[j]
            if not self._shown[i]:
                continue
            keep = np.isfinite(y)
            xs.append(x[keep])
            ys.append(y[keep])
            like = i if i in sel else rows[j - j % group]
            brush = made.get((like, i in sel))
            if brush is None:
                brush = made[(like, i in sel)] = self._brush(like, sel)
            brushes += [brush] * int(keep.sum())
        x = np.concatenate(xs) if xs else np.empty(0)
        y = np.concatenate(ys) if ys else np.empty(0)
        self.symbols.setData(x=x, y=y, brush=brushes)

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(scan ID, x, y)`` of every visible scan as drawn (NaN = break).

        Scans without a real point in the range draw nothing and are left out.
        """
        out = []
        for i, (x, y) in zip(self._rows.tolist(), self._curves, strict=True):
            if self._shown[i] and len(x):
                out.append((self.scan_ids[i], np.asarray(x, dtype=np.float64),
                            np.asarray(y, dtype=np.float64)))
        return out

    def curve(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """float64 ``(x, y)`` of scan ``i`` as last computed, shown or not (empty when none,
        or when the scan is not drawn: see the module notes)."""
        j = self._at(i)
        return self._curves[j] if j is not None else (np.empty(0), np.empty(0))

    def path(self, i: int) -> QPainterPath:
        """The line of scan ``i`` as an export paints it (built when asked for; empty when
        the scan is not drawn)."""
        j = self._at(i)
        return self._paths[j] if j is not None else QPainterPath()

    def is_shown(self, i: int) -> bool:
        """True when scan ``i`` is checked in the list (drawn when it has points)."""
        return bool(self._shown[i])

    def pen(self, i: int) -> QPen:
        """The pen scan ``i`` appears with: 3 px when highlighted (few selected), its colour
        at alpha :data:`DIM_ALPHA` when others are highlighted, else 1 px in its colour."""
        sel = self._selected()
        if sel and i not in sel:
            c = QColor(self.colors[i])
            c.setAlpha(DIM_ALPHA)
            return pg.mkPen(c, width=1)
        j = self._at(i)
        if j is None:
            return pens([self.colors[i]], 3 if sel and len(sel) <= WIDE_HIGHLIGHTS else 1)[0]
        return QPen(self._highlight_pens(sel)[j] if sel else self._plain[j])

    def _brush(self, i: int, sel: set[int]) -> Any:
        c = pg.mkColor(self.colors[i])
        if sel and i not in sel:
            c.setAlpha(50)
        return pg.mkBrush(c)

    def _highlight_pens(self, sel: set[int]) -> list[QPen]:
        """Pens of the highlight layer: wide unless many scans are selected."""
        if len(sel) > WIDE_HIGHLIGHTS or not sel:
            return self._plain
        if self._wide_pens is None:
            self._wide_pens = [QPen(p) for p in self._plain]
            for p in self._wide_pens:
                p.setWidth(3)
        return self._wide_pens

    def _show_lines(self) -> None:
        """What each layer draws: the shown scans; the selected ones on top, the rest dimmed."""
        sel = self._selected()
        rows = self._rows
        self.lines.set_order(np.flatnonzero(self._shown[rows]).tolist())
        self.lines.setOpacity(DIM_ALPHA / 255 if sel else 1.0)
        chosen = np.isin(rows, np.fromiter(sel, np.int64, len(sel))) & self._shown[rows]
        self.highlights.set_order(np.flatnonzero(chosen).tolist())

    def _selected(self) -> set[int]:
        return self.scan_list.selected_rows()

