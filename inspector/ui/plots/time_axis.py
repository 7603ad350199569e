"""A time axis in seconds, or hours:minutes:seconds for long recordings; never kiloseconds.

pyqtgraph rescales an axis with units by an SI prefix: a 20-minute recording
was labelled "time (ks)" with ticks 0.2, 0.4…  :func:`use_time_axis` turns
that off and labels the axis by what its ticks show:

- "time (ms)" while the range shown lies within a second of zero (an epoch);
- "time (s)" while the range shown ends before :data:`CLOCK_FROM_S` (ticks are
  seconds, spaced 1, 2 or 5 times a power of ten);
- "time (h:mm:ss)" from there on, with ticks on whole clock steps
  (:data:`CLOCK_STEPS`: 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3,
  6, 12 h) and fractions of a second when zoomed in that far.
"""

from __future__ import annotations

import math
import types
from typing import Any

import pyqtgraph as pg

#: From this time on (seconds) the axis shows hours, minutes and seconds.
CLOCK_FROM_S = 3600.0
#: Tick spacings of the clock axis (seconds).
CLOCK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
               21600, 43200, 86400)
#: The axis state of a range within a second of zero: milliseconds.
MS = "ms"
#: Pixels wanted between two labelled ticks of the clock axis.
CLOCK_TICK_PX = 90


def clock_text(seconds: float, step: float) -> str:
    """``seconds`` as ``h:mm:ss`` (``-h:mm:ss`` before zero), with as many decimals as a
    tick ``step`` below one second needs (``1:00:00.25``)."""
    decimals = 0 if step >= 1 else min(6, math.ceil(-math.log10(step) - 1e-9))
    sign = "-" if seconds < 0 else ""
    value = round(abs(seconds), decimals)
    whole = int(value)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    frac = f"{value - whole:.{decimals}f}"[1:] if decimals else ""
    return f"{sign}{h}:{m:02d}:{s:02d}{frac}"


def clock_spacing(span: float, pixels: float) -> tuple[float, float]:
    """``(major, minor)`` tick spacing (seconds) of a clock axis ``pixels`` wide showing
    ``span`` seconds: the smallest clock step leaving :data:`CLOCK_TICK_PX` between
    labels (powers of ten below a second), and the next smaller step for minor ticks."""
    wanted = span * CLOCK_TICK_PX / max(pixels, 1.0)
    if wanted < 1:
        major = 10.0 ** math.ceil(math.log10(max(wanted, 1e-6)))
        for factor in (0.2, 0.5):
            if major * factor >= wanted:
                major *= factor
                break
        return major, major / 5
    steps = [s for s in CLOCK_STEPS if s >= wanted]
    major = float(steps[0] if steps else CLOCK_STEPS[-1] * math.ceil(wanted / CLOCK_STEPS[-1]))
    smaller = [s for s in CLOCK_STEPS if s < major and major % s == 0]
    return major, float(smaller[-1] if smaller else major / 2)


def no_si_prefix(axis: pg.AxisItem) -> None:
    """Never rescale ``axis`` by an SI prefix.  pyqtgraph 0.14 still computes a prefix
    after ``enableAutoSIPrefix(False)`` (a 20-minute axis labelled "ks"); with no range
    where prefixes are enabled it computes none."""
    axis.setSIPrefixEnableRanges(())
    axis.enableAutoSIPrefix(False)


def is_clock(axis: pg.AxisItem) -> bool:
    """True while ``axis`` shows hours:minutes:seconds."""
    return getattr(axis, "_clock", False) is True


def use_time_axis(plot_item: pg.PlotItem, label: str = "time") -> None:
    """Make the bottom axis of ``plot_item`` a time axis in seconds (see the module):
    no SI prefix, ``label`` with "(s)" or "(h:mm:ss)", clock ticks for long times."""
    axis = plot_item.getAxis("bottom")
    no_si_prefix(axis)
    axis._clock = False  # noqa: SLF001 - state of this module, on the axis it belongs to
    axis._time_label = label  # noqa: SLF001
    base_strings = type(axis).tickStrings
    base_spacing = type(axis).tickSpacing

    def tick_strings(self: Any, values: list[float], scale: float, spacing: float) -> Any:
        if self._clock == MS:
            return base_strings(self, values, 1000.0, spacing)
        if not self._clock:
            return base_strings(self, values, scale, spacing)
        return [clock_text(v, spacing) for v in values]

    def tick_spacing(self: Any, lo: float, hi: float, size: float) -> Any:
        if self._clock == MS:  # spaced as milliseconds are
            return [(step / 1000.0, off / 1000.0)
                    for step, off in base_spacing(self, lo * 1000.0, hi * 1000.0, size)]
        if not self._clock:
            return base_spacing(self, lo, hi, size)
        major, minor = clock_spacing(hi - lo, size)
        return [(major, 0.0), (minor, 0.0)]

    axis.tickStrings = types.MethodType(tick_strings, axis)
    axis.tickSpacing = types.MethodType(tick_spacing, axis)
    plot_item.vb.sigXRangeChanged.connect(lambda _vb, rng: follow_range(axis, rng))
    follow_range(axis, plot_item.vb.viewRange()[0])


def follow_range(axis: pg.AxisItem, x_range: Any) -> None:
    """Switch ``axis`` to the clock once the range shown ends at or after
    :data:`CLOCK_FROM_S` (back to seconds before), relabelling it."""
    lo, hi = (float(v) for v in x_range)
    reach = max(abs(lo), abs(hi))
    clock: bool | str = True if reach >= CLOCK_FROM_S else (MS if reach < 1.0 else False)
    if clock == axis._clock and axis.labelText:  # noqa: SLF001
        return
    axis._clock = clock  # noqa: SLF001
    units = {True: "h:mm:ss", MS: "ms"}.get(clock, "s")
    axis.setLabel(axis._time_label, units=units)  # noqa: SLF001
    no_si_prefix(axis)
    axis.picture = None
    axis.update()
