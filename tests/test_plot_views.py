"""Plot widgets: curves for corpus files, coalesced requests, stale results, exports."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.document import Document
from inspector.ui.plots import AucView, NeuralView, PatternView, PlotPanel
from tests.conftest import FIXTURES, load_expected


def settle(qtbot, jobs, view=None, rounds=3):
    """Let timers fire and jobs finish (a request follows a change on the next turn)."""
    for _ in range(rounds):
        qtbot.wait(20)
        jobs.wait(5000)
        qtbot.wait(10)


def panel_for(qtbot, jobs, path, name):
    from inspector.formats import open_document

    doc = open_document(path)
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.resize(800, 450)
    panel.show()
    panel.show_array(name)
    settle(qtbot, jobs)
    return panel, doc


def auc_view_for(qtbot, jobs, path):
    from inspector.formats import open_document

    doc = open_document(path)
    assert doc.auc is not None  # the AUCX reader offers the experiment
    view = AucView(doc.auc, doc.arrays, jobs)
    qtbot.addWidget(view)
    view.resize(800, 450)
    view.show()
    qtbot.waitUntil(lambda: view.drawn >= 1 and not view.busy and view.ready, timeout=10_000)
    return view, doc


def test_aucx_demo_draws_one_curve_per_scan(qtbot, jobs):
    exp = next(e for e in load_expected("aucx") if e["file"] == "src_demo_experiment.aucx")
    view, doc = auc_view_for(qtbot, jobs, FIXTURES / "aucx" / "src_demo_experiment.aucx")
    assert isinstance(view, AucView)
    curves = view.curves()
    assert len(curves) == exp["info"]["n_scans"] == 4
    assert [c[0] for c in curves] == exp["info"]["scan_ids"]
    assert all(np.isfinite(c[2]).sum() == exp["info"]["n_points"] for c in curves)
    assert view.plot_item.getAxis("bottom").labelText == f"radius ({exp['info']['radius_unit']})"
    # hide and highlight from the list
    view.set_visible(1, False)
    assert len(view.curves()) == 3
    view.highlight(2)
    assert view.pen(2).width() == 3
    assert view.pen(0).color().alpha() == 50
    doc.close()


def test_per_scan_archive_never_draws_masked_points(qtbot, jobs):
    panel, doc = panel_for(qtbot, jobs, FIXTURES / "aucx" / "syn_per_scan_radius_s2_8x150.aucx",
                           "signal")
    exp = doc.auc.experiment or doc.export.load()
    view = panel.view
    assert len(view.curves()) == exp.n_scans
    for i, (_, x, y) in enumerate(view.curves()):
        drawn = np.isfinite(y)
        assert drawn.sum() == exp.mask[i].sum()
        np.testing.assert_array_equal(x[drawn], exp.scan_radius(i))
        np.testing.assert_array_equal(y[drawn], exp.scan_signal(i))
        assert not drawn[~exp.mask[i]].any()
    doc.close()


def test_scan_curves_break_at_masked_gaps():
    from inspector.formats.analysis.scan_envelope import scan_envelopes

    radius = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    signal = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]])
    mask = np.array([[True, True, False, True, True]])
    x, y = scan_envelopes(radius, signal, mask, 1.0, 5.0, 100).curve(0)
    assert np.isnan(y[2]) and np.isnan(x[2]) and list(y[[0, 1, 3, 4]]) == [1, 2, 4, 5]


@pytest.mark.slow
def test_continuous_recording_plots_selected_channels(qtbot, jobs):
    panel, doc = panel_for(qtbot, jobs, FIXTURES / "vneurotk/v1/continuous_small_chunks.h5",
                           "neuro")
    view = panel.view
    assert isinstance(view, NeuralView)
    ref = doc.arrays["neuro"]
    assert view.sfreq == 256.0 and view.x_label == "s"
    assert [c[0] for c in view.curves()] == ref.attrs["ch_names"][:4]
    view.channel_list.clearSelection()
    for i in (1, 5, 9):
        view.channel_list.item(i).setSelected(True)
    settle(qtbot, jobs)
    curves = view.curves()
    assert [c[0] for c in curves] == [ref.attrs["ch_names"][i] for i in (1, 5, 9)]
    assert view.marker_count() == 15  # 5 trial starts + 5 ends + 5 onsets in view
    view.mode.setCurrentText("Overlaid")
    data = ref.read()
    for (_, x, y), ch in zip(view.curves(), (1, 5, 9), strict=True):
        # 2048 samples at ~1000 px: min/max per pixel, values within the channel's range
        assert np.nanmin(y) == pytest.approx(float(data[:, ch].min()))
        assert np.nanmax(y) == pytest.approx(float(data[:, ch].max()))
        assert x[0] >= 0 and x[-1] <= 2048 / 256.0
    view.markers_box.setChecked(False)
    assert view.marker_count() == 0
    doc.close()


@pytest.mark.slow
def test_epochs_recording_trials_and_overlay(qtbot, jobs):
    panel, doc = panel_for(qtbot, jobs, FIXTURES / "vneurotk/v1/epochs_dense_f64_strids.h5",
                           "neuro")
    view = panel.view
    ref = doc.arrays["neuro"]
    assert view.epochs and view.n_trials == ref.shape[0]
    assert len(view.curves()) == min(4, ref.shape[2])
    view.trial_list.item(3).setSelected(True)
    settle(qtbot, jobs)
    assert len(view.curves()) == 2 * min(4, ref.shape[2])
    view.mode.setCurrentText("Overlaid")
    name, x, y = view.curves()[-1]
    np.testing.assert_allclose(y, ref.read()[3, :, 3])  # raw samples of trial 3
    view.overlay_box.setChecked(True)
    settle(qtbot, jobs)
    name, x, y = view.curves()[0]
    assert "all trials" in name and np.isnan(y).sum() == ref.shape[0]  # one break per trial
    doc.close()


@pytest.mark.slow
def test_patterns_recording_heatmap(qtbot, jobs):
    panel, doc = panel_for(qtbot, jobs, FIXTURES / "vneurotk/v1/patterns_stim_index.h5",
                           "neuro")
    view = panel.view
    assert isinstance(view, PatternView)
    np.testing.assert_array_equal(view.image, doc.arrays["neuro"].read().astype(np.float64))
    assert view.colorbar is not None
    rows, cols = view.image.shape  # cell (r, f) centred on (f, r): ticks name cells
    rect = view.img_item.mapRectToParent(view.img_item.boundingRect())
    assert (rect.left(), rect.top(), rect.width(), rect.height()) == pytest.approx(
        (-0.5, -0.5, cols, rows))
    doc.close()


def _doc(array, **attrs):
    doc = Document(Path("mem.h5"))
    ref = NumpyArrayRef("neuro", array)
    ref.attrs.update(attrs)
    doc.arrays["neuro"] = ref
    return doc


@pytest.mark.parametrize("array", [np.zeros((0, 4)), np.zeros((0, 0, 2))])
def test_empty_array_placeholder(qtbot, jobs, array):
    view = NeuralView(_doc(array).arrays["neuro"], jobs)
    qtbot.addWidget(view)
    assert "empty array" in view.placeholder_text()


def test_single_sample_is_one_point(qtbot, jobs):
    view = NeuralView(_doc(np.array([[4.0, 5.0]])).arrays["neuro"], jobs)
    qtbot.addWidget(view)
    view.show()
    view.mode.setCurrentText("Overlaid")
    settle(qtbot, jobs)
    (_, x, y), (_, x2, y2) = view.curves()
    assert list(x) == [0.0] and list(y) == [4.0] and list(y2) == [5.0]
    assert view.lines[0].item.opts["symbol"] == "o"


@pytest.mark.slow
def test_int_and_big_endian_and_nan_autoscale(qtbot, jobs):
    a = np.zeros((50_000, 3), dtype=">i8")
    a[:, 0] = np.iinfo(np.int64).max
    a[::2, 1] = np.iinfo(np.int64).min
    f = np.linspace(-1, 1, 50_000)
    f[100:20_000] = np.nan
    f[30_000] = np.inf
    doc = _doc(a)
    view = NeuralView(doc.arrays["neuro"], jobs)
    qtbot.addWidget(view)
    view.show()
    view.mode.setCurrentText("Overlaid")
    settle(qtbot, jobs)
    ys = [c[2] for c in view.curves()]
    assert np.nanmax(ys[0]) == float(np.iinfo(np.int64).max)
    assert np.nanmin(ys[1]) == float(np.iinfo(np.int64).min)
    _, (y0, y1) = view.plot_item.vb.viewRange()
    assert np.isfinite(y0) and np.isfinite(y1) and y1 > y0
    view2 = NeuralView(_doc(f.reshape(-1, 1)).arrays["neuro"], jobs)
    qtbot.addWidget(view2)
    view2.show()
    settle(qtbot, jobs)
    (_, x, y), = view2.curves()
    assert np.isnan(y).any() and np.all(np.isfinite(y[~np.isnan(y)]))
    _, (y0, y1) = view2.plot_item.vb.viewRange()
    assert -1.5 < y0 < y1 < 1.5


class SlowRef(NumpyArrayRef):
    """Blocks reads until released; records the ranges asked for."""

    def __init__(self, a):
        super().__init__("slow", a)
        self.gate = threading.Event()
        self.ranges = []

    def envelope(self, index, start, stop, bins, *, preview=None, cancelled=None):
        self.ranges.append((start, stop))
        self.gate.wait(5)
        return super().envelope(index, start, stop, bins)


def test_range_changes_of_one_turn_make_one_request(qtbot, jobs):
    a = np.random.default_rng(0).standard_normal((100_000, 1))
    view = NeuralView(_doc(a).arrays["neuro"], jobs)
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    settle(qtbot, jobs)
    before = view.submitted
    for k in range(10):  # a burst of zoom steps within one event-loop turn
        view.plot_item.vb.setXRange(1000 + k * 100, 20_000 - k * 100, padding=0)
    assert view.submitted == before  # nothing requested during the burst
    qtbot.waitUntil(lambda: view.submitted == before + 1, timeout=2000)
    jobs.wait(5000)
    qtbot.waitUntil(view.is_idle, timeout=2000)
    assert view.submitted == before + 1
    (_, x, _), = view.curves()
    assert x[0] >= 1000 - 0.5 * 19_000 and x[-1] <= 20_000 + 0.5 * 19_000 + 1
    assert view.lines[0].raw is False


def test_stale_results_are_dropped(qtbot, jobs):
    a = np.arange(200_000, dtype=np.float64).reshape(-1, 1)
    ref = SlowRef(a)
    view = NeuralView(ref, jobs)
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    qtbot.waitUntil(lambda: len(ref.ranges) == 1, timeout=2000)  # first request blocked in the job
    view.plot_item.vb.setXRange(150_000, 150_100, padding=0)  # zoom far in: raw samples
    for _ in range(5):
        qtbot.wait(1)
    assert len(ref.ranges) == 1 and not view.is_idle()  # one job at a time: the zoom is pending
    ref.gate.set()
    qtbot.waitUntil(lambda: len(ref.ranges) == 2 and view.is_idle(), timeout=5000)
    line = view.lines[0]
    assert line.raw  # the newest answer (raw samples of the zoomed window) is shown
    assert np.nanmin(line.y) >= 150_000 - 50 - 1 and np.nanmax(line.y) < 150_100 + 51 + 1


@pytest.mark.slow
def test_exports(qtbot, jobs, tmp_path):
    panel, doc = panel_for(qtbot, jobs, FIXTURES / "aucx" / "src_demo_experiment.aucx", "radius")
    view = panel.view
    view.export_png(tmp_path / "p.png", width=400)
    view.export_svg(tmp_path / "p.svg")
    rows = view.export_csv(tmp_path / "p.csv")
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "p.svg").read_bytes()[:2000]
    lines = (tmp_path / "p.csv").read_text().splitlines()
    assert lines[0] == "curve,x [cm],y [AU]" and rows == len(lines) - 1 == 4 * 12
    assert lines[1].startswith("scan_001,")
    actions = [a.text() for a in view.plot_item.vb.menu.actions()]
    assert {"Export as PNG…", "Export as SVG…", "Export plotted data as CSV…"} <= set(actions)
    doc.close()


def test_unknown_array_message(qtbot, jobs):
    panel = PlotPanel(Document(Path("x.h5")), jobs)
    qtbot.addWidget(panel)
    panel.show_array("nope")
    assert "No array named 'nope'" in panel.message()


def test_expected_json_is_the_oracle():
    # the AUC test above compares against these facts; make sure they are what we think
    exp = json.loads((FIXTURES / "aucx" / "expected.json").read_text())
    demo = next(e for e in exp if e["file"] == "src_demo_experiment.aucx")
    assert demo["info"]["n_scans"] == 4 and demo["info"]["radius_unit"] == "cm"


def _auc_doc(untrusted=frozenset()):
    from inspector.formats.capabilities import AucScans

    doc = Document(Path("mem.aucx"))
    radius = np.linspace(6.0, 7.0, 5)
    signal = np.vstack([radius * 0.1, radius * 0.2])
    doc.arrays = {"radius": NumpyArrayRef("radius", radius),
                  "signal": NumpyArrayRef("signal", signal),
                  "mask": NumpyArrayRef("mask", np.ones(signal.shape, bool))}
    doc.auc = AucScans(("s1", "s2"), "cm", "AU", untrusted_arrays=frozenset(untrusted))
    return doc


def shown_texts(panel):
    """Every text the panel shows: its visible labels and the plot's title."""
    from PySide6.QtWidgets import QLabel

    texts = [w.text() for w in panel.findChildren(QLabel) if w.isVisible()]
    title = panel.view.plot_item.titleLabel
    if title.isVisible():
        texts.append(title.text)
    return texts


