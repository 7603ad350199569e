"""Trial-averaged responses by condition, computed block by block.

:func:`trial_average` answers "how does each channel respond to the stimulus,
condition by condition": the mean of the neural array against time relative
to stimulus onset over the trials of each condition, with its standard error
and the number of trials behind every point.  :func:`condition_of_trials`
exposes the grouping alone (for legends).  For the trial views,
:func:`trial_axis` gives the default window without reading samples,
:func:`trial_order` sorts trials by condition and :func:`trial_matrix`
returns one channel as a bounded trials x time image.  All read only the
document's capabilities (``Document.trials``, ``Document.arrays["neuro"]``,
``Document.tables["trial_meta"]``), never its ``summary``.

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
on the shared pool (:func:`inspector.formats.workers.pool`, opened by the
entry points): the stored bytes are fetched (a recording reads them with
``os.pread`` outside h5py's lock, ``hdf5.chunks.ChunkFile``, so reads run
in parallel too), inflated (and their Fletcher-32 checked) by the one decoder,
:mod:`inspector.formats.inflate`, without the GIL, and only the chosen
channels are unshuffled. A piece the pool
has not started when it is needed is decoded by the waiting thread itself, so
a saturated pool cannot deadlock. Other storage (contiguous, COO, other
filters) is read with ``ArrayRef.read`` on the calling thread, as
HDF5 serialises its own decompression. Run it off the GUI thread; it mutates
nothing shared.

pandas is imported only where a table is read or built (a ``trial_meta``
column, a quantile bin, the result of :func:`trial_average`); grouping by
stimulus ID, :func:`trial_order` and :func:`trial_matrix` of a recording
without ``trial_meta`` never import it (:mod:`inspector.formats.pandas_values`).

Nothing here imports Qt.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.analysis.read_meter import chunk_read, chunks_expected, metered
from inspector.formats.capabilities import CancelFn, Progress, ProgressFn, TrialStructure
from inspector.formats.inflate import ChunkOverflow, undo_filters
from inspector.formats.pandas_values import is_na, is_nat, is_timestamp
from inspector.formats.workers import pool

if TYPE_CHECKING:
    import pandas as pd

    from inspector.formats.document import Document

__all__ = [
    "BLOCK_BYTES", "FLOAT_BINS", "MATRIX_BINS", "MATRIX_VALUES", "MAX_FLOAT_LEVELS", "MISSING",
    "PRESTIMULUS", "RECORDED", "STIMULUS", "Cancelled", "Condition", "TrialAxis", "TrialMatrix",
    "TrialOrder", "condition_of_trials", "condition_of_value", "pooled", "trial_average",
    "trial_axis",
    "trial_matrix", "trial_order",
]

#: ``by`` value grouping trials by their stimulus ID (typed: 1 and "1" differ).
#: It takes precedence over a ``trial_meta`` column of the same name.
STIMULUS = "stimulus"
#: ``baseline`` value: the recording's ``trial_info/baseline``.
RECORDED = "recorded"
#: ``baseline`` value: from each trial's start to its onset.
PRESTIMULUS = "prestimulus"
#: Float columns with more distinct finite values than :data:`MAX_FLOAT_LEVELS`
#: are split into this many quantile bins (quartiles by default).
FLOAT_BINS = 4
#: Float columns with at most this many distinct finite values are grouped
#: by value (e.g. contrast levels), not binned.
MAX_FLOAT_LEVELS = 10
#: Target bytes of one block of trials (stored samples of the chosen channels;
#: COO trials count whole, as they are densified).
BLOCK_BYTES = 16 << 20
#: Target bytes of the float64 arrays of one fold (a slab of channels of a block).
SLAB_BYTES = 4 << 20
#: Most trials in one block (keeps progress and cancellation responsive).
MAX_BLOCK_TRIALS = 256
#: Blocks read ahead of the one being accumulated.
AHEAD = 2
#: Largest result accepted (conditions x channels x time points); a bigger
#: request is refused before anything is read.
MAX_RESULT_ROWS = 50_000_000
#: Window bounds this close to a sample (in samples) snap to it.
SNAP = 1e-6


class Cancelled(Exception):
    """Raised by :func:`trial_average` when its ``cancelled()`` hook returned True.

    Nothing is returned and nothing was changed; queued reads are cancelled.
    """


@dataclass(frozen=True)
class Condition:
    """One group of trials.

    Two conditions are equal when their ``kind`` and ``value`` are: the int
    ``1``, the str ``"1"`` and the bool ``True`` are three conditions.

    Attributes:
        value: the typed value shared by the trials (``int``, ``str``,
            ``bool``, ``float``, ``pandas.Timestamp``...), a
            ``pandas.Interval`` for a bin of a float column, None when missing.
        kind: ``"bool"``, ``"int"``, ``"float"``, ``"str"``, ``"bin"``,
            ``"missing"`` or the value's type name.
        label: display text, unique within one condition list (values that
            print alike are qualified by kind: ``1 (int)``, ``1 (str)``).
    """

    value: Any
    kind: str
    label: str = field(default="", compare=False)

    @property
    def missing(self) -> bool:
        """True for the group of trials without a value."""
        return self.kind == "missing"

    def __str__(self) -> str:
        return self.label or str(self.value)


#: The condition of trials whose value is missing (None, NaN, NA, NaT, -1 code).
MISSING = Condition(None, "missing", "missing")

_KIND_RANK = {"bin": 0, "bool": 0, "int": 1, "float": 1, "str": 2, "missing": 9}


# -- grouping -----------------------------------------------------------------------------


def _is_missing(value: Any) -> bool:
    """``pandas.isna`` of one scalar (pandas is not imported for None, floats and text)."""
    if value is None or is_na(value) or is_nat(value):
        return True
    if type(value) is float:
        return math.isnan(value)
    if isinstance(value, (str, bytes)):
        return False
    import pandas as pd

    try:
        out = pd.isna(value)
    except (TypeError, ValueError):
        return False
    return bool(out) if isinstance(out, (bool, np.bool_)) else False


#: Exact types whose values are never missing, and their kind.
_PLAIN_KINDS: dict[type, str] = {bool: "bool", int: "int", str: "str"}


def _typed(value: Any) -> Condition:
    """The condition of one typed value (numpy scalars become Python scalars)."""
    kind = _PLAIN_KINDS.get(type(value))
    if kind is not None:  # never missing: no pandas call (thousands of trial IDs)
        return Condition(value, kind)
    if isinstance(value, (np.datetime64, np.timedelta64)):
        import pandas as pd

        value = pd.Timestamp(value) if isinstance(value, np.datetime64) else pd.Timedelta(value)
    elif isinstance(value, np.generic):
        value = value.item()
    if _is_missing(value):
        return MISSING
    if isinstance(value, bool):
        kind = "bool"
    elif isinstance(value, int):
        kind = "int"
    elif isinstance(value, float):
        kind = "float"
    elif isinstance(value, str):
        kind = "str"
    else:
        kind = type(value).__name__
    return Condition(value, kind)


def _sorted(conditions: set[Condition]) -> list[Condition]:
    """Kinds in a fixed order (bool, numbers, text, others, missing), values sorted."""
    by_rank: dict[int, list[Condition]] = {}
    for c in conditions:
        by_rank.setdefault(_KIND_RANK.get(c.kind, 3), []).append(c)
    out: list[Condition] = []
    for rank in sorted(by_rank):
        group = by_rank[rank]
        try:
            group.sort(key=lambda c: (c.value, c.kind) if rank != 1
                       else (float(c.value), c.kind == "float"))
        except (TypeError, ValueError, OverflowError):
            group.sort(key=lambda c: (c.kind, repr(c.value)))
        out.extend(group)
    return out


def _bin_text(iv: pd.Interval, digits: int) -> str:
    right = "]" if iv.closed in ("right", "both") else ")"
    return f"[{iv.left:.{digits}g}, {iv.right:.{digits}g}{right}"


def _labelled(conditions: list[Condition]) -> list[Condition]:
    """The same conditions with display labels unique within the list."""
    bins = [c.value for c in conditions if c.kind == "bin"]
    digits = 4
    while digits < 17 and len({_bin_text(b, digits) for b in bins}) < len(bins):
        digits += 1
    base = []
    for c in conditions:
        if c.missing:
            base.append("missing")
        elif c.kind == "bin":
            base.append(_bin_text(c.value, digits))
        elif is_timestamp(c.value) and c.value == c.value.normalize():
            base.append(c.value.strftime("%Y-%m-%d%z"))  # a day: no 00:00:00
        else:
            base.append(str(c.value))
    seen: dict[str, int] = {}
    for b in base:
        seen[b] = seen.get(b, 0) + 1
    out = []
    for c, b in zip(conditions, base, strict=True):
        qualifier = "no value" if c.missing else c.kind
        out.append(Condition(c.value, c.kind, f"{b} ({qualifier})" if seen[b] > 1 else b))
    return out


def _float_conditions(values: np.ndarray,
                      bins: int) -> tuple[list[Condition], list[Condition] | None]:
    """Per-trial conditions of a float column: its values, or quantile bins.

    At most :data:`MAX_FLOAT_LEVELS` distinct finite values: one group per
    value.  Otherwise ``bins`` quantile bins of the finite values
    (``numpy.quantile``, linear interpolation): ``[q_k, q_k+1)``, the last one
    closed ``[q, max]``; edges repeated by ties merge (fewer bins); ``-inf``
    and ``inf`` fall into the first and last bin, whose edge becomes
    infinite.  NaN is missing.

    Returns:
        The condition of each value, and the bins in order (None for values:
        they are sorted).
    """
    missing = np.isnan(values)
    finite = values[np.isfinite(values)]
    if np.unique(values[~missing]).size <= MAX_FLOAT_LEVELS or finite.size == 0:
        return [MISSING if m else Condition(float(v), "float")
                for v, m in zip(values.tolist(), missing.tolist(), strict=True)], None
    edges = np.unique(np.quantile(finite, np.linspace(0.0, 1.0, max(1, int(bins)) + 1)))
    if edges.size < 2:
        edges = np.array([edges[0], edges[0]])
    if np.any(values == -np.inf):
        edges[0] = -np.inf
    if np.any(values == np.inf):
        edges[-1] = np.inf
    nb = edges.size - 1
    import pandas as pd

    intervals = [Condition(pd.Interval(float(edges[k]), float(edges[k + 1]),
                                       closed="both" if k == nb - 1 else "left"), "bin")
                 for k in range(nb)]
    which = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, nb - 1)
    labels = [MISSING if m else intervals[k]
              for k, m in zip(which.tolist(), missing.tolist(), strict=True)]
    return labels, intervals + [MISSING]


def _column_conditions(column: pd.Series,
                       bins: int) -> tuple[list[Condition], list[Condition] | None]:
    """Per-trial conditions of one ``trial_meta`` column and, for a
    categorical, the category order (else None: sorted order)."""
    import pandas as pd

    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cats = [_typed(v) for v in dtype.categories]
        codes = column.cat.codes.to_numpy()
        labels = [MISSING if k < 0 else cats[k] for k in codes.tolist()]
        return labels, cats + [MISSING]
    if pd.api.types.is_float_dtype(dtype):
        return _float_conditions(column.to_numpy(dtype=np.float64, na_value=np.nan), bins)
    return [_typed(v) for v in column.to_numpy(dtype=object)], None


def _neuro(document: Document) -> tuple[TrialStructure, ArrayRef]:
    trials = document.trials
    ref = document.arrays.get("neuro")
    if trials is None or ref is None:
        raise ValueError("the document offers no trial structure and neural array "
                         "(a VneuroTK recording, VneuroTK on-disk notes §3)")
    if trials.data_mode not in ("epochs", "continuous"):
        raise ValueError(f"{trials.data_mode!r} recordings have no time axis to average over "
                         "(epochs or continuous only, VneuroTK on-disk notes §2)")
    want = 3 if trials.data_mode == "epochs" else 2
    if ref.ndim != want:
        raise ValueError(f"{trials.data_mode} neural data must be {want}-D, got shape "
                         f"{list(ref.shape)} (VneuroTK on-disk notes §2)")
    return trials, ref


def _trial_count(trials: TrialStructure, ref: ArrayRef) -> int:
    if trials.data_mode == "epochs":
        return int(ref.shape[0])
    if trials.vision_onsets is None:
        raise ValueError("a continuous recording needs vision_onsets to cut trials "
                         "(VneuroTK on-disk notes §3)")
    return int(trials.vision_onsets.shape[0])


def condition_of_trials(document: Document, by: Hashable, *,
                        float_bins: int = FLOAT_BINS) -> tuple[list[Condition], list[Condition]]:
    """The condition of every trial, and the conditions in display order.

    Args:
        document: an opened recording (epochs or continuous).
        by: :data:`STIMULUS` (each trial's typed stimulus ID,
            ``TrialStructure.trial_stim_ids``) or the name of a
            ``trial_meta`` column.  Categorical columns keep their category
            order; bool, integer, string, object and datetime columns group
            by typed value (sorted); float columns group by value when they
            hold at most :data:`MAX_FLOAT_LEVELS` distinct values, else into
            ``float_bins`` quantile bins of the finite values
            (``numpy.quantile``, linear interpolation), each ``[q_k, q_k+1)``
            and the last ``[q, max]`` (ties at an edge go to the upper bin;
            repeated edges merge, so there may be fewer bins; infinities join
            the outer bins), labelled by their edges.
            Missing values (None, NaN, NA, NaT) form the :data:`MISSING`
            group, listed last.
        float_bins: number of quantile bins of a float column.

    Returns:
        ``(labels, conditions)``: one :class:`Condition` per trial (trial
        order), and the distinct conditions that occur, in display order,
        with unique labels.

    Raises:
        ValueError: no trial structure, no such column, or a column or ID
            list whose length is not the number of trials.
    """
    trials, ref = _neuro(document)
    n = _trial_count(trials, ref)
    order: list[Condition] | None = None
    if isinstance(by, str) and by == STIMULUS:
        ids = trials.trial_stim_ids
        if trials.stim_ids_pending:
            raise ValueError("the stimulus IDs of the trials are read by a deferred check: "
                             "run the document's checks first")
        if ids is None or len(ids) != n:
            raise ValueError(f"the document offers no stimulus ID per trial ({n} trials)")
        labels = [_typed(v) for v in ids]
    else:
        table = document.tables.get("trial_meta")
        meta = table.frame() if table is not None else None
        if meta is None or by not in meta.columns:
            raise ValueError(f"no trial_meta column {by!r} (nor the special value {STIMULUS!r})")
        import pandas as pd  # imported already: meta is a DataFrame

        column = meta[by]
        if isinstance(column, pd.DataFrame):
            raise ValueError(f"trial_meta has several columns named {by!r}")
        if len(column) != n:
            raise ValueError(f"trial_meta has {len(column)} rows for {n} trials")
        labels, order = _column_conditions(column, float_bins)
    used = set(labels)
    listed = [c for c in order if c in used] if order is not None else _sorted(used)
    final = {c: c for c in _labelled(listed)}
    return [final[c] for c in labels], list(final)


# -- epoching plan ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """Where each trial's samples are, in samples of the time axis.

    ``anchors[i]`` is trial ``i``'s onset (a sample of epoch ``i``, or of the
    recording); relative offsets ``[window)`` are returned, ``[hull)`` read.
    """

    epochs: bool
    length: int
    anchors: np.ndarray
    window: tuple[int, int]
    valid: np.ndarray | None
    baseline: np.ndarray | None
    channels: np.ndarray
    sfreq: float | None

    @property
    def hull(self) -> tuple[int, int]:
        lo, hi = self.window
        if self.baseline is not None:
            lo = min(lo, int(self.baseline[:, 0].min()))
            hi = max(hi, int(self.baseline[:, 1].max()))
        return lo, hi


def _per_trial(value: Any, n: int, what: str) -> np.ndarray:
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
        return -_per_trial(trials.trial_window, n, "trial_window")[:, 0]
    return np.zeros(n, dtype=np.int64)


def _recorded_windows(trials: TrialStructure, anchors: np.ndarray, length: int) -> np.ndarray:
    """Each trial's own ``[start, stop)`` offsets (see the module notes)."""
    n = anchors.shape[0]
    epochs = trials.data_mode == "epochs"
    if trials.trial_window is not None and not epochs:
        return _per_trial(trials.trial_window, n, "trial_window")
    s, e = trials.trial_starts, trials.trial_ends
    if s is not None and e is not None and s.shape == (n,) and e.shape == (n,):
        return np.stack([s.astype(np.int64) - anchors, e.astype(np.int64) - anchors], axis=1)
    if trials.trial_window is not None:
        return _per_trial(trials.trial_window, n, "trial_window")
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
        out = _per_trial(trials.baseline, n, "trial_info baseline")
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


