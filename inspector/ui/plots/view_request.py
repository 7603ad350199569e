"""What a view of one array is asked to show (:class:`ViewRequest`) and how a kind of view
declares itself (:class:`ArrayView`): the vocabulary of :mod:`inspector.ui.plots.registry`,
kept apart so that each view's module declares its own ``ArrayView``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyqtgraph as pg

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.capabilities import AucScans
from inspector.formats.document import Document
from inspector.jobs import JobRunner

if TYPE_CHECKING:
    from inspector.ui.plots.base import PlotView


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
