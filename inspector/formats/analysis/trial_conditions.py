"""Which condition each trial belongs to: by stimulus ID or a trial-metadata column, typed
values as they are (1 and "1" differ), missing values as one condition, and float
columns with many values in quantile bins (:func:`condition_of_trials`)."""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.capabilities import TrialStructure
from inspector.formats.values.pandas_values import is_na, is_nat, is_timestamp

if TYPE_CHECKING:
    import pandas as pd

    from inspector.formats.document import Document


#: ``by`` value grouping trials by their stimulus ID (typed: 1 and "1" differ).
#: It takes precedence over a ``trial_meta`` column of the same name.
STIMULUS = "stimulus"


#: Float columns with more distinct finite values than :data:`MAX_FLOAT_LEVELS`
#: are split into this many quantile bins (quartiles by default).
FLOAT_BINS = 4


#: Float columns with at most this many distinct finite values are grouped
#: by value (e.g. contrast levels), not binned.
MAX_FLOAT_LEVELS = 10


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


def typed_condition(value: Any) -> Condition:
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
        cats = [typed_condition(v) for v in dtype.categories]
        codes = column.cat.codes.to_numpy()
        labels = [MISSING if k < 0 else cats[k] for k in codes.tolist()]
        return labels, cats + [MISSING]
    if pd.api.types.is_float_dtype(dtype):
        return _float_conditions(column.to_numpy(dtype=np.float64, na_value=np.nan), bins)
    return [typed_condition(v) for v in column.to_numpy(dtype=object)], None


def trials_and_neuro(document: Document) -> tuple[TrialStructure, ArrayRef]:
    trials = document.trials
    ref = document.neural_array()
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


def trial_count(trials: TrialStructure, ref: ArrayRef) -> int:
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
    trials, ref = trials_and_neuro(document)
    n = trial_count(trials, ref)
    order: list[Condition] | None = None
    if isinstance(by, str) and by == STIMULUS:
        ids = trials.trial_stim_ids
        if trials.stim_ids_pending:
            raise ValueError("the stimulus IDs of the trials are read by a deferred check: "
                             "run the document's checks first")
        if ids is None or len(ids) != n:
            raise ValueError(f"the document offers no stimulus ID per trial ({n} trials)")
        labels = [typed_condition(v) for v in ids]
    else:
        table = document.trial_table()
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
