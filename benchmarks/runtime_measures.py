"""Benchmark: each runtime measure of docs/runtime.md, with and without it, in the same run.

For every measure of :data:`inspector.runtime.switches.MEASURES` asked for, a
``benchmarks/gui_latency.py`` scenario runs in a fresh interpreter with every
measure in force (``on``) and with that one left out (``INSPECTOR_RUNTIME_OFF``),
in rounds: each round runs ``on`` once and then each measure's ``off`` once, so that
the pairs share the machine's state of that round.  The GUI thread's stalls are what
the measures are for: ``max_gap_ms`` (the longest interval between two ticks of a 5 ms
timer on the GUI thread), ``p99_gap_ms``, ``gaps_over_50ms`` (the contract: the GUI
thread never blocks for more than 50 ms), the same two counting only the GUI thread's own
CPU time within a gap (``max_gap_gui_cpu_ms``, ``gaps_over_50ms_gui_cpu``: on a shared
machine a gap is also a wait for a core), and ``wall_ms`` (the open, to its exact plot).

Prints one JSON object: per scenario, ``on`` and per measure ``off:NAME``, the median
of each figure over the rounds and the figures of every round (``runs``), plus the
machine's load before and after.  The interpreter-lock measure is also measured by
``benchmarks/gil_convoy.py`` (a repaint beside a busy thread, per switch interval).

Usage: ``python benchmarks/runtime_measures.py [--measures a,b] [--scenarios a,b]
[--rounds 3] [--recording-mb 256]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import gui_latency  # noqa: E402
from decoder_info import decoder  # noqa: E402 - a sibling script

from inspector.runtime.switches import ENV, MEASURES  # noqa: E402

#: The figures kept per run (the probe's and the scenario's).
FIGURES = ("max_gap_ms", "p99_gap_ms", "gaps_over_50ms", "max_gap_gui_cpu_ms",
           "gaps_over_50ms_gui_cpu", "wall_ms", "cpu_ms")
DEFAULT_MEASURES = ("switch-interval", "thread-priority", "gui-collector",
                    "collection-holds", "freeze")


def _one(scenario: str, path: Path, off: str) -> dict[str, Any]:
    os.environ[ENV] = off
    try:
        got = gui_latency._run_child(scenario, path, None, False)
    finally:
        os.environ.pop(ENV, None)
    return {k: got.get(k) for k in FIGURES}


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in FIGURES:
        values = [r[key] for r in runs if isinstance(r.get(key), int | float)]
        out[key] = round(statistics.median(values), 1) if values else None
    return out


def run(scenario: str, path: Path, measures: list[str], rounds: int) -> dict[str, Any]:
    """The scenario ``rounds`` times with every measure, and without each of ``measures``."""
    runs: dict[str, list[dict[str, Any]]] = {"on": [], **{f"off:{m}": [] for m in measures}}
    for _ in range(rounds):
        runs["on"].append(_one(scenario, path, ""))
        for m in measures:
            runs[f"off:{m}"].append(_one(scenario, path, m))
    return {key: {**_medians(values), "runs": values} for key, values in runs.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--measures", default=",".join(DEFAULT_MEASURES))
    ap.add_argument("--scenarios", default="open_recording_1gb,start_with_recording_1gb")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--recording-mb", type=int, default=256)
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "INSPECTOR_BENCH_DIR", "/tmp/inspector-bench-gui")))
    args = ap.parse_args(argv)
    measures = [m for m in args.measures.split(",") if m]
    unknown = set(measures) - set(MEASURES)
    if unknown:
        ap.error(f"unknown measures {sorted(unknown)}; known: {sorted(MEASURES)}")
    args.cache.mkdir(parents=True, exist_ok=True)
    gui_latency.compile_inspector()
    path = gui_latency.recording_path(args.cache, args.recording_mb)
    out: dict[str, Any] = {"load_1min_before": round(os.getloadavg()[0], 2),
                           "recording_mb": round(path.stat().st_size / 1e6, 1),
                           "rounds": args.rounds}
    for scenario in args.scenarios.split(","):
        out[scenario] = run(scenario, path, measures, args.rounds)
    out["load_1min_after"] = round(os.getloadavg()[0], 2)
    out["decoder"] = decoder()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
