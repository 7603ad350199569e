"""Turn a parsed layout and its manifest into the canonical :class:`AucExperiment`.

Rules (``docs/formats/generic-delimited.md`` and ``manifest-v1.md``;
``docs/concepts/units.md``, ``missing-and-unknown-values.md``): manifest
``defaults`` fill per-scan metadata the table does not supply, and a default
that differs from a supplied value is a conflict, never an override; a scan
without ``elapsed_seconds`` gets an explicitly *missing* elapsed time; absent
metadata stays absent (None); units are fixed by the column or field name
(``radius_cm`` cm, ``elapsed_seconds`` s, ``wavelength_nm`` nm,
``rotor_speed_rpm`` rpm, ``temperature_c`` degC; sample density, viscosity and
partial specific volume ``unknown``), retained and never converted; one
``signal_unit`` per file, by unit string or name, anything else ``other``.
The canonical model also refuses values it cannot hold: a non-finite
quantity; a negative elapsed time, wavelength or rotor speed; an empty
experiment, sample or scan id; a repeated scan id; no scan at all.  Scans that
all have the identical radius vector share one axis; otherwise each keeps its
own, NaN-padded, with the authoritative mask.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from inspector.formats.auc.model import AucExperiment
from inspector.formats.auc.scan_records import ScanRecords, coded, integers, quantities
from inspector.formats.delimited.layouts import WIDE, ParsedLayout, ScanColumn, ScanInputs
from inspector.formats.delimited.manifest import Manifest
from inspector.formats.delimited.rules import (
    MODEL_DUPLICATE_SCAN_ID,
    MODEL_EMPTY_EXPERIMENT_ID,
    MODEL_EMPTY_SAMPLE_ID,
    MODEL_EMPTY_SCAN_ID,
    MODEL_NEGATIVE,
    MODEL_NO_SCANS,
    MODEL_NON_FINITE,
    SOURCE_DEFAULT_CONFLICT,
    SOURCE_SIGNAL_UNIT_CONFLICT,
)
from inspector.formats.delimited.stages import Stages
from inspector.formats.delimited.values import (
    is_finite,
    missing_quantity,
    parse_unit,
    quantity,
    shown,
)

#: ``(mode, radius, signal, mask)`` of the observations (see :class:`AucExperiment`).
Observations = tuple[str, np.ndarray, np.ndarray, np.ndarray]


def _finite_quantity(value: float | None, unit: str, where: str, what: str, col: Stages,
                     non_negative: bool = False,
                     label: str | None = None) -> dict[str, Any] | None:
    """A present quantity of ``value`` in ``unit``; None (and an error) when it is not finite
    or, with ``non_negative``, negative; None without error when ``value`` is None."""
    if value is None:
        return None
    if not is_finite(value):
        col.report(MODEL_NON_FINITE, f"{what} must be finite, got {value}", where)
        return None
    if non_negative and value < 0:
        col.report(MODEL_NEGATIVE, f"{what} must be non-negative, got {value}", where)
        return None
    return quantity(value, unit, label)


def _resolve(si: ScanInputs, key: str, default: Any, manifest: Manifest, col: Stages) -> Any:
    """The supplied value of ``key``, else the manifest default; a conflict between the two
    is an error (manifest-v1.md, "Defaults and conflicts") and gives None."""
    supplied = getattr(si, key)
    if supplied is not None and default is not None and supplied != default:
        sv = shown(supplied) if isinstance(supplied, str) else f"{supplied}"
        dv = shown(default) if isinstance(default, str) else f"{default}"
        where = si.origin_text.get(key, si.place)
        col.report(SOURCE_DEFAULT_CONFLICT,
                   f"scan {shown(si.scan_id)}: {key} is {sv} in the data ({where}) but {dv} in "
                   "the manifest defaults", manifest.loc(f"defaults.{key}"))
        return None
    return supplied if supplied is not None else default


def _scan(si: ScanInputs, index: int, manifest: Manifest, source_file: str,
          col: Stages) -> dict[str, Any]:
    """The scan object of ``si`` (reference ``to_dict()`` form), defaults applied."""
    d = manifest.defaults
    where = si.location
    sid = shown(si.scan_id)
    if not si.scan_id.strip():
        col.report(MODEL_EMPTY_SCAN_ID, f"scan {index}: scan_id must be a non-empty string",
                   where)
    elapsed = missing_quantity() if si.elapsed_seconds is None else _finite_quantity(
        si.elapsed_seconds, "s", si.origin.get("elapsed_seconds", where),
        f"scan {sid}: elapsed_seconds", col, non_negative=True)
    wavelength = _resolve(si, "wavelength_nm", d["wavelength_nm"], manifest, col)
    rotor = _resolve(si, "rotor_speed_rpm", d["rotor_speed_rpm"], manifest, col)
    temperature = _resolve(si, "temperature_c", d["temperature_c"], manifest, col)

    def origin(key: str) -> str:
        return si.origin.get(key, manifest.loc(f"defaults.{key}"))

    optical = _resolve(si, "optical_system", d["optical_system"], manifest, col)
    return {
        "scan_id": si.scan_id,
        "index": index,
        "elapsed_time": elapsed,
        "acquired_at": si.acquired_at,
        "cell": _resolve(si, "cell", d["cell"], manifest, col),
        "channel": _resolve(si, "channel", d["channel"], manifest, col),
        "wavelength": _finite_quantity(wavelength, "nm", origin("wavelength_nm"),
                                       f"scan {sid}: wavelength_nm", col, True),
        "optical_system": optical if optical is not None else "unknown",
        "rotor_speed": _finite_quantity(rotor, "rpm", origin("rotor_speed_rpm"),
                                        f"scan {sid}: rotor_speed_rpm", col, True),
        "temperature": _finite_quantity(temperature, "degC", origin("temperature_c"),
                                        f"scan {sid}: temperature_c", col),
        "source_file": source_file,
        "annotations": [f"source_scan_id={si.source_scan_id}"] if si.source_scan_id else [],
    }


def _signal_unit(parsed: ParsedLayout, manifest: Manifest, table_name: str,
                 col: Stages) -> str:
    """The one signal unit of the file (table or default), ``"unknown"`` when none is given
    or on a conflict (an error)."""
    units = parsed.signal_units
    default = manifest.defaults["signal_unit"]
    if len(units) > 1:
        col.report(SOURCE_SIGNAL_UNIT_CONFLICT,
                   f"more than one signal_unit in one file: {shown(sorted(units))} (one signal "
                   "unit per file)", f"{table_name}:signal_unit")
        return "unknown"
    table_unit = next(iter(units), None)
    if table_unit is not None and default is not None and table_unit != default:
        col.report(SOURCE_DEFAULT_CONFLICT,
                   f"signal_unit is {shown(table_unit)} in the data ({units[table_unit]}) but "
                   f"{shown(default)} in the manifest defaults",
                   manifest.loc("defaults.signal_unit"))
        return "unknown"
    chosen = table_unit if table_unit is not None else default
    return "unknown" if chosen is None else parse_unit(chosen)[0]


def _metadata(manifest: Manifest, col: Stages) -> dict[str, Any]:
    """The experiment ``metadata`` object from the manifest's ``experiment``."""
    me = manifest.experiment
    if not me["experiment_id"].strip():
        col.report(MODEL_EMPTY_EXPERIMENT_ID, "experiment_id must be a non-empty string",
                   manifest.loc("experiment.experiment_id"))
    return {
        "experiment_id": me["experiment_id"],
        "name": me["name"],
        "description": me["description"],
        "experiment_type": me["experiment_type"],
        "acquired_at": None,
        "operator": me["operator"],
        "notes": me["notes"],
    }


