"""The Representations tab (inspector.ui.representations), offscreen, on the corpus
recording with two vision records: built when first shown, computed on the job runner,
hover names the pair, a click selects the two stimuli and their trials."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import squareform

from inspector.formats.analysis.rsa.compute import RsaOptions, representational_similarity
from inspector.formats.registry import open_document
from inspector.ui.representations import TITLE
from tests.conftest import FIXTURES, open_window

CONTINUOUS = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
NO_RECORDS = FIXTURES / "vneurotk" / "v1" / "continuous_uncompressed_i16.h5"


def _titles(tab) -> list[str]:
    return [tab.views.tabText(i) for i in range(tab.views.count())]


def _panel(qtbot, win):
    tab = win.current_tab()
    qtbot.waitUntil(lambda: TITLE in _titles(tab), timeout=20000)
    tab.views.setCurrentIndex(_titles(tab).index(TITLE))
    qtbot.waitUntil(lambda: getattr(tab.representations, "arranged", None) is not None,
                    timeout=30000)
    panel = tab.representations
    # the Trials tab's panel is built in the background; once it is, the tab computes
    # again with its choices when shown again: wait for the figures of those choices
    qtbot.waitUntil(lambda: tab.trials_panel is not None and panel.asked == panel.options()
                    and "ρ =" in panel.status.text(), timeout=30000)
    return tab, panel


@pytest.mark.slow
def test_the_tab_shows_both_matrices_and_the_layer_curve(qtbot):
    win = open_window(qtbot, CONTINUOUS, size=(1280, 800), show=True)
    tab, panel = _panel(qtbot, win)
    with open_document(CONTINUOUS) as doc:
        doc.verify()
        want = representational_similarity(doc, RsaOptions())
    a = panel.arranged
    from inspector.ui.plots.grid_axis import GridAxis

    for plot in (panel.features_plot, panel.neural_plot, panel.curve_plot):  # made ahead,
        assert isinstance(plot.getAxis("left"), GridAxis)  # over turns (plot_widget_in_steps)
    layer = want.layers[0]
    np.testing.assert_allclose(a.neural, squareform(want.neural_rdms[layer.name]))
    assert a.record_ids == [3, 7, 11, 15]
    from inspector.ui.representations.panel import coloured

    for values, image, item in ((a.features, a.images[0], panel.features_image),
                                (a.neural, a.images[1], panel.neural_image)):
        np.testing.assert_array_equal(image, coloured(values, panel._lut))
        np.testing.assert_array_equal(item.image, image)
        assert item.levels is None and item.image.dtype == np.uint8  # drawn as it is
    xs, ys = panel.curve.getData()
    assert xs.tolist() == [0.0, 1.0]
    np.testing.assert_allclose(ys, [x.agreement.rho for x in want.layers])
    assert f"ρ = {layer.agreement.rho:.3f}" in panel.status.text()
    assert panel.hover_text(0, 1) == (
        f"3 × 7: features {a.features[0, 1]:.4g}, responses {a.neural[0, 1]:.4g}")
    panel.select_cell(0, 1)
    trials = tab.selection.trials.tolist()
    ids = [tab.doc.trials.trial_stim_ids[t] for t in trials]
    assert sorted(set(ids)) == [3, 7] and len(trials) == ids.count(3) + ids.count(7)
    rows = {i.row() for i in tab.stimuli.view.selectionModel().selectedIndexes()}
    assert sorted(tab.stimuli.model.stimulus(r).stim_id for r in rows) == [3, 7]
    shots = os.environ.get("INSPECTOR_RSA_SHOTS")
    if shots:  # screenshots for the report: INSPECTOR_RSA_SHOTS=DIR
        _screenshots(qtbot, win, panel, Path(shots))


def _screenshots(qtbot, win, panel, folder: Path) -> None:
    from inspector.ui.theme import apply_theme

    folder.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        apply_theme(theme)
        for w, h in ((1280, 800), (1024, 640)):
            win.resize(w, h)
            qtbot.wait(300)
            win.grab().save(str(folder / f"representations_{theme}_{w}x{h}.png"))


@pytest.mark.slow
def test_clustered_order_keeps_the_two_matrices_in_one_order(qtbot):
    win = open_window(qtbot, CONTINUOUS, size=(1024, 640), show=True)
    _tab, panel = _panel(qtbot, win)
    before = panel.arranged
    panel.order.setCurrentIndex(panel.order.findData("features"))
    qtbot.waitUntil(lambda: panel.arranged is not before, timeout=20000)
    after = panel.arranged
    order = [before.record_ids.index(v) for v in after.record_ids]
    np.testing.assert_array_equal(after.features, before.features[np.ix_(order, order)])
    np.testing.assert_array_equal(after.neural, before.neural[np.ix_(order, order)])


def test_no_tab_without_vision_records(qtbot):
    win = open_window(qtbot, NO_RECORDS)
    assert TITLE not in _titles(win.current_tab())


@pytest.mark.slow
def test_the_responses_follow_the_trials_tab_choices(qtbot):
    from test_trial_views import settled

    win = open_window(qtbot, CONTINUOUS, size=(1280, 800), show=True)
    tab = win.current_tab()
    tab.views.setCurrentIndex(_titles(tab).index("Trials"))
    qtbot.waitUntil(lambda: tab.trials_panel is not None and settled(tab.trials_panel),
                    timeout=20000)
    tab.trials_panel.set_channels([1, 3, 4])
    tab.trials_panel.set_baseline("no baseline")
    _tab, panel = _panel(qtbot, win)
    assert panel.result.neural.channels == (1, 3, 4)
    assert panel.result.neural.baseline_samples is None
    tab.trials_panel.set_channels([0, 2])
    tab.views.setCurrentIndex(_titles(tab).index("Trials"))
    tab.views.setCurrentIndex(_titles(tab).index(TITLE))
    qtbot.waitUntil(lambda: panel.result.neural.channels == (0, 2), timeout=20000)


@pytest.mark.slow
def test_at_900x640_every_choice_is_whole(qtbot):
    """The choices wrap onto a second line rather than cut a layer's name."""
    win = open_window(qtbot, CONTINUOUS, size=(900, 640), show=True)
    _tab, panel = _panel(qtbot, win)
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    for box in (panel.metric_box, panel.layer, panel.order):
        assert box.isVisible() and box.width() >= box.sizeHint().width()
        opt = QStyleOptionComboBox()
        box.initStyleOption(opt)
        field = box.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                           QStyle.SubControl.SC_ComboBoxEditField, box)
        assert box.fontMetrics().horizontalAdvance(box.currentText()) <= field.width(), \
            box.currentText()
        assert panel.rect().contains(box.geometry().translated(
            box.mapTo(panel, box.rect().topLeft()) - box.geometry().topLeft()))


