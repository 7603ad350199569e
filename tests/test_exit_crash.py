"""The shutdown crash's scenario exits cleanly and leaves no graphics item to PySide's exit
handler (``tests/reproducers/exit_crash.py``: drives of a bare plot widget whose owner is
deleted between turns, a window closed during its build, then a normal exit).

One clean exit cannot prove the crash gone: it depended on the order in which the exit
handler deleted what was left, and did not happen in every run.  What these tests pin down
is the condition for it, which is deterministic: the items left in no scene (over 100 in the
same scenario without the fix in ``ui.turns.run_in_turns``), and a crash at exit in this run,
which fails as a non-zero status.  The loop over fresh processes that counts crashes is in
the reproducer's docstring.
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
