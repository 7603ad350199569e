"""Benchmark: structural validation of large AUCX archives, time and peak memory.

Generates (once, cached in ``/tmp/inspector-structure-bench``) archives with
openauc's synthetic API (``generate_experiment`` + ``export``), then opens
and verifies each in a fresh subprocess as ``inspector verify`` does
(``open_document`` + ``doc.verify()``: the radius and mask are folded in row
blocks by the deferred verification when they are too large to read whole)
and prints one JSON object::

    {"<label>": {"scans", "points", "mode", "file_mb", "arrays_mb", "verify_s",
                 "peak_rss_mb", "structure_ok", "structure_codes"}, ...}

* ``arrays_mb``: the uncompressed radius + signal + mask bytes;
* ``verify_s``: open + verify, median of ``--repeat`` runs (imports not timed);
* ``peak_rss_mb``: ``ru_maxrss`` of the subprocess (interpreter and imports
  included);
* ``structure_ok`` / ``structure_codes``: the verdict and the error codes of
  scope structure (``invalid-structure`` archives must give two).

Usage::

    python benchmarks/structure_large.py [--repeat N] [--sizes 5000x3000-per-scan,...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from decoder_info import decoder

CACHE = Path("/tmp/inspector-structure-bench")
#: label -> (scenario, scans, points)
SIZES = {
    "400x3000-invalid": ("invalid-structure", 400, 3000),
    "5000x3000-invalid": ("invalid-structure", 5000, 3000),
    "5000x3000-per-scan": ("per-scan-radius", 5000, 3000),
}

_CHILD = r"""
import json, resource, sys, time
from inspector.formats import open_document
t = time.perf_counter()
doc = open_document(sys.argv[1])
doc.verify()
elapsed = time.perf_counter() - t
codes = [f.code for f in doc.findings if f.scope == "structure" and f.severity == "error"]
print(json.dumps({"verify_s": elapsed, "structure_ok": doc.structure_ok,
                  "structure_codes": codes, "mode": doc.summary.get("radius_axis_mode"),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


_BUILD = r"""
import sys
from openauc.synthetic import SyntheticExperimentConfig, generate_experiment
exp = generate_experiment(SyntheticExperimentConfig(
    scenario=sys.argv[2], n_scans=int(sys.argv[3]), n_points=int(sys.argv[4]), seed=11))
exp.export(sys.argv[1])
"""


def build(label: str) -> Path:
    """The cached archive for ``label``, generated with openauc if absent (in a
    subprocess of its own: ``ru_maxrss`` survives ``exec``, so this process must
    stay small for the measuring children)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{label}.aucx"
    if not path.is_file():
        scenario, scans, points = SIZES[label]
        subprocess.run([sys.executable, "-c", _BUILD, str(path), scenario, str(scans),
                        str(points)], check=True)
    return path


def measure(label: str, repeat: int) -> dict[str, object]:
    path = build(label)
    runs = [json.loads(subprocess.run([sys.executable, "-c", _CHILD, str(path)], check=True,
                                      capture_output=True, text=True).stdout)
            for _ in range(repeat)]
    _, scans, points = SIZES[label]
    per_scan = runs[0]["mode"] == "per_scan"
    arrays = scans * points * (8 + 1) + (scans * points if per_scan else points) * 8
    return {"scans": scans, "points": points, "mode": runs[0]["mode"],
            "file_mb": round(path.stat().st_size / 2**20, 1),
            "arrays_mb": round(arrays / 2**20, 1),
            "verify_s": round(statistics.median(r["verify_s"] for r in runs), 2),
            "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs), 1),
            "structure_ok": runs[0]["structure_ok"],
            "structure_codes": runs[0]["structure_codes"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--sizes", default=",".join(SIZES))
    args = parser.parse_args()
    result: dict[str, object] = {label: measure(label, args.repeat)
                                 for label in args.sizes.split(",")}
    result["decoder"] = decoder()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
