"""The main window: one tab per document, a findings dock, menus and drag-and-drop.

Start-up imports nothing heavy: the readers (numpy, h5py; pandas only for
a table) are imported by the first open job, off the GUI thread, and the plots when a
document needs them (:mod:`inspector.runtime.preload`), so that the window is
shown and painted first and never waits for an import.
"""

from __future__ import annotations

import contextlib
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QStackedWidget,
    QTabWidget,
)

from inspector import APP_NAME, __version__
from inspector.formats.findings import Severity
from inspector.formats.remote.path import RemotePath, as_source, is_url, split_location
from inspector.formats.sources.folder_bounds import allow_folder
from inspector.jobs import JobContext, JobRunner
from inspector.runtime import preload
from inspector.runtime.garbage import START_UP, freeze_long_lived, hold_full_collections
from inspector.ui import drop_zone
from inspector.ui.busy_indicator import BusyIndicator
from inspector.ui.document_tab import DATA_VIEWS, TRIALS, DocumentTab
from inspector.ui.export_support import (
    export_source,
    export_unavailable_reason,
    suggested_export_path,
)
from inspector.ui.findings_dock import FindingsDock
from inspector.ui.icons import severity_icon
from inspector.ui.open_dialog import OpenDialog
from inspector.ui.recent_files import add_recent, fill_recent_menu, last_dir
from inspector.ui.theme import add_theme_menu

#: Views imported ahead of need with the readers (see :meth:`MainWindow.warm_up`).
VIEW_MODULES = ("inspector.ui.table_panel", "inspector.ui.stimuli_panel", preload.PLOTS,
                DATA_VIEWS, "inspector.ui.trial_link", TRIALS, "inspector.ui.representations",
                "inspector.ui.representations.panel")
#: Library modules imported on first use that the warm-up imports too: ``numpy.unique``
#: imports ``numpy.ma`` (the stimulus-label scan of every recording calls it).
WARM_LIBRARIES = ("numpy.ma",)
#: Milliseconds between two looks at whether the window is idle enough to warm up.
WARM_UP_DELAY_MS = 200
#: Looks in a row that must find the window idle (every tab ready, every view in its
#: final state) before it warms up: an import holds the interpreter lock in long steps,
#: which would slow the views still being built or drawn.
WARM_UP_IDLE_LOOKS = 3

if TYPE_CHECKING:
    from inspector.formats.auc.export import ExportSource
    from inspector.formats.document import Document


def _open_document(path: Path | RemotePath) -> Document:
    """Open ``path`` (on a job: the readers are imported on first use, off the GUI thread);
    a verification that streams AUC arrays also builds their overview for the plot."""
    from inspector.formats.analysis.scan_envelope import OVERVIEW_COLUMNS
    from inspector.formats.registry import open_document

    return open_document(path, auc_overview_columns=OVERVIEW_COLUMNS)


def _format_names() -> str:
    """The registered formats' names, comma-separated (imports every reader: call on a job)."""
    from inspector.formats.registry import open_filters

    return ", ".join(name for name, _ in open_filters())


def file_filter() -> str:
    """The Open dialog's filter: every registered format, all of them, and all files."""
    from inspector.formats.registry import open_filters

    formats = open_filters()
    patterns = " ".join(dict.fromkeys(p for _, pats in formats for p in pats))
    entries = [f"Inspector files ({patterns})"] if patterns else []
    entries += [f"{name} ({' '.join(pats)})" for name, pats in formats]
    entries.append("All files (*)")
    return ";;".join(entries)


def _key(path: Path | RemotePath) -> str:
    if isinstance(path, RemotePath):
        return path.url
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):  # RuntimeError: a symbolic-link loop (Python < 3.13)
        return str(Path(path).absolute())


def split_node(arg: str) -> tuple[Path | RemotePath, str | None]:
    """Split ``FILE::/group/dataset`` (or ``URL::/group/dataset``) into the path and the node."""
    path, node = split_location(arg)
    return as_source(path), node


