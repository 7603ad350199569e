"""One trial selection, shown alike by every view of a document.

:class:`TrialLinks` connects the document's
:class:`~inspector.models.selection.TrialSelection` to the trial-metadata
table (its rows are the trials, in order), the stimulus grid (a stimulus
stands for the trials that showed it, matched by typed ID), the continuous
plot (which shades the selected trials and brings the first into view) and the
trial views (which follow the selection themselves), and opens the stimulus viewer
on a double-clicked thumbnail.  Each view sets the selection naming itself
as the source and is not updated back by its own change, so nothing echoes.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from inspector.formats.analysis.trial_matrix import condition_of_value
from inspector.formats.document import Document, Stimulus
from inspector.jobs import JobRunner
from inspector.models.selection import TrialSelection
from inspector.runtime import preload

if TYPE_CHECKING:  # pandas and pyqtgraph: imported when a document needs them
    from inspector.ui.stimuli_panel import StimuliPanel
    from inspector.ui.table_panel import TablePanel
    from inspector.ui.trials.stimulus_viewer import StimulusViewer

#: The module of the stimulus viewer (pyqtgraph).
VIEWER = "inspector.ui.trials.stimulus_viewer"


class TrialLinks(QObject):
    """Keeps the table, the stimulus grid and the trial views on one selection.

    Args:
        doc, jobs: the document and its runner (for the stimulus viewer).
        selection: the document's selection.
        table: the ``trial_meta`` table panel (ignored unless it has one row
            per trial), or None.
        stimuli: the stimulus grid, or None.
        host: the parent of the stimulus viewers.

    Attributes:
        viewers: the stimulus viewers open.
    """

    def __init__(self, doc: Document, jobs: JobRunner, selection: TrialSelection,
                 table: TablePanel | None, stimuli: StimuliPanel | None,
                 host: QWidget) -> None:
        super().__init__(host)
        self.doc = doc
        self.jobs = jobs
        self.selection = selection
        self.host = host
        self.table = table if table is not None and len(table.model.table) == selection.n_trials \
            else None
        self.stimuli = stimuli
        self.viewers: list[StimulusViewer] = []
        self.closed = False
        self._stim_keys = ([condition_of_value(stimuli.model.stimulus(r).stim_id)
                            for r in range(stimuli.model.rowCount())] if stimuli else [])
        if self.table is not None:
            self.table.rows_chosen.connect(self._from_table)
        if stimuli is not None:
            stimuli.stimuli_chosen.connect(self._from_stimuli)
            stimuli.stimulus_activated.connect(self.open_viewer)
        selection.changed.connect(self._show)

    def _from_table(self, positions: np.ndarray) -> None:
        self.selection.set_trials(positions, source=self.table)

    def _from_stimuli(self, stimuli: list[Stimulus]) -> None:
        self.selection.select_stimuli([s.stim_id for s in stimuli], source=self.stimuli)

    def _show(self, source: object) -> None:
        trials = self.selection.trials
        if self.table is not None and source is not self.table:
            self.table.select_rows(trials)
        plot = getattr(getattr(self.host, "plot", None), "view", None)
        show = getattr(plot, "show_trials", None)
        if show is not None:  # a continuous recording marks them
            show(trials)
        if self.stimuli is not None and source is not self.stimuli:
            shown = self.selection.stimuli_of_trials(trials)
            self.stimuli.select_rows([r for r, k in enumerate(self._stim_keys) if k in shown])

    def open_viewer(self, stim: Stimulus) -> None:
        """Open (non-modal) the viewer of ``stim``: now, or once its module is imported
        (it is then appended to :attr:`viewers`)."""
        preload.when_imported(VIEWER, lambda module: self._open(module, stim))

    def _open(self, module: ModuleType, stim: Stimulus) -> None:
        if self.closed:
            return
        viewer = module.StimulusViewer(self.doc, stim, self.jobs, self.selection, self.host)
        viewer.finished.connect(lambda _r, v=viewer: self._closed(v))
        self.viewers.append(viewer)
        viewer.show()

    def _closed(self, viewer: StimulusViewer) -> None:
        if viewer in self.viewers:
            self.viewers.remove(viewer)
        viewer.shutdown()
        viewer.deleteLater()

    def shutdown(self) -> None:
        """Close the viewers (the tab is closing); none opens afterwards."""
        self.closed = True
        for viewer in list(self.viewers):
            viewer.close()
