"""Representational similarity of a recording, record by record (layer by layer).

:func:`representational_similarity` answers "does the model see the
stimuli as the brain does" for every visual-representation record of a
recording (Kriegeskorte, Mur and Bandettini 2008):

1. the feature dissimilarity matrix of the record (:mod:`.features`, over all
   its stimuli);
2. the neural dissimilarity matrix of the mean response per stimulus
   (:mod:`.neural`), same metric, over the stimuli matched by typed ID
   (:mod:`.matching`), in the record's row order;
3. their Spearman correlation and permutation p-value (:mod:`.agreement`)
   over the matched stimuli whose dissimilarities are defined on both sides.

IDs on one side only are listed; a record whose IDs match none of the trials'
stimuli is a ``rsa.no-shared-stimuli`` finding; fewer than three stimuli in
common, ``rsa.too-few-stimuli``.  Nothing here imports Qt; run it off the
GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.analysis.rsa import rules as R
from inspector.formats.analysis.rsa.agreement import PERMUTATIONS, SEED, Agreement, agreement
from inspector.formats.analysis.rsa.features import (
    MEMORY_BUDGET,
    FeatureRdm,
    feature_rdm,
    sub_condensed,
)
from inspector.formats.analysis.rsa.matching import StimulusMatch, match_stimuli
from inspector.formats.analysis.rsa.neural import NeuralPatterns, neural_patterns, stimulus_groups
from inspector.formats.analysis.trial_average import RECORDED
from inspector.formats.analysis.trial_conditions import Condition
from inspector.formats.capabilities import CancelFn, Progress, ProgressFn
from inspector.formats.findings import Finding

if TYPE_CHECKING:
    from inspector.formats.analysis.arrays import ArrayRef
    from inspector.formats.document import Document

#: ``Document.arrays`` names of vision records start with this.
RECORD_PREFIX = "vision_store/"
#: ``baseline`` value: the recording's baseline when it gives one that holds
#: samples, else none (what the Trials tab starts with).
AUTO = "auto"


@dataclass(frozen=True)
class RsaOptions:
    """How to compute (every field has the default the CLI and the tab start from).

    Attributes:
        metric: ``"correlation"``, ``"euclidean"`` or ``"cosine"``, both sides.
        permutations, seed: of the permutation test.
        channels, window: as for ``trial_average`` (None: all, the recorded window).
        baseline: as for ``trial_average``, or :data:`AUTO`.
        pattern: ``"mean"`` or ``"timecourse"`` (see :mod:`.neural`).
        records: names of the records to compare (None: all).
        memory_budget: most bytes of stored feature rows held at once.
    """

    metric: str = "correlation"
    permutations: int = PERMUTATIONS
    seed: int = SEED
    channels: Any = None
    window: Any = None
    baseline: Any = AUTO
    pattern: str = "mean"
    records: tuple[str, ...] | None = None
    memory_budget: int = MEMORY_BUDGET


@dataclass(frozen=True)
class LayerResult:
    """One record compared with the responses.

    Attributes:
        name: its ``Document.arrays`` name (``"vision_store/0"``).
        location: its group in the file.
        model, module_name, module_type: as stored.
        shape: its array's shape ``(stimuli, *features)``.
        stim_ids: its stimulus IDs, in row order (the order of ``feature_rdm``).
        feature_rdm: the dissimilarities of all its stimuli, in row order.
        match: how its rows pair with the trials' stimuli.
        used: int64 record rows compared (matched, defined on both sides), ascending.
        undefined: record IDs matched but left out (dissimilarity undefined on a side).
        agreement: the Spearman correlation and p-value, or None (fewer than 3 stimuli).
        findings: ``rsa.*`` findings about this record.
    """

    name: str
    location: str
    model: str
    module_name: str
    module_type: str
    shape: tuple[int, ...]
    stim_ids: tuple[Any, ...]
    feature_rdm: FeatureRdm
    match: StimulusMatch
    used: np.ndarray
    undefined: tuple[Any, ...]
    agreement: Agreement | None
    findings: tuple[Finding, ...] = ()

    def compared_ids(self) -> list[Any]:
        """The IDs of the stimuli compared, in the order of the compared matrices."""
        return [self.stim_ids[int(r)] for r in self.used]


@dataclass(frozen=True)
class RsaResult:
    """Every record of a recording compared with its responses.

    Attributes:
        options: what was computed.
        layers: one per record, in record order.
        neural: the response patterns of the matched stimuli (None when none matched).
        neural_rdms: per record name, the neural dissimilarities of its
            compared stimuli (condensed float64, the order of ``layer.used``).
        findings: every ``rsa.*`` finding, in record order.
        groups: the trials' stimuli (the conditions ``match.groups`` index).
    """

    options: RsaOptions
    layers: tuple[LayerResult, ...]
    neural: NeuralPatterns | None
    neural_rdms: dict[str, np.ndarray]
    findings: tuple[Finding, ...]
    groups: tuple[Condition, ...] = ()


def vision_records(document: Document) -> list[tuple[str, ArrayRef]]:
    """The document's vision records (``vision_store/<i>`` arrays), in numeric order."""
    found = [(name, ref) for name, ref in document.arrays.items()
             if name.startswith(RECORD_PREFIX) and name[len(RECORD_PREFIX):].isdigit()]
    return sorted(found, key=lambda item: int(item[0][len(RECORD_PREFIX):]))


