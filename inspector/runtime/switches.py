"""Which runtime measures are in force: all of them, unless ``INSPECTOR_RUNTIME_OFF`` says.

``INSPECTOR_RUNTIME_OFF`` is a comma-separated list of measure names
(:data:`MEASURES`) to leave out of this process.  It exists for the paired benchmarks
of docs/runtime.md (``benchmarks/runtime_measures.py``), which run the same scenario
with and without one measure in the same run; a user never needs it.  An unknown name
raises, so that a benchmark cannot silently measure nothing.  This module imports
nothing heavy: ``import inspector`` reads it.
"""

from __future__ import annotations

import os

#: The environment variable naming the measures left out of this process.
ENV = "INSPECTOR_RUNTIME_OFF"

#: Every measure that can be left out, with where it lives (docs/runtime.md).
MEASURES: dict[str, str] = {
    "switch-interval": "interpreter_lock.shorten_switch_interval",
    "thread-priority": "threads.lower_thread_priority",
    "gui-collector": "garbage.install_gui_thread_collector",
    "collection-holds": "garbage.hold_full_collections",
    "freeze": "garbage.freeze_long_lived",
    "eager-qt-classes": "qt_option / qt_classes.create_qt_types",
}


def off() -> frozenset[str]:
    """The measures :data:`ENV` leaves out.

    Raises:
        ValueError: a name in :data:`ENV` is not one of :data:`MEASURES`.
    """
    names = frozenset(n.strip() for n in os.environ.get(ENV, "").split(",") if n.strip())
    unknown = names - set(MEASURES)
    if unknown:
        raise ValueError(f"{ENV}: unknown measures {sorted(unknown)}; known: {sorted(MEASURES)}")
    return names


def enabled(name: str) -> bool:
    """Whether measure ``name`` (one of :data:`MEASURES`) is in force in this process."""
    if name not in MEASURES:
        raise KeyError(name)
    return name not in off()
