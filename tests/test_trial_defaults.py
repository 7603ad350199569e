"""Defaults a user need not undo: the Trials tab groups by the column naming the
conditions, not the first column of the trial metadata."""

from __future__ import annotations

import types

import pandas as pd

from inspector.ui.trials.panel import default_grouping


def _doc(frame: pd.DataFrame, stim_ids):
    table = types.SimpleNamespace(frame=lambda: frame, labels=list(frame.columns))
    trials = types.SimpleNamespace(trial_stim_ids=stim_ids)
    return types.SimpleNamespace(tables={"trial_meta": table}, trials=trials,
                                 trial_table=lambda: table)


def test_the_condition_column_groups_the_trials_first():
    n = 300
    frame = pd.DataFrame({"block": [i // 100 for i in range(n)],
                          "condition": [("faces", "houses", "scrambled")[i % 3] for i in range(n)],
                          "rt_ms": range(n)})
    doc = _doc(frame, [f"img{i % 24}" for i in range(n)])  # 24 stimuli: too many to group
    choices = [("stimulus", "stimulus"), *((c, c) for c in frame.columns)]
    assert default_grouping(doc, choices) == "condition"
    one = frame.assign(condition="faces")  # a condition column of one value does not group
    assert default_grouping(_doc(one, list(range(n))), choices) == "block"
    upper = frame.rename(columns={"condition": "Condition"})
    choices = [("stimulus", "stimulus"), *((c, c) for c in upper.columns)]
    assert default_grouping(_doc(upper, list(range(n))), choices) == "Condition"


def test_all_channels_are_one_click_away(qtbot):
    import numpy as np
    from PySide6.QtCore import Qt

    from inspector.formats.analysis.arrays import NumpyArrayRef
    from inspector.jobs import JobRunner
    from inspector.ui.plots import NeuralView

    jobs = JobRunner()
    ref = NumpyArrayRef("neuro", np.random.default_rng(4).standard_normal((500, 64)))
    view = NeuralView(ref, jobs)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    qtbot.waitUntil(view.is_idle, timeout=10000)
    assert len(view.selected_channels()) < 64
    button = view.all_channels
    assert button.isVisible() and button.text() == "All channels"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert view.selected_channels() == list(range(64))
    assert view.channel_label.text().startswith("Channels: 64 of 64")
    qtbot.waitUntil(view.is_idle, timeout=10000)
    jobs.cancel_all()
    jobs.wait(5000)


def test_the_summary_shows_a_run_of_equal_values_once(qtbot):
    from tests.conftest import FIXTURES
    from tests.test_window_polish import _window

    win = _window(qtbot, FIXTURES / "aucx/syn_moving_boundary_s42_20x300.aucx", size=(1280, 800))
    tab = win.current_tab()
    view = tab.summary.tree.view
    model = view.model()

    def find(parent, name):
        for r in range(model.rowCount(parent)):
            index = model.index(r, 0, parent)
            if index.data() == name:
                return index
            found = find(index, name)
            if found is not None:
                return found
        return None

    points = find(view.rootIndex(), "points_per_scan")
    assert points is not None and model.rowCount(points) == 1  # 20 equal counts: one row
    row = model.index(0, 0, points)
    assert row.data() == "0–19" and row.siblingAtColumn(1).data() == "300"


def test_an_empty_list_in_the_summary_is_an_empty_list_not_an_empty_text():
    from inspector.formats.auc.structure import _dict_nodes
    from inspector.formats.nodes.node import Node
    from inspector.models.value_text import value_text

    root = Node("summary", kind="group")
    _dict_nodes(root, {"wavelengths_nm": [], "channels": []})
    assert [value_text(c.value) for c in root.children] == ["[]", "[]"]
