"""The trial views (inspector.ui.trials) on the corpus recordings, offscreen.

Every number drawn is compared with what inspector.formats.analysis.trial_average returns
for the same arguments (itself checked against a numpy/pandas oracle in
test_trial_average and test_trial_views_analysis).  The event loop is driven
with qtbot.waitUntil; nothing depends on timing.
"""

from __future__ import annotations

import threading
from collections import Counter

import numpy as np
import pandas as pd
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, Qt
from test_trial_average import opened, write

from inspector.formats.analysis import trial_average as analysis
from inspector.formats.analysis import trial_reads
from inspector.formats.analysis.trial_average import trial_average
from inspector.formats.analysis.trial_conditions import STIMULUS, condition_of_trials
from inspector.formats.analysis.trial_matrix import trial_matrix, trial_order
from inspector.models.selection import TrialSelection
from inspector.ui.trials import TrialsPanel
from inspector.ui.trials import condition_plot as cp_mod
from inspector.ui.trials.common import MISSING_COLOR, PALETTE
from tests.conftest import FIXTURES

V1 = FIXTURES / "vneurotk" / "v1"
EPOCHS = V1 / "epochs_dense_f64_strids.h5"
CONTINUOUS = V1 / "continuous_dense_f32_intids.h5"
COO = V1 / "epochs_coo_sparse_f32.h5"


def settled(panel: TrialsPanel) -> bool:
    """Both views drew what the controls ask for."""
    avg, img = panel.average, panel.image
    return (not panel._timer.isActive() and not avg.running and not img.running
            and avg.request == panel.average_request() and avg.frame is not None
            and img.request == panel.image_request() and img.matrix is not None)


def make_panel(qtbot, jobs, path, *, by=None, channels=None, size=(900, 700)):
    doc = opened(path)
    selection = TrialSelection.for_document(doc)
    panel = TrialsPanel(doc, jobs, selection)
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    if by is not None:
        panel.set_by(by)
    if channels is not None:
        panel.set_channels(channels)
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    return panel, doc, selection


def legend_labels(view) -> list[str]:
    return [label.text for _sample, label in view.plot_item.legend.items]


# -- 1. condition averages ----------------------------------------------------------------


@pytest.mark.slow
def test_condition_average_draws_mean_and_sem_bands(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="cond", channels=[1])
    view = panel.average
    assert panel.baseline() == "recorded"  # trial_info/baseline by default
    expected = trial_average(doc, "cond", channels=[1], baseline="recorded")
    pd.testing.assert_frame_equal(view.frame, expected)
    labels, conditions = condition_of_trials(doc, "cond")
    assert [c.label for c in conditions] == ["low", "mid", "high"]  # category order
    counts = Counter(labels)
    assert legend_labels(view) == [f"{c.label} (n={counts[c]})" for c in conditions]
    times = np.arange(-16, 48) / 500.0
    for (name, x, y), (_n, lo, hi), cond in zip(view.curves(), view.bands(), conditions,
                                                strict=True):
        rows = expected[expected["condition"] == cond]
        assert name == f"{cond.label} · E2"
        np.testing.assert_array_equal(x, times)
        np.testing.assert_array_equal(y, rows["mean"].to_numpy())
        half = np.nan_to_num(rows["sem"].to_numpy(), nan=0.0)
        np.testing.assert_allclose(lo, rows["mean"].to_numpy() - half)
        np.testing.assert_allclose(hi, rows["mean"].to_numpy() + half)
    bands = [i for i in view.plot_item.items if isinstance(i, pg.FillBetweenItem)]
    assert len(bands) == 3
    colors = [b.brush().color().name() for b in bands]
    assert colors == [c.lower() for c in PALETTE[:3]]
    # the time axis: seconds with an SI prefix, a line at onset
    bottom = view.plot_item.getAxis("bottom")
    assert (bottom.labelText, bottom.labelUnits) == ("time from stimulus onset", "s")
    onset = [i for i in view.plot_item.items if isinstance(i, pg.InfiniteLine)]
    assert [line.value() for line in onset] == [0.0]
    assert view.status.text() == ("3 conditions, 10 trials, window -32 to 96 ms at 500 Hz, "
                                 "baseline-corrected")


