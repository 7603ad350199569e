"""Trial-averaged responses by condition, computed block by block.

:func:`trial_average` answers "how does each channel respond to the stimulus,
condition by condition": the mean of the neural array against time relative
to stimulus onset over the trials of each condition, with its standard error
and the number of trials behind every point.  :func:`condition_of_trials`
exposes the grouping alone (for legends).  For the trial views,
:func:`trial_axis` gives the default window without reading samples,
:func:`trial_order` sorts trials by condition and :func:`trial_matrix`
returns one channel as a bounded trials x time image.  All read only the
document's capabilities (``Document.trials``, the array the trials cut
``Document.neural_array()`` and the table of one row per trial
``Document.trial_table()``), never its ``summary``.

Time axis (VneuroTK on-disk notes §3; the reference's ``trial_window`` and
``baseline`` are ``[start, stop)`` sample offsets relative to each onset,
``vneurotk.neuro.trial``):

* epochs ``(trials, time, channels)``: trial ``i`` is row ``i``; its onset is
  ``vision_onsets[i]`` (a sample of the epoch), else ``-trial_window[0]``,
  else sample 0 (the reference's default).  ``trial_window = [-16, 48]``
  thus means the onset is sample 16 of each epoch.
* continuous ``(time, channels)``: trial ``i`` is cut on the fly around
  ``vision_onsets[i]`` (an absolute sample).
* Default window: continuous, ``trial_window`` when the document offers it
  (:attr:`~inspector.formats.capabilities.TrialStructure.trial_window`),
  else each trial's own ``[trial_start - onset, trial_end - onset)``;
  epochs, each epoch's own ``[trial_start - onset, trial_end - onset)``
  (the samples the epoch holds; the reference cuts epochs with
  ``trial_window``, so both agree in its files), else ``trial_window``,
  else the whole epoch.  With per-trial windows the time axis is their union and
  each trial contributes only inside its own window.
* ``time`` is in seconds (``offset / sampling_rate_hz``) when the sampling
  rate is known, else in samples; ``window`` and ``baseline`` are given in
  the same unit as ``(start, stop)``: the samples ``k`` with
  ``start <= k / rate < stop`` (a bound within 1e-6 sample of a sample
  snaps to it).  Samples outside the epoch or the recording are missing.

Statistics per (condition, channel, time), NaN-aware like ``numpy.nanmean``
and ``numpy.nanstd(ddof=1)``: NaN samples (and samples outside the data)
are skipped; ``n`` counts the trials with a non-NaN value at that point;
``mean`` is NaN when ``n == 0``; ``sem = std(ddof=1) / sqrt(n)`` is NaN when
``n < 2`` (as ``pandas`` ``sem``).  Integer and boolean samples are converted
to float64 first (no overflow).  Infinite samples make the statistics of
their point non-finite.  Count, mean and sum of squared deviations are
computed per condition of each block in two passes (grouped sums over the
trials sorted by condition, ``numpy.add.reduceat``, float64) and merged into
the accumulators with the pairwise form of Welford's algorithm (Chan, Golub
and LeVeque 1979): numerically stable, no sum of squares is ever
subtracted, and no Python loop over trials.

Baseline: ``baseline=(start, stop)`` subtracts, from each trial and channel,
its NaN-aware mean over that window (which may lie outside ``window``);
``baseline="recorded"`` uses the recording's ``trial_info/baseline``;
``baseline="prestimulus"`` uses ``[trial start, onset)`` of each trial.  A
trial whose baseline has no non-NaN sample is missing after correction.

Work and memory: the neural array is read in blocks of trials, for the
chosen channels (and, with ``trials=``, the chosen trials) only, and never
held whole.  Held at once: the
per-condition accumulators (three ``(conditions, time, channels)`` arrays,
the size of the result), the blocks in flight (:data:`AHEAD` + 1 blocks of
about :data:`BLOCK_BYTES` of stored samples; a block is never less than one
row of chunks of an epochs array and is then not read ahead), and the
float64 temporaries of one slab of channels of one block (a few times
:data:`SLAB_BYTES`).

Threads: an array that offers its stored chunks (``chunk_layout()`` and
``read_raw_chunk(offset)``, as the recording's ``H5DatasetRef`` does) with
only shuffle, deflate and Fletcher-32 filters (:data:`DECODABLE`) is decoded chunk by chunk
on the shared pool (:func:`inspector.formats.decoding.workers.pool`, opened by the
entry points): the stored bytes are fetched (a recording reads them with
``os.pread`` outside h5py's lock, ``hdf5.chunks.ChunkFile``, so reads run
in parallel too), inflated (and their Fletcher-32 checked) by the one decoder,
:mod:`inspector.formats.decoding.inflate`, without the GIL, and only the chosen
channels are unshuffled. A piece the pool
has not started when it is needed is decoded by the waiting thread itself, so
a saturated pool cannot deadlock. Other storage (contiguous, COO, other
filters) is read with ``ArrayRef.read`` on the calling thread, as
HDF5 serialises its own decompression. Run it off the GUI thread; it mutates
nothing shared.

pandas is imported only where a table is read or built (a ``trial_meta``
column, a quantile bin, the result of :func:`trial_average`); grouping by
stimulus ID, :func:`trial_order` and :func:`trial_matrix` of a recording
without ``trial_meta`` never import it (:mod:`inspector.formats.values.pandas_values`).

Nothing here imports Qt.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.analysis.read_meter import chunk_read, chunks_expected, metered
from inspector.formats.capabilities import CancelFn, Progress, ProgressFn, TrialStructure

if TYPE_CHECKING:
    import pandas as pd

    from inspector.formats.document import Document
from inspector.formats.analysis.trial_conditions import (
    FLOAT_BINS,
    Condition,
    condition_of_trials,
    trial_count,
    trials_and_neuro,
)
from inspector.formats.analysis.trial_reads import (
    BLOCK_BYTES,
    ReadPlan,
    block_boxes,
    channel_slabs,
    gather_block,
    read_blocks,
    shape_block,
    source_for,
)

__all__ = ["BLOCK_BYTES", "PRESTIMULUS", "RECORDED", "Cancelled", "pooled", "trial_average"]

#: ``baseline`` value: the recording's ``trial_info/baseline``.
RECORDED = "recorded"
#: ``baseline`` value: from each trial's start to its onset.
PRESTIMULUS = "prestimulus"
#: Largest result accepted (conditions x channels x time points); a bigger
#: request is refused before anything is read.
MAX_RESULT_ROWS = 50_000_000
#: Window bounds this close to a sample (in samples) snap to it.
SNAP = 1e-6


class Cancelled(Exception):
    """Raised by :func:`trial_average` when its ``cancelled()`` hook returned True.

    Nothing is returned and nothing was changed; queued reads are cancelled.
    """


# -- grouping -----------------------------------------------------------------------------


# -- epoching plan ------------------------------------------------------------------------


def per_trial_offsets(value: Any, n: int, what: str) -> np.ndarray:
    """``(2,)`` or ``(n, 2)`` sample offsets as int64 ``(n, 2)``."""
    a = np.asarray(value)
    if a.dtype.kind not in "iuf" or a.shape not in ((2,), (n, 2)) or not np.isfinite(a).all():
        raise ValueError(f"{what} must be numbers of shape (2,) or ({n}, 2), got {a.shape}")
    return np.broadcast_to(np.rint(a).astype(np.int64), (n, 2)).copy()


def _anchors(trials: TrialStructure, ref: ArrayRef, n: int) -> np.ndarray:
    if trials.vision_onsets is not None:
        on = np.asarray(trials.vision_onsets, dtype=np.int64).reshape(-1)
        if on.shape[0] != n:
            raise ValueError(f"vision_onsets has {on.shape[0]} entries for {n} trials")
        return on
    if trials.data_mode == "continuous":
        raise ValueError("a continuous recording needs vision_onsets (VneuroTK on-disk notes §3)")
    if trials.trial_window is not None:
        return -per_trial_offsets(trials.trial_window, n, "trial_window")[:, 0]
    return np.zeros(n, dtype=np.int64)


def _recorded_windows(trials: TrialStructure, anchors: np.ndarray, length: int) -> np.ndarray:
    """Each trial's own ``[start, stop)`` offsets (see the module notes)."""
    n = anchors.shape[0]
    epochs = trials.data_mode == "epochs"
    if trials.trial_window is not None and not epochs:
        return per_trial_offsets(trials.trial_window, n, "trial_window")
    s, e = trials.trial_starts, trials.trial_ends
    if s is not None and e is not None and s.shape == (n,) and e.shape == (n,):
        return np.stack([s.astype(np.int64) - anchors, e.astype(np.int64) - anchors], axis=1)
    if trials.trial_window is not None:
        return per_trial_offsets(trials.trial_window, n, "trial_window")
    if epochs:
        return np.stack([-anchors, length - anchors], axis=1)
    raise ValueError("the recording gives no trial window: pass window=(start, stop)")