def _plan(document: Document, channels: Any, window: Any, baseline: Any) -> _Plan:
    trials, ref = _neuro(document)
    if np.dtype(ref.dtype).kind not in "biuf":
        raise ValueError(f"neural samples of dtype {ref.dtype} cannot be averaged "
                         "(real numbers only)")
    n = _trial_count(trials, ref)
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
    return _Plan(epochs, length, anchors, win, valid, _baseline(baseline, trials, recorded, sfreq),
                 _channel_index(ref, channels), sfreq)


# -- reading blocks -----------------------------------------------------------------------

#: A box of the neural array: (rows [r0, r1) or None for 2-D data, samples [t0, t1)).
_Box = tuple[tuple[int, int] | None, tuple[int, int]]


class _PlainSource:
    """Boxes read with ``ArrayRef.read`` on the calling thread (HDF5 decodes)."""

    def __init__(self, ref: ArrayRef, channels: np.ndarray) -> None:
        self.ref = ref
        self.c0, self.c1 = int(channels.min()), int(channels.max()) + 1
        self.pick = channels - self.c0
        self.gap = 0
        self.ahead = 0  # reads are synchronous: reading ahead would only hold memory
        self.rows_per_chunk = 1
        coo = ref.storage == "coo"
        # COO densifies whole trials of every channel (VneuroTK on-disk notes §2)
        self.row_bytes = (int(ref.shape[1]) * int(ref.shape[2]) * np.dtype(ref.dtype).itemsize
                          if coo and ref.ndim == 3 else 0)
        self.width = self.c1 - self.c0

    def submit(self, boxes: list[_Box]) -> list[np.ndarray]:
        out = []
        for rows, (t0, t1) in boxes:
            sel: tuple[slice, ...] = (slice(t0, t1), slice(self.c0, self.c1))
            if rows is not None:
                sel = (slice(*rows),) + sel
            out.append(np.asarray(self.ref.read(sel))[..., self.pick])
        return out

    def collect(self, handle: list[np.ndarray]) -> list[np.ndarray]:
        return handle

    def count(self, boxes: list[_Box]) -> int:
        """Reads of ``boxes``: one each (the chunks of :mod:`.read_meter` here)."""
        return len(boxes)

    def cancel(self, handle: list[np.ndarray]) -> None:
        return None


