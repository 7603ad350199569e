"""Stimulus thumbnails: a lazily decoded icon grid with typed-ID captions."""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, QSize, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractItemView, QLabel, QListView, QVBoxLayout, QWidget

from inspector.formats.document import Stimulus
from inspector.jobs import JobRunner
from inspector.models.stimuli_model import THUMB, StimuliModel
from inspector.ui.copy_support import install_copy_actions
from inspector.ui.image_convert import Unloadable, thumbnail


class StimuliPanel(QWidget):
    """Icon-mode list of stimuli; each image is decoded on a job when it first shows.

    Images that cannot be decoded (e.g. a legacy path that does not exist)
    get a crossed-out placeholder and :attr:`load_failed` is emitted; no
    dialog is shown.

    Signals:
        load_failed(object stimulus, str message)
        stimulus_selected(object stimulus)
        stimulus_activated(object stimulus): a thumbnail was double-clicked.
        stimuli_chosen(list stimuli): the selected stimuli changed (by the
            user; not emitted for :meth:`select_rows`).
    """

    load_failed = Signal(object, str)
    stimulus_selected = Signal(object)
    stimulus_activated = Signal(object)
    stimuli_chosen = Signal(list)

    def __init__(self, stimuli: list[Stimulus], jobs: JobRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.model = StimuliModel(stimuli, self)
        self.model.thumbnail_requested.connect(self._request)
        self.view = QListView(self)
        self.view.setAccessibleName("Stimuli")
        self.view.setViewMode(QListView.ViewMode.IconMode)
        self.view.setResizeMode(QListView.ResizeMode.Adjust)
        self.view.setMovement(QListView.Movement.Static)
        self.view.setUniformItemSizes(True)
        self.view.setIconSize(QSize(THUMB, THUMB))
        self.view.setGridSize(QSize(THUMB + 28, THUMB + 40))
        self.view.setSpacing(4)
        self.view.setWordWrap(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setModel(self.model)
        install_copy_actions(self.view, value_column=None)
        self.view.selectionModel().currentChanged.connect(self._current)
        self.view.selectionModel().selectionChanged.connect(self._chosen)
        self.view.doubleClicked.connect(
            lambda index: self.stimulus_activated.emit(self.model.stimulus(index.row())))
        self._syncing = False
        self.note = QLabel(f"{len(stimuli):,} stimuli; images are decoded as they scroll "
                           "into view.")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.note)
        lay.addWidget(self.view, 1)
        self._closed = False

    def _current(self, cur: QModelIndex, _prev: QModelIndex) -> None:
        if cur.isValid():
            self.stimulus_selected.emit(self.model.stimulus(cur.row()))

    def _chosen(self, *_args: object) -> None:
        if not self._syncing:
            rows = sorted({i.row() for i in self.view.selectionModel().selectedIndexes()})
            self.stimuli_chosen.emit([self.model.stimulus(r) for r in rows])

    def select_rows(self, rows: list[int]) -> None:
        """Select exactly ``rows`` (scrolling to the first) without emitting
        :attr:`stimuli_chosen`."""
        sel = QItemSelection()
        for r in rows:
            sel.select(self.model.index(r), self.model.index(r))
        self._syncing = True
        try:
            self.view.selectionModel().select(sel, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            if rows:
                self.view.scrollTo(self.model.index(min(rows)))
        finally:
            self._syncing = False

    def _request(self, row: int) -> None:
        stim = self.model.stimulus(row)

        def work(_ctx: object) -> object:
            try:
                return thumbnail(stim.load(), THUMB)
            except (OSError, ValueError) as exc:  # Stimulus.load's failures; not a bug
                return Unloadable(str(exc) or type(exc).__name__)

        self.jobs.submit(work, on_done=lambda img: self._done(row, img),
                         on_error=lambda msg, _tb: self._failed(row, msg))

    def _done(self, row: int, image: object) -> None:
        if isinstance(image, Unloadable):
            self._failed(row, image.reason)
        elif not self._closed:
            self.model.set_thumbnail(row, cast(QImage, image))  # (a thumbnail otherwise)

    def _failed(self, row: int, message: str) -> None:
        if self._closed:
            return
        self.model.set_failed(row, message)
        self.load_failed.emit(self.model.stimulus(row), message)

    def select_location(self, location: str) -> bool:
        for r in range(self.model.rowCount()):
            if self.model.stimulus(r).location == location:
                self.view.setCurrentIndex(self.model.index(r))
                self.view.scrollTo(self.model.index(r))
                return True
        return False

    def shutdown(self) -> None:
        """Ignore results still on their way (the tab is closing)."""
        self._closed = True
