"""One tab per open file: the document's views, filled once its job delivers it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QProgressBar,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.document import Document, Finding
from inspector.jobs import JobRunner
from inspector.models.node_tree_model import NodeTreeModel


def make_tree_view(model: NodeTreeModel, parent: QWidget | None = None) -> QTreeView:
    """A tree view over a :class:`NodeTreeModel`, first level expanded."""
    view = QTreeView(parent)
    view.setModel(model)
    view.setUniformRowHeights(True)
    view.setAlternatingRowColors(True)
    view.expandToDepth(0)
    view.header().setStretchLastSection(True)
    view.setColumnWidth(0, 240)
    view.setColumnWidth(1, 260)
    view.setColumnWidth(2, 110)
    return view


class DocumentTab(QWidget):
    """Shows one document.

    Until the open job delivers the document, a busy indicator is shown.

    Signals:
        findings_changed(): the document's findings changed (verification).
        ready(): the views are populated.
    """

    findings_changed = Signal()
    ready = Signal()

    def __init__(self, path: Path, jobs: JobRunner, node: str | None = None, parent=None) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.jobs = jobs
        self.initial_node = node
        self.doc: Document | None = None
        self.is_ready = False
        self._stack = QStackedWidget(self)
        busy = QWidget()
        bl = QVBoxLayout(busy)
        bl.addStretch(1)
        label = QLabel(f"Opening {self.path.name}…")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        bar = QProgressBar()
        bar.setRange(0, 0)
        bar.setMaximumWidth(320)
        bl.addWidget(label)
        bl.addWidget(bar, 0, Qt.AlignmentFlag.AlignHCenter)
        bl.addStretch(2)
        self._stack.addWidget(busy)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self._stack)

    # -- population -----------------------------------------------------
    def set_document(self, doc: Document) -> None:
        """Build the views of ``doc`` (GUI thread; no file I/O here)."""
        self.doc = doc
        self.views = QTabWidget(self)
        self.views.setDocumentMode(True)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.header_model = NodeTreeModel(doc.header, self)
        self.header_view = make_tree_view(self.header_model)
        self.header_view.expandAll()
        split.addWidget(self.header_view)
        self.tree_model = None
        self.tree_view = None
        if doc.tree is not None:
            self.tree_model = NodeTreeModel(doc.tree, self)
            self.tree_view = make_tree_view(self.tree_model)
            split.addWidget(self.tree_view)
        split.setSizes([1, 1])
        self.views.addTab(split, "Header")
        if doc.provenance is not None:
            self.prov_model = NodeTreeModel(doc.provenance, self)
            pv = make_tree_view(self.prov_model)
            pv.expandToDepth(1)
            self.views.addTab(pv, "Provenance")
        self._stack.addWidget(self.views)
        self._stack.setCurrentWidget(self.views)
        self.is_ready = True
        self.ready.emit()

    def set_failed(self, message: str) -> None:
        """Shown if the open job itself failed (it should not: open_document never raises)."""
        self.doc = Document(self.path)
        self.doc.error("internal.open-failed", f"{self.path.name}: opening failed: {message}")
        label = QLabel(f"Could not open {self.path.name}:\n{message}")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._stack.addWidget(label)
        self._stack.setCurrentWidget(label)
        self.is_ready = True
        self.ready.emit()

    # -- navigation -----------------------------------------------------
    def select_location(self, location: str) -> bool:
        """Select the node or member a finding concerns. Returns True if found."""
        if not self.is_ready or not location:
            return False
        for model, view in ((self.tree_model, self.tree_view), (self.header_model, self.header_view)):
            if model is None:
                continue
            idx = model.index_of_location(location)
            if idx.isValid():
                self.views.setCurrentIndex(0)
                view.setCurrentIndex(idx)
                view.scrollTo(idx)
                return True
        return False

    def findings(self) -> list[Finding]:
        return list(self.doc.findings) if self.doc else []

    def close_document(self) -> None:
        if self.doc is not None:
            self.doc.close()
