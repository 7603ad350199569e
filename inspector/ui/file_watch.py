"""A document tab's file changed on disk since it was opened: ``file.changed`` and the
Reload bar.

Whether it changed is asked on a job (``Document.changed_on_disk`` reads the
file's identity); the finding is recorded and the bar shown on the GUI thread.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QVBoxLayout

from inspector.formats.document import Document
from inspector.formats.sources.file_identity import FILE_CHANGED

#: A :class:`~inspector.ui.document_tab.DocumentTab` (which imports this module).
Tab = Any


def check_file_on_disk(tab: Tab) -> None:
    """Ask, on a job, whether ``tab``'s file changed on disk since it was opened; if it
    did, the document gains ``file.changed`` (and the tab offers Reload)."""
    doc = tab.doc
    if doc is None or doc.snapshot_check is None or tab.reload_bar is not None \
            or tab.session.closed:
        return
    tab.jobs.submit(lambda ctx, d=doc: d.changed_on_disk(),
                    on_done=lambda message, d=doc: _file_changed(tab, d, message),
                    key=f"file-changed:{id(tab)}")


def _file_changed(tab: Tab, doc: Document, message: str | None) -> None:
    """GUI thread: record what :func:`check_file_on_disk` found."""
    if message is None or doc is not tab.doc or tab.session.closed:
        return
    if doc.note_changed(message) is not None:
        tab.findings_changed.emit()


def offer_reload(tab: Tab) -> None:
    """Show the Reload bar once a finding says the file changed on disk since it was
    opened (any format: ``file.changed``); nothing more is read from it here."""
    if tab.reload_bar is not None or tab.doc is None:
        return
    changed = next((f for f in tab.doc.findings if f.code == FILE_CHANGED.code), None)
    if changed is None:
        return
    from inspector.ui.reload_bar import ReloadBar

    tab.reload_bar = ReloadBar(changed.message, tab)
    tab.reload_bar.reload_requested.connect(tab.reload_requested)
    layout = tab.layout()
    assert isinstance(layout, QVBoxLayout)
    layout.insertWidget(0, tab.reload_bar)
