"""The Trials tab of a document tab: the trial selection, and the trial views built
the first time the tab is shown.

The trial views import pyqtgraph: a placeholder holds their tab until it is
first shown and ``inspector.ui.trials`` is imported off the GUI thread
(:mod:`inspector.runtime.preload`).  Registered in :mod:`inspector.ui.tab_views`.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel
from shiboken6 import isValid

from inspector.runtime import preload
from inspector.ui.turns import run_in_turns

if TYPE_CHECKING:
    from inspector.ui.trials import TrialsPanel

#: A :class:`~inspector.ui.document_tab.DocumentTab` (which imports this module).
Tab = Any
#: The package of the trial views (pyqtgraph), imported off the GUI thread.
TRIALS = "inspector.ui.trials"
#: The modules the trial selection, its links and the Representations tab's offer need:
#: imported off the GUI thread when the window has not warmed up yet (about 35 ms of
#: imports, mostly dataclasses, once opened as ``inspector FILE``).
SELECTION_MODULES = ("inspector.models.selection", "inspector.ui.trial_link",
                     "inspector.ui.representations")


class TrialsTab(QObject):
    """The trial selection and the Trials tab of ``tab`` (its attributes ``selection``,
    ``trial_links`` and ``trials_panel`` are set here).

    Attributes:
        slot: the placeholder in the Trials tab's place until the views are built.
        waiting: the views wait for a deferred check to bring the trial IDs.
        importing: the selection waits for :data:`SELECTION_MODULES` to be imported.
        wanted: the Trials tab was shown: its views are to be built.
        error: why the trial views are not available ("" when they are).
    """

    def __init__(self, tab: Tab) -> None:
        super().__init__(tab)
        self.tab = tab
        self.slot: QLabel | None = None
        self.waiting = False
        self.importing = False
        self.wanted = False
        self.error = ""

    def is_idle(self) -> bool:
        """The trial views show their final state (or there are none)."""
        if self.waiting or self.importing:
            return False
        if self.slot is not None:  # built once shown (or it cannot be)
            return bool(self.error) or not (self.wanted or self.current())
        panel = self.tab.trials_panel
        return panel is None or panel.is_idle()

    def add(self, wait: bool = True) -> None:
        """The trial selection, shared by the table, the stimuli and the Trials tab
        (epochs or continuous recordings only: patterns have no time axis).  The
        trial views import pyqtgraph: a placeholder holds their tab until it is
        first shown and ``inspector.ui.trials`` is imported off the GUI thread
        (ui.preload: the window's warm-up imports it, or the first show asks for
        it); only then are the views built and their averages run.
        While a deferred check is to bring the trials' stimulus IDs
        (``stim_ids_pending``), they wait for its result (``wait``)."""
        if self.importing:
            return  # (the import's callback adds them)
        doc = self.tab.doc
        if doc.trials is None:
            return
        self.waiting = wait and doc.trials.stim_ids_pending and bool(doc.checks)
        if self.waiting:
            return
        missing = next((m for m in SELECTION_MODULES if preload.loaded(m) is None), None)
        if missing is not None:  # a window not warmed up yet: import them off the GUI thread
            self.importing = True
            preload.when_imported(missing, lambda _module: self._resume(),
                                  lambda _message: self._resume(failed=True))
            return
        self._add_selection()

    def _resume(self, failed: bool = False) -> None:
        """A module of :data:`SELECTION_MODULES` is imported: add the selection (or import
        the next one).  A failed import is repeated on the GUI thread, where it raises."""
        if not isValid(self):
            return
        self.importing = False
        if failed:
            self._add_selection()
        else:
            self.add(wait=False)

    def _add_selection(self) -> None:
        """The trial selection, its links, and the Trials and Representations tabs."""
        tab = self.tab
        doc = tab.doc
        from inspector.models.selection import TrialSelection
        from inspector.ui.trial_link import TrialLinks

        tab.selection = TrialSelection.for_document(doc, tab)
        if tab.selection is None:
            return
        table = doc.trial_table()
        meta = next((p for p in tab.tables.values() if p.model.table is table), None)
        tab.trial_links = TrialLinks(doc, tab.jobs, tab.selection, meta, tab.stimuli, tab)
        tab.selection.changed.connect(
            lambda _source: tab._finished_status() if tab.verify_state != "running" else None)
        if doc.trials.data_mode in ("epochs", "continuous") and doc.neural_array() is not None:
            self.slot = QLabel("Preparing the trial views…")
            self.slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
            views = tab.views
            assert views is not None  # (set_document made it)
            views.addTab(self.slot, "Trials")  # (its module: MainWindow.warm_up)
            views.currentChanged.connect(self._shown)
        from inspector.ui.representations import offer_tab

        offer_tab(tab)  # the Representations tab, when there are vision records

    def _shown(self, *_args: Any) -> None:
        """The current view changed: the first time it is the Trials placeholder, its
        views are built, on a later event-loop turn (the placeholder is drawn first)."""
        if self.wanted or not self.current():
            return
        self.wanted = True
        QTimer.singleShot(0, self, lambda: preload.when_imported(
            TRIALS, self._imported, self._failed))

    def current(self) -> bool:
        tab = self.tab
        slot = self.slot
        return slot is not None and tab.views is not None and tab.views.currentWidget() is slot

    def _imported(self, trials: ModuleType) -> None:
        """The trial views are importable: once the tables' DataFrames are built (the
        views group trials by their columns), the views are built, one plot an
        event-loop turn (``trials.build_in_steps``), and take the placeholder's place."""
        tab = self.tab
        if self._gone():
            return
        if tab.frames is not None and not tab.frames.built:
            tab.frames.when_built(lambda: self._imported(trials))
            return
        run_in_turns(tab, trials.build_in_steps(tab.doc, tab.jobs, tab.selection, tab),
                     on_result=self._built, stopped=self._gone)

    def _gone(self) -> bool:
        tab = self.tab
        return tab.session.closed or self.slot is None or tab.doc is None

    def _built(self, panel: TrialsPanel) -> None:
        tab = self.tab
        slot = self.slot
        assert slot is not None and tab.views is not None  # (else the drive stopped)
        index = tab.views.indexOf(slot)
        current = tab.views.currentIndex() == index
        tab.trials_panel = panel
        tab.views.removeTab(index)
        tab.views.insertTab(index, tab.trials_panel, "Trials")
        if current:
            tab.views.setCurrentIndex(index)
        self.slot = None
        slot.deleteLater()

    def _failed(self, message: str) -> None:
        self.error = message
        if self.slot is not None:
            self.slot.setText(f"The trial views are not available: {message}")
