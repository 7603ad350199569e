"""The Trials tab of a recording: how responses depend on stimulus and condition.

Shared controls (grouping, channels, window, baseline, "selected trials
only") drive the two views below them: the condition average
(:class:`~inspector.ui.trials.condition_plot.ConditionPlot`) and the trial
image (:class:`~inspector.ui.trials.trial_image.TrialImage`).  Every change
restarts a short debounce timer; when it fires both views submit their job
(a newer one supersedes the older).  The document's
:class:`~inspector.models.selection.TrialSelection` is marked on the trial
image, set by clicking its rows, drawn on the condition average as the mean
± SEM of the selected trials (pooled over their conditions), and can
restrict the average to them ("Selected trials only").
"""

from __future__ import annotations

from collections.abc import Generator, Hashable, Iterator
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from inspector.formats.analysis.trial_average import PRESTIMULUS, RECORDED
from inspector.formats.analysis.trial_conditions import STIMULUS
from inspector.formats.analysis.trial_matrix import TrialAxis, trial_axis
from inspector.formats.document import Document
from inspector.jobs import JobRunner
from inspector.models.selection import TrialSelection
from inspector.ui.message_label import wrap_freely
from inspector.ui.plots.base import plot_widget_in_steps
from inspector.ui.trials.common import AverageRequest, FlowLayout, channel_label, group
from inspector.ui.trials.condition_plot import MAX_SHOWN, ConditionPlot
from inspector.ui.trials.trial_image import ImageRequest, TrialImage

#: Below this height (pixels) the two views are shown one at a time, in tabs.
COMPACT_HEIGHT = 540
#: Delay after the last change of a control before the views recompute.
DEBOUNCE_MS = 150
#: Most channels offered in the channel list.
MAX_LISTED = 4096
#: Baseline choices: (label, value); "custom" uses the two spin boxes.
BASELINES = [("no baseline", None), ("pre-stimulus", PRESTIMULUS),
             ("recorded (trial_info)", RECORDED), ("custom", "custom")]


def grouping_choices(doc: Document) -> list[tuple[str, Hashable]]:
    """``(label, by)`` of every way to group trials: stimulus, then trial_meta columns."""
    out: list[tuple[str, Hashable]] = []
    if doc.trials is not None and doc.trials.trial_stim_ids is not None:
        out.append(("stimulus", STIMULUS))
    meta = doc.trial_table()
    if meta is not None:
        for col in meta.labels:
            if not (isinstance(col, str) and col == STIMULUS):  # "stimulus" means the IDs
                out.append((str(col), col))
    return out


#: Names of trial_meta columns that name the conditions (compared without case): such a
#: column groups the trials first.
CONDITION_COLUMNS = ("condition", "conditions", "cond", "trial_type", "trial_condition")


def _condition_first(choices: list[tuple[str, Hashable]]) -> list[tuple[str, Hashable]]:
    """``choices`` with the columns named like :data:`CONDITION_COLUMNS` first."""
    named = [c for c in choices
             if isinstance(c[1], str) and c[1].strip().lower() in CONDITION_COLUMNS]
    return named + [c for c in choices if c not in named]


def default_grouping(doc: Document, choices: list[tuple[str, Hashable]]) -> Hashable | None:
    """A column naming the conditions (:data:`CONDITION_COLUMNS`) with 2 to
    :data:`MAX_SHOWN` distinct values; else the stimulus when it has that few
    distinct IDs, else the first column with that few; else the first choice."""
    meta = doc.trial_table()
    for _label, by in _condition_first(choices):
        if isinstance(by, str) and by == STIMULUS:
            ids = (doc.trials.trial_stim_ids if doc.trials is not None else None) or ()
            distinct = len({(type(v).__name__, repr(v)) for v in ids})
        elif meta is not None:
            try:
                distinct = int(meta.frame()[by].nunique(dropna=False))
            except (TypeError, ValueError):  # unhashable values, repeated column names
                continue
        else:
            continue
        if 2 <= distinct <= MAX_SHOWN:
            return by
    return choices[0][1] if choices else None