class MainWindow(QMainWindow):
    """The application window.

    Signals:
        all_ready(): every tab opened so far has its views populated and its
            verification (AUCX checksums) finished.
        export_finished(bool ok, str text): an export ended; ``text`` is the
            written path, or the reason it failed.
    """

    all_ready = Signal()
    export_finished = Signal(bool, str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(APP_NAME)
        self.setAcceptDrops(True)
        self.drop_zones = drop_zone.DropZones(self)
        self.jobs = JobRunner(self)
        self.tabs = QTabWidget(self)
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(True)
        self.tabs.setDocumentMode(True)
        self.tabs.tabCloseRequested.connect(self.close_tab)
        self.tabs.currentChanged.connect(self._current_changed)
        self.empty_label = QLabel("Drop files here, or use File > Open (Ctrl+O).")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.central = QStackedWidget(self)
        self.central.addWidget(self.empty_label)
        self.central.addWidget(self.tabs)
        self.setCentralWidget(self.central)
        self.findings = FindingsDock(self)
        self.findings.finding_activated.connect(self._finding_activated)
        self.findings.allow_external.connect(self.allow_external)
        self.findings.scope_changed.connect(lambda _all: self.refresh_findings())
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.findings)
        #: Save the window's size and dock layout on close (False for a --screenshot run,
        #: whose --size must not become the next session's window).
        self.keep_geometry = True
        self._docks_sized = False
        self._kinds_asked = False
        self._warmed = False
        self._warm_done = False  # the warm-up's last import is in (see _warm_up_done)
        self._closed = False
        self._warm_waiting = False
        self._idle_looks = 0
        self._warm_timer = QTimer(self)
        self._warm_timer.setInterval(WARM_UP_DELAY_MS)
        self._warm_timer.timeout.connect(self._look_for_idle)
        self.busy = BusyIndicator(self)  # calm: an animated bar slows the jobs down
        self.busy.setToolTip("Working in the background")
        self.busy.setVisible(False)
        self.statusBar().addPermanentWidget(self.busy)
        self.jobs.busy_changed.connect(self.busy.setVisible)
        app = QGuiApplication.instance()
        self._watching_state = isinstance(app, QGuiApplication)
        if isinstance(app, QGuiApplication):
            app.applicationStateChanged.connect(self._application_state)
        self._build_menus()

    # -- menus ------------------------------------------------------------
    def _build_menus(self) -> None:
        mb = self.menuBar()
        m = mb.addMenu("&File")
        self.act_open = QAction("&Open…", self, shortcut=QKeySequence.StandardKey.Open,
                                triggered=self.open_dialog)
        m.addAction(self.act_open)
        self.act_open_folder = QAction("Open &Folder…", self,
                                       shortcut=QKeySequence("Ctrl+Alt+O"),
                                       triggered=self.open_folder_dialog)
        self.act_open_folder.setStatusTip("Open a folder of CSV/TSV scan tables with a manifest")
        m.addAction(self.act_open_folder)
        self.act_open_url = QAction("Open &URL…", self, shortcut=QKeySequence("Ctrl+Shift+O"),
                                    triggered=self.open_url_dialog)
        self.act_open_url.setStatusTip("Open a file at an https://, http:// or s3:// URL")
        m.addAction(self.act_open_url)
        self.recent_menu = m.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        m.addSeparator()
        self.act_reload = QAction("&Reload", self, shortcut=QKeySequence(Qt.Key.Key_F5),
                                  triggered=self.reload_current)
        self.act_close = QAction("&Close", self, shortcut=QKeySequence("Ctrl+W"),
                                 triggered=lambda: self.close_tab(self.tabs.currentIndex()))
        self.act_export = QAction("&Export to AUCX…", self, shortcut=QKeySequence("Ctrl+E"),
                                  triggered=self.export_current)
        m.addAction(self.act_reload)
        m.addSeparator()
        m.addAction(self.act_export)
        from inspector.ui.compare.action import add_compare_action

        self.act_compare = add_compare_action(self, m)
        m.addSeparator()
        m.addAction(self.act_close)
        m.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit,
                            triggered=self.close))
        m.setToolTipsVisible(True)
        self.file_menu = m
        e = mb.addMenu("&Edit")
        self.act_find = QAction("&Filter…", self, shortcut=QKeySequence.StandardKey.Find,
                                triggered=self.focus_filter)
        self.act_find.setStatusTip("Focus the filter box of the current view")
        e.addAction(self.act_find)
        self.edit_menu = e
        v = mb.addMenu("&View")
        v.addAction(self.findings.toggleViewAction())
        v.addSeparator()
        self.theme_menu = add_theme_menu(v, self, lambda _theme: self._restyle())
        self.view_menu = v
        h = mb.addMenu("&Help")
        h.addAction(QAction("&About Inspector", self, triggered=self.show_about))
        self._update_actions()
        # a menu entry's status tip replaces the tab's status, and leaves the bar empty
        self.statusBar().messageChanged.connect(self._status_cleared)

    def _status_cleared(self, text: str) -> None:
        """The status bar went empty (a status tip or a timed message ended): the current
        tab's status comes back."""
        tab = self.current_tab()
        if not text and tab is not None and tab.status_text:
            self.statusBar().showMessage(tab.status_text)

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
            self.statusBar().showMessage(drop_zone.remote_refusal([text]), 8000)
            return None
        return self.open_paths([text], remember=False)[0]

    def open_paths(self, args, remember: bool = True) -> list[DocumentTab]:
        """Open each path (``FILE`` or ``FILE::/node``) in its own tab; the first one is shown.

        ``remember``: add them to File > Open Recent (not for the bundled samples).
        """
        tabs = [self.open_path(*split_node(str(a)), remember=remember) for a in args]
        if tabs:
            self.tabs.setCurrentWidget(tabs[0])
        return tabs

    def tab_for(self, path: Path) -> DocumentTab | None:
        """The tab already showing ``path`` (None if it is not open)."""
        key = _key(path)
        return next((t for t in self.document_tabs() if _key(t.path) == key), None)

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
            lambda ctx, p=path: _open_document(p),
            on_done=tab.set_document,
            on_error=tab.set_failed,
        )
        return tab

    def _ask_kinds(self) -> None:
        """Name the formats on the empty page once the readers are imported (on a job)."""
        if self._kinds_asked:
            return
        self._kinds_asked = True
        self.jobs.submit(lambda ctx: _format_names(), on_done=self._show_kinds)

    def _show_kinds(self, kinds: str) -> None:
        self.empty_label.setText(f"Drop files here ({kinds}), or use File > Open (Ctrl+O).")

    def warm_up(self) -> None:
        """Import every reader and view module on a background thread, once, while idle.

        Runs when the window has been shown and every tab is ready (files given
        at start are opened first, undisturbed), so that a file opened later
        imports nothing while its views are shown (docs/architecture.md,
        "Contracts"; :mod:`inspector.runtime.preload`).
        """
        if self._warmed or self._warm_waiting:
            return
        if not self.all_tabs_ready():
            self._warm_waiting = True
            self.all_ready.connect(self._warm_up_now, Qt.ConnectionType.SingleShotConnection)
            return
        self._warm_up_now()

    @property
    def warmed_up(self) -> bool:
        """The warm-up (:meth:`warm_up`) has imported every module it queued."""
        return self._warm_done and not preload.busy()

    def _look_for_idle(self) -> None:
        """The shown window warms up once :data:`WARM_UP_IDLE_LOOKS` looks in a row find it
        idle (:meth:`is_idle`), not while files open or views are drawn."""
        if self._warmed:
            self._warm_timer.stop()
            return
        self._idle_looks = self._idle_looks + 1 if self.is_idle() else 0
        if self._idle_looks >= WARM_UP_IDLE_LOOKS:
            self._warm_timer.stop()
            self.warm_up()

    def _warm_up_now(self) -> None:
        self._warm_waiting = False
        if self._warmed:
            return
        self._warmed = True
        from inspector.formats.registry import reader_modules

        hold_full_collections(True)
        preload.preload([*reader_modules(), *VIEW_MODULES, *WARM_LIBRARIES])
        preload.when_drained(self._warm_up_done)

    def _warm_up_done(self) -> None:
        """Every module is imported.  The imports made hundreds of thousands of objects that
        never become garbage, which a full collection would walk on the GUI thread (about
        100 ms), so none ran meanwhile.  With no document open, what is alive is code and
        the window's own widgets, and the collector need never walk it again
        (:func:`inspector.runtime.garbage.freeze_long_lived`); with documents open it is not
        frozen: their objects would never be collected once their tabs close."""
        hold_full_collections(False)
        hold_full_collections(False, START_UP)  # (start-up ends with the first warm-up)
        if self._closed:  # (the thread finishes its import after the window closed)
            return
        self._warm_done = True
        if not self.document_tabs():
            freeze_long_lived()

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

    def close_tab(self, index: int) -> None:
        if index < 0:
            return
        tab = self.tabs.widget(index)
        self.tabs.removeTab(index)
        if isinstance(tab, DocumentTab):
            tab.close_document()
            tab.deleteLater()
        elif hasattr(tab, "close_comparison"):  # a Compare tab
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

    def _finding_activated(self, finding, owner) -> None:
        if isinstance(owner, DocumentTab) and self.tabs.indexOf(owner) >= 0:
            self.tabs.setCurrentWidget(owner)
            owner.select_location(finding.location)

    def check_files_on_disk(self) -> None:
        """Ask every open document whether its file changed on disk since it was opened
        (when the application becomes active again): a tab whose file did offers Reload."""
        for tab in self.document_tabs():
            tab.check_file_on_disk()

    def _application_state(self, state: Qt.ApplicationState) -> None:
        if state == Qt.ApplicationState.ApplicationActive and not self._closed:
            self.check_files_on_disk()

    def _current_changed(self, index: int) -> None:
        self.central.setCurrentWidget(self.tabs if self.tabs.count() else self.empty_label)
        tab = self.current_tab()
        self.setWindowTitle(f"{tab.path.name} — {APP_NAME}" if tab else APP_NAME)
        if tab is not None:
            self.statusBar().showMessage(tab.status_text)
        else:
            self.statusBar().clearMessage()
        self.refresh_findings()
        self._update_actions()

    def _update_actions(self) -> None:
        tab = self.current_tab()
        has = tab is not None
        self.act_reload.setEnabled(has)
        self.act_close.setEnabled(has)
        reason = self._export_reason(tab)
        self.act_export.setEnabled(reason is None)
        tip = reason or "Write the current AUC document as a verified AUCX archive"
        self.act_export.setToolTip(tip)
        self.act_export.setStatusTip(tip)

    # -- export to AUCX ---------------------------------
    @staticmethod
    def _export_reason(tab: DocumentTab | None) -> str | None:
        """Why the current tab cannot be exported (None when it can)."""
        if tab is None or not tab.has_views or tab.doc is None:
            return export_unavailable_reason(None)
        return export_unavailable_reason(tab.doc, tab.export_offered)

    def ask_export_path(self, suggested: str) -> str | None:
        """Ask where to write the archive (None if cancelled). Tests override this."""
        path, _ = QFileDialog.getSaveFileName(
            self, "Export to AUCX", suggested, "AUCX archives (*.aucx)",
            options=QFileDialog.Option.DontConfirmOverwrite)
        return path or None

    def confirm_replace(self, path: str) -> bool:
        """Ask once before replacing an existing file. Tests override this."""
        answer = QMessageBox.question(
            self, "Replace file?", f"{path} already exists.\nReplace it with the exported archive?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Yes

    def offer_open(self, path: str) -> bool:
        """Tell that the export succeeded and offer to open it. Tests override this."""
        answer = QMessageBox.question(
            self, "Export finished", f"Wrote {path}.\nOpen the new archive?",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Close,
            QMessageBox.StandardButton.Open)
        return answer == QMessageBox.StandardButton.Open

    def report_error(self, message: str) -> None:
        """Say why an export failed. Tests override this."""
        QMessageBox.warning(self, "Export to AUCX failed", message)

    def export_current(self) -> None:
        """File > Export to AUCX…: ask for a destination, write it on a job."""
        tab = self.current_tab()
        reason = self._export_reason(tab)
        if reason is not None or tab is None or tab.doc is None:
            self.report_error(reason or "")
            return
        doc = tab.doc
        answer = self.ask_export_path(str(suggested_export_path(doc)))
        if not answer:
            return
        dest = Path(answer)
        if not dest.suffix:
            dest = dest.with_suffix(".aucx")
        if _key(dest) == _key(doc.path):
            self.report_error(f"{dest} is the document being exported; an opened file is never "
                              "overwritten. Choose another file name.")
            return
        overwrite = False
        if dest.exists():
            if not self.confirm_replace(str(dest)):
                return
            overwrite = True
        self.start_export(export_source(doc), dest, overwrite)

    def start_export(self, source: ExportSource, dest: Path, overwrite: bool) -> None:
        """Run ``export_to_aucx(source, dest)`` on a job with a progress dialog.

        ``source`` is a verified document (never mutated by the job) or a
        path the exporter opens and verifies itself (see ``export_source``).
        """
        from inspector.formats.auc.export import ExportError, export_to_aucx

        dlg = QProgressDialog(f"Exporting to {dest.name}…", "", 0, 0, self)
        dlg.setWindowTitle("Export to AUCX")
        dlg.setCancelButton(None)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)
        dlg.setAutoClose(False)
        dlg.setValue(0)
        self.export_dialog = dlg

        def work(ctx: JobContext) -> tuple[bool, str]:
            def progress(done: int, total: int, message: str | None = None, *_rest: object) -> None:
                ctx.progress(int(done), int(total), message)

            try:
                export_to_aucx(source, dest, overwrite=overwrite, progress=progress)
            except ExportError as exc:
                return False, str(exc)
            return True, str(dest)

        def on_progress(done: int, total: int, message) -> None:
            dlg.setMaximum(max(total, 1))
            dlg.setValue(done)
            if isinstance(message, str) and message:
                dlg.setLabelText(f"Exporting to {dest.name}: {message}…")

        def done(result) -> None:
            dlg.close()
            ok, text = result
            self._export_done(ok, text)

        def failed(message: str, _tb: str) -> None:
            dlg.close()
            self._export_done(False, message)

        self.statusBar().showMessage(f"Exporting to {dest}…")
        self.jobs.submit(work, on_done=done, on_error=failed, on_progress=on_progress)

    def _export_done(self, ok: bool, text: str) -> None:
        self.export_finished.emit(ok, text)
        if not ok:
            self.statusBar().showMessage("Export failed", 8000)
            self.report_error(text)
            return
        self.statusBar().showMessage(f"Exported {text}", 8000)
        stale = self.tab_for(Path(text))
        if stale is not None:
            self.reload_tab(stale)
        if self.offer_open(text):
            self.open_path(Path(text))

    # -- drag and drop ----------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # one file with a document open: two zones
        drop_zone.drag_entered(self, self.drop_zones, event)

    def dragMoveEvent(self, event) -> None:
        drop_zone.drag_moved(self.drop_zones, event)

    def dragLeaveEvent(self, event) -> None:
        self.drop_zones.hide()

    def dropEvent(self, event) -> None:
        drop_zone.dropped(self, self.drop_zones, event, partial(drop_zone.open_dropped, self))

    # -- settings ---------------------------------------------------------
    def _last_dir(self) -> str:
        return last_dir()

    def _fill_recent(self) -> None:
        fill_recent_menu(self.recent_menu, self.open_path)

    def _restyle(self) -> None:
        """After a theme switch: what the palette-change events do not reach (tab icons)."""
        for tab in self.document_tabs():
            if tab.is_ready and tab.doc is not None:
                self._mark_tab(tab)

    def show_about(self) -> None:
        import PySide6
        from PySide6.QtCore import qVersion

        from inspector.formats.decoding.versions import library_versions

        v = library_versions()

        kinds = _format_names()
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<b>{APP_NAME}</b> {__version__}<br>"
            f"Reads: {kinds}.<br><br>"
            f"Qt {qVersion()} (PySide6 {PySide6.__version__})<br>"
            f"h5py {v['h5py']}, HDF5 {v['HDF5']}<br>"
            f"numpy {v['numpy']}, pandas {v['pandas']}",
        )

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._ask_kinds()
        if not self._warmed and not self._warm_timer.isActive():
            self._idle_looks = 0
            self._warm_timer.start()
        if not self._docks_sized:  # a one-line dock while empty, a few rows otherwise
            self._docks_sized = True
            self.findings.open_to_fit()

    def closeEvent(self, event) -> None:
        if self.keep_geometry:
            s = QSettings()
            s.setValue("geometry", self.saveGeometry())
            s.setValue("state", self.saveState())
        self._closed = True
        app = QGuiApplication.instance()
        if self._watching_state and isinstance(app, QGuiApplication):  # once (close may repeat)
            self._watching_state = False
            with contextlib.suppress(RuntimeError, TypeError):
                app.applicationStateChanged.disconnect(self._application_state)
        preload.cancel_preloads()  # the interpreter need not wait for the warm-up
        self.jobs.cancel_all()
        self.jobs.wait(3000)
        for tab in self.document_tabs():
            tab.close_document()
        for i in range(self.tabs.count()):  # Compare tabs hold two documents
            getattr(self.tabs.widget(i), "close_comparison", lambda: None)()
        super().closeEvent(event)

    def restore_geometry(self) -> None:
        s = QSettings()
        g = s.value("geometry")
        if g is not None:
            self.restoreGeometry(g)
        st = s.value("state")
        if st is not None:
            self.restoreState(st)
