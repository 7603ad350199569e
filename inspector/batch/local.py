"""Worker processes of this machine, one file each at a time.

Each worker is a ``ProcessPoolExecutor`` of one process (``forkserver``
start method where the platform has it, else ``spawn``: verification is
CPU-bound and h5py is not thread-parallel, so processes, not threads).
Giving every worker its own executor and at most one file at a time means
that when a process dies (a crash, the memory cap) or overruns the per-file
time limit, the file it was on is known: that file gets an ``unreadable``
outcome with a ``verify.worker-crashed`` or ``verify.timeout`` finding, the
worker is replaced, and the run goes on.  (One shared executor cannot tell
which of its files killed it, nor stop one running task.)  A worker is also
replaced after :data:`RECYCLE_AFTER` files, which bounds what a leak can grow
to.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.context import BaseContext

from inspector.batch.work import (
    Outcome,
    VerifyOptions,
    failed_outcome,
    init_worker,
    verify_entry,
    worker_pid,
)
from inspector.formats.core_rules import CHECK_FAILED, VERIFY_TIMEOUT, WORKER_CRASHED

__all__ = ["RECYCLE_AFTER", "LocalWorkers", "default_jobs", "default_memory_limit",
           "mp_context"]

#: Files a worker process verifies before it is replaced by a fresh one.
RECYCLE_AFTER = 500

#: ``work(name, options) -> Outcome``, a module-level function (it is pickled by name).
Work = Callable[[str, VerifyOptions], Outcome]


def default_jobs() -> int:
    """The number of CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_memory_limit(jobs: int) -> int:
    """Address space per worker by default: the physical memory shared by the
    ``jobs`` workers, at least 1 GiB (0 where the platform does not say)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 0
    return max(1 << 30, total // max(1, jobs))


def mp_context() -> BaseContext:
    """``forkserver`` (preloading every reader: :mod:`.warm`) where available, else ``spawn``.

    The fork server starts with ``PYTHONSAFEPATH`` set: it is started with ``-c``,
    which would otherwise put the current directory first on ``sys.path``, and a folder
    there named ``inspector`` (a clone of this repository, say) would shadow the
    installed package (Python 3.11's fork server imports its preload modules before it
    applies the parent's ``sys.path``; ``spawn`` applies it first).
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["inspector.batch.warm"])
        _start_forkserver_safely()
        return ctx
    return multiprocessing.get_context("spawn")


def _start_forkserver_safely() -> None:
    """Start the fork server now, with ``PYTHONSAFEPATH=1`` in its environment only
    (the variable is set for the start and restored at once)."""
    from multiprocessing import forkserver

    before = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        forkserver.ensure_running()
    finally:
        if before is None:
            del os.environ["PYTHONSAFEPATH"]
        else:
            os.environ["PYTHONSAFEPATH"] = before


@dataclass
class _Task:
    index: int
    name: str
    future: Future[Outcome]
    deadline: float


class _Worker:
    """One worker process (an executor of one) and the file it is on."""

    def __init__(self, ctx: BaseContext, init_args: tuple[int, int]) -> None:
        self.executor = ProcessPoolExecutor(1, mp_context=ctx, initializer=init_worker,
                                            initargs=init_args)
        self.pid_future = self.executor.submit(worker_pid)
        self.task: _Task | None = None
        self.done = 0

    def pid(self) -> int | None:
        """The process id (None until the process has started)."""
        f = self.pid_future
        return f.result() if f.done() and f.exception() is None else None

    def kill(self) -> None:
        """Stop the process now and release the executor."""
        pid = self.pid()
        if pid is not None:
            try:
                os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
            except OSError:
                pass
        self.executor.shutdown(wait=True, cancel_futures=True)


