"""The shutdown crash's scenario exits cleanly and leaves no graphics item to PySide's exit
handler (``tests/reproducers/exit_crash.py``: drives of a bare plot widget whose owner is
deleted between turns, a window closed during its build, then a normal exit).

One clean exit cannot prove a crash gone: the crash at exit was intermittent (about one
full run in eight when it was seen) and this scenario did not crash in 32 runs on the code
before the fix either.  What these tests pin down is its condition, which is deterministic:
the items left in no scene (334-488 in 32 runs of the reproducer's defaults on 97364a0^,
before the fix in ``ui.turns.run_in_turns``; the first test fails there), and a crash at exit
in this run, which fails as a non-zero status.  The loop over fresh processes that counts
crashes is in the reproducer's docstring.
"""

from __future__ import annotations

import json

import pytest

from tests.reproducers.exit_crash import stray_items
from tests.window_child import run_python

SCENARIO = ("from tests.reproducers.exit_crash import main\n"
            "main(['--seed', '7', '--drives', '24', '--windows', '1'])\n")


@pytest.mark.slow
def test_the_exit_crash_scenario_exits_cleanly_with_no_stray_item():
    out = run_python(SCENARIO, env={"QT_QPA_PLATFORM": "offscreen"}, timeout=300)
    report = json.loads(out.strip().splitlines()[-1])
    assert (report["drives"], report["windows"]) == (24, 1)
    assert report["stray_items"] == {} and report["stray_total"] == 0


def test_the_census_counts_an_item_in_no_scene(qapp):
    """The reproducer's census sees a scene-less graphics item that Python keeps alive."""
    import pyqtgraph as pg
    from shiboken6 import Shiboken

    before = stray_items()
    box = pg.ViewBox()
    after = stray_items()
    assert after["ViewBox"] == before["ViewBox"] + 1
    Shiboken.delete(box)
    assert stray_items()["ViewBox"] == before["ViewBox"]
