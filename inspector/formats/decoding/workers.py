"""The worker threads that readers use for parallel decompression and hashing.

The application owns the pool: the entry points (``inspector`` GUI, the
headless commands) open it with :func:`worker_pool` and it is shut down when
they leave the ``with`` block.  Format code asks for it with :func:`pool`.
``zlib``, ``hashlib`` and h5py's filters release the GIL, so two threads use
both cores of the target machine.

Nothing here imports Qt.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

_lock = threading.Lock()
_current: ThreadPoolExecutor | None = None


def default_workers() -> int:
    """Threads used by default: the CPUs this process may run on, at most 4."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(4, n))


@contextmanager
def worker_pool(workers: int | None = None) -> Iterator[ThreadPoolExecutor]:
    """Open the shared pool for the duration of the ``with`` block.

    Nested use reuses the pool already open.  On leaving, queued work is
    cancelled and the threads are joined.
    """
    global _current
    with _lock:
        if _current is not None:
            outer = True
            executor = _current
        else:
            outer = False
            executor = ThreadPoolExecutor(max_workers=workers or default_workers(),
                                          thread_name_prefix="inspector-worker")
            _current = executor
    try:
        yield executor
    finally:
        if not outer:
            with _lock:
                _current = None
            executor.shutdown(wait=True, cancel_futures=True)


def pool() -> ThreadPoolExecutor:
    """The shared pool.

    Raises:
        RuntimeError: no :func:`worker_pool` is open (an entry point forgot it).
    """
    executor = _current
    if executor is None:
        raise RuntimeError("no worker pool is open: wrap the work in "
                           "inspector.formats.decoding.workers.worker_pool()")
    return executor
