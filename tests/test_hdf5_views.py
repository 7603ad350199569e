"""The data views of any HDF5 dataset or attribute (pytest-qt, offscreen).

Clicking a node of the HDF5 objects tree shows its values (table, curve, image or
text, chosen from its shape and type, with a switch); ``/neuro`` keeps the neural
plot; ``FILE::/path`` opens that node and a path that is not in the file is a
warning finding; a 10^8-row dataset scrolls to its end reading only the pages on
screen; N-D slicing is kept between datasets of one shape; the detail pane gives
the type description beside the selected value.
"""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from inspector.formats import open_document
from inspector.formats.nodes.data import ColumnKind
from inspector.jobs import JobRunner
from inspector.ui.data import DataPanel
from inspector.ui.data.choose import CURVE, IMAGE, TABLE, TEXT, views_for
from inspector.ui.data.curve import CurveView
from inspector.ui.data.image import ImageView
from inspector.ui.data.table import PAGE_ROWS, TableView
from inspector.ui.data.text import TextView
from inspector.ui.plots import NeuralView
from tests.conftest import FIXTURES, open_window
from tests.test_hdf5_data import write_every_type

RECORDING = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
BIG_ROWS = 10**8


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("views")
    every = write_every_type(folder / "every.h5")
    demo = folder / "demo.h5"
    with h5py.File(demo, "w") as f:
        y, x = np.mgrid[0:300, 0:400]
        f.create_dataset("wave", data=np.sin(x / 20.0) * np.cos(y / 15.0), chunks=(50, 50),
                         compression="gzip")
        f["line"] = np.sin(np.linspace(0, 30, 20000)).astype(">f4")
        f["stack_a"] = np.arange(4 * 5 * 6, dtype="<i2").reshape(4, 5, 6)
        f["stack_b"] = -np.arange(4 * 5 * 6, dtype="<i2").reshape(4, 5, 6)
        big = f.create_dataset("big", (BIG_ROWS,), dtype="<f4", chunks=(1 << 16,),
                               fillvalue=0.5)
        big[-3:] = [1.0, 2.0, 3.0]
        f.create_dataset("raw", (10,), dtype="<i4", external=[("gone.bin", 0, 40)])
    return {"every": every, "demo": demo}


def _window(qtbot, *targets):
    win = open_window(qtbot, *targets, size=(1280, 800), show=True, timeout=30_000)
    for tab in win.document_tabs():  # the data views come once pyqtgraph is imported
        qtbot.waitUntil(lambda t=tab: t.viewer is not None, timeout=30000)
    return win


def _panel(tab) -> DataPanel:
    assert tab.viewer is not None
    return tab.viewer.data


def _wait_view(qtbot, panel, cls, location):
    qtbot.waitUntil(lambda: panel.node is not None and panel.node.location == location
                    and isinstance(panel.view, cls), timeout=20000)
    return panel.view


def _click(tab, location: str) -> None:
    assert tab.header_panel.select_location(location, prefer_raw=True), location


@pytest.mark.slow
def test_clicking_datasets_shows_them_in_their_views(qtbot, files):
    win = _window(qtbot, files["demo"])
    tab = win.current_tab()
    panel = _panel(tab)
    _click(tab, "/wave")
    image = _wait_view(qtbot, panel, ImageView, "/wave")
    qtbot.waitUntil(lambda: image.image is not None, timeout=20000)
    with h5py.File(files["demo"]) as f:
        wave = f["wave"][()]
    plan = image.plan
    np.testing.assert_allclose(image.image, wave[plan.rows.start::plan.rows.step,
                                                 plan.cols.start::plan.cols.step])
    assert tab.viewer.currentWidget() is panel
    _click(tab, "/line")
    curve = _wait_view(qtbot, panel, CurveView, "/line")
    assert curve.ref is not None  # the envelope path of the array layer
    qtbot.waitUntil(lambda: bool(curve.curves()) and len(curve.curves()[0][1]) > 0, timeout=20000)
    _name, _x, y = curve.curves()[0]
    assert np.nanmin(y) == pytest.approx(-1, abs=1e-3) and np.nanmax(y) == pytest.approx(1,
                                                                                       abs=1e-3)
    assert "line" in tab.detail.title.text() and "big-endian" in tab.detail.text.toPlainText()


