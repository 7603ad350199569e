"""Sources of several experiments (``doc.groups``): the window lets the user choose one.

The group chooser lists every group; choosing one shows its scans in the
Scans table, the scan list and the plot, and File > Export to AUCX writes
that group (read back with our reader; values compared with float() of the
scan files' tokens).  Run folders are the bundled sample and folders written
here from the layout (tests/test_beckman_layout.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor

from inspector.formats.registry import open_document
from inspector.ui.main_window import MainWindow
from tests.conftest import open_window
from tests.test_beckman_layout import data, header, mixed_run, tokens, write
from tests.test_export_gui import Dialogs

SAMPLE = Path(__file__).parent.parent / "resources" / "samples" / "beckman_run"


def _open(qtbot, path: Path) -> MainWindow:
    return open_window(qtbot, path, size=(1280, 800), idle=True, timeout=60_000)


def _choose(qtbot, win: MainWindow, key: str) -> None:
    tab = win.current_tab()
    index = tab.group_bar.keys.index(key)
    tab.group_bar.combo.setCurrentIndex(index)
    tab.group_bar.combo.activated.emit(index)  # what a user's pick emits
    qtbot.waitUntil(lambda: tab.doc.groups.selected == key and win.all_tabs_ready()
                    and win.is_idle(), timeout=60000)


def _shown_scans(tab) -> tuple[list[str], list[str], list[str]]:
    """The scan IDs of the Scans table, the scan list and the plot's curves."""
    frame = tab.tables["scans"].model.table.frame()
    view = tab.plot.view
    listed = [view.scan_list.item(i).text() for i in range(view.scan_list.count())]
    return list(frame["scan_id"]), listed, [sid for sid, _x, _y in view.curves()]


@pytest.mark.slow
def test_sample_run_offers_its_groups_and_shows_the_chosen_one(qtbot, tmp_path):
    with open_document(SAMPLE) as doc:
        keys = doc.groups.keys
        first_ids = list(doc.auc.scan_ids)
    win = _open(qtbot, SAMPLE)
    tab = win.current_tab()
    assert tab.group_bar is not None and tab.group_bar.keys == keys
    assert tab.group_bar.current() == keys[0]
    assert _shown_scans(tab) == (first_ids, first_ids, first_ids)
    for key in keys[1:]:
        _choose(qtbot, win, key)
        tab = win.current_tab()
        assert tab.group_bar.current() == key and tab.group_bar.combo.isEnabled()
        with open_document(SAMPLE) as doc, doc.groups.open(key) as chosen:
            ids = list(chosen.auc.scan_ids)
        table, listed, plotted = _shown_scans(tab)
        assert table == listed == plotted == ids
        for sid, x, y in tab.plot.view.curves():  # the plot draws the files' own points
            oracle = np.asarray(tokens(SAMPLE / sid))
            finite = np.isfinite(y)
            assert set(np.round(x[finite], 6)) <= set(np.round(oracle[:, 0], 6))
        assert set(tab.tables) == {"groups", "scans"}
        groups = tab.tables["groups"].model.table.frame()
        assert groups.loc[groups["offered"], "group"].tolist() == [key]


@pytest.mark.slow
def test_export_writes_the_chosen_group(qtbot, tmp_path):
    win = _open(qtbot, SAMPLE)
    keys = win.current_tab().group_bar.keys
    _choose(qtbot, win, keys[1])
    dest = tmp_path / "chosen.aucx"
    Dialogs(win, str(dest))
    assert win.act_export.isEnabled()
    with qtbot.waitSignal(win.export_finished, timeout=30000) as sig:
        win.act_export.trigger()
    assert sig.args == [True, str(dest)]
    with open_document(dest) as out:
        out.verify()
        assert out.ok
        ids = list(out.auc.scan_ids)
        signal = np.asarray(out.auc.experiment.signal)
    with open_document(SAMPLE) as doc, doc.groups.open(keys[1]) as chosen:
        assert ids == list(chosen.auc.scan_ids)
    for row, sid in enumerate(ids):
        oracle = np.asarray(tokens(SAMPLE / sid))[:, 1]
        assert np.array_equal(signal[row][:len(oracle)], oracle)
    openauc = pytest.importorskip("openauc")  # the peer reads the chosen group exactly
    exp = openauc.load(dest)
    assert [s.scan_id for s in exp.scans] == ids
    for scan in exp.scans:
        oracle = np.asarray(tokens(SAMPLE / scan.scan_id))
        r, s = exp.observations.scan_vectors(scan.scan_id)
        assert np.array_equal(r, oracle[:, 0]) and np.array_equal(s, oracle[:, 1])


