"""The interpreter's thread switch interval in the GUI process.

A background job running Python holds the interpreter lock up to the switch interval
each time the GUI thread asks for it, and painting asks for it once per call into
Python (item models, plot items): at Python's default 5 ms a busy job made single
repaints take hundreds of ms.  ``benchmarks/gil_convoy.py`` measures a repaint of a
2 000-row table model beside one busy Python thread at several intervals, in one run
(docs/runtime.md).
"""

from __future__ import annotations

import sys

from inspector.runtime.switches import enabled

#: The interval set for every thread of the GUI process (seconds; Python's default is
#: 5 ms).  The suite's failures once seen at 0.1 ms (a deadlock, broken imports) were
#: the cyclic collector running on job threads and listing objects under construction,
#: fixed in :mod:`.garbage`, not the interval.
GUI_SWITCH_INTERVAL_S = 0.0001


def shorten_switch_interval() -> float:
    """Set :data:`GUI_SWITCH_INTERVAL_S` (unless the measure is left out); the interval now."""
    if enabled("switch-interval"):
        sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    return sys.getswitchinterval()
