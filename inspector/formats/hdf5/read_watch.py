"""Reads of values from other files, bounded in time by a watchdog that unblocks them.

:mod:`.external_guard` judges every file a dataset's values come from before they are
read, but a file may still be swapped for a named pipe between that check and HDF5's
own ``open(2)``, which then blocks until a writer appears: forever.  Such a read runs
inside HDF5 with h5py's global lock held, so a worker thread abandoned at a deadline
would not help (every later HDF5 call of the process would wait for that lock), and
the read cannot be interrupted from Python.  What ends it is the pipe itself: opening
it for writing and closing it again releases the blocked reader, whose read then
sees end-of-file and HDF5 fails (external storage: "unable to seek") or fills the
values (a virtual dataset's source).

So a read of a dataset whose values come from other files runs inside
:func:`watch`: the paths it may open are registered with a deadline
(:data:`READ_TIMEOUT_S` after the read starts).  One daemon thread, the watchdog,
wakes at the earliest deadline; for a read still running then, every one of its
paths that is now a named pipe is opened write-only and non-blocking and closed at
once (never written to; a path that is anything else is left alone).  The read is
then marked stopped, and whatever HDF5 returned or raised, :func:`watch` raises
:class:`ReadStopped` (``data.read-timeout``): its values are not shown.  A read past
its deadline with no pipe among its paths (a slow disk) is let run: nothing blocks it
for good, and its values are sound.  Nothing here imports Qt or h5py.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

#: Seconds a read of values from other files may run before its named pipes are
#: released (the environment variable ``INSPECTOR_EXTERNAL_READ_TIMEOUT`` overrides it).
READ_TIMEOUT_S = float(os.environ.get("INSPECTOR_EXTERNAL_READ_TIMEOUT", "10") or 10)
#: Seconds between two releases of the pipes of one read still running past its deadline.
RETRY_S = 0.2


class ReadStopped(OSError):
    """A read of values from another file blocked on a named pipe and was stopped.

    Attributes:
        location: the dataset read.
        pipes: the paths found to be named pipes and released.
        seconds: the time limit it ran past.
    """

    def __init__(self, location: str, pipes: tuple[str, ...], seconds: float) -> None:
        super().__init__(
            f"{location}: reading its values did not end within {seconds:g} s: "
            f"{', '.join(pipes)} is now a named pipe (swapped after it was checked); the read "
            "was stopped and its values are not shown")
        self.location = location
        self.pipes = pipes
        self.seconds = seconds


@dataclass(eq=False)
class _Read:
    """One read being watched."""

    paths: tuple[str, ...]
    deadline: float
    released: list[str] = field(default_factory=list)


_cond = threading.Condition()
_reads: set[_Read] = set()
_thread: threading.Thread | None = None


@contextmanager
def watch(paths: Iterable[str], location: str) -> Iterator[None]:
    """Run the body (a read of ``location`` that may open ``paths``) under the watchdog.

    Raises:
        ReadStopped: the read ran past :data:`READ_TIMEOUT_S` and a named pipe among
            ``paths`` was released to end it (raised instead of what the body returned
            or raised).
    """
    targets = tuple(dict.fromkeys(paths))
    if not targets:
        yield
        return
    seconds = READ_TIMEOUT_S
    read = _Read(targets, time.monotonic() + seconds)
    _start(read)
    try:
        yield
    except Exception as exc:
        if _finish(read):
            raise ReadStopped(location, tuple(read.released), seconds) from exc
        raise
    if _finish(read):
        raise ReadStopped(location, tuple(read.released), seconds)


def _start(read: _Read) -> None:
    global _thread
    with _cond:
        _reads.add(read)
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_watchdog, name="inspector-read-watchdog",
                                       daemon=True)
            _thread.start()
        _cond.notify_all()


def _finish(read: _Read) -> bool:
    """Stop watching ``read``; True when its pipes were released (it was stopped)."""
    with _cond:
        _reads.discard(read)
        return bool(read.released)


def _watchdog() -> None:
    """Release the pipes of every read past its deadline; sleep until the next one."""
    while True:
        with _cond:
            now = time.monotonic()
            late = [r for r in _reads if r.deadline <= now]
            for read in late:
                read.deadline = now + RETRY_S
            pending = [r.deadline for r in _reads]
            if not late:
                _cond.wait(None if not pending else max(0.0, min(pending) - now))
                continue
        for read in late:
            for path in read.paths:
                _release_for(read, path)


def _release_for(read: _Read, path: str) -> None:
    """Release ``path`` for ``read`` when it is a named pipe.  The read is marked stopped
    before the pipe is opened: the blocked reader may fail and finish the moment it is
    released, and it must then see that it was stopped."""
    if not _is_fifo(path):
        return
    with _cond:
        fresh = path not in read.released
        if fresh:
            read.released.append(path)
    if not release(path) and fresh:  # no reader was waiting on it: not stopped by us
        with _cond:
            read.released.remove(path)


def _is_fifo(path: str) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def release(path: str) -> bool:
    """If ``path`` is a named pipe, open it write-only and non-blocking and close it at
    once (a reader blocked opening it then reads end-of-file); True when it was.  Nothing
    is written, and a path that is not a pipe is not opened."""
    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return False
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:  # no reader (ENXIO), gone, or not ours to open
        return False
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    finally:
        os.close(fd)