@pytest.mark.slow
def test_condition_check_list_chooses_what_is_drawn(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="cond", channels=[0])
    view = panel.average
    assert view.shown() == [True, True, True]
    view.set_shown(1, False)
    assert [name for name, *_ in view.curves()] == ["low · E1", "high · E1"]
    assert legend_labels(view) == ["low (n=4)", "high (n=3)"]
    assert view.list_label.text() == "Conditions: 2 of 3 shown"
    # a new window keeps the choice of the same grouping
    panel.set_time_window(-10.0, 50.0)
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    assert view.frame.attrs["window_samples"] == (-5, 25)
    assert view.shown() == [True, False, True]
    view.set_all_shown(False)
    assert view.curves() == [] and legend_labels(view) == []
    view.set_all_shown(True)
    assert len(view.curves()) == 3


@pytest.mark.slow
def test_missing_values_are_a_group_labelled_missing(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="n_int", channels=[0])
    view = panel.average
    labels, conditions = condition_of_trials(doc, "n_int")
    assert conditions[-1].missing
    n_missing = sum(1 for c in labels if c.missing)
    assert n_missing == 2
    last = view.condition_list.item(view.condition_list.count() - 1)
    assert last.text() == f"missing  (n={n_missing})" and last.font().italic()
    assert last.toolTip() == f"trials without a value: {n_missing:,}"
    assert view.condition_list.uniformItemSizes()  # (thousands of conditions lay out fast)
    assert all(view.condition_list.item(i).flags() & Qt.ItemFlag.ItemIsUserCheckable
               for i in range(view.condition_list.count()))
    assert f"missing (n={n_missing})" in legend_labels(view)
    band = [i for i in view.plot_item.items if isinstance(i, pg.FillBetweenItem)][-1]
    assert band.brush().color().name() == MISSING_COLOR


@pytest.mark.slow
def test_several_channels_are_told_apart_by_line_style(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, COO, by="block", channels=[0, 3])
    view = panel.average
    pd.testing.assert_frame_equal(view.frame, trial_average(doc, "block", channels=[0, 3],
                                                                baseline="recorded"))
    names = [name for name, *_ in view.curves()]
    assert names[:2] == ["0 · u00", "0 · u03"] and len(names) == 8
    assert legend_labels(view)[-2:] == ["u00", "u03"]  # line-style key
    assert view.plot_item.getAxis("left").labelText == "mean (MUA), baseline-corrected"


@pytest.mark.slow
def test_window_and_baseline_controls(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, CONTINUOUS, by="hand", channels=[2])
    assert panel.time_window() is None  # the recorded window: each trial within its own
    assert (panel.win_from.value(), panel.win_to.value()) == (-40.0, 160.0)
    panel.set_time_window(0.0, 100.0)
    panel.set_baseline("pre-stimulus")
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    assert panel.average.request.window == (0.0, 0.1)
    expected = trial_average(doc, "hand", channels=[2], window=(0.0, 0.1),
                             baseline="prestimulus")
    pd.testing.assert_frame_equal(panel.average.frame, expected)
    assert panel.average.plot_item.getAxis("left").labelText.endswith("baseline-corrected")
    panel.set_baseline("custom")
    panel.base_from.setValue(-20.0)
    panel.base_to.setValue(-4.0)
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    assert panel.average.frame.attrs["baseline_samples"][0] == [-5, -1]
    m = trial_matrix(doc, 2, order=trial_order(doc, "hand").order, window=(0.0, 0.1),
                     baseline=(-0.02, -0.004), max_bins=panel.image.pixel_bins())
    np.testing.assert_array_equal(panel.image.matrix.values, m.values)
    panel.reset_window.click()
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    assert panel.time_window() is None
    assert panel.average.frame.attrs["window_samples"] == (-10, 40)


