"""Is the AUC experiment inside a file consistent, and what does it hold?

The questions ``openauc validate`` and ``openauc inspect`` answer for the
reference library ``openauc==0.1.0a1``, answered here from our own
:class:`~inspector.formats.auc.model.AucExperiment` (seed
``002_59993c7ffff01d56.txt``, "Inspection and validation": archive integrity
is a separate question from these):

* :func:`structure_findings`: archival and structural consistency
  (reference ``validate_structure()``), scope ``structure``;
* :func:`validation_findings`: every tier, every severity (reference
  ``validate()``): the structure findings and the ``validation``-scoped
  readiness and informational findings, in the reference's order;
* :func:`assess_readiness`: per workflow, whether the metadata it would need
  is present (reference ``assess_readiness()``); never a scientific verdict;
* :func:`structure_summary`: the structural facts ``openauc inspect --json``
  prints (reference ``summary_data().to_dict()``), same keys and values;
* :func:`examine`: all four at once from one pass over the model, for
  documents.

Codes, tiers, severities and the location vocabulary are declared in
:mod:`inspector.formats.auc.structure_rules`.  One place follows the
reference's documents where its code disagrees with them: ``empty_scan`` in
shared mode (:mod:`inspector.formats.auc.structure_checks`).  The summary is
the reference's own, key for key (``optical_systems`` includes the
instrument's system, ``"unknown"`` when it states none).

Nothing here reads a file or imports Qt (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from inspector.formats.auc.model import AucExperiment, summary_list
from inspector.formats.auc.structure_checks import Issue, run_checks
from inspector.formats.auc.structure_facts import (
    ABSENT,
    PRESENT,
    SAMPLE_QUANTITIES,
    SCAN_QUANTITIES,
    Facts,
    Quantities,
    gather,
)
from inspector.formats.auc.structure_rules import (
    AUC_RULES,
    DelimitedLocator,
    Locate,
    Tier,
    aucx_location,
    model_location,
    reference_code,
    rule_for,
)
from inspector.formats.findings import Finding, Findings, Scope, Severity
from inspector.formats.nodes.node import Node

__all__ = [
    "AUC_RULES",
    "Analysis",
    "AucStructure",
    "DelimitedLocator",
    "Locate",
    "ReadinessEntry",
    "ReadinessStatus",
    "aucx_location",
    "assess_readiness",
    "examine",
    "examine_facts",
    "model_location",
    "publish",
    "reference_code",
    "structure_findings",
    "structure_summary",
    "validation_findings",
]


# -- findings ----------------------------------------------------------------

def _place(issues: Sequence[Issue], locate: Locate) -> list[Finding]:
    return [issue.spec.rule.finding(issue.message, locate(issue.path)) for issue in issues]


def validation_findings(exp: AucExperiment, *, locate: Locate = model_location) -> list[Finding]:
    """Every finding of every tier (reference ``validate()``), in its order.

    Args:
        exp: the experiment (arrays already in memory; nothing is read).
        locate: turns model paths into locations (:func:`model_location`,
            :func:`aucx_location`, a :class:`DelimitedLocator`).

    Returns:
        One finding per condition (a condition affecting several scans is
        one finding naming them), codes ``structure.*`` or ``validation.*``
        with the reference severities; see
        :data:`~inspector.formats.auc.structure_rules.AUC_RULES`.

    Never raises for a malformed description: entries that are not objects
    count as empty records.
    """
    return _place(run_checks(gather(exp)), locate)


def structure_findings(exp: AucExperiment, *, locate: Locate = model_location) -> list[Finding]:
    """The archival and structural findings (reference ``validate_structure()``).

    The :func:`validation_findings` of scope :attr:`Scope.STRUCTURE`: errors
    and warnings of the archival and structural tiers.  The experiment is
    structurally valid when none of them is an error.
    """
    return [f for f in validation_findings(exp, locate=locate) if f.scope is Scope.STRUCTURE]


# -- readiness ---------------------------------------------------------------

class Analysis(StrEnum):
    """A workflow readiness is reported for (reference ``AnalysisKind`` values)."""

    SEDIMENTATION_VELOCITY = "sedimentation_velocity"
    SEDIMENTATION_EQUILIBRIUM = "sedimentation_equilibrium"
    SCIENTIFIC_SUITABILITY = "scientific_suitability"
    """Always :attr:`ReadinessStatus.NOT_ASSESSED`: never judged."""


class ReadinessStatus(StrEnum):
    """Outcome of one readiness entry (reference ``ReadinessStatus`` values)."""

    POTENTIALLY_READY = "potentially_ready"
    """The metadata the workflow needs is present; nothing is claimed about the data."""
    BLOCKED = "blocked"
    NOT_APPLICABLE = "not_applicable"
    NOT_ASSESSED = "not_assessed"


@dataclass(frozen=True)
class ReadinessEntry:
    """Whether the metadata one workflow would need is present.

    Attributes:
        analysis: the workflow.
        status: see :class:`ReadinessStatus`.
        blocking_issues: the findings that prevent this workflow.
        advisory_issues: findings that speak to it without preventing it.
        note: why the status is what it is (the reference's wording).
    """

    analysis: Analysis
    status: ReadinessStatus
    blocking_issues: tuple[Finding, ...] = ()
    advisory_issues: tuple[Finding, ...] = ()
    note: str | None = None

    @property
    def is_blocked(self) -> bool:
        return self.status is ReadinessStatus.BLOCKED

    def to_json(self) -> dict[str, Any]:
        """``{"analysis", "status", "note", "blocking_issues", "advisory_issues"}``,
        the issues as :meth:`Finding.to_json` dicts."""
        return {
            "analysis": str(self.analysis),
            "status": str(self.status),
            "note": self.note,
            "blocking_issues": [f.to_json() for f in self.blocking_issues],
            "advisory_issues": [f.to_json() for f in self.advisory_issues],
        }


# Routing by declared experiment type (docs/concepts/analysis-readiness.md,
# "Routing by experiment type"); notes worded as the reference words them.
_OTHER = ("the experiment type is declared as 'other', which is neither a velocity nor an "
          "equilibrium run")
_NOT_APPLICABLE = {
    (Analysis.SEDIMENTATION_VELOCITY, "sedimentation_equilibrium"):
        "the experiment is declared as sedimentation equilibrium",
    (Analysis.SEDIMENTATION_EQUILIBRIUM, "sedimentation_velocity"):
        "the experiment is declared as sedimentation velocity",
    (Analysis.SEDIMENTATION_VELOCITY, "other"): _OTHER,
    (Analysis.SEDIMENTATION_EQUILIBRIUM, "other"): _OTHER,
}
_TIER = {Analysis.SEDIMENTATION_VELOCITY: Tier.SV_READINESS,
         Analysis.SEDIMENTATION_EQUILIBRIUM: Tier.SE_READINESS}
_SUITABILITY_NOTE = ("openauc does not assess scientific validity, data quality or suitability "
                     "for sedimentation analysis, and never will as part of validation.")
_READY_NOTE = "required metadata is present; scientific suitability is not assessed"


def _assess(analysis: Analysis, experiment_type: str,
            findings: Sequence[Finding]) -> ReadinessEntry:
    note = _NOT_APPLICABLE.get((analysis, experiment_type))
    if note is not None:
        return ReadinessEntry(analysis, ReadinessStatus.NOT_APPLICABLE, note=note)
    tier = _TIER[analysis]
    specs = [rule_for(f.code) for f in findings]
    blocking = tuple(f for f, s in zip(findings, specs, strict=True) if tier in s.blocks)
    advisory = tuple(f for f, s in zip(findings, specs, strict=True)
                     if tier in s.tiers and tier not in s.blocks)
    if blocking:
        return ReadinessEntry(analysis, ReadinessStatus.BLOCKED, blocking, advisory,
                              f"{len(blocking)} finding(s) prevent this assessment from passing")
    return ReadinessEntry(analysis, ReadinessStatus.POTENTIALLY_READY, (), advisory, _READY_NOTE)


def _experiment_type(metadata: Any) -> str:
    declared = metadata.get("experiment_type") if isinstance(metadata, Mapping) else None
    return str(declared or "unknown")


def _readiness(metadata: Any, findings: Sequence[Finding]) -> list[ReadinessEntry]:
    kind = _experiment_type(metadata)
    entries = [_assess(a, kind, findings)
               for a in (Analysis.SEDIMENTATION_VELOCITY, Analysis.SEDIMENTATION_EQUILIBRIUM)]
    entries.append(ReadinessEntry(Analysis.SCIENTIFIC_SUITABILITY, ReadinessStatus.NOT_ASSESSED,
                                  note=_SUITABILITY_NOTE))
    return entries


def assess_readiness(exp: AucExperiment, *,
                     findings: Sequence[Finding] | None = None) -> list[ReadinessEntry]:
    """Readiness per workflow (reference ``assess_readiness()``).

    Args:
        exp: the experiment.
        findings: its :func:`validation_findings`, when already computed
            (any locator); computed here otherwise.

    Returns:
        Three entries: sedimentation velocity, sedimentation equilibrium (each
        ``not_applicable`` when the declared type excludes it, ``blocked``
        when a finding's rule blocks its tier, else ``potentially_ready``),
        and scientific suitability, always ``not_assessed``.  Source:
        openauc 0.1.0a1 docs/concepts/analysis-readiness.md.

    Raises:
        KeyError: ``findings`` holds a finding that is not a structure or
            validation finding.
    """
    if findings is None:
        findings = validation_findings(exp)
    return _readiness(exp.metadata, findings)


# -- summary -----------------------------------------------------------------

def _range(q: Quantities, default_unit: str) -> dict[str, Any]:
    present = q.value[q.present]
    if not present.size:
        return {"minimum": None, "maximum": None, "unit": default_unit,
                "n_present": 0, "n_absent": int(q.value.size)}
    return {"minimum": float(present.min()), "maximum": float(present.max()),
            "unit": str(q.unit[q.present][0]), "n_present": int(present.size),
            "n_absent": int(q.value.size - present.size)}


def _presence(component: str, field: str, q: Quantities) -> dict[str, Any]:
    counts = {s: int(np.count_nonzero(q.status == s))
              for s in (PRESENT, "missing", "unknown", "not_applicable", ABSENT)}
    return {"component": component, "field": field, "total": int(q.status.size),
            "present": counts[PRESENT], "missing": counts["missing"],
            "unknown": counts["unknown"], "not_applicable": counts["not_applicable"],
            "absent": counts[ABSENT]}


def _text_presence(component: str, field: str, values: Sequence[str | None]) -> dict[str, Any]:
    present = sum(v is not None for v in values)
    return {"component": component, "field": field, "total": len(values), "present": present,
            "missing": 0, "unknown": 0, "not_applicable": 0, "absent": len(values) - present}


def _metadata_presence(f: Facts) -> list[dict[str, Any]]:
    rows = [_presence("scan", name, f.scan_q[name]) for name in SCAN_QUANTITIES]
    rows += [_text_presence("scan", "cell", f.cells), _text_presence("scan", "channel", f.channels)]
    rows += [_presence("sample", name, f.sample_q[name]) for name in SAMPLE_QUANTITIES]
    rows.append(_text_presence("sample", "buffer_description", f.buffers))
    return rows


def _optical_systems(f: Facts) -> list[str]:
    # The reference's ``AUCExperiment.optical_systems()``: the scans' systems plus
    # the instrument's whenever there is an instrument, ``"unknown"`` included
    # (what ``openauc inspect --json`` prints).
    systems = set(f.systems.tolist())
    if f.instrument is not None:
        systems.add(str(f.instrument.get("optical_system") or "unknown"))
    return sorted(systems)


def _labels(values: Sequence[str | None]) -> tuple[list[str], int]:
    return sorted({v for v in values if v is not None}), sum(v is None for v in values)


def _counts(findings: Sequence[Finding]) -> dict[str, int]:
    return {str(s): sum(f.severity is s for f in findings)
            for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)}


def _identity(f: Facts) -> dict[str, Any]:
    md = f.metadata
    return {"experiment_id": str(md.get("experiment_id", "")), "name": md.get("name"),
            "experiment_type": _experiment_type(md),
            "acquired_at": md.get("acquired_at"), "operator": md.get("operator"),
            "n_scans": f.n_scans, "n_samples": len(f.sample_ids),
            "radius_axis_mode": f.mode, "radius_unit": f.radius_unit,
            "signal_unit": f.signal_unit, "signal_unit_declared": f.signal_unit != "unknown"}


def _summary(f: Facts, findings: Sequence[Finding], checksum: bool | None) -> dict[str, Any]:
    points = [int(p) for p in np.asarray(f.points, dtype=np.int64).tolist()]
    wavelength = f.scan_q["wavelength"]
    cells, no_cell = _labels(f.cells)
    channels, no_channel = _labels(f.channels)
    prov = f.provenance
    return {
        **_identity(f),
        "points_per_scan": points, "total_valid_observations": sum(points),
        "optical_systems": _optical_systems(f),
        "wavelengths_nm": sorted(set(wavelength.value[wavelength.present].tolist())),
        "scans_without_wavelength": int(np.count_nonzero(wavelength.status != PRESENT)),
        "cells": cells, "scans_without_cell": no_cell,
        "channels": channels, "scans_without_channel": no_channel,
        "radius": {"minimum": f.radius.minimum, "maximum": f.radius.maximum,
                   "unit": f.radius_unit, "n_present": sum(points), "n_absent": 0},
        "elapsed_time": _range(f.scan_q["elapsed_time"], "s"),
        "rotor_speed": _range(f.scan_q["rotor_speed"], "rpm"),
        "temperature": _range(f.scan_q["temperature"], "degC"),
        "metadata_presence": _metadata_presence(f),
        "provenance_available": prov is not None,
        "parser_name": prov.get("parser_name") if prov is not None else None,
        "checksum_available": (prov is not None and prov.get("sha256") is not None
                               if checksum is None else checksum),
        "validation": _counts(findings),
    }


def structure_summary(exp: AucExperiment, *, findings: Sequence[Finding] | None = None,
                      checksum_available: bool | None = None) -> dict[str, Any]:
    """The structural summary ``openauc inspect --json`` prints, same keys and values.

    Args:
        exp: the experiment.
        findings: its :func:`validation_findings`, when already computed (the
            ``validation`` counts come from them).
        checksum_available: the ``checksum_available`` fact.  None (default)
            uses the reference's meaning: the import provenance records a
            SHA-256 of the source data file (``provenance.sha256``); an AUCX
            archive's own member checksums do not count.  A caller with a
            container-specific answer passes it here.

    Returns:
        A JSON-ready dict: identity (``experiment_id``, ``name``,
        ``experiment_type``, ``acquired_at`` as stored, ``operator``), sizes
        (``n_scans``, ``n_samples``, ``points_per_scan``,
        ``total_valid_observations``), axes and units, ``optical_systems``,
        ``wavelengths_nm`` (sorted distinct present values),
        ``cells``/``channels`` and the scans without them, ranges
        ``radius``/``elapsed_time``/``rotor_speed``/``temperature`` as
        ``{minimum, maximum, unit, n_present, n_absent}`` (declared units,
        never converted), ``metadata_presence`` (per field: total, present,
        missing, unknown, not_applicable, absent), ``provenance_available``,
        ``parser_name``, ``checksum_available`` and ``validation`` counts
        (error, warning, info over every tier).  Source: openauc 0.1.0a1
        docs/how-to/inspect-an-experiment.md and ``summary_data()`` (the
        scans' optical systems plus the instrument's, as ``optical_systems()``).
    """
    facts = gather(exp)
    if findings is None:
        findings = _place(run_checks(facts), model_location)
    return _summary(facts, findings, checksum_available)


# -- everything at once ------------------------------------------------------

@dataclass(frozen=True)
class AucStructure:
    """Findings, readiness and summary of one experiment (see :func:`examine`).

    Attributes:
        findings: every tier (as :func:`validation_findings`).
        readiness: as :func:`assess_readiness`.
        summary: as :func:`structure_summary`.
    """

    findings: tuple[Finding, ...]
    readiness: tuple[ReadinessEntry, ...]
    summary: dict[str, Any]

    @property
    def structure(self) -> tuple[Finding, ...]:
        """The findings of scope ``structure`` (as :func:`structure_findings`)."""
        return tuple(f for f in self.findings if f.scope is Scope.STRUCTURE)

    @property
    def structurally_valid(self) -> bool:
        """No structure finding is an error (reference ``is_valid``)."""
        return not any(f.severity is Severity.ERROR for f in self.structure)

    def tree(self) -> Node:
        """The summary and readiness as a display tree (the Summary view)."""
        root = Node("structure", kind="group")
        _dict_nodes(root.add("summary", kind="group"), self.summary)
        ready = root.add("readiness", kind="group")
        for entry in self.readiness:
            item = ready.add(str(entry.analysis), str(entry.status), kind="field",
                             detail=entry.note)
            for label, issues in (("blocking", entry.blocking_issues),
                                  ("advisory", entry.advisory_issues)):
                if issues:
                    group = item.add(label, len(issues), kind="group")
                    for f in issues:
                        group.add(reference_code(f.code), f.message, kind="field",
                                  location=f.location)
        return root

    def to_json(self) -> dict[str, Any]:
        """A ``verify --json`` block: ``structurally_valid``, ``structure_counts``
        and ``counts`` (per severity, structure findings / every tier),
        ``readiness`` (:meth:`ReadinessEntry.to_json` each) and ``summary``.
        The findings themselves travel in the document's findings."""
        return {
            "structurally_valid": self.structurally_valid,
            "structure_counts": _counts(self.structure),
            "counts": _counts(self.findings),
            "readiness": [entry.to_json() for entry in self.readiness],
            "summary": self.summary,
        }


def examine(exp: AucExperiment, *, locate: Locate = model_location,
            checksum_available: bool | None = None) -> AucStructure:
    """Findings, readiness and summary from one pass over ``exp``.

    Equal to calling :func:`validation_findings`, :func:`assess_readiness`
    and :func:`structure_summary` with the same arguments, but the model is
    walked and the arrays are reduced once.
    """
    return examine_facts(gather(exp), locate=locate, checksum_available=checksum_available)


def examine_facts(facts: Facts, *, locate: Locate = model_location,
                  checksum_available: bool | None = None) -> AucStructure:
    """:func:`examine` from facts already gathered (for instance by a reader that
    folded the arrays block by block, :func:`~.auc_structure_facts.gather_parts`)."""
    findings = _place(run_checks(facts), locate)
    return AucStructure(tuple(findings), tuple(_readiness(facts.metadata, findings)),
                        _summary(facts, findings, checksum_available))


def _runs(items: list[Any] | tuple[Any, ...],
          types: set[type] | None = None) -> list[tuple[str, Any]]:
    """``(key, value)`` rows of a list of scalars, a run of equal neighbours as one row
    keyed ``"first–last"`` (50 equal ``points_per_scan`` are one row, not 50); ``types``:
    the set of the items' types when known."""
    if types is None:
        types = set(map(type, items))
    fast = _int_runs(items) if len(items) > 1 and types == {int} else None
    if fast is not None:  # one count per scan: numpy
        return fast
    rows: list[tuple[str, Any]] = []
    start = 0
    for i in range(1, len(items) + 1):
        if i == len(items) or type(items[i]) is not type(items[start]) \
                or items[i] != items[start]:
            key = str(start) if i - start == 1 else f"{start}–{i - 1}"
            rows.append((key, items[start]))
            start = i
    return rows


def _int_runs(items: list[Any] | tuple[Any, ...]) -> list[tuple[str, Any]] | None:
    """:func:`_runs` of a list of ints with numpy (a million counts in tens of ms instead
    of a second); None when one does not fit in int64."""
    try:
        a = np.array(items, dtype=np.int64)
    except OverflowError:
        return None
    if a.size == 0:
        return []
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    ends = np.r_[starts[1:], a.size] - 1
    return [(str(s) if s == e else f"{s}–{e}", items[s])
            for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]


def _dict_nodes(parent: Node, value: Any) -> None:
    """Children of ``parent`` for a JSON-like ``value`` (iteratively); a list of scalars
    shows each run of equal values once (:func:`_runs`)."""
    stack: list[tuple[Node, Any]] = [(parent, value)]
    while stack:
        node, item = stack.pop()
        types = set() if isinstance(item, Mapping) else set(map(type, item))
        scalars = not isinstance(item, Mapping) and not any(
            issubclass(t, Mapping | list | tuple) for t in types)
        pairs = (item.items() if isinstance(item, Mapping)
                 else _runs(item, types) if scalars else enumerate(item))
        for key, child in pairs:
            if isinstance(child, Mapping | list | tuple) and child:
                stack.append((node.add(str(key), kind="group"), child))
            else:
                node.add(str(key), child if not isinstance(child, list | tuple) else [],
                         kind="field")  # (an empty list is shown as one: [], not '')


def publish(result: AucStructure, findings: Findings, summary: dict[str, Any]) -> None:
    """Add ``result`` to a document's findings and ``verify --json`` summary.

    The findings join the collector (scopes ``structure`` and
    ``validation``); ``summary["structure"]`` is the ``openauc inspect
    --json`` summary and ``summary["readiness"]`` the readiness entries.
    """
    findings.extend(result.findings)
    structure = result.summary
    if isinstance(structure, dict) and isinstance(structure.get("points_per_scan"), list):
        structure = {**structure, "points_per_scan": summary_list(
            structure["points_per_scan"])}  # one count per scan: summarised past the limit
    summary["structure"] = structure
    summary["readiness"] = [entry.to_json() for entry in result.readiness]
