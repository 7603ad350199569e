"""File > Compare With…: compare the current document with a second file in a new tab."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu

if TYPE_CHECKING:  # the tab imports numpy and pyqtgraph: only when a comparison opens
    from inspector.ui.compare.tab import CompareTab


def ask_path(window: Any, title: str) -> str | None:
    """Ask for a file to compare (None if cancelled).  Tests replace this."""
    path, _ = QFileDialog.getOpenFileName(window, title, "")
    return path or None


def add_compare_action(window: Any, menu: QMenu) -> QAction:
    """Add File > Compare With… to ``menu`` (``window``: the main window)."""
    act = QAction("Co&mpare With…", window)
    act.setStatusTip("Compare the current document with another file: what differs, "
                     "section by section")
    act.triggered.connect(lambda: compare_with(window))
    menu.addAction(act)
    return act


def compare_with(window: Any) -> CompareTab | None:
    """Ask for the file to compare the current document with (both files when no
    document is open) and open the Compare tab."""
    tab = window.current_tab()
    first = getattr(tab, "path", None)
    if first is None:
        first = ask_path(window, "Compare: first file")
        if first is None:
            return None
    second = ask_path(window, f"Compare {Path(str(first)).name} with…")
    if second is None:
        return None
    return open_compare(window, first, second)


def open_compare(window: Any, a: Path | str, b: Path | str) -> CompareTab:
    """Open a Compare tab of ``a`` and ``b`` in ``window``'s tabs."""
    from inspector.ui.compare.tab import CompareTab

    tab = CompareTab(a, b, window.jobs)
    i = window.tabs.addTab(tab, tab.name)
    window.tabs.setTabToolTip(i, f"{a}\n{b}")
    window.tabs.setCurrentIndex(i)
    return tab
