"""A tab's plain tables get their DataFrames on a job, with full collections held meanwhile."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
from PySide6.QtCore import QObject

from inspector.formats.table import PlainColumn, Table
from inspector.jobs import JobRunner
from inspector.ui import table_frames
from inspector.ui.table_frames import TableFrames


def _plain(n: int = 5) -> Table:
    return Table.of_columns((PlainColumn("x", np.arange(n), "int64"),), range(n))


def _recording_holds(monkeypatch) -> list[tuple[bool, str]]:
    holds: list[tuple[bool, str]] = []
    monkeypatch.setattr(table_frames, "hold_full_collections",
                        lambda held, reason: holds.append((held, reason)))
    return holds


def test_frames_are_built_on_a_job_and_the_hold_ends_with_them(qtbot, monkeypatch):
    holds = _recording_holds(monkeypatch)
    built_on: list[bool] = []
    build = Table.frame

    def frame(table):
        built_on.append(threading.current_thread() is threading.main_thread())
        return build(table)

    monkeypatch.setattr(Table, "frame", frame)
    owner = QObject()
    plain, framed = _plain(), Table.of_frame(pd.DataFrame({"y": [1.5]}))
    frames = TableFrames([plain, framed], JobRunner(owner), owner)
    assert not frames.built
    called: list[bool] = []
    frames.when_built(lambda: called.append(plain.frame_built))
    qtbot.waitUntil(lambda: bool(called), timeout=20_000)
    assert called == [True] and frames.built and frames.error == ""
    assert built_on[0] is False  # the first build ran on the job
    assert plain.frame()["x"].tolist() == [0, 1, 2, 3, 4]  # numpy as the oracle
    assert [h for h, _ in holds] == [True, False] and holds[0][1] == holds[1][1]
    later: list[int] = []
    frames.when_built(lambda: later.append(1))  # built already: at once
    assert later == [1]


def test_a_table_with_its_frame_needs_no_build(qtbot, monkeypatch):
    holds = _recording_holds(monkeypatch)
    owner = QObject()
    frames = TableFrames([Table.of_frame(pd.DataFrame({"y": [1]}))], JobRunner(owner), owner)
    got: list[int] = []
    frames.when_built(lambda: got.append(1))
    assert frames.built and got == [1] and holds == []


def test_the_hold_ends_when_the_tab_goes_before_the_frames(qtbot, monkeypatch):
    holds = _recording_holds(monkeypatch)
    release = threading.Event()
    build = Table.frame
    monkeypatch.setattr(Table, "frame", lambda table: (release.wait(20), build(table))[1])
    owner = QObject()
    frames = TableFrames([_plain()], JobRunner(owner), owner)
    frames.when_built()
    assert holds and holds[0][0] is True
    reason = holds[0][1]
    threading.Timer(0.3, release.set).start()  # (the pool waits for its job as it goes)
    del frames
    owner.deleteLater()  # the job is still building: its end never reaches the frames
    qtbot.waitUntil(lambda: (False, reason) in holds, timeout=10_000)
    assert holds.count((False, reason)) == 1


def test_unasked_the_frames_wait_until_the_tab_stays_idle(qtbot, monkeypatch):
    holds = _recording_holds(monkeypatch)
    owner = QObject()
    table = _plain()
    frames = TableFrames([table], JobRunner(owner), owner)
    idle = {"now": False, "looks": 0}

    def is_idle() -> bool:
        idle["looks"] += 1
        return idle["now"]

    frames.start_when_idle(is_idle)
    qtbot.waitUntil(lambda: idle["looks"] >= 5, timeout=10_000)
    assert not frames.built and holds == []  # busy at every look: nothing started
    idle["now"] = True
    looks = idle["looks"]
    qtbot.waitUntil(lambda: frames.built, timeout=20_000)
    assert idle["looks"] - looks == table_frames.IDLE_LOOKS  # three idle looks in a row
    assert table.frame_built and [h for h, _ in holds] == [True, False]