@pytest.mark.slow
def test_export_writes_the_trial_average_rows(qtbot, jobs, tmp_path):
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="n_int", channels=[0, 4])
    view = panel.average
    path = tmp_path / "avg.csv"
    assert view.export_csv(path) == len(view.frame)
    got = pd.read_csv(path, keep_default_na=False, na_values=["nan"])
    exp = view.frame
    assert list(got.columns) == list(exp.columns)
    assert got["condition"].tolist() == [c.label for c in exp["condition"]]
    for col in ("channel", "n"):
        np.testing.assert_array_equal(got[col].to_numpy(), exp[col].to_numpy())
    for col in ("time", "mean", "sem"):  # exact round trip, NaN where undefined
        np.testing.assert_array_equal(got[col].to_numpy(), exp[col].to_numpy())
    view.set_shown(0, False)
    assert view.export_csv(path) == len(exp) - (exp["condition"] == exp["condition"][0]).sum()
    assert "1" not in set(pd.read_csv(path, dtype=str)["condition"])
    # the export is the plot's context-menu action of inspector.ui.plots.base
    texts = [a.text() for a in view.plot_item.vb.menu.actions()]
    assert "Export plotted data as CSV…" in texts


@pytest.mark.slow
def test_time_in_samples_without_a_sampling_rate(qtbot, jobs, tmp_path):
    rng = np.random.default_rng(5)
    arr = rng.standard_normal((8, 20, 2))
    path = tmp_path / "norate.h5"
    write(path, arr, mode="epochs", onsets=np.full(8, 4, np.int64), ids=[1, 2] * 4,
          sfreq=None, trial_window=(-4, 16))
    panel, doc, _ = make_panel(qtbot, jobs, path, by=STIMULUS, channels=[1])
    view = panel.average
    bottom = view.plot_item.getAxis("bottom")
    assert bottom.labelText == "samples from stimulus onset (no sampling rate)"
    assert bottom.labelUnits == ""
    assert panel.win_from.suffix() == " samples" and panel.win_from.value() == -4
    assert view.frame["time"].dtype == np.int64
    np.testing.assert_array_equal(view.curves()[0][1], np.arange(-4, 16))
    panel.set_time_window(0, 8)
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    assert view.frame.attrs["window_samples"] == (0, 8)


@pytest.mark.slow
def test_progress_and_cancel(qtbot, jobs, monkeypatch):
    monkeypatch.setattr(trial_reads, "MAX_BLOCK_TRIALS", 4)
    panel, doc, _ = make_panel(qtbot, jobs, COO, by="block", channels=[0])
    view = panel.average
    first = view.frame
    gate, started = threading.Event(), threading.Event()
    real = cp_mod.trial_average

    def held(*args, **kwargs):
        started.set()
        gate.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(cp_mod, "trial_average", held)
    seen = []
    box = view.read_progress
    box.bar.valueChanged.connect(seen.append)
    view.run(view.request)
    assert view.running and box.running
    qtbot.waitUntil(started.is_set, timeout=5000)
    qtbot.waitUntil(box.isVisible, timeout=5000)  # floats over the plot after 1 s
    assert box.parentWidget().rect().contains(box.geometry())
    box.cancel.click()
    gate.set()
    jobs.wait(10000)
    qtbot.wait(20)
    assert not view.running and not box.isVisible() and not box.running
    assert view.status.text() == "cancelled: the plot shows the previous result"
    assert view.frame is first  # the cancelled result is dropped
    monkeypatch.setattr(cp_mod, "trial_average", real)
    view.run(view.request)
    qtbot.waitUntil(lambda: not view.running, timeout=20000)
    # progress in chunks read of chunks needed: here one read per block of 4 trials
    assert seen == sorted(seen) and seen[-1] == box.bar.maximum() == 6 and 1 in seen


