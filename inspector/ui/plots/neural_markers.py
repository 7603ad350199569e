"""The markers, legend and trial spans of a neural plot.

:class:`NeuralMarkers` is the third layer of
:class:`~inspector.ui.plots.neural.NeuralView`: the view box (wheel, Reset
view, legend, marker tips), trial boundaries and stimulus onsets in the
visible range, the legend under the time axis, and the shaded spans of the
selected trials of a continuous recording.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette

from inspector.ui.plots.navigation import (
    AMPLITUDE_MODIFIER,
    LineKey,
    MarkerTips,
    add_marker_legend,
    add_reset_action,
    fit_legend_columns,
    install_time_wheel,
    legend_below,
    show_legend_row,
)
from inspector.ui.plots.neural_lines import MAX_OVERLAY_TRIALS, NeuralLines

#: Most selected trials of a continuous recording marked with a shaded span.
MAX_TRIAL_SPANS = 200
#: Pen and legend text of each marker kind: (opacity 0-255, style, label).  Markers are drawn
#: in the palette's text colour (black or white), so that no marker takes a line's colour.
MARKER_STYLES = {"trial_starts": (150, Qt.PenStyle.DashLine, "trial start"),
                 "trial_ends": (110, Qt.PenStyle.DotLine, "trial end"),
                 "vision_onsets": (210, Qt.PenStyle.SolidLine, "stimulus onset")}
#: Markers are drawn only when at most this many fall in the visible range.
MAX_MARKERS = 300
#: Stacked amplitude gain per wheel step of 120 (Ctrl+wheel).
GAIN_STEP = 1.25
#: At most this many lines are named in the legend of overlaid lines (then "N more").
MAX_LEGEND_LINES = 8


class NeuralMarkers(NeuralLines):
    """The view box, the markers, the legend and the trial spans."""

    def _set_up_view_box(self) -> None:
        """Mouse, wheel, Reset view, the legend and the marker tips."""
        vb = self.plot_item.vb
        vb.setMouseEnabled(x=True, y=True)
        vb.enableAutoRange(axis="y")
        vb.setAutoVisible(y=True)
        install_time_wheel(vb)  # the wheel zooms time; Ctrl+wheel zooms amplitude
        self._stacked_gain_wheel(vb)
        self.reset_action = add_reset_action(vb, self.reset_view, self)
        self.reset_action.setToolTip("Show the whole time range and fit the amplitude (Ctrl+0)")
        self.reset_button.setDefaultAction(self.reset_action)
        self.legend = legend_below(self.plot_item, self.palette().color(QPalette.ColorRole.Text))
        self._legend_key: tuple[Any, ...] | None = None  # what the legend shows now
        show_legend_row(self.plot_item, self.legend, False)
        self._marker_samples: list[LineKey] = []
        self.marker_tips = MarkerTips(self.plot_widget, self._drawn_markers, self._marker_text)
        self.trial_spans: list[pg.LinearRegionItem] = []  # the selected trials (continuous)

    def _stacked_gain_wheel(self, vb: pg.ViewBox) -> None:
        """Ctrl+wheel over stacked lines scales their amplitude about their offsets (the
        page and the labels stay, as in EEG browsers); otherwise the time wheel."""
        base = vb.wheelEvent

        def wheel(ev: Any, axis: int | None = None) -> None:
            if axis is None and self._stacked() and ev.modifiers() & AMPLITUDE_MODIFIER:
                self.set_gain(self.gain * GAIN_STEP ** (ev.delta() / 120.0))
                ev.accept()
                return
            base(ev, axis)

        vb.wheelEvent = wheel

    def _update_markers(self, *args: Any) -> None:
        """Draw trial boundaries and onsets in the visible range (one item per kind).

        Each kind is one ``PlotCurveItem`` of vertical segments
        (``connect="pairs"``) spanning the current y-range, ignored by
        autoscaling.
        """
        self._marker_positions = {}
        if self._markers_shown():
            (x0, x1), _ = self.plot_item.vb.viewRange()
            total = 0
            trials = self._marker_trials()
            for name, arr in self.markers.items():
                if self.epochs:
                    vals = arr[[t for t in trials if t < arr.size]]
                else:
                    vals = arr
                xs = np.asarray(self._to_x(vals[np.isfinite(vals)]), dtype=np.float64)
                xs = np.unique(xs[(xs >= x0) & (xs <= x1)])
                self._marker_positions[name] = xs
                total += xs.size
            if total > MAX_MARKERS:
                self.status.setText(f"{total} markers in view: zoom in to see them")
                self._marker_positions = {}
        self._draw_markers()

    def _draw_markers(self, *args: Any) -> None:
        _, (y0, y1) = self.plot_item.vb.viewRange()
        for name in list(self._marker_items):
            if name not in self._marker_positions:
                self.plot_item.removeItem(self._marker_items.pop(name))
        for name, xs in self._marker_positions.items():
            item = self._marker_items.get(name)
            if item is None:
                color, style, _label = self.marker_style(name)
                item = pg.PlotCurveItem(pen=pg.mkPen(color, style=style), name=None)
                item.setZValue(-5)
                self.plot_item.addItem(item, ignoreBounds=True)
                self._marker_items[name] = item
            x = np.repeat(xs, 2)
            y = np.tile([y0, y1], xs.size).astype(np.float64)
            item.setData(x, y, connect="pairs")

    def _legend_entries(self, stacked: bool) -> None:
        """The legend under the time axis: the lines when overlaid (at most
        :data:`MAX_LEGEND_LINES`, then how many more; stacked, the y labels name them),
        then one entry per marker kind while markers are shown.  Rebuilt only when
        one of these changed (each entry is a graphics item: about 1 ms apiece)."""
        named = [] if stacked else [ln for ln in self.lines if ln.item is not None]
        kinds = ({k: self.marker_style(k) for k in self.markers}
                 if self._markers_shown() else {})
        key = (stacked, tuple((id(ln.item), ln.label) for ln in named[:MAX_LEGEND_LINES]),
               len(named), tuple(kinds.items()))
        if key == self._legend_key:
            return
        self._legend_key = key
        legend = self.legend
        legend.clear()
        for ln in named[:MAX_LEGEND_LINES]:
            legend.addItem(ln.item, ln.label)
        if len(named) > MAX_LEGEND_LINES:
            legend.addItem(LineKey(pg.mkPen(None)),  # (no graphics item outside a scene)
                           f"… {len(named) - MAX_LEGEND_LINES} more")
        self._marker_samples = add_marker_legend(legend, kinds)
        fit_legend_columns(self.plot_item, legend)
        show_legend_row(self.plot_item, legend, bool(legend.items))

    def legend_labels(self) -> list[str]:
        """The texts of the legend's entries, in order (empty when it is hidden)."""
        if not self.legend.isVisible():
            return []
        return [label.text for _sample, label in self.legend.items]

    def show_trials(self, trials: np.ndarray) -> int:
        """Mark the selected ``trials`` (positions) of a continuous recording with shaded
        spans from trial start to trial end (at most :data:`MAX_TRIAL_SPANS`), and bring
        the first into view (keeping the zoom, or showing the whole trial when it is wider
        than the view).  Returns the number of spans drawn (0 for epochs, or without
        trial starts)."""
        for span in self.trial_spans:
            self.plot_item.removeItem(span)
        self.trial_spans = []
        starts = self.markers.get("trial_starts")
        if self.epochs or starts is None or not len(trials):
            return 0
        ends = self.markers.get("trial_ends")
        color = self.palette().color(QPalette.ColorRole.Highlight)
        color.setAlpha(60)
        shown = [int(t) for t in trials if 0 <= int(t) < starts.size][:MAX_TRIAL_SPANS]
        for t in shown:
            a = float(self._to_x(float(starts[t])))
            b = float(self._to_x(float(ends[t]))) if ends is not None and t < ends.size else a
            span = pg.LinearRegionItem((a, max(b, a)), movable=False, brush=pg.mkBrush(color),
                                       pen=pg.mkPen(None))
            span.setZValue(-10)
            self.plot_item.addItem(span, ignoreBounds=True)
            self.trial_spans.append(span)
        if shown:
            self._bring_into_view(*self.trial_spans[0].getRegion())
        return len(shown)

    def _bring_into_view(self, a: float, b: float) -> None:
        (x0, x1), _ = self.plot_item.vb.viewRange()
        if x0 <= a and b <= x1:
            return
        width = max(x1 - x0, (b - a) * 1.5)
        centre = (a + b) / 2
        self.plot_item.vb.setXRange(centre - width / 2, centre + width / 2, padding=0)

    def marker_style(self, name: str) -> tuple[Any, Qt.PenStyle, str]:
        """``(colour, pen style, legend text)`` of marker kind ``name``, for this palette."""
        alpha, style, label = MARKER_STYLES.get(name, (150, Qt.PenStyle.DashDotLine, name))
        color = self.palette().color(QPalette.ColorRole.Text)
        color.setAlpha(alpha)
        return color, style, label

    def palette_changed(self) -> None:
        """The theme changed: markers and their legend in the new text colour."""
        if not hasattr(self, "legend"):  # a palette event while the view is being built
            return
        for name in list(self._marker_items):
            self.plot_item.removeItem(self._marker_items.pop(name))
        self._draw_markers()
        self._legend_key = None  # rebuilt in the new palette
        self._legend_entries(self._stacked())

    def _marker_trials(self) -> list[int]:
        """The trials whose markers are drawn (epochs): the overlaid ones, else the selected."""
        if self.overlay_box.isChecked():
            return list(range(min(self.n_trials, MAX_OVERLAY_TRIALS)))
        return self.selected_trials()

    def _markers_shown(self) -> bool:
        return (self.markers_box.isChecked() and bool(self.markers) and self.n > 0
                and (not self.epochs or bool(self._marker_trials())))

    def _drawn_markers(self) -> dict[str, np.ndarray]:
        """x of the markers drawn, at the index of their trial (NaN where not drawn)."""
        out = {}
        for name, arr in self.markers.items():
            if name not in self._marker_positions:
                continue
            x = np.asarray(self._to_x(arr), dtype=np.float64)
            if self.epochs:  # only the drawn trials' markers are drawn
                trials = [t for t in self._marker_trials() if t < arr.size]
                drawn = np.full(arr.size, np.nan)
                drawn[trials] = x[trials]
                x = drawn
            out[name] = x
        return out

    def _marker_text(self, name: str, trial: int, x: float) -> str:
        label = self.marker_style(name)[2]
        where = f"{x:.6g} s" if self.sfreq else f"sample {x:.0f}"
        return f"{label} of trial {trial}: {where}"

    def marker_count(self) -> int:
        """Number of marker lines currently drawn."""
        return int(sum(xs.size for xs in self._marker_positions.values()))
