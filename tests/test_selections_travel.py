"""Selections that travel (pytest-qt, offscreen): a trial chosen in the trial-metadata table
is shaded in the continuous plot and brought into view."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_window_polish import REC, _window


@pytest.mark.slow
def test_a_trial_chosen_in_the_table_is_marked_and_shown_in_the_plot(qtbot):
    win = _window(qtbot, REC, size=(1280, 800))
    tab = win.current_tab()
    view = tab.plot.view
    table = tab.tables["trial_meta"]
    starts = view.markers["trial_starts"]
    ends = view.markers["trial_ends"]
    last = int(starts.size - 1)
    sfreq = view.sfreq
    vb = view.plot_item.vb
    vb.setXRange(0.0, float(starts[1]) / sfreq / 2, padding=0)  # zoomed in on the start
    table.rows_chosen.emit(np.array([last]))
    assert len(view.trial_spans) == 1
    a, b = view.trial_spans[0].getRegion()
    assert (a, b) == (float(starts[last]) / sfreq, float(ends[last]) / sfreq)
    x0, x1 = vb.viewRange()[0]
    assert x0 <= a and b <= x1  # brought into view
    table.rows_chosen.emit(np.array([0, 2]))
    assert [s.getRegion()[0] for s in view.trial_spans] == [
        float(starts[0]) / sfreq, float(starts[2]) / sfreq]


def test_a_marker_tooltip_answers_across_the_whole_marker(qtbot):
    from PySide6.QtCore import QEvent, QPoint, QPointF
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    from inspector.jobs import JobRunner
    from inspector.ui.plots.navigation import TIP_PIXELS
    from tests.test_neural_navigation import MARKERS, make_view, recording

    jobs = JobRunner()
    view = make_view(qtbot, jobs, recording(), MARKERS, sfreq=100.0)
    widget = view.plot_widget
    vb = view.plot_item.vb
    centre = widget.mapFromScene(vb.mapViewToScene(QPointF(11.0, 0.0)))
    answered = []
    for dx in range(-TIP_PIXELS, TIP_PIXELS + 1):  # every pixel of the marker and its margin
        pos = QPoint(centre.x() + dx, centre.y())
        event = QHelpEvent(QEvent.Type.ToolTip, pos, widget.viewport().mapToGlobal(pos))
        QApplication.sendEvent(widget.viewport(), event)
        answered.append(QToolTip.isVisible()
                        and QToolTip.text() == "stimulus onset of trial 1: 11 s")
    assert all(answered), answered
    far = QPoint(centre.x() + 60, centre.y())
    QApplication.sendEvent(widget.viewport(),
                           QHelpEvent(QEvent.Type.ToolTip, far, widget.viewport().mapToGlobal(far)))
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=5000)  # (Qt hides it shortly)
    jobs.cancel_all()
    jobs.wait(5000)


@pytest.mark.slow
def test_a_finding_about_one_scan_selects_that_scan(qtbot):
    from tests.conftest import FIXTURES

    win = _window(qtbot, FIXTURES / "aucx/src_matching_manifests_json.aucx", size=(1280, 800))
    tab = win.current_tab()
    finding = next(f for f in tab.doc.findings if f.location == "experiment.json:scans[0].cell")
    win._finding_activated(finding, tab)
    table = tab.tables["scans"]
    assert tab.views.currentWidget() is table
    assert table.selected_positions().tolist() == [0]
    view = tab.plot.view
    assert view.selected_scans() == [0]  # the plot's scan list follows


def test_scans_of_different_cells_differ_in_hue_and_their_ids_are_whole(qtbot):
    from PySide6.QtGui import QColor

    from inspector.ui.plots.auc_scans import cell_colors, scan_cells
    from tests.conftest import FIXTURES
    from tests.test_plot_views import auc_view_for

    jobs = __import__("inspector.jobs", fromlist=["JobRunner"]).JobRunner()
    view, doc = auc_view_for(qtbot, jobs, FIXTURES / "aucx/syn_sparse_metadata_s9_7x80.aucx")
    cells = scan_cells(doc.auc, len(view.scan_ids))
    assert len(set(cells)) == 2
    hues = {}
    for cell, color in zip(cells, view.colors, strict=True):
        hues.setdefault(cell, set()).add(QColor(color).hsvHue())
    assert all(len(h) == 1 for h in hues.values())  # one hue a cell ...
    assert len(set.union(*hues.values())) == 2  # ... and different hues for different cells
    for cell in set(cells):  # within a cell, light to dark in scan order
        values = [QColor(c).value() for k, c in zip(cells, view.colors, strict=True) if k == cell]
        assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert [QColor(c).value() for c in cell_colors(["a", "a"], dark=True)] == [140, 255]
    scan_list = view.scan_list
    room = scan_list.viewport().width()
    widest = max(scan_list.fontMetrics().horizontalAdvance(i) for i in view.scan_ids)
    assert room >= widest + 12 + 20  # swatch and check box beside the whole ID
    doc.close()
    jobs.cancel_all()
    jobs.wait(5000)
