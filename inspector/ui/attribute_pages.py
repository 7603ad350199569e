"""Attributes beyond those a tree lists at open, paged in when asked for.

An object of the raw tree with more attributes than the reader lists when it
opens the file has a last child of kind
:data:`~inspector.formats.capabilities.MORE_ATTRIBUTES` ("99000 more
attributes").  Activating that row (double-click, Enter) reads the next
:data:`~inspector.formats.capabilities.ATTRIBUTE_PAGE` attributes on a job
(:attr:`ObjectData.attributes`: one bounded read off the GUI thread) and
inserts them before the row on the GUI thread; the row then counts what is
left, and goes once nothing is (docs/architecture.md, "Contracts": memory
follows what is shown).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, Signal

from inspector.formats.capabilities import (
    ATTRIBUTE_PAGE,
    MORE_ATTRIBUTES,
    AttributePage,
    ObjectData,
    more_attributes_text,
)
from inspector.formats.document import Node
from inspector.jobs import JobContext, JobRunner
from inspector.models.node_item_model import NodeItemModel
from inspector.models.node_rows import RowStyle, TreeRows, build_rows
from inspector.models.roles import NodeRole
from inspector.ui.tree_panel import FilteredTree


class AttributePager(QObject):
    """Pages attributes into one tree's :data:`MORE_ATTRIBUTES` rows.

    Signals:
        page_shown(object page): an :class:`AttributePage` was inserted.
    """

    page_shown = Signal(object)

    def __init__(self, tree: FilteredTree, data: ObjectData, jobs: JobRunner,
                 parent: QObject | None = None, page: int = ATTRIBUTE_PAGE) -> None:
        super().__init__(parent)
        self.tree = tree
        self.data = data
        self.jobs = jobs
        self.page = page
        self._reading: dict[int, Node] = {}  # rows whose next page is being read
        tree.view.activated.connect(self._activated)

    @property
    def busy(self) -> bool:
        """True while a page is being read."""
        return bool(self._reading)

    def _activated(self, index: QModelIndex) -> None:
        n = index.data(NodeRole)
        if isinstance(n, Node) and n.kind == MORE_ATTRIBUTES:
            self.request(n)

    def request(self, more: Node) -> bool:
        """Read the next page of the object ``more`` stands for; False when one is already
        being read (or the row is not in the tree)."""
        read = self.data.attributes
        model = self.tree.model
        index = model.index_of_node(more)
        if read is None or id(more) in self._reading or not index.isValid():
            return False
        owner = model.node(index.parent())
        start = sum(1 for c in owner.children if c.kind == "attribute")
        location, count = more.location, self.page
        self._reading[id(more)] = more
        more.detail = f"reading attributes {start + 1}-{start + count}…"
        model.node_changed(more)

        style = RowStyle.current() if isinstance(model, NodeItemModel) else None

        def work(_ctx: JobContext) -> tuple[AttributePage, TreeRows | None] | str:
            from inspector.formats.nodes.data import NodeReadError  # (numpy: not at start-up)

            try:
                page = read(location, start, count)
            except NodeReadError as exc:  # what went wrong, in the reader's words
                return exc.finding.message
            rows = build_rows(page.nodes, style, limit=None) if style else None
            return page, rows  # (the rows: made here, not on the GUI thread)

        self.jobs.submit(work, on_done=lambda page: self._apply(more, page),
                         on_error=lambda message, _tb: self._failed(more, message),
                         key=f"attributes:{id(self)}:{location}")
        return True

    def _apply(self, more: Node, read: tuple[AttributePage, TreeRows | None] | str) -> None:
        if isinstance(read, str):
            self._failed(more, read)
            return
        page, rows = read
        self._reading.pop(id(more), None)
        model = self.tree.model
        if not model.insert_before(more, page.nodes, rows):
            return  # the tree was replaced meanwhile
        if page.end >= page.total or not page.nodes:
            model.remove_node(more)
        else:
            more.name, more.detail = more_attributes_text(page.end, page.total, self.page)
            model.node_changed(more)
        self.page_shown.emit(page)

    def _failed(self, more: Node, message: str) -> None:
        self._reading.pop(id(more), None)
        more.detail = f"could not read them: {message}; open the row to try again"
        self.tree.model.node_changed(more)
