"""The window opens a Beckman run through the seams alone (no UI code knows the format)."""

from __future__ import annotations

from pathlib import Path

from inspector.ui.main_window import MainWindow

SAMPLE = Path(__file__).parent.parent / "resources" / "samples" / "beckman_run"


def test_sample_run_opens_in_the_window_with_tables_and_plot(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1024, 640)
    win.open_paths([str(SAMPLE)])
    # the plot is built once the plots package is imported off the GUI thread
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=60000)
    [tab] = win.document_tabs()
    assert tab.has_views and tab.doc.format == "beckman-xl" and tab.doc.ok
    assert set(tab.tables) == {"groups", "scans"}
    assert tab.plot is not None
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert "Provenance" in titles and "Scans" in titles
