"""Features of the stimuli: an array of one row per stimulus, shown against its stimuli.

A :class:`~inspector.formats.capabilities.StimulusFeatures` array (a vision
model's output, ``(stimuli, ...)``) has no time axis: it is drawn as a heat map
of stimulus (rows, labelled by stimulus ID) x feature (the further axes
flattened, in C order), above the curves of the chosen stimuli (value against
feature).  The list beside the heat map names every row by its stimulus ID;
hovering a row or choosing one shows that stimulus's image (decoded on a job).
Nothing here draws trial markers or a time axis.

The view is registered in :mod:`inspector.ui.plots.registry`; the tab keeps its
choice of stimuli in step with the Stimuli tab (:mod:`inspector.ui.stimulus_link`).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics, QImage, QPalette, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.capabilities import Stimulus, StimulusFeatures
from inspector.jobs import JobRunner
from inspector.models.value_text import value_text
from inspector.ui.image_convert import Unloadable, thumbnail
from inspector.ui.plots.base import new_plot_widget
from inspector.ui.plots.heat_map import HeatMapView
from inspector.ui.plots.view_request import ArrayView, ViewRequest
from inspector.ui.stimulus_link import id_key

#: Values read at most for the heat map; more stimuli are shown every k-th row.
MAX_VALUES = 4_000_000
#: Row labels written on the heat map's axis at most (every k-th beyond).
MAX_ROW_TICKS = 40
#: Side of the stimulus image beside the heat map, in pixels.
IMAGE_SIDE = 160
#: Curves drawn at most (the first chosen stimuli).
MAX_CURVES = 12
#: Narrowest view (pixels) whose heat map keeps the stimulus list and image beside it;
#: a narrower view puts them beside the curves, so that the heat map has the width.
SIDE_BESIDE_HEAT_MAP = 600
#: Room an axis label leaves at the ends of its axis (pixels).
LABEL_MARGIN = 10


def read_features(ref: ArrayRef, max_values: int = MAX_VALUES) -> tuple[np.ndarray, int]:
    """float64 ``(rows', features)`` of ``ref`` (further axes flattened in C order) and the
    row step used: every ``step``-th stimulus when the array holds more than
    ``max_values`` values.  Non-finite values become NaN.

    Raises:
        OSError: the file cannot be read (``ArrayRef.read``).
    """
    rows = int(ref.shape[0]) if ref.ndim else 1
    width = int(np.prod(ref.shape[1:], dtype=np.int64)) if ref.ndim > 1 else 1
    step = max(1, math.ceil(rows * width / max_values)) if rows and width else 1
    data = ref.read((slice(0, rows, step),)) if ref.ndim else ref.read(Ellipsis)
    img = np.asarray(data, dtype=np.float64).reshape(-1, width)
    img[~np.isfinite(img)] = np.nan
    return img, step


def row_ticks(labels: list[str], step: int) -> list[tuple[float, str]]:
    """The heat map's row ticks: ``(y, label)`` of at most :data:`MAX_ROW_TICKS` rows."""
    every = max(1, math.ceil(len(labels) / MAX_ROW_TICKS))
    return [(float(r * step), labels[r]) for r in range(0, len(labels), every)]


class FeatureView(HeatMapView):
    """Heat map (stimulus x feature), per-stimulus curves and the stimulus image.

    Args:
        features: the capability naming the array, its stimulus IDs and axes.
        stimuli: the document's stimulus images (matched to rows by typed ID).
        jobs: runs the read and the image decoding.

    Attributes:
        image: the values drawn, ``(rows', features)`` float64 (None until read).
        step: rows of the array per drawn row.
        row_list: one item per drawn row, labelled by its stimulus ID.
        curve_plot: the plot of the chosen stimuli's curves (value against feature).
        picture: the image of the stimulus hovered or chosen.
        shown_id: the typed ID whose image is asked for (None: none).

    Signals:
        stimuli_chosen(list): the typed IDs the user chose (list or heat map).
    """

    stimuli_chosen = Signal(list)
    x_label = "feature"
    y_label = "value"

    def __init__(self, features: StimulusFeatures, stimuli: list[Stimulus], jobs: JobRunner,
                 parent: QWidget | None = None, plot_widget: pg.PlotWidget | None = None) -> None:
        super().__init__(features.array, jobs, parent, plot_widget)
        self.features = features
        self.shown_id: Any = None
        self._stimuli = {id_key(s.stim_id): s for s in stimuli}
        self._images: dict[tuple[str, str], QImage | str] = {}
        self._decoding = False
        self._syncing = False
        self.plot_item.setLabel("bottom", self._feature_label())
        self.plot_item.setLabel("left", "stimulus (ID)")
        self.row_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen("w", width=1))
        self.row_line.hide()
        self.plot_item.addItem(self.row_line, ignoreBounds=True)
        self._lay_out_body()
        self.plot_widget.scene().sigMouseMoved.connect(self._hovered)
        self.plot_widget.scene().sigMouseClicked.connect(self._clicked)
        self.start_read(lambda: read_features(self.ref))

    def _feature_label(self) -> str:
        axes = self.features.axes[1:]
        if len(axes) <= 1:
            return axes[0] if axes else "feature"
        return f"feature ({' × '.join(axes)}, flattened)"

    def _lay_out_body(self) -> None:
        """Heat map beside the stimulus list and image, above the curves plot."""
        self.row_list = QListWidget()
        self.row_list.setAccessibleName("Stimuli of the features")
        self.row_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.row_list.itemSelectionChanged.connect(self._list_chosen)
        self.picture = QLabel("hover a row to see its stimulus")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setWordWrap(True)
        self.picture.setMinimumSize(IMAGE_SIDE, IMAGE_SIDE)
        side = QWidget()
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(0, 0, 0, 0)
        side_lay.addWidget(self.row_list, 1)
        side_lay.addWidget(self.picture)
        side.setFixedWidth(IMAGE_SIDE + 24)
        self.curve_widget = new_plot_widget()
        self.curve_plot = self.curve_widget.getPlotItem()
        self.curve_plot.setLabel("bottom", self._feature_label())
        self.curve_plot.setLabel("left", str(self.ref.attrs.get("unit") or "value"))
        self.curve_plot.showGrid(x=True, y=True, alpha=0.2)
        self.curve_plot.addLegend(offset=(-10, 10))
        self.palette_changed()
        self.side = side
        top, bottom = QWidget(), QWidget()
        self._rows = (QHBoxLayout(top), QHBoxLayout(bottom))
        for row in self._rows:
            row.setContentsMargins(0, 0, 0, 0)
        lay = self.layout()
        assert isinstance(lay, QVBoxLayout)
        lay.removeWidget(self._stack)
        self._rows[0].addWidget(self._stack, 1)
        self._rows[1].addWidget(self.curve_widget, 1)
        self._rows[0].addWidget(side)
        self.body = QSplitter(Qt.Orientation.Vertical)
        self.body.addWidget(top)
        self.body.addWidget(bottom)
        self.body.setStretchFactor(0, 3)
        self.body.setStretchFactor(1, 2)
        lay.insertWidget(1, self.body, 1)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """Narrow: the stimulus list and image go beside the curves (the heat map keeps
        the width); each feature axis names its axes in full where the label fits."""
        super().resizeEvent(event)
        row = self._rows[0] if self.width() >= SIDE_BESIDE_HEAT_MAP else self._rows[1]
        if row.indexOf(self.side) < 0:
            row.addWidget(self.side)
        QTimer.singleShot(0, self._fit_feature_labels)  # once the rows are laid out

    def _fit_feature_labels(self) -> None:
        """Each feature axis's label: the full one (naming the flattened axes) where it fits
        the axis, else the widest shorter one that does; the full one is its tooltip."""
        full = self._feature_label()
        for item in (self.plot_item, self.curve_plot):
            axis = item.getAxis("bottom")
            room = axis.geometry().width() - LABEL_MARGIN
            metrics = QFontMetrics(axis.label.font())
            text = next((t for t in (full, "feature (flattened)")
                         if metrics.horizontalAdvance(t) <= room), "feature")
            if axis.labelText != text:
                item.setLabel("bottom", text)
            axis.setToolTip(full)

    def palette_changed(self) -> None:
        """The theme changed (:func:`~inspector.ui.plots.theming.follow_palette` restyles the
        heat map): the curves plot in the new colours too."""
        palette = self.palette()
        text = pg.mkPen(palette.color(QPalette.ColorRole.Text))
        self.curve_widget.setBackground(palette.color(QPalette.ColorRole.Base))
        for name in ("left", "bottom"):
            self.curve_plot.getAxis(name).setPen(text)
            self.curve_plot.getAxis(name).setTextPen(text)
        legend = self.curve_plot.legend
        if legend is not None:
            legend.setLabelTextColor(palette.color(QPalette.ColorRole.Text))

    # -- reading ------------------------------------------------------------------
    def job_keys(self) -> tuple[str, ...]:
        """The keys of this view's read and image jobs (see :meth:`PlotView.job_keys`)."""
        return (f"features:{id(self)}", f"features-image:{id(self)}")

    def is_idle(self) -> bool:
        """True once the values were read (or could not be) and the stimulus image asked
        for is shown (or said missing)."""
        return not self._reading and not self._decoding

    def image_read(self, img: np.ndarray) -> None:
        self._draw_heat_map(img)
        self._fill_rows()
        if self.row_list.count():
            self.row_list.setCurrentRow(0)

    def _draw_heat_map(self, img: np.ndarray) -> None:
        lo, hi = self.draw_heat_map(img)
        note = f", every {self.step}th stimulus" if self.step > 1 else ""
        self.status.setText(f"{int(self.ref.shape[0]):,} stimuli × {img.shape[1]:,} features"
                            f"{note}; range {lo:.4g} … {hi:.4g}")

    # -- rows and their stimuli ---------------------------------------------------------
    def row_id(self, row: int) -> Any:
        """The typed stimulus ID of drawn row ``row`` (None when the document gives none)."""
        ids, index = self.features.stim_ids, row * self.step
        return ids[index] if 0 <= index < len(ids) else None

    def row_label(self, row: int) -> str:
        """The label of drawn row ``row``: its stimulus ID, else ``row <i>``."""
        sid = self.row_id(row)
        return value_text(sid) if sid is not None else f"row {row * self.step}"

    def _fill_rows(self) -> None:
        assert self.image is not None
        labels = [self.row_label(r) for r in range(self.image.shape[0])]
        self.row_list.addItems(labels)
        self.plot_item.getAxis("left").setTicks([row_ticks(labels, self.step)])

    def _row_at(self, scene_pos: QPointF) -> int | None:
        if self.image is None or not self.plot_item.sceneBoundingRect().contains(scene_pos):
            return None
        y = self.plot_item.vb.mapSceneToView(scene_pos).y()
        row = int(round(y / self.step))
        return row if 0 <= row < self.image.shape[0] else None

    def _hovered(self, scene_pos: QPointF) -> None:
        row = self._row_at(scene_pos)
        if row is None:
            self.row_line.hide()
            return
        self.row_line.setPos(row * self.step)
        self.row_line.show()
        self.show_stimulus(self.row_id(row))

    def _clicked(self, event: Any) -> None:
        row = self._row_at(event.scenePos())
        if row is not None:
            self.row_list.setCurrentRow(row)

    def chosen_rows(self) -> list[int]:
        """The drawn rows chosen in the list, in order."""
        return sorted(self.row_list.row(i) for i in self.row_list.selectedItems())

    def _list_chosen(self) -> None:
        rows = self.chosen_rows()
        self._draw_curves(rows)
        if rows:
            self.show_stimulus(self.row_id(self.row_list.currentRow()
                                           if self.row_list.currentRow() in rows else rows[0]))
        if not self._syncing:
            self.stimuli_chosen.emit([self.row_id(r) for r in rows if self.row_id(r) is not None])

    def select_ids(self, ids: list[Any]) -> None:
        """Choose the rows of the typed stimulus ``ids`` (the Stimuli tab's selection),
        without emitting :attr:`stimuli_chosen`."""
        if self.image is None:
            return
        wanted = {id_key(v) for v in ids}
        self._syncing = True
        try:
            self.row_list.clearSelection()
            for r in range(self.row_list.count()):
                sid = self.row_id(r)
                if sid is not None and id_key(sid) in wanted:
                    self.row_list.item(r).setSelected(True)
        finally:
            self._syncing = False
        rows = self.chosen_rows()
        if rows:
            self.row_list.scrollToItem(self.row_list.item(rows[0]))

    def _draw_curves(self, rows: list[int]) -> None:
        self.curve_plot.clear()
        if self.image is None:
            return
        x = np.arange(self.image.shape[1], dtype=np.float64)
        for k, r in enumerate(rows[:MAX_CURVES]):
            pen = pg.mkPen(pg.intColor(k, hues=max(len(rows[:MAX_CURVES]), 1)), width=1)
            self.curve_plot.plot(x, self.image[r], pen=pen,
                                 name=f"stimulus {self.row_label(r)}")

    # -- the stimulus image ---------------------------------------------------------------
    def show_stimulus(self, stim_id: Any) -> None:
        """Show the image of the stimulus ``stim_id`` (decoded on a job the first time)."""
        if stim_id is None or (self.shown_id is not None
                               and id_key(stim_id) == id_key(self.shown_id)):
            return
        self.shown_id = stim_id
        key = id_key(stim_id)
        stim = self._stimuli.get(key)
        if stim is None:
            self._set_picture(f"stimulus {value_text(stim_id)}: no image in this file")
        elif key in self._images:
            self._set_picture(self._images[key])
        else:
            self._set_picture(f"stimulus {value_text(stim_id)}: decoding…")
            self._decoding = True
            self.jobs.submit(partial(_decode, stim), key=self.job_keys()[1],
                             on_done=partial(self._decoded, key),
                             on_error=partial(self._decode_failed, key))

    def _decoded(self, key: tuple[str, str], image: QImage | Unloadable) -> None:
        self._decoding = False
        got = image if isinstance(image, QImage) else f"cannot be shown: {image.reason}"
        self._images[key] = got
        if self.shown_id is not None and id_key(self.shown_id) == key:
            self._set_picture(got)

    def _decode_failed(self, key: tuple[str, str], message: str, _tb: str) -> None:
        self._decoded(key, Unloadable(message))

    def _set_picture(self, what: QImage | str) -> None:
        if isinstance(what, QImage):
            self.picture.setPixmap(QPixmap.fromImage(what))
            self.picture.setToolTip(f"stimulus {value_text(self.shown_id)}")
        else:
            self.picture.setPixmap(QPixmap())
            self.picture.setText(what)

    # -- exports --------------------------------------------------------------------------
    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(name, x, y)`` of the chosen stimuli's curves."""
        out = []
        for item in self.curve_plot.listDataItems():
            x, y = item.getOriginalDataset()
            if x is not None and y is not None:
                out.append((str(item.name()), np.asarray(x, dtype=np.float64),
                            np.asarray(y, dtype=np.float64)))
        return out


def _decode(stim: Stimulus, _ctx: object = None) -> QImage | Unloadable:
    """The stimulus image fitted in :data:`IMAGE_SIDE` (a job: ``Stimulus.load`` reads)."""
    try:
        return thumbnail(stim.load(), IMAGE_SIDE)
    except (OSError, ValueError) as exc:  # Stimulus.load's failures; not a bug
        return Unloadable(str(exc) or type(exc).__name__)


# -- its place in the view registry (inspector.ui.plots.registry) ---------------------
def _features_priority(r: ViewRequest) -> int | None:
    return 50 if r.ref is not None and r.doc.features_of(r.ref) is not None else None


def _make_features(r: ViewRequest) -> FeatureView:
    assert r.ref is not None
    features = r.doc.features_of(r.ref)
    assert features is not None
    return FeatureView(features, r.doc.stimuli, r.jobs, plot_widget=r.plot_widget)


FEATURES = ArrayView("features of the stimuli", _features_priority, _make_features)
