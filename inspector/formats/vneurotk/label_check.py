"""The stimulus-label check of a recording: the work sized by its samples.

The per-sample ``/stim_labels`` are as long as the recording (VneuroTK
recording notes (spec/vneurotk-recording.md) §3, §4): 4 Mi float64 labels
are 32 MiB, read whole.  Opening reads their metadata only (count, shape,
dtype); the one blockwise pass over them (:meth:`Labels.scan`) and what
depends on it run later as a :class:`LabelCheck`, a
:class:`~inspector.formats.capabilities.DeferredCheck`
(docs/architecture.md, "Deferred work"):

* the ``stim_labels`` summary facts (non-missing count, first values);
* each trial's stimulus ID, the label at its onset (continuous and epochs
  recordings), which becomes ``TrialStructure.trial_stim_ids`` and the
  ``trial_stim_ids`` summary;
* the alignment of each vision record to those IDs (notes §5):
  ``vision.unaligned``, ``vision.ids-not-covered`` and each record's
  ``aligned_shape``.

The check reads the file and returns a
:class:`~inspector.formats.capabilities.CheckResult` with a new
:class:`~inspector.formats.capabilities.TrialStructure`; it never touches
the document.  ``open_recording(..., hash_arrays=True)`` runs it while
opening.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from inspector.formats.capabilities import (
    CancelFn,
    CheckResult,
    Progress,
    ProgressFn,
    TrialStructure,
)
from inspector.formats.findings import Finding
from inspector.formats.hdf5.source import STEP_ERRORS, step_finding
from inspector.formats.hdf5.values import typed
from inspector.formats.vneurotk import rules as R
from inspector.formats.vneurotk.labels import Labels, LabelScan, ScanCancelled


@dataclass(frozen=True)
class RecordIds:
    """What aligning one vision record needs (notes §5).

    Attributes:
        location: the record's group (``"/vision_store/0"``).
        stim_ids: the record's stimulus IDs, as read.
        shape: the shape of its array ``(stimuli, *features)``.
    """

    location: str
    stim_ids: tuple[Any, ...]
    shape: tuple[int, ...]


def aligned_shape(record: RecordIds,
                  trial_ids: list[Any]) -> tuple[list[int] | None, Finding | None]:
    """``([trials, *features], None)`` when ``record`` holds every trial's ID,
    else ``(None, vision.ids-not-covered)`` (notes §5)."""
    have = set()
    for s in record.stim_ids:
        try:
            have.add(s)
        except TypeError:
            pass
    missing = []
    for s in trial_ids:
        try:
            if s not in have:
                missing.append(s)
        except TypeError:
            missing.append(s)
    if not missing:
        return [len(trial_ids)] + list(record.shape[1:]), None
    uniq = list(dict.fromkeys(repr(m) for m in missing))
    return None, R.VISION_IDS_NOT_COVERED.finding(
        f"{record.location}/stim_ids do not cover the trial stimulus IDs: missing "
        f"{len(uniq)} ID(s) {', '.join(uniq[:5])} (records must align to every "
        "trial/row)", f"{record.location}/stim_ids")


def unaligned(mode: str, location: str) -> Finding:
    """``vision.unaligned`` at ``location``: the trials have no stimulus IDs (notes §3, §5)."""
    why = ("patterns need trial_meta['stim_index'] with one ID per row"
           if mode == "patterns" else "the trial structure is incomplete or invalid")
    return R.VISION_UNALIGNED.finding(
        "vision data cannot be aligned to trials/rows because explicit stimulus IDs "
        f"are missing ({why})", location)


def label_facts(labels: Labels, scan: LabelScan) -> dict[str, Any]:
    """The ``stim_labels`` summary entry: count, shape, dtype, first values."""
    return {
        "count": labels.count, "shape": list(labels.shape), "dtype": labels.dtype,
        "first": [typed(v) for v in scan.first],
        "non_missing_count": scan.non_missing_count,
        "first_non_missing": [typed(v) for v in scan.first_non_missing],
    }


def trial_stim_ids(labels: Labels, scan: LabelScan, positions: list[int],
                   vision_ids: Any) -> list[Any]:
    """The label at each onset position, mapped to the ``vision_info`` ID it equals.

    The reference maps each numeric label to the first ``vision_info``
    ``stim_ids`` entry equal to it (so 10.0 reads as the int ID 10); a dict
    keeps Python equality.  Object labels are kept as read.
    """
    values = [scan.at.get(int(p)) for p in positions]
    if labels.dtype == "object" or not isinstance(vision_ids, list):
        return values
    first: dict[Any, Any] = {}
    for k in vision_ids:
        try:
            first.setdefault(k, k)
        except TypeError:
            continue
    out = []
    for v in values:
        try:
            out.append(first.get(v, v))
        except TypeError:
            out.append(v)
    return out


@dataclass(frozen=True)
class Alignment:
    """The vision records to align to the trial IDs, and their summary entries.

    Attributes:
        mode: the data mode (for the ``vision.unaligned`` message).
        location: where ``vision.unaligned`` is reported (``"/vision_store"``,
            ``"/stimuli_db"``), or ``""`` when the file has no vision data.
        records: one per summary entry of ``facts``, in order.
        facts: the ``vision_records`` summary as opening wrote it
            (``aligned_shape`` None).
    """

    mode: str
    location: str = ""
    records: tuple[RecordIds, ...] = ()
    facts: tuple[dict[str, Any], ...] = ()

    def apply(self, ids: list[Any] | None) -> tuple[list[Finding], list[dict[str, Any]]]:
        """The findings and the new ``vision_records`` summary for trial IDs ``ids``."""
        if not self.location:
            return [], list(self.facts)
        if ids is None:
            return [unaligned(self.mode, self.location)], list(self.facts)
        found: list[Finding] = []
        facts = []
        for record, fact in zip(self.records, self.facts, strict=True):
            shape, problem = aligned_shape(record, ids)
            if problem is not None:
                found.append(problem)
            facts.append({**fact, "aligned_shape": shape})
        return found, facts


@dataclass(eq=False)
class LabelCheck:
    """The deferred label scan of one recording (see the module docstring).

    Attributes:
        labels: the lazy ``/stim_labels``.
        trials: the trial structure opening built (``stim_ids_pending``), or None.
        positions: the flat label position of each trial's onset when the
            trial IDs come from the labels (a valid continuous or epochs
            trial structure), else None.
        vision_ids: ``vision_info`` ``stim_ids`` as read (None when absent).
        alignment: the vision records to align once the IDs are known, or
            None when opening aligned them (the IDs did not need the labels).
        title: shown while it runs.
    """

    labels: Labels
    trials: TrialStructure | None = None
    positions: list[int] | None = None
    vision_ids: Any = None
    alignment: Alignment | None = None
    title: str = field(default="Stimulus labels")

    def run(self, progress: ProgressFn | None = None,
            cancelled: CancelFn | None = None) -> CheckResult:
        """Scan the labels once; never mutates the document.

        Returns:
            The ``stim_labels``, ``trial_stim_ids`` (and ``vision_records``)
            summary facts, the new trial structure, the findings of a
            broken label rule, an unreadable block or an unaligned vision
            record; ``complete=False`` when ``cancelled`` stopped it.
        """
        try:
            scan = self.labels.scan(self.positions or (), _on_block(progress, cancelled))
        except ScanCancelled:
            return CheckResult(complete=False)
        except STEP_ERRORS as exc:
            return self._result([step_finding(exc)], None)
        return self._result([], scan)

    def _result(self, found: list[Finding], scan: LabelScan | None) -> CheckResult:
        """The check's result once the scan ended (``scan`` None when it failed)."""
        summary: dict[str, Any] = {}
        ids: list[Any] | None = None
        if scan is not None:
            summary["stim_labels"] = label_facts(self.labels, scan)
            if self.positions is not None:
                ids = trial_stim_ids(self.labels, scan, self.positions, self.vision_ids)
                summary["trial_stim_ids"] = {"count": len(ids),
                                             "first": [typed(v) for v in ids[:5]]}
        if self.alignment is not None:
            problems, facts = self.alignment.apply(ids)
            found.extend(problems)
            if self.alignment.location and self.alignment.facts:
                summary["vision_records"] = facts
        return CheckResult(findings=tuple(found), summary=summary, trials=self._trials(ids))

    def _trials(self, ids: list[Any] | None) -> TrialStructure | None:
        """The trial structure with its IDs (None when the recording has none)."""
        if self.trials is None:
            return None
        return replace(self.trials, stim_ids_pending=False,
                       trial_stim_ids=tuple(ids) if ids is not None else None)


def _on_block(progress: ProgressFn | None,
              cancelled: CancelFn | None) -> Callable[[int, int], None]:
    """The scan's per-block callback: progress events, and cancellation between blocks."""
    def step(done: int, total: int) -> None:
        if cancelled is not None and cancelled():
            raise ScanCancelled
        if progress is not None and done:
            progress(Progress(done, total))
    return step
