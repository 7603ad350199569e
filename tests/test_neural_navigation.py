"""Neural plot navigation, offscreen: wheel zoom, Reset view, marker legend and tips, pages
of stacked lines with labels that never overlap, and the legend outside the data area."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QWheelEvent
from PySide6.QtWidgets import QApplication

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.ui.plots import NeuralView
from inspector.ui.plots.neural import MAX_LEGEND_LINES, MIN_LINE_PX
from tests.conftest import FIXTURES


def settle(qtbot, jobs, view, rounds=3):
    for _ in range(rounds):
        qtbot.wait(20)
        jobs.wait(5000)
        qtbot.wait(10)
    qtbot.waitUntil(view.is_idle, timeout=5000)


def make_view(qtbot, jobs, array, markers=None, size=(900, 600), **attrs):
    ref = NumpyArrayRef("neuro", array)
    ref.attrs.update(attrs)
    view = NeuralView(ref, jobs, markers)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    settle(qtbot, jobs, view)
    return view


def recording(n=2000, channels=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, channels)) + np.arange(channels) * 3.0


MARKERS = {"trial_starts": np.array([100, 900]), "trial_ends": np.array([800, 1600]),
           "vision_onsets": np.array([300, 1100])}


def wheel(view, modifiers=Qt.KeyboardModifier.NoModifier):
    w = view.plot_widget
    vb = view.plot_item.vb
    centre = vb.mapToScene(vb.boundingRect().center())
    c = w.mapFromScene(centre)
    ev = QWheelEvent(QPointF(c), QPointF(w.viewport().mapToGlobal(c)), QPoint(0, 0),
                     QPoint(0, 120), Qt.MouseButton.NoButton, modifiers,
                     Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(w.viewport(), ev)


@pytest.mark.slow
def test_wheel_zooms_time_only_ctrl_amplitude_only_and_reset_restores(qtbot, jobs):
    view = make_view(qtbot, jobs, recording(), MARKERS, sfreq=100.0)
    vb = view.plot_item.vb
    (x0, x1), (y0, y1) = vb.viewRange()
    assert x0 <= 0.0 and x1 >= 1999 / 100.0  # the whole recording at first
    wheel(view)
    (a0, a1), (b0, b1) = vb.viewRange()
    assert a1 - a0 < x1 - x0 and (b0, b1) == (y0, y1)
    settle(qtbot, jobs, view)  # the zoomed range's data arrives: the amplitude stays
    assert vb.viewRange()[1] == [y0, y1]
    # stacked, Ctrl+wheel scales every line about its offset: the view and labels stay
    ticks = [t for t, _label in view.plot_item.getAxis("left")._tickLevels[0]]
    spans = [np.nanmax(y) - np.nanmin(y) for _n, _x, y in view.curves()]
    wheel(view, Qt.KeyboardModifier.ControlModifier)
    assert vb.viewRange()[0] == pytest.approx([a0, a1]) and vb.viewRange()[1] == [y0, y1]
    assert view.gain == pytest.approx(1.25)
    grown = [np.nanmax(y) - np.nanmin(y) for _n, _x, y in view.curves()]
    np.testing.assert_allclose(grown, np.array(spans) * 1.25)
    assert [t for t, _label in view.plot_item.getAxis("left")._tickLevels[0]] == ticks
    # overlaid, Ctrl+wheel zooms the amplitude axis only
    view.mode.setCurrentText("Overlaid")
    settle(qtbot, jobs, view)
    (o0, o1), (p0, p1) = vb.viewRange()
    wheel(view, Qt.KeyboardModifier.ControlModifier)
    (c0, c1), (d0, d1) = vb.viewRange()
    assert (c0, c1) == pytest.approx((o0, o1)) and d1 - d0 < p1 - p0
    assert vb.state["mouseEnabled"] == [True, True]
    view.mode.setCurrentText("Stacked")
    view.reset_view()
    settle(qtbot, jobs, view)
    (e0, e1), (f0, f1) = vb.viewRange()
    assert (e0, e1) == pytest.approx((x0, x1)) and view.gain == 1.0
    assert (f0, f1) == pytest.approx((y0, y1), rel=1e-6)
    # the same command is first in the plot's context menu, and Ctrl+0
    assert vb.menu.actions()[0].text() == "Reset view"
    assert view.reset_button.defaultAction() is vb.menu.actions()[0]  # the toolbar button
    assert "Ctrl+0" in [a.shortcut().toString() for a in view.actions()]


def test_marker_legend_outside_the_data_and_tooltips(qtbot, jobs):
    view = make_view(qtbot, jobs, recording(), MARKERS, sfreq=100.0)
    assert view.marker_count() == 6
    assert view.legend_labels() == ["trial start", "trial end", "stimulus onset"]
    vb = view.plot_item.vb
    data = vb.sceneBoundingRect()
    curves = None
    for ln in view.lines:
        r = ln.item.mapRectToScene(ln.item.boundingRect())
        curves = r if curves is None else curves.united(r)
    legend = view.legend.sceneBoundingRect()
    assert legend.height() > 0 and not legend.intersects(data)
    assert not legend.intersects(curves.intersected(data))
    assert legend.top() >= data.bottom()  # under the time axis
    line_colours = {QColor(ln.color).name() for ln in view.lines}
    for item in view._marker_items.values():  # markers never take a line's colour
        assert item.opts["pen"].color().name() not in line_colours
    view.markers_box.setChecked(False)
    assert view.legend_labels() == [] and not view.legend.isVisible()
    view.markers_box.setChecked(True)
    # a tooltip names the marker under the mouse: kind, trial, time
    px = vb.viewPixelSize()[0]
    assert view.marker_tips.text_at(11.0 + px) == "stimulus onset of trial 1: 11 s"
    assert view.marker_tips.text_at(5.0) == ""


def test_legend_is_rebuilt_only_when_what_it_names_changes(qtbot, jobs):
    view = make_view(qtbot, jobs, recording(), MARKERS, sfreq=100.0)
    entries = list(view.legend.items)
    view.fit_amplitude()  # restacks every line: the legend names the same things
    assert view.legend.items == entries and all(
        a is b for pair_a, pair_b in zip(view.legend.items, entries, strict=True)
        for a, b in zip(pair_a, pair_b, strict=True))
    view.markers_box.setChecked(False)
    assert view.legend_labels() == []
    view.markers_box.setChecked(True)
    assert view.legend_labels() == ["trial start", "trial end", "stimulus onset"]
    assert view.legend.items[0][0] is not entries[0][0]  # built again after the change


@pytest.mark.slow
def test_overlaid_legend_names_lines_and_never_covers_them(qtbot, jobs):
    view = make_view(qtbot, jobs, recording(channels=20), MARKERS, sfreq=100.0)
    for i in range(20):
        view.channel_list.item(i).setSelected(True)
    view.mode.setCurrentText("Overlaid")
    settle(qtbot, jobs, view)
    labels = view.legend_labels()
    assert labels[:MAX_LEGEND_LINES] == [f"ch {i}" for i in range(MAX_LEGEND_LINES)]
    assert labels[MAX_LEGEND_LINES] == f"… {20 - MAX_LEGEND_LINES} more"
    assert labels[-3:] == ["trial start", "trial end", "stimulus onset"]
    assert len(view.curves()) == 20  # overlaid: every line, no pages
    data = view.plot_item.vb.sceneBoundingRect()
    assert not view.legend.sceneBoundingRect().intersects(data)


def label_rects(view):
    return [r for r, _text in view.plot_item.getAxis("left").label_rects()]


def assert_no_overlap(rects):
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b), (a, b)


@pytest.mark.slow
def test_64_channels_are_shown_a_page_at_a_time(qtbot, jobs):
    a = recording(n=1000, channels=64, seed=3)
    view = make_view(qtbot, jobs, a, size=(900, 640))
    view.channel_list.selectAll()
    settle(qtbot, jobs, view)
    size = view.page_size()
    height = view.plot_item.vb.height()
    assert 1 < size < 64 and height / size >= MIN_LINE_PX
    assert view.page() == (0, size, 64)
    names = [f"ch {i}" for i in range(64)]
    assert [c[0] for c in view.curves()] == names[:size]
    assert view.page_bar.isVisible() and view.page_bar.maximum() == 64 - size
    assert view.page_label.text() == f"lines 1–{size} of 64"
    rects = label_rects(view)
    assert len(rects) == size
    assert_no_overlap(rects)
    # every line is within the view, at its own height: labels and lines are readable
    _, (y0, y1) = view.plot_item.vb.viewRange()
    for _name, _x, y in view.curves():
        assert y0 <= np.nanmin(y) and np.nanmax(y) <= y1
    # PageDown (the plot has the focus) shows the next page, read on a job
    submitted = view.submitted
    view.plot_widget.setFocus()
    qtbot.keyClick(view.plot_widget, Qt.Key.Key_PageDown)
    settle(qtbot, jobs, view)
    assert view.page() == (size, 2 * size, 64) and view.submitted == submitted + 1
    assert view.page_bar.value() == size
    curves = view.curves()
    assert [c[0] for c in curves] == names[size:2 * size]
    np.testing.assert_allclose(np.nanmax(curves[0][2]) - np.nanmin(curves[0][2]),
                               a[:, size].max() - a[:, size].min())
    assert_no_overlap(label_rects(view))
    qtbot.keyClick(view.plot_widget, Qt.Key.Key_PageUp)
    settle(qtbot, jobs, view)
    assert view.page()[0] == 0
    view.page_bar.setValue(60)  # the scroll bar: the last page ends at the last line
    settle(qtbot, jobs, view)
    assert view.page() == (64 - size, 64, 64)
    assert [c[0] for c in view.curves()][-1] == "ch 63"
    view.per_page.setValue(8)  # a chosen number per page
    settle(qtbot, jobs, view)
    assert view.page_size() == 8 and len(view.curves()) == 8
    view.mode.setCurrentText("Overlaid")  # overlaid: every line, no page bar
    settle(qtbot, jobs, view)
    assert len(view.curves()) == 64 and view.page_bar.isHidden()


def test_labels_thin_out_instead_of_overlapping(qtbot, jobs):
    view = make_view(qtbot, jobs, recording(n=500, channels=16), size=(900, 640))
    view.channel_list.selectAll()
    view.per_page.setValue(16)
    settle(qtbot, jobs, view)
    vb = view.plot_item.vb
    _, (y0, y1) = vb.viewRange()
    vb.setYRange(y0 - 4 * (y1 - y0), y1 + 4 * (y1 - y0), padding=0)  # amplitude zoomed out
    qtbot.wait(20)
    rects = label_rects(view)
    assert 0 < len(rects) < 16
    assert_no_overlap(rects)


@pytest.mark.slow
def test_epochs_corpus_file_pages_trials_and_channels(qtbot, jobs):
    from inspector.formats import open_document

    doc = open_document(FIXTURES / "vneurotk/v1/epochs_dense_f64_strids.h5")
    ref = doc.arrays["neuro"]
    view = NeuralView(ref, jobs, doc.trials.markers())
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    settle(qtbot, jobs, view)
    view.channel_list.selectAll()
    view.trial_list.selectAll()
    settle(qtbot, jobs, view)
    total = ref.shape[0] * ref.shape[2]
    size = view.page_size()
    assert view.page() == (0, min(size, total), total)
    data = ref.read()
    name, _x, y = view.curves()[0]
    assert name == f"{view.ch_names[0]} trial 0"
    np.testing.assert_allclose(np.nanmax(y) - np.nanmin(y),
                               data[0, :, 0].max() - data[0, :, 0].min())
    assert_no_overlap(label_rects(view))
    doc.close()


@pytest.mark.slow
def test_epochs_markers_in_overlay_and_legend_follows_what_is_drawn(qtbot, jobs):
    from inspector.formats import open_document

    doc = open_document(FIXTURES / "vneurotk/v1/epochs_dense_f64_strids.h5")
    markers = doc.trials.markers()
    view = NeuralView(doc.arrays["neuro"], jobs, markers)
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    settle(qtbot, jobs, view)
    onset = float(np.asarray(markers["vision_onsets"])[0])
    assert "stimulus onset" in view.legend_labels() and view.marker_count() >= 1
    view.overlay_box.setChecked(True)  # every trial overlaid: their (shared) onsets drawn
    settle(qtbot, jobs, view)
    onsets = np.unique(np.asarray(markers["vision_onsets"], dtype=float)) / view.sfreq
    assert view.marker_count() >= onsets.size and "stimulus onset" in view.legend_labels()
    px = view.plot_item.vb.viewPixelSize()[0]
    assert view.marker_tips.text_at(onset / view.sfreq + px).startswith("stimulus onset of trial")
    view.overlay_box.setChecked(False)
    view.trial_list.clearSelection()  # no trial: no markers, none in the legend
    settle(qtbot, jobs, view)
    assert view.marker_count() == 0 and "stimulus onset" not in view.legend_labels()
    doc.close()


def test_epochs_time_runs_from_the_stimulus_onset(qtbot, jobs):
    """The corpus epochs file: trial_window [-16, 48] at 500 Hz, onset at sample 16 of each
    epoch; the axis runs from -32 ms to 94 ms and the onset marker sits at 0."""
    from inspector.formats import open_document
    from inspector.ui.plots.neural import onset_sample

    doc = open_document(FIXTURES / "vneurotk/v1/epochs_dense_f64_strids.h5")
    ref, trials = doc.arrays["neuro"], doc.trials
    assert trials.trial_window.tolist() == [-16, 48] and ref.attrs["sfreq"] == 500.0
    origin = onset_sample(trials, ref)
    assert origin == 16
    view = NeuralView(ref, jobs, trials.markers(), onset_sample=origin)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    qtbot.waitExposed(view)
    settle(qtbot, jobs, view)
    assert view._time_span() == (-16 / 500, 47 / 500)
    assert "from stimulus onset" in view.plot_item.getAxis("bottom").labelText
    view.reset_view()
    x0, x1 = view.plot_item.vb.viewRange()[0]
    assert x0 < -0.03 and 0.09 < x1 < 0.1
    onsets = view._drawn_markers().get("vision_onsets")
    if onsets is not None:
        drawn = onsets[np.isfinite(onsets)]
        assert drawn.size == 0 or np.allclose(drawn, 0.0)
    assert float(view._to_samples(0.0)) == 16.0
    doc.close()


def test_no_common_window_keeps_time_from_the_epoch_start():
    from inspector.formats.capabilities import TrialStructure
    from inspector.ui.plots.neural import onset_sample

    ref = NumpyArrayRef("neuro", np.zeros((3, 64, 2)))
    varying = TrialStructure(data_mode="epochs", trial_window=np.array([[-16, 48], [-8, 56],
                                                                         [-16, 48]]))
    assert onset_sample(varying, ref) is None
    assert onset_sample(TrialStructure(data_mode="epochs", trial_window=np.array([-16, 48])),
                        ref) == 16
    assert onset_sample(TrialStructure(data_mode="epochs", trial_window=np.array([4, 68])),
                        ref) is None  # an epoch that starts after the onset has no onset in it