def build_in_steps(doc: Document, jobs: JobRunner, selection: TrialSelection | None,
                   parent: QWidget) -> Iterator[TrialsPanel | None]:
    """Build a :class:`TrialsPanel` over several event-loop turns: call ``next`` once a
    turn; it gives None until the last step, which gives the panel.

    Each of its two plots takes 30-60 ms to build: the parts of its bare
    ``pg.PlotWidget`` (:func:`~inspector.ui.plots.base.plot_widget_in_steps`) on a
    turn each, the view's items on the next, so the window keeps answering
    (docs/architecture.md, "Contracts").
    The plots are made hidden children of ``parent`` until the panel takes them.
    """
    try:
        axis = trial_axis(doc)
    except ValueError:
        yield TrialsPanel(doc, jobs, selection, parent)  # it says why there are no views
        return
    widget = yield from _hidden_plot_widget(parent)
    average = ConditionPlot(doc, jobs, axis, parent=parent, plot_widget=widget)
    yield None
    widget = yield from _hidden_plot_widget(parent)
    image = TrialImage(doc, jobs, axis, grouping_choices(doc), parent=parent, plot_widget=widget)
    yield None
    yield TrialsPanel(doc, jobs, selection, parent, views=(average, image))


def _hidden_plot_widget(parent: QWidget) -> Generator[None, None, pg.PlotWidget]:
    """Steps of :func:`~inspector.ui.plots.base.plot_widget_in_steps`, each yielding None;
    returns the widget, a hidden child of ``parent``."""
    for widget in plot_widget_in_steps():
        if widget is None:
            yield None
            continue
        widget.setParent(parent)
        widget.hide()
        yield None  # the view is built on the next turn
        return widget
    raise AssertionError("plot_widget_in_steps ends with the widget")


