"""Background threads run at a lower CPU priority than the GUI thread.

When the GUI thread and the jobs both want a CPU, the GUI thread gets it first
(docs/architecture.md, "Contracts": the GUI thread never blocks for more than 50 ms).
Job threads (:mod:`inspector.jobs`) and the preload thread (:mod:`.preload`) call
:func:`lower_thread_priority` as they start; threads a job starts (decompression,
hashing) inherit the value on Linux.  Every background thread runs at the same
priority, :data:`BACKGROUND_NICE` below the main thread's.
"""

from __future__ import annotations

import os
import threading

from inspector.runtime.switches import enabled

#: Niceness added to every thread that runs jobs or imports in the background.
BACKGROUND_NICE = 5

_thread_state = threading.local()


def lower_thread_priority() -> None:
    """Run the calling thread :data:`BACKGROUND_NICE` below the main thread's priority.

    The nice value set is the main (GUI) thread's plus :data:`BACKGROUND_NICE` (at
    most 19), never more than that however the thread was started: a thread inherits
    the nice value of the thread that starts it, so adding to its own value made the
    threads that background threads start (Qt's pool threads started from the
    preload thread or a job, and the decoding threads those start) 10, 15 and then 19
    below the GUI, where a busy machine's other processes leave them almost no CPU.
    Once per thread; a thread already at or below that priority is left alone.
    A no-op where threads have no nice value of their own (not Linux) or it cannot
    be changed, and when the measure is left out (``thread-priority``).
    """
    if getattr(_thread_state, "lowered", False):
        return
    _thread_state.lowered = True
    if not enabled("thread-priority"):
        return
    try:
        tid = threading.get_native_id()
        target = min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + BACKGROUND_NICE)
        if os.getpriority(os.PRIO_PROCESS, tid) < target:
            os.setpriority(os.PRIO_PROCESS, tid, target)
    except (AttributeError, OSError):
        pass
