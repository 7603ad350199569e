"""The Compare tab's tree of differences is a model over the report (``ui.compare.tree``):
rows are formatted only when shown, a section lists at most ``MAX_ROWS`` rows and says
how many more there are, and sections past ``EXPANDED_ROWS`` rows stay collapsed."""

from __future__ import annotations

from PySide6.QtCore import Qt

from inspector.formats.compare.model import Difference, DiffOptions, DiffReport, Side
from inspector.formats.compare.text import line
from inspector.ui.compare.tree import DIFF_ROLE, EXPANDED_ROWS, MAX_ROWS, DiffTree, groups_of


def _report(objects: int, members: int, findings: int = 0) -> DiffReport:
    found = [{"severity": "warning", "code": "x.y", "message": f"finding {i}"}
             for i in range(findings)]
    diffs = [Difference("objects", "changed", f"/g/d{i}", a=i, b=i + 1, content=i % 2 == 0)
             for i in range(objects)]
    diffs += [Difference("members", "changed", f"m{i}", a="x", b="y") for i in range(members)]
    return DiffReport(Side("a.h5", "hdf5", "HDF5 file", True, found),
                      Side("b.h5", "hdf5", "HDF5 file", True, []), DiffOptions(), diffs)


def test_a_large_report_lists_a_bounded_number_of_rows(qtbot) -> None:
    tree = DiffTree()
    qtbot.addWidget(tree)
    tree.resize(800, 400)
    tree.show()
    report = _report(MAX_ROWS + 1234, 3, findings=2)
    tree.show_report(report, groups_of(report))
    model = tree.model()
    tops = [model.index(i, 0).data() for i in range(model.rowCount())]
    half = (MAX_ROWS + 1234 + 1) // 2
    assert tops == ["Findings of A (2)", "members (3 content, 0 representation)",
                    f"objects ({half} content, {MAX_ROWS + 1234 - half} representation)"]
    objects = model.index(2, 0)
    assert model.rowCount(objects) == MAX_ROWS + 1
    last = model.index(MAX_ROWS, 0, objects)
    assert last.data() == "… and 1,234 more (inspector diff --json lists them all)"
    assert last.data(DIFF_ROLE) is None and tree.isFirstColumnSpanned(MAX_ROWS, objects)
    assert not tree.isFirstColumnSpanned(MAX_ROWS - 1, objects)  # A and B in columns
    assert tree.isFirstColumnSpanned(1, model.index(0, 0))  # a finding spans them
    d = report.differences[7]
    row = model.index(7, 0, objects)
    assert row.data(DIFF_ROLE) is d and row.data(Qt.ItemDataRole.ToolTipRole) == line(d)
    assert [row.siblingAtColumn(c).data() for c in (1, 2)] == ["7", "8"]
    assert row.data(Qt.ItemDataRole.ForegroundRole) is not None  # representation: muted
    assert model.index(6, 0, objects).data(Qt.ItemDataRole.ForegroundRole) is None
    # formatted only when shown: a few rows of the view, not the section's 2 000
    formatted = sum(len(g.cache) for g in model.groups)
    assert 0 < formatted < 100
    assert not tree.isExpanded(objects)  # past EXPANDED_ROWS: collapsed
    assert tree.isExpanded(model.index(0, 0)) and tree.isExpanded(model.index(1, 0))
    assert tree.select_path("members", "m2")
    assert tree.selected_difference() is report.differences[-1]
    assert not tree.select_path("objects", f"/g/d{MAX_ROWS + 5}")  # not listed


def test_a_small_report_is_expanded_whole(qtbot) -> None:
    tree = DiffTree()
    qtbot.addWidget(tree)
    report = _report(EXPANDED_ROWS - 10, 10)
    tree.show_report(report)
    model = tree.model()
    assert [model.rowCount(model.index(i, 0)) for i in range(model.rowCount())] \
        == [10, EXPANDED_ROWS - 10]  # (members, then objects)
    assert all(tree.isExpanded(model.index(i, 0)) for i in range(model.rowCount()))
    with qtbot.waitSignal(tree.selection_changed):
        assert tree.select_path("objects", "/g/d3")
    assert tree.selected_difference() is report.differences[3]
