"""The plot area of a document tab: picks the view for an array by capability.

The choice never looks at the format (docs/architecture.md, "Seams"):

- the arrays of the document's AUC experiment (``doc.auc``): :class:`AucView`,
  every scan overlaid;
- a recording whose trial structure says ``data_mode == "patterns"``
  (``doc.trials``), 2-D arrays: :class:`PatternView` heatmap;
- other 1-D to 3-D arrays: :class:`NeuralView`, with the trial markers of
  ``doc.trials.markers()`` when the document has a trial structure.

After a deferred check was applied to the document, :meth:`PlotPanel.refresh`
re-reads the capabilities: a withdrawn AUC experiment or array is said so
on the plot.  Arrays whose member failed its checksum are plotted with the
AUC view's own note on the plot (``AucView.note``, also in its exports); the
panel adds nothing, so the warning is said once.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.capabilities import AucScans, TrialStructure
from inspector.formats.document import Document
from inspector.jobs import JobRunner
from inspector.ui.message_label import wrap_freely
from inspector.ui.plots.auc import AucView
from inspector.ui.plots.base import PlotView, plot_widget_in_steps
from inspector.ui.plots.neural import NeuralView
from inspector.ui.plots.patterns import PatternView
from inspector.ui.turns import run_in_turns

#: Said on the plot when a check withdrew the document's AUC experiment.
WITHDRAWN_AUC = ("The AUC experiment is no longer plotted: its content failed verification "
                 "(see Findings).")


def cancel_on_destroy(obj: QObject, jobs: JobRunner, keys: tuple[str, ...]) -> None:
    """Cancel the jobs of ``keys`` when ``obj`` is destroyed (its tab closed while a read
    was on its way), so that no result is delivered to a deleted widget."""
    if keys:
        obj.destroyed.connect(lambda *_args: [jobs.cancel(k) for k in keys])


def onset_sample(trials: TrialStructure | None, ref: ArrayRef) -> int | None:
    """The sample of every epoch of ``ref`` at which the stimulus came on, when the
    recording's ``trial_window`` gives one start for all trials (None otherwise)."""
    if trials is None or trials.trial_window is None or ref.ndim != 3:
        return None
    starts = np.unique(np.asarray(trials.trial_window, dtype=np.int64).reshape(-1, 2)[:, 0])
    if starts.size != 1 or not -int(ref.shape[1]) < int(starts[0]) <= 0:
        return None
    return -int(starts[0])


def auc_array_names(auc: AucScans | None) -> tuple[str, ...]:
    """The names in ``Document.arrays`` that belong to the AUC experiment ``auc``."""
    if auc is None:
        return ()
    return (auc.radius_array, auc.signal_array, auc.mask_array)


#: Milliseconds after a view took the spare plot widget before the next one is made
#: (not while the new view reads and draws its first curves).
RESPARE_MS = 1500


