"""The facts the structural checks and the summary read, gathered in one pass.

:func:`gather` walks the description dicts of an
:class:`~inspector.formats.auc.model.AucExperiment` once (scans, samples,
instrument, provenance) into numpy columns and reads the observation arrays
already in memory once (points per scan, valid radius values, per-scan
radius rows with padding moved to the end).  Nothing is read from disk.
The array facts are per-row reductions (:class:`ObservationFacts`), so a
reader that cannot hold the arrays folds them block by block
(:class:`ObservationFold`) and gathers with :func:`gather_parts`.

Quantities follow the reference ``to_dict()`` form (``openauc==0.1.0a1``
``Quantity``): ``{"value", "unit", "unit_label", "status", "provenance"}``
with ``status`` one of ``present``, ``missing``, ``unknown``,
``not_applicable``; a field that is ``None`` is *absent*, a fifth state
(openauc 0.1.0a1 docs/how-to/missing-and-unknown-metadata.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from inspector.formats.auc.model import AucExperiment
from inspector.formats.auc.scan_records import ScanRecords

__all__ = ["ABSENT", "PRESENT", "QUANTITY_STATUSES", "SAMPLE_QUANTITIES", "SCAN_QUANTITIES",
           "Facts", "ObservationFacts", "ObservationFold", "Quantities", "RadiusStats",
           "gather", "gather_parts", "observation_facts", "quantity_present",
           "quantity_problem", "radius_rows"]

PRESENT = "present"
ABSENT = "absent"
"""Status of a quantity field that is ``None`` (not a reference status)."""

SCAN_QUANTITIES = ("elapsed_time", "wavelength", "rotor_speed", "temperature")
SAMPLE_QUANTITIES = ("concentration", "density", "viscosity", "partial_specific_volume")


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    """A finite float, or None (bools are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def quantity_present(quantity: Any) -> bool:
    """True when ``quantity`` carries a real value (status ``present``)."""
    return (isinstance(quantity, dict) and quantity.get("status", PRESENT) == PRESENT
            and _number(quantity.get("value")) is not None)


@dataclass(frozen=True)
class Quantities:
    """One quantity field across records.

    Attributes:
        status: object array of str, one per record: a reference status or ``"absent"``.
        value: float64, the value where present, NaN elsewhere.
        unit: object array of str, the declared unit where present, ``""`` elsewhere.
    """

    status: np.ndarray
    value: np.ndarray
    unit: np.ndarray

    @property
    def present(self) -> np.ndarray:
        """bool, one per record: a real value is carried."""
        return ~np.isnan(self.value)

    @classmethod
    def of(cls, records: Sequence[dict[str, Any]], field: str) -> Quantities:
        """Field ``field`` of every record (a dict): one pass, then vectorised."""
        status: list[str] = []
        value: list[float] = []
        unit: list[str] = []
        for record in records:
            q = record.get(field)
            if not isinstance(q, dict):
                status.append(ABSENT)
                value.append(math.nan)
                unit.append("")
                continue
            state = _as_text(q.get("status", PRESENT))
            v = q.get("value")
            status.append(state)
            if state == PRESENT and isinstance(v, float | int) and not isinstance(v, bool):
                value.append(v)
                unit.append(_as_text(q.get("unit", "unknown")))
            else:
                value.append(math.nan)
                unit.append("")
        return cls._finish(np.array(status, dtype=object), np.array(value, dtype=np.float64),
                           np.array(unit, dtype=object))

    @classmethod
    def _finish(cls, status: np.ndarray, values: np.ndarray, units: np.ndarray) -> Quantities:
        bad = ~np.isfinite(values)
        if bad.any():  # an infinite "present" value is no value
            values, units = np.array(values), np.array(units)  # (writable copies)
            values[bad] = math.nan
            units[bad] = ""
        return cls(status, values, units)

    @classmethod
    def of_columns(cls, records: ScanRecords, field: str) -> Quantities:
        """:meth:`of` for records held as columns, equal to it, without a record built:
        each distinct quantity dict is read once and its facts spread by index."""
        col = records.quantity(field)
        status = [ABSENT]
        unit = [""]
        value: list[Any] = [math.nan]
        per_record = [False]
        for q, by_record in zip(col.dicts, col.templated, strict=True):
            state = _as_text(q.get("status", PRESENT))
            v = q.get("value")
            status.append(state)
            real = state == PRESENT and (by_record or (
                isinstance(v, float | int) and not isinstance(v, bool)))
            unit.append(_as_text(q.get("unit", "unknown")) if real else "")
            value.append(math.nan if not real or by_record else v)
            per_record.append(real and by_record)
        pick = (col.kinds + 1).astype(np.intp)
        templated = np.array(per_record, dtype=bool)
        table = np.array(value, dtype=np.float64)
        bad = ~np.isfinite(table) & ~templated  # an infinite "present" value is no value
        table[bad] = math.nan
        unit = ["" if gone else u for u, gone in zip(unit, bad.tolist(), strict=True)]
        status_of = np.empty(len(status), dtype=object)
        status_of[:] = status
        unit_of = np.empty(len(unit), dtype=object)
        unit_of[:] = unit
        from_record = templated[pick]
        values = _take(table, pick)
        units = _take(unit_of, pick)
        if from_record.any():
            values = np.array(values)
            values[from_record] = col.values[from_record]
            lost = from_record & ~np.isfinite(values)
            if lost.any():
                values[lost] = math.nan
                units = np.array(units)
                units[lost] = ""
        return cls(_take(status_of, pick), values, units)


#: The statuses of a reference ``Quantity`` (openauc 0.1.0a1
#: docs/how-to/missing-and-unknown-metadata.md).
QUANTITY_STATUSES = frozenset({PRESENT, "missing", "unknown", "not_applicable"})


def quantity_problem(quantity: Any) -> str | None:
    """What makes ``quantity`` (a field of a scan or sample record) other than a
    reference ``Quantity`` dict or None: a status that is not one of
    :data:`QUANTITY_STATUSES`, or a unit that is not text; None when it is fine
    (a field that is not a dict at all is absent, not malformed)."""
    if not isinstance(quantity, dict):
        return None
    status = quantity.get("status", PRESENT)
    if not isinstance(status, str) or status not in QUANTITY_STATUSES:
        return (f"status {json.dumps(status, default=str)[:60]} is not one of "
                f"{', '.join(sorted(QUANTITY_STATUSES))}")
    unit = quantity.get("unit")
    if unit is not None and not isinstance(unit, str):
        return f"unit {_as_text(unit)[:60]} is not text"
    return None


def _as_text(value: Any) -> str:
    """A status or unit as text: one that is not a string (a hand-edited or damaged
    file: a list, an object) is its JSON text, never a reference status."""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _text(record: dict[str, Any], field: str) -> str | None:
    value = record.get(field)
    return None if value is None else str(value)


@dataclass(frozen=True)
class Facts:
    """Everything the checks and the summary need, read once.

    Scan columns (one entry per ``experiment.scans`` record, in order):
    ``scan_ids``, ``systems`` (object array of str: optical systems, ``"unknown"`` when
    unstated), ``cells`` and ``channels`` (text or None), ``scan_q`` (one
    :class:`Quantities` per scan quantity field).

    Sample columns: ``sample_ids``, ``buffers`` (text or None), ``sample_q``.

    Observations: ``obs_ids`` (``scan_ids`` of the observations), ``n_obs``
    (rows of the signal array), ``mode``,
    ``signal_unit``, ``radius_unit`` and the array facts of
    :class:`ObservationFacts` (``points``, ``radius``, ``rising``,
    ``falling``, ``level``, ``repeats``; see there).
    """

    metadata: Mapping[str, Any]
    instrument: Mapping[str, Any] | None
    provenance: Mapping[str, Any] | None
    scan_ids: tuple[str, ...]
    systems: np.ndarray
    cells: tuple[str | None, ...]
    channels: tuple[str | None, ...]
    scan_q: dict[str, Quantities]
    sample_ids: tuple[str, ...]
    buffers: tuple[str | None, ...]
    sample_q: dict[str, Quantities]
    obs_ids: tuple[str, ...]
    n_obs: int
    mode: str
    signal_unit: str
    radius_unit: str
    points: np.ndarray
    radius: RadiusStats
    rising: np.ndarray
    falling: np.ndarray
    level: np.ndarray
    repeats: np.ndarray

    @property
    def n_scans(self) -> int:
        """Scan records (``experiment.scans``)."""
        return len(self.scan_ids)

    @property
    def shared(self) -> bool:
        return self.mode == "shared"

    def instrument_present(self, field: str) -> bool:
        """The instrument carries a real value of quantity ``field``."""
        return self.instrument is not None and quantity_present(self.instrument.get(field))


@dataclass(frozen=True)
class RadiusStats:
    """Reductions over the real radial positions (finite values only: the
    reference model holds no other kind, so a non-finite radius is the
    integrity checks' business).

    Attributes:
        minimum, maximum: the observed range, None without any position.
        nonpositive: how many positions are zero or negative.
    """

    minimum: float | None
    maximum: float | None
    nonpositive: int

    @classmethod
    def of(cls, rows: np.ndarray) -> RadiusStats:
        """Over ``rows`` (NaN where no real position is)."""
        if not rows.size:
            return cls(None, None, 0)
        low = float(np.fmin.reduce(rows, axis=None))
        high = float(np.fmax.reduce(rows, axis=None))
        if not math.isfinite(low) or not math.isfinite(high):  # no finite position
            finite = rows[np.isfinite(rows)]
            if not finite.size:
                return cls(None, None, 0)
            low, high = float(finite.min()), float(finite.max())
        return cls(low, high, int(np.count_nonzero(rows <= 0)))

    @classmethod
    def combine(cls, parts: Sequence[RadiusStats]) -> RadiusStats:
        """The stats of several row blocks taken together (equal to :meth:`of`
        over the blocks stacked)."""
        lows = [p.minimum for p in parts if p.minimum is not None]
        highs = [p.maximum for p in parts if p.maximum is not None]
        return cls(min(lows) if lows else None, max(highs) if highs else None,
                   sum(p.nonpositive for p in parts))


@dataclass(frozen=True)
class ObservationFacts:
    """The array facts of :class:`Facts`: per-row reductions of the radius and mask.

    Attributes:
        points: int64 ``(n_obs,)``: real observations per row (the axis width
            in shared mode).
        radius: :class:`RadiusStats` over every real radial position.
        rising, falling, level: bool per radius row (one row, the shared axis,
            in shared mode; one per observation row in per-scan mode): some
            step between consecutive real points goes up / down / is zero.
        repeats: bool per radius row: a real radial position occurs twice.
    """

    points: np.ndarray
    radius: RadiusStats
    rising: np.ndarray
    falling: np.ndarray
    level: np.ndarray
    repeats: np.ndarray


def radius_rows(radius: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(points, rows)`` of a block of per-scan rows.

    Args:
        radius: ``(k, width)`` radial positions, any float dtype.
        mask: bool ``(k, width)``, True where a real observation is.

    Returns:
        int64 ``(k,)`` real points per row, and float64 ``(k, width)`` rows
        with the real positions first (in their order) and NaN after.
    """
    rows = np.where(mask, np.asarray(radius, dtype=np.float64), np.nan)
    if mask.shape[1] > 1 and bool((mask[:, 1:] > mask[:, :-1]).any()):
        # A hole before a real point: move real points first, keeping their order.
        order = np.argsort(~mask, axis=1, kind="stable")
        rows = np.take_along_axis(rows, order, axis=1)
    return np.count_nonzero(mask, axis=1).astype(np.int64), rows


def _steps(rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(rising, falling, level, repeats)``: bool per row over its real points.

    Real points are consecutive and finite, padding NaN: a step touching
    padding is NaN and compares false, so no mask is needed.  A row that never
    changes direction repeats a value only in a zero step; only rows that
    change direction are sorted (padding is NaN, never equal).
    """
    if rows.shape[1] < 2:
        none = np.zeros(rows.shape[0], dtype=bool)
        return none, none, none, none
    step = np.diff(rows, axis=1)
    rising = np.asarray((step > 0).any(axis=1), dtype=bool)
    falling = np.asarray((step < 0).any(axis=1), dtype=bool)
    level = np.asarray((step == 0).any(axis=1), dtype=bool)
    repeats = level.copy()
    turning = np.flatnonzero(rising & falling & ~level)
    if turning.size:
        ordered = np.sort(rows[turning], axis=1)
        repeats[turning] = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    return rising, falling, level, repeats


class ObservationFold:
    """Fold row blocks into :class:`ObservationFacts`, never holding more than a block.

    Feed the radius rows in order (:meth:`add`), then :meth:`finish`.  Every
    fact is a per-row reduction, so the result does not depend on how the
    rows were cut into blocks.
    """

    def __init__(self) -> None:
        self._points: list[np.ndarray] = []
        self._stats: list[RadiusStats] = []
        self._flags: list[tuple[np.ndarray, ...]] = []

    def add(self, rows: np.ndarray, points: np.ndarray | None = None) -> None:
        """Take float64 rows (real points first, NaN after; :func:`radius_rows`)
        and their real-point counts (None: counted by the caller elsewhere)."""
        if points is not None:
            self._points.append(points)
        self._stats.append(RadiusStats.of(rows))
        self._flags.append(_steps(rows))

    def finish(self, points: np.ndarray | None = None) -> ObservationFacts:
        """The facts of every row added (``points`` overrides the counted ones)."""
        if points is None:
            points = (np.concatenate(self._points) if self._points
                      else np.zeros(0, dtype=np.int64))
        flags = [np.concatenate([f[k] for f in self._flags]) if self._flags
                 else np.zeros(0, dtype=bool) for k in range(4)]
        return ObservationFacts(points, RadiusStats.combine(self._stats), *flags)


def observation_facts(mode: str, radius: np.ndarray, mask: np.ndarray,
                      n_obs: int) -> ObservationFacts:
    """The array facts of arrays in memory (see :class:`ObservationFacts`).

    Args:
        mode: ``"shared"`` (``radius`` is the axis, ``(width,)``; the mask is
            not read) or ``"per_scan"`` (``radius`` and bool ``mask``
            ``(n_obs, width)``).
        n_obs: rows of the signal array.

    Arrays of other shapes give no points and no rows (the integrity checks
    report them).
    """
    fold = ObservationFold()
    if mode == "shared":
        axis = np.asarray(radius, dtype=np.float64).reshape(1, -1)
        fold.add(axis)
        return fold.finish(np.full(n_obs, axis.shape[1], dtype=np.int64))
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2 or mask.shape[0] != n_obs or np.shape(radius) != mask.shape:
        fold.add(np.zeros((n_obs, 0)))
        return fold.finish(np.zeros(n_obs, dtype=np.int64))
    points, rows = radius_rows(radius, mask)
    fold.add(rows, points)
    return fold.finish()


def gather_parts(*, metadata: Any, instrument: Any, provenance: Any, scans: Sequence[Any],
                 samples: Sequence[Any], scan_ids: Sequence[Any], mode: str,
                 signal_unit: str, radius_unit: str, n_obs: int,
                 observations: ObservationFacts) -> Facts:
    """The facts of an experiment given by its description and its array facts.

    Description entries that are not objects count as empty records, so a
    malformed description never raises here; such inputs are the integrity
    checks' business.
    """
    sample_records = [_as_dict(s) for s in samples]
    return Facts(
        metadata=_as_dict(metadata),
        instrument=instrument if isinstance(instrument, dict) else None,
        provenance=provenance if isinstance(provenance, dict) else None,
        **_scan_facts(scans),
        sample_ids=tuple(str(s.get("sample_id", "")) for s in sample_records),
        buffers=tuple(_text(s, "buffer_description") for s in sample_records),
        sample_q={f: Quantities.of(sample_records, f) for f in SAMPLE_QUANTITIES},
        obs_ids=tuple(str(s) for s in scan_ids),
        n_obs=n_obs,
        mode=str(mode),
        signal_unit=str(signal_unit),
        radius_unit=str(radius_unit),
        points=observations.points,
        radius=observations.radius,
        rising=observations.rising,
        falling=observations.falling,
        level=observations.level,
        repeats=observations.repeats,
    )


def _scan_facts(scans: Sequence[Any]) -> dict[str, Any]:
    """``scan_ids``, ``systems``, ``cells``, ``channels`` and ``scan_q`` of the records
    (read from the columns of :class:`ScanRecords`, the same values)."""
    if isinstance(scans, ScanRecords):
        return _column_facts(scans)
    records = [_as_dict(s) for s in scans]
    systems = np.empty(len(records), dtype=object)
    systems[:] = [str(s.get("optical_system") or "unknown") for s in records]
    return {"scan_ids": tuple(str(s.get("scan_id", "")) for s in records),
            "systems": systems,
            "cells": tuple(_text(s, "cell") for s in records),
            "channels": tuple(_text(s, "channel") for s in records),
            "scan_q": {f: Quantities.of(records, f) for f in SCAN_QUANTITIES}}


def _take(table: np.ndarray, pick: np.ndarray) -> np.ndarray:
    """``table[pick]``; read-only and without a copy when ``pick`` is one value
    repeated (a field every record has the same)."""
    if pick.size and bool((pick == pick[0]).all()):
        return np.broadcast_to(table[pick[:1]], pick.shape)
    return table[pick]


def _spread(records: ScanRecords, field: str, default: Any, text: Any) -> np.ndarray:
    """Object array: ``text(value)`` of field ``field`` per record, each distinct value
    converted once."""
    codes, values = records.text(field, default)
    out = np.empty(len(values), dtype=object)
    out[:] = [text(v) for v in values]
    return _take(out, codes)


def _column_facts(records: ScanRecords) -> dict[str, Any]:
    def as_text(v: Any) -> str | None:
        return None if v is None else str(v)

    return {"scan_ids": tuple(_spread(records, "scan_id", "", str).tolist()),
            "systems": _spread(records, "optical_system", None,
                               lambda v: str(v or "unknown")),
            "cells": tuple(_spread(records, "cell", None, as_text).tolist()),
            "channels": tuple(_spread(records, "channel", None, as_text).tolist()),
            "scan_q": {f: Quantities.of_columns(records, f) for f in SCAN_QUANTITIES}}


def gather(exp: AucExperiment) -> Facts:
    """Read the facts of ``exp`` once (nothing from disk; see :func:`gather_parts`)."""
    return gather_parts(
        metadata=exp.metadata, instrument=exp.instrument, provenance=exp.provenance,
        scans=exp.scans, samples=exp.samples, scan_ids=exp.scan_ids, mode=exp.mode,
        signal_unit=exp.signal_unit, radius_unit=exp.radius_unit, n_obs=exp.n_scans,
        observations=observation_facts(exp.mode, exp.radius, exp.mask, exp.n_scans))
