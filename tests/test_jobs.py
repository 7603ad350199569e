"""Background jobs: results and progress reach the GUI thread in order, and the Qt
signals that carry them hold no Python object (inspector/jobs.py, _Signals)."""

from __future__ import annotations

import threading

from inspector.jobs import JobRunner, _Signals


def test_progress_payloads_and_the_result_arrive_in_order_and_by_identity(qtbot):
    runner = JobRunner()
    payloads = [{"member": i} for i in range(200)]
    result = object()
    seen: list[tuple[int, int, object]] = []
    done: list[object] = []

    def work(ctx):
        for i, p in enumerate(payloads):
            ctx.progress(i + 1, len(payloads), p)
        return result

    runner.submit(work, on_done=done.append, on_progress=lambda d, t, p: seen.append((d, t, p)))
    qtbot.waitUntil(lambda: bool(done), timeout=10000)
    assert done == [result]
    assert [d for d, _t, _p in seen] == list(range(1, 201))
    assert all(p is payloads[i] for i, (_d, _t, p) in enumerate(seen))
    runner.wait(5000)


def test_a_superseded_jobs_progress_and_result_are_dropped(qtbot):
    runner = JobRunner()
    gate = threading.Event()
    got: list[object] = []

    def slow(ctx):
        gate.wait(5)
        ctx.progress(1, 1, "old")
        return "old"

    runner.submit(slow, on_done=got.append, on_progress=lambda *a: got.append(a), key="k")
    runner.submit(lambda ctx: "new", on_done=got.append, key="k")
    qtbot.waitUntil(lambda: got == ["new"], timeout=5000)
    gate.set()
    runner.wait(5000)
    qtbot.wait(50)
    assert got == ["new"]


def test_the_job_signals_carry_ids_and_text_only():
    meta = _Signals.staticMetaObject
    kinds = set()
    for i in range(meta.methodOffset(), meta.methodCount()):
        kinds.update(bytes(t).decode() for t in meta.method(i).parameterTypes())
    assert kinds == {"int", "QString"}


def test_reports_made_before_the_gui_thread_takes_them_come_in_one_event(qtbot):
    runner = JobRunner()
    go = threading.Event()
    seen: list[int] = []
    done: list[str] = []

    def work(ctx):
        go.wait(5)
        for i in range(1000):
            ctx.progress(i + 1, 1000)
        return "done"

    job = runner.submit(work, on_done=lambda r: done.append(r),
                        on_progress=lambda d, _t, _p: seen.append(d))
    signals: list[int] = []
    job.signals.progress.connect(signals.append)
    go.set()
    assert runner.wait(5000)  # (the GUI thread takes nothing meanwhile)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert seen == list(range(1, 1001)) and done == ["done"]
    assert signals == [job.id]  # one event carried all of them


def test_a_report_made_while_the_gui_thread_delivers_is_delivered_too(qtbot):
    runner = JobRunner()
    delivering, reported = threading.Event(), threading.Event()
    seen: list[int] = []
    done: list[str] = []

    def work(ctx):
        ctx.progress(1, 2)
        delivering.wait(5)  # the GUI thread is inside on_progress now
        ctx.progress(2, 2)
        reported.set()
        delivering.clear()
        return "done"

    def on_progress(d, _t, _p):
        seen.append(d)
        if d == 1:
            delivering.set()
            reported.wait(5)

    runner.submit(work, on_done=done.append, on_progress=on_progress)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert seen == [1, 2] and done == ["done"]
    runner.wait(5000)
