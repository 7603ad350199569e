"""Header view: the summary tree beside the raw object tree / member list, with a filter box.

The two trees sit side by side when the panel is wide enough for both
(:data:`SIDE_BY_SIDE_WIDTH`) and one above the other when it is not, so that
neither tree cuts its columns off.  Every tree keeps its columns fitted to
its width (:mod:`inspector.ui.columns`).
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.document import Node
from inspector.models.node_filter_model import ItemFilterProxy, filter_proxy_for
from inspector.models.node_item_model import (
    NodeItemModel,
    NodeModel,
    node_model,
    rows_made_here,
)
from inspector.models.node_rows import TreeRows
from inspector.models.node_tree_model import NodeTreeModel
from inspector.models.roles import NodeRole
from inspector.ui.columns import fit_tree_columns
from inspector.ui.copy_support import install_copy_actions
from inspector.ui.tree_expansion import expand_all, expanding

#: Narrowest header panel that shows the header and the raw tree side by side.
SIDE_BY_SIDE_WIDTH = 760
#: Most rows a tree is expanded to show when it is first shown (a run folder of 1 000
#: scan files, each expanded, was 10 000 rows laid out at once: 0.3-0.9 s).
EXPAND_ROWS = 400


def expand_within(view: QTreeView, depth: int, rows: int = EXPAND_ROWS) -> int:
    """``view.expandToDepth(d)`` for the deepest ``d <= depth`` that shows at most
    ``rows`` rows; returns ``d`` (-1: nothing expanded).  Walks at most ``rows`` rows."""
    model = view.model()
    level, shown, allowed = [QModelIndex()], 0, -1
    for d in range(-1, depth + 1):
        children: list[QModelIndex] = []
        for parent in level:
            n = model.rowCount(parent)
            shown += n
            if shown > rows:
                break
            children += [model.index(r, 0, parent) for r in range(n)]
        if shown > rows or not children:
            break
        allowed, level = d, children
    if allowed >= 0:
        view.expandToDepth(allowed)
    return allowed


def make_tree_view(model: QAbstractItemModel, parent: QWidget | None = None) -> QTreeView:
    """A tree view with copy actions; ``model`` is a node model or a proxy over one."""
    view = QTreeView(parent)
    view.setModel(model)
    view.setUniformRowHeights(True)
    view.setAlternatingRowColors(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    view.header().setStretchLastSection(True)
    view.setColumnWidth(0, 170)
    view.setColumnWidth(1, 170)
    view.setColumnWidth(2, 70)
    fit_tree_columns(view)
    install_copy_actions(view, value_column=1)
    return view


class FilteredTree(QWidget):
    """A node model (:func:`~inspector.models.node_item_model.node_model`) behind a
    filter proxy, shown in a tree view.

    ``rows``: the rows of ``root``'s children made ahead on a job
    (:func:`~inspector.models.node_rows.tree_rows`), so that the tree is held in
    Qt's items without making them on the GUI thread.

    The context menu's "Open Target" follows the current link node
    (``Node.target``): it emits ``open_target`` with the
    :class:`~inspector.formats.nodes.node.LinkTarget`.
    """

    node_selected = Signal(object)
    filter_cleared = Signal()
    open_target = Signal(object)

    def __init__(self, root: Node, title: str, parent: QWidget | None = None,
                 rows: TreeRows | None = None) -> None:
        super().__init__(parent)
        self.model: NodeModel = node_model(root, self, rows)
        self.proxy: ItemFilterProxy = filter_proxy_for(self.model, self)
        self.view = make_tree_view(self.proxy, self)
        self.view.setAccessibleName(title)
        self.label = QLabel(title)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.label)
        lay.addWidget(self.view, 1)
        self.view.selectionModel().currentChanged.connect(self._current)
        self.view.verticalScrollBar().valueChanged.connect(self._fetch_at_bottom)
        self.act_open_target = QAction("Open Target", self.view)
        self.act_open_target.setStatusTip("Go to the node this link points at (another file: "
                                          "in a new tab)")
        self.act_open_target.setEnabled(False)
        self.act_open_target.triggered.connect(self._open_target)
        self.view.addAction(self.act_open_target)

    def current_node(self) -> Node | None:
        """The node of the current row, or None."""
        cur = self.view.currentIndex()
        return cur.data(NodeRole) if cur.isValid() else None

    def _open_target(self) -> None:
        n = self.current_node()
        if n is not None and n.target is not None and not n.target.dangling:
            self.open_target.emit(n.target)

    def _fetch_at_bottom(self, _value: int = 0) -> None:
        """The last row in view ends a child list that is not all shown: show more of it.

        (Qt asks for more rows of the top level and of a node being expanded
        by itself; :class:`NodeTreeModel` fills long lists in as they are
        scrolled to.)
        """
        bar = self.view.verticalScrollBar()
        if bar.value() < bar.maximum():
            return
        vp = self.view.viewport()
        idx = self.view.indexAt(vp.rect().bottomLeft() + QPoint(4, -2))
        if not idx.isValid():
            return
        src = self.proxy.mapToSource(idx)
        parent = src.parent()
        if src.row() >= self.model.rowCount(parent) - 1 and self.model.canFetchMore(parent):
            self.model.fetchMore(parent)

    def _current(self, cur: QModelIndex, _prev: QModelIndex) -> None:
        n = cur.data(NodeRole) if cur.isValid() else None
        target = n.target if n is not None else None
        self.act_open_target.setEnabled(target is not None and not target.dangling)
        if n is not None:
            self.node_selected.emit(n)

    def set_root(self, root: Node, rows: TreeRows | None = None) -> None:
        """Show ``root`` instead (the document's tree was replaced); keeps the filter.

        ``rows``: its rows made ahead, as for the constructor."""
        rows = rows if rows is not None else rows_made_here(root)
        if rows is not None and isinstance(self.model, NodeItemModel):
            self.model.set_root(root, rows)
        elif rows is None and isinstance(self.model, NodeTreeModel):
            self.model.set_root(root)
        else:  # (a tree too large, or small enough, for the model shown)
            self._use_model(node_model(root, self, rows))
        expand_all(self.view)

    def _use_model(self, model: NodeModel) -> None:
        """Show ``model`` in place of the model shown (same filter)."""
        text = self.proxy.text
        old_model, old_proxy = self.model, self.proxy
        self.model, self.proxy = model, filter_proxy_for(model, self)
        self.proxy.set_text(text)
        self.view.setModel(self.proxy)
        self.view.selectionModel().currentChanged.connect(self._current)
        old_proxy.deleteLater()
        old_model.deleteLater()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """Rows held in Qt's items take the new palette's colours (a theme switch)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) \
                and isinstance(self.model, NodeItemModel):
            self.model.restyle()

    def set_filter(self, text: str) -> None:
        self.proxy.set_text(text)
        if text.strip():
            expand_all(self.view)

    def select_node(self, n: Node, expand: bool = False) -> bool:
        """Select ``n`` (clearing a filter that hides it); True if shown.

        ``expand``: also expand it, to show its children (a group asked for).
        """
        src = self.model.index_of_node(n)
        if not src.isValid():
            return False
        idx = self.proxy.mapFromSource(src)
        if not idx.isValid():
            self.proxy.set_text("")
            self.filter_cleared.emit()
            idx = self.proxy.mapFromSource(src)
        self.view.setCurrentIndex(idx)
        self.view.selectionModel().select(
            idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        if expand:
            self.view.expand(idx)
        self.view.scrollTo(idx, QAbstractItemView.ScrollHint.PositionAtCenter)
        return True

    def select_location(self, location: str, expand: bool = False) -> bool:
        """Select the node at ``location`` (and expand it when ``expand``); True if found."""
        n = self.model.root.find(location) if location else None
        return n is not None and n is not self.model.root and self.select_node(n, expand)


class HeaderPanel(QWidget):
    """Filter box over the header tree (left) and the raw tree (right, if any).

    Signals:
        node_selected(Node): the current node of either tree changed.
        open_target(LinkTarget): "Open Target" on a link of the raw tree.
    """

    node_selected = Signal(object)
    open_target = Signal(object)

    def __init__(self, header: Node, tree: Node | None, tree_title: str,
                 parent: QWidget | None = None,
                 header_rows: TreeRows | None = None) -> None:
        super().__init__(parent)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText("Filter nodes by name, value or location (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setAccessibleName("Filter header and tree")
        self._timer = QTimer(self, singleShot=True, interval=150)
        self._timer.timeout.connect(self._apply_filter)
        self.filter_edit.textChanged.connect(lambda _t: self._timer.start())
        self.header = FilteredTree(header, "Header", self, header_rows)
        expand_all(self.header.view)  # (a large header: some rows a turn)
        self.header.node_selected.connect(self.node_selected)
        self.header.filter_cleared.connect(self._filter_cleared)
        self.raw: FilteredTree | None = None
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setChildrenCollapsible(False)
        self.split = split
        split.addWidget(self.header)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.filter_edit)
        lay.addWidget(split, 1)
        self.setTabOrder(self.filter_edit, self.header.view)
        if tree is not None:
            self.add_tree(tree, tree_title)

    def add_tree(self, tree: Node, title: str, rows: TreeRows | None = None) -> None:
        """Show the raw tree ``tree`` beside the header (made apart from the header, the
        document tab builds it on an event-loop turn of its own); ``rows``: its rows
        made ahead on a job."""
        self.raw = FilteredTree(tree, title, self, rows)
        expand_within(self.raw.view, 0)
        self.raw.node_selected.connect(self.node_selected)
        self.raw.open_target.connect(self.open_target)
        self.raw.filter_cleared.connect(self._filter_cleared)
        self.split.addWidget(self.raw)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        self.split.setSizes([400, 600])
        self.setTabOrder(self.header.view, self.raw.view)
        if self.filter_edit.text():
            self.raw.set_filter(self.filter_edit.text())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """Side by side when there is room for both trees, else one above the other."""
        super().resizeEvent(event)
        wide = event.size().width() >= SIDE_BY_SIDE_WIDTH
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.raw is not None and self.split.orientation() != orientation:
            self.split.setOrientation(orientation)
            self.split.setSizes([400, 600])

    def set_header(self, header: Node, rows: TreeRows | None = None) -> None:
        """Show a new header tree (a deferred check replaced it); ``rows``: its rows
        made ahead on a job."""
        self.header.set_root(header, rows)
        self._apply_filter()

    def trees(self) -> list[FilteredTree]:
        return [t for t in (self.header, self.raw) if t is not None]

    def is_expanding(self) -> bool:
        """A tree still has rows to expand (:func:`~inspector.ui.tree_expansion.expand_all`)."""
        return any(expanding(t.view) for t in self.trees())

    def apply_filter_now(self) -> None:
        """Apply the filter text at once (the box applies it after a short pause)."""
        self._timer.stop()
        self._apply_filter()

    def _filter_cleared(self) -> None:
        self.filter_edit.blockSignals(True)
        self.filter_edit.clear()
        self.filter_edit.blockSignals(False)
        for t in self.trees():
            t.set_filter("")

    def _apply_filter(self) -> None:
        for t in self.trees():
            t.set_filter(self.filter_edit.text())

    def select_location(self, location: str, prefer_raw: bool = True,
                        expand: bool = False) -> bool:
        """Select the node at ``location`` in the raw tree (or the header first)."""
        order = [self.raw, self.header] if prefer_raw else [self.header, self.raw]
        return any(t is not None and t.select_location(location, expand) for t in order)


class TreePanel(QWidget):
    """A filter box over one :class:`FilteredTree` (the provenance view)."""

    node_selected = Signal(object)

    def __init__(self, root: Node, title: str, parent: QWidget | None = None,
                 rows: TreeRows | None = None) -> None:
        super().__init__(parent)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText(
            f"Filter {title.lower()} by name, value or location (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setAccessibleName(f"Filter {title}")
        self.tree = FilteredTree(root, title, self, rows)
        self.tree.label.setVisible(False)
        self.tree.node_selected.connect(self.node_selected)
        self.tree.filter_cleared.connect(lambda: self.filter_edit.setText(""))
        self._timer = QTimer(self, singleShot=True, interval=150)
        self._timer.timeout.connect(self.apply_filter_now)
        self.filter_edit.textChanged.connect(lambda _t: self._timer.start())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.filter_edit)
        lay.addWidget(self.tree, 1)
        self.setTabOrder(self.filter_edit, self.tree.view)

    @property
    def model(self) -> NodeModel:
        return self.tree.model

    @property
    def view(self) -> QTreeView:
        return self.tree.view

    def apply_filter_now(self) -> None:
        self._timer.stop()
        self.tree.set_filter(self.filter_edit.text())

    def select_location(self, location: str) -> bool:
        return self.tree.select_location(location)
