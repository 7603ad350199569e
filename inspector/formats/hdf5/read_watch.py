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

A device (a terminal or serial line whose ``open(2)`` waits for a carrier, anything
that blocks) swapped in has no writer end to open.  What ends that read is a signal:
the reading thread is sent :data:`INTERRUPT` (a handler that does nothing, installed
without ``SA_RESTART``), so the ``open(2)`` it is blocked in fails with ``EINTR``;
HDF5 does not retry an open (nor the ``read(2)`` of external storage; its ``pread``
of a file fails at once on a pipe, terminal or socket), so the read fails and ends.

So a read of a dataset whose values come from other files runs inside
:func:`watch`: the paths it may open are registered with a deadline
(:data:`READ_TIMEOUT_S` after the read starts).  One daemon thread, the watchdog,
wakes at the earliest deadline; for a read still running then whose paths include one
that is now a named pipe, device or socket, the read is marked stopped, every pipe is
opened write-only and non-blocking and closed at once (never written to; a regular
file is never opened), and the reading thread is interrupted, again every
:data:`RETRY_S` while it runs.  Whatever HDF5 returned or raised, :func:`watch`
raises :class:`ReadStopped` (``data.read-timeout``, naming the dataset and each such
path): its values are not shown.  A read past its deadline with only regular files
among its paths (a slow disk) is let run: nothing blocks it for good, and its values
are sound.  Nothing here imports Qt or h5py.
"""

from __future__ import annotations

import os
import signal
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
#: The signal that interrupts a reading thread blocked in ``open(2)`` (a real-time
#: signal nothing else here uses; ``SIGUSR2`` where there are none).
INTERRUPT: int | None = (int(signal.SIGRTMIN) + 5 if hasattr(signal, "SIGRTMIN")
                         else getattr(signal, "SIGUSR2", None))


class ReadStopped(OSError):
    """A read of values from another file blocked on a named pipe and was stopped.

    Attributes:
        location: the dataset read.
        pipes: the paths found to be named pipes and released.
        seconds: the time limit it ran past.
    """

    def __init__(self, location: str, pipes: tuple[str, ...], seconds: float) -> None:
        now = "; ".join(f"{p} is now {_kind_text(p)}" for p in pipes)
        super().__init__(
            f"{location}: reading its values did not end within {seconds:g} s: "
            f"{now} (swapped after it was checked); the read was stopped and its values are "
            "not shown")
        self.location = location
        self.pipes = pipes
        self.seconds = seconds


@dataclass(eq=False)
class _Read:
    """One read being watched."""

    paths: tuple[str, ...]
    deadline: float
    released: list[str] = field(default_factory=list)
    thread: int = field(default_factory=threading.get_ident)
    """The reading thread (interrupted when it blocks)."""


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
    install()
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
            _stop(read)


def _stop(read: _Read) -> None:
    """Stop ``read`` when one of its paths is now a named pipe, device or socket: mark
    it stopped first (the blocked reader may fail and finish the moment it is released,
    and it must then see that it was stopped), release the pipes, interrupt the thread."""
    special = [p for p in read.paths if _special(p)]
    if not special:
        return  # regular files only: a slow read, let run
    with _cond:
        read.released.extend(p for p in special if p not in read.released)
    for path in special:
        release(path)
    with _cond:  # still inside watch(): the signal cannot reach later work of the thread
        if read in _reads:
            interrupt(read.thread)


def _special(path: str) -> bool:
    """True when ``path`` is a named pipe, device or socket (whatever may block)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
        or stat.S_ISSOCK(mode)


def _kind_text(path: str) -> str:
    """What ``path`` is now, in words."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "gone"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"


def _interrupted(_signum: int, _frame: object) -> None:
    """The handler of :data:`INTERRUPT`: nothing (the signal's work is the ``EINTR``)."""


_installed = False


def install() -> bool:
    """Install the handler of :data:`INTERRUPT` (without ``SA_RESTART``); True when it is
    installed.  Only the main thread can install it (the module does at import, and each
    :func:`watch` tries again); a signal some other code handles is left to it."""
    global _installed
    if _installed:
        return True
    if INTERRUPT is None or threading.current_thread() is not threading.main_thread():
        return False
    try:
        if signal.getsignal(INTERRUPT) not in (signal.SIG_DFL, None, _interrupted):
            return False
        signal.signal(INTERRUPT, _interrupted)
        signal.siginterrupt(INTERRUPT, True)
    except (OSError, ValueError):
        return False
    _installed = True
    return True


def interrupt(thread: int) -> bool:
    """Send :data:`INTERRUPT` to ``thread`` (a ``threading.get_ident``) so that a system
    call it is blocked in fails with ``EINTR``; True when sent (the handler installed)."""
    if not _installed or INTERRUPT is None:
        return False
    try:
        signal.pthread_kill(thread, INTERRUPT)
    except (OSError, ValueError, ProcessLookupError):
        return False
    return True


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


install()