@pytest.mark.slow
def test_untrusted_arrays_are_plotted_with_one_note(qtbot, jobs):
    doc = _auc_doc({"signal"})
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.show()
    assert panel.default_array() == "signal"
    panel.show_array("radius")
    settle(qtbot, jobs)
    assert isinstance(panel.view, AucView) and [c[0] for c in panel.view.curves()] == ["s1", "s2"]
    assert panel.warning_text() == "signal.npy failed its checksum: values shown are not verified"
    said = " ".join(shown_texts(panel)).lower()
    assert said.count("not verified") == 1 and said.count("failed its checksum") == 1
    assert panel.warning_text() in panel.view.plot_item.titleLabel.text  # on the plot
    trusted = PlotPanel(_auc_doc(), jobs)
    qtbot.addWidget(trusted)
    trusted.show()
    trusted.show_array("signal")
    settle(qtbot, jobs)
    assert isinstance(trusted.view, AucView) and trusted.warning_text() == ""
    assert "not verified" not in " ".join(shown_texts(trusted)).lower()


@pytest.mark.slow
def test_a_corrupted_archive_says_not_verified_once(qtbot, jobs):
    from inspector.formats import open_document

    doc = open_document(FIXTURES / "aucx" / "bad_signal_byte_flip.aucx")
    doc.verify()  # arrays/signal.npy: MISMATCH
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.resize(800, 450)
    panel.show()
    panel.show_array(panel.default_array())
    qtbot.waitUntil(lambda: isinstance(panel.view, AucView) and panel.view.ready
                    and panel.view.drawn >= 1 and not panel.view.busy, timeout=10_000)
    said = " ".join(shown_texts(panel)).lower()
    assert said.count("not verified") == 1
    assert "signal.npy failed its checksum" in panel.view.plot_item.titleLabel.text
    doc.close()


