"""The Representations panel: feature and neural dissimilarity matrices side by side.

Top: the metric, the layer (vision record) shown and the stimulus order
(record order, clustered by the features or by the responses, or sorted by
a trial-metadata column).  Middle: the two matrices as images in that one
order; hovering a cell names the stimulus pair and both dissimilarities;
clicking it selects the two stimuli (the Stimuli tab) and their trials (the
document's trial selection).  Bottom: the Spearman agreement of every layer,
filled where the permutation p-value is below 0.05.

Every computation runs on the job runner (``representational_similarity``,
then the arrangement of one layer); the GUI thread only draws the results.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from inspector.formats.analysis.rsa.compute import (
    LayerResult,
    RsaOptions,
    RsaResult,
    representational_similarity,
)
from inspector.formats.analysis.rsa.features import METRICS, square_form
from inspector.formats.analysis.rsa.order import (
    MAX_CLUSTERED,
    clustered_order,
    order_by_values,
)
from inspector.jobs import JobContext, JobRunner
from inspector.ui.colormaps import colormap
from inspector.ui.flow_layout import FlowLayout, group
from inspector.ui.plots.base import plot_widget_in_steps

#: Order choices before the trial-metadata columns.
ORDERS = (("record order", "record"), ("clustered by the features", "features"),
          ("clustered by the responses", "neural"))
#: p-values below this fill the layer's marker.
ALPHA = 0.05
#: Plot widgets of the panel: the two matrices and the agreement by layer.
PLOTS = 3
#: Up to this many stimuli, the matrices' axes name each one.
MAX_NAMED = 40


@dataclass(frozen=True)
class Arranged:
    """One layer's two matrices in one stimulus order (computed off the GUI thread).

    Attributes:
        layer: the layer shown.
        features, neural: float64 ``(m, m)`` in ``order``.
        record_ids: the record's ID of each row, in ``order``.
        trial_ids: the trials' typed ID of each row (what the selection takes).
        note: why the order asked for could not be used, or ``""``.
        images: both matrices coloured, uint8 RGBA ``(m, m, 4)`` (0 to each matrix's
            largest finite value through the colour map; not finite: transparent),
            so that the GUI thread only hands them to the image items.
    """

    layer: LayerResult
    features: np.ndarray
    neural: np.ndarray
    record_ids: list[Any]
    trial_ids: list[Any]
    note: str = ""
    images: tuple[np.ndarray, ...] = ()


def coloured(values: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """uint8 RGBA ``values.shape + (4,)`` of a dissimilarity matrix: 0 to its largest
    finite value (1 when none is above 0) spread over ``lut`` (uint8 ``(256, 4)``); cells
    not finite are transparent.  Runs on a job: a 2 000-stimulus matrix coloured by
    pyqtgraph on the GUI thread took 60-75 ms a paint."""
    finite = np.isfinite(values)
    top = float(values[finite].max()) if finite.any() else 1.0
    top = top if top > 0 else 1.0
    scaled = np.where(finite, values, 0.0) * ((len(lut) - 1) / top)
    index = np.clip(scaled, 0, len(lut) - 1).astype(np.uint8)
    out = lut[index]
    out[~finite] = 0
    return out


def _meta_values(doc: Any, column: str, trial_ids: list[Any]) -> list[Any]:
    """Each stimulus's value of ``column``: that of the first trial that showed it."""
    from inspector.formats.analysis.trial_matrix import condition_of_value

    table = doc.trial_table()
    if table is None:
        return [None] * len(trial_ids)
    frame = table.frame()
    values = frame[column].tolist()
    first: dict[Any, Any] = {}
    for stim, value in zip(doc.trials.trial_stim_ids, values, strict=False):
        first.setdefault(condition_of_value(stim), value)
    return [first.get(condition_of_value(v)) for v in trial_ids]


def arrange(doc: Any, result: RsaResult, index: int, how: str,
            lut: np.ndarray | None = None) -> Arranged:
    """Layer ``index``'s matrices in the order ``how`` (``record``, ``features``,
    ``neural`` or a trial-metadata column), coloured through ``lut`` when given
    (:func:`coloured`)."""
    layer = result.layers[index]
    m = int(layer.used.shape[0])
    feats = square_form(_sub(layer), m)
    neural = square_form(result.neural_rdms[layer.name], m)
    group_of = dict(zip(layer.match.rows.tolist(), layer.match.groups.tolist(), strict=True))
    record_ids = layer.compared_ids()
    trial_ids = [result.groups[group_of[int(r)]].value for r in layer.used]
    order, note = np.arange(m), ""
    if how in ("features", "neural"):
        if m > MAX_CLUSTERED:
            note = f"{m:,} stimuli: clustering orders at most {MAX_CLUSTERED:,}; record order shown"
        else:
            order = clustered_order(feats if how == "features" else neural)
    elif how != "record":
        order = order_by_values(_meta_values(doc, how, trial_ids))
    pick = np.ix_(order, order)
    feats, neural = feats[pick], neural[pick]
    images = () if lut is None else (coloured(feats, lut), coloured(neural, lut))
    return Arranged(layer, feats, neural, [record_ids[i] for i in order],
                    [trial_ids[i] for i in order], note, images)


