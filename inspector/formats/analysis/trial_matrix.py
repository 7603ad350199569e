"""Every trial at once: the trials ordered by condition (:func:`trial_order`), their axis
of time (:func:`trial_axis`), and a time-binned matrix of one channel, a row per trial
(:func:`trial_matrix`), for the trial image."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.analysis.trial_average import (
    chosen_trials,
    each_block,
    per_trial_offsets,
    read_plan,
)
from inspector.formats.analysis.trial_conditions import (
    FLOAT_BINS,
    STIMULUS,
    Condition,
    condition_of_trials,
    trial_count,
    trials_and_neuro,
    typed_condition,
)
from inspector.formats.capabilities import CancelFn, ProgressFn

if TYPE_CHECKING:

    from inspector.formats.document import Document


#: Most time bins :func:`trial_matrix` keeps by default (about a wide plot's width).
MATRIX_BINS = 2048


#: Most values :func:`trial_matrix` returns (rows x bins); more trials share rows.
MATRIX_VALUES = 4_000_000


def condition_of_value(value: Any) -> Condition:
    """The typed condition of one value, as :func:`condition_of_trials` groups it.

    ``1``, ``"1"`` and ``True`` give three conditions; numpy scalars count as
    the Python scalar they hold; missing values (None, NaN, NA, NaT) give
    :data:`MISSING`.  Used to find the trials that showed a stimulus.
    """
    return typed_condition(value)


@dataclass(frozen=True)
class TrialAxis:
    """What a recording offers to cut trials, before anything is read.

    Attributes:
        trials: number of trials.
        channels: number of channels; ``channel_names`` their ``ch_names``
            (``[]`` when the file gives none or not one per channel).
        window_samples: the default ``[start, stop)`` offsets from onset
            (see the module notes); ``per_trial`` when each trial is limited
            to its own window within it.
        sampling_rate_hz: samples per second, or None (then times are samples).
        has_recorded_baseline: ``trial_info/baseline`` is present.
        baseline_samples: the recorded baseline's ``[start, stop)`` offsets
            from onset when every trial shares it (``(-16, 0)``), else None.
    """

    trials: int
    channels: int
    channel_names: list[str]
    window_samples: tuple[int, int]
    per_trial: bool
    sampling_rate_hz: float | None
    has_recorded_baseline: bool
    baseline_samples: tuple[int, int] | None = None

    @property
    def time_unit(self) -> str:
        """``"s"`` when the sampling rate is known, else ``"samples"``."""
        return "s" if self.sampling_rate_hz is not None else "samples"

    def to_time(self, samples: float) -> float:
        """Sample offset to the unit of ``window`` and ``baseline`` (seconds or samples)."""
        rate = self.sampling_rate_hz
        return samples / rate if rate is not None else float(samples)


def trial_axis(document: Document) -> TrialAxis:
    """The trials, channels and default window of a recording (no sample is read).

    Raises:
        ValueError: as :func:`trial_average` for a document without trials,
            a patterns recording or non-numeric samples.
    """
    plan = read_plan(document, None, None, None)
    ref = trials_and_neuro(document)[1]
    names = ref.attrs.get("ch_names")
    n_ch = int(ref.shape[-1])
    listed = [str(x) for x in names] if isinstance(names, list) and len(names) == n_ch else []
    trials = document.trials
    recorded = trials.baseline if trials is not None else None
    shared: tuple[int, int] | None = None
    if recorded is not None:
        rows = per_trial_offsets(recorded, int(plan.anchors.shape[0]), "trial_info baseline")
        if rows.shape[0] and np.all(rows == rows[0]):
            shared = (int(rows[0, 0]), int(rows[0, 1]))
    return TrialAxis(int(plan.anchors.shape[0]), n_ch, listed, plan.window,
                     plan.valid is not None, plan.sfreq, recorded is not None, shared)


@dataclass(frozen=True)
class TrialOrder:
    """Trials sorted by condition.

    Attributes:
        order: int64 ``(trials,)``: the trial at each sorted position.
        conditions: the conditions in display order (``[]`` for trial order).
        starts: int64 ``(len(conditions) + 1,)``: sorted position where each
            condition begins, then the number of trials.
    """

    order: np.ndarray
    conditions: list[Condition]
    starts: np.ndarray


def trial_order(document: Document, by: Hashable | None, *,
                float_bins: int = FLOAT_BINS) -> TrialOrder:
    """Trials sorted by the conditions of ``by`` (display order, missing last).

    Within a condition trials keep their order, except in binned float
    columns, where they are sorted by value (ties by trial).  ``by=None``
    keeps trial order with no conditions.

    Raises:
        ValueError: as :func:`condition_of_trials`.
    """
    if by is None:
        trials, ref = trials_and_neuro(document)
        n = trial_count(trials, ref)
        return TrialOrder(np.arange(n, dtype=np.int64), [], np.array([0, n], dtype=np.int64))
    labels, conditions = condition_of_trials(document, by, float_bins=float_bins)
    position = {c: i for i, c in enumerate(conditions)}
    codes = np.fromiter((position[c] for c in labels), dtype=np.int64, count=len(labels))
    within = np.zeros(len(labels))
    table = document.trial_table()
    binned = any(c.kind == "bin" for c in conditions)
    if binned and table is not None and not (isinstance(by, str) and by == STIMULUS):
        within = table.frame()[by].to_numpy(dtype=np.float64, na_value=np.nan)
    order = np.lexsort((np.arange(len(labels)), within, codes)).astype(np.int64)
    starts = np.searchsorted(codes[order], np.arange(len(conditions) + 1)).astype(np.int64)
    return TrialOrder(order, conditions, starts)


@dataclass(frozen=True)
class TrialMatrix:
    """One channel, trials x time, binned to a bounded image.

    Attributes:
        values: float64 ``(rows, bins)``: the NaN-aware mean of the samples of
            each row's trials in each time bin (NaN where none).
        order: int64: the trials in row order (``trials_per_row`` per row,
            the last row may hold fewer).
        trials_per_row: trials averaged into one row (1 unless there are
            more than ``max_values / bins`` trials).
        edges: float64 ``(bins + 1,)``: bin boundaries in ``time_unit``
            relative to onset (``[edges[j], edges[j+1])``).
        bin_samples: samples per time bin (the last one may hold fewer).
        channel: the channel index; ``time_unit`` ``"s"`` or ``"samples"``.
        window_samples: the ``[start, stop)`` offsets covered.
    """

    values: np.ndarray
    order: np.ndarray
    trials_per_row: int
    edges: np.ndarray
    bin_samples: int
    channel: int
    time_unit: str
    window_samples: tuple[int, int]

    def trials_of_row(self, row: int) -> np.ndarray:
        """The trials drawn in image row ``row`` (empty outside the image)."""
        if not 0 <= row < self.values.shape[0]:
            return np.empty(0, dtype=np.int64)
        k = self.trials_per_row
        return self.order[row * k:(row + 1) * k]

    def rows_of_trials(self, trials: Any) -> np.ndarray:
        """The sorted image rows that draw any of ``trials`` (others are ignored)."""
        rank = np.full(int(self.order.max(initial=-1)) + 1, -1, dtype=np.int64)
        rank[self.order] = np.arange(self.order.shape[0])
        t = np.asarray(list(trials), dtype=np.int64).reshape(-1)
        t = t[(t >= 0) & (t < rank.shape[0])]
        r = rank[t]
        return np.unique(r[r >= 0] // self.trials_per_row)


def _time_bins(window: tuple[int, int], max_bins: int) -> tuple[int, int]:
    """``(samples per bin, bins)`` covering ``window`` with at most ``max_bins`` bins."""
    w = window[1] - window[0]
    step = max(1, -(-w // max(1, int(max_bins))))
    return step, -(-w // step)


def trial_matrix(document: Document, channel: int | str, *, order: Any = None,
                 window: tuple[float, float] | None = None, baseline: Any = None,
                 max_bins: int = MATRIX_BINS, max_values: int = MATRIX_VALUES,
                 progress: ProgressFn | None = None,
                 cancelled: CancelFn | None = None) -> TrialMatrix:
    """The responses of one channel, one image row per trial, in ``order``.

    Samples are cut, windowed and baseline-corrected exactly as in
    :func:`trial_average` (same ``window`` and ``baseline`` arguments, NaN
    outside the data), then averaged (NaN-aware) into at most ``max_bins``
    time bins of equal width and, when there are more trials than
    ``max_values // bins`` rows allow, into rows of ``trials_per_row``
    consecutive trials of ``order``.  Held at once: the ``(rows, bins)``
    sums and counts (at most ``max_values`` each) and one block of trials.

    Args:
        order: the trials in row order (any subset, no repeats), default all
            in trial order (see :func:`trial_order`).

    Raises:
        ValueError: as :func:`trial_average`; an order with repeats or out
            of range.
        Cancelled: ``cancelled()`` returned True.
        OSError: the neural array cannot be read.
    """
    plan = read_plan(document, [channel], window, baseline)
    n = int(plan.anchors.shape[0])
    rows_order = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, np.int64)
    chosen = chosen_trials(rows_order, n)
    if chosen.shape[0] != rows_order.shape[0]:
        raise ValueError("the trial order repeats trials")
    step, bins = _time_bins(plan.window, max_bins)
    per_row = max(1, -(-rows_order.shape[0] // max(1, int(max_values) // bins)))
    rows = -(-rows_order.shape[0] // per_row)
    row_of = np.zeros(n, dtype=np.int64)
    row_of[rows_order] = np.arange(rows_order.shape[0]) // per_row
    total, count = np.zeros((rows, bins)), np.zeros((rows, bins), dtype=np.int64)
    width = plan.window[1] - plan.window[0]

    def fold(idx: np.ndarray, x: np.ndarray, cols: slice) -> None:
        flat = np.full((idx.shape[0], bins * step), np.nan)
        flat[:, :width] = x[:, :, 0]
        binned = flat.reshape(idx.shape[0], bins, step)
        ok = ~np.isnan(binned)
        np.add.at(total, row_of[idx], np.where(ok, binned, 0.0).sum(axis=2))
        np.add.at(count, row_of[idx], ok.sum(axis=2))

    each_block(trials_and_neuro(document)[1], plan, chosen, fold, progress, cancelled)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    w0, w1 = plan.window
    offsets = np.minimum(w0 + step * np.arange(bins + 1), w1).astype(np.float64)
    edges = offsets / plan.sfreq if plan.sfreq is not None else offsets
    return TrialMatrix(values, rows_order, per_row, edges, step, int(plan.channels[0]),
                       "s" if plan.sfreq is not None else "samples", plan.window)
