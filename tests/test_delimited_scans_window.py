"""A CSV/TSV experiment in the window (pytest-qt, offscreen): a finding about one scan
selects that scan, not the data file, and the scans table shows an empty annotation as an
empty cell and a real one as its text."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import FIXTURES, open_window

LONG_TSV = FIXTURES / "auc-delimited/long_tsv"
ANNOTATED = FIXTURES / "aucx/syn_sparse_metadata_s9_7x80.aucx"  # annotations "synthetic"


def _one_scan_without_temperature(tmp_path):
    """The long TSV fixture with a cell column for both scans and a temperature for the
    first scan only: one finding about the second scan (``scans[1].temperature``)."""
    folder = tmp_path / "lab"
    shutil.copytree(LONG_TSV, folder)
    data = folder / "scans.tsv"
    lines = data.read_text().splitlines()
    out = [lines[0] + "\tcell\ttemperature_c"]
    for line in lines[1:]:
        first = line.split("\t")[0] == "scan_001"
        out.append(line + ("\t1\t20" if first else "\t2\t"))
    data.write_text("\n".join(out) + "\n")
    return folder


def _column(table, name):
    return [str(label) for label in table.model.labels].index(name)


@pytest.mark.slow
def test_a_finding_about_one_delimited_scan_selects_that_scan(qtbot, tmp_path):
    win = open_window(qtbot, _one_scan_without_temperature(tmp_path), size=(1280, 800),
                      show=True, idle=True, timeout=60_000)
    tab = win.current_tab()
    finding = next(f for f in tab.doc.findings if f.code == "validation.temperature_absent")
    assert finding.location == "scans.tsv:scans[1].temperature"
    win._finding_activated(finding, tab)
    table = tab.tables["scans"]
    assert tab.views.currentWidget() is table  # the scan's row, not the data file's node
    assert table.selected_positions().tolist() == [1]
    assert tab.plot.view.selected_scans() == [1]  # the plot's scan list follows


def test_empty_annotations_are_empty_cells_and_real_ones_text(qtbot, tmp_path):
    from PySide6.QtCore import Qt

    win = open_window(qtbot, LONG_TSV, ANNOTATED, size=(1280, 800), show=True, idle=True,
                      timeout=60_000)
    empty, annotated = win.document_tabs()
    table = empty.tables["scans"]
    col = _column(table, "annotations")
    model = table.model
    assert [model.index(r, col).data() for r in range(model.rowCount())] == ["", ""]
    assert model.index(0, col).data(Qt.ItemDataRole.ToolTipRole) == "empty text  (str)"
    table = annotated.tables["scans"]
    col = _column(table, "annotations")
    shown = {table.model.index(r, col).data() for r in range(table.model.rowCount())}
    assert shown == {"synthetic"}
