"""Neural plot requests are coalesced: one job in flight, the newest view pending.

Deterministic: reads are held by gates the test opens, and the event loop
is driven until a condition holds; nothing asserts on elapsed time.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from inspector.formats.analysis.arrays import EnvelopeCancelled, NumpyArrayRef
from inspector.formats.document import Document
from inspector.ui.plots import NeuralView, PlotPanel
from inspector.ui.plots import neural_reads as neural_mod


class GatedRef(NumpyArrayRef):
    """Each envelope waits for its own gate; records ``(start, stop, bins)`` asked for.

    With ``polls``, a waiting envelope polls ``cancelled()`` and gives way when
    it returns True (as the chunked path does between blocks).
    """

    def __init__(self, a: np.ndarray, polls: bool = False) -> None:
        super().__init__("gated", a)
        self.polls = polls
        self.calls: list[tuple[int, int, int]] = []
        self.gates: list[threading.Event] = []
        self.gave_way = 0
        self._lock = threading.Lock()

    def envelope(self, index, start, stop, bins, *, preview=None, cancelled=None):
        gate = threading.Event()
        with self._lock:
            self.calls.append((start, stop, bins))
            self.gates.append(gate)
        while not gate.wait(0.005):
            if self.polls and cancelled is not None and cancelled():
                with self._lock:
                    self.gave_way += 1
                raise EnvelopeCancelled()
        return super().envelope(index, start, stop, bins)

    def release(self, i: int) -> None:
        self.gates[i].set()


def _view(qtbot, jobs, ref) -> NeuralView:
    view = NeuralView(ref, jobs)
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    return view


def _turns(qtbot, n: int = 5) -> None:
    """Let the event loop run a few turns (queued signals, zero timers)."""
    for _ in range(n):
        qtbot.wait(1)


def test_one_job_in_flight_and_the_newest_view_follows(qtbot, jobs):
    ref = GatedRef(np.arange(400_000, dtype=np.float64).reshape(-1, 1))
    view = _view(qtbot, jobs, ref)
    qtbot.waitUntil(lambda: len(ref.calls) == 1, timeout=5000)
    vb = view.plot_item.vb
    for k in range(5):  # zooms while the first read is held, each on its own turn
        vb.setXRange(100_000 + k * 1000, 200_000 - k * 1000, padding=0)
        _turns(qtbot)
    assert len(ref.calls) == 1 and view.submitted == 1  # never two jobs at once
    assert not view.is_idle()
    ref.release(0)
    qtbot.waitUntil(lambda: len(ref.calls) == 2, timeout=5000)
    assert view.submitted == 2  # the five pending views made one request
    (x0, x1), _ = vb.viewRange()
    start, stop, _bins = ref.calls[1]
    assert start <= x0 and stop >= x1  # ... for the newest view
    assert (x0, x1) == pytest.approx((104_000, 196_000))
    assert not view.is_idle()
    ref.release(1)
    qtbot.waitUntil(view.is_idle, timeout=5000)
    line = view.lines[0]
    assert line.exact and np.nanmin(line.y) >= start - 1 and np.nanmax(line.y) <= stop
    assert view.status.text() == "showing the range of values per screen pixel"


def test_a_long_job_gives_way_to_the_pending_view(qtbot, jobs, monkeypatch):
    monkeypatch.setattr(neural_mod, "SUPERSEDE_AFTER_S", 0.0)
    ref = GatedRef(np.arange(400_000, dtype=np.float64).reshape(-1, 1), polls=True)
    view = _view(qtbot, jobs, ref)
    qtbot.waitUntil(lambda: len(ref.calls) == 1, timeout=5000)
    view.plot_item.vb.setXRange(300_000, 300_100, padding=0)  # zoom far in: raw samples
    # the first read is never released: it stops at its next poll, the zoom is read
    qtbot.waitUntil(lambda: len(ref.calls) == 2, timeout=5000)
    assert ref.gave_way == 1 and view.submitted == 2
    ref.release(1)
    qtbot.waitUntil(view.is_idle, timeout=5000)
    line = view.lines[0]
    assert line.raw and line.exact
    np.testing.assert_array_equal(line.y, np.arange(ref.calls[1][0], ref.calls[1][1]))
    assert view.status.text() == "every sample drawn"


def test_a_short_job_is_not_stopped(qtbot, jobs, monkeypatch):
    monkeypatch.setattr(neural_mod, "SUPERSEDE_AFTER_S", 3600.0)
    ref = GatedRef(np.arange(400_000, dtype=np.float64).reshape(-1, 1), polls=True)
    view = _view(qtbot, jobs, ref)
    qtbot.waitUntil(lambda: len(ref.calls) == 1, timeout=5000)
    view.plot_item.vb.setXRange(300_000, 300_100, padding=0)
    _turns(qtbot, 20)
    assert ref.gave_way == 0 and len(ref.calls) == 1  # it has not run long enough
    ref.release(0)
    qtbot.waitUntil(lambda: len(ref.calls) == 2, timeout=5000)
    ref.release(1)
    qtbot.waitUntil(view.is_idle, timeout=5000)
    assert view.lines[0].raw


def test_lines_that_cover_the_view_make_no_request(qtbot, jobs):
    ref = NumpyArrayRef("line", np.sin(np.arange(1_000_000) / 500.0).reshape(-1, 1))
    view = _view(qtbot, jobs, ref)
    vb = view.plot_item.vb
    vb.setXRange(400_000, 600_000, padding=0)
    qtbot.waitUntil(lambda: view.is_idle() and view.lines and view.lines[0].exact, timeout=5000)
    before = view.submitted
    assert view.covered()
    vb.setXRange(420_000, 620_000, padding=0)  # a pan inside the padding read around the view
    _turns(qtbot)
    assert view.is_idle() and view.submitted == before
    vb.setXRange(450_000, 500_000, padding=0)  # a zoom: bins four times too wide
    assert not view.covered()
    qtbot.waitUntil(lambda: view.submitted == before + 1 and view.is_idle(), timeout=5000)
    assert view.covered()


def test_a_resize_while_reading_is_coalesced_too(qtbot, jobs):
    ref = GatedRef(np.arange(100_000, dtype=np.float64).reshape(-1, 1))
    view = _view(qtbot, jobs, ref)
    qtbot.waitUntil(lambda: len(ref.calls) == 1, timeout=5000)
    bins_before = ref.calls[0][2]
    for w in (710, 720, 2400):  # the last one: bins would be three pixels wide
        view.resize(w, 400)
        _turns(qtbot)
    assert len(ref.calls) == 1
    ref.release(0)
    qtbot.waitUntil(lambda: len(ref.calls) == 2, timeout=5000)
    ref.release(1)
    qtbot.waitUntil(view.is_idle, timeout=5000)
    assert len(ref.calls) == 2 and ref.calls[1][2] > 2 * bins_before
    view.resize(2300, 400)  # a little narrower: the lines drawn still serve it
    _turns(qtbot)
    assert view.is_idle() and len(ref.calls) == 2


def test_panel_is_idle_only_when_its_view_is(qtbot, jobs):
    ref = GatedRef(np.arange(10_000, dtype=np.float64).reshape(-1, 1))
    doc = Document(Path("mem.h5"))
    doc.arrays["gated"] = ref
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    assert panel.is_idle()  # nothing shown, nothing asked for
    panel.resize(700, 400)
    panel.show()
    panel.show_array("gated")
    assert not panel.is_idle()  # the lines are built on the next turn
    qtbot.waitUntil(lambda: len(ref.calls) == 1, timeout=5000)
    assert not panel.is_idle()  # a read in flight

    def released_and_idle() -> bool:
        for gate in list(ref.gates):  # every read, including one asked for after a resize
            gate.set()
        return panel.is_idle()

    qtbot.waitUntil(released_and_idle, timeout=5000)
    assert panel.view.lines[0].exact
