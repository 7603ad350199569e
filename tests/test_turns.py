"""Steps driven one event-loop turn at a time, with pieces on jobs (inspector.ui.turns)."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QCoreApplication, QObject

from inspector.jobs import JobRunner
from inspector.ui.turns import OffThread, run_in_turns


def _turns(log: list[str]):
    log.append("first")
    yield None
    log.append("second")
    got = yield OffThread(lambda _ctx: threading.current_thread() is threading.main_thread())
    log.append(f"job on the GUI thread: {got}")
    yield None
    log.append("last")
    return "done"


def test_each_step_is_a_turn_and_a_job_sends_its_result_back(qtbot):
    owner, jobs, log, results = QObject(), JobRunner(), [], []
    run_in_turns(owner, _turns(log), jobs=jobs, on_result=results.append)
    assert log == ["first"]  # the first step now, the next on a later turn
    QCoreApplication.processEvents()
    assert log[:2] == ["first", "second"]
    qtbot.waitUntil(lambda: results == ["done"], timeout=10000)
    assert log == ["first", "second", "job on the GUI thread: False", "last"]


def test_the_first_value_yielded_is_the_result_and_ends_the_steps(qtbot):
    closed: list[bool] = []

    def steps():
        try:
            yield None
            yield "widget"
            yield "never"
        finally:
            closed.append(True)

    results: list[str] = []
    run_in_turns(QObject(), steps(), on_result=results.append)
    qtbot.waitUntil(lambda: results == ["widget"], timeout=5000)
    assert closed == [True]


def test_a_stopped_drive_runs_no_more_steps(qtbot):
    log: list[str] = []
    stop = [False]
    owner = QObject()
    run_in_turns(owner, _turns(log), jobs=JobRunner(), stopped=lambda: stop[0],
                 on_result=log.append)
    stop[0] = True
    for _ in range(5):
        QCoreApplication.processEvents()
    assert log == ["first"]


def test_a_job_step_without_jobs_is_an_error(qapp):
    def steps():
        yield OffThread(lambda _ctx: 1)

    with pytest.raises(ValueError, match="no jobs"):
        run_in_turns(QObject(), steps())
