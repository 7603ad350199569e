"""Background execution: every file operation runs off the GUI thread.

A :class:`JobRunner` runs callables on a ``QThreadPool`` and delivers their
results to the GUI thread through queued signals.  Each job gets a
:class:`JobContext` through which it reports progress and checks for
cancellation.  Jobs submitted with a ``key`` supersede earlier jobs with the
same key: a stale result (from a job that is no longer the latest for its
key) is dropped, never delivered (DESIGN.md, "Layers").
"""

from __future__ import annotations

import itertools
import threading
import traceback
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from inspector.formats.findings import cause
from inspector.runtime.threads import lower_thread_priority


class Cancelled(Exception):
    """Raised inside a job by :meth:`JobContext.check` after cancellation."""


class JobContext:
    """Handed to a running job: progress reporting and cancellation."""

    def __init__(self, job: Job) -> None:
        self._job = job

    @property
    def cancelled(self) -> bool:
        return self._job.cancel_event.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` if the job was cancelled."""
        if self.cancelled:
            raise Cancelled()

    def progress(self, done: int, total: int, payload: Any = None) -> None:
        """Report progress; delivered to ``on_progress`` on the GUI thread, in order.

        Reports made while the GUI thread has not yet taken the last ones wait
        with them and are delivered together, in one event: a check of a
        thousand members posts a few events, not a thousand (each event costs
        the GUI thread an entry into Python, and a pass of the event loop runs
        every event posted before it, so many small ones add up to one stall).
        """
        job = self._job
        job.outbox.append((done, total, payload))
        if not job.progress_posted:
            job.progress_posted = True
            job.signals.progress.emit(job.id)


class _Signals(QObject):
    """What a job's thread tells the GUI thread.  The signals carry the job's id and text
    only; Python objects wait in the job (``outbox``, ``result``), so that emitting from
    a job's thread never has Qt copy a Python object, which takes the interpreter lock
    inside Qt's signal machinery.  The GUI thread holds the interpreter lock throughout
    its calls into Qt (PySide does not release it), connecting signals included, which
    take Qt's signal locks: the two must never wait for each other."""

    finished = Signal(int)
    failed = Signal(int, str, str)
    progress = Signal(int)


class Job(QRunnable):
    """One unit of background work; see :meth:`JobRunner.submit`."""

    def __init__(self, job_id: int, fn: Callable[[JobContext], Any]) -> None:
        super().__init__()
        self.id = job_id
        self.fn = fn
        self.signals = _Signals()
        self.cancel_event = threading.Event()
        self.outbox: deque[tuple[int, int, Any]] = deque()  # progress not yet delivered
        self.progress_posted = False  # a progress signal is on its way for the outbox
        self.result: Any = None
        self.setAutoDelete(False)

    def cancel(self) -> None:
        self.cancel_event.set()

    def run(self) -> None:  # runs on a pool thread
        lower_thread_priority()
        try:
            result = self.fn(JobContext(self))
        except Cancelled:
            self.signals.failed.emit(self.id, "cancelled", "")
        except OSError as exc:  # a file that cannot be read: the library's words suffice
            self.signals.failed.emit(self.id, cause(exc), traceback.format_exc())
        except Exception as exc:  # noqa: BLE001 - a bug: reported to the GUI, never raised there
            self.signals.failed.emit(self.id, f"{type(exc).__name__}: {exc}",
                                     traceback.format_exc())
        else:
            self.result = result
            self.signals.finished.emit(self.id)


class JobRunner(QObject):
    """Runs jobs on a thread pool and routes results back to the GUI thread.

    Signals:
        busy_changed(bool): True while at least one job is running.
    """

    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, max_threads: int | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        if max_threads:
            self.pool.setMaxThreadCount(max_threads)
        self._ids = itertools.count(1)
        self._jobs: dict[int, tuple[Job, dict[str, Any]]] = {}
        self._latest: dict[str, int] = {}

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    def submit(
        self,
        fn: Callable[[JobContext], Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[str, str], None] | None = None,
        on_progress: Callable[[int, int, Any], None] | None = None,
        key: str | None = None,
    ) -> Job:
        """Run ``fn(ctx)`` in the background.

        ``on_done(result)``, ``on_error(message, traceback)`` and
        ``on_progress(done, total, payload)`` run on the GUI thread.  With a
        ``key``, an earlier job of the same key is cancelled and its result,
        if it still arrives, is dropped.
        """
        job = Job(next(self._ids), fn)
        if key is not None:
            old = self._latest.get(key)
            if old is not None and old in self._jobs:
                self._jobs[old][0].cancel()
            self._latest[key] = job.id
        callbacks = {"done": on_done, "error": on_error, "progress": on_progress, "key": key}
        self._jobs[job.id] = (job, callbacks)
        job.signals.finished.connect(self._finished)
        job.signals.failed.connect(self._failed)
        job.signals.progress.connect(self._progress)
        was_busy = len(self._jobs) > 1
        self.pool.start(job)
        if not was_busy:
            self.busy_changed.emit(True)
        return job

    def is_stale(self, job_id: int, key: str | None) -> bool:
        return key is not None and self._latest.get(key) != job_id

    def _pop(self, job_id: int) -> dict[str, Any] | None:
        entry = self._jobs.pop(job_id, None)
        if not self._jobs:
            self.busy_changed.emit(False)
        if entry is None:
            return None
        cb = entry[1]
        if self.is_stale(job_id, cb["key"]) or entry[0].cancel_event.is_set():
            return None
        if cb["key"] is not None:
            self._latest.pop(cb["key"], None)
        return cb

    @Slot(int)
    def _finished(self, job_id: int) -> None:
        self._progress(job_id)  # (a report posted last may still wait: it comes first)
        entry = self._jobs.get(job_id)
        result = entry[0].result if entry is not None else None
        if entry is not None:
            entry[0].result = None  # (the job object may outlive its result)
        cb = self._pop(job_id)
        if cb and cb["done"]:
            cb["done"](result)

    @Slot(int, str, str)
    def _failed(self, job_id: int, message: str, tb: str) -> None:
        self._progress(job_id)
        cb = self._pop(job_id)
        if cb and cb["error"]:
            cb["error"](message, tb)

    @Slot(int)
    def _progress(self, job_id: int) -> None:
        """Deliver every progress report waiting in the job's outbox, in order."""
        entry = self._jobs.get(job_id)
        if entry is None:
            return
        job, cb = entry
        job.progress_posted = False  # (before taking: a report added meanwhile posts again)
        while job.outbox:
            done, total, payload = job.outbox.popleft()
            if self.is_stale(job_id, cb["key"]) or job.cancel_event.is_set():
                continue
            if cb["progress"]:
                cb["progress"](done, total, payload)

    def cancel(self, key: str) -> None:
        """Cancel the latest job of ``key``; its result and progress are dropped."""
        job_id = self._latest.get(key)
        entry = self._jobs.get(job_id) if job_id is not None else None
        if entry is not None:
            entry[0].cancel()

    def cancel_all(self) -> None:
        for job, _ in self._jobs.values():
            job.cancel()

    def wait(self, msecs: int = -1) -> bool:
        """Block until all pool threads are idle (tests and shutdown)."""
        return self.pool.waitForDone(msecs)
