"""Scans of the AUC view, apart from the view: their cells and colours, pens, the extent
of what is drawn, the distance of a click to a curve, the note on untrusted arrays.

Pure functions (numpy and Qt value types, no widget); used by
:class:`~inspector.ui.plots.auc.AucView`, partly on its jobs' threads.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPen

from inspector.formats.analysis.arrays import ArrayRef
from inspector.formats.analysis.scan_envelope import ScanEnvelopes
from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.capabilities import AucScans


def untrusted_note(auc: AucScans, arrays: Mapping[str, ArrayRef]) -> str:
    """The plot's warning when members failed their checksum, else ``""``.

    E.g. ``"signal.npy failed its checksum: values shown are not verified"``.
    """
    names = []
    for name in sorted(auc.untrusted_arrays):
        ref = arrays.get(name)
        loc = PurePosixPath(str(getattr(ref, "location", "") or "")).name
        names.append(loc if loc.endswith(".npy") else f"{name}.npy")
    if not names:
        return ""
    if len(names) == 1:
        return f"{names[0]} failed its checksum: values shown are not verified"
    listed = f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} failed their checksums: values shown are not verified"


#: Hues (degrees) of the cells of an experiment with several: blue, orange, green, red,
#: purple, brown, pink, olive, cyan, grey-blue (then again).
CELL_HUES = (210, 30, 120, 0, 280, 20, 320, 60, 185, 240)


def scan_cells(auc: AucScans, n: int) -> list[str]:
    """The cell of each of the first ``n`` scans, as text ("" when unknown, or when the
    experiment is not held: then every scan is in one group)."""
    experiment = auc.experiment
    scans = getattr(experiment, "scans", None) or []
    if len(scans) < n:
        return [""] * n
    if isinstance(scans, ScanRecords):  # read the column: no record is built
        codes, values = scans.text("cell")
        texts = ["" if v is None else str(v) for v in values]
        return [texts[c] for c in codes[:n].tolist()]
    out = []
    for scan in scans[:n]:
        cell = scan.get("cell") if isinstance(scan, Mapping) else getattr(scan, "cell", None)
        out.append("" if cell is None else str(cell))
    return out


def cell_colors(cells: list[str], dark: bool) -> list[QColor]:
    """One colour per scan: the hue of its cell (:data:`CELL_HUES`, cells in order of
    first appearance), light to dark (dark to light on a dark background) over the
    cell's scans in scan order."""
    order = list(dict.fromkeys(cells))
    counts = {c: cells.count(c) for c in order}
    seen = dict.fromkeys(order, 0)
    out = []
    for cell in cells:
        k, n = seen[cell], counts[cell]
        seen[cell] += 1
        t = k / max(n - 1, 1)
        value = 0.55 + 0.45 * t if dark else 0.95 - 0.45 * t
        hue = CELL_HUES[order.index(cell) % len(CELL_HUES)]
        out.append(QColor.fromHsv(hue, 200 if hue != 240 else 90, int(255 * value)))
    return out


def pens(colors: list[Any], width: int) -> list[QPen]:
    """Cosmetic pens (``width`` pixels whatever the zoom) in ``colors``, as ``pg.mkPen``
    makes them, built directly (``pg.mkPen`` costs about 30 us each: 1000 pens are 30 ms)."""
    pens = []
    for c in colors:
        pen = QPen(QColor(c))
        pen.setCosmetic(True)
        pen.setWidth(width)
        pens.append(pen)
    return pens


def limits(curves: list[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float, float, float]:
    """``(lo_x, hi_x, lo_y, hi_y)`` of the curves' finite points (infinities when none)."""
    lo_x = lo_y = math.inf
    hi_x = hi_y = -math.inf
    for x, y in curves:
        fin = np.isfinite(x) & np.isfinite(y)
        if fin.any():
            lo_x, hi_x = min(lo_x, float(x[fin].min())), max(hi_x, float(x[fin].max()))
            lo_y, hi_y = min(lo_y, float(y[fin].min())), max(hi_y, float(y[fin].max()))
    return lo_x, hi_x, lo_y, hi_y


def distance(px: np.ndarray, py: np.ndarray) -> float:
    """Distance in pixels from the origin to the polyline through ``(px, py)`` (NaN: breaks)."""
    if len(px) == 1:
        return float(np.hypot(px[0], py[0])) if np.isfinite(py[0]) else math.inf
    ax, ay, bx, by = px[:-1], py[:-1], px[1:], py[1:]
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.clip(np.where(length2 > 0, -(ax * dx + ay * dy) / length2, 0.0), 0.0, 1.0)
    d = np.hypot(ax + t * dx, ay + t * dy)
    d = d[np.isfinite(d)]
    return float(d.min()) if len(d) else math.inf


def drawn_extent(env: ScanEnvelopes, curves: list[tuple[np.ndarray, np.ndarray]]) -> QRectF:
    """The rectangle holding every drawn point (computed on the job's thread: the GUI
    thread only paints): the scans drawn as envelopes from the envelope arrays at once,
    the others from their points."""
    n = len(curves)
    rows = np.array([p is None for p in env.points[:n]], dtype=bool).reshape(n)
    lo_x, hi_x, lo_y, hi_y = limits([curves[i] for i in np.flatnonzero(~rows)])
    lo, hi = (env.lo[:n], env.hi[:n]) if rows.all() else (env.lo[:n][rows], env.hi[:n][rows])
    cols = np.flatnonzero(np.isfinite(lo).any(axis=0))
    if cols.size:
        c, a, b = env.centers(), int(cols[0]), int(cols[-1]) + 1
        lo_x, hi_x = min(lo_x, float(c[a])), max(hi_x, float(c[b - 1]))
        lo_y = min(lo_y, float(np.fmin.reduce(lo[:, a:b], axis=None)))  # fmin: NaN ignored
        hi_y = max(hi_y, float(np.fmax.reduce(hi[:, a:b], axis=None)))
    return QRectF(lo_x, lo_y, hi_x - lo_x, hi_y - lo_y) if lo_x <= hi_x else QRectF()
