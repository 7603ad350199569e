"""A quick, conservative reading of the :mod:`.schema` models: values plainly valid.

Importing pydantic and building the models costs about 20 MB and a few hundred
milliseconds, once per process; most archives' JSON members are plainly valid.
:func:`plainly_valid` accepts a value only in the plain forms every model of
:mod:`.schema` accepts (openauc 0.1.0a1's models, restated there): JSON text
for text fields, a known value for an enumeration, whole numbers for counts,
finite numbers for quantities, ISO 8601 date-times of the one form
``YYYY-MM-DDTHH:MM:SS[.ffffff][Z|±HH:MM]``, no unknown key, each required key
present and each rule of the quantities and identifiers held.  Anything else
(pydantic's lax coercions such as ``"3"`` for an index, other date forms,
``true`` for a number, any violation) is answered "not plainly valid", and the
caller then asks the pydantic models themselves, whose verdict and messages
stand.  So a value this module accepts is one the models accept; it never
rejects on its own.  ``tests/test_aucx_plain_models.py`` checks that claim on
random edits of real members with the models as oracle.  Nothing here imports
pydantic or Qt.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

Check = Callable[[Any], bool]

_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
_DATETIME = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-](0\d|1\d|2[0-3]):[0-5]\d)?")
_EXPERIMENT_TYPES = frozenset({"sedimentation_velocity", "sedimentation_equilibrium", "other",
                               "unknown"})
_OPTICS = frozenset({"absorbance", "interference", "fluorescence", "intensity", "unknown"})
_UNITS = frozenset({"cm", "s", "rpm", "degC", "nm", "cm2/s", "AU", "fringe", "instrument_unit",
                    "calibrated_unit", "other", "unknown"})
_STATUSES = frozenset({"present", "missing", "unknown", "not_applicable"})
_PROVENANCES = frozenset({"supplied", "converted", "inferred", "user_confirmed", "unknown"})
#: Whole numbers read exactly as floats.
_EXACT = 2 ** 53


def _text(v: Any) -> bool:
    return type(v) is str


def _text_or_none(v: Any) -> bool:
    return v is None or type(v) is str


def _named(v: Any) -> bool:
    return type(v) is str and bool(v.strip())


def _one_of(values: frozenset[str]) -> Check:
    return lambda v: type(v) is str and v in values


def _date_time(v: Any) -> bool:
    if v is None:
        return True
    if type(v) is not str or not _DATETIME.fullmatch(v):
        return False
    try:
        datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _count(v: Any) -> bool:
    return type(v) is int


def _index(v: Any) -> bool:
    return type(v) is int and v >= 0


def _texts(v: Any) -> bool:
    return type(v) is list and all(type(x) is str for x in v)


def _number(v: Any) -> bool:
    return (type(v) is float and math.isfinite(v)) or (type(v) is int and abs(v) <= _EXACT)


def _quantity(units: frozenset[str] | None, non_negative: bool,
              required: bool = False) -> Check:
    """A ``Quantity`` object (or null unless ``required``) whose unit, when present and
    known, is one of ``units`` (None: any) and whose value is not negative."""
    def check(v: Any) -> bool:
        if v is None:
            return not required
        if not _plain(v, _QUANTITY, ()):
            return False
        status, value = v.get("status", "present"), v.get("value")
        if status == "present":
            if value is None or not _number(value):
                return False
            unit = v.get("unit", "unknown")
            if units is not None and unit != "unknown" and unit not in units:
                return False
        elif value is not None:
            return False
        return not (non_negative and value is not None and value < 0)
    return check


def _plain(v: Any, fields: dict[str, Check], required: tuple[str, ...]) -> bool:
    """True when the object ``v`` has each ``required`` key, no other key than
    ``fields`` and every value its check accepts."""
    return (type(v) is dict and all(k in v for k in required)
            and all(type(k) is str and k in fields and fields[k](x) for k, x in v.items()))


_QUANTITY: dict[str, Check] = {
    "value": lambda v: v is None or _number(v), "unit": _one_of(_UNITS),
    "unit_label": _text_or_none, "status": _one_of(_STATUSES),
    "provenance": _one_of(_PROVENANCES)}
_RPM, _CELSIUS, _NM, _S = (frozenset({u}) for u in ("rpm", "degC", "nm", "s"))
_ANY_QUANTITY = _quantity(None, False)
_CHECKSUM: dict[str, Check] = {
    "role": _named, "filename": _named, "algorithm": _text,
    "value": lambda v: type(v) is str and bool(_SHA256.fullmatch(v)),
    "byte_size": lambda v: v is None or _count(v)}

#: Each model of :data:`.schema.MODELS`: its fields' checks and its required keys.
MODELS: dict[str, tuple[dict[str, Check], tuple[str, ...]]] = {
    "metadata": ({
        "experiment_id": _named, "name": _text_or_none, "description": _text_or_none,
        "experiment_type": _one_of(_EXPERIMENT_TYPES), "acquired_at": _date_time,
        "operator": _text_or_none, "notes": _text_or_none}, ("experiment_id",)),
    "instrument": ({
        "manufacturer": _text_or_none, "model": _text_or_none, "serial_number": _text_or_none,
        "rotor_id": _text_or_none, "nominal_speed": _quantity(_RPM, True),
        "temperature": _quantity(_CELSIUS, False), "cell": _text_or_none,
        "channel": _text_or_none, "centrepiece": _text_or_none,
        "optical_system": _one_of(_OPTICS), "wavelength": _quantity(_NM, True)}, ()),
    "sample": ({
        "sample_id": _named, "description": _text_or_none,
        "buffer_description": _text_or_none, "concentration": _ANY_QUANTITY,
        "density": _ANY_QUANTITY, "viscosity": _ANY_QUANTITY,
        "partial_specific_volume": _ANY_QUANTITY, "notes": _text_or_none}, ("sample_id",)),
    "scan": ({
        "scan_id": _named, "index": _index, "elapsed_time": _quantity(_S, True, True),
        "acquired_at": _date_time, "cell": _text_or_none, "channel": _text_or_none,
        "wavelength": _quantity(_NM, True), "optical_system": _one_of(_OPTICS),
        "rotor_speed": _quantity(_RPM, True), "temperature": _quantity(_CELSIUS, False),
        "source_file": _text_or_none, "annotations": _texts},
        ("scan_id", "index", "elapsed_time")),
    "import": ({
        "source_path": _text_or_none, "source_filename": _text_or_none,
        "sha256": lambda v: v is None or (type(v) is str and bool(_SHA256.fullmatch(v))),
        "source_checksums": lambda v: type(v) is list and all(
            _plain(x, _CHECKSUM, ("role", "filename", "value")) for x in v),
        "parser_name": _text_or_none, "parser_version": _text_or_none,
        "imported_at": _date_time, **{k: _texts for k in (
            "transformations", "warnings", "assumptions", "supplied_values",
            "converted_values", "inferred_values", "user_confirmed_values",
            "unknown_values")}}, ()),
    "export": ({
        "aucx_format_version": _text, "software": _text, "software_version": _text_or_none,
        "exported_at": _date_time, "checksum_algorithm": _text, "member_count": _count}, ()),
}


def plainly_valid(name: str, value: Any) -> bool:
    """True when ``value`` is, in a plain form, valid for the model ``name`` of
    :data:`.schema.MODELS` (``"metadata"``, ``"instrument"``, ``"sample"``,
    ``"scan"``, ``"import"``, ``"export"``); False means "ask the models"."""
    fields, required = MODELS[name]
    return _plain(value, fields, required)