@pytest.mark.slow
def test_bad_request_is_said_on_the_plot(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="cond", channels=[0])
    failures = []
    panel.average.failed.connect(failures.append)
    panel.set_channels([])
    qtbot.waitUntil(lambda: panel.average.placeholder_text() is not None, timeout=5000)
    assert panel.average.placeholder_text() == "Choose at least one channel (Channels)."
    panel.set_channels([0])
    qtbot.waitUntil(lambda: settled(panel) and panel.average.placeholder_text() is None,
                    timeout=20000)
    panel.average.run(cp_mod.AverageRequest("cond", (0,), window=(0.05, 0.05)))
    qtbot.waitUntil(lambda: bool(failures), timeout=20000)
    assert failures == ["window (0.05, 0.05) holds no sample"]
    assert panel.average.placeholder_text() == "Cannot average: " + failures[0]


# -- 2. trial image -----------------------------------------------------------------------


@pytest.mark.slow
def test_trial_image_rows_sorted_with_boundaries(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, COO, by="stim_index", channels=[2])
    img = panel.image
    assert img.sort_by() == "stim_index" and img.channel() == 2
    order = trial_order(doc, "stim_index")
    expected = trial_matrix(doc, 2, order=order.order, max_bins=img.pixel_bins(),
                            baseline="recorded")
    np.testing.assert_array_equal(img.matrix.values, expected.values)
    np.testing.assert_array_equal(img.img_item.image, expected.values)
    assert img.matrix.values.shape == (24, 40)  # 40 samples fit the width: not binned
    x, y = img.bounds_item.getData()
    np.testing.assert_array_equal(y[::2], order.starts[1:-1])
    assert isinstance(img.colorbar, pg.ColorBarItem)
    assert img.colorbar.levels() == pytest.approx(img.img_item.getLevels())
    ticks = img.plot_item.getAxis("left")._tickLevels[0]
    assert [t[1] for t in ticks] == [c.label for c in order.conditions]
    # sorting by another column, or not at all
    img.sort_combo.setCurrentIndex(img.sort_combo.findText("rt_ms"))
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    rt = doc.tables["trial_meta"].frame()["rt_ms"].to_numpy(np.float64)
    np.testing.assert_array_equal(img.matrix.order, np.argsort(rt, kind="stable"))
    img.sort_combo.setCurrentIndex(0)
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    np.testing.assert_array_equal(img.matrix.order, np.arange(24))
    assert img.bounds_item.getData()[0].size == 0