@pytest.mark.slow
def test_a_withdrawn_experiment_or_array_is_said_on_the_plot(qtbot, jobs):
    from inspector.formats.capabilities import CheckResult
    from inspector.ui.plots.panel import WITHDRAWN_AUC

    class Check:
        title = "by hand"

    doc = _auc_doc()
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.show_array("signal")
    settle(qtbot, jobs)
    check = Check()
    doc.checks = [check]
    doc.apply(check, CheckResult(withdraw_auc=True))
    panel.refresh()
    assert panel.view is None and panel.message() == WITHDRAWN_AUC
    panel.show_array("radius")  # still in doc.arrays, but it belonged to the experiment
    assert panel.message() == WITHDRAWN_AUC
    rec = _doc(np.zeros((10, 2)))
    rec_panel = PlotPanel(rec, jobs)
    qtbot.addWidget(rec_panel)
    rec_panel.show_array("neuro")
    assert isinstance(rec_panel.view, NeuralView)
    rec.checks = [check]
    rec.apply(check, CheckResult(withdraw_arrays=("neuro",)))
    rec_panel.refresh(("neuro",))
    assert rec_panel.view is None and "'neuro' is no longer plotted" in rec_panel.message()


@pytest.mark.slow
def test_a_checksum_failure_found_after_the_plot_is_noted_on_the_same_view(qtbot, jobs):
    from dataclasses import replace

    doc = _auc_doc()
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.show_array("signal")
    settle(qtbot, jobs)
    view = panel.view
    assert isinstance(view, AucView) and view.note == ""
    doc.auc = replace(doc.auc, untrusted_arrays=frozenset({"signal"}))  # as a check applies it
    panel.refresh()
    assert panel.view is view  # not built again
    assert view.note == "signal.npy failed its checksum: values shown are not verified"
    doc.auc = replace(doc.auc, scan_ids=("other",) * len(doc.auc.scan_ids))
    panel.refresh()  # anything else that changed: a new view
    assert panel.view is not view and isinstance(panel.view, AucView)


