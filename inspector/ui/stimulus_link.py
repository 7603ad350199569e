"""One choice of stimuli for a tab: the Stimuli tab and a plot view of stimuli agree.

A plot view that shows rows of stimuli (the features view: a
``stimuli_chosen(list)`` signal of typed IDs and ``select_ids(ids)``) and the
Stimuli tab (:class:`~inspector.ui.stimuli_panel.StimuliPanel`) choose the same
stimuli: choosing in either selects the same IDs in the other.  Stimuli are
matched by typed ID (``1`` is not ``"1"``).  Nothing is read from the file here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject

from inspector.formats.capabilities import Stimulus


def id_key(value: Any) -> tuple[str, str]:
    """A hashable key of a typed stimulus ID that keeps ``1`` and ``"1"`` apart (a numpy
    scalar is keyed as the Python value it holds)."""
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy":
        value = item()
    return type(value).__name__, repr(value)


def shows_stimuli(view: object) -> bool:
    """True for a view whose rows are stimuli (it chooses and is told typed IDs)."""
    return hasattr(view, "stimuli_chosen") and hasattr(view, "select_ids")


class StimulusLink(QObject):
    """Keeps ``view``'s chosen stimuli and the Stimuli tab ``panel``'s selection in step.

    Owned by ``view`` (it goes with the view).
    """

    def __init__(self, view: Any, panel: Any) -> None:
        super().__init__(view)
        self.view = view
        self.panel = panel
        view.stimuli_chosen.connect(self._view_chose)
        panel.stimuli_chosen.connect(self._panel_chose)
        panel.stimulus_selected.connect(self._panel_current)

    def _view_chose(self, ids: list[Any]) -> None:
        wanted = {id_key(v) for v in ids}
        rows = [r for r in range(self.panel.model.rowCount())
                if id_key(self.panel.model.stimulus(r).stim_id) in wanted]
        self.panel.select_rows(rows)

    def _panel_chose(self, stimuli: list[Stimulus]) -> None:
        self.view.select_ids([s.stim_id for s in stimuli])

    def _panel_current(self, stim: Stimulus) -> None:
        self.view.select_ids([stim.stim_id])
        self.view.show_stimulus(stim.stim_id)


def link_stimuli(tab: Any) -> None:
    """Link every stimulus view the tab's plot panel shows to its Stimuli tab (when it
    has one): the view shown now, and each one shown later (``view_shown``)."""
    plot, panel = getattr(tab, "plot", None), getattr(tab, "stimuli", None)
    if plot is None or panel is None:
        return

    def hook(view: object) -> None:
        if shows_stimuli(view):
            StimulusLink(view, panel)

    plot.view_shown.connect(hook)
    hook(plot.view)
