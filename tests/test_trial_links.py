"""One trial selection per document: table, stimulus grid, trial views, status bar, and the
stimulus viewer (inspector.ui.trial_link, inspector.ui.trials.stimulus_viewer), offscreen."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QItemSelectionModel, QPoint, Qt
from test_trial_views import settled

from inspector.formats.analysis.trial_average import trial_average
from inspector.formats.analysis.trial_conditions import STIMULUS
from inspector.models.selection import TrialSelection
from inspector.ui.main_window import MainWindow
from inspector.ui.trials import StimulusViewer
from tests.conftest import FIXTURES, open_window

V1 = FIXTURES / "vneurotk" / "v1"
CONTINUOUS = V1 / "continuous_dense_f32_intids.h5"
EPOCHS = V1 / "epochs_dense_f64_strids.h5"


def _open(qtbot, path):
    win = open_window(qtbot, path, size=(1280, 800), show=True)
    tab = win.current_tab()
    _show_trials(tab)
    qtbot.waitUntil(lambda: tab.trials_panel is not None and settled(tab.trials_panel),
                    timeout=20000)
    return win, tab


def _show_trials(tab):
    """Make the Trials tab current: its views are built when it is first shown."""
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    tab.views.setCurrentIndex(titles.index("Trials"))


@pytest.mark.slow
def test_trial_views_are_built_when_their_tab_is_first_shown(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    win.open_paths([str(EPOCHS)])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=20000)
    tab = win.current_tab()
    # hidden, the Trials tab runs nothing, and the tab counts as settled (--screenshot)
    qtbot.waitUntil(tab.is_settled, timeout=20000)
    assert tab.trials_panel is None and tab.views.tabText(tab.views.currentIndex()) != "Trials"
    tab.selection.set_trials([2, 5], source="test")  # chosen before the views exist
    _show_trials(tab)
    assert not tab.is_settled()  # the views are coming
    qtbot.waitUntil(lambda: tab.trials_panel is not None and settled(tab.trials_panel),
                    timeout=20000)
    panel = tab.trials_panel
    assert tab.views.currentWidget() is panel and tab.views.tabText(
        tab.views.currentIndex()) == "Trials"
    assert panel.image.selected_rows().tolist() == sorted(
        panel.image.matrix.rows_of_trials([2, 5]).tolist())
    qtbot.waitUntil(lambda: panel.average.selection_curves() != [], timeout=20000)
    qtbot.waitUntil(tab.is_settled, timeout=20000)


def _select_table_rows(table, rows):
    sm = table.view.selectionModel()
    sm.clearSelection()
    for r in rows:
        sm.select(table.model.index(r, 0), QItemSelectionModel.SelectionFlag.Select
                  | QItemSelectionModel.SelectionFlag.Rows)


def _grid_selection(stimuli) -> list:
    rows = sorted({i.row() for i in stimuli.view.selectionModel().selectedIndexes()})
    return [stimuli.model.stimulus(r).stim_id for r in rows]


def _table_selection(table) -> list[int]:
    return table.selected_positions().tolist()


def test_selection_model_typed_stimuli():
    sel = TrialSelection(6, [3, "3", 7, None, 3, True])
    seen = []
    sel.changed.connect(seen.append)
    sel.select_stimuli([3], source="grid")
    assert sel.trials.tolist() == [0, 4] and seen == ["grid"]
    sel.select_stimuli([3], source="grid")  # unchanged: no signal
    assert seen == ["grid"]
    assert sel.stimuli_of_trials([1, 2, 3]) == {sel.stimuli_of_trials([1]).pop(),
                                                sel.stimuli_of_trials([2]).pop()}
    assert sel.trials_of_stimuli(["3"]).tolist() == [1]
    assert sel.trials_of_stimuli([True]).tolist() == [5]
    sel.set_trials([5, 9, -1, 5])
    assert sel.trials.tolist() == [5] and sel.text() == "1 of 6 trials selected"
    sel.clear()
    assert sel.is_empty() and sel.text() == ""


@pytest.mark.slow
def test_table_rows_select_trials_everywhere(qtbot):
    win, tab = _open(qtbot, CONTINUOUS)
    table, stimuli, panel, sel = (tab.tables["trial_meta"], tab.stimuli, tab.trials_panel,
                                  tab.selection)
    ids = list(tab.doc.trials.trial_stim_ids)
    assert ids == [3, 7, 11, 7, 3, 15]
    _select_table_rows(table, [1, 2])
    assert sel.trials.tolist() == [1, 2]
    assert _grid_selection(stimuli) == [7, 11]
    assert panel.image.selected_rows().tolist() == sorted(
        panel.image.matrix.rows_of_trials([1, 2]).tolist())
    assert tab.status_text.endswith("2 of 6 trials selected")
    assert win.statusBar().currentMessage().endswith("2 of 6 trials selected")
    # sorting the table keeps the same trials selected
    table.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    assert _table_selection(table) == [1, 2] and sel.trials.tolist() == [1, 2]
    # filtering selects the rows the filter keeps
    table.view.selectionModel().clearSelection()
    assert sel.is_empty() and not tab.status_text.endswith("selected")
    table.filter_edit.setText("right")
    table.apply_filter_now()
    hand = tab.doc.tables["trial_meta"].frame()["hand"].tolist()
    assert sel.trials.tolist() == [i for i, h in enumerate(hand) if h == "right"] == [1, 4, 5]
    assert _grid_selection(stimuli) == [3, 7, 15]
    table.filter_edit.setText("")
    table.apply_filter_now()
    assert sel.is_empty()


@pytest.mark.slow
def test_stimulus_selects_its_trials(qtbot):
    win, tab = _open(qtbot, CONTINUOUS)
    table, stimuli, sel = tab.tables["trial_meta"], tab.stimuli, tab.selection
    row = [stimuli.model.stimulus(r).stim_id for r in range(stimuli.model.rowCount())].index(3)
    stimuli.view.selectionModel().select(stimuli.model.index(row),
                                         QItemSelectionModel.SelectionFlag.ClearAndSelect)
    assert sel.trials.tolist() == [0, 4]
    assert _table_selection(table) == [0, 4]
    assert _grid_selection(stimuli) == [3]  # not widened by its own echo
    # several stimuli: the trials of any of them
    row15 = [stimuli.model.stimulus(r).stim_id
             for r in range(stimuli.model.rowCount())].index(15)
    stimuli.view.selectionModel().select(stimuli.model.index(row15),
                                         QItemSelectionModel.SelectionFlag.Select)
    assert sel.trials.tolist() == [0, 4, 5] and _table_selection(table) == [0, 4, 5]
    stimuli.view.selectionModel().clearSelection()
    assert sel.is_empty() and _table_selection(table) == []


@pytest.mark.slow
def test_trial_image_click_selects_the_table_row(qtbot):
    win, tab = _open(qtbot, EPOCHS)
    img, table, sel = tab.trials_panel.image, tab.tables["trial_meta"], tab.selection
    t0, t1, _ = img.extent()
    pos = img.view_point_to_widget((t0 + t1) / 2, 6.5)
    qtbot.mouseClick(img.plot_widget.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(int(pos.x()), int(pos.y())))
    qtbot.waitUntil(lambda: not sel.is_empty(), timeout=5000)
    trial = int(img.matrix.order[6])
    assert sel.trials.tolist() == [trial] and _table_selection(table) == [trial]
    assert _grid_selection(tab.stimuli) == [tab.doc.trials.trial_stim_ids[trial]]
    assert tab.status_text.endswith("1 of 10 trials selected")


@pytest.mark.slow
def test_double_click_opens_the_stimulus_viewer(qtbot):
    win, tab = _open(qtbot, CONTINUOUS)
    stimuli = tab.stimuli
    tab.views.setCurrentWidget(stimuli)
    qtbot.waitUntil(lambda: stimuli.view.isVisible() and stimuli.view.viewport().width() > 100,
                    timeout=5000)
    row = [stimuli.model.stimulus(r).stim_id for r in range(stimuli.model.rowCount())].index(7)
    rect = stimuli.view.visualRect(stimuli.model.index(row))
    # a double-click is a press and release, then a second press delivered as a double-click
    qtbot.mouseClick(stimuli.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(stimuli.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: len(tab.trial_links.viewers) == 1, timeout=5000)
    viewer = tab.trial_links.viewers[0]
    assert isinstance(viewer, StimulusViewer) and viewer.isVisible()
    stim = stimuli.model.stimulus(row)
    qtbot.waitUntil(lambda: viewer.image is not None and viewer.plot.frame is not None,
                    timeout=20000)
    arr = stim.load()
    np.testing.assert_array_equal(viewer.image, arr)
    h, w = arr.shape[:2]
    assert viewer.facts.text().startswith(f"{w} × {h} px") and str(arr.dtype) in viewer.facts.text()
    assert viewer.id_label.text().startswith("ID 7 (int)")
    px = arr[1, 2]
    shown = (str(px.item()) if np.ndim(px) == 0
             else "[" + ", ".join(str(c) for c in np.asarray(px).tolist()) + "]")
    assert viewer.pixel_text(2.5, 1.5) == f"x 2, y 1: {shown}"
    assert viewer.pixel_text(-1, 0) == "" and viewer.pixel_text(w + 1, 0) == ""
    assert viewer.windowTitle() == "Stimulus 7"
    assert viewer.trials.tolist() == [1, 3]
    assert viewer.count_label.text() == "Shown in 2 of 6 trials"
    assert [viewer.trial_list.item(i).text() for i in range(2)] == ["trial 1", "trial 3"]
    expected = trial_average(tab.doc, STIMULUS, channels=[0], trials=[1, 3])
    pd.testing.assert_frame_equal(viewer.plot.frame, expected)
    assert [c.label for c in viewer.plot.conditions] == ["7"]
    assert viewer.plot.trial_counts() == [2]
    viewer.channel_combo.setCurrentIndex(3)
    qtbot.waitUntil(lambda: viewer.plot.frame is not None and not viewer.plot.running
                    and list(viewer.plot.frame["channel"].unique()) == [3], timeout=20000)
    # zoom: fit, then one screen pixel per image pixel
    viewer.actual_size()
    assert viewer.zoom() == pytest.approx(1.0, rel=0.02)
    viewer.select_button.click()
    assert tab.selection.trials.tolist() == [1, 3]
    viewer.close()
    qtbot.waitUntil(lambda: tab.trial_links.viewers == [], timeout=5000)


@pytest.mark.slow
def test_viewer_of_a_stimulus_no_trial_showed(qtbot):
    win, tab = _open(qtbot, CONTINUOUS)
    # every stimulus of the file was shown; the text "15" (not the int 15) never was
    stim = dataclasses.replace(next(s for s in tab.doc.stimuli if s.stim_id == 15),
                               stim_id="15")
    tab.trial_links.open_viewer(stim)
    qtbot.waitUntil(lambda: len(tab.trial_links.viewers) == 1, timeout=20000)
    viewer = tab.trial_links.viewers[0]
    qtbot.waitUntil(lambda: viewer.image is not None, timeout=20000)
    assert viewer.count_label.text() == "Not shown in any trial"
    assert not viewer.select_button.isEnabled()
    assert viewer.plot.placeholder_text() == ("No trial showed this stimulus: "
                                              "nothing to average.")
    viewer.close()


@pytest.mark.slow
def test_closing_the_tab_stops_the_trial_jobs(qtbot):
    win, tab = _open(qtbot, EPOCHS)
    panel = tab.trials_panel
    panel.set_by("n_str")
    panel.run()
    win.close_tab(win.tabs.indexOf(tab))
    win.jobs.wait(10000)
    qtbot.wait(20)
    assert not win.jobs.busy
