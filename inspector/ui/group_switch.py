"""The experiment-group chooser of a document tab (``doc.groups``: a source of several
experiments, of which the document offers one).

The chosen group's document is opened on a job (``doc.groups.open`` reads the
source again); the tab then rebuilds its views from it on the GUI thread
(``DocumentTab.replace_document``).  Nothing is read on the GUI thread.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QVBoxLayout, QWidget

from inspector.formats.document import Document

#: A :class:`~inspector.ui.document_tab.DocumentTab` (which imports this module).
Tab = Any


class GroupSwitch(QObject):
    """Shows the group bar of ``tab`` and switches its document to the group chosen.

    Attributes:
        wanted: the key of the group being opened (None when none is).
    """

    def __init__(self, tab: Tab) -> None:
        super().__init__(tab)
        self.tab = tab
        self.wanted: str | None = None

    def with_group_bar(self, split: QWidget) -> QWidget:
        """``split`` under the experiment-group chooser when the document offers several
        experiments (``doc.groups``), else ``split`` itself (``tab.group_bar`` is set)."""
        tab = self.tab
        groups = tab.doc.groups
        if groups is None or len(groups.keys) < 2:
            tab.group_bar = None
            return split
        from inspector.ui.group_bar import GroupBar

        page = QWidget()
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        tab.group_bar = GroupBar(groups, page)
        tab.group_bar.group_chosen.connect(tab.choose_group)
        lay.addWidget(tab.group_bar)
        lay.addWidget(split, 1)
        return page

    def choose(self, key: str) -> None:
        """Show group ``key`` of the source instead of the current one.

        Ignored while a check runs or another group opens.
        """
        tab = self.tab
        doc = tab.doc
        groups = doc.groups if doc is not None else None
        if groups is None or key == groups.selected or key not in groups.keys:
            return
        if tab.verify_state == "running" or self.wanted is not None:
            if tab.group_bar is not None:
                tab.group_bar.set_current(groups.selected)
            return
        self.wanted = key
        if tab.group_bar is not None:
            tab.group_bar.set_busy(key)
        tab.set_status(f"Opening group {key}…")
        tab.jobs.submit(lambda _ctx: groups.open(key), on_done=self._opened,
                        on_error=self._failed)

    def _opened(self, new: Document) -> None:
        """The chosen group's document: it replaces the shown one (GUI thread)."""
        self.wanted = None
        if self.tab.session.closed:
            new.close()
            return
        self.tab.replace_document(new)

    def _failed(self, message: str, tb: str) -> None:
        tab = self.tab
        self.wanted = None
        if tab.group_bar is not None and tab.doc is not None and tab.doc.groups is not None:
            tab.group_bar.set_busy(None)
            tab.group_bar.set_current(tab.doc.groups.selected)
        tab.set_status(f"The group could not be opened: {message}")
