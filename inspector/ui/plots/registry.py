"""The views of one array, chosen in one place.

Each :class:`ArrayView` says, for an array of a document, whether it can show
it and with what priority (:attr:`ArrayView.priority`: None when it cannot;
the highest wins), and builds the view (:attr:`ArrayView.make`).  The choice
reads only the document's capabilities (``doc.auc``, ``doc.trials``,
``doc.features``) and the array's rank; never a format name.  This is the
pattern of silx's ``DataViewer`` (each ``DataView`` answers
``getDataPriority``).

Adding a view: one module with the view and its ``ArrayView``, and one line in
:data:`ARRAY_VIEWS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.capabilities import AucScans, TrialStructure
from inspector.formats.document import Document
from inspector.jobs import JobRunner
from inspector.ui.plots.auc import AucView
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.features import FeatureView
from inspector.ui.plots.neural import NeuralView
from inspector.ui.plots.patterns import PatternView


@dataclass(frozen=True)
class ViewRequest:
    """What a view is built from.

    Attributes:
        doc: the document.
        name: the array's name in ``doc.arrays``.
        ref: the array (None when ``name`` is not offered: only a view of a
            group of arrays, the AUC scans, may still show it).
        jobs: runs every read.
        plot_widget: a bare plot widget made ahead, or None.
    """

    doc: Document
    name: str
    ref: ArrayRef | None
    jobs: JobRunner
    plot_widget: pg.PlotWidget | None = None


@dataclass(frozen=True)
class ArrayView:
    """One kind of view of an array.

    Attributes:
        title: what it shows, for the architecture notes and tests.
        priority: ``priority(request)``: an int (higher wins) when the view can
            show the array, else None.  Reads capabilities only, no file.
        make: builds the view (GUI thread, no file I/O; reads go to jobs).
            May raise ``ValueError``/``TypeError`` when the arrays do not fit
            together: the panel says :attr:`refused` with the reason instead.
        refused: the sentence shown when ``make`` raised, ``{}`` the reason.
    """

    title: str
    priority: Callable[[ViewRequest], int | None]
    make: Callable[[ViewRequest], PlotView]
    refused: str = "cannot plot {}"


def auc_array_names(auc: AucScans | None) -> tuple[str, ...]:
    """The names in ``Document.arrays`` that belong to the AUC experiment ``auc``."""
    if auc is None:
        return ()
    return (auc.radius_array, auc.signal_array, auc.mask_array)


def onset_sample(trials: TrialStructure | None, ref: ArrayRef) -> int | None:
    """The sample of every epoch of ``ref`` at which the stimulus came on, when the
    recording's ``trial_window`` gives one start for all trials (None otherwise)."""
    if trials is None or trials.trial_window is None or ref.ndim != 3:
        return None
    starts = np.unique(np.asarray(trials.trial_window, dtype=np.int64).reshape(-1, 2)[:, 0])
    if starts.size != 1 or not -int(ref.shape[1]) < int(starts[0]) <= 0:
        return None
    return -int(starts[0])


# -- the views ------------------------------------------------------------------------
def _auc_priority(r: ViewRequest) -> int | None:
    auc = r.doc.auc
    shown = auc is not None and r.name in auc_array_names(auc) and auc.signal_array in r.doc.arrays
    return 100 if shown else None


def _make_auc(r: ViewRequest) -> PlotView:
    assert r.doc.auc is not None
    return AucView(r.doc.auc, r.doc.arrays, r.jobs, plot_widget=r.plot_widget)


def _features_priority(r: ViewRequest) -> int | None:
    return 50 if r.ref is not None and r.doc.features_of(r.ref) is not None else None


def _make_features(r: ViewRequest) -> PlotView:
    assert r.ref is not None
    features = r.doc.features_of(r.ref)
    assert features is not None
    return FeatureView(features, r.doc.stimuli, r.jobs, plot_widget=r.plot_widget)


def _patterns_priority(r: ViewRequest) -> int | None:
    trials = r.doc.trials
    patterns = trials is not None and trials.data_mode == "patterns"
    return 20 if patterns and r.ref is not None and r.ref.ndim == 2 else None


def _make_patterns(r: ViewRequest) -> PlotView:
    assert r.ref is not None
    return PatternView(r.ref, r.jobs, plot_widget=r.plot_widget)


def _lines_priority(r: ViewRequest) -> int | None:
    return 10 if r.ref is not None and r.ref.ndim <= 3 else None


def _make_lines(r: ViewRequest) -> PlotView:
    """Lines of a 1-D to 3-D array: with the trials' markers and time axis only for the
    array the trials cut (``doc.neural_array()``); any other array on its indices."""
    ref, trials = r.ref, r.doc.trials
    assert ref is not None
    if trials is not None and ref is r.doc.neural_array():
        return NeuralView(ref, r.jobs, trials.markers(), onset_sample=onset_sample(trials, ref),
                          plot_widget=r.plot_widget)
    return NeuralView(ref, r.jobs, {}, plot_widget=r.plot_widget, time_axis=False)


AUC = ArrayView("AUC scans, every scan overlaid", _auc_priority, _make_auc,
                "cannot plot the scans: {} (see Findings)")
PATTERNS = ArrayView("patterns heat map", _patterns_priority, _make_patterns)
LINES = ArrayView("lines (channels, trials)", _lines_priority, _make_lines)
FEATURES = ArrayView("features of the stimuli", _features_priority, _make_features)

#: Every view of an array; the one with the highest priority is shown.
ARRAY_VIEWS: list[ArrayView] = [
    AUC,
    PATTERNS,
    LINES,
    FEATURES,
]


def register(view: ArrayView) -> None:
    """Offer ``view`` for every array it gives a priority to (a plug-in's one line)."""
    ARRAY_VIEWS.append(view)


def choose(request: ViewRequest) -> ArrayView | None:
    """The view with the highest priority for ``request`` (the first listed on a tie),
    or None when no view can show it."""
    best: tuple[int, ArrayView] | None = None
    for view in ARRAY_VIEWS:
        p = view.priority(request)
        if p is not None and (best is None or p > best[0]):
            best = (p, view)
    return best[1] if best is not None else None
