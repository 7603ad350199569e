"""The facts the structural checks and the summary read, gathered in one pass.

:func:`gather` walks the description dicts of an
:class:`~inspector.formats.auc_model.AucExperiment` once (scans, samples,
instrument, provenance) into numpy columns and reads the observation arrays
already in memory once (points per scan, valid radius values, per-scan
radius rows with padding moved to the end).  Nothing is read from disk.

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

from inspector.formats.auc_model import AucExperiment

__all__ = ["ABSENT", "PRESENT", "QUANTITY_STATUSES", "SAMPLE_QUANTITIES", "SCAN_QUANTITIES",
           "Facts", "Quantities", "RadiusStats", "gather", "quantity_present", "quantity_problem"]

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
        status: ``<U`` array, one per record: a reference status or ``"absent"``.
        value: float64, the value where present, NaN elsewhere.
        unit: ``<U`` array, the declared unit where present, ``""`` elsewhere.
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
        values = np.array(value, dtype=np.float64)
        units = np.array(unit, dtype=str)
        bad = ~np.isfinite(values)
        if bad.any():  # an infinite "present" value is no value
            values[bad] = math.nan
            units[bad] = ""
        return cls(np.array(status, dtype=str), values, units)


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
    ``scan_ids``, ``systems`` (``<U`` optical systems, ``"unknown"`` when
    unstated), ``cells`` and ``channels`` (text or None), ``scan_q`` (one
    :class:`Quantities` per scan quantity field).

    Sample columns: ``sample_ids``, ``buffers`` (text or None), ``sample_q``.

    Observations: ``obs_ids`` (``scan_ids`` of the observations), ``n_obs``
    (rows of the signal array), ``mode``,
    ``signal_unit``, ``radius_unit``, ``points`` (int64 ``(n_obs,)``: real
    observations per row; the axis width in shared mode), ``rows`` (float64
    ``(n_obs, width)``: per-scan radius rows with real points first and NaN
    after; the shared axis as one row in shared mode, even without scans),
    ``radius`` (:class:`RadiusStats` over every real radius of ``rows``),
    ``rising``/``falling``/``level`` (bool per row of ``rows``: some step
    between consecutive real points goes up / down / is zero).
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
    rows: np.ndarray
    radius: RadiusStats
    rising: np.ndarray
    falling: np.ndarray
    level: np.ndarray

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


def _observation_arrays(exp: AucExperiment, n_obs: int) -> tuple[np.ndarray, np.ndarray]:
    """``(points, rows)`` from the arrays already in memory (see :class:`Facts`)."""
    radius = np.asarray(exp.radius, dtype=np.float64)
    if exp.mode == "shared":
        axis = radius.reshape(1, -1)
        return np.full(n_obs, axis.shape[1], dtype=np.int64), axis
    mask = np.asarray(exp.mask, dtype=bool)
    if mask.ndim != 2 or mask.shape[0] != n_obs or radius.shape != mask.shape:
        return np.zeros(n_obs, dtype=np.int64), np.zeros((n_obs, 0))
    rows = np.where(mask, radius, np.nan)
    if mask.shape[1] > 1 and bool((mask[:, 1:] > mask[:, :-1]).any()):
        # A hole before a real point: move real points first, keeping their order.
        order = np.argsort(~mask, axis=1, kind="stable")
        rows = np.take_along_axis(rows, order, axis=1)
    return np.count_nonzero(mask, axis=1).astype(np.int64), rows


def _steps(rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(rising, falling, level)``: bool per row over steps between real points.

    Real points are consecutive and finite, padding NaN: a step touching
    padding is NaN and compares false, so no mask is needed.
    """
    if rows.shape[1] < 2:
        none = np.zeros(rows.shape[0], dtype=bool)
        return none, none, none
    step = np.diff(rows, axis=1)
    rising = np.asarray((step > 0).any(axis=1), dtype=bool)
    falling = np.asarray((step < 0).any(axis=1), dtype=bool)
    level = np.asarray((step == 0).any(axis=1), dtype=bool)
    return rising, falling, level


def gather(exp: AucExperiment) -> Facts:
    """Read the facts of ``exp`` once (no array is copied twice, nothing from disk).

    Description entries that are not objects count as empty records, so a
    malformed description never raises here; such inputs are the integrity
    checks' business.
    """
    scans = [_as_dict(s) for s in exp.scans]
    samples = [_as_dict(s) for s in exp.samples]
    points, rows = _observation_arrays(exp, exp.n_scans)
    rising, falling, level = _steps(rows)
    return Facts(
        metadata=_as_dict(exp.metadata),
        instrument=exp.instrument if isinstance(exp.instrument, dict) else None,
        provenance=exp.provenance if isinstance(exp.provenance, dict) else None,
        scan_ids=tuple(str(s.get("scan_id", "")) for s in scans),
        systems=np.array([str(s.get("optical_system") or "unknown") for s in scans], dtype=str),
        cells=tuple(_text(s, "cell") for s in scans),
        channels=tuple(_text(s, "channel") for s in scans),
        scan_q={f: Quantities.of(scans, f) for f in SCAN_QUANTITIES},
        sample_ids=tuple(str(s.get("sample_id", "")) for s in samples),
        buffers=tuple(_text(s, "buffer_description") for s in samples),
        sample_q={f: Quantities.of(samples, f) for f in SAMPLE_QUANTITIES},
        obs_ids=tuple(str(s) for s in exp.scan_ids),
        n_obs=exp.n_scans,
        mode=str(exp.mode),
        signal_unit=str(exp.signal_unit),
        radius_unit=str(exp.radius_unit),
        points=points,
        rows=rows,
        radius=RadiusStats.of(rows),
        rising=rising,
        falling=falling,
        level=level,
    )
