"""The runtime measures' package (docs/runtime.md): one entry point, each measure in force,
and the switch that leaves one out for a paired benchmark."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from inspector.runtime import interpreter_lock, switches, threads

ROOT = Path(__file__).resolve().parent.parent


def _child(code: str, **env: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=True,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **env}
                          ).stdout.strip()


def test_every_measure_is_in_force_unless_named_off(monkeypatch):
    monkeypatch.delenv(switches.ENV, raising=False)
    assert all(switches.enabled(m) for m in switches.MEASURES)
    monkeypatch.setenv(switches.ENV, "freeze, switch-interval")
    assert switches.off() == {"freeze", "switch-interval"}
    assert not switches.enabled("freeze") and switches.enabled("gui-collector")


def test_an_unknown_measure_name_is_refused(monkeypatch):
    monkeypatch.setenv(switches.ENV, "switch-intervall")
    with pytest.raises(ValueError, match="switch-intervall"):
        switches.off()
    with pytest.raises(KeyError):
        switches.enabled("no-such-measure")


START = ("import sys, gc; from inspector.runtime import start_gui; "
         "from inspector.runtime import garbage; app, made = start_gui([]); "
         "print(sys.getswitchinterval(), made, gc.isenabled(), bool(garbage._installed))")


def test_start_gui_puts_every_measure_in_force():
    """The switch interval is short, the GUI-thread collector runs (automatic collection
    off), in a process whose application start_gui made."""
    interval, *rest = _child(START).split()
    assert float(interval) == pytest.approx(interpreter_lock.GUI_SWITCH_INTERVAL_S)
    assert rest == ["True", "False", "True"]


def test_start_gui_leaves_out_the_measures_named_off():
    got = _child(START, **{switches.ENV: "switch-interval,gui-collector"}).split()
    assert got == ["0.005", "True", "True", "False"]  # Python's own interval and collector


def test_a_background_thread_runs_at_a_lower_priority(monkeypatch):
    monkeypatch.delenv(switches.ENV, raising=False)
    got: list[int] = []

    def run() -> None:
        before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        threads.lower_thread_priority()
        threads.lower_thread_priority()  # once per thread
        got.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) - before)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert got == [min(threads.BACKGROUND_NICE, 19 - os.getpriority(os.PRIO_PROCESS, 0))]


def test_threads_started_by_background_threads_run_at_the_same_priority(monkeypatch):
    """A thread inherits its starter's nice value: a background thread started by a
    background thread (Qt's pool threads started from a job, the decoding threads a job
    starts) still runs BACKGROUND_NICE below the main thread, not 10, 15 or 19."""
    monkeypatch.delenv(switches.ENV, raising=False)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    got: list[int] = []

    def run(depth: int) -> None:
        threads.lower_thread_priority()
        got.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        if depth:
            child = threading.Thread(target=run, args=(depth - 1,))
            child.start()
            child.join()

    t = threading.Thread(target=run, args=(3,))
    t.start()
    t.join()
    assert got == [min(19, base + threads.BACKGROUND_NICE)] * 4


def test_importing_the_runtime_package_loads_no_qt():
    code = ("import sys, inspector.runtime, inspector.runtime.switches; "
            "print(sorted(m for m in sys.modules if m.startswith('PySide6')))")
    assert _child(code) == "[]"
