"""The window at 1024x640, light and dark: tree columns wide enough to read, every
finding reachable with the last row whole, a plot label clear of the splitter handle,
and files that are not recordings headed by what they are."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from inspector.formats import open_document
from inspector.models.open_failure import open_failure
from inspector.ui.columns import MIN_WIDTH, TREE_FLOORS, TYPE_CAP, natural_widths, tree_widths
from inspector.ui.theme import apply_theme
from tests.conftest import FIXTURES, open_window

REC = FIXTURES / "vneurotk/v1/continuous_dense_f32_intids.h5"
ARCHIVE = FIXTURES / "aucx/syn_moving_boundary_s42_20x300.aucx"
NINE = FIXTURES / "aucx/syn_sparse_metadata_s9_7x80.aucx"  # 9 findings: more than open
# three errors, and the warning that the structure was not checked (the archive failed)
THREE = FIXTURES / "aucx/multi_signal_flip_unlisted_member_bad_line.aucx"
TRUNCATED = FIXTURES / "vneurotk/edited/truncated_half.h5"
WRONG_MAGIC = FIXTURES / "vneurotk/edited/hdr_wrong_magic.h5"
SMALL = (1024, 640)


@pytest.fixture()
def theme(request):
    """Apply ``request.param`` (a theme name); the System theme is restored after."""
    apply_theme(request.param)
    yield request.param
    apply_theme("system")


def _window(qtbot, *paths, size=SMALL):
    win = open_window(qtbot, size=size)
    win.keep_geometry = False
    win.show()
    qtbot.waitExposed(win)
    win.open_paths([str(p) for p in paths], remember=False)
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=60000)
    qtbot.wait(50)  # deferred layout (dock, column fits)
    return win


# -- tree columns ----------------------------------------------------------------------
def test_tree_widths_stretch_the_name_and_keep_the_others_readable():
    natural = {0: 190, 1: 263, 2: 59, 3: 309}  # the HDF5 objects of a recording
    widths = tree_widths(natural, 439)
    assert sum(widths.values()) == 439
    assert widths[2] == 59  # the type as its content needs
    assert widths[0] >= TREE_FLOORS[0] and widths[1] >= TREE_FLOORS[1]
    assert widths[3] >= TREE_FLOORS[3]
    roomy = tree_widths(natural, 1200)  # room to spare: everything whole, the name stretches
    assert roomy[1] == 263 and roomy[3] == 309 and roomy[2] == 59
    assert roomy[0] == 1200 - 263 - 309 - 59
    short = tree_widths({0: 80, 1: 40, 2: 30, 3: 20}, 400)  # short content stays short
    assert short[1] == 40 and short[2] == 30 and short[3] == 20 and short[0] == 310
    assert tree_widths({0: 100, 1: 100, 2: 300, 3: 100}, 1000)[2] == TYPE_CAP
    tight = tree_widths(natural, 300)  # narrower than the floors: all shrink, none vanishes
    assert all(w >= min(MIN_WIDTH, natural[c]) for c, w in tight.items())
    assert sum(tight.values()) <= 300


@pytest.mark.parametrize("theme", ["light", "dark"], indirect=True)
@pytest.mark.slow
def test_tree_columns_are_readable_at_1024x640(qtbot, theme):
    win = _window(qtbot, REC)
    panel = win.current_tab().header_panel
    for tree in panel.trees():
        view = tree.view
        header = view.header()
        natural = natural_widths(view)
        sizes = [header.sectionSize(c) for c in range(4)]
        assert sum(sizes) <= view.viewport().width() + 1
        for c in (0, 1, 3):  # name, value, details: their content or at least the floor
            assert sizes[c] >= min(natural[c], TREE_FLOORS[c]), (tree.label.text(), sizes)
        assert sizes[2] >= min(natural[2], TYPE_CAP)  # the type in full
        assert view.textElideMode() == Qt.TextElideMode.ElideMiddle
    # the details of /neuro are cut at this size: the tooltip has them whole
    raw = panel.raw.view
    model = raw.model()
    idx = next(model.index(r, 3) for r in range(model.rowCount())
               if model.index(r, 0).data() == "neuro")
    full = idx.data(Qt.ItemDataRole.ToolTipRole)
    assert full == idx.data() and full.startswith("(480, 6) float32")
    assert raw.fontMetrics().horizontalAdvance(full) > raw.columnWidth(3)  # elided here
    assert raw.columnWidth(3) >= TREE_FLOORS[3]


# -- findings dock ---------------------------------------------------------------------
def _row_bottom_in_view(view, row: int) -> bool:
    rect = view.visualRect(view.model().index(row, 0))
    return rect.isValid() and rect.top() >= 0 and rect.bottom() < view.viewport().height()


@pytest.mark.parametrize("theme", ["light", "dark"], indirect=True)
# three errors, and the warning that the structure was not checked (the archive failed)
@pytest.mark.parametrize("path,count", [(THREE, 4), (NINE, 9)])
@pytest.mark.slow
def test_every_finding_is_reachable_and_the_last_row_whole(qtbot, theme, path, count):
    win = _window(qtbot, path)
    dock = win.findings
    view = dock.view
    qtbot.waitUntil(lambda: not dock.compact and view.isVisible(), timeout=5000)
    qtbot.wait(50)
    assert view.model().rowCount() == count
    shown = min(count, 5)
    assert all(_row_bottom_in_view(view, r) for r in range(shown))  # no row cut
    assert view.viewport().height() == shown * dock.row_height()  # whole rows, none half
    view.scrollToBottom()
    qtbot.wait(20)
    assert _row_bottom_in_view(view, count - 1)
    last = view.visualRect(view.model().index(count - 1, 0))
    assert view.indexAt(QPoint(4, last.center().y())).row() == count - 1
    assert dock.height() <= 0.3 * win.height() + 1


# -- plot labels -----------------------------------------------------------------------
@pytest.mark.parametrize("theme", ["dark", "light"], indirect=True)
@pytest.mark.parametrize("path", [ARCHIVE, REC])
@pytest.mark.slow
def test_the_y_axis_label_keeps_clear_of_the_splitter_handle(qtbot, theme, path):
    win = _window(qtbot, path)
    plot = win.current_tab().plot.view
    handle = plot.splitter.handle(1)
    handle_right = handle.mapTo(win, QPoint(handle.width(), 0)).x()
    label = plot.plot_item.getAxis("left").label
    rect = plot.plot_widget.mapFromScene(label.sceneBoundingRect()).boundingRect()
    left = plot.plot_widget.mapTo(win, rect.topLeft()).x()
    assert label.isVisible() and label.toPlainText().startswith(("signal", "value"))
    assert left >= handle_right + 4  # the label's box, let alone its glyphs


# -- headings --------------------------------------------------------------------------
def test_a_truncated_hdf5_file_is_not_headed_a_recording():
    with open_document(TRUNCATED) as doc:
        assert doc.kind_label == "Truncated HDF5 file"
        assert doc.header.children[0].value == "Truncated HDF5 file"
        assert [f.code for f in doc.findings] == ["file.truncated"]  # verdict unchanged
        page = open_failure(doc)
        assert page is not None and "VneuroTK" not in " ".join(page.tries)


def test_a_file_naming_another_format_is_an_hdf5_file(qtbot):
    with open_document(WRONG_MAGIC) as doc:
        assert doc.kind_label == "HDF5 file (not a VneuroTK recording)"
        assert doc.mismatch is not None and doc.mismatch.codes == {"header.wrong-magic"}
        assert "'recordings'" in doc.mismatch.reason and not doc.ok  # verify's verdict stays
    win = _window(qtbot, WRONG_MAGIC)
    tab = win.current_tab()
    assert tab.failure is None and tab.status_text.startswith("HDF5 file (not a VneuroTK")


def test_headings_follow_what_the_file_is(qtbot, tmp_path: Path):
    text = tmp_path / "notes.h5"
    text.write_text("a text file renamed .h5\n" * 4)
    header_only = tmp_path / "header_only.h5"
    header_only.write_bytes(REC.read_bytes()[:40])  # the HDF5 signature, the rest cut
    win = _window(qtbot, text, header_only, TRUNCATED)
    want = {text.name: "Unrecognised file", header_only.name: "Unreadable HDF5 file",
            TRUNCATED.name: "Truncated HDF5 file"}
    tabs = win.document_tabs()
    assert len(tabs) == 3
    for i, tab in enumerate(tabs):
        kind = want[tab.doc.name]
        assert tab.doc.kind_label == kind
        assert tab.doc.header.children[0].value == kind
        assert tab.status_text.startswith(kind) and "VneuroTK" not in tab.status_text
        assert kind in win.tabs.tabToolTip(i)
        assert tab.failure is not None and "(VneuroTK recording)" not in tab.failure.text
