"""The views of a document tab, chosen in one place.

A document tab always shows the document's header and its tables; every other
view is a :class:`TabView` listed in :data:`TAB_VIEWS`: it says whether the
document offers what it shows (:attr:`TabView.wanted`, reading capabilities
only) and adds its tab (:attr:`TabView.add`, GUI thread, no file I/O).  The
tab asks :func:`views_for` and adds what it returns, in :attr:`TabView.order`.
The views of one array (the plot's place) are chosen the same way, in
:mod:`inspector.ui.plots.registry`.

Adding a view: one module with its widget and ``TabView``, one line in
:data:`TAB_VIEWS` (or :func:`register` from a plug-in).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from inspector.formats.document import Document
from inspector.ui.checksum_panel import ChecksumPanel
from inspector.ui.table_frames import TableFrames
from inspector.ui.tree_panel import TreePanel, expand_within
from inspector.ui.trials_tab import TrialsTab
from inspector.ui.turns import OffThread, Steps

#: A :class:`~inspector.ui.document_tab.DocumentTab` (which imports this module).
Tab = Any


@dataclass(frozen=True)
class TabView:
    """One view of a document tab.

    Attributes:
        title: its tab's title (a view may add a count to it).
        order: its place among the tabs (smaller first; the header is 0, the
            tables 10).
        wanted: ``wanted(doc)``: True when ``doc`` offers what the view shows.
        add: ``add(tab)``: builds the view and adds its tab to ``tab.views``.
    """

    title: str
    order: int
    wanted: Callable[[Document], bool]
    add: Callable[[Tab], None]


#: Tab titles of tables with a well-known name (others are shown under their name).
TABLE_TITLES = {"trial_meta": "Trial metadata", "scans": "Scans", "groups": "Groups"}


def _columns(table: Any, _ctx: object) -> Any:
    """The column arrays of ``table``, on a job (:func:`~.table_model.column_arrays`)."""
    from inspector.models.table_model import column_arrays

    return column_arrays(table)


def table_title(name: str) -> str:
    """The tab title of ``doc.tables[name]``: :data:`TABLE_TITLES`, else the name itself."""
    return TABLE_TITLES.get(name, name)


def table_steps(tab: Tab) -> Steps:
    """One table view a turn (a table of a few hundred rows sizes its columns from
    their text, some tens of milliseconds), its columns made on a job first
    (:func:`~inspector.models.table_model.column_arrays`).  A table of plain
    columns is shown without pandas; its DataFrame is built later
    (``tab.frames``: once the tab has stayed idle, or when the trial views ask)."""
    doc = tab.doc
    if not doc.tables:
        return
    from inspector.ui.table_panel import TablePanel

    tab.frames = TableFrames(doc.tables.values(), tab.jobs, tab)
    for name, table in doc.tables.items():
        title = table_title(name)
        columns = yield OffThread(partial(_columns, table))
        panel = TablePanel(table, title, doc.table_locations.get(name, ""), tab, columns)
        panel.cell_selected.connect(tab.cell_selected)
        tab.tables[name] = panel
        tab.views.addTab(panel, title)
        yield


def add_provenance(tab: Tab) -> None:
    """The provenance tree (vision records, import and export records)."""
    assert tab.doc is not None and tab.doc.provenance is not None and tab.views is not None
    tab.provenance = TreePanel(tab.doc.provenance, "Provenance", tab)
    expand_within(tab.provenance.view, 2)
    tab.provenance.view.setColumnWidth(0, 260)
    tab.provenance.node_selected.connect(tab.node_selected)
    tab.views.addTab(tab.provenance, "Provenance")


def add_summary(tab: Tab) -> None:
    """The Summary tab of the experiment's structure (once it is checked; once)."""
    structure = tab.doc.structure if tab.doc is not None else None
    if structure is None or tab.summary is not None or tab.views is None:
        return
    tab.summary = TreePanel(structure.tree(), "Summary", tab)
    expand_within(tab.summary.view, 1)
    tab.summary.view.setColumnWidth(0, 260)
    tab.summary.node_selected.connect(tab.node_selected)
    tab.views.addTab(tab.summary, "Summary")


def add_stimuli(tab: Tab) -> None:
    """The stimulus images, decoded as they scroll into view."""
    from inspector.ui.stimuli_panel import StimuliPanel

    assert tab.doc is not None and tab.views is not None
    tab.stimuli = StimuliPanel(tab.doc.stimuli, tab.jobs, tab)
    tab.stimuli.load_failed.connect(tab.stimulus_failed)
    tab.stimuli.stimulus_selected.connect(tab.stimulus_selected)
    tab.views.addTab(tab.stimuli, f"Stimuli ({len(tab.doc.stimuli)})")


def add_trials(tab: Tab) -> None:
    """The trial selection and the Trials tab (:class:`~inspector.ui.trials_tab.TrialsTab`)."""
    tab.trials_tab = TrialsTab(tab)
    tab.trials_tab.add()


def add_checksums(tab: Tab) -> None:
    """The checksum table of an archive, shown first (the verdict is what it is about)."""
    assert tab.doc is not None and tab.doc.checksums is not None and tab.views is not None
    tab.checksums = ChecksumPanel(list(tab.doc.checksums.members), tab)
    tab.checksums.cancel_requested.connect(tab.cancel_verification)
    tab.checksums.member_selected.connect(tab.member_selected)
    tab.views.addTab(tab.checksums, "Checksums")
    if not tab.initial_node and tab.failure is None:
        tab.views.setCurrentWidget(tab.checksums)


PROVENANCE = TabView("Provenance", 30,
                     lambda doc: doc.provenance is not None and bool(doc.provenance.children),
                     add_provenance)
SUMMARY = TabView("Summary", 40, lambda doc: doc.structure is not None, add_summary)
STIMULI = TabView("Stimuli", 50, lambda doc: bool(doc.stimuli), add_stimuli)
TRIALS = TabView("Trials", 60, lambda doc: doc.trials is not None, add_trials)
CHECKSUMS = TabView("Checksums", 70, lambda doc: doc.checksums is not None, add_checksums)

#: Every view of a document tab beyond its header and tables.
TAB_VIEWS: list[TabView] = [
    PROVENANCE,
    SUMMARY,
    STIMULI,
    TRIALS,
    CHECKSUMS,
]


def register(view: TabView) -> None:
    """Offer ``view`` in every document tab whose document it wants (a plug-in's one line)."""
    TAB_VIEWS.append(view)


def views_for(doc: Document) -> list[TabView]:
    """The views ``doc`` offers, in their order (the order listed on a tie)."""
    return sorted((v for v in TAB_VIEWS if v.wanted(doc)), key=lambda v: v.order)
