"""Mean response per stimulus: the neural side of representational similarity.

Epochs and continuous recordings: the trials are grouped by their typed
stimulus ID (``trial_average.condition_of_trials(doc, "stimulus")``, as the
Trials tab groups them by condition) and averaged with
:func:`~inspector.formats.analysis.trial_average.trial_average` (same window,
baseline and channel choice, same block reader); the response pattern of a
stimulus is then, per channel, the mean over the window of its trial
average (``pattern="mean"``, a ``(channels,)`` vector), or the trial average
itself flattened channel by channel (``pattern="timecourse"``,
``(channels x times,)``).  NaN samples are skipped as ``trial_average``
skips them.

Patterns recordings (``(rows, *values)``, one stimulus ID per row from
``trial_meta["stim_index"]``, VneuroTK recording notes §3): the pattern of a
stimulus is the mean of its rows, read in blocks of rows (NaN skipped).

Only the trials of the stimuli asked for are read.  Nothing here imports Qt.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.analysis.trial_average import Cancelled, trial_average
from inspector.formats.analysis.trial_conditions import STIMULUS, Condition, condition_of_trials
from inspector.formats.analysis.trial_matrix import condition_of_value
from inspector.formats.capabilities import CancelFn, Progress, ProgressFn

if TYPE_CHECKING:
    from inspector.formats.document import Document

#: ``pattern`` values: the window mean per channel, or the whole time course.
PATTERNS = ("mean", "timecourse")
#: Bytes of neural rows read at once from a patterns recording.
ROWS_BYTES = 16 << 20


@dataclass(frozen=True)
class NeuralPatterns:
    """One response pattern per stimulus.

    Attributes:
        stimuli: the stimulus (trial group) of each row of ``values``.
        values: float64 ``(stimuli, pattern values)``.
        trials: int64 ``(stimuli,)`` trials (or rows) averaged per stimulus.
        window_samples: ``(start, stop)`` sample offsets of the window (None for patterns).
        baseline_samples: the baseline's ``[start, stop)`` offsets per trial, or None.
        channels: channel indices used (None for patterns).
        pattern: one of :data:`PATTERNS` (``"rows"`` for a patterns recording).
    """

    stimuli: tuple[Condition, ...]
    values: np.ndarray
    trials: np.ndarray
    window_samples: tuple[int, int] | None = None
    baseline_samples: Any = None
    channels: tuple[int, ...] | None = None
    pattern: str = "mean"


def stimulus_groups(document: Document) -> list[Condition]:
    """The stimuli the trials show (typed conditions, display order; missing labels last).

    Raises:
        ValueError: the recording offers no stimulus ID per trial.
    """
    trials = document.trials
    if trials is not None and trials.data_mode == "patterns":
        return _pattern_labels(document)[1]
    return condition_of_trials(document, STIMULUS)[1]


def _pattern_labels(document: Document) -> tuple[list[Condition], list[Condition]]:
    trials, ref = document.trials, document.neural_array()
    ids = trials.trial_stim_ids if trials is not None else None
    if ref is None or ids is None or len(ids) != ref.shape[0]:
        raise ValueError("the patterns recording offers no stimulus ID per row "
                         "(trial_meta['stim_index'], VneuroTK recording notes §3)")
    labels = [condition_of_value(v) for v in ids]
    return labels, list(dict.fromkeys(c for c in labels if not c.missing))


def neural_patterns(document: Document, stimuli: Sequence[Condition], *, channels: Any = None,
                    window: Any = None, baseline: Any = None, pattern: str = "mean",
                    progress: ProgressFn | None = None,
                    cancelled: CancelFn | None = None) -> NeuralPatterns:
    """The response pattern of each of ``stimuli`` (see the module notes).

    Args:
        document: an opened recording whose trials carry stimulus IDs
            (run its deferred checks first).
        stimuli: conditions from :func:`stimulus_groups`, in the order wanted.
        channels, window, baseline: as for ``trial_average`` (ignored for patterns).
        pattern: ``"mean"`` or ``"timecourse"``.
        progress, cancelled: as for ``trial_average``.

    Raises:
        ValueError: no trial structure, no stimulus IDs, a bad window,
            baseline or channel, an unknown pattern, no stimuli.
        OSError: the neural array cannot be read.
        Cancelled: ``cancelled()`` returned True.
    """
    if pattern not in PATTERNS:
        raise ValueError(f"pattern must be one of {', '.join(PATTERNS)}, not {pattern!r}")
    if not stimuli:
        raise ValueError("no stimulus chosen")
    trials = document.trials
    if trials is not None and trials.data_mode == "patterns":
        return _row_means(document, stimuli, progress, cancelled)
    labels, _ = condition_of_trials(document, STIMULUS)
    wanted = set(stimuli)
    mask = np.fromiter((c in wanted for c in labels), dtype=bool, count=len(labels))
    frame = trial_average(document, STIMULUS, channels=channels, window=window,
                          baseline=baseline, trials=mask, progress=progress,
                          cancelled=cancelled)
    conds = list(frame.attrs["conditions"])
    w0, w1 = frame.attrs["window_samples"]
    mean = frame["mean"].to_numpy(np.float64).reshape(len(conds), -1, w1 - w0)
    chans = frame["channel"].to_numpy()[:mean.shape[1] * (w1 - w0):w1 - w0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a channel all NaN: NaN, as intended
        values = np.nanmean(mean, axis=2) if pattern == "mean" else mean.reshape(len(conds), -1)
    where = {c: i for i, c in enumerate(conds)}
    order = [where[c] for c in stimuli]
    counts = np.bincount([where[c] for c in labels if c in where], minlength=len(conds))
    return NeuralPatterns(tuple(stimuli), values[order], counts[order].astype(np.int64),
                          (int(w0), int(w1)), frame.attrs["baseline_samples"],
                          tuple(int(c) for c in chans), pattern)


def _row_means(document: Document, stimuli: Sequence[Condition],
               progress: ProgressFn | None, cancelled: CancelFn | None) -> NeuralPatterns:
    """Mean of the rows of each stimulus of a patterns recording (NaN skipped)."""
    labels, _ = _pattern_labels(document)
    ref = document.neural_array()
    if ref is None:  # (_pattern_labels has said so)
        raise ValueError("the patterns recording offers no neural array")
    if np.dtype(ref.dtype).kind not in "biuf":
        raise ValueError(f"neural values of dtype {ref.dtype} cannot be averaged")
    where = {c: i for i, c in enumerate(stimuli)}
    codes = np.array([where.get(c, -1) for c in labels], dtype=np.int64)
    n, width = int(ref.shape[0]), math.prod(int(v) for v in ref.shape[1:])
    sums = np.zeros((len(stimuli), width))
    counts = np.zeros((len(stimuli), width), dtype=np.int64)
    step = max(1, ROWS_BYTES // max(1, width * np.dtype(ref.dtype).itemsize))
    for a in range(0, n, step):
        if cancelled is not None and cancelled():
            raise Cancelled()
        b = min(n, a + step)
        keep = codes[a:b] >= 0
        if keep.any():
            x = np.asarray(ref.read((slice(a, b),)), dtype=np.float64).reshape(b - a, width)[keep]
            ok = ~np.isnan(x)
            np.add.at(sums, codes[a:b][keep], np.where(ok, x, 0.0))
            np.add.at(counts, codes[a:b][keep], ok)
        if progress is not None:
            progress(Progress(b, n))
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    trials = np.bincount(codes[codes >= 0], minlength=len(stimuli)).astype(np.int64)
    return NeuralPatterns(tuple(stimuli), values, trials, pattern="rows")
