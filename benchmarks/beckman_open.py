"""Benchmark: opening a Beckman XL-A run folder of 1 000 scans of 700 points.

Builds (once, cached in ``/tmp/inspector-beckman-bench``) a run folder of
``--scans`` RA scan files (three interleaved wavelengths, cell 1, CRLF line
ends, radius/absorbance/standard deviation as UltraScan III's legacy exporter
writes them), then prints one JSON object::

    {"scans", "points", "files_mb", "open_s", "open_cpu_s", "budget_s",
     "within_budget", "groups", "findings", "runs"}

``open_s`` is the median wall time of
``inspector.formats.registry.open_document(folder)`` over ``--repeat`` runs
(default 3), ``open_cpu_s`` its process CPU time (the machine may be shared);
imports and the first build are not timed.  Usage::

    python benchmarks/beckman_open.py [--scans N] [--points N] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

CACHE = Path("/tmp/inspector-beckman-bench")
BUDGET_S = 2.0
_BUILD_VERSION = "1"


def build(n_scans: int, n_points: int) -> Path:
    """The cached run folder; written if absent (deterministic content)."""
    import numpy as np

    folder = CACHE / f"run_{n_scans}x{n_points}_v{_BUILD_VERSION}"
    if folder.is_dir() and len(list(folder.iterdir())) == n_scans:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2024)
    radius = np.round(np.linspace(5.90, 7.20, n_points), 4)
    for i in range(n_scans):
        wavelength = (280, 260, 230)[i % 3]
        seconds = 120 * (i // 3 + 1)
        boundary = 6.0 + 1.1 * (i // 3) / max(n_scans // 3, 1)
        value = 0.5 * (1 + np.tanh((radius - boundary) / 0.02)) + rng.normal(0, 0.01, n_points)
        sd = np.abs(rng.normal(0.005, 0.001, n_points))
        lines = ["benchmark run: synthetic boundary, cell 1",
                 f"R 1 20.0 50000 {seconds:07d} {seconds * 2.74e7:11.4E}".replace("E+", "E")
                 + f" {wavelength:4d} 3"]
        lines += [f"{r:9.4f} {v:12.5E} {s:13.5E}" for r, v, s in zip(radius, value, sd,
                                                                       strict=True)]
        (folder / f"{i + 1:05d}.RA1").write_bytes(("\r\n".join(lines) + "\r\n").encode("ascii"))
    return folder


def main() -> None:
    """Build the folder, time ``open_document`` on it and print the JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=1000)
    parser.add_argument("--points", type=int, default=700)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from inspector.formats.registry import open_document

    folder = build(args.scans, args.points)
    walls, cpus, doc = [], [], None
    for _ in range(args.repeat):
        w, c = time.perf_counter(), time.process_time()
        doc = open_document(folder)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    assert doc is not None
    size = sum(p.stat().st_size for p in folder.iterdir())
    result = {
        "scans": args.scans, "points": args.points, "files_mb": round(size / 1e6, 2),
        "open_s": round(statistics.median(walls), 3),
        "open_cpu_s": round(statistics.median(cpus), 3), "budget_s": BUDGET_S,
        "within_budget": statistics.median(walls) < BUDGET_S,
        "format": str(doc.format), "groups": len(doc.tables["groups"]),
        "findings": len(doc.findings), "runs": [round(w, 3) for w in walls],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
