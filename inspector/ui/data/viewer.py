"""The document tab's viewer: the plot panel of the document's arrays, or the data panel.

Arrays the document offers for plotting (``/neuro`` of a recording) keep
their plot; any other dataset or attribute of the object tree is shown in
the :class:`~inspector.ui.data.panel.DataPanel`.  The viewer also writes the
detail pane: the type description of the node shown, beside the value of
the selected cell.
"""

from __future__ import annotations

from PySide6.QtWidgets import QStackedWidget, QWidget

from inspector.formats.capabilities import ObjectData
from inspector.formats.node import Node
from inspector.formats.node_data import NodeData, describe
from inspector.jobs import JobRunner
from inspector.ui.data.panel import DataPanel
from inspector.ui.data.reading import guarded
from inspector.ui.detail_pane import DetailPane

#: Tree node kinds whose location may hold values (links lead to datasets too).
DATA_KINDS = ("dataset", "attribute", "link")


class NodeViewer(QStackedWidget):
    """A stack of the plot panel (when there is one) and the data panel.

    Args:
        objects: the document's :class:`ObjectData`.
        plot: the tab's plot panel, or None.
        detail: the tab's detail pane, which the viewer fills for data nodes.
    """

    def __init__(self, objects: ObjectData, plot: QWidget | None, detail: DetailPane,
                 jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = plot
        self.detail = detail
        self.objects, self.jobs = objects, jobs
        self._key = f"viewer-describe:{id(self)}"
        self.data = DataPanel(objects, jobs, self)
        if plot is not None:
            self.addWidget(plot)
        self.addWidget(self.data)
        self.data.node_shown.connect(self._described)
        self.data.value_selected.connect(self._value)

    def show_plot(self, location: str = "") -> None:
        """Bring the plot panel forward (an array the document plots was selected) and
        describe that array's type in the detail pane (looked up on a job)."""
        if self.plot is not None:
            self.setCurrentWidget(self.plot)
        if location:
            objects = self.objects
            self.jobs.submit(lambda _ctx: guarded(lambda: objects.node(location)),
                             on_done=self._plotted_node, key=self._key)

    def _plotted_node(self, got: object) -> None:
        if isinstance(got, NodeData) and self.currentWidget() is self.plot:
            self._described(got)

    def show_node(self, node: Node) -> bool:
        """Show the values of a tree node that may hold some; False for other nodes."""
        if node.kind not in DATA_KINDS or not node.location:
            return False
        self.show_location(node.location)
        return True

    def show_location(self, location: str) -> None:
        """Show the dataset or attribute at ``location`` (looked up on a job)."""
        self.setCurrentWidget(self.data)
        self.data.show_location(location)

    def _described(self, node: NodeData) -> None:
        self.detail.show()
        self.detail.show_text(node.location, describe(node))

    def _value(self, title: str, text: str) -> None:
        node = self.data.node
        about = f"\n\n— {node.location} —\n{describe(node)}" if node is not None else ""
        self.detail.show_text(title, text + about)

    def is_idle(self) -> bool:
        """The data panel shows its final state (the plot panel answers for itself)."""
        return self.currentWidget() is not self.data or self.data.is_idle()

    def shutdown(self) -> None:
        """Cancel the data panel's reads (the tab is closing)."""
        self.jobs.cancel(self._key)
        self.data.shutdown()
