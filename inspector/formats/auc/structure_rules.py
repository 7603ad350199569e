"""The structural and all-tier validation rules of an AUC experiment.

These are the checks the reference library ``openauc==0.1.0a1`` runs in
``validate_structure()`` and ``validate()`` (documents
``docs/concepts/validation-tiers.md``, ``docs/how-to/interpret-validation-findings.md``
and ``docs/concepts/analysis-readiness.md`` of ``ronfinn/openauc-io``), declared
here as our own :class:`~inspector.formats.findings.Rule` catalogue.

Codes
    Every reference code ``c`` becomes one finding code: ``structure.c`` when
    the reference reports it from ``validate_structure()`` (a finding of the
    archival or structural tier with severity error or warning), else
    ``validation.c`` (readiness findings and informational findings, which
    only the all-tier ``validate()`` reports).  The scope of the rule says the
    same (:attr:`Scope.STRUCTURE` / :attr:`Scope.VALIDATION`).  No integrity
    code of ours starts with either prefix, so the two families never meet;
    :func:`reference_code` gives the reference code back.

Tiers and blocks
    Each rule also carries the reference tiers it speaks to and the tiers it
    prevents (:class:`AucRule`); readiness is derived from them alone.

Locations
    A finding is placed with a *model path* into the reference ``to_dict()``
    form of the experiment (see :mod:`inspector.formats.auc.model`):

    ==============================  =============================================
    ``metadata.<field>``            an experiment metadata field
    ``scans``                       the scan list as a whole
    ``scans[i]``                    scan record ``i`` (0-based, in scan order)
    ``scans[i].<field>``            one field of scan ``i``
    ``scans[*].<field>``            that field on several scans (the message
                                    names them)
    ``samples``, ``samples[k]...``  the same for sample records
    ``observations``                the observation set as a whole
    ``observations.<key>``          ``scan_ids``, ``signal_unit``, ...
    ``observations.radius[i]``      row ``i`` of the per-scan radius array
    ``provenance``,                 the import provenance record and a field
    ``provenance.<field>``
    ==============================  =============================================

    A *locator* (:data:`Locate`) turns a model path into the finding location
    of one container: :func:`model_location` keeps it, :func:`aucx_location`
    names the archive member (``experiment.json:scans[3].rotor_speed``,
    ``arrays/radius.npy[2]``, ``manifest.json:observations.signal_unit``,
    ``provenance.json:import.sha256``) and :class:`DelimitedLocator` the
    manifest key, data-file scan or data file of a CSV/TSV source.

Nothing here imports Qt or a format package (docs/architecture.md, "Layers").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from inspector.formats.findings import Rule, Scope, Severity, rule

__all__ = [
    "AUC_RULES",
    "AucRule",
    "DelimitedLocator",
    "Locate",
    "Tier",
    "aucx_location",
    "model_location",
    "reference_code",
    "rule_for",
]


class Tier(StrEnum):
    """The question a finding speaks to (reference ``ValidationTier`` values)."""

    ARCHIVAL = "archival"
    """Can the experiment be stored and returned unambiguously?"""
    STRUCTURAL = "structural"
    """Are metadata, scans and observations consistent with each other?"""
    SV_READINESS = "sv_readiness"
    """Is the metadata a sedimentation-velocity workflow needs present?"""
    SE_READINESS = "se_readiness"
    """Is the metadata a sedimentation-equilibrium workflow needs present?"""


_A, _B = Tier.ARCHIVAL, Tier.STRUCTURAL
_C, _D = Tier.SV_READINESS, Tier.SE_READINESS
_ALL = (_A, _B, _C, _D)

_TIERS_DOC = "openauc 0.1.0a1 docs/concepts/validation-tiers.md"
_READY_DOC = "openauc 0.1.0a1 docs/concepts/analysis-readiness.md"


@dataclass(frozen=True)
class AucRule:
    """One reference check declared as a rule of ours.

    Attributes:
        rule: the declared :class:`Rule` (code, severity, summary, source, scope).
        reference: the reference code (``"duplicate_scan_id"``).
        tiers: the tiers the finding speaks to (never empty).
        blocks: the tiers the finding prevents (possibly none).
        record: where the affected subjects live: ``"scans"``, ``"samples"``,
            ``"rows"`` (rows of an observation array) or ``""`` (no subjects).
        field: the field of a subject record (``"rotor_speed"``; ``""`` for
            the record itself), the array of ``"rows"``, or the fixed model
            path when ``record`` is ``""``.
    """

    rule: Rule
    reference: str
    tiers: tuple[Tier, ...]
    blocks: tuple[Tier, ...]
    record: str
    field: str

    @property
    def code(self) -> str:
        return self.rule.code

    def path(self, subjects: Sequence[int] = (), field: str | None = None) -> str:
        """The model path of a finding about ``subjects`` (record indices).

        One subject: ``scans[3].rotor_speed``; several or none:
        ``scans[*].rotor_speed`` (``observations.radius`` for rows); no
        record: the fixed ``field``.  ``field`` overrides the rule's field
        (``mixed_declared_units`` names the quantity it found).
        """
        name = self.field if field is None else field
        if not self.record:
            return name
        if self.record == "rows":
            base = f"observations.{name}"
            return f"{base}[{int(subjects[0])}]" if len(subjects) == 1 else base
        base = (f"{self.record}[{int(subjects[0])}]" if len(subjects) == 1
                else f"{self.record}[*]")
        return f"{base}.{name}" if name else base


#: Every rule by finding code, in the reference's check order.
AUC_RULES: dict[str, AucRule] = {}


def _declare(reference: str, severity: Severity, tiers: tuple[Tier, ...],
             blocks: tuple[Tier, ...], where: tuple[str, str], summary: str,
             source: str) -> AucRule:
    structural = bool({_A, _B} & set(tiers)) and severity is not Severity.INFO
    scope = Scope.STRUCTURE if structural else Scope.VALIDATION
    declared = rule(f"{scope}.{reference}", severity, summary, source, scope)
    spec = AucRule(declared, reference, tiers, blocks, where[0], where[1])
    AUC_RULES[declared.code] = spec
    return spec


_E, _W, _N = Severity.ERROR, Severity.WARNING, Severity.INFO
_ARCH = f"{_TIERS_DOC}, 'Archival'"
_STRUC = f"{_TIERS_DOC}, 'Structural'"
_READY = f"{_TIERS_DOC}, 'Readiness'; {_READY_DOC}, 'What blocks a tier'"

# -- archival ----------------------------------------------------------------
DUPLICATE_SCAN_ID = _declare(
    "duplicate_scan_id", _E, (_A,), _ALL, ("scans", "scan_id"),
    "Two scan records carry the same scan id, so observations cannot be attributed.", _ARCH)
DUPLICATE_SAMPLE_ID = _declare(
    "duplicate_sample_id", _E, (_A,), (_A, _B), ("samples", "sample_id"),
    "Two sample records carry the same sample id, so sample metadata is ambiguous.", _ARCH)
SCAN_COUNT_MISMATCH = _declare(
    "scan_count_mismatch", _E, (_A,), _ALL, ("", "scans"),
    "The scan list and the observations describe different numbers of scans.", _ARCH)
SCAN_ID_MISMATCH = _declare(
    "scan_id_mismatch", _E, (_A,), _ALL, ("scans", "scan_id"),
    "The scan list and the observations must name the same scan ids in the same order.",
    _ARCH)
# -- structural --------------------------------------------------------------
NO_SCANS = _declare(
    "no_scans", _E, (_B,), (_B, _C, _D), ("", "scans"),
    "An experiment without scans has nothing to inspect.", _STRUC)
NON_PHYSICAL_RADIUS = _declare(
    "non_physical_radius", _E, (_B,), (_B, _C, _D), ("", "observations.radius"),
    "Every radial position of a real observation must be greater than zero.", _STRUC)
OPTICAL_SIGNAL_UNIT_CONFLICT = _declare(
    "optical_signal_unit_conflict", _E, (_B,), (_B, _C, _D), ("scans", "optical_system"),
    "A declared optical system cannot carry the declared signal unit (absorbance needs AU, "
    "interference fringes, fluorescence and intensity instrument or calibrated units).",
    f"{_STRUC}; openauc 0.1.0a1 docs/concepts/optical-systems.md")
EMPTY_SCAN = _declare(
    "empty_scan", _W, (_B,), (), ("scans", ""),
    "A scan carries no observation; representable, but worth knowing.", _STRUC)
NO_OBSERVATIONS = _declare(
    "no_observations", _W, (_B,), (_C, _D), ("", "observations"),
    "No scan carries an observation, so there is nothing to analyse.", _STRUC)
RADIUS_NOT_MONOTONIC = _declare(
    "radius_not_monotonic", _W, (_B,), (), ("rows", "radius"),
    "A radius axis changes direction within a scan (descending order alone is fine).", _STRUC)
DUPLICATE_RADIUS = _declare(
    "duplicate_radius_within_scan", _W, (_B,), (), ("rows", "radius"),
    "A radius axis repeats a radial position within one scan.", _STRUC)
ELAPSED_NOT_MONOTONIC = _declare(
    "elapsed_time_not_monotonic", _W, (_B,), (), ("scans", "elapsed_time"),
    "Elapsed time decreases from one scan to the next in scan order.", _STRUC)
MIXED_OPTICAL_SYSTEMS = _declare(
    "mixed_optical_systems", _W, (_B,), (), ("", "scans[*].optical_system"),
    "The scans declare more than one optical system for a single signal unit.", _STRUC)
MIXED_DECLARED_UNITS = _declare(
    "mixed_declared_units", _W, (_B,), (), ("scans", ""),
    "One per-scan quantity is declared in more than one unit across scans "
    "(units are never converted).", _STRUC)
CELL_ABSENT = _declare(
    "cell_absent", _N, (_B,), (), ("scans", "cell"),
    "Scans record no cell and the instrument names none (organisational only).", _STRUC)
CHANNEL_ABSENT = _declare(
    "channel_absent", _N, (_B,), (), ("scans", "channel"),
    "Scans record no channel and the instrument names none (organisational only).", _STRUC)
# -- readiness ---------------------------------------------------------------
ELAPSED_TIME_ABSENT = _declare(
    "elapsed_time_absent", _W, (_C,), (_C,), ("scans", "elapsed_time"),
    "A velocity workflow needs an elapsed time on every scan.", _READY)
INSUFFICIENT_SCANS_FOR_SV = _declare(
    "insufficient_scans_for_sv", _W, (_C,), (_C,), ("", "observations"),
    "A velocity workflow needs at least two scans that carry observations.", _READY)
ROTOR_SPEED_ABSENT = _declare(
    "rotor_speed_absent", _W, (_C, _D), (_C, _D), ("scans", "rotor_speed"),
    "Both workflows need a rotor speed on every scan or a nominal speed on the instrument.",
    _READY)
EXPERIMENT_TYPE_UNKNOWN = _declare(
    "experiment_type_unknown", _W, (_C, _D), (), ("", "metadata.experiment_type"),
    "The experiment type is not declared; both workflows are assessed.", _READY)
TEMPERATURE_ABSENT = _declare(
    "temperature_absent", _W, (_C, _D), (), ("scans", "temperature"),
    "Scans have no temperature and the instrument records none (advisory).", _READY)
ABSORBANCE_WAVELENGTH_ABSENT = _declare(
    "absorbance_wavelength_absent", _W, (_C, _D), (), ("scans", "wavelength"),
    "Absorbance scans have no wavelength and the instrument records none (advisory).", _READY)
SIGNAL_UNIT_UNKNOWN = _declare(
    "signal_unit_unknown", _W, (_C, _D), (), ("", "observations.signal_unit"),
    "The signal unit is not declared (advisory).", _READY)
OPTICAL_SYSTEM_UNKNOWN = _declare(
    "optical_system_unknown", _W, (_C, _D), (), ("scans", "optical_system"),
    "Scans declare no optical system and the instrument declares none (advisory).", _READY)
NO_SAMPLES = _declare(
    "no_samples", _W, (_C, _D), (), ("", "samples"),
    "The experiment records no sample (advisory).", _READY)
SAMPLE_FIELD_ABSENT = {
    "buffer_description": _declare(
        "buffer_description_absent", _N, (_D,), (), ("samples", "buffer_description"),
        "Samples describe no buffer (descriptive only).", _READY),
    "density": _declare(
        "density_absent", _W, (_C, _D), (), ("samples", "density"),
        "Samples record no solvent density (a correction input, advisory).", _READY),
    "viscosity": _declare(
        "viscosity_absent", _W, (_C, _D), (), ("samples", "viscosity"),
        "Samples record no solvent viscosity (a correction input, advisory).", _READY),
    "partial_specific_volume": _declare(
        "partial_specific_volume_absent", _W, (_D,), (), ("samples", "partial_specific_volume"),
        "Samples record no partial specific volume (needed for molar mass, advisory).", _READY),
}
# -- archival, informational -------------------------------------------------
PROVENANCE_ABSENT = _declare(
    "provenance_absent", _N, (_A,), (), ("", "provenance"),
    "No import provenance is recorded (legitimate for a hand-built experiment).", _ARCH)
SOURCE_CHECKSUM_ABSENT = _declare(
    "source_checksum_absent", _N, (_A,), (), ("", "provenance.sha256"),
    "The import provenance records no SHA-256 digest of the source data file.", _ARCH)


def rule_for(code: str) -> AucRule:
    """The :class:`AucRule` of finding code ``code``.

    Raises:
        KeyError: ``code`` is not a structure or validation code.
    """
    return AUC_RULES[code]


def reference_code(code: str) -> str:
    """The reference (``openauc``) code of finding code ``code``:
    ``"structure.duplicate_scan_id"`` -> ``"duplicate_scan_id"``."""
    return code.partition(".")[2]


# -- locators ----------------------------------------------------------------

#: Turns a model path (see the module docstring) into a finding location.
Locate = Callable[[str], str]


def model_location(path: str) -> str:
    """The model path itself, for callers that want container-neutral places."""
    return path


# AUCX 1.0 format document, "Structure": the members holding each part.
_AUCX_EXPERIMENT = "experiment.json"
_AUCX_MANIFEST = "manifest.json"
_AUCX_PROVENANCE = "provenance.json"
_AUCX_ARRAY = re.compile(r"observations\.(radius|signal|mask)(\[\d+\])?")
_ROOT = re.compile(r"[a-z_]+")


def aucx_location(path: str) -> str:
    """Where model path ``path`` lives in an AUCX 1.0 archive.

    ``metadata``/``instrument``/``scans``/``samples`` -> ``experiment.json:<path>``;
    ``observations.radius[2]`` -> ``arrays/radius.npy[2]`` (likewise signal and
    mask); other ``observations`` keys -> ``manifest.json:<path>``;
    ``provenance.<f>`` -> ``provenance.json:import.<f>``.  Member names from
    the AUCX 1.0 format document, "Structure".
    """
    match = _ROOT.match(path)
    root = match.group() if match else ""
    if root in ("metadata", "instrument", "scans", "samples"):
        return f"{_AUCX_EXPERIMENT}:{path}"
    if root == "provenance":
        return f"{_AUCX_PROVENANCE}:import{path[len(root):]}"
    array = _AUCX_ARRAY.fullmatch(path)
    if array is not None:
        return f"arrays/{array[1]}.npy{array[2] or ''}"
    if root == "observations":
        return f"{_AUCX_MANIFEST}:{path}"
    return path


# Manifest-v1 keys of the model fields whose names differ (manifest-v1.md).
_MANIFEST_KEYS = {
    "instrument.nominal_speed": "instrument.nominal_speed_rpm",
    "instrument.temperature": "instrument.temperature_c",
    "instrument.wavelength": "instrument.wavelength_nm",
    "concentration": "concentration_value",
}
_SCAN_INDEX = re.compile(r"scans\[(\d+)\]")
_SAMPLE_FIELD = re.compile(r"samples\[(\d+)\]\.(\w+)")


@dataclass(frozen=True)
class DelimitedLocator:
    """Places model paths in a CSV/TSV source with a manifest (``docs/formats/
    manifest-v1.md`` and ``generic-delimited.md`` of ``ronfinn/openauc-io``).

    Attributes:
        manifest: the manifest file name (``"manifest.json"``).
        data_file: the data file name (``"scans.csv"``).
        scan_rows: per scan, the location of its first row or column
            (``"scans.csv:12"``), when known (a path of a scan not listed here
            is placed at the data file).

    ``metadata.<f>`` -> ``<manifest>:experiment.<f>``; ``instrument.<f>`` and
    ``samples[k].<f>`` -> the manifest key (``nominal_speed_rpm``, ...);
    ``scans[i]...`` -> ``<data file>:scans[i]...`` (the scan named as an
    archive names it, so that a finding selects its scan); other scan and observation paths
    -> the data file; ``provenance`` (made by the import) -> ``""``.
    """

    manifest: str
    data_file: str
    scan_rows: Sequence[str] = ()

    def __call__(self, path: str) -> str:
        root = path.partition(".")[0].partition("[")[0]
        if root == "metadata":
            return f"{self.manifest}:experiment{path[len(root):]}"
        if root == "instrument":
            return f"{self.manifest}:{_MANIFEST_KEYS.get(path, path)}"
        if root == "samples":
            sample = _SAMPLE_FIELD.fullmatch(path)
            if sample is None:
                return f"{self.manifest}:samples"
            key = _MANIFEST_KEYS.get(sample[2], sample[2])
            return f"{self.manifest}:samples[{sample[1]}].{key}"
        if root == "scans":
            scan = _SCAN_INDEX.match(path)
            if scan is not None and int(scan[1]) < len(self.scan_rows):
                return f"{self.data_file}:{path}"  # names the scan, as in an archive
            return self.data_file
        if root == "observations":
            return self.data_file
        return ""