def test_matrices_are_coloured_off_the_gui_thread():
    """``coloured``: 0 to the largest finite value over the colour map, not finite
    transparent (the GUI thread draws the RGBA as it is)."""
    from inspector.ui.representations.panel import coloured

    lut = np.stack([np.arange(256), 255 - np.arange(256), np.zeros(256),
                    np.full(256, 255)], axis=1).astype(np.uint8)
    values = np.array([[0.0, 0.5], [np.nan, 2.0]])
    rgba = coloured(values, lut)
    assert rgba.dtype == np.uint8 and rgba.shape == (2, 2, 4)
    assert rgba[0, 0].tolist() == lut[0].tolist() and rgba[1, 1].tolist() == lut[255].tolist()
    assert rgba[0, 1].tolist() == lut[63].tolist()  # 0.5 of 2.0: index floor(63.75)
    assert rgba[1, 0].tolist() == [0, 0, 0, 0]
    assert coloured(np.zeros((2, 2)), lut)[0, 0].tolist() == lut[0].tolist()


def test_the_panel_plots_are_made_over_event_loop_turns(qtbot):
    import pyqtgraph as pg

    from inspector.ui.representations.panel import PLOTS, plot_widgets_in_steps

    steps = plot_widgets_in_steps()
    turns = 0
    try:
        while True:
            assert next(steps) is None
            turns += 1
    except StopIteration as end:
        plots = end.value
    assert len(plots) == PLOTS and all(isinstance(p, pg.PlotWidget) for p in plots)
    assert turns >= 3 * PLOTS  # (each widget in several steps)
    for p in plots:
        qtbot.addWidget(p)