def _instrument(manifest: Manifest, col: Stages) -> dict[str, Any] | None:
    """The ``instrument`` object (quantities in their declared units), or None."""
    mi = manifest.instrument
    if mi is None:
        return None
    loc = manifest.loc
    return {
        "manufacturer": mi["manufacturer"],
        "model": mi["model"],
        "serial_number": mi["serial_number"],
        "rotor_id": mi["rotor_id"],
        "nominal_speed": _finite_quantity(mi["nominal_speed_rpm"], "rpm",
                                          loc("instrument.nominal_speed_rpm"),
                                          "instrument nominal_speed_rpm", col, True),
        "temperature": _finite_quantity(mi["temperature_c"], "degC",
                                        loc("instrument.temperature_c"),
                                        "instrument temperature_c", col),
        "cell": mi["cell"],
        "channel": mi["channel"],
        "centrepiece": mi["centrepiece"],
        "optical_system": mi["optical_system"] or "unknown",
        "wavelength": _finite_quantity(mi["wavelength_nm"], "nm", loc("instrument.wavelength_nm"),
                                       "instrument wavelength_nm", col, True),
    }


def _sample(s: dict[str, Any], k: int, manifest: Manifest, col: Stages) -> dict[str, Any]:
    """The sample object of ``samples[k]`` (quantities in their declared units)."""
    def loc(key: str) -> str:
        return manifest.loc(f"samples[{k}].{key}")

    if not s["sample_id"].strip():
        col.report(MODEL_EMPTY_SAMPLE_ID, f"samples[{k}]: sample_id must be a non-empty string",
                   loc("sample_id"))
    concentration = None
    if s["concentration_value"] is not None:
        unit, label = ("unknown", None) if s["concentration_unit"] is None \
            else parse_unit(s["concentration_unit"])
        concentration = _finite_quantity(s["concentration_value"], unit, loc("concentration_value"),
                                         f"samples[{k}] concentration_value", col, label=label)
    return {
        "sample_id": s["sample_id"],
        "description": s["description"],
        "buffer_description": s["buffer_description"],
        "concentration": concentration,
        "density": _finite_quantity(s["density"], "unknown", loc("density"),
                                    f"samples[{k}] density", col),
        "viscosity": _finite_quantity(s["viscosity"], "unknown", loc("viscosity"),
                                      f"samples[{k}] viscosity", col),
        "partial_specific_volume": _finite_quantity(
            s["partial_specific_volume"], "unknown", loc("partial_specific_volume"),
            f"samples[{k}] partial_specific_volume", col),
        "notes": s["notes"],
    }


