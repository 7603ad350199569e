"""Issue 5: the views of VneuroTK recordings, checked against the corpus expected.json."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from inspector.models.roles import MissingRole, NodeRole
from inspector.models.stimuli_model import STATE_DONE, STATE_FAILED
from tests.conftest import FIXTURES, load_expected, open_window

EXPECTED = {e["file"]: e for e in load_expected("vneurotk")}
REC = "v1/continuous_dense_f32_intids.h5"


def _typed_text(t):
    v = t["value"]
    return f'"{v}"' if t["type"] == "str" else str(v)


def _tab_titles(tab):
    return [tab.views.tabText(i) for i in range(tab.views.count())]


@pytest.mark.slow
def test_recording_views_present(qtbot):
    win = open_window(qtbot, FIXTURES / "vneurotk" / REC)
    tab = win.current_tab()
    assert _tab_titles(tab) == ["Header", "Trial metadata", "Provenance", "Stimuli (4)", "Trials",
                               "RSA"]
    assert tab.checksums is None
    assert tab.header_panel.raw.label.text() == "HDF5 objects"


@pytest.mark.parametrize("name", sorted(k for k, e in EXPECTED.items() if e.get("trial_meta")))
@pytest.mark.slow
def test_trial_meta_model_matches_expected(qtbot, name):
    exp = EXPECTED[name]["trial_meta"]
    win = open_window(qtbot, FIXTURES / "vneurotk" / name)
    m = win.current_tab().tables["trial_meta"].model
    assert m.rowCount() == exp["rows"]
    headers = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount())]
    assert headers == exp["columns"]
    tips = [m.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
            for c in range(m.columnCount())]
    assert [t.rsplit("dtype ", 1)[1] for t in tips] == exp["dtypes"]
    first = [m.headerData(r, Qt.Orientation.Vertical) for r in range(len(exp["first_index"]))]
    assert first == [_typed_text(t) for t in exp["first_index"]]


def test_trial_meta_missing_and_sort(qtbot):
    win = open_window(qtbot, FIXTURES / "vneurotk" / REC)
    panel = win.current_tab().tables["trial_meta"]
    m = panel.model
    rt = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount())].index("rt")
    assert m.index(2, rt).data() == "<NA>" and m.index(2, rt).data(MissingRole)
    panel.view.sortByColumn(rt, Qt.SortOrder.AscendingOrder)
    assert [m.index(r, rt).data() for r in range(m.rowCount())] == [
        "0.388", "0.397", "0.412", "0.455", "0.501", "<NA>"]
    panel.filter_edit.setText("right")
    panel.apply_filter_now()
    assert m.rowCount() == 3 and panel.count.text() == "3 of 6 rows × 5 columns"


@pytest.mark.slow
def test_provenance_tree_matches_expected(qtbot):
    exp = EXPECTED[REC]
    win = open_window(qtbot, FIXTURES / "vneurotk" / REC)
    model = win.current_tab().provenance.model
    root = model.root
    records = [n for n in root.children if n.children]
    assert len(records) == len(exp["vision_records"])
    for node, rec in zip(records, exp["vision_records"], strict=True):
        assert rec["model"] in node.name and rec["module_name"] in node.name
        fields = {c.name: c for c in node.children}
        prov = rec["provenance"]
        assert fields["stimulus_content_hash"].value == prov["stimulus_content_hash"]
        assert fields["model_id"].value == prov["model_id"]
        deps = {c.name: c.value for c in fields["dependency_versions"].children}
        assert deps == prov["dependency_versions"]
    writer = [n for n in root.children if not n.children]
    assert any(n.value == exp["writer_version"] for n in writer)


@pytest.mark.slow
def test_stimuli_thumbnails_and_typed_captions(qtbot):
    exp = EXPECTED[REC]["stimuli"]
    win = open_window(qtbot, FIXTURES / "vneurotk" / REC)
    panel = win.current_tab().stimuli
    m = panel.model
    assert sorted(m.index(r).data() for r in range(m.rowCount())) == sorted(
        _typed_text(t) for t in exp["ids"])
    win.current_tab().views.setCurrentWidget(panel)
    for r in range(m.rowCount()):
        m.index(r).data(Qt.ItemDataRole.DecorationRole)
    qtbot.waitUntil(lambda: all(m.state(r) == STATE_DONE for r in range(m.rowCount())),
                    timeout=10000)


def test_missing_legacy_stimulus_is_placeholder_and_finding(qtbot, tmp_path, monkeypatch):
    # no PNG beside it
    shutil.copy(FIXTURES / "vneurotk/historical/v0_dense_string_path.h5", tmp_path)
    dialogs = []
    for name in ("warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, lambda *a, **k: dialogs.append(a))
    win = open_window(qtbot, tmp_path / "v0_dense_string_path.h5")
    tab = win.current_tab()
    m = tab.stimuli.model
    rows = {m.index(r).data(): r for r in range(m.rowCount())}
    assert set(rows) == {'"face"', '"scene"'}
    for r in rows.values():
        m.index(r).data(Qt.ItemDataRole.DecorationRole)
    qtbot.waitUntil(lambda: m.state(rows['"face"']) == STATE_FAILED
                    and m.state(rows['"scene"']) == STATE_DONE,
                    timeout=10000)
    assert "v0_path_image.png" in m.index(rows['"face"']).data(Qt.ItemDataRole.ToolTipRole)
    locs = [f.location for f in tab.findings() if f.severity != "info"]
    assert locs.count("/stimuli_db/face") == 1
    assert dialogs == []
    # clicking that finding selects the stimulus
    row = next(r for r in range(win.findings.model.rowCount())
               if win.findings.model.finding(r)[1].location == "/stimuli_db/face")
    f, owner = win.findings.model.finding(row)[1:]
    win._finding_activated(f, owner)
    assert tab.views.currentWidget() is tab.stimuli
    assert tab.stimuli.view.currentIndex().row() == rows['"face"']


def test_open_at_node_selects_it_and_plots_arrays(qtbot):
    win = open_window(qtbot, f"{FIXTURES / 'vneurotk' / REC}::/neuro_info")
    tab = win.current_tab()
    cur = tab.tree_view.currentIndex()
    assert cur.data(NodeRole).location == "/neuro_info"
    assert tab.views.currentWidget() is tab.header_panel
    assert "neuro_info" in tab.detail.title.text()
    neuro = tab.header_panel.raw.model.root.find("/neuro")
    assert tab.header_panel.raw.select_node(neuro)
    if tab.plot is not None:
        assert tab.plot.current == "neuro"


@pytest.mark.slow
def test_filter_box_and_ctrl_f(qtbot):
    win = open_window(qtbot, FIXTURES / "vneurotk" / REC)
    win.show()
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)
    tab = win.current_tab()
    tab.views.setCurrentWidget(tab.tables["trial_meta"])
    qtbot.keyClick(win, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert tab.tables["trial_meta"].filter_edit.hasFocus()
    tab.views.setCurrentWidget(tab.header_panel)
    qtbot.keyClick(win, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert tab.header_panel.filter_edit.hasFocus()
    tab.header_panel.filter_edit.setText("sfreq")
    tab.header_panel.apply_filter_now()
    raw = tab.header_panel.raw
    top = [raw.proxy.index(r, 0).data() for r in range(raw.proxy.rowCount())]
    assert top == ["neuro_info"]
    child = raw.proxy.index(0, 0, raw.proxy.index(0, 0))
    assert child.data() == "sfreq"
    assert raw.proxy.index(0, 1, raw.proxy.index(0, 0)).data() == "250.0"


@pytest.mark.slow
def test_copy_value_name_location(qtbot):
    win = open_window(qtbot, FIXTURES / "vneurotk" / REC)
    tab = win.current_tab()
    raw = tab.header_panel.raw
    assert raw.select_location("/neuro_info@device") or raw.select_node(
        raw.model.root.find("/neuro_info").children[1])
    acts = {a.text(): a for a in raw.view.actions()}
    ctrl_c = Qt.Key.Key_C | Qt.KeyboardModifier.ControlModifier
    assert acts["Copy value"].shortcut().matches(ctrl_c).name
    acts["Copy value"].trigger()
    assert QGuiApplication.clipboard().text() == "demo-amp"
    acts["Copy name"].trigger()
    assert QGuiApplication.clipboard().text() == "device"
    acts["Copy location"].trigger()
    assert QGuiApplication.clipboard().text().startswith("/neuro_info")


@pytest.mark.slow
def test_provenance_unknown_marked_and_filter(qtbot):
    name = "v1/epochs_dense_f64_strids.h5"
    rec = EXPECTED[name]["vision_records"][0]
    unknown = sorted(k for k, v in rec["provenance"].items() if v in ("unknown", None))
    assert "model_revision" in unknown
    win = open_window(qtbot, FIXTURES / "vneurotk" / name)
    prov = win.current_tab().provenance
    model = prov.model
    first = next(n for n in model.root.children if n.children)
    for node in first.children:
        if node.children:
            continue
        idx = model.index_of_node(node).siblingAtColumn(1)
        assert idx.data(MissingRole) == (node.name in unknown), node.name
        if node.name in unknown:
            assert idx.data(Qt.ItemDataRole.FontRole).italic()
    prov.filter_edit.setText("model_revision")
    prov.apply_filter_now()
    shown = [prov.tree.proxy.index(r, 0).data() for r in range(prov.tree.proxy.rowCount())]
    assert shown and all(s.startswith(rec["model"]) for s in shown)


def test_finding_on_trial_meta_column_selects_the_column(qtbot):
    win = open_window(qtbot, FIXTURES / "vneurotk/v1/writer_str_column_missing.h5")
    tab = win.current_tab()
    fm = win.findings.model
    f, owner = next(fm.finding(r)[1:] for r in range(fm.rowCount())
                    if fm.finding(r)[1].location.startswith("/trial_meta/columns/0"))
    win._finding_activated(f, owner)
    panel = tab.tables["trial_meta"]
    assert tab.views.currentWidget() is panel
    assert panel.view.currentIndex().column() == 0
    assert tab.tree_view.currentIndex().data(NodeRole).location == f.location
    # selecting a cell shows its full typed value in the detail pane
    panel.view.setCurrentIndex(panel.model.index(0, 1))
    assert tab.detail.title.text().startswith("<b>Trial metadata[0, ")
