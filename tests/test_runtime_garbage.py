"""Cyclic garbage is collected on the GUI thread only (inspector.runtime.garbage)."""

from __future__ import annotations

import gc
import sys
import threading
import weakref

import pytest
from PySide6.QtCore import QObject

from inspector.runtime import preload
from inspector.runtime.garbage import (
    START_UP,
    WARM_UP,
    GuiThreadCollector,
    freeze_long_lived,
    hold_during_start_up,
    hold_full_collections,
)
from inspector.ui.main_window import MainWindow
from tests.conftest import FIXTURES


class _Cyclic(QObject):
    """A Qt object that only the cyclic collector can free: it refers to itself."""

    def __init__(self) -> None:
        super().__init__()
        self.me = self


def _collected_on() -> tuple[list[str], weakref.finalize]:
    threads: list[str] = []
    obj = _Cyclic()
    fin = weakref.finalize(obj, lambda: threads.append(threading.current_thread().name))
    del obj
    return threads, fin


def _collections_during(fn) -> list[int]:
    """The generations of the collections that ran during ``fn()``, in order."""
    generations: list[int] = []

    def record(phase: str, info: dict) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(record)
    try:
        fn()
    finally:
        gc.callbacks.remove(record)
    return generations


def test_the_suite_and_the_app_collect_from_the_gui_thread_only(_collector_on_the_gui_thread):
    assert not gc.isenabled()
    assert _collector_on_the_gui_thread.thresholds == gc.get_threshold()


def test_a_job_threads_allocations_leave_qt_garbage_to_the_gui_thread(
        _collector_on_the_gui_thread):
    threads, fin = _collected_on()
    keep = []

    def allocate() -> None:  # far past every threshold: the interpreter would collect here
        keep.extend([i] for i in range(200_000))

    worker = threading.Thread(target=allocate, name="job")
    worker.start()
    worker.join()
    assert fin.alive and threads == []
    assert _collector_on_the_gui_thread.check() >= 1
    assert threads == ["MainThread"]
    keep.clear()


def test_nothing_is_collected_until_generation_0_is_due(qapp):
    collector = GuiThreadCollector(qapp, interval_ms=3_600_000)
    try:
        t0, t1, t2 = collector.thresholds
        threads, fin = _collected_on()
        collector.thresholds = (gc.get_count()[0] + 10**9, t1, t2)  # (other threads allocate)
        assert _collections_during(collector.check) == []
        assert fin.alive
        collector.thresholds = (-1, t1, t2)
        collector.allocated_since_full = 0  # and no full collection is due
        assert _collections_during(collector.check) == [1]  # both young generations at once
        assert not fin.alive and threads == ["MainThread"]
    finally:
        collector.deleteLater()
        gc.disable()  # the suite's collector stays in charge


@pytest.mark.slow
def test_full_collections_wait_for_the_interpreters_allocations_and_long_lived_share(qapp):
    collector = GuiThreadCollector(qapp, interval_ms=3_600_000)
    try:
        t0, t1, t2 = collector.thresholds
        assert collector.full_every == t0 * (t1 + 1) * (t2 + 1)
        collector.thresholds = (-1, t1, t2)  # always due (other threads free objects too)
        keep = []

        def due_young(allocated: int, total: int, pending: int) -> list[int]:
            collector.allocated_since_full = allocated
            collector.long_lived_total, collector.long_lived_pending = total, pending
            keep.append([[i] for i in range(t0 + 1)])
            return _collections_during(collector.check)

        full = collector.full_every
        assert due_young(full, 4_000, 999) == [1]  # few joined the old generation
        assert collector.long_lived_pending > 999  # the survivors just kept joined it
        assert due_young(0, 4_000, 4_000) == [1]  # few allocations since the last one
        # (a full collection also finds the garbage other tests and threads left: an old
        # generation far larger than that keeps the count of survivors above zero)
        assert due_young(full, 400_000, 100_000) == [2]
        assert collector.allocated_since_full == collector.long_lived_pending == 0
        assert collector.long_lived_total > 0  # what survived: counted, never listed
        keep.clear()
    finally:
        collector.deleteLater()
        gc.disable()  # the suite's collector stays in charge


@pytest.mark.slow
def test_full_collections_wait_while_held(_collector_on_the_gui_thread):
    collector = _collector_on_the_gui_thread
    thresholds = collector.thresholds
    keep = []

    def due_full() -> list[int]:
        collector.allocated_since_full = collector.full_every
        collector.long_lived_total, collector.long_lived_pending = 4_000, 4_000
        keep.append([[i] for i in range(thresholds[0] + 1)])
        return _collections_during(collector.check)

    collector.thresholds = (-1, *thresholds[1:])  # always due (other threads free objects too)
    holds, collector._holds = collector._holds, set()  # (a window of another test may hold)
    try:
        hold_full_collections(True)
        try:
            assert due_full() == [1]
        finally:
            hold_full_collections(False)
        assert due_full() == [2]
    finally:
        collector.thresholds, collector._holds = thresholds, holds
    keep.clear()