def _observations(parsed: ParsedLayout, table_name: str, manifest: Manifest,
                  col: Stages) -> Observations | None:
    """The observation arrays; None (and an error) when there is no scan or an id repeats."""
    ids = parsed.scan_ids
    if not ids:
        where = manifest.loc("columns.scans") if parsed.format_id == WIDE else table_name
        col.report(MODEL_NO_SCANS, "the source holds no scan (observations need at least one)",
                   where)
        return None
    if len(set(ids)) != len(ids):
        seen: dict[str, int] = {}
        for k, sid in enumerate(ids):
            if sid in seen:
                col.report(MODEL_DUPLICATE_SCAN_ID, f"scan id {shown(sid)} is used by more "
                           f"than one scan (scans {seen[sid]} and {k})", parsed.locations[k])
            seen.setdefault(sid, k)
    lengths = parsed.lengths()
    if parsed.always_shared:
        return _shared_axis(parsed, parsed.radius_values, len(ids))
    first = parsed.radius(0)
    if bool((lengths == first.size).all()):
        rows = parsed.radius_values.reshape(len(ids), first.size)
        if bool((rows == first).all()):
            return _shared_axis(parsed, first, len(ids))
    return _per_scan_axes(parsed, lengths)


def _shared_axis(parsed: ParsedLayout, radius_values: np.ndarray, n: int) -> Observations:
    """Shared mode: one radius ``(points,)``; signal ``(scans, points)``; mask all True."""
    radius = np.array(radius_values, dtype=np.float64).reshape(-1)
    signal = np.array(parsed.signal_values, dtype=np.float64).reshape(n, radius.shape[0])
    return "shared", radius, signal, np.ones(signal.shape, dtype=bool)


def _per_scan_axes(parsed: ParsedLayout, lengths: np.ndarray) -> Observations:
    """Per-scan mode: radius and signal ``(scans, width)`` NaN-padded, mask True where real."""
    n = lengths.size
    width = int(lengths.max())
    mask = np.arange(width) < lengths[:, None]
    radius = np.full((n, width), np.nan)
    signal = np.full((n, width), np.nan)
    radius[mask] = parsed.radius_values
    signal[mask] = parsed.signal_values
    return "per_scan", radius, signal, mask


def _coded(values: list[Any]) -> tuple[np.ndarray, list[Any]]:
    """``(codes, distinct)`` of a list of hashable values."""
    index: dict[Any, int] = {}
    codes = np.fromiter((index.setdefault((type(v), v), len(index)) for v in values),
                        dtype=np.int32, count=len(values))
    return codes, [v for _, v in index]


def _text_field(column: ScanColumn | None, default: Any, n: int) -> tuple[np.ndarray, list[Any]]:
    """``(codes, values)`` of a resolved text field: the supplied value, else ``default``;
    raises :class:`_Conflict` where both are given and differ."""
    if column is None:
        return np.zeros(n, dtype=np.int32), [default]
    assert column.codes is not None
    values = list(column.values)
    values[0] = default
    if default is not None:
        used = np.unique(column.codes[column.present]).tolist()
        if any(values[c] != default for c in used):
            raise _Conflict
    return column.codes, values


def _number_field(column: ScanColumn | None, default: Any, n: int, unit: str,
                  non_negative: bool) -> Any:
    """The quantity column of a resolved number field (supplied, else ``default``); raises
    :class:`_Conflict` for a conflict or a value :func:`_finite_quantity` refuses."""
    if default is not None and (type(default) not in (int, float) or not is_finite(default)
                                or (non_negative and default < 0)):
        raise _Conflict
    if column is None:  # every scan has the default (or nothing)
        return coded(np.zeros(n), [None if default is None else quantity(default, unit)])
    values = np.full(n, math.nan if default is None else float(default))
    present = column.present
    assert column.numbers is not None
    supplied = column.numbers[present]
    if default is not None and bool((supplied != default).any()):
        raise _Conflict
    if non_negative and bool((supplied < 0).any()):
        raise _Conflict
    values[present] = supplied
    templated = present | (default is not None)
    return quantities(templated, quantity(0.0, unit), values, np.zeros(n, dtype=np.int32),
                      [None])