def _cells_and_wavelengths(root: Path) -> Path:
    """Cells 1 and 2 at 280 and 230 nm (interleaved file numbers), 3 scans each."""
    run = root / "run"
    for cell in (1, 2):
        for n in range(1, 7):
            wl = "280" if n % 2 else "230"
            write(run, f"{n:05d}.RA{cell}", [f"cell {cell}", header(cell=cell, seconds=60 * n,
                                                                     wl=wl),
                                              *data(4 + cell + n, seed=10 * cell + n)])
    return run


@pytest.mark.slow
def test_several_cells_and_wavelengths_each_group_in_turn(qtbot, tmp_path):
    run = _cells_and_wavelengths(tmp_path)
    win = _open(qtbot, run)
    tab = win.current_tab()
    assert tab.group_bar.keys == ("RA1-230", "RA1-280", "RA2-230", "RA2-280")
    for key in ("RA2-280", "RA1-280", "RA2-230"):
        _choose(qtbot, win, key)
        tab = win.current_tab()
        cell, wl = int(key[2]), key.split("-")[1]
        want = [f"{n:05d}.RA{cell}" for n in range(1, 7) if (wl == "280") == bool(n % 2)]
        table, listed, plotted = _shown_scans(tab)
        assert table == listed == plotted == want
        for i, sid in enumerate(want):  # every point of every scan, never interpolated
            oracle = np.asarray(tokens(run / sid))
            x, y = tab.plot.view.curve(i)
            finite = np.isfinite(y)
            assert np.array_equal(x[finite], oracle[:, 0])
            assert np.array_equal(y[finite], oracle[:, 1])
        assert win.act_export.isEnabled()


@pytest.mark.slow
def test_wavelength_scan_group_can_be_chosen_and_left(qtbot, tmp_path):
    run = mixed_run(tmp_path)
    win = _open(qtbot, run)
    tab = win.current_tab()
    assert "WA1-6.5" in tab.group_bar.keys
    _choose(qtbot, win, "WA1-6.5")
    tab = win.current_tab()
    assert tab.doc.auc is None and not win.act_export.isEnabled()  # shown, never exported
    assert tab.group_bar is not None and tab.group_bar.current() == "WA1-6.5"
    _choose(qtbot, win, "RA2-280")
    tab = win.current_tab()
    assert tab.doc.auc is not None and win.act_export.isEnabled()
    assert _shown_scans(tab)[0] == ["00001.RA2", "00002.RA2", "00003.RA2"]


def test_single_experiment_sources_have_no_chooser(qtbot):
    demo = Path(__file__).parent / "fixtures" / "auc-delimited" / "demo_experiment"
    win = _open(qtbot, demo)
    assert win.current_tab().group_bar is None


def _colour_pixels(layer, colour) -> int:
    img = layer.front.image
    want = QColor(colour).rgb() & 0xFFFFFF
    buf = np.frombuffer(img.constBits(), dtype=np.uint32, count=img.width() * img.height())
    return int(((buf & 0xFFFFFF) == want).sum())


@pytest.mark.slow
def test_selecting_a_scan_anywhere_highlights_it_everywhere_after_a_group_change(qtbot):
    win = _open(qtbot, SAMPLE)
    keys = win.current_tab().group_bar.keys
    _choose(qtbot, win, keys[1])  # the link follows the rebuilt views
    tab = win.current_tab()
    view, table = tab.plot.view, tab.tables["scans"]
    ids = [str(v) for v in table.model.table.frame()["scan_id"]]
    assert ids == view.scan_ids and len(ids) >= 2
    # the table selects: the list selects and the curve is drawn on top, the others dimmed
    table.view.selectRow(1)
    assert view.selected_scans() == [1] and view.scan_list.item(1).isSelected()
    qtbot.waitUntil(lambda: view.ready, timeout=10_000)
    assert view.highlights.order == [1] and view.lines.opacity() < 0.5
    assert _colour_pixels(view.highlights, view.colors[1]) > 20
    assert _colour_pixels(view.highlights, view.colors[0]) == 0
    # the list selects: the table follows
    view.scan_list.setCurrentRow(0)
    rows = {i.row() for i in table.view.selectionModel().selectedRows()}
    assert [table.model.value(r, 0) for r in rows] == [ids[0]]
    # a click on a curve selects its scan in the list and the table
    x, y = view.curve(1)
    k = int(np.flatnonzero(np.isfinite(y))[len(y) // 2])
    point = view.plot_item.vb.mapViewToScene(QPointF(float(x[k]), float(y[k])))
    assert view.scan_at(float(x[k]), float(y[k])) == 1
    pos = view.plot_widget.mapFromScene(point)
    qtbot.mouseClick(view.plot_widget.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert view.selected_scans() == [1]
    rows = {i.row() for i in table.view.selectionModel().selectedRows()}
    assert [table.model.value(r, 0) for r in rows] == [ids[1]]
    qtbot.waitUntil(lambda: view.ready, timeout=10_000)
    assert _colour_pixels(view.highlights, view.colors[1]) > 20
