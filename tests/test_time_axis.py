"""The neural plot's time axis is in seconds, or h:mm:ss for long recordings; never in
kiloseconds (pytest-qt, offscreen)."""

from __future__ import annotations

import numpy as np
import pytest

from inspector.ui.plots.time_axis import CLOCK_STEPS, clock_spacing, clock_text, is_clock
from tests.test_neural_navigation import make_view

pytestmark = pytest.mark.usefixtures("jobs")


def _axis(view):
    return view.plot_item.getAxis("bottom")


def test_twenty_minutes_are_labelled_in_seconds(qtbot, jobs):
    data = np.random.default_rng(0).standard_normal((1200, 2))
    view = make_view(qtbot, jobs, data, sfreq=1.0)  # 1 200 s
    axis = _axis(view)
    assert axis.labelString().count("(s)") == 1 and "ks" not in axis.labelString()
    assert axis.autoSIPrefixScale == 1.0 and not is_clock(axis)
    assert axis.tickStrings([0.0, 500.0, 1000.0], axis.autoSIPrefixScale, 500.0) == \
        ["0", "500", "1000"]


def test_nine_hours_are_labelled_in_hours_minutes_seconds(qtbot, jobs):
    data = np.random.default_rng(0).standard_normal((3240, 2))
    view = make_view(qtbot, jobs, data, sfreq=0.1)  # 32 400 s
    axis = _axis(view)
    assert is_clock(axis) and "(h:mm:ss)" in axis.labelString()
    assert axis.tickStrings([0.0, 3600.0, 7200.0, 32400.0], 1.0, 3600.0) == \
        ["0:00:00", "1:00:00", "2:00:00", "9:00:00"]
    (major, _), (minor, _) = axis.tickSpacing(0.0, 32400.0, view.plot_item.vb.width())
    assert major in CLOCK_STEPS and minor in CLOCK_STEPS and major % minor == 0
    view.plot_item.vb.setXRange(10.0, 60.0, padding=0)  # zoomed in near the start
    assert not is_clock(axis) and "(s)" in axis.labelString()


def test_clock_text_and_spacing():
    assert clock_text(3725.0, 5) == "1:02:05"
    assert clock_text(3600.25, 0.05) == "1:00:00.25"
    assert clock_text(-90.0, 30) == "-0:01:30"
    assert clock_spacing(32400.0, 1000.0) == (3600.0, 1800.0)  # 90 px: 2 916 s or more
    major, minor = clock_spacing(2.0, 800.0)
    assert major < 1 and minor == pytest.approx(major / 5)


def test_an_epoch_within_a_second_is_labelled_in_milliseconds(qtbot, jobs):
    data = np.random.default_rng(0).standard_normal((10, 64, 2))
    view = make_view(qtbot, jobs, data, sfreq=500.0)  # 64 samples: 128 ms
    axis = _axis(view)
    assert "(ms)" in axis.labelString() and not is_clock(axis)
    assert axis.tickStrings([0.0, 0.05, 0.1], 1.0, 0.05) == ["0", "50", "100"]
    (major, _), *_ = axis.tickSpacing(0.0, 0.128, 400.0)
    assert major * 1000.0 in (10.0, 20.0, 25.0, 50.0)
