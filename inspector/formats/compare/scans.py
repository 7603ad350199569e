"""The scans section: two AUC experiments, scan by scan ID.

Scans are matched by scan ID (added, removed); a matched pair is compared by its
metadata (every field of the scan object) and by its values: the radius and
signal of its real points (masked points dropped), so one experiment stored
long or wide, shared or per-scan radius, compares equal when it holds the same
scans.  The experiment's own fields (metadata, instrument, samples, units)
belong to the header section; the import and export records to the provenance
section.  Scans are read through the experiment's public API (``scan_ids``,
``scans``, ``scan_radius``, ``scan_signal``).  Nothing here imports Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.compare.fields import compare_fields, plain
from inspector.formats.compare.model import ADDED, REMOVED, Collector, Difference
from inspector.formats.compare.values import compare_arrays_in_memory

if TYPE_CHECKING:
    from inspector.formats.auc.model import AucExperiment
    from inspector.formats.capabilities import AucScans

SECTION = "scans"
#: Scan fields that say where a scan sits, not what it holds.
PLACE_FIELDS = frozenset({"index"})


def compare_scan_ids(out: Collector, a: AucScans, b: AucScans) -> list[str]:
    """Report scans of one side only; return the scan IDs common to both (A's order)."""
    ids_b = set(b.scan_ids)
    ids_a = set(a.scan_ids)
    for sid in a.scan_ids:
        if sid not in ids_b:
            out.add(Difference(SECTION, REMOVED, sid, note="scan"))
    for sid in b.scan_ids:
        if sid not in ids_a:
            out.add(Difference(SECTION, ADDED, sid, note="scan"))
    return [s for s in a.scan_ids if s in ids_b]


def compare_experiment_fields(out: Collector, a: AucExperiment, b: AucExperiment) -> None:
    """The experiment's own fields (header section)."""
    for name in ("metadata", "instrument", "samples"):
        compare_fields(out, "header", f"experiment.{name}", plain(getattr(a, name)),
                       plain(getattr(b, name)))
    for name in ("radius_unit", "signal_unit"):
        compare_fields(out, "header", name, getattr(a, name), getattr(b, name))
    compare_fields(out, "header", "radius_axis_mode", a.mode, b.mode, content=False)


def compare_scans(out: Collector, a: AucExperiment, b: AucExperiment,
                  common: list[str]) -> None:
    """Compare the scans both experiments hold: metadata, then radius and signal."""
    pos_a = {str(s): i for i, s in enumerate(a.scan_ids)}
    pos_b = {str(s): i for i, s in enumerate(b.scan_ids)}
    for sid in common:
        i, j = pos_a[sid], pos_b[sid]
        ma, mb = _scan_fields(a, i), _scan_fields(b, j)
        compare_fields(out, SECTION, sid, ma, mb)
        for what, get_a, get_b in (("radius", a.scan_radius, b.scan_radius),
                                   ("signal", a.scan_signal, b.scan_signal)):
            _compare_line(out, f"{sid}.{what}", np.asarray(get_a(i)), np.asarray(get_b(j)))


def _scan_fields(exp: AucExperiment, i: int) -> dict[str, Any]:
    scan = exp.scans[i]
    fields = dict(scan) if not hasattr(scan, "to_dict") else scan.to_dict()
    return {k: plain(v) for k, v in fields.items() if k not in PLACE_FIELDS}


def _compare_line(out: Collector, path: str, a: np.ndarray, b: np.ndarray) -> None:
    compare_arrays_in_memory(out, SECTION, path, a, b, "points", "points per scan differ")

