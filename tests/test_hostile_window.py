"""Hostile inputs the window fuzzing target (fuzz/window.py) failed on, checked in the window.

Each case opens the real window in a child interpreter (``inspect_window`` owns the
QApplication there, see tests/test_fuzz_window.py); h5py is the oracle of what the file holds.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats import open_document
from inspector.formats.capabilities import Stimulus
from tests.conftest import FIXTURES
from tests.window_child import inspect_in_child

RECORDING = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"


def string_image(tmp_path: Path) -> Path:
    """The recording with stimulus 0's image retyped to 8-byte strings (8 x 8 x 3)."""
    path = tmp_path / "string_image.h5"
    shutil.copy(RECORDING, path)
    with h5py.File(path, "a") as f:
        del f["stimuli_db/0/image"]
        f["stimuli_db/0/image"] = np.full((8, 8, 3), b"abc", dtype="S8")
    return path


@pytest.mark.slow
def test_a_string_image_is_a_reader_finding_with_or_without_hashing(tmp_path):
    """Fuzzing found 'ValueError: could not convert string to float' on screen: an array
    stimulus of strings was handed to the thumbnail code as pixels."""
    path = string_image(tmp_path)
    with h5py.File(path) as f:
        assert f["stimuli_db/0/image"].dtype == np.dtype("S8")
    for hashing in (False, True):
        doc = open_document(path, hash_arrays=hashing)
        doc.verify()
        bad = [f for f in doc.findings if f.location == "/stimuli_db/0/image"]
        assert [(f.code, f.severity) for f in bad] == [("stimuli.undecodable", "error")]
        assert "|S8" in bad[0].message and "Error" not in bad[0].message
        stim = next(s for s in doc.stimuli if s.location == "/stimuli_db/0/image")
        with pytest.raises(ValueError, match="not pixel numbers"):
            stim.load()
        others = [s for s in doc.stimuli if s is not stim]
        assert others and all(s.load().dtype == np.uint8 for s in others)


@pytest.mark.slow
def test_a_string_image_in_the_window_shows_no_exception_text(tmp_path):
    report = inspect_in_child(string_image(tmp_path))
    codes = [(f["code"], f["location"]) for f in report["findings"]]
    assert ("stimuli.undecodable", "/stimuli_db/0/image") in codes
    assert "stimulus.unloadable" not in {c for c, _ in codes}  # the reader said it already


def _failing(message: str) -> Stimulus:
    def load() -> np.ndarray:
        raise ValueError(message)
    return Stimulus(7, "array", "/stimuli_db/7/image", load)


def test_a_thumbnail_that_cannot_be_loaded_says_why_without_the_exception_name(qtbot):
    from inspector.jobs import JobRunner
    from inspector.ui.stimuli_panel import StimuliPanel

    jobs = JobRunner()
    panel = StimuliPanel([_failing("shape (5,) is no image")], jobs)
    qtbot.addWidget(panel)
    got: list[str] = []
    panel.load_failed.connect(lambda _stim, message: got.append(message))
    panel.resize(300, 300)
    panel.show()
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)
    assert got == ["shape (5,) is no image"] and panel.model.error(0) == got[0]
    jobs.wait(5000)


@pytest.mark.parametrize("pixels", [np.zeros(5), np.full((2, 2), b"x", dtype="S1")])
@pytest.mark.slow
def test_the_stimulus_viewer_says_why_an_image_cannot_be_shown(qtbot, pixels):
    """A bad image is found on the job: the slot that receives it never raises."""
    from inspector.jobs import JobRunner
    from inspector.ui.trials.stimulus_viewer import StimulusViewer

    doc = open_document(RECORDING)
    jobs = JobRunner()
    stim = Stimulus(7, "array", "/stimuli_db/7/image", lambda: pixels)
    viewer = StimulusViewer(doc, stim, jobs, None)
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.facts.text().startswith("cannot be loaded"), timeout=10_000)
    assert "Error" not in viewer.facts.text() and viewer.image is None
    jobs.cancel_all()
    jobs.wait(5000)


@pytest.mark.slow
def test_an_auc_signal_near_the_float_limits_leaves_the_window_idle(tmp_path):
    """Fuzzing found a window never idle: signal values near 1e307 gave the plot a y range
    its line layer could not invert, and the layer redrew one image forever."""
    import io

    from tests.test_hostile_archives import base_members, build

    members = base_members()
    signal = np.load(io.BytesIO(members["arrays/signal.npy"]))
    signal[0, 0], signal[1, 1] = 5.6e307, -3.0e305
    buf = io.BytesIO()
    np.save(buf, signal)
    members["arrays/signal.npy"] = buf.getvalue()
    path = build(tmp_path / "huge_values.aucx", members)
    report = inspect_in_child(path)  # raises unless the window became idle
    assert report["ok"] is True, report["findings"]
