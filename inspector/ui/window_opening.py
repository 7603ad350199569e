"""Opening files in the main window: the Open dialogs, one tab per file, reloading, closing.

:class:`WindowOpening` is the third layer of
:class:`~inspector.ui.main_window.MainWindow`: each file opens on a job into a
tab of its own (a file already open is brought forward), File > Open Recent,
Reload and Close.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLabel, QMenu

from inspector.formats.remote.path import RemotePath, as_source, is_url, split_location
from inspector.ui.document_tab import DocumentTab
from inspector.ui.open_dialog import OpenDialog
from inspector.ui.recent_files import add_recent, fill_recent_menu, last_dir
from inspector.ui.window_export import WindowExport
from inspector.ui.window_paths import (
    file_filter,
    format_names,
    open_with_overview,
    remote_refusal,
    split_node,
)


class WindowOpening(WindowExport):
    """Files opened into tabs, reloaded and closed."""

    empty_label: QLabel
    recent_menu: QMenu
    _kinds_asked: bool

    # -- opening ----------------------------------------------------------
    def open_dialog(self) -> None:
        """File > Open: files, or ``FILE::/path`` typed into the name box (as on the
        command line)."""
        dialog = OpenDialog(self, self._last_dir(), file_filter())
        if dialog.exec():
            self.open_paths(dialog.chosen())

    def open_folder_dialog(self) -> None:
        """File > Open Folder…: a folder of CSV/TSV scan tables (or any folder a reader opens)."""
        path = QFileDialog.getExistingDirectory(self, "Open folder", self._last_dir())
        if path:
            self.open_paths([path])

    def open_url_dialog(self) -> None:
        """File > Open URL…: a recording, archive or scan table at an http(s):// or s3:// URL."""
        text, ok = QInputDialog.getText(
            self, "Open URL", "URL (https://…, http://…, s3://bucket/key; "
            "URL::/group/dataset selects a node):")
        self.open_url_text(text if ok else "")

    def open_url_text(self, text: str) -> DocumentTab | None:
        """Open the URL typed in File > Open URL… (the status bar says why not)."""
        text = text.strip()
        if not text:
            return None
        if not is_url(split_location(text)[0]):
            self.statusBar().showMessage(remote_refusal([text]), 8000)
            return None
        return self.open_paths([text], remember=False)[0]

    def open_paths(self, args: Iterable[str | Path],
                   remember: bool = True) -> list[DocumentTab]:
        """Open each path (``FILE`` or ``FILE::/node``) in its own tab; the first one is shown.

        ``remember``: add them to File > Open Recent (not for the bundled samples).
        """
        tabs = [self.open_path(*split_node(str(a)), remember=remember) for a in args]
        if tabs:
            self.tabs.setCurrentWidget(tabs[0])
        return tabs

    def open_path(self, path: Path | RemotePath, node: str | None = None,
                  remember: bool = True) -> DocumentTab:
        """Open one file on a background job; returns its (still loading) tab.

        A file that is already open is not opened twice: its tab is brought
        forward (and ``node`` selected in it).
        """
        path = as_source(path)
        existing = self.tab_for(path)
        if existing is not None:
            self.tabs.setCurrentWidget(existing)
            if node:
                existing.initial_node = node
                existing.go_to(node)
            return existing
        tab = self._new_tab(path, node)
        if remember and not isinstance(path, RemotePath):
            add_recent(path)
        return tab

    def _new_tab(self, path: Path | RemotePath, node: str | None,
                 index: int = -1) -> DocumentTab:
        tab = DocumentTab(path, self.jobs, node=node)
        tab.findings_changed.connect(self._tab_findings_changed)
        tab.open_requested.connect(lambda address: self.open_paths([address]))
        tab.reload_requested.connect(lambda t=tab: self.reload_tab(t))
        tab.views_ready.connect(self._tab_views_ready)
        tab.ready.connect(self._tab_ready)
        tab.status_message.connect(lambda text, t=tab: self._tab_status(t, text))
        i = self.tabs.insertTab(index, tab, path.name or str(path))
        self.tabs.setTabToolTip(i, str(path))
        self.tabs.setCurrentIndex(i)
        self.statusBar().showMessage(tab.status_text)
        self.jobs.submit(
            lambda _ctx: open_with_overview(path),
            on_done=tab.set_document,
            on_error=tab.set_failed,
        )
        return tab

    def _ask_kinds(self) -> None:
        """Name the formats on the empty page once the readers are imported (on a job)."""
        if self._kinds_asked:
            return
        self._kinds_asked = True
        self.jobs.submit(lambda ctx: format_names(), on_done=self._show_kinds)

    def _show_kinds(self, kinds: str) -> None:
        self.empty_label.setText(f"Drop files here ({kinds}), or use File > Open (Ctrl+O).")

    def close_tab(self, index: int) -> None:
        if index < 0:
            return
        tab = self.tabs.widget(index)
        self.tabs.removeTab(index)
        if isinstance(tab, DocumentTab):
            tab.close_document()
            tab.deleteLater()
        elif tab is not None and hasattr(tab, "close_comparison"):  # a Compare tab
            tab.close_comparison()
            tab.deleteLater()
        self.refresh_findings()
        self._update_actions()

    def reload_current(self) -> None:
        """Reopen the current document from disk in the same tab position (F5)."""
        tab = self.current_tab()
        if tab is not None:
            self.reload_tab(tab)

    def reload_tab(self, tab: DocumentTab) -> DocumentTab:
        """Replace ``tab`` by a fresh tab reading the file again; returns the new tab."""
        index = self.tabs.indexOf(tab)
        path, node = tab.path, tab.initial_node
        self.tabs.removeTab(index)
        tab.close_document()
        tab.deleteLater()
        new = self._new_tab(path, node, index)
        self.refresh_findings()
        return new

    def focus_filter(self) -> None:
        """Ctrl+F: focus the filter box of the current tab's view."""
        tab = self.current_tab()
        if tab is not None:
            tab.focus_filter()

    def _last_dir(self) -> str:
        return last_dir()

    def _fill_recent(self) -> None:
        fill_recent_menu(self.recent_menu, self.open_path)
