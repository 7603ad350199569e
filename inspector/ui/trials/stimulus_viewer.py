"""The stimulus viewer: one stimulus at full size, its trials and their mean response.

Opened by double-clicking a thumbnail.  The image is decoded on a job and
drawn pixel for pixel (zoom with the wheel, "Actual size" for one screen
pixel per image pixel, "Fit" for the whole image); the caption gives its
typed ID, size in pixels, channels, dtype and value range.  The trials
that showed it are matched by typed ID (``TrialStructure.trial_stim_ids``)
and listed; their mean response for one channel is
:func:`~inspector.formats.analysis.trial_average.trial_average` of those trials only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.analysis.trial_conditions import STIMULUS
from inspector.formats.analysis.trial_matrix import TrialAxis, trial_axis
from inspector.formats.document import Document, Stimulus
from inspector.jobs import JobContext, JobRunner
from inspector.models.selection import TrialSelection
from inspector.models.value_text import value_text, value_type_name
from inspector.ui.image_convert import Unloadable, to_uint8
from inspector.ui.trials.common import AverageRequest, channel_label
from inspector.ui.trials.condition_plot import ConditionPlot

#: Most trials listed by name (all are counted and averaged).
MAX_LISTED = 5000


def image_facts(arr: np.ndarray) -> str:
    """``"64 × 48 px, 3 channels, uint8, values 0 … 255"`` for an image array."""
    a = np.asarray(arr)
    h, w = (int(a.shape[0]), int(a.shape[1])) if a.ndim >= 2 else (1, int(a.size))
    chans = int(a.shape[2]) if a.ndim == 3 else 1
    text = f"{w} × {h} px, {chans} channel{'s' if chans != 1 else ''}, {a.dtype}"
    if a.size and a.dtype.kind in "biuf":
        finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
        if finite.size:
            lo, hi = value_text(finite.min().item()), value_text(finite.max().item())
            text += f", values {lo} … {hi}"
    return text


class StimulusViewer(QDialog):
    """Full-size view of one stimulus with the trials that showed it.

    Attributes:
        image: the decoded array (None until loaded).
        trials: int64 trials that showed the stimulus.
        plot: their mean response (None when the recording has no trial axis).
    """

    def __init__(self, doc: Document, stim: Stimulus, jobs: JobRunner,
                 selection: TrialSelection | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc, self.stim, self.jobs, self.selection = doc, stim, jobs, selection
        self.image: np.ndarray | None = None
        self.setWindowTitle(f"Stimulus {value_text(stim.stim_id)}")
        self.resize(980, 600)
        self.trials = (selection.trials_of_stimuli([stim.stim_id]) if selection is not None
                       else np.empty(0, dtype=np.int64))
        self.axis: TrialAxis | None = None
        try:
            self.axis = trial_axis(doc)
        except ValueError:
            self.axis = None
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self._image_side())
        split.addWidget(self._trial_side())
        split.setSizes([520, 440])
        lay = QVBoxLayout(self)
        lay.addWidget(split)
        self._load()
        self.run()

    # -- the image ---------------------------------------------------------------
    def _image_side(self) -> QWidget:
        side = QWidget()
        lay = QVBoxLayout(side)
        lay.setContentsMargins(0, 0, 0, 0)
        s = self.stim
        self.id_label = QLabel(f"ID {value_text(s.stim_id)} ({value_type_name(s.stim_id)}), "
                               f"stored as {s.kind} at {s.location}")
        self.id_label.setWordWrap(True)
        self.id_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.facts = QLabel("decoding…")
        base = self.palette().color(QPalette.ColorRole.Base)
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground(base)
        self.view_box = self.canvas.addViewBox(lockAspect=True, invertY=True)
        self.img_item = pg.ImageItem(axisOrder="row-major")
        self.view_box.addItem(self.img_item)
        self.view_box.sigRangeChanged.connect(self._zoom_text)
        self.canvas.scene().sigMouseMoved.connect(self._hover)
        self.zoom_label = QLabel("")
        self.pixel_label = QLabel("")
        self.pixel_label.setToolTip("The pixel under the mouse: column, row and value")
        actual, fit = QPushButton("Actual size"), QPushButton("Fit")
        actual.setToolTip("One screen pixel per image pixel")
        actual.clicked.connect(self.actual_size)
        fit.clicked.connect(self.fit)
        row = QHBoxLayout()
        row.addWidget(actual)
        row.addWidget(fit)
        row.addWidget(self.zoom_label)
        row.addStretch(1)
        row.addWidget(self.pixel_label)
        lay.addWidget(self.id_label)
        lay.addWidget(self.facts)
        lay.addWidget(self.canvas, 1)
        lay.addLayout(row)
        return side

    def _key(self, what: str) -> str:
        return f"stimulus-{what}:{id(self)}"

    def _load(self) -> None:
        stim = self.stim

        def work(ctx: JobContext) -> tuple[np.ndarray, np.ndarray] | Unloadable:
            try:
                arr = np.asarray(stim.load())
                shown = to_uint8(arr)  # on the job: a bad image never raises in a slot
            except (OSError, ValueError) as exc:  # Stimulus.load's failures; not a bug
                return Unloadable(str(exc) or type(exc).__name__)
            if shown.ndim == 3 and shown.shape[2] == 1:
                shown = shown[:, :, 0]
            if shown.ndim not in (2, 3):
                return Unloadable(f"not an image array: shape {shown.shape}")
            return arr, shown

        self.jobs.submit(work, on_done=self._loaded, on_error=self._load_failed,
                         key=self._key("image"))

    def _loaded(self, got: tuple[np.ndarray, np.ndarray] | Unloadable) -> None:
        if isinstance(got, Unloadable):
            self._load_failed(got.reason, "")
            return
        arr, shown = got
        self.image = arr
        self.img_item.setImage(shown, levels=(0, 255), autoLevels=False)
        self.facts.setText(image_facts(arr))
        self.fit()

    def _load_failed(self, message: str, _tb: str) -> None:
        self.facts.setText(f"cannot be loaded: {message}")

    def pixel_text(self, x: float, y: float) -> str:
        """``"x 3, y 1: [12, 200, 7]"`` for the image pixel at view point ``(x, y)``."""
        a = self.image
        if a is None or a.ndim < 2:
            return ""
        col, row = int(np.floor(x)), int(np.floor(y))
        if not (0 <= row < a.shape[0] and 0 <= col < a.shape[1]):
            return ""
        v = a[row, col]
        shown = (value_text(v.item()) if np.ndim(v) == 0
                 else "[" + ", ".join(value_text(c) for c in np.asarray(v).tolist()) + "]")
        return f"x {col}, y {row}: {shown}"

    def _hover(self, pos: Any) -> None:
        p = self.view_box.mapSceneToView(pos)
        self.pixel_label.setText(self.pixel_text(p.x(), p.y()))

    def zoom(self) -> float:
        """Screen pixels per image pixel."""
        (x0, x1), _ = self.view_box.viewRange()
        return float(self.view_box.width()) / max(x1 - x0, 1e-12)

    def _zoom_text(self, *_args: Any) -> None:
        if self.image is not None:
            self.zoom_label.setText(f"zoom {self.zoom() * 100:.0f}%")

    def actual_size(self) -> None:
        """One screen pixel per image pixel, centred on the current view."""
        (x0, x1), (y0, y1) = self.view_box.viewRange()
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        w, h = float(self.view_box.width()), float(self.view_box.height())
        self.view_box.setRange(xRange=(cx - w / 2, cx + w / 2), yRange=(cy - h / 2, cy + h / 2),
                               padding=0.0)

    def fit(self) -> None:
        """The whole image in view."""
        if self.image is not None:
            h, w = self.image.shape[:2]
            self.view_box.setRange(xRange=(0, w), yRange=(0, h), padding=0.02)

    # -- the trials --------------------------------------------------------------
    def _trial_side(self) -> QWidget:
        side = QWidget()
        lay = QVBoxLayout(side)
        lay.setContentsMargins(0, 0, 0, 0)
        n_all = self.selection.n_trials if self.selection is not None else 0
        k = int(self.trials.shape[0])
        self.count_label = QLabel(f"Shown in {k:,} of {n_all:,} trials" if k
                                  else "Not shown in any trial")
        self.trial_list = QListWidget()
        self.trial_list.setAccessibleName("Trials that showed this stimulus")
        self.trial_list.addItems([self._trial_text(int(t)) for t in self.trials[:MAX_LISTED]])
        if k > MAX_LISTED:
            self.trial_list.addItem(f"… and {k - MAX_LISTED} more")
        self.select_button = QPushButton("Select these trials")
        self.select_button.setEnabled(bool(k) and self.selection is not None)
        self.select_button.clicked.connect(self.select_trials)
        top = QHBoxLayout()
        top.addWidget(self.count_label)
        top.addStretch(1)
        top.addWidget(self.select_button)
        lay.addLayout(top)
        lay.addWidget(self.trial_list, 1)
        self.plot: ConditionPlot | None = None
        if self.axis is not None:
            row = QHBoxLayout()
            self.channel_combo = QComboBox()
            for ch in range(min(self.axis.channels, 4096)):
                self.channel_combo.addItem(channel_label(self.axis, ch), ch)
            self.channel_combo.currentIndexChanged.connect(self.run)
            row.addWidget(QLabel("Mean response of"))
            row.addWidget(self.channel_combo)
            row.addStretch(1)
            lay.addLayout(row)
            self.plot = ConditionPlot(self.doc, self.jobs, self.axis, with_list=False)
            lay.addWidget(self.plot, 3)
        return side

    def _trial_text(self, t: int) -> str:
        meta = self.doc.trial_table()
        if meta is not None and len(meta) == (self.selection.n_trials if self.selection else -1):
            label = meta.index_label(t)
            if not (isinstance(label, (int, np.integer)) and int(label) == t):
                return f"trial {t}  ({value_text(label)})"
        return f"trial {t}"

    def run(self, *_args: Any) -> None:
        """Average the trials that showed the stimulus, for the chosen channel."""
        if self.plot is None:
            return
        if not self.trials.size:
            self.plot.show_placeholder("No trial showed this stimulus: nothing to average.")
            return
        ch = int(self.channel_combo.currentData())
        self.plot.run(AverageRequest(STIMULUS, (ch,), trials=tuple(self.trials.tolist())))

    def select_trials(self) -> None:
        """Make the trials that showed this stimulus the document's selection."""
        if self.selection is not None:
            self.selection.set_trials(self.trials, source=self)

    def shutdown(self) -> None:
        """Drop the jobs still on their way (the viewer closes)."""
        self.jobs.cancel(self._key("image"))
        if self.plot is not None:
            for key in self.plot.job_keys():
                self.jobs.cancel(key)
