"""One tab per open file: the document's views, chosen by its capabilities.

Layout: on the left a tab widget of the views the document offers (Header |
its tables | Provenance | Stimuli | Checksums); on the right the plot panel
(when the document has arrays) above the detail pane.  A file that could not
be opened shows a page saying what failed, where and what to try
(:mod:`inspector.models.open_failure`).

Deferred checks (``doc.checks``) run in a :class:`~inspector.ui.check_session.CheckSession`;
their progress fills in the checksum table, and each result, applied on the GUI
thread, resets the views it changed (docs/architecture.md, "Deferred work").  Nothing here
reads a format
name.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.capabilities import CheckResult
from inspector.formats.core_rules import (
    NODE_NOT_FOUND,
    OPEN_FAILED,
    STIMULUS_UNLOADABLE,
)
from inspector.formats.document import Document, Finding, Node, Stimulus
from inspector.formats.nodes.node import LinkTarget
from inspector.formats.remote.path import RemotePath, as_source
from inspector.jobs import JobRunner
from inspector.models.node_rows import RowStyle, TreeRows, tree_rows
from inspector.models.open_failure import open_failure
from inspector.models.value_text import value_text, value_type_name
from inspector.runtime import preload
from inspector.ui import file_watch, tab_navigation, tab_views
from inspector.ui.attribute_pages import AttributePager
from inspector.ui.check_session import CheckSession, VerifyState
from inspector.ui.checksum_panel import ChecksumPanel
from inspector.ui.detail_pane import DetailPane
from inspector.ui.failure_page import FailurePage
from inspector.ui.group_switch import GroupSwitch
from inspector.ui.opening_page import OpeningPage
from inspector.ui.scan_link import link_scans
from inspector.ui.stimulus_link import link_stimuli
from inspector.ui.tab_layout import lay_out_tab
from inspector.ui.tab_status import checksum_note, status_line
from inspector.ui.table_frames import TableFrames
from inspector.ui.tree_panel import HeaderPanel, TreePanel, make_tree_view
from inspector.ui.trials_tab import TRIALS
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
    from inspector.ui.trials_tab import TrialsTab

__all__ = ["TRIALS", "DocumentTab", "make_tree_view"]

#: The data views of any dataset or attribute (imported off the GUI thread, with the plots).
DATA_VIEWS = "inspector.ui.data.viewer"
#: Tree node kinds whose location may hold values (a link leads to a dataset too).
DATA_KINDS = ("dataset", "attribute", "link")

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
        self.group_switch = GroupSwitch(self)
        self.session = CheckSession(jobs, self)
        self.session.status.connect(self.set_status)
        self.session.progress.connect(self._verify_progress)
        self.session.applied.connect(self._reset_views)
        self.session.over.connect(self._verification_over)
        self._init_view_state()
        self._plot_timer = QTimer(self)
        self._plot_timer.setSingleShot(True)
        self._plot_timer.timeout.connect(self._show_first_array)
        self._page: QWidget | None = None
        self._stack = QStackedWidget(self)
        self._opening = OpeningPage(self.path)
        self._stack.addWidget(self._opening)
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
        self.session.reset()
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
        self.trials_tab: TrialsTab | None = None
        self.frames: TableFrames | None = None  # the tables' DataFrames, built once idle
        self.plot_error = ""
        self._plot_slot: QLabel | None = None
        self._plot_wanted: str | None = None
        self._array_names: dict[str, str] = {}
        self._notice = ""
        self._unloadable: list[tuple[Stimulus, str]] = []

    # -- typed access to what the views being built or shown rely on --------------
    @property
    def _doc(self) -> Document:
        """The document (delivered: the views exist or are being built)."""
        assert self.doc is not None
        return self.doc

    @property
    def _views(self) -> QTabWidget:
        """The view tabs (made by the first build step)."""
        assert self.views is not None
        return self.views

    @property
    def _detail(self) -> DetailPane:
        """The detail pane (made when the tab is laid out)."""
        assert self.detail is not None
        return self.detail

    @property
    def cancel_open(self) -> QPushButton | None:
        """Cancel on the opening page of a URL (None for a local file)."""
        return self._opening.cancel_open

    @property
    def tree_view(self) -> QTreeView | None:
        """The object tree's view (None before the views are built or without a tree)."""
        raw = self.header_panel.raw if self.header_panel else None
        return raw.view if raw else None

    # -- population -----------------------------------------------------
    def set_document(self, doc: Document) -> None:
        """Build the views of ``doc`` (GUI thread; no file I/O here), one piece an
        event-loop turn (:meth:`_build_steps`), so that no turn holds the GUI
        thread long (docs/architecture.md, "Contracts").  ``views_ready`` is
        emitted when the last piece is shown; ``has_views`` is then true."""
        self._opening.stop()
        if self.session.closed:
            doc.close()
            return
        self.doc = self.session.doc = doc
        self._build(self._build_steps())

    def _build(self, steps: Steps) -> None:
        """Run ``steps`` one an event-loop turn, while this tab is open
        (:func:`~inspector.ui.turns.run_in_turns`)."""
        run_in_turns(self, steps, jobs=self.jobs, stopped=lambda: self.session.closed)

    def _build_steps(self) -> Steps:
        """The views of ``self.doc``; each ``yield`` ends an event-loop turn.  The
        busy page stays in front until the last piece is laid out."""
        yield from self._add_header()
        yield from tab_views.table_steps(self)
        for view in tab_views.views_for(self._doc):  # (docs/architecture.md, "Views")
            view.add(self)
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
        doc = self._doc
        self.export_offered = doc.export is not None
        self.views = QTabWidget(self)
        self._views.setDocumentMode(True)
        self._views.setObjectName("documentViews")
        failure = open_failure(doc)
        if failure is not None:
            self.failure = FailurePage(failure, self)
            self._views.addTab(self.failure, "Could not open")
        style = RowStyle.current()
        header_rows = yield OffThread(lambda _ctx: tree_rows(doc.header, style))
        self.header_panel = HeaderPanel(doc.header, None, doc.tree_title, self,
                                        header_rows=header_rows)
        self.header_panel.node_selected.connect(self.node_selected)
        self.header_panel.open_target.connect(self.open_target)
        self.attribute_pager: AttributePager | None = None
        self._views.addTab(self.header_panel, "Header")
        yield
        if doc.tree is not None:
            rows = yield OffThread(lambda _ctx: tree_rows(doc.tree, style))
            self.header_panel.add_tree(doc.tree, doc.tree_title, rows)
            if doc.object_data is not None and self.header_panel.raw is not None:
                self.attribute_pager = AttributePager(self.header_panel.raw, doc.object_data,
                                                      self.jobs, self)
            yield

    def _start_checks(self) -> None:
        """Run the deferred checks, or, with none, show the final state at once."""
        doc = self._doc
        if doc.checks:
            self.start_verification()
            return
        if self.checksums is not None and doc.checksums is not None:
            self.checksums.finish(list(doc.checksums.members), "done")
            self._note_errors()
        self._finished_status()
        self._set_ready()

    def _lay_out(self) -> None:
        doc = self._doc
        self._array_names = {ref.location: name for name, ref in doc.arrays.items() if ref.location}
        if doc.arrays or doc.object_data is not None:
            # The plot comes once pyqtgraph is imported off the GUI thread (ui.preload).
            self._plot_slot = QLabel("Preparing the plot…")
            self._plot_slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.detail = DetailPane(self)
        self._detail.open_target.connect(self.open_target)
        split = lay_out_tab(self._views, self._detail, self._plot_slot)  # the plot: half and more
        if self.failure is not None:
            self._detail.hide()  # nothing to detail on the failure page; shown on a selection
        self.splitter = split
        self.right = split  # the splitter holding the plot's place
        self._page = self.group_switch.with_group_bar(split)
        self._stack.addWidget(self._page)
        self._stack.setCurrentWidget(self._page)
        self.setFocusProxy(self._views)  # keyboard: the tab hands focus to its views

    def _plot_module(self) -> str:
        """The module of the views in the plot's place: the data views, else the plots."""
        return DATA_VIEWS if self._doc.object_data is not None else preload.PLOTS

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

    def _plots_imported(self, module: ModuleType) -> None:
        """The plots (and, for documents with object data, the data views: ``module`` is
        then :data:`DATA_VIEWS`) were imported after the tab was laid out: they take the
        placeholder's place, on event-loop turns of their own (:meth:`_plot_steps`)."""
        if self.session.closed or self._plot_slot is None or self.doc is None:
            return
        self._build(self._plot_steps(module))

    def _plot_steps(self, module: ModuleType) -> Steps:
        """The plot panel on one turn, the data viewer around it on the next, which puts
        them in the placeholder's place.  The first array (or the node asked for) is
        shown on the turn after (``_plot_timer``)."""
        shown = None
        if self._doc.arrays:
            plots = preload.loaded(preload.PLOTS)
            assert plots is not None  # (imported before the steps were run)
            self.plot = plots.PlotPanel(self._doc, self.jobs, self)
            self.plot.finding.connect(self._view_finding)
            link_scans(self)  # one scan selection for the Scans table, the scan list and the plot
            link_stimuli(self)  # and one choice of stimuli for the Stimuli tab and the features
            shown = self.plot
            if self._doc.object_data is not None:
                yield  # (a child made after the tab was shown stays hidden until placed)
        if self._doc.object_data is not None:
            shown = self.viewer = module.NodeViewer(
                self._doc.object_data, self.plot, self.detail, self.jobs, self,
                plotted=lambda location: location in self._array_names)
            self.viewer.plot_requested.connect(self._plot_location)
            self.viewer.data.finding.connect(self._view_finding)
            self.viewer.data.node_missing.connect(self._node_missing)
        if self._plot_slot is None or shown is None:
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
                not self.session.closed:
            self.viewer.show_location(self._data_wanted)
            return
        if self.plot is None or self.session.closed:
            return
        if self.plot.preparing:  # its plot widget is made on a turn of its own, first
            self._plot_timer.start(0)
            return
        name = self._plot_wanted
        if name is None:  # (a dataset asked for was shown above; a group leaves the plot)
            name = self.plot.default_array()
        if name is not None:
            self.plot.show_array(name)
            location = self._doc.arrays[name].location if name in self._doc.arrays else ""
            if self.viewer is not None and self._plot_wanted is not None and location:
                self.viewer.show_plot(location)  # (the switch to its values, its type)

    def choose_group(self, key: str) -> None:
        """Show group ``key`` of the source instead of the current one
        (:meth:`GroupSwitch.choose <inspector.ui.group_switch.GroupSwitch.choose>`)."""
        self.group_switch.choose(key)

    def replace_document(self, new: Document) -> None:
        """Show ``new`` (another group of the same source) instead of the current document;
        the view shown now stays shown when the new document has it."""
        current = self._views.tabText(self._views.currentIndex()) if self.views else ""
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
        assert self.views is not None
        titles = [self._views.tabText(i) for i in range(self._views.count())]
        if title in titles:
            self._views.setCurrentIndex(titles.index(title))
        self.findings_changed.emit()

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
        return self.trials_tab is None or self.trials_tab.is_idle()

    @property
    def trials_error(self) -> str:
        """Why the trial views are not available ("" when they are or there are none)."""
        return self.trials_tab.error if self.trials_tab is not None else ""

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
            self._views.setCurrentWidget(self.header_panel)
        elif self._doc.object_data is not None:  # not listed: the data views decide
            self._show_data(location)
        else:
            self._node_missing(location)

    def _set_ready(self) -> None:
        self.is_ready = True
        self.ready.emit()
        if self.frames is not None:  # for the table's sort and filter
            self.frames.start_when_idle(lambda: self.is_settled() and not self.jobs.busy)

    def set_status(self, text: str) -> None:
        self.status_text = text
        self.status_message.emit(text)

    def _finished_status(self) -> None:
        """The status line once nothing runs (:func:`~inspector.ui.tab_status.status_line`)."""
        self.set_status(status_line(self._doc, self.checksums, self._notice, self.selection))

    def set_failed(self, message: str, tb: str = "") -> None:
        """The open job itself raised (it should not: ``open_document`` never raises)."""
        doc = Document(self.path)
        doc.report(OPEN_FAILED, f"opening failed: {message}")
        doc.traceback = tb or None
        self.set_document(doc)

    # -- deferred checks ------------------------------------------------
    @property
    def verify_state(self) -> VerifyState:
        """Where the document's deferred checks are (:class:`CheckSession`)."""
        return self.session.state

    def start_verification(self) -> None:
        """Run the document's deferred checks, one job each, in order (:attr:`session`)."""
        if self.checksums is not None:
            self.checksums.start()
        self.session.start()

    def _verify_progress(self, done: int, total: int, member: Any) -> None:
        if self.checksums is not None:
            self.checksums.on_progress(done, total, member)

    def cancel_verification(self) -> None:
        """Ask the running check to stop after its current step; later checks do not run."""
        self.session.cancel()
        if self.checksums is not None:
            self.checksums.cancel.setEnabled(False)
            self.checksums.banner.setText("Cancelling…")

    def _reset_views(self, result: CheckResult, header_rows: TreeRows | None = None) -> None:
        """Reset every view that shows what ``result`` changed (GUI thread);
        ``header_rows``: the rows of its new header, made on the check's job."""
        doc = self._doc
        if result.header is not None:
            assert self.header_panel is not None
            self.header_panel.set_header(doc.header, header_rows)
        for name in [n for n in self.tables if n not in doc.tables]:
            panel = self.tables.pop(name)
            self._views.removeTab(self._views.indexOf(panel))
            panel.deleteLater()
        if doc.checksums is not None:
            if self.checksums is None:
                tab_views.add_checksums(self)
            assert self.checksums is not None
            self.checksums.model.set_members(list(doc.checksums.members))
        self._array_names = {ref.location: name for name, ref in doc.arrays.items()
                             if ref.location}
        if self.summary is not None and doc.structure is None:
            self._views.removeTab(self._views.indexOf(self.summary))
            self.summary.deleteLater()
            self.summary = None
        if result.structure is not None:  # checked by the verification (large archives)
            tab_views.add_summary(self)
        if self.plot is not None:
            self.plot.refresh(tuple(result.withdraw_arrays))
        if result.trials is not None and self.trials_tab is not None and self.trials_tab.waiting:
            self.trials_tab.add()
        if result.findings:
            self.findings_changed.emit()

    def _verification_over(self, state: VerifyState) -> None:
        if self.trials_tab is not None and self.trials_tab.waiting:  # no trial IDs came
            self.trials_tab.add(wait=False)
        if self.plot is not None:
            self.plot.checks_over()  # a plot waiting for a check's result reads itself
        waiting, self._unloadable = self._unloadable, []
        for stim, message in waiting:
            self.stimulus_failed(stim, message)
        if self.checksums is not None:
            members = list(self._doc.checksums.members) if self._doc.checksums is not None else []
            self.checksums.finish(members, state)
            self._note_errors()
        self._finished_status()
        self.findings_changed.emit()
        self._set_ready()

    def _note_errors(self) -> None:
        assert self.checksums is not None and self.doc is not None
        self.checksums.extra_note = checksum_note(self.doc, self.checksums.model.members())
        self.checksums.set_state(self.checksums.state)

    # -- selection → detail pane / plot ----------------------------------
    def node_selected(self, n: Node) -> None:
        self._detail.show()
        self._detail.show_node(n)
        name = self._array_names.get(n.location)
        if name is not None:
            self._plot_array(name)
            self._data_wanted = None
            if self.viewer is not None:
                self.viewer.show_plot(n.location)
        elif n.kind in DATA_KINDS and n.location and self._doc.object_data is not None:
            self._show_data(n.location)

    def open_target(self, target: LinkTarget) -> None:
        """Follow a link: a node of this file is selected here; one of another file
        is opened by the window (``open_requested``), in a tab at that node."""
        if not target.in_this_file:
            self.open_requested.emit(target.address())
        elif not self.select_location(target.path):
            self.set_status(f"{target.path} is not a node of this file")

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
                   for f in self._doc.findings):
            self._doc.findings.add(finding)
            self.findings_changed.emit()
        if self.verify_state != "running":
            self._finished_status()

    def check_file_on_disk(self) -> None:
        """Ask, on a job, whether the file changed on disk since it was opened
        (:func:`~inspector.ui.file_watch.check_file_on_disk`)."""
        file_watch.check_file_on_disk(self)

    def _offer_reload(self) -> None:
        file_watch.offer_reload(self)

    def cell_selected(self, title: str, value: Any, extra: str) -> None:
        self._detail.show_value(title, value, extra)

    def member_selected(self, name: str) -> None:
        assert self.checksums is not None
        row = self.checksums.model.row_of(name)
        m = self.checksums.model.member(row)
        self._detail.show_text(name, f"status: {m.status}\n"
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

    def stimulus_selected(self, stim: Stimulus) -> None:
        self._detail.show_text(f"stimulus {value_text(stim.stim_id)}",
                              f"ID: {value_text(stim.stim_id)} ({value_type_name(stim.stim_id)})\n"
                              f"stored as: {stim.kind}\nlocation: {stim.location}")

    def stimulus_failed(self, stim: Stimulus, message: str) -> None:
        """A thumbnail could not be decoded: a finding, unless a reader finding says so.

        While the deferred checks run (they may decode the same image and
        report it themselves), the failure waits for them to finish.
        """
        if self.verify_state == "running":
            self._unloadable.append((stim, message))
            return
        doc = self._doc
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
        return tab_navigation.focus_filter(self)

    def select_location(self, location: str) -> bool:
        """Select the node, member, stimulus or table column a finding concerns
        (:func:`~inspector.ui.tab_navigation.select_location`)."""
        return tab_navigation.select_location(self, location)

    def findings(self) -> list[Finding]:
        """The document's findings (empty while it opens)."""
        return list(self._doc.findings) if self.doc else []

    def close_document(self) -> None:
        """Cancel the checks and release the file (now, or when the running check stops)."""
        if isinstance(self.path, RemotePath):
            self.path.cancel()
        self._shutdown_views()
        self.session.close()

    def _shutdown_views(self) -> None:
        """Stop the views' background work (the tab closes or shows another group)."""
        for view in (self.stimuli, self.viewer, self.trials_panel, self.trial_links):
            if view is not None:
                view.shutdown()