def test_the_last_hold_released_counts_what_joined_meanwhile_as_long_lived(qapp):
    collector = GuiThreadCollector(qapp, interval_ms=3_600_000)
    try:
        collector.long_lived_total, collector.long_lived_pending = 1_000, 0
        collector.hold(True, START_UP)
        collector.hold(True, WARM_UP)
        collector.long_lived_pending, collector.allocated_since_full = 250_000, 300_000
        collector.hold(False, WARM_UP)
        assert collector.full_held  # start-up still holds them
        assert (collector.long_lived_total, collector.long_lived_pending) == (1_000, 250_000)
        collector.hold(False, START_UP)
        assert not collector.full_held
        assert (collector.long_lived_total, collector.long_lived_pending) == (251_000, 0)
        assert collector.allocated_since_full == 0
        # so the next full collection waits for a quarter as many again, as after a real one
        collector.thresholds = (-1, *collector.thresholds[1:])
        collector.allocated_since_full = collector.full_every + 1
        collector.long_lived_pending = 251_000 // 4 - 1
        assert _collections_during(collector.check) == [1]
        collector.hold(False, START_UP)  # releasing what is not held changes nothing
        assert collector.long_lived_total == 251_000
    finally:
        collector.stop()


def test_stop_gives_collection_back_to_the_interpreter(qapp):
    collector = GuiThreadCollector(qapp)
    assert not gc.isenabled()
    collector.stop()
    assert gc.isenabled()
    gc.disable()
    collector.deleteLater()


def test_freezing_leaves_the_collector_counting_the_frozen_as_the_old_generation(
        _collector_on_the_gui_thread):
    collector = _collector_on_the_gui_thread
    threads, fin = _collected_on()  # young garbage: collected, not frozen
    try:
        freeze_long_lived()
        frozen = gc.get_freeze_count()
        assert frozen > 0
        assert not fin.alive
        assert collector.long_lived_total == frozen and collector.long_lived_pending == 0
        assert collector.allocated_since_full == 0
        # a full collection now waits for a quarter as many long-lived objects
        saved, holds = collector.thresholds, collector._holds
        collector.thresholds = (-1, saved[1], saved[2])  # (generation 0 due at each check)
        collector._holds = set()  # (a window of another test may hold them)
        try:
            collector.allocated_since_full = collector.full_every + 1
            quarter = -(-frozen // 4)  # (rounded up)
            collector.long_lived_pending = quarter - 1
            assert _collections_during(collector.check) == [1]  # young only
            collector.allocated_since_full = collector.full_every + 1
            collector.long_lived_pending = quarter
            assert _collections_during(collector.check) == [2]
        finally:
            collector.thresholds, collector._holds = saved, holds
    finally:
        gc.unfreeze()


def test_when_drained_calls_back_at_once_when_idle(qtbot):
    qtbot.waitUntil(lambda: not preload.busy(), timeout=60_000)
    got = []
    preload.when_drained(lambda: got.append(True))
    assert got == [True]


def test_when_drained_calls_back_after_the_last_import(qtbot, tmp_path, monkeypatch):
    qtbot.waitUntil(lambda: not preload.busy(), timeout=60_000)
    (tmp_path / "gc_probe_module.py").write_text("X = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gc_probe_module", raising=False)
    got = []
    preload.preload(["gc_probe_module"])
    preload.when_drained(lambda: got.append("gc_probe_module" in sys.modules))
    assert got == []
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)
    assert got == [True]


def test_the_warm_up_holds_full_collections_until_its_last_import(
        qapp, qtbot, tmp_path, monkeypatch, _collector_on_the_gui_thread):
    (tmp_path / "gc_slow_module.py").write_text("import time\ntime.sleep(0.5)\n",
                                                encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gc_slow_module", raising=False)
    monkeypatch.setattr("inspector.ui.main_window.WARM_LIBRARIES", ("gc_slow_module",))
    hold_during_start_up(qapp)  # (as make_application does when the process starts)
    win = MainWindow()
    qtbot.addWidget(win)
    win.warm_up()
    assert preload.busy() and _collector_on_the_gui_thread.full_held
    assert not win.warmed_up
    qtbot.waitUntil(lambda: win.warmed_up, timeout=60_000)
    assert "gc_slow_module" in sys.modules
    assert not _collector_on_the_gui_thread.full_held  # start-up's hold ends with it too
    assert gc.get_freeze_count() > 0  # the window was empty


def _warm(qtbot, paths: list[str], monkeypatch) -> list[int]:
    frozen: list[int] = []
    monkeypatch.setattr("inspector.ui.main_window.freeze_long_lived",
                        lambda: frozen.append(len(win.document_tabs())))
    win = MainWindow()
    qtbot.addWidget(win)
    if paths:
        win.open_paths(paths)
        qtbot.waitUntil(win.all_tabs_ready, timeout=60_000)
    win.warm_up()
    drained = []
    preload.when_drained(lambda: drained.append(True))  # called after the window's own
    qtbot.waitUntil(lambda: bool(drained), timeout=120_000)
    return frozen


def test_a_window_warmed_up_empty_freezes_what_is_alive(qtbot, monkeypatch):
    assert _warm(qtbot, [], monkeypatch) == [0]


def test_a_window_warmed_up_with_a_document_freezes_nothing(qtbot, monkeypatch):
    path = FIXTURES / "vneurotk" / "v1" / "continuous_small_chunks.h5"
    assert _warm(qtbot, [str(path)], monkeypatch) == []
