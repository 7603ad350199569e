"""GUI-thread work split over event-loop turns, with pieces that run on jobs.

Building a document's views, a bare plot widget or the trial views takes
longer than the window may stall (docs/architecture.md, "Contracts": 50 ms),
so each is a generator of steps, driven here one step an event-loop turn.  A
step may also hand work to a job (:class:`OffThread`): the steps go on once
the job is done, with its result sent in (docs/architecture.md, "Threads":
the GUI thread applies what a job returns).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer
from shiboken6 import Shiboken

from inspector.jobs import JobContext, JobRunner

#: What a drive runs: it yields None to end an event-loop turn, an :class:`OffThread`
#: for work on a job (its result is sent back in), or its result.
Steps = Generator[Any, Any, Any]


@dataclass(frozen=True)
class OffThread:
    """A step's work for a job: ``work(ctx)``'s result (None if it raised) is sent into
    the steps when the job is done."""

    work: Callable[[JobContext], Any]


def run_in_turns(owner: QObject, steps: Steps, *,
                 on_result: Callable[[Any], None] | None = None,
                 jobs: JobRunner | None = None,
                 stopped: Callable[[], bool] = lambda: False) -> None:
    """Run the first step of ``steps`` now and each next one on a later event-loop turn.

    The drive ends at the first value yielded that is neither None nor an
    :class:`OffThread` (the result), or when the steps end (the result is what
    they return); ``on_result`` is then called with it.  It stops without a
    result once ``stopped()`` is true before a step (its owner closed), or
    once ``owner`` is deleted: the steps are then closed (``GeneratorExit``
    at the step they were at) on the next turn, so that whatever they made
    so far goes with them.  (The next turn's timer has no context object:
    PySide keeps a ``QTimer.singleShot`` callable whose context object was
    deleted before it fired, and with it the steps and what they made, alive
    until the application is shut down.)

    Raises:
        ValueError: a step yielded an :class:`OffThread` and no ``jobs`` were given.
    """

    def step(sent: Any = None) -> None:
        if not Shiboken.isValid(owner) or stopped():
            steps.close()
            return
        try:
            out = steps.send(sent)
        except StopIteration as end:
            if on_result is not None:
                on_result(end.value)
            return
        if out is None:
            QTimer.singleShot(0, step)  # (no context object: see above)
        elif isinstance(out, OffThread):
            if jobs is None:
                raise ValueError("a step asked for a job and the drive has no jobs")
            jobs.submit(out.work, on_done=step, on_error=lambda _message, _tb: step(None))
        else:
            steps.close()
            if on_result is not None:
                on_result(out)

    step()
