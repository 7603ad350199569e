"""A Compare tab: two documents, the tree of what differs, and the selected difference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from inspector.formats.compare.model import DiffOptions
from inspector.formats.compare.text import verdict
from inspector.jobs import JobRunner
from inspector.ui.compare.detail import DetailPane
from inspector.ui.compare.session import (
    Comparison,
    Curves,
    Images,
    array_curves,
    image_pair,
    run_comparison,
    scan_curves,
    table_rows,
)
from inspector.ui.compare.tree import DiffTree, Group, groups_of


def _compare(path_a: Path | str, path_b: Path | str, options: DiffOptions,
             cancelled: Any) -> tuple[Comparison, list[Group]]:
    """The comparison and the rows of its tree (on a job)."""
    comparison = run_comparison(path_a, path_b, options, cancelled)
    try:
        return comparison, groups_of(comparison.report)
    except BaseException:
        comparison.close()
        raise


class CompareTab(QWidget):
    """Compares ``path_a`` with ``path_b`` on the job runner and shows the report.

    Signals:
        ready(): the report is shown (or the comparison failed).
    """

    ready = Signal()

    def __init__(self, path_a: Path | str, path_b: Path | str, jobs: JobRunner,
                 options: DiffOptions | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path_a, self.path_b = path_a, path_b
        self.jobs = jobs
        self.comparison: Comparison | None = None
        self.is_ready = False
        self._pending = 0
        self._key = f"compare-{id(self)}"
        box = QVBoxLayout(self)
        self.title = QLabel(f"Comparing A: {path_a}\nwith B: {path_b}…")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setWordWrap(True)
        box.addWidget(self.title)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.tree = DiffTree()
        self.detail = DetailPane()
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 400])  # (scaled to the splitter's width)
        box.addWidget(split, 1)
        self.tree.selection_changed.connect(self._selected)
        opts = options or DiffOptions()
        jobs.submit(lambda ctx: _compare(path_a, path_b, opts, lambda: ctx.cancelled),
                    on_done=self._done, on_error=self._failed, key=self._key)

    @property
    def name(self) -> str:
        """The tab's title: both names."""
        return f"{Path(str(self.path_a)).name} ↔ {Path(str(self.path_b)).name}"

    def is_settled(self) -> bool:
        """True when no job of this tab is running and its detail is shown (no page of
        it is being made)."""
        return self.is_ready and self._pending == 0 and not self.detail.is_building()

    def _done(self, result: tuple[Comparison, list[Group]]) -> None:
        self.comparison, groups = result
        report = self.comparison.report
        self.title.setText(f"A: {report.a.path} ({report.a.kind})\n"
                           f"B: {report.b.path} ({report.b.kind})\n{verdict(report)}")
        self.tree.show_report(report, groups)
        self.is_ready = True
        self.ready.emit()

    def _failed(self, message: str, _tb: str) -> None:
        self.title.setText(f"The comparison failed: {message}")
        self.is_ready = True
        self.ready.emit()

    def _selected(self) -> None:
        d = self.tree.selected_difference()
        c = self.comparison
        if d is None or c is None:
            self.detail.show_text(None)
            return
        first = d.detail.get("first_index")
        if d.kind == "values" and d.section in ("arrays", "objects", "stimuli"):
            self._run(lambda ctx: image_pair(c, d.section, d.path) or (
                array_curves(c, d.path, first) if first and d.section == "arrays" else None),
                self._show, d)
        elif d.kind == "values" and d.section == "scans":
            self._run(lambda ctx: scan_curves(c, d.path), self.detail.show_curves, d)
        elif d.kind == "values" and d.section == "trials" and first and d.path in c.a.arrays:
            self._run(lambda ctx: array_curves(c, d.path, first), self.detail.show_curves, d)
        elif "row_a" in d.detail:
            self._run(lambda ctx: table_rows(c, d.detail["table"], d.detail["row_a"],
                                             d.detail["row_b"]), self.detail.show_rows, d)
        else:
            self.detail.show_text(d)

    def _show(self, result: Images | Curves) -> None:
        if isinstance(result, Images):
            self.detail.show_images(result)
        else:
            self.detail.show_curves(result)

    def _run(self, fn: Any, show: Any, d: Any) -> None:
        self._pending += 1

        def done(result: Any) -> None:
            self._pending -= 1
            if result is None:
                self.detail.show_text(d)
            else:
                show(result)

        def failed(message: str, _tb: str) -> None:
            self._pending -= 1
            self.detail.show_text(d, f"cannot be shown: {message}")

        self.jobs.submit(fn, on_done=done, on_error=failed, key=f"{self._key}-detail")

    def close_comparison(self) -> None:
        """Cancel the jobs and close both documents."""
        self.jobs.cancel(self._key)
        if self.comparison is not None:
            self.comparison.close()
            self.comparison = None
