"""Where a document tab goes when asked: a finding's location, the filter box.

A finding's location is matched against each view in turn: a checksum member, a
table column, a scan, a stimulus, a node of the header or object tree, a node
of the provenance tree, then the object an attribute belongs to.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

#: A :class:`~inspector.ui.document_tab.DocumentTab` (which imports this module).
Tab = Any


def focus_filter(tab: Tab) -> bool:
    """Focus the filter box of the current view (Ctrl+F)."""
    if tab.views is None:
        return False
    w = tab.views.currentWidget()
    edit = getattr(w, "filter_edit", None)
    if not isinstance(edit, QLineEdit):
        if tab.header_panel is None:
            return False
        tab.views.setCurrentWidget(tab.header_panel)
        edit = tab.header_panel.filter_edit
    edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
    edit.selectAll()
    return True


def select_location(tab: Tab, location: str) -> bool:
    """Select the node, member, stimulus or table column a finding concerns."""
    if not tab.has_views or not location:
        return False
    if tab.checksums is not None and tab.checksums.select_member(location):
        tab.views.setCurrentWidget(tab.checksums)
        return True
    if select_table_column(tab, location):
        return True
    from inspector.ui.scan_link import select_scan_of

    if select_scan_of(tab, location):  # a finding about one scan: that scan
        return True
    if tab.stimuli is not None and tab.stimuli.select_location(location):
        tab.views.setCurrentWidget(tab.stimuli)
        return True
    if tab.header_panel.select_location(location):
        tab.views.setCurrentWidget(tab.header_panel)
        return True
    if tab.provenance is not None and tab.provenance.select_location(location):
        tab.views.setCurrentWidget(tab.provenance)
        return True
    base = location.rsplit(":", 1)[0] if ":" in location else ""
    if base and tab.header_panel.select_location(base):
        tab.views.setCurrentWidget(tab.header_panel)
        return True
    return False


def select_table_column(tab: Tab, location: str) -> bool:
    for panel in tab.tables.values():
        if not (panel.location and location.startswith(panel.location + "/")):
            continue
        parts = [p.split("@")[0] for p in location[len(panel.location) + 1:].split("/")]
        if parts[0] == "columns" and len(parts) > 1 and parts[1].isdigit():
            found = panel.select_column_index(int(parts[1]))  # schema 1: columns/<i>
        else:
            found = panel.select_column(parts[0])  # schema 0: one dataset per column
        if found:
            if tab.header_panel.raw is not None:
                tab.header_panel.raw.select_location(location)
            tab.views.setCurrentWidget(panel)
            return True
    return False