class TrialsPanel(QWidget):
    """Condition average and trial image of one recording, with their controls.

    Args:
        doc: an epochs or continuous recording (``doc.trials``, ``doc.neural_array()``).
        jobs: runs every computation.
        selection: the document's trial selection (None: no linking).
        views: the condition plot and trial image of ``doc``, already built (see
            :func:`build_in_steps`); None: built here.

    Attributes:
        axis: the document's trial axis (None when it cannot be cut in trials;
            then only :attr:`message` is shown).
        average: the condition plot; image: the trial image.

    Signals:
        requested(): both views were asked to recompute.
    """

    requested = Signal()

    @property
    def _axis(self) -> TrialAxis:
        """The trial axis (the controls that use it exist only when there is one)."""
        assert self.axis is not None
        return self.axis

    def __init__(self, doc: Document, jobs: JobRunner, selection: TrialSelection | None = None,
                 parent: QWidget | None = None, *,
                 views: tuple[ConditionPlot, TrialImage] | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.jobs = jobs
        self.selection = selection
        self.axis: TrialAxis | None = None
        self.message = ""
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        try:
            self.axis = views[0].axis if views is not None else trial_axis(doc)
        except ValueError as exc:
            self.message = f"No trial views: {exc}"
            label = QLabel(self.message)
            wrap_freely(label)
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            lay.addWidget(label)
            return
        self.choices = grouping_choices(doc)
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self.run)
        flow = FlowLayout()
        for box in self._grouping_controls() + self._window_controls():
            flow.addWidget(box)
        lay.addLayout(flow)
        if views is not None:
            self.average, self.image = views
            for view in views:
                view.setParent(self)
        else:
            self.average = ConditionPlot(doc, jobs, self.axis, parent=self)
            self.image = TrialImage(doc, jobs, self.axis, self.choices, parent=self)
        self.image.set_sort_by(self.by())
        self.image.options_changed.connect(self.schedule)
        self.image.trials_clicked.connect(self._image_clicked)
        # tall panes: the average above the image; short ones: one view at a time
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.view_tabs = QTabWidget()
        self.view_tabs.setDocumentMode(True)
        self.view_tabs.setTabPosition(QTabWidget.TabPosition.South)
        self._views = QStackedWidget()
        self._views.addWidget(self.splitter)
        self._views.addWidget(self.view_tabs)
        self.compact: bool | None = None
        self.arrange(False)
        lay.addWidget(self._views, 1)
        if selection is not None:
            selection.changed.connect(self._selection_changed)
            self.image.show_selection(selection.trials)  # (built when first shown: may be one)
        self._update_selected_box()
        self.schedule()

    # -- arrangement -------------------------------------------------------------
    def arrange(self, compact: bool) -> None:
        """Both views stacked in a splitter, or (``compact``) in tabs, one at a time."""
        if compact == self.compact:
            return
        self.compact = compact
        if compact:
            self.view_tabs.addTab(self.average, "Condition average")
            self.view_tabs.addTab(self.image, "Trial image")
            self._views.setCurrentWidget(self.view_tabs)
        else:
            self.view_tabs.clear()
            self.splitter.addWidget(self.average)
            self.splitter.addWidget(self.image)
            self.splitter.setSizes([320, 260])
            self._views.setCurrentWidget(self.splitter)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self.axis is not None:
            self.arrange(self.height() < COMPACT_HEIGHT)

    # -- controls ----------------------------------------------------------------
    def _grouping_controls(self) -> list[QWidget]:
        self.group_combo = QComboBox()
        self.group_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.group_combo.setMinimumContentsLength(12)
        self.group_combo.setAccessibleName("Group trials by")
        for label, by in self.choices:
            self.group_combo.addItem(label, by)
        default = default_grouping(self.doc, self.choices)
        for i, (_label, by) in enumerate(self.choices):
            if by == default:
                self.group_combo.setCurrentIndex(i)
        self.group_combo.currentIndexChanged.connect(self._grouping_changed)
        self.channel_button = QToolButton()
        self.channel_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.channel_button.setAccessibleName("Channels averaged")
        self.channel_button.setMinimumWidth(64)
        self.channel_list = QListWidget()
        for ch in range(min(self._axis.channels, MAX_LISTED)):
            item = QListWidgetItem(channel_label(self._axis, ch))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if ch == 0 else Qt.CheckState.Unchecked)
            self.channel_list.addItem(item)
        self.channel_list.itemChanged.connect(self._channels_changed)
        menu = QMenu(self.channel_button)
        action = QWidgetAction(menu)
        action.setDefaultWidget(self.channel_list)
        menu.addAction(action)
        self.channel_button.setMenu(menu)
        self.selected_box = QCheckBox("Selected trials only")
        self.selected_box.setToolTip("Average only the trials selected in the trial "
                                     "metadata, the stimuli or the trial image")
        self.selected_box.toggled.connect(self.schedule)
        self._label_channels()
        return [group(QLabel("Group by"), self.group_combo),
                group(QLabel("Channels"), self.channel_button), self.selected_box]

    def _spin(self) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        rate = self._axis.sampling_rate_hz
        spin.setDecimals(3 if rate is not None else 0)
        spin.setRange(-1e7, 1e7)
        spin.setMaximumWidth(104)
        spin.setSingleStep(1000.0 / rate if rate else 1.0)
        spin.setSuffix(" ms" if rate is not None else " samples")
        spin.setKeyboardTracking(False)
        spin.valueChanged.connect(self.schedule)
        return spin

    def _window_controls(self) -> list[QWidget]:
        self.win_from, self.win_to = self._spin(), self._spin()
        self.reset_window = QPushButton("Reset")
        self.reset_window.setToolTip("Back to the window the recording gives")
        self.reset_window.clicked.connect(self.set_default_window)
        self.base_combo = QComboBox()
        self.base_combo.setAccessibleName("Baseline")
        for label, value in BASELINES:
            if value == RECORDED and not self._axis.has_recorded_baseline:
                continue
            self.base_combo.addItem(label, value)
        # baseline correction by default when the recording gives one (trial_info/baseline)
        self.base_combo.setCurrentIndex(max(0, self.base_combo.findData(RECORDED)))
        self.base_from, self.base_to = self._spin(), self._spin()
        self.base_combo.currentIndexChanged.connect(self._baseline_changed)
        self.set_default_window()
        self._baseline_changed()
        return [group(QLabel("Window"), self.win_from, QLabel("to"), self.win_to,
                      self.reset_window),
                group(QLabel("Baseline"), self.base_combo, self.base_from, self.base_to)]

    def _to_spin(self, samples: float) -> float:
        rate = self._axis.sampling_rate_hz
        return samples * 1000.0 / rate if rate is not None else float(samples)

    def _samples(self, value: float) -> int:
        """A spin box value as the nearest sample offset."""
        rate = self._axis.sampling_rate_hz
        return round(value * rate / 1000.0) if rate is not None else round(value)

    def _from_spin(self, value: float) -> float:
        """A spin box value in the unit of ``window`` (seconds, or samples), on a sample."""
        return self._axis.to_time(self._samples(value))

    def set_default_window(self) -> None:
        """Show the recording's window (and use it, with each trial's own limits)."""
        w0, w1 = self._axis.window_samples
        for spin, v in ((self.win_from, w0), (self.win_to, w1)):
            spin.blockSignals(True)
            spin.setValue(self._to_spin(v))
            spin.blockSignals(False)
        b0, b1 = self._axis.baseline_samples or (w0, 0)
        for spin, v in ((self.base_from, b0), (self.base_to, b1)):
            spin.blockSignals(True)
            spin.setValue(self._to_spin(v))
            spin.blockSignals(False)
        self.schedule()

    def _baseline_changed(self, *_args: Any) -> None:
        custom = self.base_combo.currentData() == "custom"
        self.base_from.setVisible(custom)  # hidden otherwise: the controls fit narrow panes
        self.base_to.setVisible(custom)
        self.schedule()

    def _grouping_changed(self, *_args: Any) -> None:
        self.image.set_sort_by(self.by())
        self.schedule()

    def _channels_changed(self, *_args: Any) -> None:
        self._label_channels()
        chans = self.channels()
        if chans:
            self.image.set_channel(chans[0])
        self.schedule()

    def _label_channels(self) -> None:
        chans = self.channels()
        names = [channel_label(self._axis, c) for c in chans]
        text = ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")
        self.channel_button.setText(text or "none")
        self.channel_button.setToolTip("Channels averaged: " + (", ".join(names) or "none"))

    # -- the current choices -----------------------------------------------------
    def by(self) -> Hashable | None:
        return self.group_combo.currentData()

    def set_by(self, by: Hashable) -> None:
        """Group by ``by`` (a ``trial_meta`` column or ``"stimulus"``)."""
        i = [b for _label, b in self.choices].index(by)
        self.group_combo.setCurrentIndex(i)

    def channels(self) -> list[int]:
        lst = self.channel_list
        return [i for i in range(lst.count())
                if lst.item(i).checkState() == Qt.CheckState.Checked]

    def set_channels(self, channels: list[int]) -> None:
        """Average exactly ``channels`` (indices)."""
        lst = self.channel_list
        lst.blockSignals(True)
        for i in range(lst.count()):
            lst.item(i).setCheckState(Qt.CheckState.Checked if i in channels
                                      else Qt.CheckState.Unchecked)
        lst.blockSignals(False)
        self._channels_changed()

    def time_window(self) -> tuple[float, float] | None:
        """The window asked for; None when it is the recording's own."""
        shown = (self.win_from.value(), self.win_to.value())
        if tuple(self._samples(v) for v in shown) == self._axis.window_samples:
            return None
        return self._from_spin(shown[0]), self._from_spin(shown[1])

    def set_time_window(self, start: float, stop: float) -> None:
        """Set the window, in the spin boxes' unit (ms, or samples)."""
        self.win_from.setValue(start)
        self.win_to.setValue(stop)

    def baseline(self) -> Any:
        value = self.base_combo.currentData()
        if value == "custom":
            return self._from_spin(self.base_from.value()), self._from_spin(self.base_to.value())
        return value

    def set_baseline(self, label: str) -> None:
        """Choose a baseline by its label (``"pre-stimulus"``, ``"custom"``...)."""
        self.base_combo.setCurrentIndex(self.base_combo.findText(label))

    def chosen_trials(self) -> tuple[int, ...] | None:
        if (self.selected_box.isChecked() and self.selection is not None
                and not self.selection.is_empty()):
            return tuple(self.selection.trials.tolist())
        return None

    def average_request(self) -> AverageRequest:
        return AverageRequest(self.by(), tuple(self.channels()), self.time_window(),
                              self.baseline(), self.chosen_trials())

    def image_request(self) -> ImageRequest:
        return ImageRequest(self.image.channel(), self.image.sort_by(), self.time_window(),
                            self.baseline())

    # -- running -----------------------------------------------------------------
    def schedule(self, *_args: Any) -> None:
        """Recompute both views shortly (debounced)."""
        if self.axis is not None and hasattr(self, "_timer"):
            self._timer.start()

    def run(self) -> None:
        """Recompute both views now."""
        self._timer.stop()
        if self.by() is None:
            self.average.show_placeholder("No grouping: the recording has neither stimulus "
                                          "IDs per trial nor trial metadata.")
        elif not self.channels():
            self.average.show_placeholder("Choose at least one channel (Channels).")
        else:
            self.average.run(self.average_request())
            self._show_selection()
        self.image.run(self.image_request())
        self.requested.emit()

    def is_idle(self) -> bool:
        """Nothing asked for and not yet drawn (``--screenshot`` waits for this)."""
        if self.axis is None:
            return True
        return not self._timer.isActive() and self.average.is_idle() and self.image.is_idle()

    def shutdown(self) -> None:
        """Stop the running jobs (the tab is closing); their results are dropped."""
        if self.axis is None:
            return
        self._timer.stop()
        for key in self.average.job_keys() + self.image.job_keys():
            self.jobs.cancel(key)

    # -- selection ---------------------------------------------------------------
    def _update_selected_box(self) -> None:
        has = self.selection is not None and not self.selection.is_empty()
        self.selected_box.setEnabled(has)
        n = self.selection.count if self.selection is not None else 0
        self.selected_box.setText(f"Selected trials only ({n})" if has
                                  else "Selected trials only")

    def _selection_changed(self, source: object) -> None:
        if self.selection is not None:
            self.image.show_selection(self.selection.trials)
        self._update_selected_box()
        if self.selected_box.isChecked():
            self.schedule()
        else:
            self._show_selection()

    def selection_request(self) -> AverageRequest | None:
        """The average of the selected trials drawn over the conditions: None when
        nothing is selected or the conditions are already of the selection only."""
        if (self.selection is None or self.selection.is_empty()
                or self.selected_box.isChecked() or not self.channels()):
            return None
        request = self.average_request()
        return AverageRequest(request.by, request.channels, request.window, request.baseline,
                              tuple(self.selection.trials.tolist()))

    def _show_selection(self) -> None:
        if self.by() is not None:
            self.average.show_selection(self.selection_request())

    def _image_clicked(self, trials: np.ndarray, modifiers: Any) -> None:
        if self.selection is None:
            return
        mods = Qt.KeyboardModifier(modifiers)
        if mods & Qt.KeyboardModifier.ControlModifier:
            current = set(self.selection.trials.tolist())
            clicked = set(trials.tolist())
            new = current - clicked if clicked <= current else current | clicked
            self.selection.set_trials(sorted(new), source=self)
        else:
            self.selection.set_trials(trials, source=self)