class _Conflict(Exception):
    """A scan's value is a finding: the scans are built one by one, which reports it."""


def _fast_scans(parsed: ParsedLayout, manifest: Manifest, source_file: str) -> ScanRecords | None:
    """The scan records of a long table built column by column (equal to :func:`_scan`
    for each scan); None when some scan's record would carry a finding."""
    columns = parsed.columns
    if columns is None or parsed.format_id == WIDE:
        return None
    n, d = len(parsed.scan_ids), manifest.defaults
    try:
        elapsed = columns.get("elapsed_seconds")
        if elapsed is not None:
            assert elapsed.numbers is not None
            if bool((elapsed.numbers[elapsed.present] < 0).any()):
                raise _Conflict
        optical_codes, optical = _text_field(columns.get("optical_system"),
                                             d["optical_system"], n)
        source = columns.get("source_scan_id")
        fields = {
            "scan_id": coded(np.arange(n), list(parsed.scan_ids)),
            "index": integers(np.arange(n)),
            "elapsed_time": quantities(
                np.zeros(n, dtype=bool) if elapsed is None else elapsed.present,
                quantity(0.0, "s"),
                np.zeros(n) if elapsed is None or elapsed.numbers is None else elapsed.numbers,
                np.zeros(n, dtype=np.int32), [missing_quantity()]),
            "acquired_at": coded(*_text_field(columns.get("acquisition_timestamp"), None, n)),
            "cell": coded(*_text_field(columns.get("cell"), d["cell"], n)),
            "channel": coded(*_text_field(columns.get("channel"), d["channel"], n)),
            "wavelength": _number_field(columns.get("wavelength_nm"), d["wavelength_nm"], n,
                                        "nm", True),
            "optical_system": coded(optical_codes,
                                    [v if v is not None else "unknown" for v in optical]),
            "rotor_speed": _number_field(columns.get("rotor_speed_rpm"),
                                         d["rotor_speed_rpm"], n, "rpm", True),
            "temperature": _number_field(columns.get("temperature_c"), d["temperature_c"],
                                         n, "degC", False),
            "source_file": coded(np.zeros(n), [source_file]),
            "annotations": coded(*_annotations(source, n)),
        }
    except _Conflict:
        return None
    return ScanRecords.from_columns(n, fields)


def _annotations(source: ScanColumn | None, n: int) -> tuple[np.ndarray, list[Any]]:
    """``annotations`` of each scan: ``["source_scan_id=<id>"]`` where supplied, else []."""
    if source is None:
        return np.zeros(n, dtype=np.int32), [[]]
    assert source.codes is not None
    return source.codes, [[]] + [[f"source_scan_id={v}"] if v else []
                                 for v in source.values[1:]]


def build_experiment(parsed: ParsedLayout, manifest: Manifest, table_name: str,
                     col: Stages) -> AucExperiment | None:
    """The canonical experiment (no provenance yet); None when an error was recorded."""
    signal_unit = _signal_unit(parsed, manifest, table_name, col)
    scans = _fast_scans(parsed, manifest, table_name) or ScanRecords.of(
        _scan(si, i, manifest, table_name, col) for i, si in enumerate(parsed.inputs))
    parsed.columns = None  # (read: no longer needed)
    obs = _observations(parsed, table_name, manifest, col)
    metadata = _metadata(manifest, col)
    instrument = _instrument(manifest, col)
    samples = [_sample(s, k, manifest, col) for k, s in enumerate(manifest.samples)]
    if col.has_errors or obs is None:
        return None
    mode, radius, signal, mask = obs
    return AucExperiment(
        metadata=metadata,
        instrument=instrument,
        samples=samples,
        scans=scans,
        provenance=None,
        mode=mode,
        radius_unit="cm",
        signal_unit=signal_unit,
        scan_ids=list(parsed.scan_ids),
        radius=radius,
        signal=signal,
        mask=mask,
    )


def assumptions(parsed: ParsedLayout, exp: AucExperiment) -> list[str]:
    """The parser's assumption strings, worded as the reference records them."""
    return [
        f"radius column {parsed.radius_column!r} interpreted as centimetres",
        f"signal unit resolved to {exp.signal_unit!r}",
        f"radius axis: {exp.mode}",
    ]
