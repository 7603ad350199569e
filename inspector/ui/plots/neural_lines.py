"""The lines of a neural plot: the selection's lines, their pages, and drawing them.

:class:`NeuralLines` is the second layer of
:class:`~inspector.ui.plots.neural.NeuralView`: one line per selected channel
(and trial), the page of stacked lines shown, and the curves drawn from the
envelopes read, stacked or overlaid, with the amplitude fitted and scaled.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from inspector.formats.analysis.arrays import Envelope
from inspector.ui.plots.envelope_curve import EnvelopeCurve
from inspector.ui.plots.neural_reads import zigzag
from inspector.ui.plots.neural_state import DrawnLine, NeuralState

#: At most this many trials are overlaid at once.
MAX_OVERLAY_TRIALS = 200
#: Stacked lines get at least this many pixels of height each (the page holds as many as fit).
MIN_LINE_PX = 32
#: At most this many stacked lines per page when "per page" is automatic.
MAX_AUTO_PAGE = 20
#: Bounds of the stacked amplitude gain (Ctrl+wheel).
GAIN_RANGE = (1e-3, 1e3)

_PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22"]


class NeuralLines(NeuralState):
    """The lines of the selection, the page of stacked lines, and their curves."""

    def _selection_lines(self) -> list[DrawnLine]:
        """One line per selected channel (per selected trial and channel for epochs; per
        channel, every trial overlaid, with "All trials overlaid")."""
        chans = self.selected_channels()
        out = []
        if self.epochs:
            if self.overlay_box.isChecked():
                all_t = list(range(min(self.n_trials, MAX_OVERLAY_TRIALS)))
                for k, c in enumerate(chans):
                    out.append(DrawnLine(f"all:{c}", f"{self.ch_names[c]} (all trials)",
                                     [self._index(t, c) for t in all_t],
                                     _PALETTE[k % len(_PALETTE)], k))
                return out
            for t in self.selected_trials():
                for c in chans:
                    k = len(out)
                    out.append(DrawnLine(f"{t}:{c}", f"{self.ch_names[c]} trial {t}",
                                     [self._index(t, c)], _PALETTE[k % len(_PALETTE)], k))
            return out
        for k, c in enumerate(chans):
            out.append(DrawnLine(str(c), self.ch_names[c], [self._index(None, c)],
                             _PALETTE[k % len(_PALETTE)], k))
        return out

    # -- pages of stacked lines ----------------------------------------------------
    def page_size(self) -> int:
        """Stacked lines shown at once: the "per page" choice, else as many as fit at
        :data:`MIN_LINE_PX` each (at most :data:`MAX_AUTO_PAGE`, at least 1)."""
        if self.per_page.value() > 0:
            return int(self.per_page.value())
        height = self.plot_item.vb.height()
        return max(1, min(MAX_AUTO_PAGE, int(height // MIN_LINE_PX)))

    def _paged(self) -> bool:
        return self.mode.currentText() == "Stacked" and len(self.all_lines) > 1

    def set_first(self, first: int) -> None:
        """Show the page of stacked lines starting at line ``first`` (clamped)."""
        last = max(0, len(self.all_lines) - self.page_size())
        first = int(min(max(first, 0), last))
        if first != self.first:
            self.first = first
            self.show_page()

    def turn_page(self, step: int) -> None:
        """Show the next (``step`` = 1) or previous (-1) page of stacked lines."""
        if self._paged():
            self.set_first(self.first + step * self.page_size())

    def page(self) -> tuple[int, int, int]:
        """``(first, stop, total)``: lines ``first:stop`` of ``total`` are drawn."""
        return self.first, self.first + len(self.lines), len(self.all_lines)

    def _update_page_controls(self) -> None:
        paged = self._paged()
        total = len(self.all_lines)
        size = self.page_size()
        more = paged and total > size
        bar = self.page_bar
        bar.blockSignals(True)
        bar.setRange(0, max(0, total - size))
        bar.setPageStep(size)
        bar.setValue(self.first)
        bar.blockSignals(False)
        bar.setVisible(more)
        for widget in (self.per_page, self.per_page_label):
            widget.setVisible(self.mode.currentText() == "Stacked")
        self.page_label.setText(f"lines {self.first + 1}–{self.first + len(self.lines)} of "
                                f"{total}" if more else "")

    def _stacked(self) -> bool:
        return self._paged()

    def _add_item(self, line: DrawnLine) -> None:
        """The plot item of ``line`` (unnamed: :meth:`_legend_entries` fills the legend)."""
        pen = pg.mkPen(line.color, width=1)
        if len(line.indices) > 1:
            c = pg.mkColor(line.color)
            c.setAlpha(90)
            pen = pg.mkPen(c, width=1)
        if self.n == 1:  # one sample: a symbol, not a line
            line.item = pg.PlotDataItem(pen=pen, symbol="o", symbolBrush=pg.mkBrush(line.color))
        else:  # a plain curve: much lighter to build and to update than a PlotDataItem
            line.item = EnvelopeCurve(pen=pen, connect="finite", skipFiniteCheck=False)
        self.plot_item.addItem(line.item)

    def _apply(self, key: str, envs: list[Envelope]) -> None:
        line = next((ln for ln in self.lines if ln.key == key), None)
        if line is None or not envs or line.envs is envs:
            return  # unknown line, nothing, or drawn already (the job's last progress)
        line.envs = envs
        had_data = line.x is not None
        xs, ys = [], []
        for env in envs:
            x, y = zigzag(env)
            xs.append(x)
            ys.append(y)
            if len(envs) > 1:
                xs.append(np.array([np.nan]))
                ys.append(np.array([np.nan]))
        line.x = np.concatenate(xs)
        line.y = np.concatenate(ys)
        line.exact = all(e.exact for e in envs)
        line.raw = all(e.raw for e in envs)
        self._restack(line if had_data else None)  # a first curve also needs its y tick
        self.settle_range()

    def settle_range(self) -> None:
        """Apply the amplitude range and view transform that new lines call for now.

        pyqtgraph applies them in the next paint (``ViewBox.prepareForPaint``); the new
        range then changes the axes and the view's transform during that paint, which asks
        for a second paint of the whole plot: each line was painted twice per new envelope.
        """
        vb = self.plot_item.vb
        if getattr(vb, "_autoRangeNeedsUpdate", False):
            vb.updateAutoRange()
            vb.updateMatrix()

    # -- drawing -------------------------------------------------------------------
    def _restack(self, changed: DrawnLine | None = None) -> None:
        """Draw the lines, stacked (offset per line) or overlaid.

        With ``changed``, only that line got new data: the others are redrawn
        only if the stacking offsets changed.
        """
        stacked = self._stacked()
        spacing = self.spacing
        if self._fit or not spacing:  # else kept: zooming time does not move the lines
            spans = []
            for ln in self.lines:
                if ln.y is not None and np.isfinite(ln.y).any():
                    spans.append(float(np.nanmax(ln.y) - np.nanmin(ln.y)))
            spacing = (max(spans) if spans else 1.0) or 1.0
        if changed is not None and (spacing == self.spacing or not stacked):
            self.spacing = spacing
            self._set_line_data(changed, stacked)
            return
        self.spacing = spacing
        ticks = []
        for ln in self.lines:
            self._set_line_data(ln, stacked)
            if stacked and ln.item is not None and ln.x is not None:
                ticks.append((-ln.slot * self.spacing * 1.1, ln.label))
        left = self.plot_item.getAxis("left")
        self._legend_entries(stacked)
        if stacked:
            left.setTicks([ticks, []])
            self.plot_item.setLabel("left", f"{self.y_label} (offset per line)")
        else:
            left.setTicks(None)
            self.plot_item.setLabel("left", self.y_label)

    def _set_line_data(self, ln: DrawnLine, stacked: bool) -> None:
        if ln.item is None:
            return
        if ln.x is None:
            ln.item.setData([], [])
            return
        if isinstance(ln.item, EnvelopeCurve):
            ln.item.band = not ln.raw  # a zig-zag envelope: painted by pixel column
        y: Any = ln.y
        if stacked and y is not None:
            if self._fit or ln.mid is None:
                ln.mid = float(np.nanmean(y)) if np.isfinite(y).any() else 0.0
            y = (y - ln.mid) * self.gain - ln.slot * self.spacing * 1.1
        ln.item.setData(self._to_x(ln.x), y, connect="finite")

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(label, x, y)`` of every line as drawn (x in seconds or samples; offsets included)."""
        out = []
        for ln in self.lines:
            if ln.item is None or ln.x is None:
                continue
            x, y = ln.item.getData()
            if x is not None:
                out.append((ln.label, np.asarray(x, dtype=np.float64),
                            np.asarray(y, dtype=np.float64)))
        return out

    def reset_view(self) -> None:
        """The whole time axis; the amplitude fitted to the lines in view again, stacked
        lines at gain 1 (the page of stacked lines stays)."""
        vb = self.plot_item.vb
        self._fit = True
        self.gain = 1.0
        vb.enableAutoRange(axis="y")
        if self.n:
            vb.setXRange(*self._time_span(), padding=0.02)

    def fit_amplitude(self) -> None:
        """Set the stacking offsets and the amplitude range from the lines drawn now; both
        then stay while time is zoomed or panned (until a new page, mode or Reset view)."""
        gain, self.gain = self.gain, 1.0  # the range holds the lines at gain 1
        self._fit = True
        self._restack()
        self._fit = False
        lows, highs = [], []
        for ln in self.lines:
            if ln.item is None or ln.x is None:
                continue
            _x, y = ln.item.getData()
            y = np.asarray(y, dtype=np.float64) if y is not None else np.empty(0)
            finite = y[np.isfinite(y)]
            if finite.size:
                lows.append(float(finite.min()))
                highs.append(float(finite.max()))
        if not lows:
            self.plot_item.vb.enableAutoRange(axis="y")
            self.set_gain(gain)
            return
        lo, hi = min(lows), max(highs)
        if not hi > lo:
            lo, hi = lo - 0.5, hi + 0.5
        self.plot_item.vb.setYRange(lo, hi, padding=0.05)
        self.set_gain(gain)

    def set_gain(self, gain: float) -> None:
        """Scale the stacked lines' amplitude by ``gain`` (1: one line's range per offset)."""
        lo, hi = GAIN_RANGE
        gain = float(min(max(gain, lo), hi))
        if gain != self.gain:
            self.gain = gain
            self._restack()

    # -- made by the layers above ----------------------------------------------------
    def show_page(self) -> None:
        """Draw the lines of the current page (:class:`~inspector.ui.plots.neural.NeuralView`)."""
        raise NotImplementedError

    def _legend_entries(self, stacked: bool) -> None:
        """The legend (:class:`~inspector.ui.plots.neural_markers.NeuralMarkers`)."""
        raise NotImplementedError
