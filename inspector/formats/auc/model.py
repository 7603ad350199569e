"""The in-memory AUC experiment shared by the delimited importer and AUCX.

It mirrors the reference data model's ``to_dict()`` (``openauc==0.1.0a1``;
seed ``002_59993c7ffff01d56.txt``; spec ``aucx-archive.md`` section 1): a
JSON-ready description (metadata, instrument, samples, scans), the import
provenance, and the observations as numpy arrays.  Units are kept as given,
never converted.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class AucExperiment:
    """One AUC experiment.

    Attributes:
        metadata: ``experiment.json`` ``metadata`` object (``experiment_id``
            required; name, description, experiment_type, acquired_at,
            operator, notes).
        instrument: ``instrument`` object or None.
        samples: list of sample objects.
        scans: the scan objects (scan_id, index, elapsed_time, ...), one per
            row of ``signal``: a list, or a :class:`~.scan_records.ScanRecords`
            (the same dicts held as columns; each access builds a fresh dict).
        provenance: the import provenance (parser, source checksums,
            warnings, assumptions...) or None when unknown. Kept apart from
            the export record (seed, "Provenance").
        mode: ``"shared"`` (one radius axis) or ``"per_scan"``.
        radius_unit, signal_unit: unit strings as given (``"cm"``, ``"AU"``...).
        scan_ids: one string per scan, in scan order.
        radius: float64, ``(points,)`` in shared mode, ``(scans, points)``
            NaN-padded in per_scan mode; radius in ``radius_unit``.
        signal: float64 ``(scans, points)``, NaN where padded.
        mask: bool ``(scans, points)``: True where a real observation exists.
    """

    metadata: dict[str, Any]
    instrument: dict[str, Any] | None
    samples: list[dict[str, Any]]
    scans: Sequence[dict[str, Any]]
    provenance: dict[str, Any] | None
    mode: str
    radius_unit: str
    signal_unit: str
    scan_ids: list[str]
    radius: np.ndarray
    signal: np.ndarray
    mask: np.ndarray
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def experiment_id(self) -> str:
        """``metadata["experiment_id"]`` as text (``""`` when absent)."""
        return str(self.metadata.get("experiment_id", ""))

    @property
    def n_scans(self) -> int:
        """Rows of ``signal`` (0 when it is not 2-D)."""
        return int(self.signal.shape[0]) if self.signal.ndim == 2 else 0

    @property
    def n_points(self) -> int:
        """Columns of ``signal``: points per scan, the padded width in per_scan mode."""
        return int(self.signal.shape[1]) if self.signal.ndim == 2 else 0

    def scan_radius(self, i: int) -> np.ndarray:
        """Radius of the real points of scan ``i`` (float64, masked points dropped)."""
        r = self.radius if self.radius.ndim == 1 else self.radius[i]
        return np.asarray(r, dtype=np.float64)[self.mask[i]]

    def scan_signal(self, i: int) -> np.ndarray:
        """Signal of the real points of scan ``i`` (float64, masked points dropped)."""
        return np.asarray(self.signal[i], dtype=np.float64)[self.mask[i]]

    def observations_dict(self) -> dict[str, Any]:
        """The ``observations`` object of the reference ``to_dict()`` form.

        Shared mode: ``mode, signal_unit, radius_unit, scan_ids, radius``
        (list of float) and ``signal`` (list of rows).  Per-scan mode adds
        ``mask`` (rows of bool) and writes padded positions (mask False) of
        ``radius`` and ``signal`` as ``None``, so padding is never shown as a
        measured value (``openauc==0.1.0a1`` ``Observations.to_dict``).
        """
        out: dict[str, Any] = {
            "mode": self.mode,
            "signal_unit": self.signal_unit,
            "radius_unit": self.radius_unit,
            "scan_ids": [str(s) for s in self.scan_ids],
        }
        radius = np.asarray(self.radius, dtype=np.float64)
        signal = np.asarray(self.signal, dtype=np.float64)
        if self.mode == "shared":
            out["radius"] = radius.tolist()
            out["signal"] = signal.tolist()
            return out
        mask = np.asarray(self.mask, dtype=bool)
        out["mask"] = mask.tolist()
        out["radius"] = [
            [float(v) if keep else None for v, keep in zip(row, mrow, strict=True)]
            for row, mrow in zip(radius, mask, strict=True)
        ]
        out["signal"] = [
            [float(v) if keep else None for v, keep in zip(row, mrow, strict=True)]
            for row, mrow in zip(signal, mask, strict=True)
        ]
        return out

    def to_dict(self) -> dict[str, Any]:
        """The experiment in the reference ``to_dict()`` form (JSON-ready).

        Keys: ``metadata``, ``instrument``, ``samples``, ``scans``,
        ``observations`` (see :meth:`observations_dict`) and ``provenance``,
        exactly as ``openauc.AUCExperiment.to_dict()`` (0.1.0a1) lays them
        out.  The description dicts are deep-copied, so the result can be
        changed freely.
        """
        return {
            "metadata": copy.deepcopy(self.metadata),
            "instrument": copy.deepcopy(self.instrument),
            "samples": copy.deepcopy(self.samples),
            "scans": copy.deepcopy(list(self.scans)),
            "observations": self.observations_dict(),
            "provenance": copy.deepcopy(self.provenance),
        }


def experiment_to_dict(exp: AucExperiment) -> dict[str, Any]:
    """``exp.to_dict()``: the reference ``to_dict()`` form of ``exp``."""
    return exp.to_dict()


#: Scans up to which a ``verify --json`` summary lists ``scan_ids`` (and source files)
#: one by one; above it they are summarised with counts (the first and last few kept).
SUMMARY_MAX_LISTED = 10_000
#: Observed values (scans x points) up to which the summary holds the whole ``model``
#: (the reference ``to_dict()`` form); above it the model is summarised with counts.
SUMMARY_MAX_VALUES = 200_000
#: Items kept at each end of a summarised list.
SUMMARY_ENDS = 5


def summary_list(items: list[Any], limit: int = SUMMARY_MAX_LISTED) -> Any:
    """``items`` as a ``verify --json`` summary value: the list itself up to ``limit``
    items, else ``{"summarised": true, "count", "first", "last"}`` (the first and last
    :data:`SUMMARY_ENDS` items), so that a report line stays short."""
    if len(items) <= limit:
        return list(items)
    return {"summarised": True, "count": len(items), "first": list(items[:SUMMARY_ENDS]),
            "last": list(items[-SUMMARY_ENDS:])}


def summary_model(exp: AucExperiment) -> dict[str, Any]:
    """The ``model`` of a ``verify --json`` summary: ``exp.to_dict()`` (the reference
    form) for up to :data:`SUMMARY_MAX_LISTED` scans and :data:`SUMMARY_MAX_VALUES`
    observed values; above either, ``{"summarised": true, "metadata", "instrument",
    "samples", "n_scans", "n_points", "n_values", "observations": {"mode", "signal_unit",
    "radius_unit"}}`` (``inspector dump`` and export give the full data)."""
    values = exp.n_scans * exp.n_points
    if exp.n_scans <= SUMMARY_MAX_LISTED and values <= SUMMARY_MAX_VALUES:
        return exp.to_dict()
    return {"summarised": True, "metadata": copy.deepcopy(exp.metadata),
            "instrument": copy.deepcopy(exp.instrument), "samples": copy.deepcopy(exp.samples),
            "n_scans": exp.n_scans, "n_points": exp.n_points, "n_values": values,
            "observations": {"mode": exp.mode, "signal_unit": exp.signal_unit,
                             "radius_unit": exp.radius_unit}}


class Handoff:
    """An experiment handed to the AUCX writer for good (``write_aucx``): the writer
    holds the only reference to it, and drops it (and what was made from it) once the
    archive is written, before reading the archive back, so that the source and the
    read-back are never in memory together.  ``take()`` gives the experiment once.
    """

    def __init__(self, experiment: AucExperiment) -> None:
        self._experiment: AucExperiment | None = experiment

    def take(self) -> AucExperiment:
        """The experiment, once.

        Raises:
            RuntimeError: it was taken already.
        """
        exp, self._experiment = self._experiment, None
        if exp is None:
            raise RuntimeError("the experiment of this Handoff was taken already")
        return exp
