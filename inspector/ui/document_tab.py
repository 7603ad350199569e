"""One tab per open file: the document's views, chosen by its capabilities.

Layout: on the left a tab widget of the views the document offers (Header |
its tables | Provenance | Stimuli | Checksums); on the right the plot panel
(when the document has arrays) above the detail pane.  A file that could not
be opened shows a page saying what failed, where and what to try
(:mod:`inspector.models.open_failure`).

Deferred checks (``doc.checks``) run one after the other on jobs; their
:class:`~inspector.formats.capabilities.Progress` events fill in the checksum
table, and each :class:`~inspector.formats.capabilities.CheckResult` is
applied on the GUI thread with ``doc.apply`` before the affected views are
reset (docs/architecture.md, "Deferred work").  Nothing here reads a format
name.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.capabilities import CheckResult, DeferredCheck, Progress
from inspector.formats.core_rules import (
    CHECK_FAILED,
    NODE_NOT_FOUND,
    OPEN_FAILED,
    STIMULUS_UNLOADABLE,
)
from inspector.formats.document import Document, Finding, Node, Stimulus
from inspector.formats.file_identity import FILE_CHANGED
from inspector.formats.nodes.node import LinkTarget
from inspector.formats.remote.path import RemotePath, as_source
from inspector.jobs import JobContext, JobRunner
from inspector.models.checksum_model import FAILED
from inspector.models.findings_model import count_text, severity_counts_text
from inspector.models.node_rows import RowStyle, TreeRows, tree_rows
from inspector.models.open_failure import open_failure
from inspector.models.value_text import value_text, value_type_name
from inspector.ui import preload
from inspector.ui.attribute_pages import AttributePager
from inspector.ui.busy_indicator import BusyIndicator
from inspector.ui.checksum_panel import ChecksumPanel
from inspector.ui.detail_pane import DetailPane
from inspector.ui.failure_page import FailurePage
from inspector.ui.scan_link import link_scans
from inspector.ui.tab_layout import lay_out_tab
from inspector.ui.table_frames import TableFrames
from inspector.ui.tree_panel import HeaderPanel, TreePanel, expand_within, make_tree_view
from inspector.ui.turns import OffThread, Steps, run_in_turns

if TYPE_CHECKING:  # imported when a document needs them (pandas, numpy, pyqtgraph)
    from inspector.models.selection import TrialSelection
    from inspector.ui.data.viewer import NodeViewer
    from inspector.ui.group_bar import GroupBar
    from inspector.ui.plots import PlotPanel
    from inspector.ui.reload_bar import ReloadBar
    from inspector.ui.stimuli_panel import StimuliPanel
    from inspector.ui.table_panel import TablePanel
    from inspector.ui.trial_link import TrialLinks
    from inspector.ui.trials import TrialsPanel

__all__ = ["DocumentTab", "make_tree_view"]

#: The data views of any dataset or attribute (imported off the GUI thread, with the plots).
DATA_VIEWS = "inspector.ui.data.viewer"
#: Tree node kinds whose location may hold values (a link leads to a dataset too).
DATA_KINDS = ("dataset", "attribute", "link")
#: The package of the trial views (pyqtgraph), imported off the GUI thread.
TRIALS = "inspector.ui.trials"

#: Tab titles of tables with a well-known name (others are shown under their name).
TABLE_TITLES = {"trial_meta": "Trial metadata", "scans": "Scans", "groups": "Groups"}


def table_title(name: str) -> str:
    """The tab title of ``doc.tables[name]``: :data:`TABLE_TITLES`, else the name itself."""
    return TABLE_TITLES.get(name, name)


class DocumentTab(QWidget):
    """Shows one document.

    Until the open job delivers the document, a busy indicator is shown.

    Attributes:
        has_views: the views are built (the document was delivered).
        is_ready: views built *and* the deferred checks finished, were
            cancelled or failed.
        verify_state: ``none``, ``running``, ``done``, ``cancelled`` or ``error``.
        failure: the page shown when the file could not be opened, else None.
        status_text: the status-bar line of this tab (the window shows it
            while the tab is current).
        export_offered: the document offered an export to AUCX when opened.

    Signals:
        views_ready(): the views are populated (checks may still run).
        findings_changed(): the document's findings changed.
        ready(): views populated and checks over (:attr:`is_ready`).
        status_message(str): :attr:`status_text` changed.
        open_requested(str): "Open target" of a link into another file:
            ``FILE::/path`` for the window to open in a tab.
        reload_requested(): Reload on the bar shown when the file changed on disk
            since it was opened (a ``file.changed`` finding): the window reopens it
            in this tab's place.
    """

    findings_changed = Signal()
    open_requested = Signal(str)
    reload_requested = Signal()
    views_ready = Signal()
    ready = Signal()
    status_message = Signal(str)

    def __init__(self, path: Path, jobs: JobRunner, node: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = as_source(path)
        self.jobs = jobs
        self.initial_node = node
        self.doc: Document | None = None
        self.status_text = f"Opening {self.path}…"
        self.group_bar: GroupBar | None = None
        self._init_view_state()
        self._plot_timer = QTimer(self)
        self._plot_timer.setSingleShot(True)
        self._plot_timer.timeout.connect(self._show_first_array)
        self._page: QWidget | None = None
        self._group_wanted: str | None = None
        self._cancel = threading.Event()
        self._vstate = {"closed": False, "running": False}
        self._remote_timer: QTimer | None = None
        self.cancel_open: QPushButton | None = None
        self._vlock = threading.Lock()
        self._stack = QStackedWidget(self)
        self._stack.addWidget(self._busy_page())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self._stack)
        self.reload_bar: ReloadBar | None = None
        self.findings_changed.connect(self._offer_reload)
        self.views_ready.connect(self._offer_reload)

    def _init_view_state(self) -> None:
        """No views yet (a new tab, or a tab about to show another group of its source)."""
        self.is_ready = False
        self.has_views = False
        self.verify_state = "none"
        self.export_offered = False
        self.failure: FailurePage | None = None
        self.views: QTabWidget | None = None
        self.header_panel: HeaderPanel | None = None
        self.tables: dict[str, TablePanel] = {}
        self.provenance: TreePanel | None = None
        self.summary: TreePanel | None = None
        self.stimuli: StimuliPanel | None = None
        self.checksums: ChecksumPanel | None = None
        self.detail: DetailPane | None = None
        self.plot: PlotPanel | None = None
        self.viewer: NodeViewer | None = None  # the plot and the data views of any node
        self._data_wanted: str | None = None
        self.selection: TrialSelection | None = None
        self.trials_panel: TrialsPanel | None = None
        self.trial_links: TrialLinks | None = None
        self._trials_slot: QLabel | None = None
        self._trials_waiting = False  # built once a deferred check brings the trial IDs
        self._trials_wanted = False  # the Trials tab was shown: its views are to be built
        self.frames: TableFrames | None = None  # the tables' DataFrames, built once idle
        self.trials_error = ""
        self.plot_error = ""
        self._plot_slot: QLabel | None = None
        self._plot_wanted: str | None = None
        self._array_names: dict[str, str] = {}
        self._pending: list[DeferredCheck] = []
        self._notice = ""
        self._unloadable: list[tuple[Stimulus, str]] = []

    def _busy_page(self) -> QWidget:
        busy = QWidget()
        bl = QVBoxLayout(busy)
        bl.addStretch(1)
        label = QLabel(f"Opening {self.path.name}…")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        bar = BusyIndicator()
        bl.addWidget(label)
        bl.addWidget(bar, 0, Qt.AlignmentFlag.AlignHCenter)
        if isinstance(self.path, RemotePath):
            self._watch_remote(bl, label)
        bl.addStretch(2)
        return busy

    def _watch_remote(self, layout: QVBoxLayout, label: QLabel) -> None:
        """A URL opens over the network: show the bytes read so far, offer Cancel."""
        path = self.path
        assert isinstance(path, RemotePath)
        self.cancel_open = QPushButton("Cancel", self)
        self.cancel_open.clicked.connect(path.cancel)
        layout.addWidget(self.cancel_open, 0, Qt.AlignmentFlag.AlignHCenter)
        self._remote_timer = QTimer(self)
        self._remote_timer.setInterval(250)

        def show() -> None:
            got = path.progress()
            if got is not None and self.doc is None:
                label.setText(f"Opening {path.name}… {got[1] / 1e6:.1f} MB read in "
                              f"{got[0]} requests")
        self._remote_timer.timeout.connect(show)
        self._remote_timer.start()

    # -- compatibility accessors ------------------------------------------
    @property
    def header_view(self) -> QTreeView | None:
        return self.header_panel.header.view if self.header_panel else None

    @property
    def tree_view(self) -> QTreeView | None:
        raw = self.header_panel.raw if self.header_panel else None
        return raw.view if raw else None

    # -- population -----------------------------------------------------
    def set_document(self, doc: Document) -> None:
        """Build the views of ``doc`` (GUI thread; no file I/O here), one piece an
        event-loop turn (:meth:`_build_steps`), so that no turn holds the GUI
        thread long (docs/architecture.md, "Contracts").  ``views_ready`` is
        emitted when the last piece is shown; ``has_views`` is then true."""
        if self._remote_timer is not None:
            self._remote_timer.stop()
        if self._vstate["closed"]:
            doc.close()
            return
        self.doc = doc
        self._build(self._build_steps())

    def _build(self, steps: Steps) -> None:
        """Run ``steps`` one an event-loop turn, while this tab is open
        (:func:`~inspector.ui.turns.run_in_turns`)."""
        run_in_turns(self, steps, jobs=self.jobs, stopped=lambda: self._vstate["closed"])

    def _build_steps(self) -> Steps:
        """The views of ``self.doc``; each ``yield`` ends an event-loop turn.  The
        busy page stays in front until the last piece is laid out."""
        yield from self._add_header()
        yield from self._add_tables()
        self._add_provenance_and_stimuli()
        yield
        self._add_trials()
        if self.doc.checksums is not None:
            self._add_checksums()
        yield
        self._lay_out()
        yield
        plot_module = self._place_plots()
        if plot_module is not None:
            yield from self._plot_steps(plot_module)
            yield
        self.has_views = True
        self._show_initial()
        self.views_ready.emit()
        yield
        self._start_checks()

    def _add_header(self) -> Steps:
        """The view tabs, with the failure page (if opening failed) and the header; the
        raw tree beside it on a later turn.  Their rows are made on jobs
        (:func:`~inspector.models.node_rows.tree_rows`)."""
        doc = self.doc
        self.export_offered = doc.export is not None
        self.views = QTabWidget(self)
        self.views.setDocumentMode(True)
        self.views.setObjectName("documentViews")
        failure = open_failure(doc)
        if failure is not None:
            self.failure = FailurePage(failure, self)
            self.views.addTab(self.failure, "Could not open")
        style = RowStyle.current()
        header_rows = yield OffThread(lambda _ctx: tree_rows(doc.header, style))
        self.header_panel = HeaderPanel(doc.header, None, doc.tree_title, self,
                                        header_rows=header_rows)
        self.header_panel.node_selected.connect(self._node_selected)
        self.header_panel.open_target.connect(self.open_target)
        self.attribute_pager: AttributePager | None = None
        self.views.addTab(self.header_panel, "Header")
        yield
        if doc.tree is not None:
            rows = yield OffThread(lambda _ctx: tree_rows(doc.tree, style))
            self.header_panel.add_tree(doc.tree, doc.tree_title, rows)
            if doc.object_data is not None:
                self.attribute_pager = AttributePager(self.header_panel.raw, doc.object_data,
                                                      self.jobs, self)
            yield

    def _start_checks(self) -> None:
        """Run the deferred checks, or, with none, show the final state at once."""
        doc = self.doc
        if doc.checks:
            self.start_verification()
            return
        if self.checksums is not None:
            self.checksums.finish(list(doc.checksums.members), "done")
            self._note_errors()
        self._finished_status()
        self._set_ready()

    def _add_tables(self) -> Steps:
        """One table view a turn (a table of a few hundred rows sizes its columns from
        their text, some tens of milliseconds), its columns made on a job first
        (:func:`~inspector.models.table_model.column_arrays`).  A table of plain
        columns is shown without pandas; its DataFrame is built later
        (:attr:`frames`: once the tab has stayed idle, or when the trial views ask)."""
        doc = self.doc
        if not doc.tables:
            return
        from inspector.models.table_model import column_arrays
        from inspector.ui.table_panel import TablePanel

        self.frames = TableFrames(doc.tables.values(), self.jobs, self)
        for name, table in doc.tables.items():
            title = table_title(name)
            columns = yield OffThread(lambda _ctx, table=table: column_arrays(table))
            panel = TablePanel(table, title, doc.table_locations.get(name, ""), self, columns)
            panel.cell_selected.connect(self._cell_selected)
            self.tables[name] = panel
            self.views.addTab(panel, title)
            yield

    def _add_summary(self) -> None:
        """The Summary tab of the experiment's structure, once it is checked."""
        structure = self.doc.structure
        if structure is None or self.summary is not None:
            return
        self.summary = TreePanel(structure.tree(), "Summary", self)
        expand_within(self.summary.view, 1)
        self.summary.view.setColumnWidth(0, 260)
        self.summary.node_selected.connect(self._node_selected)
        self.views.addTab(self.summary, "Summary")

    def _add_provenance_and_stimuli(self) -> None:
        doc = self.doc
        if doc.provenance is not None and doc.provenance.children:
            self.provenance = TreePanel(doc.provenance, "Provenance", self)
            expand_within(self.provenance.view, 2)
            self.provenance.view.setColumnWidth(0, 260)
            self.provenance.node_selected.connect(self._node_selected)
            self.views.addTab(self.provenance, "Provenance")
        self._add_summary()
        if doc.stimuli:
            from inspector.ui.stimuli_panel import StimuliPanel

            self.stimuli = StimuliPanel(doc.stimuli, self.jobs, self)
            self.stimuli.load_failed.connect(self._stimulus_failed)
            self.stimuli.stimulus_selected.connect(self._stimulus_selected)
            self.views.addTab(self.stimuli, f"Stimuli ({len(doc.stimuli)})")

    def _add_trials(self, wait: bool = True) -> None:
        """The trial selection, shared by the table, the stimuli and the Trials tab
        (epochs or continuous recordings only: patterns have no time axis).  The
        trial views import pyqtgraph: a placeholder holds their tab until it is
        first shown and ``inspector.ui.trials`` is imported off the GUI thread
        (ui.preload: the window's warm-up imports it, or the first show asks for
        it); only then are the views built and their averages run.
        While a deferred check is to bring the trials' stimulus IDs
        (``stim_ids_pending``), they wait for its result (``wait``)."""
        doc = self.doc
        if doc.trials is None:
            return
        self._trials_waiting = wait and doc.trials.stim_ids_pending and bool(doc.checks)
        if self._trials_waiting:
            return
        from inspector.models.selection import TrialSelection
        from inspector.ui.trial_link import TrialLinks

        self.selection = TrialSelection.for_document(doc, self)
        if self.selection is None:
            return
        self.trial_links = TrialLinks(doc, self.jobs, self.selection,
                                      self.tables.get("trial_meta"), self.stimuli, self)
        self.selection.changed.connect(
            lambda _source: self._finished_status() if self.verify_state != "running" else None)
        if doc.trials.data_mode in ("epochs", "continuous") and "neuro" in doc.arrays:
            self._trials_slot = QLabel("Preparing the trial views…")
            self._trials_slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
            views = self.views
            assert views is not None  # (set_document made it)
            views.addTab(self._trials_slot, "Trials")  # (its module: MainWindow.warm_up)
            views.currentChanged.connect(self._trials_shown)
        from inspector.ui.representations import offer_tab

        offer_tab(self)  # the Representations tab, when there are vision records

    def _trials_shown(self, *_args: Any) -> None:
        """The current view changed: the first time it is the Trials placeholder, its
        views are built, on a later event-loop turn (the placeholder is drawn first)."""
        if self._trials_wanted or not self._trials_current():
            return
        self._trials_wanted = True
        QTimer.singleShot(0, self, lambda: preload.when_imported(
            TRIALS, self._trials_imported, self._trials_failed))

    def _trials_current(self) -> bool:
        slot = self._trials_slot
        return slot is not None and self.views is not None and self.views.currentWidget() is slot

    def _trials_imported(self, trials: ModuleType) -> None:
        """The trial views are importable: once the tables' DataFrames are built (the
        views group trials by their columns), the views are built, one plot an
        event-loop turn (``trials.build_in_steps``), and take the placeholder's place."""
        if self._trials_gone():
            return
        if self.frames is not None and not self.frames.built:
            self.frames.when_built(lambda: self._trials_imported(trials))
            return
        run_in_turns(self, trials.build_in_steps(self.doc, self.jobs, self.selection, self),
                     on_result=self._trials_built, stopped=self._trials_gone)

    def _trials_gone(self) -> bool:
        return self._vstate["closed"] or self._trials_slot is None or self.doc is None

    def _trials_built(self, panel: TrialsPanel) -> None:
        slot = self._trials_slot
        assert slot is not None and self.views is not None  # (else the drive stopped)
        index = self.views.indexOf(slot)
        current = self.views.currentIndex() == index
        self.trials_panel = panel
        self.views.removeTab(index)
        self.views.insertTab(index, self.trials_panel, "Trials")
        if current:
            self.views.setCurrentIndex(index)
        self._trials_slot = None
        slot.deleteLater()

    def _trials_failed(self, message: str) -> None:
        self.trials_error = message
        if self._trials_slot is not None:
            self._trials_slot.setText(f"The trial views are not available: {message}")

    def _add_checksums(self) -> None:
        self.checksums = ChecksumPanel(list(self.doc.checksums.members), self)
        self.checksums.cancel_requested.connect(self.cancel_verification)
        self.checksums.member_selected.connect(self._member_selected)
        self.views.addTab(self.checksums, "Checksums")
        if not self.initial_node and self.failure is None:
            self.views.setCurrentWidget(self.checksums)  # the verdict is what an archive is about

    def _lay_out(self) -> None:
        doc = self.doc
        self._array_names = {ref.location: name for name, ref in doc.arrays.items() if ref.location}
        if doc.arrays or doc.object_data is not None:
            # The plot comes once pyqtgraph is imported off the GUI thread (ui.preload).
            self._plot_slot = QLabel("Preparing the plot…")
            self._plot_slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.detail = DetailPane(self)
        self.detail.open_target.connect(self.open_target)
        split = lay_out_tab(self.views, self.detail, self._plot_slot)  # the plot: half and more
        if self.failure is not None:
            self.detail.hide()  # nothing to detail on the failure page; shown on a selection
        self.splitter = split
        self.right = split  # the splitter holding the plot's place
        self._page = self._with_group_bar(split)
        self._stack.addWidget(self._page)
        self._stack.setCurrentWidget(self._page)
        self.setFocusProxy(self.views)  # keyboard: the tab hands focus to its views

    def _plot_module(self) -> str:
        """The module of the views in the plot's place: the data views, else the plots."""
        return DATA_VIEWS if self.doc.object_data is not None else preload.PLOTS

    def _place_plots(self) -> ModuleType | None:
        """The module of the plot's views when they can be built now (it is imported);
        else None, and it is imported off the GUI thread and the views are built then
        (:meth:`_plots_imported`).  None too when the tab has no plot."""
        if self._plot_slot is None:
            return None
        module = preload.loaded(self._plot_module())
        if module is None:
            preload.when_imported(self._plot_module(), self._plots_imported,
                                  self._plots_failed)
        return module

    def _with_group_bar(self, split: QWidget) -> QWidget:
        """``split`` under the experiment-group chooser when the document offers several
        experiments (``doc.groups``), else ``split`` itself."""
        groups = self.doc.groups
        if groups is None or len(groups.keys) < 2:
            self.group_bar = None
            return split
        from inspector.ui.group_bar import GroupBar

        page = QWidget()
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        self.group_bar = GroupBar(groups, page)
        self.group_bar.group_chosen.connect(self.choose_group)
        lay.addWidget(self.group_bar)
        lay.addWidget(split, 1)
        return page

    # -- experiment groups ----------------------------------------------
    def choose_group(self, key: str) -> None:
        """Show group ``key`` of the source instead of the current one.

        The group's document is opened on a job (``doc.groups.open``: it
        reads the source again); the views are then rebuilt from it on the
        GUI thread.  Ignored while a check runs or another group opens.
        """
        doc = self.doc
        groups = doc.groups if doc is not None else None
        if groups is None or key == groups.selected or key not in groups.keys:
            return
        if self.verify_state == "running" or self._group_wanted is not None:
            if self.group_bar is not None:
                self.group_bar.set_current(groups.selected)
            return
        self._group_wanted = key
        if self.group_bar is not None:
            self.group_bar.set_busy(key)
        self._set_status(f"Opening group {key}…")
        self.jobs.submit(lambda _ctx: groups.open(key), on_done=self._group_opened,
                         on_error=self._group_failed)

    def _group_opened(self, new: Document) -> None:
        """The chosen group's document: it replaces the shown one (GUI thread)."""
        self._group_wanted = None
        if self._vstate["closed"]:
            new.close()
            return
        current = self.views.tabText(self.views.currentIndex()) if self.views else ""
        old, page = self.doc, self._page
        self._shutdown_views()
        if page is not None:
            self._stack.removeWidget(page)
            page.deleteLater()  # the plot's jobs are cancelled as it goes
        self._page = None
        self._init_view_state()
        if old is not None:
            old.close()
        self.views_ready.connect(lambda: self._show_view_titled(current),
                                 Qt.ConnectionType.SingleShotConnection)
        self.set_document(new)

    def _show_view_titled(self, title: str) -> None:
        """The group's views are built: show the view the old group showed, if any."""
        titles = [self.views.tabText(i) for i in range(self.views.count())]
        if title in titles:
            self.views.setCurrentIndex(titles.index(title))
        self.findings_changed.emit()

    def _group_failed(self, message: str, tb: str) -> None:
        self._group_wanted = None
        if self.group_bar is not None and self.doc is not None and self.doc.groups is not None:
            self.group_bar.set_busy(None)
            self.group_bar.set_current(self.doc.groups.selected)
        self._set_status(f"The group could not be opened: {message}")

    def _plots_imported(self, module: ModuleType) -> None:
        """The plots (and, for documents with object data, the data views: ``module`` is
        then :data:`DATA_VIEWS`) were imported after the tab was laid out: they take the
        placeholder's place, on event-loop turns of their own (:meth:`_plot_steps`)."""
        if self._vstate["closed"] or self._plot_slot is None or self.doc is None:
            return
        self._build(self._plot_steps(module))

    def _plot_steps(self, module: ModuleType) -> Steps:
        """The plot panel on one turn, the data viewer around it on the next, which puts
        them in the placeholder's place.  The first array (or the node asked for) is
        shown on the turn after (``_plot_timer``)."""
        shown = None
        if self.doc.arrays:
            self.plot = preload.loaded(preload.PLOTS).PlotPanel(self.doc, self.jobs, self)
            self.plot.finding.connect(self._view_finding)
            link_scans(self)  # one scan selection for the Scans table, the scan list and the plot
            shown = self.plot
            if self.doc.object_data is not None:
                yield  # (a child made after the tab was shown stays hidden until placed)
        if self.doc.object_data is not None:
            shown = self.viewer = module.NodeViewer(
                self.doc.object_data, self.plot, self.detail, self.jobs, self,
                plotted=lambda location: location in self._array_names)
            self.viewer.plot_requested.connect(self._plot_location)
            self.viewer.data.finding.connect(self._view_finding)
            self.viewer.data.node_missing.connect(self._node_missing)
        if self._plot_slot is None:
            return
        self.right.replaceWidget(self.right.indexOf(self._plot_slot), shown)
        self._plot_slot.deleteLater()
        self._plot_slot = None
        self._plot_timer.start(0)

    def _plots_failed(self, message: str) -> None:
        self.plot_error = message
        if self._plot_slot is not None:
            self._plot_slot.setText(f"Plots are not available: {message}")

    def _show_first_array(self) -> None:
        if self.viewer is not None and self._data_wanted is not None and \
                not self._vstate["closed"]:
            self.viewer.show_location(self._data_wanted)
            return
        if self.plot is None or self._vstate["closed"]:
            return
        if self.plot.preparing:  # its plot widget is made on a turn of its own, first
            self._plot_timer.start(0)
            return
        name = self._plot_wanted
        if name is None:  # (a dataset asked for was shown above; a group leaves the plot)
            name = self.plot.default_array()
        if name is not None:
            self.plot.show_array(name)
            location = self.doc.arrays[name].location if name in self.doc.arrays else ""
            if self.viewer is not None and self._plot_wanted is not None and location:
                self.viewer.show_plot(location)  # (the switch to its values, its type)

    def is_settled(self) -> bool:
        """Nothing left to fill in: the models are complete, the plot and trial views idle,
        no page of attributes being read, no rows of the header left to expand.  (The
        tables' DataFrames are built once it is: :attr:`frames`.)"""
        pager = self.attribute_pager
        expanding = self.header_panel is not None and self.header_panel.is_expanding()
        return (self.plots_idle() and self.trials_idle() and not (pager and pager.busy)
                and not expanding)

    def trials_idle(self) -> bool:
        """The trial views show their final state (or there are none)."""
        if self._trials_waiting:
            return False
        if self._trials_slot is not None:  # built once shown (or it cannot be)
            return bool(self.trials_error) or not (self._trials_wanted or self._trials_current())
        return self.trials_panel is None or self.trials_panel.is_idle()

    def plots_idle(self) -> bool:
        """The plot shows its final state: built, nothing read or waiting (``--screenshot``)."""
        if not self.has_views:
            return False
        if self._plot_slot is not None:
            return bool(self.plot_error)
        if self.viewer is not None and not self.viewer.is_idle():
            return False
        if self.plot is None:
            return not self._plot_timer.isActive()
        return not self._plot_timer.isActive() and self.plot.is_idle()

    def _show_initial(self) -> None:
        """Select the node asked for on the command line; the plot shows its array when built."""
        if self.initial_node:
            self.go_to(self.initial_node)

    def go_to(self, location: str) -> None:
        """Show the node at ``location`` as ``FILE::location`` does: selected in the
        object tree (a group expanded), else in the data views, else a
        ``node.not-found`` finding (for the node asked for when the tab opened)."""
        if self.header_panel is None:
            self.initial_node = location  # shown once the views are built
        elif self.header_panel.select_location(location, prefer_raw=True, expand=True):
            self.views.setCurrentWidget(self.header_panel)
        elif self.doc.object_data is not None:  # not listed: the data views decide
            self._show_data(location)
        else:
            self._node_missing(location)

    def _set_ready(self) -> None:
        self.is_ready = True
        self.ready.emit()
        if self.frames is not None:  # for the table's sort and filter
            self.frames.start_when_idle(lambda: self.is_settled() and not self.jobs.busy)

    def _set_status(self, text: str) -> None:
        self.status_text = text
        self.status_message.emit(text)

    def _finished_status(self) -> None:
        doc = self.doc
        missing = any(f.code == "file.not-found" for f in doc.findings)
        parts = ["No such file or folder" if missing else doc.kind_label]
        if self.checksums is not None:
            parts.append(self.checksums.verdict)
        parts.append(self._counts_text())
        if doc.structure_unchecked is not None and "structure: not checked" not in parts[1]:
            parts.append("structure not checked")  # (once: the verdict may say it)
        if self._notice:
            parts.append(self._notice)
        if self.selection is not None and not self.selection.is_empty():
            parts.append(self.selection.text())
        self._set_status(" — ".join(parts))

    def _counts_text(self) -> str:
        """The findings by severity; for a file of another kind than the format checked,
        those about the file apart from those saying it is not of the format."""
        doc = self.doc
        if doc.mismatch is None:
            return severity_counts_text(doc.findings)
        others = [f for f in doc.findings if f.code in doc.mismatch.codes]
        return (f"{severity_counts_text(doc.file_findings())}; as a {doc.mismatch.format}: "
                f"{severity_counts_text(others)} (see Findings)")

    def set_failed(self, message: str, tb: str = "") -> None:
        """The open job itself raised (it should not: ``open_document`` never raises)."""
        doc = Document(self.path)
        doc.report(OPEN_FAILED, f"opening failed: {message}")
        doc.traceback = tb or None
        self.set_document(doc)

    # -- deferred checks ------------------------------------------------
    def start_verification(self) -> None:
        """Run the document's deferred checks, one job each, in order."""
        self._pending = list(self.doc.checks)
        self.verify_state = "running"
        if self.checksums is not None:
            self.checksums.start()
        self._run_next()

    def _run_next(self) -> None:
        if not self._pending or self._cancel.is_set():
            self._verification_over("cancelled" if self._cancel.is_set() else "done")
            return
        check = self._pending.pop(0)
        doc, cancel, state, lock = self.doc, self._cancel, self._vstate, self._vlock

        style = RowStyle.current()

        def work(ctx: JobContext) -> tuple[CheckResult, TreeRows | None]:
            try:
                result = check.run(progress=lambda p: ctx.progress(p.done, p.total, p),
                                   cancelled=lambda: cancel.is_set() or ctx.cancelled)
                return result, tree_rows(result.header, style)  # (None: no new header)
            finally:
                with lock:
                    state["running"] = False
                    if state["closed"]:
                        doc.close()  # the tab closed while this check read the file

        with lock:
            state["running"] = True
        self._set_status(f"{check.title or 'Verifying'}…")
        self.jobs.submit(work, on_done=lambda done: self._check_done(check, *done),
                         on_error=lambda message, tb: self._check_failed(check, message, tb),
                         on_progress=self._verify_progress)

    def _verify_progress(self, done: int, total: int, event: Any) -> None:
        if self._vstate["closed"] or self.checksums is None:
            return
        member = event.member if isinstance(event, Progress) else None
        self.checksums.on_progress(done, total, member)

    def cancel_verification(self) -> None:
        """Ask the running check to stop after its current step; later checks do not run."""
        self._cancel.set()
        if self.checksums is not None:
            self.checksums.cancel.setEnabled(False)
            self.checksums.banner.setText("Cancelling…")

    def _check_done(self, check: DeferredCheck, result: CheckResult,
                    header_rows: TreeRows | None = None) -> None:
        if self._vstate["closed"]:
            return
        doc = self.doc
        doc.apply(check, result)
        self._reset_views(result, header_rows)
        if not result.complete:
            self._pending.clear()
            self._verification_over("cancelled")
            return
        self._run_next()

    def _check_failed(self, check: DeferredCheck, message: str, tb: str) -> None:
        if self._vstate["closed"]:
            return
        title = check.title or "a deferred check"
        self.doc.report(CHECK_FAILED, f"{title} failed unexpectedly: {message}")
        if tb and not self.doc.traceback:
            self.doc.traceback = tb
        self._pending.clear()
        self._verification_over("error")

    def _reset_views(self, result: CheckResult, header_rows: TreeRows | None = None) -> None:
        """Reset every view that shows what ``result`` changed (GUI thread);
        ``header_rows``: the rows of its new header, made on the check's job."""
        doc = self.doc
        if result.header is not None:
            self.header_panel.set_header(doc.header, header_rows)
        for name in [n for n in self.tables if n not in doc.tables]:
            panel = self.tables.pop(name)
            self.views.removeTab(self.views.indexOf(panel))
            panel.deleteLater()
        if doc.checksums is not None:
            if self.checksums is None:
                self._add_checksums()
            self.checksums.model.set_members(list(doc.checksums.members))
        self._array_names = {ref.location: name for name, ref in doc.arrays.items()
                             if ref.location}
        if self.summary is not None and doc.structure is None:
            self.views.removeTab(self.views.indexOf(self.summary))
            self.summary.deleteLater()
            self.summary = None
        if result.structure is not None:  # checked by the verification (large archives)
            self._add_summary()
        if self.plot is not None:
            self.plot.refresh(tuple(result.withdraw_arrays))
        if result.trials is not None and self._trials_waiting:
            self._add_trials()
        if result.findings:
            self.findings_changed.emit()

    def _verification_over(self, state: str) -> None:
        self.verify_state = state
        if self._trials_waiting:  # cancelled or failed before the trial IDs came
            self._add_trials(wait=False)
        if self.plot is not None:
            self.plot.checks_over()  # a plot waiting for a check's result reads itself
        waiting, self._unloadable = self._unloadable, []
        for stim, message in waiting:
            self._stimulus_failed(stim, message)
        if self.checksums is not None:
            members = list(self.doc.checksums.members) if self.doc.checksums is not None else []
            self.checksums.finish(members, state)
            self._note_errors()
        self._finished_status()
        self.findings_changed.emit()
        self._set_ready()

    def _note_errors(self) -> None:
        failed = {m.name for m in self.checksums.model.members() if m.status in FAILED}
        integrity = [f for f in self.doc.findings
                     if f.severity == "error" and f.scope == "integrity"]
        n = sum(1 for f in integrity if f.location not in failed)
        structure = sum(1 for f in self.doc.findings
                        if f.severity == "error" and f.scope != "integrity")
        notes = []
        if n:
            errors = count_text(n, "other error finding" if failed else "error finding")
            notes.append(f"{errors} (see Findings)")
        if self.doc.structure_unchecked is not None:
            notes.append("structure: not checked (see Findings)")
        elif structure:
            notes.append(f"structure: {count_text(structure, 'error')}")
        note = " · ".join(notes)
        self.checksums.extra_note = note
        self.checksums.set_state(self.checksums.state)

    # -- selection → detail pane / plot ----------------------------------
    def _node_selected(self, n: Node) -> None:
        self.detail.show()
        self.detail.show_node(n)
        name = self._array_names.get(n.location)
        if name is not None:
            self._plot_array(name)
            self._data_wanted = None
            if self.viewer is not None:
                self.viewer.show_plot(n.location)
        elif n.kind in DATA_KINDS and n.location and self.doc.object_data is not None:
            self._show_data(n.location)

    def open_target(self, target: LinkTarget) -> None:
        """Follow a link: a node of this file is selected here; one of another file
        is opened by the window (``open_requested``), in a tab at that node."""
        if not target.in_this_file:
            self.open_requested.emit(target.address())
        elif not self.select_location(target.path):
            self._set_status(f"{target.path} is not a node of this file")

    def _plot_location(self, location: str) -> None:
        """The viewer's switch asked for the plot of the array at ``location``."""
        name = self._array_names.get(location)
        if name is not None and self.viewer is not None:
            self._plot_array(name)
            self.viewer.show_plot(location)

    def _show_data(self, location: str) -> None:
        """The values of the dataset or attribute at ``location`` (once the views exist)."""
        self._data_wanted = location
        if self.viewer is not None and not self._plot_timer.isActive():
            self.viewer.show_location(location)

    def _node_missing(self, location: str) -> None:
        """``FILE::/path`` named nothing in the file: a warning finding naming it."""
        if location != self.initial_node:
            return
        self._notice = f"no node {location!r} in this file"
        self._view_finding(NODE_NOT_FOUND.finding(
            f"{location} (asked for as FILE::{location}) is not a node of this file", location))

    def _view_finding(self, finding: Finding) -> None:
        """A view could not open or read a node: its finding, once; the status says it
        (unless a check is running: the status it ends with does)."""
        if not any(f.code == finding.code and f.location == finding.location
                   for f in self.doc.findings):
            self.doc.findings.add(finding)
            self.findings_changed.emit()
        if self.verify_state != "running":
            self._finished_status()

    def check_file_on_disk(self) -> None:
        """Ask, on a job, whether the file changed on disk since it was opened; if it
        did, the document gains ``file.changed`` and the tab offers Reload."""
        doc = self.doc
        if doc is None or doc.snapshot_check is None or self.reload_bar is not None \
                or self._vstate["closed"]:
            return
        self.jobs.submit(lambda ctx, d=doc: d.changed_on_disk(),
                         on_done=lambda message, d=doc: self._file_changed(d, message),
                         key=f"file-changed:{id(self)}")

    def _file_changed(self, doc: Document, message: str | None) -> None:
        """GUI thread: record what :meth:`check_file_on_disk` found."""
        if message is None or doc is not self.doc or self._vstate["closed"]:
            return
        if doc.note_changed(message) is not None:
            self.findings_changed.emit()

    def _offer_reload(self) -> None:
        """Show the Reload bar once a finding says the file changed on disk since it was
        opened (any format: ``file.changed``); nothing more is read from it here."""
        if self.reload_bar is not None or self.doc is None:
            return
        changed = next((f for f in self.doc.findings if f.code == FILE_CHANGED.code), None)
        if changed is None:
            return
        from inspector.ui.reload_bar import ReloadBar

        self.reload_bar = ReloadBar(changed.message, self)
        self.reload_bar.reload_requested.connect(self.reload_requested)
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(0, self.reload_bar)

    def _cell_selected(self, title: str, value: Any, extra: str) -> None:
        self.detail.show_value(title, value, extra)

    def _member_selected(self, name: str) -> None:
        row = self.checksums.model.row_of(name)
        m = self.checksums.model.member(row)
        self.detail.show_text(name, f"status: {m.status}\n"
                                    f"recorded: {m.recorded or '(not listed)'}\n"
                                    f"computed: {m.computed or '(not computed)'}")
        arr = self._array_names.get(name)
        if arr is not None:
            self._plot_array(arr)

    def _plot_array(self, name: str) -> None:
        """Plot array ``name`` now, or as the first plot once the plot panel exists."""
        self._plot_wanted = name
        if self.plot is not None and not self._plot_timer.isActive():
            self.plot.show_array(name)

    def _stimulus_selected(self, stim: Stimulus) -> None:
        self.detail.show_text(f"stimulus {value_text(stim.stim_id)}",
                              f"ID: {value_text(stim.stim_id)} ({value_type_name(stim.stim_id)})\n"
                              f"stored as: {stim.kind}\nlocation: {stim.location}")

    def _stimulus_failed(self, stim: Stimulus, message: str) -> None:
        """A thumbnail could not be decoded: a finding, unless a reader finding says so.

        While the deferred checks run (they may decode the same image and
        report it themselves), the failure waits for them to finish.
        """
        if self.verify_state == "running":
            self._unloadable.append((stim, message))
            return
        doc = self.doc
        if doc is None:
            return
        if not any(f.location == stim.location and f.severity != "info" for f in doc.findings):
            doc.report(STIMULUS_UNLOADABLE,
                       f"stimulus {value_text(stim.stim_id)} cannot be loaded: {message}",
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
        if self._select_table_column(location):
            return True
        from inspector.ui.scan_link import select_scan_of

        if select_scan_of(self, location):  # a finding about one scan: that scan
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

    def _select_table_column(self, location: str) -> bool:
        for panel in self.tables.values():
            if not (panel.location and location.startswith(panel.location + "/")):
                continue
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
        return False

    def findings(self) -> list[Finding]:
        """The document's findings (empty while it opens)."""
        return list(self.doc.findings) if self.doc else []

    def close_document(self) -> None:
        """Cancel the checks and release the file (now, or when the running check stops)."""
        self._cancel.set()
        self._pending.clear()
        if isinstance(self.path, RemotePath):
            self.path.cancel()
        self._shutdown_views()
        with self._vlock:
            self._vstate["closed"] = True
            running = self._vstate["running"]
        if self.doc is not None and not running:
            self.doc.close()

    def _shutdown_views(self) -> None:
        """Stop the views' background work (the tab closes or shows another group)."""
        for view in (self.stimuli, self.viewer, self.trials_panel, self.trial_links):
            if view is not None:
                view.shutdown()
