"""The deferred checks of one open document, run one after the other on jobs.

A :class:`CheckSession` owns what a document tab used to keep beside its
views: the checks still to run, the cancel flag, whether a check is reading
the file, whether the tab closed, and the state of the verification
(:class:`VerifyState`).  Each :class:`~inspector.formats.capabilities.CheckResult`
is applied to the document on the GUI thread (``Document.apply``) and then
announced (``applied``), so the tab resets only the views it changed
(docs/architecture.md, "Deferred work").  The document is closed when the tab
closed and no check reads it any more.
"""

from __future__ import annotations

import threading
from enum import StrEnum
from typing import Any

from PySide6.QtCore import QObject, Signal

from inspector.formats.capabilities import CheckResult, DeferredCheck, Progress
from inspector.formats.core_rules import CHECK_FAILED
from inspector.formats.document import Document
from inspector.jobs import JobContext, JobRunner
from inspector.models.node_rows import RowStyle, TreeRows, tree_rows


class VerifyState(StrEnum):
    """Where the deferred checks of a document are."""

    NONE = "none"
    """None started (none to run, or the views are not built yet)."""
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"
    ERROR = "error"
    """A check raised (a bug: its ``check.failed`` finding says so)."""


class CheckSession(QObject):
    """Runs ``doc.checks`` in order, one job each, and applies their results.

    Attributes:
        doc: the document (set when the open job delivers it).
        state: see :class:`VerifyState`.

    Signals:
        status(str): a check started (its title, for the status bar).
        progress(int done, int total, object member): a check's progress; ``member``
            is the checksum row just finished (a ``MemberCheck``) or None.
        applied(object result, object header_rows): a result was applied to the
            document; ``header_rows``: the rows of its new header, made on the job.
        over(object state): no check left to run: the final :class:`VerifyState`.
    """

    status = Signal(str)
    progress = Signal(int, int, object)
    applied = Signal(object, object)
    over = Signal(object)

    def __init__(self, jobs: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.doc: Document | None = None
        self.state = VerifyState.NONE
        self._pending: list[DeferredCheck] = []
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._flags = {"closed": False, "running": False}

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called (the tab closed)."""
        return self._flags["closed"]

    def reset(self) -> None:
        """Forget the state of the previous document's checks (another group is shown)."""
        self._pending = []
        self.state = VerifyState.NONE

    def start(self) -> None:
        """Run the document's deferred checks, one job each, in order."""
        assert self.doc is not None
        self._pending = list(self.doc.checks)
        self.state = VerifyState.RUNNING
        self._run_next()

    def cancel(self) -> None:
        """Ask the running check to stop after its current step; later checks do not run."""
        self._cancel.set()

    def close(self) -> None:
        """The tab closes: cancel, and release the file now, or when the running check
        stops reading it."""
        self._cancel.set()
        self._pending.clear()
        with self._lock:
            self._flags["closed"] = True
            running = self._flags["running"]
        if self.doc is not None and not running:
            self.doc.close()

    def _run_next(self) -> None:
        if not self._pending or self._cancel.is_set():
            self._finish(VerifyState.CANCELLED if self._cancel.is_set() else VerifyState.DONE)
            return
        check = self._pending.pop(0)
        with self._lock:
            self._flags["running"] = True
        self.status.emit(f"{check.title or 'Verifying'}…")
        self.jobs.submit(self._work(check), on_done=lambda done: self._done(check, *done),
                         on_error=lambda message, tb: self._failed(check, message, tb),
                         on_progress=self._progress)

    def _work(self, check: DeferredCheck) -> Any:
        """The job of ``check``: its result and the rows of its new header (None: none)."""
        doc, cancel, flags, lock = self.doc, self._cancel, self._flags, self._lock
        assert doc is not None
        style = RowStyle.current()

        def work(ctx: JobContext) -> tuple[CheckResult, TreeRows | None]:
            try:
                result = check.run(progress=lambda p: ctx.progress(p.done, p.total, p),
                                   cancelled=lambda: cancel.is_set() or ctx.cancelled)
                return result, tree_rows(result.header, style)
            finally:
                with lock:
                    flags["running"] = False
                    if flags["closed"]:
                        doc.close()  # the tab closed while this check read the file
        return work

    def _progress(self, done: int, total: int, event: Any) -> None:
        if not self.closed:
            member = event.member if isinstance(event, Progress) else None
            self.progress.emit(done, total, member)

    def _done(self, check: DeferredCheck, result: CheckResult,
              header_rows: TreeRows | None = None) -> None:
        if self.closed or self.doc is None:
            return
        self.doc.apply(check, result)
        self.applied.emit(result, header_rows)
        if not result.complete:
            self._pending.clear()
            self._finish(VerifyState.CANCELLED)
            return
        self._run_next()

    def _failed(self, check: DeferredCheck, message: str, tb: str) -> None:
        if self.closed or self.doc is None:
            return
        title = check.title or "a deferred check"
        self.doc.report(CHECK_FAILED, f"{title} failed unexpectedly: {message}")
        if tb and not self.doc.traceback:
            self.doc.traceback = tb
        self._pending.clear()
        self._finish(VerifyState.ERROR)

    def _finish(self, state: VerifyState) -> None:
        self.state = state
        self.over.emit(state)
