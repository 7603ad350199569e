"""Issue 38.1: the array of a visual representation is shown as features of its stimuli.

A ``vision_store/<i>/array`` is one row per stimulus: a heat map (stimulus x
feature, further axes flattened) with rows labelled by stimulus ID, the chosen
stimuli's curves and the stimulus image; never trial markers or a time axis.
The values are compared with h5py's read of the same dataset.
"""

from __future__ import annotations

import h5py
import numpy as np
import pytest
from PySide6.QtCore import QPointF

from inspector.ui.plots.features import IMAGE_SIDE, FeatureView
from inspector.ui.plots.neural import NeuralView
from tests.conftest import FIXTURES, open_window

REC = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
#: The stimulus IDs of both records of REC (``vision_store/<i>/stim_ids``), in row order.
IDS = [3, 7, 11, 15]


def _stored(key: str) -> np.ndarray:
    with h5py.File(REC, "r") as f:
        return np.asarray(f[f"vision_store/{key}/array"][()], dtype=np.float64)


def _show(qtbot, win, name: str):
    tab = win.current_tab()
    tab.plot.show_array(name)
    qtbot.waitUntil(lambda: tab.plot.view is not None and tab.plot.is_idle(), timeout=10_000)
    return tab, tab.plot.view


@pytest.fixture()
def win(qtbot):
    return open_window(qtbot, REC, show=True, idle=True)


@pytest.mark.parametrize("key", ["0", "1"])
@pytest.mark.slow
def test_a_vision_record_is_a_heat_map_of_stimulus_by_feature(qtbot, win, key):
    tab, view = _show(qtbot, win, f"vision_store/{key}")
    assert isinstance(view, FeatureView) and not isinstance(view, NeuralView)
    stored = _stored(key)
    np.testing.assert_array_equal(view.image, stored.reshape(len(IDS), -1))
    assert [view.row_list.item(r).text() for r in range(view.row_list.count())] == \
        [str(i) for i in IDS]
    ticks = view.plot_item.getAxis("left")._tickLevels[0]
    assert [label for _y, label in ticks] == [str(i) for i in IDS]
    bottom = view.plot_item.getAxis("bottom").labelText
    assert "feature" in bottom and "time" not in bottom and "sample" not in bottom
    assert not hasattr(view, "markers")  # the recording's trial markers are not this array's


@pytest.mark.slow
def test_the_chosen_stimulus_has_its_curve_and_image(qtbot, win):
    _tab, view = _show(qtbot, win, "vision_store/1")
    stored = _stored("1").reshape(len(IDS), -1)
    assert view.chosen_rows() == [0]  # the first stimulus is chosen when shown
    view.row_list.item(2).setSelected(True)
    [(n0, x0, y0), (n2, x2, y2)] = view.curves()
    assert (n0, n2) == ("stimulus 3", "stimulus 11")
    np.testing.assert_array_equal(y2, stored[2])
    np.testing.assert_array_equal(x2, np.arange(stored.shape[1]))
    view.show_stimulus(11)
    qtbot.waitUntil(lambda: not view.picture.pixmap().isNull(), timeout=5000)
    pix = view.picture.pixmap()
    assert max(pix.width(), pix.height()) == IMAGE_SIDE


def test_hovering_a_row_shows_that_stimulus(qtbot, win):
    _tab, view = _show(qtbot, win, "vision_store/0")
    vb = view.plot_item.vb
    scene = vb.mapViewToScene(QPointF(3.0, 2.0))  # feature 3 of the row of stimulus 11
    view._hovered(scene)
    assert view.shown_id == 11 and view.row_line.isVisible() and view.row_line.value() == 2


@pytest.mark.slow
def test_the_choice_travels_with_the_stimuli_tab(qtbot, win):
    tab, view = _show(qtbot, win, "vision_store/1")
    panel = tab.stimuli
    rows = {panel.model.stimulus(r).stim_id: r for r in range(panel.model.rowCount())}
    panel.view.setCurrentIndex(panel.model.index(rows[15]))
    assert view.chosen_rows() == [IDS.index(15)]
    view.row_list.clearSelection()
    view.row_list.item(IDS.index(7)).setSelected(True)
    chosen = sorted(i.row() for i in panel.view.selectionModel().selectedIndexes())
    assert chosen == [rows[7]]


@pytest.mark.slow
def test_nothing_is_cut_at_1024x640(qtbot, win):
    """Geometry from Qt's metrics: every stimulus ID fits its list row, the image fits
    beside the heat map, and the heat map and curves both have room."""
    _tab, view = _show(qtbot, win, "vision_store/1")
    qtbot.waitUntil(lambda: view.isVisible() and view.width() > 0)
    lst = view.row_list
    metrics = lst.fontMetrics()
    for r in range(lst.count()):
        assert metrics.horizontalAdvance(lst.item(r).text()) <= lst.visualItemRect(
            lst.item(r)).width()
    assert view.picture.width() >= IMAGE_SIDE and view.picture.height() >= IMAGE_SIDE
    assert view.plot_widget.height() >= 100 and view.curve_widget.height() >= 80
    assert view.plot_widget.width() >= 2 * view.picture.width() / 3


@pytest.mark.slow
def test_the_recording_array_keeps_its_time_axis_and_markers(qtbot, win):
    """The array the trials cut is still drawn against time, with the trial markers."""
    tab, view = _show(qtbot, win, "neuro")
    assert isinstance(view, NeuralView) and view.markers
    assert tab.doc.neural_array() is view.ref


@pytest.mark.slow
def test_at_900x640_the_heat_map_keeps_the_width_and_its_labels_fit(qtbot):
    """A narrow view puts the stimulus list and image beside the curves; each feature
    axis's label is the widest of its forms that fits the axis (Qt's metrics)."""
    from PySide6.QtGui import QFontMetrics

    win = open_window(qtbot, REC, size=(900, 640), show=True, idle=True)
    _tab, view = _show(qtbot, win, "vision_store/1")
    qtbot.wait(100)
    assert view._rows[1].indexOf(view.side) >= 0  # beside the curves
    assert view.plot_widget.width() >= view.width() - 10  # the heat map has the width
    for item in (view.plot_item, view.curve_plot):
        axis = item.getAxis("bottom")
        text = axis.labelText
        assert text.startswith("feature")
        assert QFontMetrics(axis.label.font()).horizontalAdvance(text) <= axis.geometry().width()
    win.resize(1600, 900)  # wide: the list and image beside the heat map again
    qtbot.waitUntil(lambda: view._rows[0].indexOf(view.side) >= 0, timeout=5000)
    qtbot.wait(100)
    assert view.plot_item.getAxis("bottom").labelText == "feature (axis 1 × feature, flattened)"