def test_trials_choose_heatmap_and_markers(qtbot, jobs):
    from dataclasses import replace

    from inspector.formats.capabilities import TrialStructure

    doc = _doc(np.arange(40.0).reshape(10, 4))
    doc.trials = TrialStructure("patterns")
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.show_array("neuro")
    assert isinstance(panel.view, PatternView)
    undeclared = TrialStructure("continuous", trial_starts=np.array([2, 6]),
                                trial_ends=np.array([5, 9]))
    doc.trials = undeclared  # the trials cut no array: no array gets their markers
    panel.show_array("neuro")
    assert isinstance(panel.view, NeuralView) and panel.view.markers == {}
    assert panel.view.plot_item.getAxis("bottom").labelText == "index"
    doc.trials = replace(undeclared, neural=doc.arrays["neuro"])
    panel.show_array("neuro")
    assert isinstance(panel.view, NeuralView)
    assert set(panel.view.markers) == {"trial_starts", "trial_ends"}
    assert panel.view.plot_item.getAxis("bottom").labelText == "sample"


@pytest.mark.slow
def test_each_view_takes_the_plot_widget_made_ahead_on_a_turn_of_its_own(qtbot, jobs):
    """The panel makes a bare plot widget on a later event-loop turn; the next view takes
    it (shown, in the view's own stack) and a new spare follows, RESPARE_MS later (the
    delay is asserted as scheduled, not timed: a loaded machine may settle more slowly)."""
    from inspector.formats import open_document
    from inspector.ui.plots.panel import RESPARE_MS

    doc = open_document(FIXTURES / "vneurotk/v1/continuous_small_chunks.h5")
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.resize(800, 450)
    panel.show()
    assert panel._spare is None  # not in the turn that built the panel
    qtbot.waitUntil(lambda: panel._spare is not None, timeout=5000)
    spare = panel._spare
    assert not spare.isVisible()
    delays: list[int] = []
    prepare = panel._prepare_spare
    panel._prepare_spare = lambda delay_ms=0: (delays.append(delay_ms), prepare(delay_ms))[1]
    name = panel.default_array()
    panel.show_array(name)
    assert panel.view.plot_widget is spare and panel._spare is None
    assert delays == [RESPARE_MS]  # the next spare waits while the new view draws
    settle(qtbot, jobs)
    assert spare.isVisible() and spare.parent() is panel.view._stack
    qtbot.waitUntil(lambda: panel._spare is not None and panel._spare is not spare,
                    timeout=RESPARE_MS + 10_000)
    panel.show_array(name)  # another view: it takes the next spare
    assert panel.view.plot_widget is not spare
    doc.close()