@pytest.mark.slow
def test_every_type_has_a_view_and_the_switch_offers_the_others(qtbot, files):
    win = _window(qtbot, files["every"])
    tab = win.current_tab()
    panel = _panel(tab)
    _click(tab, "/compound/table")
    table = _wait_view(qtbot, panel, TableView, "/compound/table")
    model = table.model
    headers = [model.headerData(c, 1) for c in range(model.columnCount())]
    assert headers[:3] == ["id", "pos.x", "pos.y"]
    qtbot.waitUntil(lambda: model.index(1, 6).data() != "…", timeout=20000)
    assert model.index(1, 6).data() == "x\\xff" and model.index(0, 7).data() == "B"
    assert model.index(0, headers.index("z")).data() == "1+2j"
    assert [b for b, w in panel.buttons.items() if w.isEnabled()] == [TABLE, CURVE]
    panel.choose_view(CURVE)
    assert isinstance(panel.view, CurveView) and panel.field.isVisible()
    assert [panel.field.itemText(i) for i in range(panel.field.count())][:2] == ["id", "pos.x"]
    _click(tab, "/str/vlen_utf8")
    text = _wait_view(qtbot, panel, TextView, "/str/vlen_utf8")
    qtbot.waitUntil(lambda: "bad" in text.text.toPlainText(), timeout=20000)
    assert "[2] bad\\xff\\xfeend" in text.text.toPlainText() and "UTF-8" in text.status.text()
    for location, first in [("/enum", TABLE), ("/refs/objects", TABLE), ("/complex/c8", TABLE),
                            ("/num/f8be", TABLE), ("/cube", TABLE), ("/null", TABLE)]:
        _click(tab, location)
        qtbot.waitUntil(lambda loc=location: panel.node is not None
                        and panel.node.location == loc, timeout=20000)
        assert panel.view_name == first or first in views_for(panel.node)
    assert "Null dataspace" in panel.message.text()


@pytest.mark.slow
def test_curve_parts_of_complex_and_image_colour_maps(qtbot, files):
    with open_document(files["every"]) as doc:
        jobs = JobRunner()
        node = doc.object_data.node("/complex/c16be")
        panel = DataPanel(doc.object_data, jobs)
        qtbot.addWidget(panel)
        panel.set_node(node)
        panel.choose_view(CURVE)
        assert not panel.part.isHidden()
        panel.part.setCurrentText("magnitude")
        panel.part.activated.emit(panel.part.currentIndex())
        view = panel.view
        qtbot.waitUntil(lambda: bool(view.curves()) and len(view.curves()[0][2]) == 2,
                        timeout=20000)
        assert view.curves()[0][2].tolist() == [5.0, 1e300]
        img_node = doc.object_data.node("/num/f8be")
        panel.set_node(img_node)
        panel.choose_view(IMAGE)
        image = panel.view
        qtbot.waitUntil(lambda: image.image is not None, timeout=20000)
        np.testing.assert_array_equal(image.image, [[1.5, 2.5], [np.pi, -np.e]])
        image.cmap.setCurrentText("magma")
        assert image.bar.colorMap().name == "magma"
        jobs.wait(5000)


@pytest.mark.slow
def test_neuro_keeps_the_neural_plot(qtbot):
    win = _window(qtbot, RECORDING)
    tab = win.current_tab()
    assert tab.viewer is not None and tab.plot is not None
    _click(tab, "/neuro")
    assert tab.viewer.currentWidget() is tab.plot and isinstance(tab.plot.view, NeuralView)
    qtbot.waitUntil(lambda: "layout: chunked" in tab.detail.text.toPlainText(), timeout=20000)
    assert "location: /neuro" in tab.detail.text.toPlainText()
    _click(tab, "/trial_starts")
    table = _wait_view(qtbot, _panel(tab), TableView, "/trial_starts")  # six numbers
    qtbot.waitUntil(lambda: table.model.index(0, 0).data() != "…", timeout=20000)
    with h5py.File(RECORDING) as f:
        starts = f["trial_starts"][()]
    assert [table.model.index(i, 0).data() for i in range(len(starts))] == [
        str(v) for v in starts]
    assert tab.viewer.currentWidget() is _panel(tab)
    _click(tab, "/neuro")
    assert tab.viewer.currentWidget() is tab.plot