@dataclass
class _Piece:
    """One chunk's share of a box: decoded by ``run`` (on the pool or inline)."""

    dest: tuple[Any, ...]
    run: Callable[[], np.ndarray]
    future: Future[np.ndarray] | None = None

    def result(self) -> np.ndarray:
        """The piece; runs it here when the pool has not started it (no deadlock)."""
        if self.future is not None and not self.future.cancel():
            return self.future.result()
        return self.run()


class _Layout(Protocol):
    """The chunk layout an array offers (``H5DatasetRef.chunk_layout()``)."""

    @property
    def chunks(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> np.dtype: ...

    @property
    def filters(self) -> tuple[str, ...]: ...


#: Filters undone here (HDF5 shuffle, deflate and Fletcher-32, whose checksum is
#: checked as HDF5 checks it).  Arrays with any other filter are read through
#: ``ArrayRef.read``.
DECODABLE = ("shuffle", "gzip", "fletcher32")


def _decoded_selection(data: bytes, mask: int, layout: _Layout, local: tuple[slice, ...],
                       pick: np.ndarray | slice) -> np.ndarray | None:
    """``chunk[local][..., pick]`` of one stored chunk, or None when its
    pipeline (``layout.filters`` less the ones ``mask`` skipped) holds a filter
    other than :data:`DECODABLE`.

    Filters are undone by :func:`inspector.formats.inflate.undo_filters`, all
    but the shuffle (byte ``j`` of every element stored as plane ``j``, HDF5
    ``H5Zshuffle.c``), which is undone here for the selected elements only.

    Raises:
        ChunkOverflow: the deflate stream holds more than the chunk's size.
        OSError: corrupt compressed data, a failed checksum or a wrong decoded size.
    """
    if any(f not in DECODABLE for i, f in enumerate(layout.filters) if not mask & (1 << i)):
        return None
    dtype = np.dtype(layout.dtype)
    expected = int(np.prod(layout.chunks, dtype=np.int64)) * dtype.itemsize
    raw, shuffled = undo_filters(data, mask, layout.filters, dtype.itemsize, expected,
                                 keep_shuffled=True)
    if shuffled and dtype.itemsize > 1:
        planes = raw.reshape(dtype.itemsize, *layout.chunks)
        index: tuple[Any, ...] = (slice(None), *local[:-1], pick)
        return np.ascontiguousarray(np.moveaxis(planes[index], 0, -1)).view(dtype)[..., 0]
    return raw.view(dtype).reshape(layout.chunks)[(*local[:-1], pick)]


def _decode_piece(ref: Any, layout: _Layout, offset: tuple[int, ...],
                  local: tuple[slice, ...], pick: np.ndarray | slice,
                  fallback: tuple[slice, ...]) -> np.ndarray:
    """Decode one chunk of ``ref`` and keep ``local`` (chunk coordinates) of channels ``pick``.

    ``local`` has one slice per axis (the last one is ignored: ``pick``
    selects the channels).  Runs on a pool thread: reads only.
    """
    try:
        mask, data = ref.read_raw_chunk(offset)
        arr = _decoded_selection(data, mask, layout, local, pick)
    except ChunkOverflow as exc:  # never handed to HDF5, which would inflate it all
        raise exc.at(str(getattr(ref, "location", "")), offset) from None
    except (OSError, NotImplementedError):
        arr = None
    if arr is None:
        # unallocated chunk or another pipeline: HDF5 decodes it (a changed file raises here)
        arr = np.asarray(ref.read(fallback))[..., pick]
    return np.ascontiguousarray(arr)


def _as_slice(index: np.ndarray) -> np.ndarray | slice:
    """An ascending run of consecutive integers as a slice (a view, not a copy)."""
    if index.size and np.all(np.diff(index) == 1):
        return slice(int(index[0]), int(index[-1]) + 1)
    return index


class _ChunkSource:
    """Boxes assembled from chunks decoded in parallel on the shared pool."""

    def __init__(self, ref: ArrayRef, layout: _Layout, channels: np.ndarray) -> None:
        self.ref = ref
        self.layout = layout
        self.channels = channels
        self.chunks = tuple(int(c) for c in layout.chunks)
        self.gap = self.chunks[-2]
        self.ahead = AHEAD
        self.rows_per_chunk = self.chunks[0] if ref.ndim == 3 else 1
        self.row_bytes = 0
        self.width = len(channels)
        ck = self.chunks[-1]
        # per chunk column: its first channel, the channels to keep in it and
        # their positions in the result; runs of consecutive channels are slices
        self.columns = []
        for col in np.unique(channels // ck).tolist():
            positions = np.flatnonzero(channels // ck == col)
            cs = col * ck
            self.columns.append((cs, _as_slice(channels[positions] - cs), _as_slice(positions)))

    def _pieces(self, rows: tuple[int, int] | None, t0: int, t1: int) -> list[_Piece]:
        spans = ([rows] if rows is not None else []) + [(t0, t1)]
        grids = [range(a // c, -(-b // c)) for (a, b), c in zip(spans, self.chunks, strict=False)]
        pieces = []
        for coord in np.ndindex(*(len(g) for g in grids)):
            starts = [g[i] * c for g, i, c in zip(grids, coord, self.chunks, strict=False)]
            local, dest, glob = [], [], []
            for (a, b), s, c in zip(spans, starts, self.chunks, strict=False):
                lo, hi = max(a, s), min(b, s + c)
                local.append(slice(lo - s, hi - s))
                dest.append(slice(lo - a, hi - a))
                glob.append(slice(lo, hi))
            for cs, pick, positions in self.columns:
                offset = (*starts, cs)
                fallback = (*glob, slice(cs, min(cs + self.chunks[-1], int(self.ref.shape[-1]))))
                run = partial(_decode_piece, self.ref, self.layout, offset,
                              (*local, slice(None)), pick, fallback)
                pieces.append(_Piece((*dest, positions), run))
        return pieces

    def count(self, boxes: list[_Box]) -> int:
        """Stored chunks :meth:`submit` decodes for ``boxes`` (one piece each)."""
        n = 0
        for rows, (t0, t1) in boxes:
            if t1 <= t0:
                continue
            spans = ([rows] if rows is not None else []) + [(t0, t1)]
            k = 1
            for (a, b), c in zip(spans, self.chunks, strict=False):
                k *= len(range(a // c, -(-b // c)))
            n += k * len(self.columns)
        return n

    def submit(self, boxes: list[_Box]) -> list[tuple[tuple[int, ...], list[_Piece]]]:
        executor = pool()
        out = []
        for rows, (t0, t1) in boxes:
            shape = ((rows[1] - rows[0],) if rows is not None else ()) + (t1 - t0, self.width)
            pieces = self._pieces(rows, t0, t1) if t1 > t0 else []
            for p in pieces:
                p.future = executor.submit(p.run)
            out.append((shape, pieces))
        return out

    def collect(self, handle: list[tuple[tuple[int, ...], list[_Piece]]]) -> list[np.ndarray]:
        out = []
        for shape, pieces in handle:
            box = np.empty(shape, dtype=np.dtype(self.layout.dtype).newbyteorder("="))
            for p in pieces:
                box[p.dest] = p.result()
            out.append(box)
        return out

    def cancel(self, handle: list[tuple[tuple[int, ...], list[_Piece]]]) -> None:
        for _, pieces in handle:
            for p in pieces:
                if p.future is not None:
                    p.future.cancel()


_Source = _PlainSource | _ChunkSource


def _source_for(ref: ArrayRef, channels: np.ndarray) -> _Source:
    """The chunk decoder when ``ref`` offers its stored chunks, else plain reads.

    Duck-typed: an array offering ``chunk_layout()`` (chunks, dtype, filters)
    and ``read_raw_chunk(offset) -> (filter_mask, bytes)``, as the HDF5
    ``H5DatasetRef`` of a recording does, with numeric samples and only
    :data:`DECODABLE` filters, is decoded chunk by chunk on the pool.
    """
    get_layout = getattr(ref, "chunk_layout", None)
    if callable(get_layout) and callable(getattr(ref, "read_raw_chunk", None)):
        layout = get_layout()
        if (layout is not None and len(layout.chunks) == ref.ndim
                and all(f in DECODABLE for f in layout.filters)
                and np.dtype(layout.dtype).kind in "biuf"):
            return _ChunkSource(ref, layout, channels)
    return _PlainSource(ref, channels)


def _blocks(plan: _Plan, source: _Source, itemsize: int,
            chosen: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Trial indices of each block, in reading order (continuous: by onset), and
    the bytes one block reads (samples as stored, plus densified COO trials).

    ``chosen`` are the trials to read (ascending).  An epochs block holds the
    chosen trials of one aligned run of ``k`` rows (the box read spans that
    run, so a sparse choice never reads more than ``k`` rows at once).
    """
    h0, h1 = plan.hull
    per_trial = (h1 - h0) * source.width * itemsize + source.row_bytes
    k = max(1, min(MAX_BLOCK_TRIALS, BLOCK_BYTES // max(per_trial, 1)))
    r = source.rows_per_chunk
    if plan.epochs:
        if r > 1:
            k = max(r, k - k % r)  # whole chunk rows: no chunk is decoded twice
        cuts = np.flatnonzero(np.diff(chosen // k)) + 1
        return ([b for b in np.split(chosen, cuts) if b.size] if chosen.size else []), \
            k * per_trial
    order = chosen[np.argsort(plan.anchors[chosen], kind="stable")]
    return [order[a:a + k] for a in range(0, order.shape[0], k)], k * per_trial


def _slabs(plan: _Plan, trials: int) -> list[slice]:
    """Channel slabs folded one at a time, so that the float64 temporaries of
    one fold stay near :data:`SLAB_BYTES` whatever the number of channels."""
    h0, h1 = plan.hull
    width = max(1, SLAB_BYTES // max(1, trials * (h1 - h0) * 8))
    c = len(plan.channels)
    return [slice(a, min(c, a + width)) for a in range(0, c, width)]


def _boxes(plan: _Plan, idx: np.ndarray,
           gap: int) -> tuple[list[_Box], np.ndarray, np.ndarray]:
    """The boxes to read for trials ``idx`` and, per trial, the box holding it
    and the flat sample position (in that box) of its hull's first sample.

    Continuous trials (sorted by onset) share a box when less than ``gap``
    samples (a chunk) apart, so that no chunk is decoded twice in a block.
    """
    h0, h1 = plan.hull
    a = plan.anchors[idx]
    lo = np.clip(a + h0, 0, plan.length)
    hi = np.clip(a + h1, 0, plan.length)
    owner = np.zeros(idx.shape[0], dtype=np.int64)
    if plan.epochs:
        t0, t1 = int(lo.min()), int(max(hi.max(), lo.min()))
        r0 = int(idx[0])
        base = (idx - r0) * (t1 - t0) + (a + h0 - t0)
        return [((r0, int(idx[-1]) + 1), (t0, t1))], owner, base
    boxes: list[_Box] = []
    for j, (s, e) in enumerate(zip(lo.tolist(), hi.tolist(), strict=True)):
        if boxes and s <= boxes[-1][1][1] + gap:
            prev = boxes[-1][1]
            boxes[-1] = (None, (prev[0], max(prev[1], e)))
        elif e > s or not boxes:
            boxes.append((None, (s, max(s, e))))
        owner[j] = len(boxes) - 1
    box_lo = np.array([box[1][0] for box in boxes], dtype=np.int64)
    return boxes, owner, a + h0 - box_lo[owner]


def _gather(plan: _Plan, idx: np.ndarray, arrays: list[np.ndarray], owner: np.ndarray,
            base: np.ndarray, cols: slice) -> np.ndarray:
    """float64 ``(trials, hull, channels[cols])``: each trial's hull, NaN outside the data."""
    h0, h1 = plan.hull
    width = len(plan.channels)
    flats = [x.reshape(-1, width) for x in arrays]
    start = plan.anchors[idx] + h0
    first = np.clip(-start, 0, h1 - h0).tolist()
    last = np.clip(plan.length - start, 0, h1 - h0).tolist()
    out = np.full((idx.shape[0], h1 - h0, len(range(width)[cols])), np.nan)
    for j, (f, e, o, b) in enumerate(zip(first, last, owner.tolist(), base.tolist(),
                                         strict=True)):
        if e > f:
            out[j, f:e] = flats[o][b + f:b + e, cols]
    return out


def _shape_block(plan: _Plan, idx: np.ndarray, hull: np.ndarray) -> np.ndarray:
    """float64 ``(trials, window, channels)``: per-trial window mask and baseline applied."""
    h0, h1 = plan.hull
    w0, w1 = plan.window
    x = hull[:, w0 - h0:w1 - h0]
    if plan.valid is not None:
        rel = np.arange(w0, w1)
        inside = (rel >= plan.valid[idx, 0, None]) & (rel < plan.valid[idx, 1, None])
        x = np.where(inside[:, :, None], x, np.nan)
    if plan.baseline is not None:
        rel = np.arange(h0, h1)
        inb = (rel >= plan.baseline[idx, 0, None]) & (rel < plan.baseline[idx, 1, None])
        use = inb[:, :, None] & ~np.isnan(hull)
        count = use.sum(axis=1)
        total = np.where(use, hull, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / count
        x = x - mean[:, None, :]
    return x


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


def _each_block(ref: ArrayRef, plan: _Plan, chosen: np.ndarray, fold: _Fold,
                progress: ProgressFn | None, cancelled: CancelFn | None) -> None:
    """Read the blocks of trials ``chosen`` (``AHEAD`` blocks ahead) and hand
    each channel slab of each block, windowed and baseline-corrected, to ``fold``."""
    source = _source_for(ref, plan.channels)
    total = int(chosen.shape[0])
    pending: deque[tuple[np.ndarray, np.ndarray, np.ndarray, Any, int]] = deque()
    done = 0

    blocks, block_bytes = _blocks(plan, source, np.dtype(ref.dtype).itemsize, chosen)
    # blocks larger than the target (one row of big chunks) are not read ahead
    ahead = source.ahead if block_bytes <= BLOCK_BYTES else 0

    if metered():  # someone counts chunks: plan them (a pass over the blocks' boxes)
        chunks_expected(sum(source.count(_boxes(plan, idx, source.gap)[0]) for idx in blocks))

    def step() -> None:
        nonlocal done
        idx, owner, base, handle, pieces = pending.popleft()
        arrays = source.collect(handle)
        for k in range(pieces):
            chunk_read((done, k))  # (``done``: the trials before this block, its identity)
        for cols in _slabs(plan, int(idx.shape[0])):
            fold(idx, _shape_block(plan, idx, _gather(plan, idx, arrays, owner, base, cols)),
                 cols)
        done += int(idx.shape[0])
        if progress is not None:
            progress(Progress(done, total))

    try:
        for idx in blocks:
            if cancelled is not None and cancelled():
                raise Cancelled()
            boxes, owner, base = _boxes(plan, idx, source.gap)
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


def _accumulate(ref: ArrayRef, plan: _Plan, chosen: np.ndarray, codes: np.ndarray,
                groups: int, progress: ProgressFn | None,
                cancelled: CancelFn | None) -> _Moments:
    """Fold every chosen trial into the moments of its condition."""
    w0, w1 = plan.window
    moments = _Moments(groups, w1 - w0, len(plan.channels))
    _each_block(ref, plan, chosen, lambda idx, x, cols: moments.add(codes[idx], x, cols),
                progress, cancelled)
    return moments


# -- result -------------------------------------------------------------------------------


def _frame(conditions: Sequence[Condition], plan: _Plan, moments: _Moments,
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


def _chosen(trials: Any, n: int) -> np.ndarray:
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
    plan = _plan(document, channels, window, baseline)
    chosen = _chosen(trials, len(labels))
    conditions, codes = _codes(labels, conditions, chosen)
    rows = len(conditions) * len(plan.channels) * (plan.window[1] - plan.window[0])
    if rows > MAX_RESULT_ROWS:
        raise ValueError(f"the result would have {rows} rows (limit {MAX_RESULT_ROWS}): "
                         "choose fewer channels, a shorter window or a coarser grouping")
    ref = document.arrays["neuro"]
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
    return _typed(value)


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
    plan = _plan(document, None, None, None)
    ref = document.arrays["neuro"]
    names = ref.attrs.get("ch_names")
    n_ch = int(ref.shape[-1])
    listed = [str(x) for x in names] if isinstance(names, list) and len(names) == n_ch else []
    trials = document.trials
    recorded = trials.baseline if trials is not None else None
    shared: tuple[int, int] | None = None
    if recorded is not None:
        rows = _per_trial(recorded, int(plan.anchors.shape[0]), "trial_info baseline")
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
        trials, ref = _neuro(document)
        n = _trial_count(trials, ref)
        return TrialOrder(np.arange(n, dtype=np.int64), [], np.array([0, n], dtype=np.int64))
    labels, conditions = condition_of_trials(document, by, float_bins=float_bins)
    position = {c: i for i, c in enumerate(conditions)}
    codes = np.fromiter((position[c] for c in labels), dtype=np.int64, count=len(labels))
    within = np.zeros(len(labels))
    table = document.tables.get("trial_meta")
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
    plan = _plan(document, [channel], window, baseline)
    n = int(plan.anchors.shape[0])
    rows_order = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, np.int64)
    chosen = _chosen(rows_order, n)
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

    _each_block(document.arrays["neuro"], plan, chosen, fold, progress, cancelled)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    w0, w1 = plan.window
    offsets = np.minimum(w0 + step * np.arange(bins + 1), w1).astype(np.float64)
    edges = offsets / plan.sfreq if plan.sfreq is not None else offsets
    return TrialMatrix(values, rows_order, per_row, edges, step, int(plan.channels[0]),
                       "s" if plan.sfreq is not None else "samples", plan.window)
