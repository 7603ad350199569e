"""Shared parts of the trial views: requests, condition colours, the time axis."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QObject, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QLayout, QLayoutItem, QWidget

from inspector.formats.analysis.trial_average import Condition, TrialAxis
from inspector.jobs import JobRunner

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


def time_label(plot_item: pg.PlotItem, axis: TrialAxis) -> None:
    """Label the bottom axis: time from onset in s (SI prefix: ms) or in samples."""
    if axis.sampling_rate_hz is not None:
        plot_item.setLabel("bottom", "time from stimulus onset", units="s")
    else:
        plot_item.setLabel("bottom", "samples from stimulus onset (no sampling rate)")
        plot_item.getAxis("bottom").enableAutoSIPrefix(False)  # samples are never scaled


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


class FlowLayout(QLayout):
    """Lays its items out left to right and wraps them onto new lines when the
    width runs out (the controls of the trial views stay usable in narrow panes)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt override
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt override
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt override
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt override
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, move: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            if item.widget() is not None and item.widget().isHidden():
                continue
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, line = area.x(), y + line + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap
            line = max(line, hint.height())
        return y + line - rect.y() + m.bottom()


def group(*widgets: QWidget) -> QWidget:
    """Widgets kept together on one line of a :class:`FlowLayout`."""
    box = QWidget()
    lay = QHBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(4)
    for w in widgets:
        lay.addWidget(w)
    return box