def _span(pair: Any, sfreq: float | None, what: str) -> tuple[int, int]:
    """``(start, stop)`` in seconds (rate known) or samples, as sample offsets."""
    try:
        start, stop = (float(x) for x in pair)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be (start, stop), got {pair!r}") from None
    if not (math.isfinite(start) and math.isfinite(stop)):
        raise ValueError(f"{what} must be finite, got {pair!r}")
    if sfreq is not None:
        s0, s1 = math.ceil(start * sfreq - SNAP), math.ceil(stop * sfreq - SNAP)
    else:
        if start != int(start) or stop != int(stop):
            raise ValueError(f"{what} is in samples (no sampling rate known): use integers")
        s0, s1 = int(start), int(stop)
    if s1 <= s0:
        raise ValueError(f"{what} {pair!r} holds no sample")
    return s0, s1


def _baseline(spec: Any, trials: TrialStructure, recorded: np.ndarray,
              sfreq: float | None) -> np.ndarray | None:
    n = recorded.shape[0]
    if spec is None:
        return None
    if isinstance(spec, str) and spec == RECORDED:
        if trials.baseline is None:
            raise ValueError("the document offers no recorded baseline (trial_info/baseline)")
        out = per_trial_offsets(trials.baseline, n, "trial_info baseline")
    elif isinstance(spec, str) and spec == PRESTIMULUS:
        out = np.stack([recorded[:, 0], np.zeros(n, dtype=np.int64)], axis=1)
    elif isinstance(spec, str):
        raise ValueError(f"baseline must be (start, stop), {RECORDED!r}, {PRESTIMULUS!r} or None")
    else:
        out = np.broadcast_to(np.array(_span(spec, sfreq, "baseline")), (n, 2)).copy()
    if n and np.any(out[:, 1] <= out[:, 0]):
        raise ValueError("the baseline window holds no sample for some trial")
    return out


