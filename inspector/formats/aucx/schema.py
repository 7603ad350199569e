"""The metadata models an AUCX archive's JSON members must satisfy, declared once.

These are the pydantic models of the reference library openauc 0.1.0a1
(``openauc/models/metadata.py``, ``instrument.py``, ``sample.py``,
``scan.py``, ``provenance.py``, ``enums.py`` and the ``AUCXExport`` record of
``openauc/formats/aucx.py``; Copyright the openauc authors, Apache License
2.0), restated here field for field with their validators so that Inspector
judges ``experiment.json`` and ``provenance.json`` exactly as openauc's loader
(``_experiment_from``, ``_export_record``) does: required keys, types with
pydantic's own lax coercions (``"3"`` is an index, ``1`` is not a cell name),
enumerations, dates, unknown keys (``extra="forbid"``) and the quantity
rules (a present value is finite, a non-present one carries none, units of
the right kind, no negative speeds, times or wavelengths).

This module imports pydantic; import it only where validation happens (it
is not imported when the window starts).  Nothing here imports Qt.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_SHA256_RE = re.compile(r"[0-9a-fA-F]{64}")


class ExperimentType(StrEnum):
    """openauc ``ExperimentType``."""

    SEDIMENTATION_VELOCITY = "sedimentation_velocity"
    SEDIMENTATION_EQUILIBRIUM = "sedimentation_equilibrium"
    OTHER = "other"
    UNKNOWN = "unknown"


class OpticalSystem(StrEnum):
    """openauc ``OpticalSystem``."""

    ABSORBANCE = "absorbance"
    INTERFERENCE = "interference"
    FLUORESCENCE = "fluorescence"
    INTENSITY = "intensity"
    UNKNOWN = "unknown"


class Unit(StrEnum):
    """openauc ``Unit`` (the fixed unit strings, AUCX on-disk notes §1)."""

    CENTIMETRE = "cm"
    SECOND = "s"
    RPM = "rpm"
    DEGREE_CELSIUS = "degC"
    NANOMETRE = "nm"
    SQUARE_CENTIMETRE_PER_SECOND = "cm2/s"
    ABSORBANCE_UNIT = "AU"
    FRINGE = "fringe"
    INSTRUMENT_UNIT = "instrument_unit"
    CALIBRATED_UNIT = "calibrated_unit"
    OTHER = "other"
    UNKNOWN = "unknown"


class ValueStatus(StrEnum):
    """openauc ``ValueStatus``."""

    PRESENT = "present"
    MISSING = "missing"
    UNKNOWN = "unknown"
    NOT_APPLICABLE = "not_applicable"


class ValueProvenance(StrEnum):
    """openauc ``ValueProvenance``."""

    SUPPLIED = "supplied"
    CONVERTED = "converted"
    INFERRED = "inferred"
    USER_CONFIRMED = "user_confirmed"
    UNKNOWN = "unknown"


_STRICT = ConfigDict(frozen=True, extra="forbid")


class Quantity(BaseModel):
    """openauc ``Quantity``: a scalar with its unit, status and provenance."""

    model_config = _STRICT

    value: float | None = None
    unit: Unit = Unit.UNKNOWN
    unit_label: str | None = None
    status: ValueStatus = ValueStatus.PRESENT
    provenance: ValueProvenance = ValueProvenance.SUPPLIED

    @model_validator(mode="after")
    def _check_value_status(self) -> Quantity:
        if self.status is ValueStatus.PRESENT:
            if self.value is None:
                raise ValueError("a PRESENT quantity requires a numeric value")
            if not math.isfinite(self.value):
                raise ValueError("quantity value must be finite (not NaN or infinity)")
        elif self.value is not None:
            raise ValueError(f"a {self.status.value} quantity must not carry a numeric value")
        return self


def _reject_negative(quantity: Quantity | None, name: str) -> Quantity | None:
    if quantity is not None and quantity.value is not None and quantity.value < 0:
        raise ValueError(f"{name} must be non-negative, got {quantity.value}")
    return quantity


def _require_unit(quantity: Quantity | None, name: str,
                  allowed: Iterable[Unit]) -> Quantity | None:
    allowed_set = set(allowed)
    if (quantity is not None and quantity.status is ValueStatus.PRESENT
            and quantity.unit is not Unit.UNKNOWN and quantity.unit not in allowed_set):
        expected = ", ".join(sorted(u.value for u in allowed_set))
        raise ValueError(f"{name} has unexpected unit {quantity.unit.value}; "
                         f"expected one of [{expected}] or unknown")
    return quantity


def _non_empty(value: str, what: str) -> str:
    if not value.strip():
        raise ValueError(f"{what} must be a non-empty string")
    return value


class ExperimentMetadata(BaseModel):
    """openauc ``ExperimentMetadata`` (``experiment.json`` ``metadata``)."""

    model_config = _STRICT

    experiment_id: str
    name: str | None = None
    description: str | None = None
    experiment_type: ExperimentType = ExperimentType.UNKNOWN
    acquired_at: datetime | None = None
    operator: str | None = None
    notes: str | None = None

    @field_validator("experiment_id")
    @classmethod
    def _non_empty_id(cls, value: str) -> str:
        return _non_empty(value, "experiment_id")


class InstrumentMetadata(BaseModel):
    """openauc ``InstrumentMetadata`` (``experiment.json`` ``instrument``)."""

    model_config = _STRICT

    manufacturer: str | None = None
    model: str | None = None
    serial_number: str | None = None
    rotor_id: str | None = None
    nominal_speed: Quantity | None = None
    temperature: Quantity | None = None
    cell: str | None = None
    channel: str | None = None
    centrepiece: str | None = None
    optical_system: OpticalSystem = OpticalSystem.UNKNOWN
    wavelength: Quantity | None = None

    @field_validator("nominal_speed")
    @classmethod
    def _check_speed(cls, value: Quantity | None) -> Quantity | None:
        return _require_unit(_reject_negative(value, "nominal_speed"), "nominal_speed",
                             {Unit.RPM})

    @field_validator("temperature")
    @classmethod
    def _check_temperature(cls, value: Quantity | None) -> Quantity | None:
        return _require_unit(value, "temperature", {Unit.DEGREE_CELSIUS})

    @field_validator("wavelength")
    @classmethod
    def _check_wavelength(cls, value: Quantity | None) -> Quantity | None:
        return _require_unit(_reject_negative(value, "wavelength"), "wavelength",
                             {Unit.NANOMETRE})


class SampleMetadata(BaseModel):
    """openauc ``SampleMetadata`` (one item of ``experiment.json`` ``samples``)."""

    model_config = _STRICT

    sample_id: str
    description: str | None = None
    buffer_description: str | None = None
    concentration: Quantity | None = None
    density: Quantity | None = None
    viscosity: Quantity | None = None
    partial_specific_volume: Quantity | None = None
    notes: str | None = None

    @field_validator("sample_id")
    @classmethod
    def _non_empty_id(cls, value: str) -> str:
        return _non_empty(value, "sample_id")


class ScanMetadata(BaseModel):
    """openauc ``ScanMetadata`` (one item of ``experiment.json`` ``scans``)."""

    model_config = _STRICT

    scan_id: str
    index: int = Field(ge=0)
    elapsed_time: Quantity
    acquired_at: datetime | None = None
    cell: str | None = None
    channel: str | None = None
    wavelength: Quantity | None = None
    optical_system: OpticalSystem = OpticalSystem.UNKNOWN
    rotor_speed: Quantity | None = None
    temperature: Quantity | None = None
    source_file: str | None = None
    annotations: tuple[str, ...] = ()

    @field_validator("scan_id")
    @classmethod
    def _non_empty_id(cls, value: str) -> str:
        return _non_empty(value, "scan_id")

    @field_validator("elapsed_time")
    @classmethod
    def _check_elapsed_time(cls, value: Quantity) -> Quantity:
        _require_unit(value, "elapsed_time", {Unit.SECOND})
        _reject_negative(value, "elapsed_time")
        return value

    @field_validator("wavelength")
    @classmethod
    def _check_wavelength(cls, value: Quantity | None) -> Quantity | None:
        return _require_unit(_reject_negative(value, "wavelength"), "wavelength",
                             {Unit.NANOMETRE})

    @field_validator("rotor_speed")
    @classmethod
    def _check_rotor_speed(cls, value: Quantity | None) -> Quantity | None:
        return _require_unit(_reject_negative(value, "rotor_speed"), "rotor_speed",
                             {Unit.RPM})

    @field_validator("temperature")
    @classmethod
    def _check_temperature(cls, value: Quantity | None) -> Quantity | None:
        return _require_unit(value, "temperature", {Unit.DEGREE_CELSIUS})


class SourceChecksum(BaseModel):
    """openauc ``SourceChecksum`` (an item of the import's ``source_checksums``)."""

    model_config = _STRICT

    role: str
    filename: str
    algorithm: str = "sha256"
    value: str
    byte_size: int | None = None

    @field_validator("value")
    @classmethod
    def _validate_digest(cls, value: str) -> str:
        if not _SHA256_RE.fullmatch(value):
            raise ValueError("checksum value must be exactly 64 hexadecimal characters")
        return value.lower()

    @field_validator("role", "filename")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("role and filename must be non-empty strings")
        return value


class ImportProvenance(BaseModel):
    """openauc ``ImportProvenance`` (``provenance.json`` ``import``)."""

    model_config = _STRICT

    source_path: str | None = None
    source_filename: str | None = None
    sha256: str | None = None
    source_checksums: tuple[SourceChecksum, ...] = ()
    parser_name: str | None = None
    parser_version: str | None = None
    imported_at: datetime | None = None
    transformations: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    supplied_values: tuple[str, ...] = ()
    converted_values: tuple[str, ...] = ()
    inferred_values: tuple[str, ...] = ()
    user_confirmed_values: tuple[str, ...] = ()
    unknown_values: tuple[str, ...] = ()

    @field_validator("sha256")
    @classmethod
    def _validate_sha256(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not _SHA256_RE.fullmatch(value):
            raise ValueError("sha256 must be exactly 64 hexadecimal characters")
        return value.lower()


class AUCXExport(BaseModel):
    """openauc ``AUCXExport``: the export record (``provenance.json`` ``export``)."""

    model_config = _STRICT

    aucx_format_version: str = "1.0"
    software: str = "openauc"
    software_version: str | None = None
    exported_at: datetime | None = None
    checksum_algorithm: str = "sha256"
    member_count: int = 0


#: The model of each validated place, by name (``schema.MODELS["scan"]``).
MODELS: dict[str, type[BaseModel]] = {
    "metadata": ExperimentMetadata, "instrument": InstrumentMetadata,
    "sample": SampleMetadata, "scan": ScanMetadata, "import": ImportProvenance,
    "export": AUCXExport,
}