@pytest.mark.slow
def test_trial_image_is_binned_to_the_view_width(qtbot, jobs, monkeypatch, tmp_path):
    rng = np.random.default_rng(8)
    arr = rng.standard_normal((12, 3000, 1)).astype(np.float32)
    path = tmp_path / "long.h5"
    write(path, arr, mode="epochs", onsets=np.full(12, 1000, np.int64), ids=[1, 2, 3] * 4,
          chunks=(4, 500, 1), trial_window=(-1000, 2000))
    panel, doc, _ = make_panel(qtbot, jobs, path, by=STIMULUS, channels=[0], size=(700, 600))
    m = panel.image.matrix
    bins = panel.image.pixel_bins()
    assert bins < 3000 and m.values.shape[1] <= bins and m.bin_samples == -(-3000 // bins)
    np.testing.assert_array_equal(
        m.values, trial_matrix(doc, 0, order=trial_order(doc, STIMULUS).order,
                               max_bins=bins, baseline="recorded").values)


@pytest.mark.slow
def test_clicking_a_row_selects_its_trial(qtbot, jobs):
    panel, doc, selection = make_panel(qtbot, jobs, CONTINUOUS, by="hand", channels=[0])
    img = panel.image
    order = img.matrix.order
    t0, t1, _ = img.extent()
    pos = img.view_point_to_widget((t0 + t1) / 2, 2.5)  # the third sorted row
    qtbot.mouseClick(img.plot_widget.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(int(pos.x()), int(pos.y())))
    qtbot.waitUntil(lambda: not selection.is_empty(), timeout=5000)
    assert selection.trials.tolist() == [int(order[2])]
    assert img.selected_rows().tolist() == [2]
    assert img.strip_item.image[2, 0, 3] == 255 and img.strip_item.image[0, 0, 3] == 0
    pos = img.view_point_to_widget((t0 + t1) / 2, 4.5)
    qtbot.mouseClick(img.plot_widget.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.ControlModifier, QPoint(int(pos.x()), int(pos.y())))
    qtbot.waitUntil(lambda: selection.count == 2, timeout=5000)
    assert selection.trials.tolist() == sorted([int(order[2]), int(order[4])])
    # the average can be restricted to the selection
    assert panel.selected_box.isEnabled() and panel.selected_box.text().endswith("(2)")
    panel.selected_box.setChecked(True)
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    expected = trial_average(doc, "hand", channels=[0], trials=selection.trials,
                             baseline="recorded")
    pd.testing.assert_frame_equal(panel.average.frame, expected)


@pytest.mark.slow
def test_selected_trials_are_drawn_over_the_conditions(qtbot, jobs):
    panel, doc, selection = make_panel(qtbot, jobs, CONTINUOUS, by="hand", channels=[0])
    view = panel.average
    assert view.selection_curves() == []
    selection.set_trials([1, 3, 4], source="test")
    qtbot.waitUntil(lambda: view.is_idle() and view.selection_curves() != [], timeout=20000)
    expected = analysis.pooled(trial_average(doc, "hand", channels=[0], trials=[1, 3, 4],
                                             baseline="recorded"))
    [(name, x, y)] = view.selection_curves()
    assert name == "selected · Fz"
    np.testing.assert_array_equal(x, expected["time"].to_numpy())
    np.testing.assert_array_equal(y, expected["mean"].to_numpy())
    assert "selected trials (n=3)" in legend_labels(view)
    assert len(view.curves()) == len(view.conditions)  # the condition curves are unchanged
    # averaging the selection only: the conditions are the selection, no overlay
    panel.selected_box.setChecked(True)
    qtbot.waitUntil(lambda: settled(panel) and view.is_idle(), timeout=20000)
    assert view.selection_curves() == [] and "selected trials (n=3)" not in legend_labels(view)
    panel.selected_box.setChecked(False)
    qtbot.waitUntil(lambda: settled(panel) and view.selection_curves() != [], timeout=20000)
    selection.clear()
    qtbot.waitUntil(lambda: view.selection_curves() == [], timeout=20000)


@pytest.mark.slow
def test_values_below_one_are_not_rescaled(qtbot, jobs):
    # sparse spike counts: baseline-corrected means within (-1, 1); pyqtgraph would
    # otherwise draw 0.6 as 600 on an axis without units
    panel, doc, _ = make_panel(qtbot, jobs, COO, by="rt_ms", channels=[0])
    view = panel.average
    means = view.frame["mean"].to_numpy()
    assert 0 < np.nanmax(np.abs(means)) < 1
    view.plot_item.vb.updateAutoRange()  # pyqtgraph defers auto-range to the next paint
    (_x0, _x1), (y0, y1) = view.plot_item.vb.viewRange()
    assert max(abs(y0), abs(y1)) < 1
    left = view.plot_item.getAxis("left")
    assert left.autoSIPrefixScale == 1.0 and left.labelUnitPrefix == ""
    img = panel.image
    assert img.plot_item.getAxis("left").autoSIPrefixScale == 1.0
    assert not img.colorbar.axis.autoSIPrefix


def test_patterns_recording_has_no_trial_views(qtbot, jobs):
    doc = opened(V1 / "patterns_stim_index.h5")
    panel = TrialsPanel(doc, jobs, TrialSelection.for_document(doc))
    qtbot.addWidget(panel)
    assert panel.axis is None and panel.message.startswith("No trial views:")


@pytest.mark.slow
def test_trial_views_wheel_zooms_time_and_reset_view(qtbot, jobs):
    from test_plot_navigation import _spans, _wheel

    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="cond", channels=[0])
    img = panel.image
    vb = img.plot_item.vb
    vb.updateAutoRange()  # pyqtgraph defers auto-range to the next paint: apply it now
    x_span, y_span = _spans(vb)
    _wheel(img.plot_widget)
    assert _spans(vb)[0] < x_span and _spans(vb)[1] == pytest.approx(y_span)
    _wheel(img.plot_widget, Qt.KeyboardModifier.ControlModifier)
    assert _spans(vb)[1] < y_span
    assert vb.menu.actions()[0].text() == "Reset view"
    vb.menu.actions()[0].trigger()
    (x0, x1), (y0, y1) = vb.viewRange()
    t0, t1, n = img.extent()
    assert x1 >= t1 and y0 <= 0 and y1 >= n
    avg_vb = panel.average.plot_item.vb
    avg_vb.updateAutoRange()
    x_span = _spans(avg_vb)[0]
    _wheel(panel.average.plot_widget)
    assert _spans(avg_vb)[0] < x_span
    panel.average.reset_view()
    assert _spans(avg_vb)[0] == pytest.approx(x_span)