class _Stages:
    """Overall progress of several steps, each reporting its own ``Progress``."""

    def __init__(self, progress: ProgressFn | None, count: int) -> None:
        self.progress, self.count = progress, max(1, count)

    def part(self, k: int) -> ProgressFn | None:
        if self.progress is None:
            return None
        report = self.progress

        def step(p: Progress) -> None:
            share = 1000 * p.done // max(1, p.total)
            report(Progress(1000 * k + share, 1000 * self.count))
        return step


def _chosen(document: Document, names: tuple[str, ...] | None) -> list[tuple[str, ArrayRef]]:
    records = vision_records(document)
    if names is not None:
        unknown = sorted(set(names) - {n for n, _ in records})
        if unknown:
            raise ValueError(f"no vision record {', '.join(unknown)}; the recording has "
                             f"{', '.join(n for n, _ in records) or 'none'}")
        records = [(n, r) for n, r in records if n in names]
    if not records:
        raise ValueError("the document offers no vision record (vision_store) to compare")
    return records


def _baseline(document: Document, baseline: Any) -> Any:
    """:data:`AUTO`: the recorded baseline when it holds samples for every trial, else none."""
    if isinstance(baseline, str) and baseline == AUTO:
        trials = document.trials
        recorded = None if trials is None else trials.baseline
        if recorded is None:
            return None
        pairs = np.asarray(recorded).reshape(-1, 2)
        return RECORDED if pairs.size and bool(np.all(pairs[:, 1] > pairs[:, 0])) else None
    return baseline


def _record_ids(ref: ArrayRef) -> tuple[Any, ...]:
    ids = ref.attrs.get("stim_ids")
    return tuple(ids) if isinstance(ids, (list, tuple)) else ()


def _group_location(ref: ArrayRef) -> str:
    loc = ref.location
    return loc[:-len("/array")] if loc.endswith("/array") else loc


def _findings(name: str, location: str, match: StimulusMatch, groups: list[Condition],
              used: int) -> tuple[Finding, ...]:
    ids = match.features_only
    if match.count == 0 and ids:
        shown = ", ".join(repr(v) for v in ids[:3])
        trials = ", ".join(repr(g.value) for g in [g for g in groups if not g.missing][:3])
        return (R.RSA_NO_SHARED_STIMULI.finding(
            f"{location}/stim_ids ({len(ids)} IDs: {shown}...) match none of the trials' "
            f"stimulus labels ({trials}...): {name} cannot be compared with the responses",
            f"{location}/stim_ids"),)
    if used < 3:
        return (R.RSA_TOO_FEW_STIMULI.finding(
            f"{name}: {used} stimuli have features and responses; at least 3 are needed",
            f"{location}/stim_ids"),)
    return ()


