"""The in-memory AUC experiment shared by the delimited importer and AUCX.

It mirrors the reference data model's ``to_dict()`` (``openauc==0.1.0a1``;
seed ``002_59993c7ffff01d56.txt``; spec ``aucx-archive.md`` section 1): a
JSON-ready description (metadata, instrument, samples, scans), the import
provenance, and the observations as numpy arrays.  Units are kept as given,
never converted.
"""

from __future__ import annotations

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
        scans: list of scan objects (scan_id, index, elapsed_time, ...), one
            per row of ``signal``.
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
    scans: list[dict[str, Any]]
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
        return str(self.metadata.get("experiment_id", ""))

    @property
    def n_scans(self) -> int:
        return int(self.signal.shape[0]) if self.signal.ndim == 2 else 0

    @property
    def n_points(self) -> int:
        return int(self.signal.shape[1]) if self.signal.ndim == 2 else 0

    def scan_radius(self, i: int) -> np.ndarray:
        """Radius of the real points of scan ``i`` (float64, masked points dropped)."""
        r = self.radius if self.radius.ndim == 1 else self.radius[i]
        return np.asarray(r, dtype=np.float64)[self.mask[i]]

    def scan_signal(self, i: int) -> np.ndarray:
        """Signal of the real points of scan ``i`` (float64, masked points dropped)."""
        return np.asarray(self.signal[i], dtype=np.float64)[self.mask[i]]