@pytest.mark.slow
def test_trial_image_hover_names_trial_time_and_value(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="cond", channels=[0])
    img = panel.image
    m = img.matrix
    trial = int(m.order[3])
    x = (m.edges[20] + m.edges[21]) / 2
    assert img.hover_text(x, 3.5) == (f"trial {trial}, {m.edges[20] * 1000:.4g} ms: "
                                      f"{m.values[3, 20]:.4g}")
    assert img.hover_text(x, -1.0) == "" and img.hover_text(m.edges[-1] + 1, 3.5) == ""


@pytest.mark.slow
def test_short_panes_show_one_view_at_a_time(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="cond", channels=[0])
    assert panel.compact is False and panel.splitter.count() == 2
    panel.resize(600, 420)
    qtbot.waitUntil(lambda: panel.compact is True, timeout=5000)
    tabs = panel.view_tabs
    assert [tabs.tabText(i) for i in range(tabs.count())] == ["Condition average", "Trial image"]
    assert tabs.widget(0) is panel.average and tabs.widget(1) is panel.image
    panel.set_by("n_bool")
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)  # both views still computed
    panel.resize(900, 700)
    qtbot.waitUntil(lambda: panel.compact is False, timeout=5000)
    assert panel.splitter.widget(0) is panel.average and panel.splitter.widget(1) is panel.image
    assert tabs.count() == 0


def test_legend_sits_under_the_plot_and_can_be_hidden(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="cond", channels=[0])
    view = panel.average
    legend = view.plot_item.legend
    assert legend.parentItem() is view.plot_item  # in the plot item's layout, not over the curves
    # the graphics layout is laid out on a later event-loop turn: wait for it
    qtbot.waitUntil(lambda: legend.mapRectToScene(legend.boundingRect()).top()
                    >= view.plot_item.vb.sceneBoundingRect().bottom(), timeout=10000)
    view.legend_box.setChecked(False)
    assert not legend.isVisible()
    view.legend_box.setChecked(True)
    assert legend.isVisible() and legend_labels(view) == ["low (n=4)", "mid (n=3)", "high (n=3)"]


@pytest.mark.slow
def test_legend_columns_fit_the_view(qtbot, jobs):
    # 5 stimulus IDs with long labels in a narrow pane: the legend never widens the plot
    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by=STIMULUS, channels=[0], size=(560, 700))
    view = panel.average
    width = view.plot_widget.viewport().width()
    qtbot.waitUntil(lambda: view.plot_item.width() <= width + 0.5, timeout=10000)
    legend = view.plot_item.legend
    assert 1 <= legend.columnCount < 5 and len(legend.items) == 5
    assert legend.effectiveSizeHint(Qt.SizeHint.MinimumSize).width() <= width
    panel.resize(1200, 700)  # wider: more columns, still inside the view
    qtbot.waitUntil(lambda: view.plot_widget.viewport().width() > width, timeout=10000)
    qtbot.waitUntil(lambda: legend.columnCount == 5, timeout=10000)
    assert view.plot_item.width() <= view.plot_widget.viewport().width() + 0.5