class LocalWorkers:
    """``jobs`` worker processes verifying one file each at a time.

    Args:
        jobs: the number of processes.
        options: how each file is verified (:class:`~.work.VerifyOptions`).
        timeout: seconds a file may take (None: no limit), counted from the
            moment a started worker receives it.
        memory_limit: address-space cap per worker in bytes (0: none).
        work: the function run per file (tests pass one that crashes or hangs).
    """

    def __init__(self, jobs: int, options: VerifyOptions, *, timeout: float | None = None,
                 memory_limit: int = 0, work: Work = verify_entry) -> None:
        self.options = options
        self.timeout = timeout
        self.work = work
        self._ctx = mp_context()
        self._init_args = (memory_limit, options.threads)
        self._workers = [_Worker(self._ctx, self._init_args) for _ in range(max(1, jobs))]
        self.capacity = len(self._workers)

    def free(self) -> bool:
        """True when a worker can take a file."""
        return any(w.task is None for w in self._workers)

    def running(self) -> int:
        """Files being verified now."""
        return sum(w.task is not None for w in self._workers)

    def submit(self, index: int, name: str) -> None:
        """Give ``name`` (entry number ``index``) to an idle worker.

        Raises:
            RuntimeError: no worker is idle (ask :meth:`free` first).
        """
        i, worker = next((i, w) for i, w in enumerate(self._workers) if w.task is None)
        if worker.pid_future.done() and worker.pid() is None:  # it never started: replace it
            worker = self._workers[i] = _Worker(self._ctx, self._init_args)
        worker.pid_future.result()  # the process is up: the time limit counts from here
        try:
            future = worker.executor.submit(self.work, name, self.options)
        except BrokenProcessPool:
            worker = self._workers[i] = _Worker(self._ctx, self._init_args)
            worker.pid_future.result()
            future = worker.executor.submit(self.work, name, self.options)
        limit = self.timeout if self.timeout else float("inf")
        worker.task = _Task(index, name, future, time.monotonic() + limit)

    def collect(self, wait_s: float) -> list[tuple[int, Outcome]]:
        """The files finished within ``wait_s`` seconds (or overdue), as ``(index, outcome)``."""
        busy = [w for w in self._workers if w.task is not None]
        if not busy:
            return []
        now = time.monotonic()
        soonest = min(w.task.deadline for w in busy if w.task is not None)
        wait([w.task.future for w in busy if w.task is not None],
             timeout=max(0.0, min(wait_s, soonest - now)), return_when=FIRST_COMPLETED)
        out = []
        for i, worker in enumerate(self._workers):
            result = self._finish(i, worker)
            if result is not None:
                out.append(result)
        return out

    def _finish(self, i: int, worker: _Worker) -> tuple[int, Outcome] | None:
        """The outcome of ``worker``'s file if it is done or overdue (the worker replaced
        when it died, was stopped or has done :data:`RECYCLE_AFTER` files)."""
        task = worker.task
        if task is None:
            return None
        if not task.future.done():
            if time.monotonic() < task.deadline:
                return None
            worker.kill()
            self._workers[i] = _Worker(self._ctx, self._init_args)
            return task.index, failed_outcome(
                task.name, VERIFY_TIMEOUT,
                f"verification did not finish within the time limit of {self.timeout:g} s "
                "and was stopped", self.options)
        worker.task = None
        worker.done += 1
        outcome, broken = self._outcome(task)
        if broken or worker.done >= RECYCLE_AFTER:
            worker.kill()
            self._workers[i] = _Worker(self._ctx, self._init_args)
        return task.index, outcome

    def _outcome(self, task: _Task) -> tuple[Outcome, bool]:
        """``(outcome, the worker is broken)`` of a finished task."""
        exc = task.future.exception()
        if exc is None:
            return task.future.result(), False
        if isinstance(exc, BrokenProcessPool):
            return failed_outcome(
                task.name, WORKER_CRASHED,
                "the worker process died while verifying the file (a crash, or the memory "
                "limit of --max-memory)", self.options), True
        return failed_outcome(
            task.name, CHECK_FAILED,
            f"verification failed unexpectedly: {type(exc).__name__}: {exc}", self.options), False

    def close(self) -> None:
        """Stop every worker (those still on a file are killed)."""
        for worker in self._workers:
            if worker.task is not None:
                worker.kill()
            else:
                worker.executor.shutdown(wait=True, cancel_futures=True)
        self._workers = []
