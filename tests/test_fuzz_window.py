"""The window fuzzing target (fuzz/window.py): its verdicts, and the window on hostile fixtures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.window import WindowFailure, _judge

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


def _inspect_in_child(path: Path) -> dict:
    """``inspect_window`` in a fresh interpreter (it owns the QApplication there)."""
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from fuzz.window import inspect_window\n"
            "print(inspect_window(Path(sys.argv[1])).line)\n")
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "QT_QPA_PLATFORM": "offscreen",
           "FUZZ_WINDOW_STALL_MS": "1e9",  # stalls and idle time are measured on a quiet
           "FUZZ_WINDOW_IDLE_S": "240"}    # machine, not here (the suite runs under load)
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_refused_signal_leaves_radius_plotted_per_scan_without_exception_text():
    """Fuzzing found a raw IndexError on the plot: radius (2 scans x 3 points, points on
    axis 1) was drawn as if its scans were samples."""
    report = _inspect_in_child(AUCX / "bad_signal_pickled_object.aucx")
    assert report["ok"] is False
    assert [f["code"] for f in report["findings"]] == ["array.pickled"]
