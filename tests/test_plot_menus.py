"""The plots' context menus offer only entries that work (pytest-qt, offscreen): one entry
that shows everything, a grid switch, a log y axis where the data allow it, the exports;
none of pyqtgraph's panels or its "Plot Options" (whose power spectrum raised on our curves)."""

from __future__ import annotations

import types

import h5py
import numpy as np
import pytest

from inspector.formats import open_document
from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.jobs import JobRunner
from inspector.ui import plot_export
from inspector.ui.data import DataPanel
from inspector.ui.data.choose import CURVE
from inspector.ui.plots import NeuralView
from inspector.ui.plots.plot_menu import GRID, LOG_Y, VIEW_ALL, menu_action
from tests.conftest import FIXTURES

EXPORTS = [text for text, _kind in plot_export.ENTRIES]


@pytest.fixture()
def jobs(qtbot):
    runner = JobRunner()
    yield runner
    runner.cancel_all()
    runner.wait(5000)


def shown_menu(view) -> list[str]:
    """The texts of the menu a right click on the data area shows (pyqtgraph appends its
    parents' menus, "Plot Options" among them, when it pops the menu up)."""
    vb = view.plot_item.vb
    menu = vb.getMenu(None)
    event = types.SimpleNamespace(acceptedItem=vb)  # what the scene reads of the click
    view.plot_widget.scene().addParentContextMenus(vb, menu, event)
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def _no_submenus(view) -> bool:
    return all(a.menu() is None for a in view.plot_item.vb.menu.actions())


def test_neural_plot_menu_is_reset_grid_and_exports(qtbot, jobs):
    rng = np.random.default_rng(1)
    view = NeuralView(NumpyArrayRef("neuro", rng.standard_normal((500, 3))), jobs)
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    qtbot.waitUntil(view.is_idle, timeout=10000)
    assert shown_menu(view) == ["Reset view", "Show grid", *EXPORTS]
    assert _no_submenus(view)
    assert view.plot_item.getContextMenus(None) is None  # no "Plot Options"
    assert menu_action(view, VIEW_ALL) is view.reset_button.defaultAction()


def test_auc_plot_menu_view_all_and_grid(qtbot, jobs):
    from tests.test_plot_views import auc_view_for

    view, doc = auc_view_for(qtbot, jobs, FIXTURES / "aucx" / "src_demo_experiment.aucx")
    assert shown_menu(view) == ["View all", "Show grid", *EXPORTS]
    assert _no_submenus(view)
    vb = view.plot_item.vb
    x0, x1 = vb.viewRange()[0]
    vb.setXRange(x0, x0 + (x1 - x0) / 10, padding=0)
    menu_action(view, VIEW_ALL).trigger()
    x = np.concatenate([c[1] for c in view.curves()])
    shown = vb.viewRange()[0]
    assert shown[0] <= np.nanmin(x) and shown[1] >= np.nanmax(x)  # every point in view
    grid = menu_action(view, GRID)
    assert grid.isChecked() and view.plot_item.getAxis("left").grid
    grid.setChecked(False)
    assert not view.plot_item.getAxis("left").grid and not view.plot_item.getAxis("bottom").grid
    doc.close()


def _curve_panel(qtbot, jobs, path, name):
    doc = open_document(path)
    panel = DataPanel(doc.object_data, jobs)
    qtbot.addWidget(panel)
    panel.resize(700, 400)
    panel.show()
    panel.set_node(doc.object_data.node(name))
    panel.choose_view(CURVE)
    view = panel.view
    qtbot.waitUntil(lambda: bool(view.curves()) and len(view.curves()[0][2]) > 0,
                    timeout=20000)
    return doc, view


def test_log_y_axis_only_for_positive_values_and_exports_stay_values(qtbot, jobs, tmp_path):
    path = tmp_path / "curves.h5"
    with h5py.File(path, "w") as f:
        f["decay"] = np.exp(-np.arange(200) / 20.0)
        f["wave"] = np.sin(np.arange(200) / 5.0)
    doc, view = _curve_panel(qtbot, jobs, path, "/decay")
    texts = shown_menu(view)
    assert texts == ["View all", "Show grid", "Log y axis", *EXPORTS]
    log_y = menu_action(view, LOG_Y)
    view.plot_item.vb.menu.aboutToShow.emit()
    assert log_y.isEnabled()
    log_y.setChecked(True)
    assert view.plot_item.getAxis("left").logMode
    (y0, y1) = view.plot_item.vb.viewRange()[1]  # log10 of the values' range
    assert y0 <= np.log10(np.exp(-199 / 20.0)) and y1 >= 0.0
    rows = view.export_csv(tmp_path / "c.csv")  # the values, not their logarithms
    lines = (tmp_path / "c.csv").read_text().splitlines()[1:]
    assert rows == 200
    got = np.array([float(line.split(",")[2]) for line in lines])
    np.testing.assert_array_equal(got, np.exp(-np.arange(200) / 20.0))
    doc.close()
    doc, view = _curve_panel(qtbot, jobs, path, "/wave")
    view.plot_item.vb.menu.aboutToShow.emit()
    assert not menu_action(view, LOG_Y).isEnabled()  # sin has values <= 0
    doc.close()


def test_the_curve_views_legend_never_covers_the_data(qtbot, jobs, tmp_path):
    path = tmp_path / "lines.h5"
    with h5py.File(path, "w") as f:
        f["traces"] = np.sin(np.arange(16)[:, None] + np.arange(300)[None, :] / 20.0)
    doc, view = _curve_panel(qtbot, jobs, path, "/traces")
    qtbot.waitUntil(lambda: len(view.curves()) == 16, timeout=20000)
    legend = view.plot_item.legend
    assert legend is not None and len(legend.items) == 16
    data = view.plot_item.vb.sceneBoundingRect()
    qtbot.waitUntil(lambda: legend.sceneBoundingRect().top() >= data.bottom(), timeout=5000)
    assert not legend.sceneBoundingRect().intersects(data)
    assert view.plot_item.width() <= view.plot_widget.width() + 0.5  # nothing clipped
    doc.close()


def test_a_height_width_3_uint8_array_is_shown_as_a_colour_picture(qtbot, jobs, tmp_path):
    from inspector.ui.data.choose import IMAGE

    picture = np.zeros((120, 160, 3), dtype=np.uint8)
    picture[:, :, 0] = np.arange(160, dtype=np.uint8)[None, :]  # red rises to the right
    picture[:60, :, 2] = 255  # blue top half
    path = tmp_path / "pic.h5"
    with h5py.File(path, "w") as f:
        f["picture"] = picture
    doc = open_document(path)
    panel = DataPanel(doc.object_data, jobs)
    qtbot.addWidget(panel)
    panel.resize(700, 500)
    panel.show()
    panel.set_node(doc.object_data.node("/picture"))
    panel.choose_view(IMAGE)
    view = panel.view
    qtbot.waitUntil(lambda: view.image is not None, timeout=20000)
    assert view.rgb.isVisible() and view.rgb.isChecked()
    assert view.image.shape[:2] == (120, 160) and view.image.shape[2] == 3
    np.testing.assert_array_equal(view.image.astype(np.uint8), picture)  # every pixel
    assert not view.bar.isVisible()  # colours are the values: no colour map
    view.rgb.setChecked(False)  # one component, colour-mapped
    qtbot.waitUntil(lambda: view.image is not None and view.image.ndim == 2, timeout=20000)
    doc.close()