def test_baseline_defaults_to_the_recorded_one(qtbot, jobs):
    panel, doc, _ = make_panel(qtbot, jobs, CONTINUOUS, by="hand", channels=[0])
    # trial_info/baseline [-10, 0] samples at 250 Hz
    assert panel.base_combo.currentText() == "recorded (trial_info)"
    assert panel.average.frame.attrs["baseline_samples"][0] == [-10, 0]
    panel.set_baseline("custom")
    assert (panel.base_from.value(), panel.base_to.value()) == (-40.0, 0.0)
    assert panel.baseline() == (-0.04, 0.0)


@pytest.mark.slow
def test_views_follow_the_palette(qtbot, jobs):
    from PySide6.QtGui import QColor, QPalette

    panel, doc, _ = make_panel(qtbot, jobs, EPOCHS, by="cond", channels=[0, 1])
    pal = QPalette(panel.palette())
    pal.setColor(QPalette.ColorRole.Text, QColor("#fafafa"))
    pal.setColor(QPalette.ColorRole.Base, QColor("#202020"))
    panel.setPalette(pal)
    qtbot.waitUntil(lambda: panel.average.onset.pen.color().name() == "#fafafa", timeout=5000)
    assert panel.image.onset.pen.color().name() == "#fafafa"
    assert panel.image.bounds_item.opts["pen"].color().name() == "#fafafa"
    samples = [s for s, label in panel.average.plot_item.legend.items if label.text == "E1"]
    assert samples[0].item.opts["pen"].color().name() == "#fafafa"  # the channel key redrawn
    assert panel.is_idle()


#: The turns a bare plot widget is made in (inspector.ui.plots.base.plot_widget_in_steps).
PLOT_WIDGET_PARTS = ("view box", "axes", "plot item", "graphics view")


@pytest.mark.slow
def test_panel_built_in_steps_uses_the_plots_of_the_earlier_steps(qtbot, jobs):
    from PySide6.QtWidgets import QWidget

    from inspector.ui.trials import ConditionPlot, TrialImage, build_in_steps

    host = QWidget()
    qtbot.addWidget(host)
    doc = opened(EPOCHS)
    steps = build_in_steps(doc, jobs, TrialSelection.for_document(doc), host)
    for part in PLOT_WIDGET_PARTS[:-1]:  # a bare plot widget, a turn for each of its parts
        assert next(steps) is None, part
        assert not host.findChildren(pg.PlotWidget), part
    assert next(steps) is None
    [bare] = host.findChildren(pg.PlotWidget)
    assert not bare.isVisible() and not host.findChildren(ConditionPlot)
    assert next(steps) is None  # the condition plot, on that widget
    [average] = host.findChildren(ConditionPlot)
    assert average.plot_widget is bare
    for part in PLOT_WIDGET_PARTS:  # the trial image's widget
        assert next(steps) is None, part
        assert not host.findChildren(TrialImage)
    assert len(host.findChildren(pg.PlotWidget)) == 2
    assert next(steps) is None  # the trial image
    [image] = host.findChildren(TrialImage)
    assert image.plot_widget is not bare and image.plot_widget.getPlotItem() is image.plot_item
    panel = next(steps)
    assert isinstance(panel, TrialsPanel) and panel.parent() is host
    assert panel.average is average and panel.image is image
    assert average.parent() is not host and image.parent() is not host  # now the panel's
    with pytest.raises(StopIteration):
        next(steps)
    panel.resize(900, 700)
    panel.show()
    qtbot.waitUntil(lambda: settled(panel), timeout=20000)
    assert [c.label for c in average.conditions] == [c.label for c in trial_average(
        doc, panel.by(), channels=[0], baseline="recorded").attrs["conditions"]]
