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
