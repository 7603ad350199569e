"""Build the shared :class:`AucExperiment` and display tables from archive parts.

The arrays are normalised the way the reference model stores them (spec
README, "Re-exporting a loaded archive normalises it"): float64 radius and
signal; per-scan rows compacted to the left (real points first, NaN padding
after, width = longest scan); shared mode carries an all-true mask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from inspector.formats.auc.model import AucExperiment
from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.table import Table, plain_columns_of, table_of_rows


def normalise_arrays(mode: str, radius: np.ndarray, signal: np.ndarray,
                     mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(radius, signal, mask)`` in the reference model's stored form.

    Args:
        mode: ``"shared"`` or ``"per_scan"``.
        radius: ``(points,)`` shared or ``(scans, points)`` per-scan, floating.
        signal: ``(scans, points)`` floating.
        mask: bool ``(scans, points)``.

    Returns float64 radius/signal and a bool mask; per-scan rows compacted
    left with NaN padding, width the longest row's real-point count.
    """
    signal = np.asarray(signal, dtype=np.float64)
    radius = np.asarray(radius, dtype=np.float64)
    mask = np.asarray(mask, dtype=bool)
    if mode == "shared":
        return radius, signal, np.ones(signal.shape, dtype=bool)
    counts = mask.sum(axis=1) if mask.ndim == 2 else np.zeros(0, int)
    width = int(counts.max()) if counts.size else 0
    n = signal.shape[0]
    r = np.full((n, width), np.nan)
    s = np.full((n, width), np.nan)
    m = np.zeros((n, width), dtype=bool)
    for i in range(n):
        k = int(counts[i])
        r[i, :k] = radius[i][mask[i]]
        s[i, :k] = signal[i][mask[i]]
        m[i, :k] = True
    return r, s, m


def build_experiment(experiment: dict[str, Any], provenance: dict[str, Any] | None,
                     observations: dict[str, Any], radius: np.ndarray, signal: np.ndarray,
                     mask: np.ndarray) -> AucExperiment:
    """An :class:`AucExperiment` from parsed ``experiment.json``, the import
    provenance (``provenance.json`` ``import``), the manifest ``observations``
    block and the three arrays (normalised with :func:`normalise_arrays`).
    """
    mode = str(observations["mode"])
    r, s, m = normalise_arrays(mode, radius, signal, mask)
    return AucExperiment(
        metadata=experiment.get("metadata") or {},
        instrument=experiment.get("instrument"),
        samples=list(experiment.get("samples") or []),
        scans=scan_records(experiment.get("scans")),
        provenance=provenance,
        mode=mode,
        radius_unit=str(observations["radius_unit"]),
        signal_unit=str(observations["signal_unit"]),
        scan_ids=[str(x) for x in observations["scan_ids"]],
        radius=r,
        signal=s,
        mask=m,
    )


def scan_records(scans: Any) -> Sequence[dict[str, Any]]:
    """``experiment.json`` ``scans`` as the experiment's scan records: a
    :class:`~inspector.formats.auc.scan_records.ScanRecords` (kept as it is when it is
    one) when every record is an object, else a list (``[]`` for a missing or empty
    value)."""
    if isinstance(scans, ScanRecords):
        return scans
    items = list(scans or [])
    if items and all(type(s) is dict for s in items):
        return ScanRecords.of(items)
    return items


def _is_quantity(v: Any) -> bool:
    return isinstance(v, dict) and "status" in v and "value" in v and "unit" in v


def scans_table(scans: Sequence[Any]) -> Table:
    """The scans table: one row per scan of ``experiment.json`` ``scans`` (:func:`scan_rows`);
    plain columns when they are (:func:`~inspector.formats.table.table_of_rows`).  Scans
    held as :class:`~inspector.formats.auc.scan_records.ScanRecords` are turned into rows
    one at a time, straight into the columns (no list of row dicts: a million scans)."""
    if isinstance(scans, ScanRecords) and len(scans):
        table = _columns_of_records(scans)
        if table is not None:
            return table
    return table_of_rows(scan_rows(scans))


def _columns_of_records(scans: ScanRecords) -> Table | None:
    """:func:`scans_table` of ``scans`` as plain columns, or None when the rows differ
    in their keys or a column is not plain (then the rows are built as a frame)."""
    keys: list[str] | None = None
    values: list[list[Any]] = []
    for scan in scans:
        row = scan_rows([scan])[0]
        if keys is None:
            keys = list(row)
            if any(type(k) is not str for k in keys):
                return None
            values = [[] for _ in keys]
        elif len(row) != len(keys) or list(row) != keys:
            return None
        for column, key in zip(values, keys, strict=True):
            column.append(row[key])
    columns = plain_columns_of(keys or [], values)
    return Table.of_columns(columns, range(len(scans))) if columns else None


def scan_rows(scans: Sequence[Any]) -> list[dict[str, Any]]:
    """One row per scan of ``experiment.json`` ``scans``.

    Scalar fields become columns as stored; a quantity field ``q``
    (``{value, unit, status, ...}``) becomes ``q`` (value), ``q_unit`` and
    ``q_status``; lists are joined with ``"; "``; other objects are shown as
    their JSON-like text.  Units are never converted.
    """
    rows: list[dict[str, Any]] = []
    for scan in scans:
        row: dict[str, Any] = {}
        if not isinstance(scan, dict):
            rows.append({"scan_id": str(scan)})
            continue
        for key in ("scan_id", "index"):
            if key in scan:
                row[key] = scan[key]
        for key, value in scan.items():
            if key in ("scan_id", "index"):
                continue
            if _is_quantity(value):
                row[key] = value.get("value")
                row[f"{key}_unit"] = value.get("unit_label") or value.get("unit")
                row[f"{key}_status"] = value.get("status")
            elif isinstance(value, list):
                row[key] = "; ".join(str(v) for v in value)
            elif isinstance(value, dict):
                row[key] = str(value)
            else:
                row[key] = value
        rows.append(row)
    return rows
