"""The DataFrames of a document's plain tables, built off the GUI thread.

A table of plain columns (:class:`~inspector.formats.table.Table`) is shown
without pandas.  The views that sort, filter or group by its columns need its
DataFrame, and importing pandas (0.2 s) or building the frame on the GUI thread
would stall it (docs/architecture.md, "Contracts").  :class:`TableFrames`
imports pandas on the preload thread (:mod:`inspector.runtime.preload`), then builds
every frame on a job (:meth:`Table.frame`, which keeps it), and calls back on
the GUI thread once they are all built.  It starts when a view needs the frames
(the trial views, when first shown) or once the tab has been idle for
:data:`IDLE_LOOKS` looks in a row (:meth:`TableFrames.start_when_idle`): an
import beside a plot being drawn or a verification made the GUI thread wait for
the interpreter lock 80-130 ms.  Full collections wait meanwhile, as
during the window's warm-up (:func:`~inspector.runtime.garbage.hold_full_collections`):
pandas brings some hundred thousand objects that never become garbage, and a full
collection walking them on the GUI thread took 50 ms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import ModuleType
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from shiboken6 import Shiboken

from inspector.jobs import JobContext, JobRunner
from inspector.runtime import preload
from inspector.runtime.garbage import TABLE_FRAMES, hold_full_collections

if TYPE_CHECKING:
    from inspector.formats.table import Table

#: Milliseconds between two looks at whether the tab is idle, and the looks in a row
#: that must find it idle before the frames are built unasked (as the window's warm-up).
IDLE_LOOK_MS = 200
IDLE_LOOKS = 3


class TableFrames(QObject):
    """Builds the frames of ``tables`` once, on request, and tells who waits for them.

    Args:
        tables: the document's tables (those already with a frame need nothing).
        jobs: the tab's job runner (its jobs end with the tab).
    """

    def __init__(self, tables: Iterable[Table], jobs: JobRunner, parent: QObject) -> None:
        super().__init__(parent)
        self._pending = [t for t in tables if not t.frame_built]
        self._jobs = jobs
        self._waiting: list[Callable[[], None]] = []
        self._started = False
        self._hold = f"{TABLE_FRAMES} {id(self)}"  # (one per tab: each ends its own)
        self._idle: Callable[[], bool] = lambda: True
        self._idle_looks = 0
        self._look_timer = QTimer(self)
        self._look_timer.setInterval(IDLE_LOOK_MS)
        self._look_timer.timeout.connect(self._look)
        self.error = ""

    @property
    def built(self) -> bool:
        """Every table has its frame (or building failed: :attr:`error` says why)."""
        return not self._pending

    def start_when_idle(self, idle: Callable[[], bool]) -> None:
        """Build the frames unasked once ``idle()`` has been true at :data:`IDLE_LOOKS`
        looks in a row, :data:`IDLE_LOOK_MS` apart (nothing to do once built or started)."""
        if self.built or self._started:
            return
        self._idle = idle
        self._idle_looks = 0
        self._look_timer.start()

    def _look(self) -> None:
        self._idle_looks = self._idle_looks + 1 if self._idle() else 0
        if self._idle_looks >= IDLE_LOOKS or self._started:
            self._look_timer.stop()
            self.when_built()

    def when_built(self, callback: Callable[[], None] | None = None) -> None:
        """Call ``callback()`` on the GUI thread once every frame is built (at once when
        they are), starting the build if it has not started."""
        if self.built:
            if callback is not None:
                callback()
            return
        if callback is not None:
            self._waiting.append(callback)
        if not self._started:
            self._started = True
            hold_full_collections(True, self._hold)
            # (a tab closed meanwhile cancels the job: its end never comes)
            self.destroyed.connect(lambda *_a, hold=self._hold: hold_full_collections(False, hold))
            preload.when_imported("pandas", self._pandas_imported, self._failed)

    def _pandas_imported(self, _pandas: ModuleType) -> None:
        if not (Shiboken.isValid(self) and Shiboken.isValid(self._jobs)
                and Shiboken.isValid(self._jobs.pool)):
            return  # its tab (or window) was deleted while pandas was being imported
        pending = list(self._pending)
        self._jobs.submit(lambda ctx: _build(ctx, pending), on_done=self._done,
                          on_error=lambda message, _tb: self._failed(message))

    def _failed(self, message: str) -> None:
        self.error = message
        self._done(None)

    def _done(self, _result: object) -> None:
        hold_full_collections(False, self._hold)
        self._pending = []
        waiting, self._waiting = self._waiting, []
        for callback in waiting:
            callback()


def _build(_ctx: JobContext, tables: list[Table]) -> int:
    """Build each table's frame (on a job); the number built."""
    for table in tables:
        table.frame()
    return len(tables)