@pytest.mark.slow
def test_file_path_opens_the_node_and_a_missing_one_is_a_warning(qtbot, files):
    win = _window(qtbot, f"{files['demo']}::/stack_a")
    tab = win.current_tab()
    panel = _panel(tab)
    _wait_view(qtbot, panel, ImageView, "/stack_a")
    assert not any(f.code == "node.not-found" for f in tab.doc.findings)
    win2 = _window(qtbot, f"{files['every']}::/no/such/node")
    tab2 = win2.current_tab()
    qtbot.waitUntil(lambda: any(f.code == "node.not-found" for f in tab2.doc.findings),
                    timeout=20000)
    found = [f for f in tab2.doc.findings if f.code == "node.not-found"]
    assert len(found) == 1 and found[0].severity == "warning"
    assert "/no/such/node" in found[0].message and found[0].location == "/no/such/node"
    assert "every.h5" not in found[0].message
    assert "no node" in tab2.status_text


def test_attribute_location_from_the_command_line(qtbot, files):
    win = _window(qtbot, f"{files['every']}::/compound@matrix")
    panel = _panel(win.current_tab())
    table = _wait_view(qtbot, panel, TableView, "/compound@matrix")  # 6 numbers: a table
    qtbot.waitUntil(lambda: table.model.index(1, 2).data() == "5", timeout=20000)


@pytest.mark.slow
def test_a_hundred_million_rows_scroll_to_the_end_reading_only_visible_rows(qtbot, files):
    win = _window(qtbot, files["demo"])
    tab = win.current_tab()
    panel = _panel(tab)
    _click(tab, "/big")
    _wait_view(qtbot, panel, CurveView, "/big")
    panel.choose_view(TABLE)
    table = panel.view
    model = table.model
    assert model.rowCount() == BIG_ROWS
    qtbot.waitUntil(lambda: model.index(0, 0).data() == "0.5", timeout=20000)
    table.view.scrollToBottom()
    last = BIG_ROWS - 1
    qtbot.waitUntil(lambda: model.index(last, 0).data() == "3.0", timeout=20000)
    assert model.index(last - 1, 0).data() == "2.0"
    rows_read = sum(s[0].stop - s[0].start for s in model.reads)
    assert rows_read <= 4 * PAGE_ROWS, model.reads
    assert all(s[0].start == 0 or s[0].stop > BIG_ROWS - 2 * PAGE_ROWS for s in model.reads)


@pytest.mark.slow
def test_slicing_is_kept_for_datasets_of_the_same_shape(qtbot, files):
    win = _window(qtbot, files["demo"])
    tab = win.current_tab()
    panel = _panel(tab)
    _click(tab, "/stack_a")
    _wait_view(qtbot, panel, ImageView, "/stack_a")
    panel.choose_view(TABLE)
    controls = panel.slicing
    assert set(controls.spins) == {0}  # rows axis 1, columns axis 2, axis 0 fixed
    controls.first.setCurrentIndex(0)
    controls.first.activated.emit(0)  # rows: axis 0 -> axis 1 becomes fixed
    assert set(controls.spins) == {1}
    controls.spins[1].setValue(3)
    table = panel.view
    qtbot.waitUntil(lambda: table.model.index(2, 4).data() not in (None, "…"), timeout=20000)
    assert table.model.index(2, 4).data() == str(np.arange(120).reshape(4, 5, 6)[2, 3, 4])
    _click(tab, "/stack_b")
    table = _wait_view(qtbot, panel, TableView, "/stack_b")
    assert set(panel.slicing.spins) == {1} and panel.slicing.spins[1].value() == 3
    qtbot.waitUntil(lambda: table.model.index(2, 4).data() not in (None, "…"), timeout=20000)
    assert table.model.index(2, 4).data() == str(-np.arange(120).reshape(4, 5, 6)[2, 3, 4])


