"""The plot area of a document tab: shows an array with the view the registry chooses.

The views and their priorities are listed in one place,
:mod:`inspector.ui.plots.registry` (docs/architecture.md, "Seams"); the
panel asks it and shows what it returns.  ``view_shown`` tells the tab's links
(scans, stimuli) which view is now shown.

After a deferred check was applied to the document, :meth:`PlotPanel.refresh`
re-reads the capabilities: a withdrawn AUC experiment or array is said so
on the plot.  Arrays whose member failed its checksum are plotted with the
AUC view's own note on the plot (``AucView.note``, also in its exports); the
panel adds nothing, so the warning is said once.
"""

from __future__ import annotations

from dataclasses import fields, replace

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from inspector.formats.capabilities import AucScans
from inspector.formats.document import Document
from inspector.jobs import JobRunner
from inspector.ui.message_label import wrap_freely
from inspector.ui.plots.auc import AucView
from inspector.ui.plots.base import PlotView, plot_widget_in_steps
from inspector.ui.plots.registry import ViewRequest, auc_array_names, choose
from inspector.ui.turns import run_in_turns

#: Said on the plot when a check withdrew the document's AUC experiment.
WITHDRAWN_AUC = ("The AUC experiment is no longer plotted: its content failed verification "
                 "(see Findings).")


def cancel_on_destroy(obj: QObject, jobs: JobRunner, keys: tuple[str, ...]) -> None:
    """Cancel the jobs of ``keys`` when ``obj`` is destroyed (its tab closed while a read
    was on its way), so that no result is delivered to a deleted widget."""
    if keys:
        def cancel(*_args: object) -> None:
            for key in keys:
                jobs.cancel(key)
        obj.destroyed.connect(cancel)


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
        view_shown(PlotView): a new view is shown.

    The panel keeps one bare ``pg.PlotWidget`` made ahead, over event-loop
    turns of its own (:func:`~inspector.ui.plots.base.plot_widget_in_steps`),
    for the next view to take: making one is 12 to 25 ms of the GUI thread,
    which would otherwise add to the turn that builds the view.
    """

    finding = Signal(object)
    view_shown = Signal(object)

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
        self.view_shown.emit(view)

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
        """Plot ``doc.arrays[name]`` with the view of the highest priority for it
        (:func:`~inspector.ui.plots.registry.choose`)."""
        self.current = name
        if name in self._withdrawn:
            self._say(self._withdrawn[name])
            return
        ref = self.doc.arrays.get(name)
        request = ViewRequest(self.doc, name, ref, self.jobs)
        chosen = choose(request)
        if chosen is None:
            self._say(f"No array named {name!r} in {self.doc.name}." if ref is None else
                      f"{name}: {ref.ndim}-D arrays are not plotted (shape {tuple(ref.shape)}).")
            return
        try:
            view = chosen.make(replace(request, plot_widget=self._take_spare()))
        except (ValueError, TypeError) as exc:  # damaged arrays: say why, never guess
            self._say(chosen.refused.format(exc))
            return
        self._set_view(view)

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
            assert auc is not None  # (_same_scans)
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
