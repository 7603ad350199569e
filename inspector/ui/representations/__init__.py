"""The Representations tab: does the model see the stimuli as the brain does?

Offered for documents whose trials carry stimulus IDs and that hold vision
records (:func:`inspector.formats.analysis.rsa.compute.vision_records`).  The
tab is a placeholder until first shown; its module (pyqtgraph) is then
imported off the GUI thread (:mod:`inspector.runtime.preload`) and the panel
(:mod:`.panel`) built, which computes on the job runner.

This package's ``__init__`` imports no pyqtgraph: ``offer_tab`` is what a
document tab calls.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel
from shiboken6 import isValid

from inspector.formats.analysis.rsa.compute import vision_records
from inspector.runtime import preload
from inspector.ui.turns import run_in_turns

#: The module of the panel (imports pyqtgraph).
PANEL = "inspector.ui.representations.panel"
#: The tab's title.
TITLE = "RSA"
#: The tab's tooltip: what the short title stands for.
TOOLTIP = ("Representations: how dissimilar the stimuli are to each vision model layer and to "
           "the neural responses, and how far the two agree")


def offers(doc: Any) -> bool:
    """True when ``doc`` has vision records and trials with stimulus IDs."""
    trials = getattr(doc, "trials", None)
    return (trials is not None and not trials.stim_ids_pending
            and trials.trial_stim_ids is not None and bool(vision_records(doc)))


def trial_choices(tab: Any) -> dict[str, Any]:
    """The Trials tab's window, baseline and channels, as ``RsaOptions`` fields (none
    while it is not built; all channels when it averages fewer than two, which give no
    pattern to compare)."""
    panel = getattr(tab, "trials_panel", None)
    if panel is None:
        return {}
    channels = panel.channels()
    return {"window": panel.time_window(), "baseline": panel.baseline(),
            "channels": channels if len(channels) >= 2 else None}


def offer_tab(tab: Any) -> None:
    """Add the Representations placeholder to a document tab (``tab.views``, ``tab.doc``,
    ``tab.jobs``, ``tab.selection``); the panel replaces it when first shown."""
    views = getattr(tab, "views", None)
    if views is None or not offers(tab.doc) or getattr(tab, "representations", None) is not None:
        return
    slot = QLabel("Preparing the representations…")
    slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
    slot.setWordWrap(True)  # (a hidden tab's text must not widen the window)
    tab.representations = slot
    views.setTabToolTip(views.addTab(slot, TITLE), TOOLTIP)

    def shown(*_args: Any) -> None:
        current = views.currentWidget()
        refresh = getattr(current, "refresh", None)
        if current is not None and current is getattr(tab, "representations", None) \
                and callable(refresh):
            refresh()  # shown again: the Trials tab's choices may have changed
        if current is slot and not getattr(slot, "_wanted", False):
            # on the next turn: a tab replaced next to it (the Trials tab) makes it
            # current for a moment
            QTimer.singleShot(0, slot, still_shown)

    def still_shown() -> None:
        if views.currentWidget() is not slot or getattr(slot, "_wanted", False):
            return
        slot._wanted = True
        preload.when_imported(PANEL, built,
                              lambda message: slot.setText(f"Not available: {message}"))

    def gone() -> bool:  # the tab closed meanwhile
        return tab.doc is None or not isValid(views) or not isValid(slot) \
            or views.indexOf(slot) < 0

    def built(module: Any) -> None:
        if not gone():  # its plots over event-loop turns, then the panel
            run_in_turns(slot, module.plot_widgets_in_steps(),
                         on_result=lambda plots: made(module, plots))

    def made(module: Any, plots: list[Any]) -> None:
        if gone():
            for widget in plots:
                widget.deleteLater()
            return
        panel = module.RepresentationsPanel(tab.doc, tab.jobs, tab.selection, tab,
                                            choices=lambda: trial_choices(tab), plots=plots)
        index = views.indexOf(slot)
        current = views.currentIndex() == index
        views.removeTab(index)
        views.setTabToolTip(views.insertTab(index, panel, TITLE), TOOLTIP)
        if current:
            views.setCurrentIndex(index)
        tab.representations = panel
        slot.deleteLater()

    views.currentChanged.connect(shown)
