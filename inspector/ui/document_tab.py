"""One tab per open file: the document's views, filled once its job delivers it.

Layout (issue 5 item 8): on the left a tab widget of the views the document
has (Header | Trial metadata or Scans | Provenance | Stimuli | Checksums); on
the right the plot panel (if :mod:`inspector.ui.plots` is available and the
document has arrays) above the detail pane.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QProgressBar,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.document import (
    FORMAT_AUCX,
    FORMAT_DELIMITED,
    FORMAT_RECORDING,
    Document,
    Finding,
    Node,
)
from inspector.jobs import JobRunner
from inspector.models.checksum_model import FAILED
from inspector.ui.checksum_panel import ChecksumPanel
from inspector.ui.detail_pane import DetailPane
from inspector.ui.stimuli_panel import StimuliPanel
from inspector.ui.table_panel import TablePanel
from inspector.ui.tree_panel import HeaderPanel, TreePanel, make_tree_view

__all__ = ["DocumentTab", "make_tree_view"]

#: Tab titles of known tables.
TABLE_TITLES = {"trial_meta": "Trial metadata", "scans": "Scans"}

#: Title of the raw tree beside the header, per format.
TREE_TITLES = {
    FORMAT_RECORDING: "HDF5 objects",
    FORMAT_AUCX: "Archive members",
    FORMAT_DELIMITED: "Source files",
}


def _plot_panel_class():
    try:
        from inspector.ui.plots import PlotPanel
    except Exception:  # noqa: BLE001 - plots are optional (module missing or broken)
        return None
    return PlotPanel



class DocumentTab(QWidget):
    """Shows one document.

    Until the open job delivers the document, a busy indicator is shown.

    Attributes:
        has_views: the views are built (the document was delivered).
        is_ready: views built *and* any deferred verification (AUCX
            checksums) finished, was cancelled or failed.

    Signals:
        views_ready(): the views are populated (verification may still run).
        findings_changed(): the document's findings changed (verification,
            stimuli that could not be loaded).
        ready(): views populated and verification over (:attr:`is_ready`).
        status_message(str): a line for the window's status bar.
    """

    findings_changed = Signal()
    views_ready = Signal()
    ready = Signal()
    status_message = Signal(str)

    def __init__(self, path: Path, jobs: JobRunner, node: str | None = None, parent=None) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.jobs = jobs
        self.initial_node = node
        self.doc: Document | None = None
        self.is_ready = False
        self.has_views = False
        self.verify_state = "none"  # none / running / done / cancelled / error
        self.views: QTabWidget | None = None
        self.header_panel: HeaderPanel | None = None
        self.tables: dict[str, TablePanel] = {}
        self.provenance: TreePanel | None = None
        self.stimuli: StimuliPanel | None = None
        self.checksums: ChecksumPanel | None = None
        self.detail: DetailPane | None = None
        self.plot = None
        self._array_names: dict[str, str] = {}
        self._cancel = threading.Event()
        self._vstate = {"closed": False, "running": False}
        self._vlock = threading.Lock()
        self._stack = QStackedWidget(self)
        busy = QWidget()
        bl = QVBoxLayout(busy)
        bl.addStretch(1)
        label = QLabel(f"Opening {self.path.name}…")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        bar = QProgressBar()
        bar.setRange(0, 0)
        bar.setMaximumWidth(320)
        bl.addWidget(label)
        bl.addWidget(bar, 0, Qt.AlignmentFlag.AlignHCenter)
        bl.addStretch(2)
        self._stack.addWidget(busy)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self._stack)

    # -- compatibility accessors ------------------------------------------
    @property
    def header_view(self):
        return self.header_panel.header.view if self.header_panel else None

    @property
    def tree_view(self):
        raw = self.header_panel.raw if self.header_panel else None
        return raw.view if raw else None

    # -- population -----------------------------------------------------
    def set_document(self, doc: Document) -> None:
        """Build the views of ``doc`` (GUI thread; no file I/O here)."""
        if self._vstate["closed"]:
            doc.close()
            return
        self.doc = doc
        self.views = QTabWidget(self)
        self.views.setDocumentMode(True)
        self.views.setObjectName("documentViews")
        self.header_panel = HeaderPanel(doc.header, doc.tree, TREE_TITLES.get(doc.format, "Structure"), self)
        self.header_panel.node_selected.connect(self._node_selected)
        self.views.addTab(self.header_panel, "Header")
        for name, df in doc.tables.items():
            if df is None:
                continue
            title = TABLE_TITLES.get(name, name)
            panel = TablePanel(df, title, f"/{name}" if doc.format == FORMAT_RECORDING else "", self)
            panel.cell_selected.connect(self._cell_selected)
            self.tables[name] = panel
            self.views.addTab(panel, title)
        if doc.provenance is not None and doc.provenance.children:
            self.provenance = TreePanel(doc.provenance, "Provenance", self)
            self.provenance.view.expandToDepth(2)
            self.provenance.view.setColumnWidth(0, 260)
            self.provenance.node_selected.connect(self._node_selected)
            self.views.addTab(self.provenance, "Provenance")
        if doc.stimuli:
            self.stimuli = StimuliPanel(doc.stimuli, self.jobs, self)
            self.stimuli.load_failed.connect(self._stimulus_failed)
            self.stimuli.stimulus_selected.connect(self._stimulus_selected)
            self.views.addTab(self.stimuli, f"Stimuli ({len(doc.stimuli)})")
        if doc.members or doc.format == FORMAT_AUCX:
            self.checksums = ChecksumPanel(doc.members, self)
            self.checksums.cancel_requested.connect(self.cancel_verification)
            self.checksums.member_selected.connect(self._member_selected)
            self.views.addTab(self.checksums, "Checksums")
            if not self.initial_node:
                self.views.setCurrentWidget(self.checksums)  # the verdict is what an archive is about

        right = QSplitter(Qt.Orientation.Vertical)
        right.setChildrenCollapsible(False)
        self._array_names = {ref.location: name for name, ref in doc.arrays.items() if ref.location}
        plot_cls = _plot_panel_class() if doc.arrays else None
        if plot_cls is not None:
            try:
                self.plot = plot_cls(doc, self.jobs, self)
                right.addWidget(self.plot)
            except Exception as exc:  # noqa: BLE001 - a broken plot must not lose the document
                self.plot = None
                self.status_message.emit(f"plot panel unavailable: {exc}")
        self.detail = DetailPane(self)
        right.addWidget(self.detail)
        if self.plot is not None:
            right.setStretchFactor(0, 3)
            right.setStretchFactor(1, 1)
            right.setSizes([520, 200])
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(self.views)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 400])
        self.splitter = split
        self._stack.addWidget(split)
        self._stack.setCurrentWidget(split)
        self.setFocusProxy(self.views)  # keyboard: the tab hands focus to its views
        self.has_views = True
        self._show_initial()
        self.views_ready.emit()
        if doc.verifier is not None and not doc.verified:
            self.start_verification()
        else:
            if self.checksums is not None:
                self.checksums.finish(doc.members, "done")
                self._note_errors()
            self._set_ready()

    def _show_initial(self) -> None:
        doc = self.doc
        if self.initial_node:
            if self.header_panel.select_location(self.initial_node, prefer_raw=True):
                self.views.setCurrentWidget(self.header_panel)
            else:
                self.status_message.emit(f"{self.path.name}: no node {self.initial_node!r}")
        elif self.plot is not None and doc.arrays:
            for pref in ("neuro", "signal"):
                if pref in doc.arrays:
                    self.plot.show_array(pref)
                    break
            else:
                self.plot.show_array(next(iter(doc.arrays)))

    def _set_ready(self) -> None:
        self.is_ready = True
        self.ready.emit()

    def set_failed(self, message: str) -> None:
        """Shown if the open job itself failed (it should not: open_document never raises)."""
        self.doc = Document(self.path)
        self.doc.error("internal.open-failed", f"{self.path.name}: opening failed: {message}")
        label = QLabel(f"Could not open {self.path.name}:\n{message}")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._stack.addWidget(label)
        self._stack.setCurrentWidget(label)
        self._set_ready()

    # -- verification ---------------------------------------------------
    def start_verification(self) -> None:
        """Run the document's deferred checks on a job: an archive's checksums stream in
        member by member; a recording's stimulus images are decoded."""
        doc, cancel, state, lock = self.doc, self._cancel, self._vstate, self._vlock
        state["running"] = True
        self.verify_state = "running"

        def work(ctx):
            try:
                doc.verify(progress=lambda d, t, m=None: ctx.progress(d, t, m),
                           cancelled=lambda: cancel.is_set() or ctx.cancelled)
            finally:
                with lock:
                    state["running"] = False
                    if state["closed"]:
                        doc.close()
            return cancel.is_set()

        if self.checksums is not None:
            self.checksums.start()
        self.status_message.emit(f"Verifying {self.path.name}…")
        self.jobs.submit(work, on_done=self._verified, on_error=self._verify_failed,
                         on_progress=self._verify_progress)

    def _verify_progress(self, done: int, total: int, member) -> None:
        if not self._vstate["closed"] and self.checksums is not None:
            self.checksums.on_progress(done, total, member)

    def cancel_verification(self) -> None:
        """Ask the verification job to stop after the current member."""
        self._cancel.set()
        if self.checksums is not None:
            self.checksums.cancel.setEnabled(False)
            self.checksums.banner.setText("Cancelling…")

    def _verified(self, cancelled: bool) -> None:
        if self._vstate["closed"]:
            return
        self.verify_state = "cancelled" if cancelled else "done"
        if self.checksums is not None:
            self.checksums.finish(self.doc.members, self.verify_state)
            self._note_errors()
            self.status_message.emit(f"{self.path.name}: {self.checksums.verdict}")
        self.findings_changed.emit()
        self._set_ready()

    def _verify_failed(self, message: str, _tb: str) -> None:
        if self._vstate["closed"]:
            return
        self.verify_state = "error"
        self.doc.error("internal.verify-failed", f"{self.path.name}: verification failed: {message}")
        if self.checksums is not None:
            self.checksums.finish(self.doc.members, "error")
        self.findings_changed.emit()
        self._set_ready()

    def _note_errors(self) -> None:
        failed = {m.name for m in self.checksums.model.members() if m.status in FAILED}
        n = sum(1 for f in self.doc.findings if f.severity == "error" and f.location not in failed)
        note = ""
        if n:
            note = f"{n} other error finding{'s' if n != 1 else ''} (see Findings)" if failed else (
                f"{n} error finding{'s' if n != 1 else ''} (see Findings)")
        self.checksums.extra_note = note
        self.checksums.set_state(self.checksums.state)

    # -- selection → detail pane / plot ----------------------------------
    def _node_selected(self, n: Node) -> None:
        self.detail.show_node(n)
        name = self._array_names.get(n.location)
        if name is not None and self.plot is not None:
            self.plot.show_array(name)

    def _cell_selected(self, title: str, value, extra: str) -> None:
        self.detail.show_value(title, value, extra)

    def _member_selected(self, name: str) -> None:
        row = self.checksums.model.row_of(name)
        m = self.checksums.model.member(row)
        self.detail.show_text(name, f"status: {m.status}\nrecorded: {m.recorded or '(not listed)'}\n"
                                    f"computed: {m.computed or '(not computed)'}")
        arr = self._array_names.get(name)
        if arr is not None and self.plot is not None:
            self.plot.show_array(arr)

    def _stimulus_selected(self, stim) -> None:
        from inspector.models.value_text import value_text, value_type_name

        self.detail.show_text(f"stimulus {value_text(stim.stim_id)}",
                              f"ID: {value_text(stim.stim_id)} ({value_type_name(stim.stim_id)})\n"
                              f"stored as: {stim.kind}\nlocation: {stim.location}")

    def _stimulus_failed(self, stim, message: str) -> None:
        doc = self.doc
        if doc is None:
            return
        if not any(f.location == stim.location and f.severity != "info" for f in doc.findings):
            from inspector.models.value_text import value_text

            doc.warning("stimulus.unloadable",
                        f"{doc.name}: stimulus {value_text(stim.stim_id)} cannot be loaded: {message}",
                        stim.location)
            self.findings_changed.emit()

    # -- navigation -----------------------------------------------------
    def focus_filter(self) -> bool:
        """Focus the filter box of the current view (Ctrl+F)."""
        if self.views is None:
            return False
        w = self.views.currentWidget()
        edit = getattr(w, "filter_edit", None)
        if not isinstance(edit, QLineEdit):
            if self.header_panel is None:
                return False
            self.views.setCurrentWidget(self.header_panel)
            edit = self.header_panel.filter_edit
        edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        edit.selectAll()
        return True

    def select_location(self, location: str) -> bool:
        """Select the node, member, stimulus or table column a finding concerns."""
        if not self.has_views or not location:
            return False
        if self.checksums is not None and self.checksums.select_member(location):
            self.views.setCurrentWidget(self.checksums)
            return True
        for panel in self.tables.values():
            if panel.location and location.startswith(panel.location + "/"):
                parts = [p.split("@")[0] for p in location[len(panel.location) + 1:].split("/")]
                if parts[0] == "columns" and len(parts) > 1 and parts[1].isdigit():
                    found = panel.select_column_index(int(parts[1]))  # schema 1: columns/<i>
                else:
                    found = panel.select_column(parts[0])  # schema 0: one dataset per column
                if found:
                    if self.header_panel.raw is not None:
                        self.header_panel.raw.select_location(location)
                    self.views.setCurrentWidget(panel)
                    return True
        if self.stimuli is not None and self.stimuli.select_location(location):
            self.views.setCurrentWidget(self.stimuli)
            return True
        if self.header_panel.select_location(location):
            self.views.setCurrentWidget(self.header_panel)
            return True
        if self.provenance is not None and self.provenance.select_location(location):
            self.views.setCurrentWidget(self.provenance)
            return True
        base = location.rsplit(":", 1)[0] if ":" in location else ""
        if base and self.header_panel.select_location(base):
            self.views.setCurrentWidget(self.header_panel)
            return True
        return False

    def findings(self) -> list[Finding]:
        return list(self.doc.findings) if self.doc else []

    def close_document(self) -> None:
        """Cancel verification and release the file (now, or when verification stops)."""
        self._cancel.set()
        if self.stimuli is not None:
            self.stimuli.shutdown()
        with self._vlock:
            self._vstate["closed"] = True
            running = self._vstate["running"]
        if self.doc is not None and not running:
            self.doc.close()
