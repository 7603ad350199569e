"""The main window: one tab per document, a findings dock, menus and drag-and-drop."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QTabWidget,
)

from inspector import APP_NAME, __version__
from inspector.formats import open_document
from inspector.jobs import JobRunner
from inspector.ui.document_tab import DocumentTab
from inspector.ui.findings_dock import FindingsDock

FILE_FILTER = (
    "Inspector files (*.h5 *.hdf5 *.aucx *.csv *.tsv *.json *.yaml *.yml);;"
    "VneuroTK recordings (*.h5 *.hdf5);;AUCX archives (*.aucx);;"
    "AUC scan tables (*.csv *.tsv *.txt);;All files (*)"
)


def split_node(arg: str) -> tuple[Path, str | None]:
    """Split ``FILE::/group/dataset`` into the path and the HDF5 node."""
    if "::" in arg:
        path, node = arg.split("::", 1)
        return Path(path), node or None
    return Path(arg), None


class MainWindow(QMainWindow):
    """The application window.

    Signals:
        all_ready(): every tab opened so far has its views populated.
    """

    all_ready = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(APP_NAME)
        self.setAcceptDrops(True)
        self.jobs = JobRunner(self)
        self.tabs = QTabWidget(self)
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(True)
        self.tabs.setDocumentMode(True)
        self.tabs.tabCloseRequested.connect(self.close_tab)
        self.tabs.currentChanged.connect(self._current_changed)
        self.empty_label = QLabel("Drop VneuroTK recordings (.h5) or AUCX archives (.aucx) here, "
                                  "or use File > Open (Ctrl+O).")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setCentralWidget(self.tabs)
        self.findings = FindingsDock(self)
        self.findings.finding_activated.connect(self._finding_activated)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.findings)
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(160)
        self.busy.setVisible(False)
        self.statusBar().addPermanentWidget(self.busy)
        self.jobs.busy_changed.connect(self.busy.setVisible)
        self._build_menus()

    # -- menus ------------------------------------------------------------
    def _build_menus(self) -> None:
        mb = self.menuBar()
        m = mb.addMenu("&File")
        self.act_open = QAction("&Open…", self, shortcut=QKeySequence.StandardKey.Open,
                                triggered=self.open_dialog)
        m.addAction(self.act_open)
        self.recent_menu = m.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        m.addSeparator()
        self.act_reload = QAction("&Reload", self, shortcut=QKeySequence(Qt.Key.Key_F5),
                                  triggered=self.reload_current)
        self.act_close = QAction("&Close", self, shortcut=QKeySequence("Ctrl+W"),
                                 triggered=lambda: self.close_tab(self.tabs.currentIndex()))
        m.addAction(self.act_reload)
        m.addAction(self.act_close)
        m.addSeparator()
        m.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close))
        self.file_menu = m
        v = mb.addMenu("&View")
        v.addAction(self.findings.toggleViewAction())
        self.view_menu = v
        h = mb.addMenu("&Help")
        h.addAction(QAction("&About Inspector", self, triggered=self.show_about))

    # -- opening ----------------------------------------------------------
    def open_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open files", self._last_dir(), FILE_FILTER)
        self.open_paths(paths)

    def open_paths(self, args) -> list[DocumentTab]:
        """Open each path (``FILE`` or ``FILE::/node``) in its own tab."""
        return [self.open_path(*split_node(str(a))) for a in args]

    def open_path(self, path: Path, node: str | None = None) -> DocumentTab:
        """Open one file on a background job; returns its (still loading) tab."""
        path = Path(path)
        tab = DocumentTab(path, self.jobs, node=node)
        tab.findings_changed.connect(self.refresh_findings)
        tab.ready.connect(self._tab_ready)
        i = self.tabs.addTab(tab, path.name or str(path))
        self.tabs.setTabToolTip(i, str(path))
        self.tabs.setCurrentIndex(i)
        self._remember(path)
        self.statusBar().showMessage(f"Opening {path}…")
        self.jobs.submit(
            lambda ctx, p=path: open_document(p),
            on_done=tab.set_document,
            on_error=lambda msg, tb, t=tab: t.set_failed(msg),
        )
        return tab

    def _tab_ready(self) -> None:
        self.refresh_findings()
        tab = self.sender()
        if isinstance(tab, DocumentTab) and tab.doc is not None:
            i = self.tabs.indexOf(tab)
            if i >= 0 and not tab.doc.ok:
                self.tabs.setTabIcon(i, self.style().standardIcon(
                    self.style().StandardPixmap.SP_MessageBoxWarning))
            self.statusBar().showMessage(
                f"{tab.doc.name}: {tab.doc.format}, "
                f"{len(tab.doc.findings)} finding(s)", 5000)
        if all(t.is_ready for t in self.document_tabs()):
            self.all_ready.emit()

    def document_tabs(self) -> list[DocumentTab]:
        return [self.tabs.widget(i) for i in range(self.tabs.count())]

    def current_tab(self) -> DocumentTab | None:
        w = self.tabs.currentWidget()
        return w if isinstance(w, DocumentTab) else None

    def close_tab(self, index: int) -> None:
        if index < 0:
            return
        tab = self.tabs.widget(index)
        self.tabs.removeTab(index)
        if isinstance(tab, DocumentTab):
            tab.close_document()
            tab.deleteLater()
        self.refresh_findings()

    def reload_current(self) -> None:
        tab = self.current_tab()
        if tab is None:
            return
        index = self.tabs.indexOf(tab)
        path, node = tab.path, tab.initial_node
        self.close_tab(index)
        new = self.open_path(path, node)
        self.tabs.insertTab(index, self.tabs.widget(self.tabs.indexOf(new)), path.name)
        self.tabs.setCurrentIndex(index)

    # -- findings ---------------------------------------------------------
    def refresh_findings(self) -> None:
        rows = []
        for tab in self.document_tabs():
            for f in tab.findings():
                rows.append((tab.path.name, f, tab))
        self.findings.set_rows(rows)

    def _finding_activated(self, finding, owner) -> None:
        if isinstance(owner, DocumentTab) and self.tabs.indexOf(owner) >= 0:
            self.tabs.setCurrentWidget(owner)
            owner.select_location(finding.location)

    def _current_changed(self, index: int) -> None:
        tab = self.current_tab()
        self.setWindowTitle(f"{tab.path.name} — {APP_NAME}" if tab else APP_NAME)

    # -- drag and drop ----------------------------------------------------
    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.open_paths(paths)

    # -- settings ---------------------------------------------------------
    def _remember(self, path: Path) -> None:
        s = QSettings()
        recent = [p for p in (s.value("recent", []) or []) if p != str(path.resolve())]
        recent.insert(0, str(path.resolve()))
        s.setValue("recent", recent[:10])
        s.setValue("lastDir", str(path.resolve().parent))

    def _last_dir(self) -> str:
        return str(QSettings().value("lastDir", "") or "")

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = QSettings().value("recent", []) or []
        if isinstance(recent, str):
            recent = [recent]
        for p in recent:
            self.recent_menu.addAction(p, lambda p=p: self.open_path(Path(p)))
        if not recent:
            a = self.recent_menu.addAction("(none)")
            a.setEnabled(False)

    def show_about(self) -> None:
        import PySide6
        from PySide6.QtCore import qVersion

        from inspector.formats.versions import library_versions

        v = library_versions()

        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<b>{APP_NAME}</b> {__version__}<br>"
            "Inspector for VneuroTK HDF5 recordings and AUCX archives.<br><br>"
            f"Qt {qVersion()} (PySide6 {PySide6.__version__})<br>"
            f"h5py {v['h5py']}, HDF5 {v['HDF5']}<br>"
            f"numpy {v['numpy']}, pandas {v['pandas']}",
        )

    def closeEvent(self, event) -> None:
        s = QSettings()
        s.setValue("geometry", self.saveGeometry())
        s.setValue("state", self.saveState())
        self.jobs.cancel_all()
        self.jobs.wait(3000)
        for tab in self.document_tabs():
            tab.close_document()
        super().closeEvent(event)

    def restore_geometry(self) -> None:
        s = QSettings()
        g = s.value("geometry")
        if g is not None:
            self.restoreGeometry(g)
        st = s.value("state")
        if st is not None:
            self.restoreState(st)
