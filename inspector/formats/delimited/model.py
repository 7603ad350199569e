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

from typing import Any

import numpy as np

from inspector.formats.auc_model import AucExperiment
from inspector.formats.delimited.errors import Collector
from inspector.formats.delimited.layouts import ParsedLayout, ScanInputs
from inspector.formats.delimited.manifest import Manifest
from inspector.formats.delimited.values import (
    is_finite,
    missing_quantity,
    parse_unit,
    quantity,
)

RULE = "[generic-delimited: rules; manifest-v1: defaults and conflicts]"
RULE_MODEL = "[canonical model: quantities and identifiers]"


def _finite_quantity(value: float | None, unit: str, where: str, what: str, col: Collector,
                     non_negative: bool = False, label: str | None = None) -> dict[str, Any] | None:
    if value is None:
        return None
    if not is_finite(value):
        col.error("value", "model.non-finite",
                  f"{what} must be finite, got {value} {RULE_MODEL}", where)
        return None
    if non_negative and value < 0:
        col.error("value", "model.negative",
                  f"{what} must be non-negative, got {value} {RULE_MODEL}", where)
        return None
    return quantity(value, unit, label)


def _resolve(si: ScanInputs, key: str, default: Any, manifest: Manifest, col: Collector,
             shown: str | None = None) -> Any:
    supplied = getattr(si, key)
    if supplied is not None and default is not None and supplied != default:
        name = shown or key
        sv = f"{supplied!r}" if isinstance(supplied, str) else f"{supplied}"
        dv = f"{default!r}" if isinstance(default, str) else f"{default}"
        col.error("conflict", "source.default-conflict",
                  f"scan {si.scan_id!r}: {name} is {sv} in the data ({si.origin.get(key, si.location)})"
                  f" but {dv} in the manifest defaults {RULE}", manifest.loc(f"defaults.{key}"))
        return None
    return supplied if supplied is not None else default


def _scan(si: ScanInputs, index: int, manifest: Manifest, source_file: str,
          col: Collector) -> dict[str, Any]:
    d = manifest.defaults
    where = si.location
    if not si.scan_id.strip():
        col.error("value", "model.empty-scan-id",
                  f"scan {index}: scan_id must be a non-empty string {RULE_MODEL}", where)
    elapsed = missing_quantity() if si.elapsed_seconds is None else _finite_quantity(
        si.elapsed_seconds, "s", si.origin.get("elapsed_seconds", where),
        f"scan {si.scan_id!r}: elapsed_seconds", col, non_negative=True)
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
                                       f"scan {si.scan_id!r}: wavelength_nm", col, True),
        "optical_system": optical if optical is not None else "unknown",
        "rotor_speed": _finite_quantity(rotor, "rpm", origin("rotor_speed_rpm"),
                                        f"scan {si.scan_id!r}: rotor_speed_rpm", col, True),
        "temperature": _finite_quantity(temperature, "degC", origin("temperature_c"),
                                        f"scan {si.scan_id!r}: temperature_c", col),
        "source_file": source_file,
        "annotations": [f"source_scan_id={si.source_scan_id}"] if si.source_scan_id else [],
    }


def _signal_unit(parsed: ParsedLayout, manifest: Manifest, table_name: str,
                 col: Collector) -> str:
    units = parsed.signal_units
    default = manifest.defaults["signal_unit"]
    if len(units) > 1:
        col.error("conflict", "source.signal-unit-conflict",
                  f"{table_name}: more than one signal_unit in one file: {sorted(units)} "
                  f"(one signal unit per file) {RULE}", f"{table_name}:signal_unit")
        return "unknown"
    table_unit = next(iter(units), None)
    if table_unit is not None and default is not None and table_unit != default:
        col.error("conflict", "source.default-conflict",
                  f"{table_name}: signal_unit is {table_unit!r} in the data ({units[table_unit]}) "
                  f"but {default!r} in the manifest defaults {RULE}",
                  manifest.loc("defaults.signal_unit"))
        return "unknown"
    chosen = table_unit if table_unit is not None else default
    return "unknown" if chosen is None else parse_unit(chosen)[0]


def _metadata(manifest: Manifest, col: Collector) -> dict[str, Any]:
    me = manifest.experiment
    if not me["experiment_id"].strip():
        col.error("value", "model.empty-experiment-id",
                  f"experiment_id must be a non-empty string {RULE_MODEL}",
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


def _instrument(manifest: Manifest, col: Collector) -> dict[str, Any] | None:
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
        "temperature": _finite_quantity(mi["temperature_c"], "degC", loc("instrument.temperature_c"),
                                        "instrument temperature_c", col),
        "cell": mi["cell"],
        "channel": mi["channel"],
        "centrepiece": mi["centrepiece"],
        "optical_system": mi["optical_system"] or "unknown",
        "wavelength": _finite_quantity(mi["wavelength_nm"], "nm", loc("instrument.wavelength_nm"),
                                       "instrument wavelength_nm", col, True),
    }


def _sample(s: dict[str, Any], k: int, manifest: Manifest, col: Collector) -> dict[str, Any]:
    def loc(key: str) -> str:
        return manifest.loc(f"samples[{k}].{key}")

    if not s["sample_id"].strip():
        col.error("value", "model.empty-sample-id",
                  f"samples[{k}]: sample_id must be a non-empty string {RULE_MODEL}", loc("sample_id"))
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
                  col: Collector) -> tuple[str, np.ndarray, np.ndarray, np.ndarray] | None:
    ids = parsed.scan_ids
    if not ids:
        where = manifest.loc("columns.scans") if parsed.format_id == "generic-wide" else table_name
        col.error("value", "model.no-scans", f"{table_name}: the source holds no scan "
                  f"(observations need at least one) {RULE_MODEL}", where)
        return None
    seen: dict[str, int] = {}
    for k, sid in enumerate(ids):
        if sid in seen:
            col.error("value", "model.duplicate-scan-id",
                      f"scan id {sid!r} is used by more than one scan (scans {seen[sid]} and {k}) "
                      f"{RULE_MODEL}", parsed.inputs[k].location)
        seen.setdefault(sid, k)
    first = parsed.radii[0]
    shared = parsed.always_shared or all(r == first for r in parsed.radii)
    n = len(ids)
    if shared:
        radius = np.asarray(first, dtype=np.float64).reshape(-1)
        signal = np.asarray(parsed.signals, dtype=np.float64).reshape(n, radius.shape[0])
        mask = np.ones(signal.shape, dtype=bool)
        return "shared", radius, signal, mask
    width = max(len(r) for r in parsed.radii)
    radius = np.full((n, width), np.nan)
    signal = np.full((n, width), np.nan)
    mask = np.zeros((n, width), dtype=bool)
    for i, (r, s) in enumerate(zip(parsed.radii, parsed.signals, strict=True)):
        radius[i, : len(r)] = r
        signal[i, : len(s)] = s
        mask[i, : len(r)] = True
    return "per_scan", radius, signal, mask


def build_experiment(parsed: ParsedLayout, manifest: Manifest, table_name: str,
                     col: Collector) -> AucExperiment | None:
    """The canonical experiment (no provenance yet); None when an error was recorded."""
    signal_unit = _signal_unit(parsed, manifest, table_name, col)
    scans = [_scan(si, i, manifest, table_name, col) for i, si in enumerate(parsed.inputs)]
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