class PlotPanel(QWidget):
    """A plot of one array of a document, read lazily on background jobs.

    Args:
        doc: the opened document (its capabilities ``arrays``, ``auc``, ``trials``).
        jobs: the runner that executes every read.
        parent: Qt parent widget.

    Attributes:
        view: the current :class:`PlotView` (None before ``show_array``).
        current: the name of the array asked for last.

    Signals:
        finding(Finding): a view's read failed because of the file (``PlotView.finding``).

    The panel keeps one bare ``pg.PlotWidget`` made ahead, over event-loop
    turns of its own (:func:`~inspector.ui.plots.base.plot_widget_in_steps`),
    for the next view to take: making one is 12 to 25 ms of the GUI thread,
    which would otherwise add to the turn that builds the view.
    """

    finding = Signal(object)

    def __init__(self, doc: Document, jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.jobs = jobs
        self.current: str | None = None
        self.view: PlotView | None = None
        self._withdrawn: dict[str, str] = {}
        self._auc = doc.auc
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        self._message = QLabel("Select an array to plot.")
        self._message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        wrap_freely(self._message)
        self._lay.addWidget(self._message, 1)
        self._spare: pg.PlotWidget | None = None
        self._spare_made = False  # (the first: see ``preparing``)
        self._making_spare = False
        self._prepare_spare()

    @property
    def preparing(self) -> bool:
        """True until the first spare plot widget is made (a view shown before would make
        its own widget on the turn that builds it)."""
        return not self._spare_made

    def _prepare_spare(self, delay_ms: int = 0) -> None:
        """Make the spare plot widget on later event-loop turns, unless there is one or it
        is being made (:func:`~inspector.ui.plots.base.plot_widget_in_steps`)."""
        if self._spare is None and not self._making_spare:
            self._making_spare = True
            QTimer.singleShot(delay_ms, self, lambda: run_in_turns(
                self, plot_widget_in_steps(), on_result=self._spare_ready))

    def _spare_ready(self, widget: pg.PlotWidget) -> None:
        self._making_spare = False
        self._spare = widget
        self._spare_made = True
        widget.setParent(self)
        widget.hide()

    def _take_spare(self) -> pg.PlotWidget | None:
        """The spare plot widget (None when it is not made yet); a new one follows once
        the view that took it has had time to draw (:data:`RESPARE_MS`)."""
        spare, self._spare = self._spare, None
        self._prepare_spare(RESPARE_MS)
        return spare

    # -- what is shown ----------------------------------------------------
    def default_array(self) -> str | None:
        """The array to plot first: the AUC signal, else the document's first array."""
        auc = self.doc.auc
        if auc is not None and auc.signal_array in self.doc.arrays:
            return auc.signal_array
        return next(iter(self.doc.arrays), None)

    def message(self) -> str:
        """The text shown instead of a plot ("" while a plot is shown)."""
        return self._message.text() if self._message.isVisible() or self.view is None else ""

    def is_idle(self) -> bool:
        """True when the plot shows its final state (no read in flight or waiting)."""
        return self.view is None or self.view.is_idle()

    def warning_text(self) -> str:
        """The warning shown on the plot ("" when there is none): the AUC view's note on
        arrays whose member failed its checksum."""
        return str(getattr(self.view, "note", "") or "")

    def _set_view(self, view: PlotView) -> None:
        self._drop_view()
        self._message.hide()
        self.view = view
        view.finding.connect(self.finding)
        cancel_on_destroy(view, self.jobs, view.job_keys())
        self._lay.addWidget(view, 1)

    def _drop_view(self) -> None:
        if self.view is not None:
            for key in self.view.job_keys():  # nothing is delivered to a deleted view
                self.jobs.cancel(key)
            self._lay.removeWidget(self.view)
            self.view.deleteLater()
            self.view = None

    def _say(self, text: str) -> None:
        self._drop_view()
        self._message.setText(text)
        self._message.show()

    # -- choosing the view ------------------------------------------------
    def show_array(self, name: str) -> None:
        """Plot ``doc.arrays[name]`` with the view its capabilities call for."""
        self.current = name
        auc = self.doc.auc
        if name in self._withdrawn:
            self._say(self._withdrawn[name])
            return
        if auc is not None and name in auc_array_names(auc) and auc.signal_array in self.doc.arrays:
            self._show_auc(auc)
            return
        ref = self.doc.arrays.get(name)
        if ref is None:
            self._say(f"No array named {name!r} in {self.doc.name}.")
            return
        trials = self.doc.trials
        if trials is not None and trials.data_mode == "patterns" and ref.ndim == 2:
            self._set_view(PatternView(ref, self.jobs, plot_widget=self._take_spare()))
            return
        if ref.ndim <= 3:
            markers = trials.markers() if trials is not None else {}
            self._set_view(NeuralView(ref, self.jobs, markers,
                                      onset_sample=onset_sample(trials, ref),
                                      plot_widget=self._take_spare()))
            return
        self._say(f"{name}: {ref.ndim}-D arrays are not plotted (shape {tuple(ref.shape)}).")

    def refresh(self, withdrawn_arrays: tuple[str, ...] = ()) -> None:
        """Re-read the document's capabilities after a check was applied.

        ``withdrawn_arrays`` are names the check took away; an AUC experiment
        that is no longer offered takes its arrays with it.  The current plot
        is rebuilt only when what it shows changed.
        """
        for name in withdrawn_arrays:
            self._withdrawn[name] = (f"'{name}' is no longer plotted: it failed verification "
                                     "(see Findings).")
        auc, before = self.doc.auc, self._auc
        if auc is before:
            changed = self.current in withdrawn_arrays
        elif self._same_scans(before, auc) and isinstance(self.view, AucView):
            self._auc = auc
            self.view.take_overview(auc)
            changed = self.current in withdrawn_arrays
        else:
            changed = self.current in auc_array_names(before) + auc_array_names(auc)
            if auc is None:
                for name in auc_array_names(before):
                    self._withdrawn[name] = WITHDRAWN_AUC
            self._auc = auc
        if changed and self.current is not None:
            self.show_array(self.current)

    @staticmethod
    def _same_scans(before: AucScans | None, auc: AucScans | None) -> bool:
        """True when ``auc`` differs from ``before`` only in what verification adds: the
        overview and the arrays whose member failed its checksum (the loaded experiment,
        when there is one, the very same object); the view shown takes them."""
        if before is None or auc is None:
            return False
        same = (f.name for f in fields(AucScans) if f.name not in
                ("overview", "overview_pending", "untrusted_arrays", "experiment"))
        return before.experiment is auc.experiment and all(
            getattr(before, name) == getattr(auc, name) for name in same)

    def checks_over(self) -> None:
        """The document's deferred checks ended: a view waiting for their result (an AUC
        view waiting for ``AucScans.overview``) stops waiting."""
        if self.view is not None:
            self.view.checks_over()

    # -- AUC --------------------------------------------------------------
    def _show_auc(self, auc: AucScans) -> None:
        # The view notes untrusted arrays on the plot itself (AucView.note).
        self.construct_auc_view(auc, self.doc.arrays)

    def construct_auc_view(self, auc: AucScans, arrays: dict[str, ArrayRef]) -> None:
        """The one place where the AUC view is constructed, from ``doc.auc`` and ``doc.arrays``.

        The view reads what it draws itself, on jobs (:class:`AucView`); arrays
        that do not fit together are said instead of a plot.
        """
        try:
            view = AucView(auc, arrays, self.jobs, plot_widget=self._take_spare())
        except (ValueError, TypeError) as exc:  # damaged arrays: say why, never guess
            self._say(f"cannot plot the scans: {exc} (see Findings)")
            return
        self._set_view(view)