def _channel_index(ref: ArrayRef, channels: Any) -> np.ndarray:
    n_ch = int(ref.shape[-1])
    if channels is None:
        return np.arange(n_ch, dtype=np.int64)
    items = [channels] if isinstance(channels, (int, str, np.integer)) else list(channels)
    names = ref.attrs.get("ch_names") or []
    out = []
    for c in items:
        if isinstance(c, str):
            hits = [i for i, name in enumerate(names) if name == c]
            if len(hits) != 1:
                raise ValueError(f"channel name {c!r} matches {len(hits)} channels")
            out.append(hits[0])
        elif isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c < n_ch:
            out.append(int(c))
        else:
            raise ValueError(f"channel {c!r} is not an index 0..{n_ch - 1} or a channel name")
    if not out or len(set(out)) != len(out):
        raise ValueError("channels must be a non-empty list without repeats")
    return np.asarray(out, dtype=np.int64)


def _sampling_rate(trials: TrialStructure, ref: ArrayRef) -> float | None:
    rate = trials.sampling_rate_hz
    if rate is None:
        raw = ref.attrs.get("sfreq")
        rate = float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None
    return rate if rate is not None and math.isfinite(rate) and rate > 0 else None


def read_plan(document: Document, channels: Any, window: Any, baseline: Any) -> ReadPlan:
    trials, ref = trials_and_neuro(document)
    if np.dtype(ref.dtype).kind not in "biuf":
        raise ValueError(f"neural samples of dtype {ref.dtype} cannot be averaged "
                         "(real numbers only)")
    n = trial_count(trials, ref)
    epochs = trials.data_mode == "epochs"
    length = int(ref.shape[1] if epochs else ref.shape[0])
    anchors = _anchors(trials, ref, n)
    sfreq = _sampling_rate(trials, ref)
    recorded = _recorded_windows(trials, anchors, length)
    valid: np.ndarray | None = None
    if window is not None:
        win = _span(window, sfreq, "window")
    elif n and np.all(recorded == recorded[0]):
        win = (int(recorded[0, 0]), int(recorded[0, 1]))
    elif n:
        win, valid = (int(recorded[:, 0].min()), int(recorded[:, 1].max())), recorded
    else:
        raise ValueError("the recording has no trials")
    if win[1] <= win[0]:
        raise ValueError(f"the trial window {list(win)} holds no sample")
    base = _baseline(baseline, trials, recorded, sfreq)
    return ReadPlan(epochs, length, anchors, win, valid, base, _channel_index(ref, channels), sfreq)


