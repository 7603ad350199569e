"""The window fuzzing target (fuzz/window.py): its verdicts, and the window on hostile fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz.window import WindowFailure, _judge
from tests.window_child import inspect_in_child

AUCX = Path(__file__).parent / "fixtures" / "aucx"


def test_a_quiet_window_passes():
    _judge([], 12.0, ["3 scans", "checksum ok", "Unable to open object (bad version)"])


@pytest.mark.parametrize("raised, gap, texts, why", [
    (["IndexError: index 2 is out of bounds"], 1.0, [], "a slot raised"),
    ([], 535.0, [], "stalled for 535 ms"),
    ([], 1.0, ["cannot read radius: IndexError: index 2 is out of bounds"], "exception text"),
    ([], 1.0, ["Traceback (most recent call last):\n  File ..."], "exception text"),
])
def test_each_misbehaviour_is_a_failure(raised, gap, texts, why):
    with pytest.raises(WindowFailure, match=why):
        _judge(raised, gap, texts)


@pytest.mark.slow
def test_a_refused_signal_leaves_radius_plotted_per_scan_without_exception_text():
    """Fuzzing found a raw IndexError on the plot: radius (2 scans x 3 points, points on
    axis 1) was drawn as if its scans were samples."""
    report = inspect_in_child(AUCX / "bad_signal_pickled_object.aucx")
    assert report["ok"] is False
    # (with the signal refused, the experiment's structure is not checked: said, not passed)
    assert [f["code"] for f in report["findings"]] == ["array.pickled", "structure.not-checked"]
