"""The status bar says what is so, once, and keeps saying it (pytest-qt, offscreen): a file
that does not exist is said not to exist; "structure not checked" appears once for a failed
archive; the tab's status comes back after a menu entry's status tip (View > Theme)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QStatusTipEvent
from PySide6.QtWidgets import QApplication

from tests.conftest import FIXTURES
from tests.test_window_polish import _window


def test_a_file_that_does_not_exist_is_said_not_to_exist(qtbot, tmp_path):
    win = _window(qtbot, tmp_path / "gone.h5")
    text = win.statusBar().currentMessage()
    assert text.startswith("No such file or folder") and "Unrecognised" not in text


@pytest.mark.slow
def test_structure_not_checked_is_said_once(qtbot):
    win = _window(qtbot, FIXTURES / "aucx/bad_signal_byte_flip.aucx")
    text = win.statusBar().currentMessage()
    assert text.count("not checked") == 1 and "MISMATCH" in text


def test_the_status_comes_back_after_a_status_tip(qtbot):
    win = _window(qtbot, FIXTURES / "aucx/bad_truncated.aucx")
    status = win.statusBar().currentMessage()
    assert status
    theme = next(a for a in win.theme_menu.actions() if a.statusTip())
    QApplication.sendEvent(win, QStatusTipEvent(theme.statusTip()))  # hovering the entry
    assert win.statusBar().currentMessage() == theme.statusTip()
    QApplication.sendEvent(win, QStatusTipEvent(""))  # leaving it
    assert win.statusBar().currentMessage() == status


def test_export_suggests_a_path_beside_the_scan_folder_not_inside_it(tmp_path):
    import shutil

    from inspector.formats import open_document
    from inspector.ui.export_support import suggested_export_path

    folder = tmp_path / "run" / "long_csv"
    shutil.copytree(FIXTURES / "auc-delimited/long_csv", folder)
    with open_document(folder) as doc:
        suggested = suggested_export_path(doc)
    assert suggested.parent == folder.parent and suggested.suffix == ".aucx"
    with open_document(FIXTURES / "aucx/src_long_csv.aucx") as doc:  # a file: its folder
        assert suggested_export_path(doc).parent == FIXTURES / "aucx"
