"""The main window's tabs: which is current, how each is marked, the findings they list.

:class:`WindowTabs` is the first layer of
:class:`~inspector.ui.main_window.MainWindow`: the document tabs, their
status and their icon by the worst finding about the file, the findings dock
filled from them, and the checks that run when the application comes back.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QMainWindow, QTabWidget

from inspector.formats.findings import Finding, Severity
from inspector.formats.remote.path import RemotePath
from inspector.formats.sources.folder_bounds import allow_folder
from inspector.ui.document_tab import DocumentTab
from inspector.ui.findings_dock import FindingsDock
from inspector.ui.icons import severity_icon
from inspector.ui.window_paths import path_key


class WindowTabs(QMainWindow):
    """The document tabs and the findings dock of the main window.

    Signals:
        all_ready(): every tab opened so far has its views populated and its
            verification (AUCX checksums) finished.
    """

    all_ready = Signal()
    tabs: QTabWidget
    findings: FindingsDock

    def _tab_status(self, tab: DocumentTab, text: str) -> None:
        """A tab's status line changed: shown while that tab is current."""
        if tab is self.current_tab():
            self.statusBar().showMessage(text)

    def _tab_views_ready(self) -> None:
        self.refresh_findings()
        self._update_actions()

    def _tab_ready(self) -> None:
        self.refresh_findings()
        self._update_actions()
        tab = self.sender()
        if isinstance(tab, DocumentTab) and tab.doc is not None:
            self._mark_tab(tab)
        if self.all_tabs_ready():
            self.all_ready.emit()

    def _tab_findings_changed(self) -> None:
        """A tab's findings changed (a check ended, a view found the file to blame): the
        dock lists them, and a tab already marked is marked again."""
        self.refresh_findings()
        tab = self.sender()
        if isinstance(tab, DocumentTab) and tab.doc is not None and tab.is_ready:
            self._mark_tab(tab)

    def _mark_tab(self, tab: DocumentTab) -> None:
        """Tab icon and tooltip by the worst severity of the findings about the file.

        A file of another kind than the format checked (a plain HDF5 file) is
        not marked for the findings that only say so (``Document.file_findings``).
        """
        i = self.tabs.indexOf(tab)
        doc = tab.doc
        if doc is None:  # (callers mark tabs whose document is open)
            return
        severities = {f.severity for f in doc.file_findings()}
        worst = next((s for s in (Severity.ERROR, Severity.WARNING) if s in severities), None)
        if i < 0:
            return
        tip = f"{tab.path}\n{doc.kind_label}"
        if doc.mismatch is not None:
            tip += f": {doc.mismatch.reason}"
        if worst is not None:
            self.tabs.setTabIcon(i, severity_icon(worst))
            tip += f"\n{worst}s, see Findings"
        self.tabs.setTabToolTip(i, tip)

    def all_tabs_ready(self) -> bool:
        """Every tab has its views and finished verifying."""
        return all(t.is_ready for t in self.document_tabs())

    def is_idle(self) -> bool:
        """Every tab ready, its models filled and its plot drawn in its final state.

        What ``--screenshot`` waits for: no job in flight or pending anywhere.
        """
        return all(t.is_ready and t.is_settled() for t in self.document_tabs())

    def document_tabs(self) -> list[DocumentTab]:
        widgets = (self.tabs.widget(i) for i in range(self.tabs.count()))
        return [w for w in widgets if isinstance(w, DocumentTab)]

    def current_tab(self) -> DocumentTab | None:
        w = self.tabs.currentWidget()
        return w if isinstance(w, DocumentTab) else None

    def tab_for(self, path: Path) -> DocumentTab | None:
        """The tab already showing ``path`` (None if it is not open)."""
        key = path_key(path)
        return next((t for t in self.document_tabs() if path_key(t.path) == key), None)

    # -- findings ---------------------------------------------------------
    def refresh_findings(self) -> None:
        """List the current tab's findings, or every tab's with "All open files"."""
        all_files = self.findings.showing_all
        current = self.current_tab()
        tabs = self.document_tabs() if all_files else [current] if current is not None else []
        rows = [(tab.path.name, f, tab) for tab in tabs for f in tab.findings()]
        self.findings.set_rows(rows, all_files=all_files)

    def allow_external(self, folder: str, owner: object = None) -> None:
        """Let documents read external data (external storage, virtual sources, external
        links) from regular files inside ``folder`` from now on, as ``--allow-external``
        does, and reload ``owner`` (a tab; default the current one) to read them."""
        allow_folder(folder)
        tab = owner if isinstance(owner, DocumentTab) and self.tabs.indexOf(owner) >= 0 \
            else self.current_tab()
        if tab is not None:
            self.reload_tab(tab)

    def _finding_activated(self, finding: Finding, owner: object) -> None:
        if isinstance(owner, DocumentTab) and self.tabs.indexOf(owner) >= 0:
            self.tabs.setCurrentWidget(owner)
            owner.select_location(finding.location)

    def check_files_on_disk(self) -> None:
        """Ask every open document whether its file changed on disk since it was opened
        (when the application becomes active again): a tab whose file did offers Reload."""
        for tab in self.document_tabs():
            tab.check_file_on_disk()

    def _restyle(self) -> None:
        """After a theme switch: what the palette-change events do not reach (tab icons)."""
        for tab in self.document_tabs():
            if tab.is_ready and tab.doc is not None:
                self._mark_tab(tab)

    # -- made by the layers above ------------------------------------------------
    def reload_tab(self, tab: DocumentTab) -> DocumentTab:
        """Read ``tab``'s file again (:class:`~inspector.ui.main_window.MainWindow`)."""
        raise NotImplementedError

    def open_path(self, path: Path | RemotePath, node: str | None = None,
                  remember: bool = True) -> DocumentTab:
        """Open one file (:class:`~inspector.ui.main_window.MainWindow`)."""
        raise NotImplementedError

    def _update_actions(self) -> None:
        """Enable the menus' actions (:class:`~inspector.ui.main_window.MainWindow`)."""
        raise NotImplementedError
