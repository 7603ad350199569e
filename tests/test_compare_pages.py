"""The Compare tab's plot pages are made only when a difference first needs one, over
event-loop turns (``ui.compare.pages``): the curves page shows the values read (numpy as
the oracle) once made; a difference selected meanwhile wins; a build closed half-way, or
whose tab is closed, leaves no graphics item behind."""

from __future__ import annotations

import gc

import numpy as np
import pyqtgraph as pg
import pytest
from conftest import open_window
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QGraphicsItem
from shiboken6 import Shiboken
from test_compare_window import _edited

from inspector.ui.compare import action
from inspector.ui.compare.pages import curves_page_in_steps, images_page_in_steps
from inspector.ui.compare.session import array_curves

#: Turns each page ends (steps yielding None): per plot, one before it and the two of
#: ``plot_item_in_steps`` (the first after the graphics view is made), (for images) one
#: before each colour bar, and one before the page.
CURVES_TURNS = 2 * 3 + 1
IMAGES_TURNS = 3 * 3 + 2 + 1


def _live_items() -> list[QGraphicsItem]:
    """The graphics items and graphics views with a live C++ object."""
    return [o for o in gc.get_objects()
            if isinstance(o, QGraphicsItem | pg.GraphicsView) and Shiboken.isValid(o)]


def _flush(qapp) -> None:
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        qapp.processEvents()


def _opened(qtbot, tmp_path):
    a, b, _old, _row = _edited(tmp_path)
    win = open_window(qtbot)  # (no document: its plots are made over turns too)
    tab = action.open_compare(win, a, b)
    qtbot.waitUntil(lambda: tab.is_ready, timeout=60_000)
    return win, tab


def _turns(steps) -> tuple[int, object]:
    n = 0
    try:
        while True:
            assert next(steps) is None
            n += 1
    except StopIteration as end:
        return n, end.value


@pytest.mark.parametrize(("steps", "turns"), [(curves_page_in_steps, CURVES_TURNS),
                                               (images_page_in_steps, IMAGES_TURNS)])
def test_a_page_is_made_over_turns(qapp, steps, turns) -> None:
    n, page = _turns(steps())
    assert n == turns
    views = [page.overlay, page.difference] if hasattr(page, "overlay") \
        else list(page.views.values())
    assert all(v.scene() is page.plots.scene() for v in views)
    page.deleteLater()
    _flush(qapp)


@pytest.mark.parametrize("steps", [curves_page_in_steps, images_page_in_steps])
@pytest.mark.parametrize("taken", [1, 2, 4, 7])
def test_a_build_closed_half_way_leaves_nothing_behind(qapp, steps, taken) -> None:
    _flush(qapp)
    before = {id(o) for o in _live_items()}
    build = steps()
    for _ in range(taken):
        assert next(build) is None
    made = [o for o in _live_items() if id(o) not in before]
    assert made  # (the graphics view, and plot parts from the second turn on)
    build.close()
    _flush(qapp)
    assert [o for o in made if Shiboken.isValid(o)] == []


def test_plot_pages_are_made_only_when_needed(qtbot, tmp_path) -> None:
    win, tab = _opened(qtbot, tmp_path)
    detail = tab.detail
    assert detail.curves_page is None and detail.images_page is None
    assert detail.count() == 2  # the text and a table row's pages
    cell = next(d for d in tab.comparison.report.differences if d.section == "trials")
    assert tab.tree.select_path("trials", cell.path)
    qtbot.waitUntil(tab.is_settled, timeout=60_000)
    assert detail.currentWidget() is detail.rows_page and detail.count() == 2

    first = next(d for d in tab.comparison.report.differences if d.path == "neuro")
    curves = array_curves(tab.comparison, "neuro", first.detail["first_index"])
    detail.show_curves(curves)
    assert detail.is_building() and detail.curves_page is None  # not made at once
    assert not tab.is_settled()
    qtbot.waitUntil(tab.is_settled, timeout=20_000)
    page = detail.curves_page
    assert page is not None and detail.currentWidget() is page and detail.images_page is None
    x, y = page.difference.listDataItems()[0].getOriginalDataset()
    assert np.array_equal(x, curves.x) and np.array_equal(y, curves.diff)
    assert np.count_nonzero(y) == 10
    drawn = [item.getOriginalDataset()[1] for item in page.overlay.listDataItems()]
    assert [len(v) for v in drawn] == [len(curves.a.lo) * (1 if curves.a.raw else 2)] * 2
    assert detail.count() == 3

    detail.show_text(first)  # made once: shown again at once
    detail.show_curves(curves)
    assert detail.currentWidget() is page and not detail.is_building()


def test_a_difference_selected_while_a_page_is_made_wins(qtbot, tmp_path) -> None:
    win, tab = _opened(qtbot, tmp_path)
    detail = tab.detail
    first = next(d for d in tab.comparison.report.differences if d.path == "neuro")
    detail.show_curves(array_curves(tab.comparison, "neuro", first.detail["first_index"]))
    assert detail.is_building()
    detail.show_text(first)  # another difference, shown at once
    assert not detail.is_building()
    qtbot.waitUntil(lambda: detail.curves_page is not None, timeout=20_000)
    assert detail.currentWidget() is detail.text and '"path": "neuro"' in detail.text.toPlainText()


def test_closing_the_tab_while_a_page_is_made_leaves_nothing_behind(qtbot, qapp,
                                                                    tmp_path) -> None:
    win, tab = _opened(qtbot, tmp_path)
    first = next(d for d in tab.comparison.report.differences if d.path == "neuro")
    curves = array_curves(tab.comparison, "neuro", first.detail["first_index"])
    _flush(qapp)
    before = {id(o) for o in _live_items()}
    tab.detail.show_curves(curves)
    for _ in range(2):  # a turn or two of the build
        qapp.processEvents()
    assert tab.detail.is_building()
    made = [o for o in _live_items() if id(o) not in before]
    assert made
    win.close_tab(win.tabs.indexOf(tab))
    for _ in range(5):
        _flush(qapp)
    assert [o for o in made if Shiboken.isValid(o)] == []


def _npy(archive, member: str) -> np.ndarray:
    import io
    import zipfile

    with zipfile.ZipFile(archive) as z:
        return np.load(io.BytesIO(z.read(member)), allow_pickle=False)


def test_a_scan_whose_signal_differs_is_shown_as_curves(qtbot) -> None:
    from pathlib import Path

    aucx = Path(__file__).parent / "fixtures" / "aucx"
    a, b = aucx / "src_readiness_rich.aucx", aucx / "bad_signal_byte_flip.aucx"
    win = open_window(qtbot)
    tab = action.open_compare(win, a, b)
    qtbot.waitUntil(lambda: tab.is_ready, timeout=60_000)
    assert tab.tree.select_path("scans", "scan_001.signal")
    qtbot.waitUntil(tab.is_settled, timeout=60_000)
    page = tab.detail.curves_page
    assert page is not None and tab.detail.currentWidget() is page
    va = _npy(a, "arrays/signal.npy")[0].astype(np.float64)  # scan_001: the first row
    vb = _npy(b, "arrays/signal.npy")[0].astype(np.float64)
    assert not np.array_equal(va, vb)
    x, y = page.difference.listDataItems()[0].getOriginalDataset()
    assert np.array_equal(x, np.arange(va.size)) and np.array_equal(y, va - vb)
    drawn = [item.getOriginalDataset()[1] for item in page.overlay.listDataItems()]
    assert np.array_equal(drawn[0], va) and np.array_equal(drawn[1], vb)
    assert page.title.text().startswith("scan_001.signal[points]: ")
