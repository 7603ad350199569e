"""The document tab's viewer: the plot panel of the document's arrays, or the data panel.

Arrays the document offers for plotting (``/neuro`` of a recording, its
visual-representation arrays) keep their plot, with a switch to their values
in the data views; any other dataset or attribute of the object tree is
shown in the :class:`~inspector.ui.data.panel.DataPanel`.  The viewer also writes the
detail pane: the type description of the node shown, beside the value of
the selected cell.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.capabilities import ObjectData
from inspector.formats.nodes.data import NodeData, describe
from inspector.formats.nodes.node import Node
from inspector.jobs import JobRunner
from inspector.ui.data.panel import DataPanel
from inspector.ui.data.reading import guarded
from inspector.ui.detail_pane import DetailPane

#: Tree node kinds whose location may hold values (links lead to datasets too).
DATA_KINDS = ("dataset", "attribute", "link")


class NodeViewer(QWidget):
    """A stack of the plot panel (when there is one) and the data panel.

    Above the stack, for an array the document plots, a switch between its
    plot and its values (the data panel's table, curve and image).

    Args:
        objects: the document's :class:`ObjectData`.
        plot: the tab's plot panel, or None.
        detail: the tab's detail pane, which the viewer fills for data nodes.
        plotted: whether the document plots the array at a location.

    Signals:
        plot_requested(str): the switch asked for the plot of the array at this location.
    """

    plot_requested = Signal(str)

    def __init__(self, objects: ObjectData, plot: QWidget | None, detail: DetailPane,
                 jobs: JobRunner, parent: QWidget | None = None,
                 plotted: Callable[[str], bool] | None = None) -> None:
        super().__init__(parent)
        self.plot = plot
        self.detail = detail
        self.objects, self.jobs = objects, jobs
        self._plotted = plotted or (lambda _location: False)
        self.location = ""
        self._key = f"viewer-describe:{id(self)}"
        self.stack = QStackedWidget(self)
        self.data = DataPanel(objects, jobs, self)
        if plot is not None:
            self.stack.addWidget(plot)
        self.stack.addWidget(self.data)
        self.data.node_shown.connect(self._described)
        self.data.value_selected.connect(self._value)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self._build_switch())
        lay.addWidget(self.stack, 1)

    def _build_switch(self) -> QWidget:
        self.switch = QWidget(self)
        bar = QHBoxLayout(self.switch)
        bar.setContentsMargins(2, 2, 2, 0)
        group = QButtonGroup(self)
        self.plot_button = QToolButton(text="Plot", checkable=True)  # type: ignore[call-arg]
        self.plot_button.setAccessibleName("Show the plot of this array")
        self.values_button = QToolButton(text="Values", checkable=True)  # type: ignore[call-arg]
        self.values_button.setToolTip("This array's values as a table, curve or image")
        self.values_button.setAccessibleName("Show the values of this array")
        for b in (self.plot_button, self.values_button):
            group.addButton(b)
            bar.addWidget(b)
        bar.addStretch(1)
        self.plot_button.clicked.connect(lambda: self.plot_requested.emit(self.location))
        self.values_button.clicked.connect(lambda: self.show_location(self.location))
        self.switch.setVisible(False)
        return self.switch

    def _set_switch(self, location: str, on_plot: bool) -> None:
        self.location = location
        shown = self.plot is not None and bool(location) and self._plotted(location)
        self.switch.setVisible(shown)
        (self.plot_button if on_plot else self.values_button).setChecked(True)

    def currentWidget(self) -> QWidget:  # noqa: N802 - the QStackedWidget name
        """The page shown: the plot panel or the data panel."""
        return cast(QWidget, self.stack.currentWidget())  # (a page is always shown)

    def setCurrentWidget(self, widget: QWidget) -> None:  # noqa: N802 - as QStackedWidget
        """Show ``widget`` (the plot panel or the data panel)."""
        self.stack.setCurrentWidget(widget)

    def show_plot(self, location: str = "") -> None:
        """Bring the plot panel forward (an array the document plots was selected) and
        describe that array's type in the detail pane (looked up on a job)."""
        if self.plot is not None:
            self.setCurrentWidget(self.plot)
        self._set_switch(location, True)
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
        self._set_switch(location, False)
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