def _neural_side(neural: NeuralPatterns | None, groups: list[Condition], match: StimulusMatch,
                 metric: str) -> tuple[FeatureRdm | None, np.ndarray]:
    """Neural dissimilarities of the matched stimuli (record row order), and which
    of them are undefined (bool ``(matched,)``)."""
    if neural is None or match.count == 0:
        return None, np.zeros(match.count, dtype=bool)
    index = {c: i for i, c in enumerate(neural.stimuli)}
    values = neural.values[[index[groups[int(g)]] for g in match.groups]]
    bad = ~np.isfinite(values).all(axis=1)
    if match.count < 2:
        return None, bad
    rdm = feature_rdm(NumpyArrayRef("neural", values), metric)
    return rdm, bad | rdm.undefined


def _layer(name: str, ref: ArrayRef, match: StimulusMatch, groups: list[Condition],
           neural: NeuralPatterns | None, options: RsaOptions, stages: _Stages, k: int,
           cancelled: CancelFn | None) -> tuple[LayerResult, np.ndarray | None]:
    """One record: its feature matrix, the neural one of its matched stimuli, their agreement."""
    feat = feature_rdm(ref, options.metric, memory_budget=options.memory_budget,
                       progress=stages.part(2 * k + 1), cancelled=cancelled)
    nrdm, nbad = _neural_side(neural, groups, match, options.metric)
    keep = ~(nbad | feat.undefined[match.rows])
    used = match.rows[keep]
    ids = _record_ids(ref)
    where = _group_location(ref)
    agreed, pair = None, None
    if used.shape[0] >= 3 and nrdm is not None:
        a = sub_condensed(nrdm.condensed, nrdm.n, np.flatnonzero(keep))
        agreed = agreement(a, sub_condensed(feat.condensed, feat.n, used), int(used.shape[0]),
                           permutations=options.permutations, seed=options.seed,
                           progress=stages.part(2 * k + 2), cancelled=cancelled)
        pair = a
    layer = LayerResult(
        name, where, str(ref.attrs.get("model", "")), str(ref.attrs.get("module_name", "")),
        str(ref.attrs.get("module_type", "")), tuple(int(v) for v in ref.shape), ids, feat,
        match, used, tuple(ids[int(r)] for r in match.rows[~keep]), agreed,
        _findings(name, where, match, groups, int(used.shape[0])))
    return layer, pair


def representational_similarity(document: Document, options: RsaOptions | None = None, *,
                                progress: ProgressFn | None = None,
                                cancelled: CancelFn | None = None) -> RsaResult:
    """Compare every chosen vision record of ``document`` with its responses.

    Args:
        document: an opened recording whose deferred checks have run (the
            trials' stimulus IDs come from the label scan).
        options: see :class:`RsaOptions` (default: all records, correlation,
            1 000 permutations, seed 0).
        progress: overall ``Progress`` (thousandths of steps).
        cancelled: polled between blocks; True raises ``Cancelled``.

    Returns:
        The :class:`RsaResult`.

    Raises:
        ValueError: no vision record, no stimulus ID per trial, a bad option.
        OSError: an array cannot be read.
        Cancelled: ``cancelled()`` returned True.
    """
    options = options or RsaOptions()
    records = _chosen(document, options.records)
    groups = stimulus_groups(document)
    matches = [match_stimuli(_record_ids(ref), groups) for _, ref in records]
    union = list(dict.fromkeys(groups[int(g)] for m in matches for g in m.groups))
    stages = _Stages(progress, 1 + 2 * len(records))
    neural = None
    if union:
        neural = neural_patterns(document, union, channels=options.channels,
                                 window=options.window,
                                 baseline=_baseline(document, options.baseline),
                                 pattern=options.pattern, progress=stages.part(0),
                                 cancelled=cancelled)
    layers, rdms = [], {}
    for k, ((name, ref), match) in enumerate(zip(records, matches, strict=True)):
        layer, pair = _layer(name, ref, match, groups, neural, options, stages, k, cancelled)
        layers.append(layer)
        if pair is not None:
            rdms[name] = pair
    found = tuple(f for layer in layers for f in layer.findings)
    return RsaResult(options, tuple(layers), neural, rdms, found, tuple(groups))