def test_a_plot_widget_made_in_steps_is_the_one_pyqtgraph_makes(qtbot):
    import pyqtgraph as pg

    from inspector.ui.plots.base import AXIS_SIDES, plot_widget_in_steps

    steps = list(plot_widget_in_steps())
    assert steps[:-1] == [None, None, None]  # view box, axes, plot item: a turn each
    made, plain = steps[-1], pg.PlotWidget()
    for widget in (made, plain):
        qtbot.addWidget(widget)
    item, plain_item = made.getPlotItem(), plain.getPlotItem()
    assert isinstance(made, pg.PlotWidget) and made.centralWidget is item
    for side in AXIS_SIDES:
        axis, plain_axis = item.getAxis(side), plain_item.getAxis(side)
        assert axis.orientation == plain_axis.orientation == side
        assert axis.linkedView() is item.getViewBox()
        assert axis.isVisible() == plain_axis.isVisible()
        assert axis.parentItem() is item
    box = item.getViewBox()
    assert box.parentItem() is item and box.menu is not None and item.ctrlMenu is not None
    assert box.menuEnabled() == plain_item.getViewBox().menuEnabled()
    for widget in (made, plain):
        widget.resize(400, 300)
        widget.show()
        widget.getPlotItem().plot([0.0, 1.0, 2.0], [3.0, -1.0, 5.0])
        widget.getPlotItem().getViewBox().autoRange(padding=0)
    qtbot.waitExposed(made)
    (x0, x1), (y0, y1) = item.getViewBox().viewRange()
    assert [[x0, x1], [y0, y1]] == plain_item.getViewBox().viewRange()
    assert x0 <= 0.0 < 2.0 <= x1 and y0 <= -1.0 < 5.0 <= y1
    assert x1 - x0 < 2.1 and y1 - y0 < 6.3