def plot_widgets_in_steps(n: int = PLOTS) -> Generator[None, None, list[pg.PlotWidget]]:
    """``n`` bare plot widgets for :class:`RepresentationsPanel` (``plots=``), made over
    event-loop turns (:func:`~inspector.ui.turns.run_in_turns`; each
    :func:`~inspector.ui.plots.base.plot_widget_in_steps`): made at once with the
    panel, its three plots took 40-65 ms of the GUI thread.  Closed early, the widgets
    made so far are deleted."""
    made: list[pg.PlotWidget] = []
    try:
        for _ in range(n):
            for widget in plot_widget_in_steps():
                if widget is None:
                    yield None
                else:
                    made.append(widget)
                    break
    except GeneratorExit:
        for widget in made:
            widget.deleteLater()
        raise
    return made


def _sub(layer: LayerResult) -> np.ndarray:
    from inspector.formats.analysis.rsa.features import sub_condensed

    return sub_condensed(layer.feature_rdm.condensed, layer.feature_rdm.n, layer.used)


class RepresentationsPanel(QWidget):
    """See the module docstring.

    Args:
        doc: the recording (vision records, trials with stimulus IDs).
        jobs: the runner every computation goes to.
        selection: the document's trial selection (clicking a cell sets it), or None.
    """

    def __init__(self, doc: Any, jobs: JobRunner, selection: Any, parent: QWidget | None = None,
                 permutations: int | None = None,
                 choices: Callable[[], dict[str, Any]] | None = None,
                 plots: Sequence[pg.PlotWidget] = ()) -> None:
        super().__init__(parent)
        self.doc, self.jobs, self.selection = doc, jobs, selection
        self._made = list(plots)  # bare plot widgets made ahead (plot_widgets_in_steps)
        self.permutations = permutations
        self.choices = choices
        self.asked: RsaOptions | None = None
        self.result: RsaResult | None = None
        self.arranged: Arranged | None = None
        self._key = f"rsa-{id(self)}"
        self._build_controls()
        self._build_plots()
        self.compute()

    # -- building -----------------------------------------------------------------------
    def _build_controls(self) -> None:
        self.metric_box = QComboBox(self)
        self.metric_box.addItems(list(METRICS))
        self.metric_box.setAccessibleName("Dissimilarity")
        self.layer = QComboBox(self)
        self.layer.setAccessibleName("Layer")
        self.order = QComboBox(self)
        self.order.setAccessibleName("Stimulus order")
        for label, key in ORDERS:
            self.order.addItem(label, key)
        table = self.doc.trial_table()
        for name in (table.labels if table is not None else []):
            if isinstance(name, str):
                self.order.addItem(f"by {name}", name)
        for box in (self.metric_box, self.layer, self.order):  # whole choices, never cut
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        bar = FlowLayout()  # a narrow pane wraps the choices onto a second line
        for text, box in (("Dissimilarity", self.metric_box), ("Layer", self.layer),
                          ("Order", self.order)):
            bar.addWidget(group(QLabel(text, self), box))
        self._bar = bar
        self.metric_box.currentIndexChanged.connect(lambda _i: self.compute())
        self.layer.currentIndexChanged.connect(lambda _i: self.rearrange())
        self.order.currentIndexChanged.connect(lambda _i: self.rearrange())

    def _plot_widget(self) -> pg.PlotWidget:
        """One of the bare plot widgets made ahead, else a new one."""
        if self._made:
            widget = self._made.pop(0)
            widget.setParent(self)
            return widget
        return pg.PlotWidget(self)

    def _matrix_plot(self, title: str) -> tuple[pg.PlotWidget, pg.ImageItem]:
        widget = self._plot_widget()
        widget.setTitle(title)
        item = pg.ImageItem(axisOrder="row-major")
        widget.addItem(item)
        widget.getViewBox().invertY(True)
        widget.getViewBox().setAspectLocked(True)
        widget.setMenuEnabled(False)
        widget.scene().sigMouseMoved.connect(lambda pos, w=widget: self._hover(w, pos))
        widget.scene().sigMouseClicked.connect(lambda ev, w=widget: self._clicked(w, ev))
        return widget, item

    def _build_plots(self) -> None:
        #: The matrices' colours (viridis, uint8 RGBA (256, 4)), applied on the job.
        self._lut = np.asarray(colormap("viridis").getLookupTable(nPts=256, alpha=True),
                               dtype=np.uint8)
        self.features_plot, self.features_image = self._matrix_plot("Features")
        self.neural_plot, self.neural_image = self._matrix_plot("Responses")
        self.curve_plot = self._plot_widget()
        self.curve_plot.setTitle("Spearman ρ by layer (filled: p below 0.05)")
        self.curve_plot.setMaximumHeight(200)
        self.curve_plot.setMinimumHeight(130)
        self.curve_plot.setYRange(-1.0, 1.0, padding=0.05)
        self.curve_plot.getAxis("left").setTicks([[(-1.0, "-1"), (0.0, "0"), (1.0, "1")]])
        self.curve_plot.addItem(pg.InfiniteLine(0.0, angle=0, pen=pg.mkPen((128, 128, 128),
                                                                           width=1)))
        self.curve_plot.setMenuEnabled(False)
        self.curve = pg.PlotDataItem(symbol="o", symbolSize=9)
        self.curve_plot.addItem(self.curve)
        self.hover = QLabel("Hover a cell to name the stimulus pair; click it to select the "
                            "two stimuli and their trials.", self)
        self.hover.setWordWrap(True)
        self.hover.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        pair = QHBoxLayout()
        pair.addWidget(self.features_plot, 1)
        pair.addWidget(self.neural_plot, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(self._bar)
        lay.addWidget(self.status)
        lay.addLayout(pair, 3)
        lay.addWidget(self.hover)
        lay.addWidget(self.curve_plot, 1)
        self._restyle()

    # -- computing (job runner) -------------------------------------------------------------
    def options(self) -> RsaOptions:
        """What the panel asks for: the chosen metric, every record, and the Trials tab's
        window, baseline and channels (``choices``) when it has them."""
        kw: dict[str, Any] = {"metric": self.metric_box.currentText()}
        if self.permutations is not None:
            kw["permutations"] = self.permutations
        if self.choices is not None:
            kw.update(self.choices())
        return RsaOptions(**kw)

    def refresh(self) -> None:
        """Compute again when the options changed since the last computation."""
        if self.options() != self.asked:
            self.compute()

    def compute(self) -> None:
        """Compare every record again (the metric changed, or first shown)."""
        options = self.options()
        self.asked = options
        doc = self.doc
        self.status.setText(f"Computing the {options.metric} matrices…")

        def work(ctx: JobContext) -> RsaResult:
            return representational_similarity(
                doc, options, progress=lambda p: ctx.progress(p.done, p.total),
                cancelled=lambda: ctx.cancelled)

        self.jobs.submit(work, on_done=self._computed, on_error=self._failed,
                         on_progress=self._progress, key=self._key)

    def _progress(self, done: int, total: int, _payload: Any) -> None:
        self.status.setText(f"Computing… {100 * done // max(1, total)} %")

    def _failed(self, message: str, _tb: str) -> None:
        if message != "cancelled":
            self.status.setText(f"Not computed: {message}")

    def _computed(self, result: RsaResult) -> None:
        self.result = result
        keep = self.layer.currentIndex()
        self.layer.blockSignals(True)
        self.layer.clear()
        for layer in result.layers:
            self.layer.addItem(f"{layer.module_name or layer.name} ({layer.name})")
        self.layer.setCurrentIndex(max(0, min(keep, len(result.layers) - 1)))
        self.layer.blockSignals(False)
        self._draw_curve(result)
        self.rearrange()

    def rearrange(self) -> None:
        """Arrange the chosen layer in the chosen order (on the job runner)."""
        result, index = self.result, self.layer.currentIndex()
        if result is None or index < 0:
            return
        layer = result.layers[index]
        if layer.agreement is None or layer.name not in result.neural_rdms:
            self.arranged = None
            self.features_image.clear()
            self.neural_image.clear()
            why = "; ".join(f.message for f in layer.findings) or "too few stimuli in common"
            self.status.setText(f"{layer.name} is not compared: {why}")
            return
        how, doc = self.order.currentData(), self.doc
        lut = self._lut
        self.jobs.submit(lambda ctx: arrange(doc, result, index, how, lut), on_done=self._draw,
                         on_error=self._failed, key=self._key + "-order")

    # -- drawing -----------------------------------------------------------------------------
    def _draw(self, arranged: Arranged) -> None:
        self.arranged = arranged
        for item, image in zip((self.features_image, self.neural_image), arranged.images,
                               strict=True):
            item.setImage(image, levels=None, autoLevels=False)  # (coloured on the job)
        m = len(arranged.record_ids)
        ticks = ([(i + 0.5, str(v)) for i, v in enumerate(arranged.record_ids)]
                 if m <= MAX_NAMED else [])
        for widget in (self.features_plot, self.neural_plot):
            for side in ("left", "bottom"):
                widget.getAxis(side).setTicks([ticks] if ticks else None)
            widget.getViewBox().autoRange(padding=0.02)
        a = arranged.layer.agreement
        assert a is not None
        text = (f"{arranged.layer.name} {arranged.layer.module_name}: ρ = {a.rho:.3f}, "
                f"p = {a.p_value:.4f} ({a.permutations:,} permutations), {a.stimuli:,} stimuli"
                f"{self._neural_text()}")
        self.status.setText(text + (f". {arranged.note}" if arranged.note else ""))

    def _neural_text(self) -> str:
        n = self.result.neural if self.result is not None else None
        if n is None or n.window_samples is None:
            return ""
        neural = self.doc.neural_array()
        every = n.channels is None or neural is None or len(n.channels) == int(neural.shape[-1])
        chans = "all channels" if every else f"{len(n.channels or ()):,} channels"
        base = "no baseline" if n.baseline_samples is None else "baseline corrected"
        return (f"; responses: {chans}, window {list(n.window_samples)} samples, {base} "
                "(the Trials tab's choices)")

    def _draw_curve(self, result: RsaResult) -> None:
        rho = [math.nan if layer.agreement is None else layer.agreement.rho
               for layer in result.layers]
        x = np.arange(len(rho), dtype=float)
        filled = [layer.agreement is not None and layer.agreement.p_value < ALPHA
                  for layer in result.layers]
        text = self.palette().color(QPalette.ColorRole.Text)
        brushes = [pg.mkBrush(text) if f else pg.mkBrush(0, 0, 0, 0) for f in filled]
        self.curve.setData(x, np.asarray(rho, dtype=float), symbolBrush=brushes,
                           symbolPen=pg.mkPen(text), pen=pg.mkPen(text, width=1.5))
        ticks = [(float(i), layer.module_name or layer.name)
                 for i, layer in enumerate(result.layers)]
        self.curve_plot.getAxis("bottom").setTicks([ticks])
        self.curve_plot.setXRange(-0.5, max(0.5, len(rho) - 0.5))

    # -- hover and click -------------------------------------------------------------------------
    def cell_at(self, widget: pg.PlotWidget, scene_pos: Any) -> tuple[int, int] | None:
        """The ``(row, column)`` of the matrix under ``scene_pos``, or None."""
        arranged = self.arranged
        if arranged is None or not widget.sceneBoundingRect().contains(scene_pos):
            return None
        point = widget.getViewBox().mapSceneToView(scene_pos)
        row, col = int(math.floor(point.y())), int(math.floor(point.x()))
        m = arranged.features.shape[0]
        return (row, col) if 0 <= row < m and 0 <= col < m else None

    def hover_text(self, row: int, col: int) -> str:
        """The stimulus pair of a cell and both dissimilarities."""
        a = self.arranged
        assert a is not None
        return (f"{a.record_ids[row]!r} × {a.record_ids[col]!r}: features "
                f"{a.features[row, col]:.4g}, responses {a.neural[row, col]:.4g}")

    def _hover(self, widget: pg.PlotWidget, pos: Any) -> None:
        cell = self.cell_at(widget, pos)
        if cell is not None:
            self.hover.setText(self.hover_text(*cell))

    def select_cell(self, row: int, col: int) -> None:
        """Select the cell's two stimuli and their trials (the trial selection)."""
        a = self.arranged
        if a is None or self.selection is None:
            return
        self.selection.select_stimuli([a.trial_ids[row], a.trial_ids[col]], source=self)

    def _clicked(self, widget: pg.PlotWidget, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        cell = self.cell_at(widget, event.scenePos())
        if cell is not None:
            self.select_cell(*cell)

    # -- theme ------------------------------------------------------------------------------------
    def _restyle(self) -> None:
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.Text)
        for widget in (self.features_plot, self.neural_plot, self.curve_plot):
            widget.setBackground(palette.color(QPalette.ColorRole.Base))
            for side in ("left", "bottom"):
                widget.getAxis(side).setPen(pg.mkPen(text))
                widget.getAxis(side).setTextPen(pg.mkPen(text))
            widget.getPlotItem().titleLabel.setText(
                widget.getPlotItem().titleLabel.text, color=text)
        if self.result is not None:
            self._draw_curve(self.result)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def is_idle(self) -> bool:
        """True once the matrices (or why there are none) are shown."""
        return self.result is not None and not self.status.text().startswith("Computing")
