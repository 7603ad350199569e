"""The structural and all-tier checks of an AUC experiment, over gathered facts.

One function per reference check (``openauc==0.1.0a1``, documents
``docs/concepts/validation-tiers.md`` and
``docs/how-to/interpret-validation-findings.md`` of ``ronfinn/openauc-io``), run
in the reference's fixed order (:data:`CHECKS`).  A condition affecting many
scans or samples is one issue naming all of them; a check returns
:class:`Issue` records that :mod:`inspector.formats.auc.structure` turns into
findings at the right location.

One deliberate difference, where the reference contradicts its documents:
``empty_scan`` is reported for every scan carrying no observation, in either
radius mode.  The documents say "a scan may legitimately carry no points" and
list ``empty_scan`` for it; the reference only looks in per-scan mode, so a
shared axis of zero points (which it accepts) leaves every scan empty without
the warning.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from inspector.formats.auc import structure_rules as R
from inspector.formats.auc.structure_facts import SCAN_QUANTITIES, Facts

__all__ = ["CHECKS", "Issue", "run_checks"]

#: Subjects named in a message before "and N more".
MAX_NAMED = 5

# Optical system -> signal units it can carry (docs/concepts/optical-systems.md).
_COMPATIBLE_UNITS: dict[str, tuple[str, ...]] = {
    "absorbance": ("AU",),
    "interference": ("fringe",),
    "fluorescence": ("instrument_unit", "calibrated_unit"),
    "intensity": ("instrument_unit", "calibrated_unit"),
}


@dataclass(frozen=True)
class Issue:
    """One broken rule before it is placed.

    Attributes:
        spec: the rule.
        message: what is wrong, in our words; never the file name.
        subjects: indices of the affected scan or sample records (or
            observation rows), ascending (a tuple, or an int64 array when there
            are many); empty when the rule has none.
        field: the quantity concerned, when the rule leaves it open.
    """

    spec: R.AucRule
    message: str
    subjects: Sequence[int] = ()
    field: str | None = None

    @property
    def path(self) -> str:
        """The model path of the issue (see :mod:`inspector.formats.auc.structure_rules`)."""
        return self.spec.path(self.subjects, self.field)


def _names(ids: Sequence[str]) -> str:
    """Up to :data:`MAX_NAMED` ids, sorted, then how many more."""
    ordered = heapq.nsmallest(MAX_NAMED, ids)  # sorted(ids)[:MAX_NAMED], in one pass
    shown = ", ".join(repr(x) for x in ordered)
    more = len(ids) - MAX_NAMED
    return f"{shown} and {more} more" if more > 0 else shown


def _scan_issue(f: Facts, spec: R.AucRule, where: np.ndarray, text: str) -> list[Issue]:
    """One issue about the scans where ``where`` (bool per scan) is True, or none.

    ``text`` is completed with ``"<n> of <total> scan(s) <text>: <ids>"``.
    """
    idx = np.flatnonzero(where)
    if not idx.size:
        return []
    ids = f.scan_ids if idx.size == f.n_scans else [f.scan_ids[i] for i in idx.tolist()]
    message = f"{idx.size} of {f.n_scans} scan(s) {text}: {_names(ids)}"
    subjects = tuple(idx.tolist()) if idx.size <= 2 else cast(Sequence[int], idx)
    return [Issue(spec, message, subjects)]


# -- archival ----------------------------------------------------------------

def _duplicates(ids: Sequence[str], spec: R.AucRule, kind: str) -> list[Issue]:
    first: dict[str, int] = {}
    repeats: dict[str, list[int]] = {}
    for i, value in enumerate(ids):
        if value in first:
            repeats.setdefault(value, [first[value]]).append(i)
        else:
            first[value] = i
    issues = []
    for value in sorted(repeats):
        where = repeats[value]
        listed = ", ".join(str(k) for k in where[:MAX_NAMED])
        listed += " ..." if len(where) > MAX_NAMED else ""
        issues.append(Issue(spec, f"{kind} id {value!r} is carried by {len(where)} {kind} "
                                  f"records (positions {listed}); each needs its own id",
                            (where[1],)))
    return issues


def check_duplicate_scan_ids(f: Facts) -> list[Issue]:
    return _duplicates(f.scan_ids, R.DUPLICATE_SCAN_ID, "scan")


def check_duplicate_sample_ids(f: Facts) -> list[Issue]:
    return _duplicates(f.sample_ids, R.DUPLICATE_SAMPLE_ID, "sample")


def check_correspondence(f: Facts) -> list[Issue]:
    if f.n_obs != f.n_scans:
        return [Issue(R.SCAN_COUNT_MISMATCH,
                      f"the observations hold {f.n_obs} scan(s) but the scan list describes "
                      f"{f.n_scans}")]
    if f.scan_ids == f.obs_ids:
        return []
    pairs = zip(f.scan_ids, f.obs_ids, strict=False)
    i = next((k for k, (a, b) in enumerate(pairs) if a != b), min(f.n_scans, len(f.obs_ids)))
    if i >= f.n_scans:
        return [Issue(R.SCAN_ID_MISMATCH, "the observations list more scan ids than the scan "
                                          "list describes")]
    other = repr(f.obs_ids[i]) if i < len(f.obs_ids) else "nothing"
    return [Issue(R.SCAN_ID_MISMATCH,
                  f"scan {i} is {f.scan_ids[i]!r} in the scan list but {other} in the "
                  "observations; both must name the same scans in the same order", (i,))]


# -- structural --------------------------------------------------------------

def check_no_scans(f: Facts) -> list[Issue]:
    return [] if f.n_scans else [Issue(R.NO_SCANS, "the experiment has no scan")]


def check_non_physical_radius(f: Facts) -> list[Issue]:
    if not f.radius.nonpositive:
        return []
    return [Issue(R.NON_PHYSICAL_RADIUS,
                  f"{f.radius.nonpositive} radial position(s) are zero or negative (smallest "
                  f"{f.radius.minimum:g}); a radius must be greater than zero")]


def check_optical_signal_unit(f: Facts) -> list[Issue]:
    if f.signal_unit in ("unknown", "other"):
        return []
    issues: list[Issue] = []
    for system in sorted(set(f.systems.tolist())):
        allowed = _COMPATIBLE_UNITS.get(system)
        if allowed is None or f.signal_unit in allowed:
            continue
        text = (f"declare {system!r}, which cannot carry signal unit {f.signal_unit!r} "
                f"(it needs {' or '.join(repr(u) for u in allowed)})")
        issues += _scan_issue(f, R.OPTICAL_SIGNAL_UNIT_CONFLICT, f.systems == system, text)
    return issues


def check_empty_scans(f: Facts) -> list[Issue]:
    # Both radius modes: see the module docstring.
    if f.n_obs != f.n_scans:
        return []
    return _scan_issue(f, R.EMPTY_SCAN, f.points == 0, "carry no observation")


def check_no_observations(f: Facts) -> list[Issue]:
    if not f.n_scans or int(f.points.sum()):
        return []
    return [Issue(R.NO_OBSERVATIONS, "no scan carries an observation")]


def _reverses(f: Facts) -> np.ndarray:
    """bool per radius row: its real points go both up and down."""
    return np.asarray(f.rising & f.falling, dtype=bool)


def _repeats(f: Facts) -> np.ndarray:
    """bool per radius row: a real radial position occurs twice."""
    return f.repeats


def _radius_anomaly(f: Facts, spec: R.AucRule, test: Callable[[Facts], np.ndarray],
                    text: str) -> list[Issue]:
    if not f.n_obs:
        return []
    if f.shared:
        if not bool(test(f)[0]):
            return []
        return [Issue(spec, f"the shared radius axis {text}")]
    if f.n_obs != f.n_scans:
        return []
    idx = np.flatnonzero(test(f))
    if not idx.size:
        return []
    ids = [f.scan_ids[i] for i in idx]
    return [Issue(spec, f"the radius axis of {idx.size} of {f.n_scans} scan(s) {text}: "
                        f"{_names(ids)}", tuple(int(i) for i in idx))]


def check_radius_monotonic(f: Facts) -> list[Issue]:
    return _radius_anomaly(f, R.RADIUS_NOT_MONOTONIC, _reverses,
                           "changes direction (rising and falling)")


def check_duplicate_radius(f: Facts) -> list[Issue]:
    return _radius_anomaly(f, R.DUPLICATE_RADIUS, _repeats, "repeats a radial position")


def check_elapsed_time_order(f: Facts) -> list[Issue]:
    q = f.scan_q["elapsed_time"]
    idx = np.flatnonzero(q.present)
    values = q.value[idx]
    if values.size < 2:
        return []
    where = np.zeros(f.n_scans, dtype=bool)
    where[idx[1:][values[1:] < values[:-1]]] = True
    return _scan_issue(f, R.ELAPSED_NOT_MONOTONIC, where,
                       "have an elapsed time earlier than the scan before them")


def check_mixed_optical_systems(f: Facts) -> list[Issue]:
    declared = sorted(set(f.systems.tolist()) - {"unknown"})
    if len(declared) < 2:
        return []
    return [Issue(R.MIXED_OPTICAL_SYSTEMS,
                  f"the scans declare {len(declared)} optical systems ({', '.join(declared)}) "
                  "for one signal unit")]


def check_mixed_units(f: Facts) -> list[Issue]:
    issues = []
    for field in SCAN_QUANTITIES:
        q = f.scan_q[field]
        units = sorted(set(q.unit[q.present].tolist()))
        if len(units) > 1:
            issues.append(Issue(R.MIXED_DECLARED_UNITS,
                                f"{field} is declared in {len(units)} units across scans "
                                f"({', '.join(units)}); units are never converted",
                                field=field))
    return issues


def check_cell_and_channel(f: Facts) -> list[Issue]:
    issues: list[Issue] = []
    for spec, field, values in ((R.CELL_ABSENT, "cell", f.cells),
                                (R.CHANNEL_ABSENT, "channel", f.channels)):
        if f.instrument is not None and f.instrument.get(field) is not None:
            continue
        where = np.array([v is None for v in values], dtype=bool)
        issues += _scan_issue(f, spec, where, f"record no {field}, nor does the instrument")
    return issues


# -- readiness ---------------------------------------------------------------

def check_elapsed_time_absent(f: Facts) -> list[Issue]:
    return _scan_issue(f, R.ELAPSED_TIME_ABSENT, ~f.scan_q["elapsed_time"].present,
                       "have no elapsed time, which a velocity workflow needs on every scan")


def check_scans_for_sv(f: Facts) -> list[Issue]:
    if not f.n_scans or f.n_obs != f.n_scans:
        return []
    populated = int(np.count_nonzero(f.points))
    if populated >= 2:
        return []
    return [Issue(R.INSUFFICIENT_SCANS_FOR_SV,
                  f"{populated} scan(s) carry observations; a velocity workflow needs at "
                  "least two")]


def check_rotor_speed(f: Facts) -> list[Issue]:
    if f.instrument_present("nominal_speed"):
        return []
    return _scan_issue(f, R.ROTOR_SPEED_ABSENT, ~f.scan_q["rotor_speed"].present,
                       "have no rotor speed and the instrument records no nominal speed")


def check_experiment_type(f: Facts) -> list[Issue]:
    if str(f.metadata.get("experiment_type") or "unknown") != "unknown":
        return []
    return [Issue(R.EXPERIMENT_TYPE_UNKNOWN, "the experiment type is not declared")]


def check_temperature(f: Facts) -> list[Issue]:
    if f.instrument_present("temperature"):
        return []
    return _scan_issue(f, R.TEMPERATURE_ABSENT, ~f.scan_q["temperature"].present,
                       "have no temperature and the instrument records none")


def check_absorbance_wavelength(f: Facts) -> list[Issue]:
    if f.instrument_present("wavelength"):
        return []
    where = (f.systems == "absorbance") & ~f.scan_q["wavelength"].present
    return _scan_issue(f, R.ABSORBANCE_WAVELENGTH_ABSENT, where,
                       "are absorbance scans without a wavelength, and the instrument "
                       "records none")


def check_signal_unit(f: Facts) -> list[Issue]:
    if f.signal_unit != "unknown":
        return []
    return [Issue(R.SIGNAL_UNIT_UNKNOWN, "the signal unit is not declared")]


def check_optical_system(f: Facts) -> list[Issue]:
    if f.instrument is not None and \
            str(f.instrument.get("optical_system") or "unknown") != "unknown":
        return []
    return _scan_issue(f, R.OPTICAL_SYSTEM_UNKNOWN, f.systems == "unknown",
                       "declare no optical system, nor does the instrument")


def check_no_samples(f: Facts) -> list[Issue]:
    return [] if f.sample_ids else [Issue(R.NO_SAMPLES, "the experiment records no sample")]


def check_sample_fields(f: Facts) -> list[Issue]:
    if not f.sample_ids:
        return []
    issues: list[Issue] = []
    for field, spec in R.SAMPLE_FIELD_ABSENT.items():
        if field == "buffer_description":
            absent = [k for k, b in enumerate(f.buffers) if b is None or not b.strip()]
        else:
            absent = np.flatnonzero(~f.sample_q[field].present).tolist()
        if absent:
            ids = [f.sample_ids[k] for k in absent]
            issues.append(Issue(spec, f"{len(absent)} of {len(f.sample_ids)} sample(s) record "
                                      f"no {field.replace('_', ' ')}: {_names(ids)}",
                                tuple(absent)))
    return issues


def check_provenance(f: Facts) -> list[Issue]:
    if f.provenance is None:
        return [Issue(R.PROVENANCE_ABSENT, "no import provenance is recorded")]
    return []


def check_source_checksum(f: Facts) -> list[Issue]:
    if f.provenance is None or f.provenance.get("sha256") is not None:
        return []
    return [Issue(R.SOURCE_CHECKSUM_ABSENT,
                  "the import provenance records no SHA-256 digest of the source data file")]


#: The checks in the reference's fixed order; report order follows it.
CHECKS: tuple[Callable[[Facts], list[Issue]], ...] = (
    check_duplicate_scan_ids, check_duplicate_sample_ids, check_no_scans,
    check_correspondence, check_non_physical_radius, check_optical_signal_unit,
    check_empty_scans, check_no_observations, check_radius_monotonic, check_duplicate_radius,
    check_elapsed_time_order, check_mixed_optical_systems, check_mixed_units,
    check_cell_and_channel, check_elapsed_time_absent, check_scans_for_sv, check_rotor_speed,
    check_experiment_type, check_temperature, check_absorbance_wavelength, check_signal_unit,
    check_optical_system, check_no_samples, check_sample_fields, check_provenance,
    check_source_checksum,
)


def run_checks(f: Facts) -> list[Issue]:
    """Every issue of the experiment described by ``f``, in report order."""
    return [issue for check in CHECKS for issue in check(f)]