# -- reading blocks -----------------------------------------------------------------------


# -- accumulation -------------------------------------------------------------------------


class _Moments:
    """Per-condition count, mean and sum of squared deviations (float64),
    each ``(conditions, times, channels)``."""

    def __init__(self, groups: int, times: int, channels: int) -> None:
        self.n = np.zeros((groups, times, channels), dtype=np.int64)
        self.mean = np.zeros((groups, times, channels))
        self.m2 = np.zeros((groups, times, channels))

    def add(self, codes: np.ndarray, x: np.ndarray, cols: slice) -> None:
        """Fold trials ``x`` ``(k, times, channels[cols])`` of conditions ``codes`` ``(k,)``.

        One step per condition of the block, not per trial: its trials
        (sorted by condition, a contiguous slab) give their count, mean and
        sum of squared deviations in two passes (float64), merged into the
        accumulators, in place, with the pairwise form of Welford's update
        (Chan, Golub and LeVeque 1979): ``delta = mean_b - mean_a``,
        ``mean += delta * n_b / n``, ``m2 += m2_b + delta**2 * n_a * n_b / n``.
        NaN points are skipped (they leave their point unchanged).
        """
        order = np.argsort(codes, kind="stable")
        groups, starts, sizes = np.unique(codes[order], return_index=True, return_counts=True)
        xs = x[order] if not np.array_equal(order, np.arange(order.shape[0])) else x
        nan_free = not np.isnan(xs).any()
        with np.errstate(invalid="ignore", divide="ignore"):
            for g, a, k in zip(groups.tolist(), starts.tolist(), sizes.tolist(), strict=True):
                self._merge(g, cols, xs[a:a + k], nan_free)

    def _merge(self, g: int, cols: slice, block: np.ndarray, nan_free: bool) -> None:
        """Merge the moments of ``block`` ``(k, times, channels)`` into condition ``g``."""
        n, mean, m2 = self.n[g, :, cols], self.mean[g, :, cols], self.m2[g, :, cols]
        if nan_free:
            nb: Any = block.shape[0]
            mb = block.mean(axis=0)
            d = block - mb
        else:
            ok = ~np.isnan(block)
            nb = ok.sum(axis=0)
            mb = np.where(ok, block, 0.0).sum(axis=0) / np.maximum(nb, 1)
            d = np.where(ok, block - mb, 0.0)
        m2b = np.einsum("ktc,ktc->tc", d, d)
        na = n.copy()
        n += nb
        share = nb / np.maximum(n, 1)
        delta = mb - mean
        if nan_free:
            mean += delta * share
            m2 += m2b + delta * delta * na * share
        else:
            some = nb > 0
            mean += np.where(some, delta * share, 0.0)
            m2 += np.where(some, m2b + delta * delta * na * share, 0.0)

    def stats(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(mean, sem, n)``; NaN mean for n == 0, NaN sem for n < 2."""
        n = self.n
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, self.mean, np.nan)
            var = np.where(n > 1, self.m2 / np.maximum(n - 1, 1), np.nan)
            sem = np.sqrt(var / np.maximum(n, 1))
        return mean, sem, n


#: ``fold(trials, x, cols)``: one slab, float64 ``(trials, window, channels[cols])``.
_Fold = Callable[[np.ndarray, np.ndarray, slice], None]


def each_block(ref: ArrayRef, plan: ReadPlan, chosen: np.ndarray, fold: _Fold,
                progress: ProgressFn | None, cancelled: CancelFn | None) -> None:
    """Read the blocks of trials ``chosen`` (``AHEAD`` blocks ahead) and hand
    each channel slab of each block, windowed and baseline-corrected, to ``fold``."""
    source = source_for(ref, plan.channels)
    total = int(chosen.shape[0])
    pending: deque[tuple[np.ndarray, np.ndarray, np.ndarray, Any, int]] = deque()
    done = 0

    blocks, block_bytes = read_blocks(plan, source, np.dtype(ref.dtype).itemsize, chosen)
    # blocks larger than the target (one row of big chunks) are not read ahead
    ahead = source.ahead if block_bytes <= BLOCK_BYTES else 0

    if metered():  # someone counts chunks: plan them (a pass over the blocks' boxes)
        chunks_expected(sum(source.count(block_boxes(plan, idx, source.gap)[0]) for idx in blocks))

    def step() -> None:
        nonlocal done
        idx, owner, base, handle, pieces = pending.popleft()
        arrays = source.collect(handle)
        for k in range(pieces):
            chunk_read((done, k))  # (``done``: the trials before this block, its identity)
        for cols in channel_slabs(plan, int(idx.shape[0])):
            fold(idx, shape_block(plan, idx, gather_block(plan, idx, arrays, owner, base, cols)),
                 cols)
        done += int(idx.shape[0])
        if progress is not None:
            progress(Progress(done, total))

    try:
        for idx in blocks:
            if cancelled is not None and cancelled():
                raise Cancelled()
            boxes, owner, base = block_boxes(plan, idx, source.gap)
            pending.append((idx, owner, base, source.submit(boxes), source.count(boxes)))
            if len(pending) > ahead:
                step()
        while pending:
            if cancelled is not None and cancelled():
                raise Cancelled()
            step()
    finally:
        for *_, handle, _pieces in pending:
            source.cancel(handle)


def _accumulate(ref: ArrayRef, plan: ReadPlan, chosen: np.ndarray, codes: np.ndarray,
                groups: int, progress: ProgressFn | None,
                cancelled: CancelFn | None) -> _Moments:
    """Fold every chosen trial into the moments of its condition."""
    w0, w1 = plan.window
    moments = _Moments(groups, w1 - w0, len(plan.channels))
    each_block(ref, plan, chosen, lambda idx, x, cols: moments.add(codes[idx], x, cols),
                progress, cancelled)
    return moments


# -- result -------------------------------------------------------------------------------


def _frame(conditions: Sequence[Condition], plan: ReadPlan, moments: _Moments,
           ref: ArrayRef, by: Hashable) -> pd.DataFrame:
    mean, sem, n = moments.stats()
    g, w, c = n.shape
    w0, w1 = plan.window
    offsets = np.arange(w0, w1, dtype=np.int64)
    times = offsets / plan.sfreq if plan.sfreq is not None else offsets
    cond = np.empty(g, dtype=object)
    cond[:] = list(conditions)

    def flat(a: np.ndarray) -> np.ndarray:
        return a.transpose(0, 2, 1).reshape(-1)

    import pandas as pd

    df = pd.DataFrame({
        "condition": np.repeat(cond, c * w),
        "channel": np.tile(np.repeat(plan.channels, w), g),
        "time": np.tile(times, g * c),
        "mean": flat(mean), "sem": flat(sem), "n": flat(n),
    })
    names = ref.attrs.get("ch_names")
    df.attrs.update({
        "by": by, "conditions": tuple(conditions),
        "time_unit": "s" if plan.sfreq is not None else "samples",
        "sampling_rate_hz": plan.sfreq, "window_samples": (w0, w1),
        "channel_names": ({int(i): names[int(i)] for i in plan.channels}
                          if isinstance(names, list) and len(names) == ref.shape[-1] else {}),
        "baseline_samples": None if plan.baseline is None else plan.baseline.tolist(),
    })
    return df


def chosen_trials(trials: Any, n: int) -> np.ndarray:
    """The trials to read, ascending and unique: all, or ``trials`` (indices or a mask)."""
    if trials is None:
        return np.arange(n, dtype=np.int64)
    a = np.asarray(trials)
    if a.dtype == np.bool_:
        if a.shape != (n,):
            raise ValueError(f"a trial mask must have shape ({n},), got {a.shape}")
        a = np.flatnonzero(a)
    elif a.size and a.dtype.kind not in "iu":
        raise ValueError(f"trials must be trial indices or a boolean mask, got dtype {a.dtype}")
    a = np.unique(a.astype(np.int64).reshape(-1))
    if a.size == 0:
        raise ValueError("no trial chosen")
    if a[0] < 0 or a[-1] >= n:
        raise ValueError(f"trial indices must be within 0..{n - 1}")
    return a


def _codes(labels: list[Condition], conditions: list[Condition],
           chosen: np.ndarray) -> tuple[list[Condition], np.ndarray]:
    """The conditions of the chosen trials (display order kept) and every trial's
    position among them (-1 for trials not chosen)."""
    used = {labels[i] for i in chosen.tolist()}
    kept = [c for c in conditions if c in used]
    position = {cond: i for i, cond in enumerate(kept)}
    codes = np.full(len(labels), -1, dtype=np.int64)
    codes[chosen] = [position[labels[i]] for i in chosen.tolist()]
    return kept, codes


def trial_average(document: Document, by: Hashable, *, channels: Any = None,
                  window: tuple[float, float] | None = None, baseline: Any = None,
                  trials: Any = None, float_bins: int = FLOAT_BINS,
                  progress: ProgressFn | None = None,
                  cancelled: CancelFn | None = None) -> pd.DataFrame:
    """Mean response per condition, channel and time relative to stimulus onset.

    Args:
        document: an opened epochs or continuous recording.
        by: how trials are grouped (see :func:`condition_of_trials`).
        channels: channel indices or ``ch_names`` entries (default: all),
            in the order of the result.
        window: ``(start, stop)`` relative to onset, in seconds when the
            sampling rate is known, else in samples; every trial contributes
            wherever the epoch (or recording) has samples in it, even beyond
            its own trial.  Default: the recorded trial window, each trial
            only inside its own (see the module notes).
        baseline: None (no correction), ``(start, stop)`` in the unit of
            ``window``, :data:`RECORDED` or :data:`PRESTIMULUS`.
        trials: None (all) or the trials averaged: indices, or a boolean mask
            ``(trials,)``; only they are read, and only their conditions are
            listed (labels as for all trials).
        float_bins: number of quantile bins of a float column (over all trials).
        progress: called on the calling thread after each block with
            ``Progress(done_trials, total_trials)``.
        cancelled: polled before each block; True raises :class:`Cancelled`.

    Returns:
        A DataFrame with one row per (condition, channel, time), ordered
        condition (display order), channel (as given), time (ascending), and
        columns ``condition`` (:class:`Condition`), ``channel`` (int64
        index), ``time`` (float64 seconds, or int64 samples), ``mean`` and
        ``sem`` (float64, NaN-aware, see the module notes), ``n`` (int64
        non-NaN trials).  ``attrs`` holds ``by``, ``conditions``,
        ``time_unit`` (``"s"``/``"samples"``), ``sampling_rate_hz``,
        ``window_samples``, ``channel_names`` and ``baseline_samples``.

    Raises:
        ValueError: no trial structure or neural array, unknown column or
            channel, empty or malformed window, baseline or trial choice,
            patterns mode, a result above :data:`MAX_RESULT_ROWS` rows.
        Cancelled: ``cancelled()`` returned True.
        OSError: the neural array cannot be read (file changed or damaged).
        RuntimeError: no worker pool is open (``workers.worker_pool``).
    """
    labels, conditions = condition_of_trials(document, by, float_bins=float_bins)
    plan = read_plan(document, channels, window, baseline)
    chosen = chosen_trials(trials, len(labels))
    conditions, codes = _codes(labels, conditions, chosen)
    rows = len(conditions) * len(plan.channels) * (plan.window[1] - plan.window[0])
    if rows > MAX_RESULT_ROWS:
        raise ValueError(f"the result would have {rows} rows (limit {MAX_RESULT_ROWS}): "
                         "choose fewer channels, a shorter window or a coarser grouping")
    ref = trials_and_neuro(document)[1]
    moments = _accumulate(ref, plan, chosen, codes, len(conditions), progress, cancelled)
    return _frame(conditions, plan, moments, ref, by)


def pooled(frame: pd.DataFrame) -> pd.DataFrame:
    """The conditions of a :func:`trial_average` result pooled into one group.

    Per (channel, time): ``n`` the sum of the conditions' ``n``, ``mean``
    their ``n``-weighted mean, ``sem`` from the pooled sum of squared
    deviations (each condition's ``sem**2 * n * (n - 1)`` plus
    ``n * (mean - pooled mean)**2``, the pairwise form of Welford's update),
    exactly what :func:`trial_average` gives with every trial in one
    condition, up to rounding.  NaN mean where ``n == 0``, NaN sem where
    ``n < 2``.

    Returns:
        A DataFrame with columns ``channel``, ``time``, ``mean``, ``sem``,
        ``n`` in the order of one condition of ``frame``, and its ``attrs``.
    """
    g = max(1, len(frame.attrs.get("conditions", ())) or 1)
    rows = len(frame) // g
    n = frame["n"].to_numpy(np.int64).reshape(g, rows)
    mean = frame["mean"].to_numpy(np.float64).reshape(g, rows)
    sem = frame["sem"].to_numpy(np.float64).reshape(g, rows)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = n.sum(axis=0)
        weighted = np.where(n > 0, mean, 0.0) * n
        mu = np.where(total > 0, weighted.sum(axis=0) / np.maximum(total, 1), np.nan)
        within = np.where(n > 1, sem * sem * n * (n - 1), 0.0)
        between = np.where(n > 0, n * (np.where(n > 0, mean, 0.0) - mu) ** 2, 0.0)
        m2 = (within + between).sum(axis=0)
        out_sem = np.where(total > 1, np.sqrt(m2 / np.maximum(total - 1, 1) / np.maximum(total, 1)),
                           np.nan)
    first = frame.iloc[:rows]
    import pandas as pd

    out = pd.DataFrame({"channel": first["channel"].to_numpy(), "time": first["time"].to_numpy(),
                        "mean": mu, "sem": out_sem, "n": total})
    out.attrs.update(frame.attrs)
    return out


# -- trial views ----------------------------------------------------------------------------


