"""The main window: one tab per document, a findings dock, menus and drag-and-drop.

Start-up imports nothing heavy: the readers (numpy, h5py; pandas only for
a table) are imported by the first open job, off the GUI thread, and the plots when a
document needs them (:mod:`inspector.runtime.preload`), so that the window is
shown and painted first and never waits for an import.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QTabWidget,
    QWidget,
)

from inspector import APP_NAME, __version__
from inspector.jobs import JobRunner
from inspector.runtime import preload
from inspector.runtime.garbage import START_UP, freeze_long_lived, hold_full_collections
from inspector.ui import drop_zone
from inspector.ui.busy_indicator import BusyIndicator
from inspector.ui.document_tab import DATA_VIEWS, TRIALS
from inspector.ui.findings_dock import FindingsDock
from inspector.ui.theme import add_theme_menu
from inspector.ui.window_opening import WindowOpening
from inspector.ui.window_paths import (
    file_filter,
    format_names,
    remote_refusal,
    split_node,
)

__all__ = ["MainWindow", "file_filter", "remote_refusal", "split_node"]

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


def _action(window: QMainWindow, text: str, slot: Callable[[], object],
            shortcut: QKeySequence | QKeySequence.StandardKey | None = None) -> QAction:
    """A menu action of ``window`` that calls ``slot`` when triggered, on ``shortcut``."""
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(shortcut)
    action.triggered.connect(slot)
    return action


class MainWindow(WindowOpening):
    """The application window.

    Signals:
        all_ready(): every tab opened so far has its views populated and its
            verification (AUCX checksums) finished.
        export_finished(bool ok, str text): an export ended; ``text`` is the
            written path, or the reason it failed.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
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
        self.act_open = _action(self, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        m.addAction(self.act_open)
        self.act_open_folder = _action(self, "Open &Folder…", self.open_folder_dialog,
                                       QKeySequence("Ctrl+Alt+O"))
        self.act_open_folder.setStatusTip("Open a folder of CSV/TSV scan tables with a manifest")
        m.addAction(self.act_open_folder)
        self.act_open_url = _action(self, "Open &URL…", self.open_url_dialog,
                                    QKeySequence("Ctrl+Shift+O"))
        self.act_open_url.setStatusTip("Open a file at an https://, http:// or s3:// URL")
        m.addAction(self.act_open_url)
        self.recent_menu = m.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        m.addSeparator()
        self.act_reload = _action(self, "&Reload", self.reload_current,
                                  QKeySequence(Qt.Key.Key_F5))
        self.act_close = _action(self, "&Close", lambda: self.close_tab(self.tabs.currentIndex()),
                                 QKeySequence("Ctrl+W"))
        self.act_export = _action(self, "&Export to AUCX…", self.export_current,
                                  QKeySequence("Ctrl+E"))
        m.addAction(self.act_reload)
        m.addSeparator()
        m.addAction(self.act_export)
        from inspector.ui.compare.action import add_compare_action

        self.act_compare = add_compare_action(self, m)
        m.addSeparator()
        m.addAction(self.act_close)
        m.addAction(_action(self, "&Quit", self.close, QKeySequence.StandardKey.Quit))
        m.setToolTipsVisible(True)
        self.file_menu = m
        e = mb.addMenu("&Edit")
        self.act_find = _action(self, "&Filter…", self.focus_filter,
                                QKeySequence.StandardKey.Find)
        self.act_find.setStatusTip("Focus the filter box of the current view")
        e.addAction(self.act_find)
        self.edit_menu = e
        v = mb.addMenu("&View")
        v.addAction(self.findings.toggleViewAction())
        v.addSeparator()
        self.theme_menu = add_theme_menu(v, self, lambda _theme: self._restyle())
        self.view_menu = v
        h = mb.addMenu("&Help")
        h.addAction(_action(self, "&About Inspector", self.show_about))
        self._update_actions()
        # a menu entry's status tip replaces the tab's status, and leaves the bar empty
        self.statusBar().messageChanged.connect(self._status_cleared)

    def _status_cleared(self, text: str) -> None:
        """The status bar went empty (a status tip or a timed message ended): the current
        tab's status comes back."""
        tab = self.current_tab()
        if not text and tab is not None and tab.status_text:
            self.statusBar().showMessage(tab.status_text)


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

    # -- drag and drop ----------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt override
        drop_zone.drag_entered(self, self.drop_zones, event)  # one file, a document open: 2 zones

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 - Qt override
        drop_zone.drag_moved(self.drop_zones, event)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:  # noqa: N802 - Qt override
        self.drop_zones.hide()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        drop_zone.dropped(self, self.drop_zones, event, partial(drop_zone.open_dropped, self))

    # -- settings ---------------------------------------------------------
    def show_about(self) -> None:
        import PySide6
        from PySide6.QtCore import qVersion

        from inspector.formats.decoding.versions import library_versions

        v = library_versions()

        kinds = format_names()
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<b>{APP_NAME}</b> {__version__}<br>"
            f"Reads: {kinds}.<br><br>"
            f"Qt {qVersion()} (PySide6 {PySide6.__version__})<br>"
            f"h5py {v['h5py']}, HDF5 {v['HDF5']}<br>"
            f"numpy {v['numpy']}, pandas {v['pandas']}",
        )

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._ask_kinds()
        if not self._warmed and not self._warm_timer.isActive():
            self._idle_looks = 0
            self._warm_timer.start()
        if not self._docks_sized:  # a one-line dock while empty, a few rows otherwise
            self._docks_sized = True
            self.findings.open_to_fit()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
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
