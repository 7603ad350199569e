"""Long reads show the fraction done and can be cancelled (pytest-qt, offscreen): the
neural plot's overview (chunks read of chunks needed), the AUC overview and the Trials
tab's trial image and condition averages.  Reads are held at a gate, so the test decides
how far a read has come."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6.QtCore import QRect, Qt

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.ui.plots import NeuralView
from inspector.ui.read_progress import ReadProgress


class GatedRef(NumpyArrayRef):
    """An in-memory array whose reads each wait for a permit of ``gate``."""

    def __init__(self, array: np.ndarray) -> None:
        super().__init__("neuro", array)
        self.gate = threading.Semaphore(0)
        self.reads = 0

    def read(self, selection=Ellipsis):
        self.gate.acquire(timeout=30)
        self.reads += 1
        return super().read(selection)


def _inside(box: ReadProgress) -> bool:
    host = box.parentWidget()
    return QRect(0, 0, host.width(), host.height()).contains(box.geometry())


def test_the_overview_shows_chunks_read_and_cancel_stops_it(qtbot, jobs):
    ref = GatedRef(np.random.default_rng(2).standard_normal((4000, 6)))
    ref.attrs["sfreq"] = 100.0
    view = NeuralView(ref, jobs)
    qtbot.addWidget(view)
    view.resize(800, 450)
    view.show()
    qtbot.waitExposed(view)
    box = view.read_progress
    qtbot.waitUntil(lambda: bool(view.lines) and box.running, timeout=10000)
    total = sum(len(ln.indices) for ln in view.lines)  # (one block of samples each)
    assert total >= 2
    ref.gate.release(1)  # one block read, the next waits
    qtbot.waitUntil(box.isVisible, timeout=10000)  # shown once the read has run 1 s
    qtbot.waitUntil(lambda: box.bar.value() == 1, timeout=10000)
    percent = int(100 / total)
    assert box.bar.maximum() == total
    assert box.bar.text() == f"1 of {total} chunks ({percent}%)"
    assert _inside(box)  # floats over the plot: the layout is unchanged
    assert box.bar.width() >= box.bar.fontMetrics().horizontalAdvance(box.bar.text())
    assert not view.is_idle()
    qtbot.mouseClick(box.cancel, Qt.MouseButton.LeftButton)
    assert not box.isVisible() and view.is_idle()
    assert view.status.text().startswith("reading cancelled")
    ref.gate.release(100)
    jobs.wait(10000)
    qtbot.wait(50)
    assert view.is_idle() and view.status.text().startswith("reading cancelled")


def test_a_short_read_never_shows_the_box(qtbot, jobs):
    ref = GatedRef(np.random.default_rng(3).standard_normal((400, 2)))
    ref.gate.release(1000)
    view = NeuralView(ref, jobs)
    qtbot.addWidget(view)
    view.resize(600, 300)
    view.show()
    qtbot.waitUntil(view.is_idle, timeout=10000)
    assert not view.read_progress.isVisible() and not view.read_progress.running


@pytest.mark.slow
def test_the_trial_image_shows_trials_read_and_cancel_keeps_the_image(qtbot, jobs,
                                                                      monkeypatch):
    from inspector.formats.analysis.read_meter import chunk_read, chunks_expected, chunks_waiting
    from inspector.ui.trials import trial_image as ti_mod
    from tests.test_trial_views import COO, make_panel

    panel, _doc, _ = make_panel(qtbot, jobs, COO, by="block", channels=[0])
    image = panel.image
    first = image.matrix
    gate, real = threading.Event(), ti_mod.trial_matrix

    def held(*args, **kwargs):  # plans 24 chunks, reads 6 and waits (in the job's meter)
        chunks_expected(24)
        for k in range(6):
            chunk_read(("held", k))
        chunks_waiting()
        gate.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(ti_mod, "trial_matrix", held)
    image.run(image.request)
    box = image.read_progress
    qtbot.waitUntil(lambda: box.isVisible() and box.bar.value() == 6, timeout=10000)
    assert box.bar.text() == "6 of 24 chunks (25%)" and _inside(box)
    qtbot.mouseClick(box.cancel, Qt.MouseButton.LeftButton)
    gate.set()
    jobs.wait(10000)
    qtbot.wait(20)
    assert not image.running and not box.isVisible() and image.is_idle()
    assert image.status.text() == "cancelled: the image shows the previous result"
    assert image.matrix is first


def test_the_overview_of_a_chunked_dataset_counts_stored_chunks(qtbot, jobs, tmp_path,
                                                               monkeypatch):
    """Channels that share stored chunks count each chunk once: the total is the chunks
    the summary lacks, not the channels."""
    import h5py

    from inspector.formats.hdf5 import chunk_summary as cs
    from inspector.formats.hdf5.arrays import H5DatasetRef
    from inspector.formats.hdf5.source import H5Source

    monkeypatch.setattr(cs, "SUMMARY_MIN_BYTES", 0)
    path = tmp_path / "c.h5"
    with h5py.File(path, "w") as f:  # 51 chunks along time, 2 chunk columns of channels
        f.create_dataset("neuro", data=np.random.default_rng(4).standard_normal(
            (50_021, 5)).astype("f4"), chunks=(1000, 3), compression="gzip")
    gate = threading.Semaphore(0)

    class GatedH5(H5DatasetRef):
        def read_raw_chunk(self, offset):
            gate.acquire(timeout=30)
            return super().read_raw_chunk(offset)

    src = H5Source(path)
    ref = GatedH5(src, src.file["neuro"], "neuro")
    ref.attrs["sfreq"] = 1000.0
    view = NeuralView(ref, jobs)
    qtbot.addWidget(view)
    view.resize(800, 450)
    view.show()
    box = view.read_progress
    qtbot.waitUntil(lambda: bool(view.lines) and box.running, timeout=10000)
    columns = {idx[1] // 3 for ln in view.lines for idx in ln.indices}
    total = 51 * len(columns)
    assert len([i for ln in view.lines for i in ln.indices]) != total  # not channel reads
    gate.release(10)
    qtbot.waitUntil(lambda: box.isVisible() and box.bar.value() == 10, timeout=10000)
    assert box.bar.maximum() == total
    assert box.bar.text() == f"10 of {total} chunks ({int(1000 / total)}%)"
    qtbot.mouseClick(box.cancel, Qt.MouseButton.LeftButton)
    assert not box.isVisible() and view.is_idle()
    gate.release(10_000)
    jobs.wait(10000)
    src.close()


def _auc_view(qtbot, jobs, radius, signal, mask):
    from inspector.formats.capabilities import AucScans
    from inspector.ui.plots.auc import AucView

    scans = signal.shape[0]
    arrays = {"radius": radius, "signal": signal, "mask": mask}
    view = AucView(AucScans(scan_ids=tuple(f"s{i}" for i in range(scans)), radius_unit="cm",
                            signal_unit="AU"), arrays, jobs)
    qtbot.addWidget(view)
    view.resize(900, 450)
    view.show()
    return view


def test_the_auc_overview_shows_blocks_read_and_cancel_stops_it(qtbot, jobs):
    rng = np.random.default_rng(5)
    scans, points = 64, 8192  # two blocks of 32 scans (scan_envelope.BLOCK_POINTS)
    signal = GatedRef(np.cumsum(rng.standard_normal((scans, points)), axis=1))
    view = _auc_view(qtbot, jobs, NumpyArrayRef("radius", np.linspace(5.9, 7.2, points)),
                     signal, NumpyArrayRef("mask", np.ones((scans, points), bool)))
    box = view.read_progress
    qtbot.waitUntil(lambda: box.running, timeout=10000)
    # blocks needed: the radius axis (the extent) and the two blocks of scans
    signal.gate.release(1)  # the first block of scans is read, the second waits
    qtbot.waitUntil(lambda: box.isVisible() and box.bar.value() == 2, timeout=10000)
    assert box.bar.text() == "2 of 3 blocks (66%)" and _inside(box)
    assert not view.is_idle()
    qtbot.mouseClick(box.cancel, Qt.MouseButton.LeftButton)
    assert not box.isVisible() and not view.busy
    qtbot.waitUntil(view.is_idle, timeout=5000)  # (the line layers check their images)
    assert view.status.text().startswith("reading cancelled")
    signal.gate.release(100)
    jobs.wait(10000)
    qtbot.wait(50)
    assert view.is_idle() and view.drawn == 0  # the cancelled read draws nothing


def test_the_auc_overview_of_per_scan_radii_plans_both_passes(qtbot, jobs):
    """The extent pass and the envelopes read the same pieces of every scan: all of
    them are needed from the start, so the fraction done never falls back."""
    rng = np.random.default_rng(6)
    scans, points = 64, 8192
    radius = np.tile(np.linspace(5.9, 7.2, points), (scans, 1))
    signal = GatedRef(np.cumsum(rng.standard_normal((scans, points)), axis=1))
    view = _auc_view(qtbot, jobs, NumpyArrayRef("radius", radius), signal,
                     NumpyArrayRef("mask", np.ones((scans, points), bool)))
    box = view.read_progress
    maxima: list[int] = []
    box.bar.valueChanged.connect(lambda _v: maxima.append(box.bar.maximum()))
    qtbot.waitUntil(lambda: box.running, timeout=10000)
    signal.gate.release(1)  # the radius of both blocks (the extent), then one of signal
    qtbot.waitUntil(lambda: box.isVisible() and box.bar.value() == 3, timeout=10000)
    assert box.bar.text() == "3 of 4 blocks (75%)"
    assert set(maxima) == {4}
    signal.gate.release(100)
    qtbot.waitUntil(view.is_idle, timeout=10000)
    assert view.drawn == 1 and not box.isVisible()
