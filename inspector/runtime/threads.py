"""Background threads run at a lower CPU priority than the GUI thread.

When the GUI thread and the jobs both want a CPU, the GUI thread gets it first
(docs/architecture.md, "Contracts": the GUI thread never blocks for more than 50 ms).
Job threads (:mod:`inspector.jobs`) and the preload thread (:mod:`.preload`) call
:func:`lower_thread_priority` as they start; threads a job starts (decompression,
hashing) inherit the value on Linux.
"""

from __future__ import annotations

import os
import threading

from inspector.runtime.switches import enabled

#: Niceness added to every thread that runs jobs or imports in the background.
BACKGROUND_NICE = 5

_thread_state = threading.local()


def lower_thread_priority() -> None:
    """Lower the calling thread's priority by :data:`BACKGROUND_NICE`, once per thread.

    A no-op where threads have no nice value of their own (not Linux) or it
    cannot be changed, and when the measure is left out (``thread-priority``).
    """
    if getattr(_thread_state, "lowered", False):
        return
    _thread_state.lowered = True
    if not enabled("thread-priority"):
        return
    try:
        tid = threading.get_native_id()
        nice = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, nice + BACKGROUND_NICE))
    except (AttributeError, OSError):
        pass