def test_selected_cell_shows_its_value_beside_the_type(qtbot, files):
    win = _window(qtbot, files["every"])
    tab = win.current_tab()
    panel = _panel(tab)
    _click(tab, "/compound/table")
    table = _wait_view(qtbot, panel, TableView, "/compound/table")
    qtbot.waitUntil(lambda: table.model.index(0, 10).data() != "…", timeout=20000)
    table.view.setCurrentIndex(table.model.index(0, 10))
    text = tab.detail.text.toPlainText()
    assert "/compound/table[0] wide" in tab.detail.title.text()
    assert text.startswith("[0, 1, 2") and "compound of 8 members" in text
    assert "big-endian" in text and "layout: contiguous" in text


def test_unreadable_values_become_a_finding(qtbot, files):
    win = _window(qtbot, files["demo"])
    tab = win.current_tab()
    panel = _panel(tab)
    _click(tab, "/raw")
    table = _wait_view(qtbot, panel, TableView, "/raw")
    qtbot.waitUntil(lambda: any(f.code == "external.missing" for f in tab.doc.findings),
                    timeout=20000)
    assert table.model.index(0, 0).data() == "…"  # never shown as values
    panel.choose_view(CURVE)
    qtbot.waitUntil(lambda: "Cannot read" in (panel.view.placeholder_text() or ""),
                    timeout=20000)
    assert sum(f.code == "external.missing" for f in tab.doc.findings) == 1


def test_view_choice_from_shape_and_type(files):
    with open_document(files["every"]) as doc:
        node = doc.object_data.node
        assert views_for(node("/str/vlen_utf8")) == [TEXT, TABLE]
        assert views_for(node("/compound/table"))[0] == TABLE
        assert views_for(node("/null")) == [TABLE]
        assert node("/complex/c8").columns[0].kind == ColumnKind.COMPLEX
    with open_document(files["demo"]) as doc:
        node = doc.object_data.node
        assert views_for(node("/wave"))[0] == IMAGE
        assert views_for(node("/line"))[0] == CURVE
        assert views_for(node("/stack_a"))[0] == IMAGE


@pytest.mark.slow
def test_a_coarse_first_image_is_refined_and_zooming_reads_the_region(qtbot, tmp_path,
                                                                       monkeypatch):
    path = tmp_path / "tiles.h5"
    with h5py.File(path, "w") as f:
        y, x = np.mgrid[0:2000, 0:2000]
        f.create_dataset("img", data=(x + y).astype("<f4"), chunks=(100, 100),
                         compression="gzip", shuffle=True)
    chunk = 100 * 100 * 4
    monkeypatch.setattr("inspector.ui.data.image.IMAGE_FIRST_BYTES", 16 * chunk)
    monkeypatch.setattr("inspector.ui.data.image.IMAGE_BUDGET_BYTES", 400 * chunk)
    with open_document(path) as doc:
        jobs = JobRunner()
        panel = DataPanel(doc.object_data, jobs)
        qtbot.addWidget(panel)
        panel.resize(900, 700)
        panel.show()
        panel.set_node(doc.object_data.node("/img"))
        image = panel.view
        assert isinstance(image, ImageView)
        qtbot.waitUntil(lambda: image.requests == 2 and image.plan is not None
                        and not image.plan.coarse, timeout=20000)
        assert image.plan.touched_bytes <= 400 * chunk
        plan = image.plan
        np.testing.assert_array_equal(image.image, (np.add.outer(plan.rows, plan.cols)))
        image.plot_item.vb.setRange(xRange=(100, 300), yRange=(200, 400), padding=0)
        qtbot.waitUntil(lambda: image.plan.cell == (1, 1), timeout=20000)
        assert image.plan.rows.start >= 199 and image.plan.cols.stop <= 302
        assert "every element" in image.status.text()
        jobs.wait(5000)
