"""Scalar rules of the canonical AUC model: units, optical systems, numbers, times.

Mirrors the vocabulary of the reference data model (``openauc==0.1.0a1``,
``docs/concepts/units.md`` and ``missing-and-unknown-values.md`` of
``ronfinn/openauc-io``): units are fixed strings that are **retained, never
inferred from values and never converted**; a quantity is a dict
``{value, unit, unit_label, status, provenance}`` whose status is one of
``present``/``missing``/``unknown``/``not_applicable``; a non-present
quantity has ``value: None``.
"""

from __future__ import annotations

import math
import reprlib
from datetime import datetime
from typing import Any

#: Unit name -> unit string (the reference ``Unit`` enumeration).
UNITS: dict[str, str] = {
    "CENTIMETRE": "cm",
    "SECOND": "s",
    "RPM": "rpm",
    "DEGREE_CELSIUS": "degC",
    "NANOMETRE": "nm",
    "SQUARE_CENTIMETRE_PER_SECOND": "cm2/s",
    "ABSORBANCE_UNIT": "AU",
    "FRINGE": "fringe",
    "INSTRUMENT_UNIT": "instrument_unit",
    "CALIBRATED_UNIT": "calibrated_unit",
    "OTHER": "other",
    "UNKNOWN": "unknown",
}
UNIT_VALUES = frozenset(UNITS.values())

#: Optical systems the model can represent.
OPTICAL_SYSTEMS = ("absorbance", "interference", "fluorescence", "intensity", "unknown")
#: Experiment types.
EXPERIMENT_TYPES = ("sedimentation_velocity", "sedimentation_equilibrium", "other", "unknown")
#: Quantity statuses (explicit presence semantics).
STATUSES = ("present", "missing", "unknown", "not_applicable")


#: Characters a table cell or a manifest identifier may have (Inspector's limit,
#: docs/architecture.md "Contracts"; no scan ID, column name or number is that long).
MAX_CELL_CHARS = 4096

#: Characters of an input value a message echoes at most (:func:`shown`).
MAX_SHOWN = 80

_SHOWN = reprlib.Repr()
_SHOWN.maxstring = MAX_SHOWN
_SHOWN.maxother = MAX_SHOWN
_SHOWN.maxlevel = 2
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = 6


def shown(value: object) -> str:
    """``repr(value)`` bounded for a message: long text is cut in the middle (``...``),
    containers beyond a few items or levels are elided, cycles are marked; the cost
    does not grow with the size of ``value``."""
    return _SHOWN.repr(value)


def parse_unit(text: str) -> tuple[str, str | None]:
    """Map unit text to ``(unit, unit_label)``.

    A unit string (``"AU"``) or a unit name in any case (``"absorbance_unit"``)
    maps to that unit with no label; anything else is ``("other", text)``,
    keeping the verbatim text as the label.  Nothing is converted.
    """
    if text in UNIT_VALUES:
        return text, None
    name = text.upper()
    if name in UNITS:
        return UNITS[name], None
    return "other", text


def parse_optical_table(text: str) -> str | None:
    """An optical system written in a table cell: a value or a name in any case; None if unknown."""
    if text in OPTICAL_SYSTEMS:
        return text
    upper = text.upper()
    for value in OPTICAL_SYSTEMS:
        if value.upper() == upper:
            return value
    return None


def quantity(value: float, unit: str, unit_label: str | None = None) -> dict[str, Any]:
    """A present, supplied quantity ``{value, unit, unit_label, status, provenance}``."""
    return {
        "value": float(value),
        "unit": unit,
        "unit_label": unit_label,
        "status": "present",
        "provenance": "supplied",
    }


def missing_quantity() -> dict[str, Any]:
    """A quantity the source did not provide (status ``missing``, unit ``unknown``)."""
    return {
        "value": None,
        "unit": "unknown",
        "unit_label": None,
        "status": "missing",
        "provenance": "supplied",
    }


def manifest_float(value: Any) -> float | None:
    """A manifest number as the reference's schema accepts it, else None.

    Accepted: int, float, bool (as 0.0/1.0) and ASCII text that Python's
    ``float()`` reads (``"280"``, ``" 2.8e2 "``, ``"1_000"``, ``"nan"``).
    Non-finite results are returned; the caller decides whether they are
    allowed (a quantity never is).
    """
    if isinstance(value, bool | int | float):
        try:
            return float(value)
        except OverflowError:
            return None
    if isinstance(value, str):
        if not value.isascii():
            return None
        try:
            return float(value)
        except ValueError:
            return None
    return None


def table_float(text: str) -> float | None:
    """A number written in a table cell (Python ``float()`` of the stripped text), else None."""
    try:
        return float(text.strip())
    except ValueError:
        return None


def is_finite(value: float | None) -> bool:
    """True for a number that is neither NaN nor infinite (False for None)."""
    return value is not None and math.isfinite(value)


def format_datetime(dt: datetime) -> str:
    """ISO-8601 text of ``dt`` as the reference model serialises it.

    ``YYYY-MM-DDTHH:MM:SS``, then ``.ffffff`` when there are microseconds,
    then nothing (naive), ``Z`` (zero offset) or ``+HH:MM``.
    """
    text = (f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}"
            f"T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}")
    if dt.microsecond:
        text += f".{dt.microsecond:06d}"
    offset = dt.utcoffset()
    if offset is None:
        return text
    seconds = int(offset.total_seconds())
    if seconds == 0:
        return text + "Z"
    sign = "-" if seconds < 0 else "+"
    seconds = abs(seconds)
    return text + f"{sign}{seconds // 3600:02d}:{(seconds % 3600) // 60:02d}"


def parse_timestamp(text: str) -> datetime | None:
    """An ISO-8601 timestamp (Python ``datetime.fromisoformat``), else None."""
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None
