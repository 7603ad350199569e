"""Shared parts of the trial views: requests, condition colours, the time axis."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor

from inspector.formats.analysis.read_meter import ChunkMeter
from inspector.formats.analysis.trial_conditions import Condition
from inspector.formats.analysis.trial_matrix import TrialAxis
from inspector.formats.document import Document
from inspector.jobs import JobContext, JobRunner
from inspector.ui.flow_layout import FlowLayout, group  # noqa: F401 - the trial views' import

#: Colours of the first conditions (then evenly spaced hues); missing is grey.
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#bcbd22", "#393b79"]
MISSING_COLOR = "#8c8c8c"
#: Line styles telling channels apart when several are averaged at once.
CHANNEL_STYLES = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
                  Qt.PenStyle.DashDotLine, Qt.PenStyle.DashDotDotLine]


@dataclass(frozen=True)
class AverageRequest:
    """The arguments of one :func:`~inspector.formats.analysis.trial_average.trial_average` run.

    ``window``/``baseline`` in seconds when the rate is known, else samples
    (None: the recorded default / no correction); ``trials`` None for all.
    """

    by: Hashable
    channels: tuple[int, ...]
    window: tuple[float, float] | None = None
    baseline: Any = None
    trials: tuple[int, ...] | None = None


def condition_colors(conditions: list[Condition]) -> list[QColor]:
    """One colour per condition: the palette, then spaced hues; missing is grey."""
    present = [c for c in conditions if not c.missing]
    out = []
    k = 0
    for c in conditions:
        if c.missing:
            out.append(QColor(MISSING_COLOR))
            continue
        if len(present) <= len(PALETTE):
            out.append(QColor(PALETTE[k]))
        else:
            out.append(pg.intColor(k, hues=len(present), values=1, maxValue=220))
        k += 1
    return out


#: The bottom axis labels, longest first: the first that fits the axis is shown.
TIME_LABELS = ("time from stimulus onset", "time from onset", "time")
SAMPLE_LABELS = ("samples from stimulus onset (no sampling rate)",
                 "samples from onset (no sampling rate)", "samples from onset")


def time_label(plot_item: pg.PlotItem, axis: TrialAxis) -> None:
    """Label the bottom axis: time from onset in s (SI prefix: ms) or in samples.

    The label never overflows its axis: the longest of :data:`TIME_LABELS` (or
    :data:`SAMPLE_LABELS`) whose text fits the axis's width is shown, chosen again
    whenever the axis is resized or its SI prefix changes; the axis's tooltip has the
    longest.
    """
    bottom = plot_item.getAxis("bottom")
    timed = axis.sampling_rate_hz is not None
    labels = TIME_LABELS if timed else SAMPLE_LABELS
    units = "s" if timed else None
    bottom.setToolTip(labels[0])
    if not timed:
        bottom.enableAutoSIPrefix(False)  # samples are never scaled

    def fit(*_args: object) -> None:
        room = bottom.width() - 4
        for text in labels:
            if bottom.labelText != text:
                bottom.setLabel(text, units=units)
            if bottom.label.boundingRect().width() <= room or text == labels[-1]:
                return

    plot_item.setLabel("bottom", labels[0], units=units)
    bottom.geometryChanged.connect(fit)
    plot_item.vb.sigXRangeChanged.connect(fit)  # (a new SI prefix changes the width)


def plain_values(plot_item: pg.PlotItem, side: str = "left") -> None:
    """Show an axis without units as the numbers themselves: pyqtgraph 0.14
    otherwise scales a range within (0, 1) by 1000 when the label has no
    units, without saying so (0.6 drawn as 600)."""
    plot_item.getAxis(side).enableAutoSIPrefix(False)


def onset_line(color: QColor) -> pg.InfiniteLine:
    """The vertical line at stimulus onset (time 0), ignored by auto-range."""
    line = pg.InfiniteLine(0.0, angle=90, movable=False, label="onset",
                           labelOpts={"position": 0.95})
    color_onset(line, color)
    line.setZValue(-2)
    return line


def color_onset(line: pg.InfiniteLine, color: QColor) -> None:
    """(Re)colour the onset line and its label (the palette's text, translucent)."""
    c = QColor(color)
    c.setAlpha(160)
    line.setPen(pg.mkPen(c, width=1, style=Qt.PenStyle.DashLine))
    line.label.setColor(c)


def cancel_keys_on_destroy(obj: QObject, jobs: JobRunner, keys: tuple[str, ...]) -> None:
    """Cancel the jobs of ``keys`` when ``obj`` is destroyed, so that no result
    reaches a deleted widget (the runner drops results of cancelled jobs)."""
    def cancel(*_args: object) -> None:
        for key in keys:
            jobs.cancel(key)

    obj.destroyed.connect(cancel)


def channel_label(axis: TrialAxis, ch: int) -> str:
    """A channel's name (``ch_names``) or ``ch <i>``."""
    return axis.channel_names[ch] if ch < len(axis.channel_names) else f"ch {ch}"


def chunk_meter(ctx: JobContext) -> ChunkMeter:
    """A meter sending ``(chunks read, chunks needed)`` as the job's progress: the trial
    computations add the chunks they plan (:func:`~inspector.formats.analysis.read_meter.
    chunks_expected`) and report each one read; run them inside
    :func:`~inspector.formats.analysis.read_meter.metering` with it."""
    return ChunkMeter(0, lambda done, needed: ctx.progress(done, needed))


def neural_unit(doc: Document) -> str:
    """The unit of the values of the array the trials cut (``""`` when it states none)."""
    ref = doc.neural_array()
    unit = ref.attrs.get("unit") if ref is not None else None
    return str(unit) if unit else ""
