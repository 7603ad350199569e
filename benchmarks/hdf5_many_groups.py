"""Benchmark: an HDF5 file of many root groups, ``inspector verify`` and the window.

Generates (once, cached in ``/tmp/inspector-many-groups``) a file of ``--groups``
empty root groups (100 000 by default; the last holds a dataset and an attribute),
then runs, each in a fresh process, ``inspector verify --json FILE`` and the window
opening it (``inspector --screenshot OUT FILE``, offscreen), and prints one JSON
object::

    {"groups": N, "load": [1, 5, 15 min], "new": {"verify_s", "verify_cpu_s",
     "verify_mb", "window_s", "window_cpu_s", "window_mb"}, "old": {...},
     "ratio": {...}, "same_report": bool}

* ``*_s``: wall time of the whole command (interpreter start and imports included),
  median of ``--repeat`` runs;
* ``*_cpu_s``: its CPU time (user + system, every thread), median: steadier than the
  wall time on a loaded machine;
* ``*_mb``: its peak resident set (``VmHWM``), the largest of the runs;
* ``old``/``ratio``/``same_report``: with ``--old DIR`` (a checkout of another
  commit, e.g. ``git worktree add /tmp/old <commit>``), the same commands run from
  it, alternating with this checkout's runs (paired on a loaded machine); ``ratio``
  is new / old; ``same_report``: both ``verify --json`` outputs equal once their
  timing fields are dropped.

Usage::

    python benchmarks/hdf5_many_groups.py [--groups 100000] [--repeat 1] [--old DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CACHE = Path("/tmp/inspector-many-groups")
HERE = Path(__file__).resolve().parent.parent

#: Runs ``inspector ARG...`` and writes its peak resident set (kB) and CPU seconds (user +
#: system, all its threads) to argv[1].
_CHILD = r"""
import resource, runpy, sys
from pathlib import Path
out, *args = sys.argv[1:]
sys.argv = ["inspector", *args]
try:
    runpy.run_module("inspector", run_name="__main__", alter_sys=True)
finally:
    hwm = [l for l in Path("/proc/self/status").read_text().splitlines()
           if l.startswith("VmHWM:")]
    use = resource.getrusage(resource.RUSAGE_SELF)
    Path(out).write_text(f"{hwm[0].split()[1] if hwm else 0} {use.ru_utime + use.ru_stime}")
"""

_BUILD = r"""
import sys, h5py, numpy as np
n = int(sys.argv[2])
with h5py.File(sys.argv[1], "w") as f:
    for i in range(n - 1):
        f.create_group(f"g{i:06d}")
    last = f.create_group(f"g{n - 1:06d}")
    last.create_dataset("values", data=np.arange(10.0))
    last.attrs["note"] = "last"
"""


def build(groups: int) -> Path:
    """The cached file of ``groups`` root groups (built with h5py if absent)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"groups-{groups}.h5"
    if not path.is_file():
        subprocess.run([sys.executable, "-c", _BUILD, str(path), str(groups)], check=True)
    return path


def run(checkout: Path, args: list[str]) -> tuple[float, float, float, str]:
    """``(seconds, peak MB, CPU seconds, stdout)`` of ``inspector ARGS`` run from
    ``checkout``."""
    env = dict(os.environ, PYTHONPATH=str(checkout), QT_QPA_PLATFORM="offscreen")
    with tempfile.NamedTemporaryFile(suffix=".hwm") as hwm:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _CHILD, hwm.name, *args], env=env,
                              capture_output=True, text=True, cwd=checkout)
        elapsed = time.perf_counter() - start
        peak_kb, cpu = (Path(hwm.name).read_text() or "0 0").split()
    return elapsed, int(peak_kb) / 1024, float(cpu), done.stdout


def _stripped(report: str) -> object:
    """A ``verify --json`` report without its timing fields (they differ run to run)."""
    def clean(value: object) -> object:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()
                    if not any(t in k for t in ("time", "elapsed", "seconds", "_s"))}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value
    return [clean(json.loads(line)) for line in report.splitlines() if line.strip()]


def measure(checkout: Path, path: Path, shot: Path) -> dict[str, object]:
    """One verify and one window run from ``checkout``."""
    verify_s, verify_mb, verify_cpu, report = run(checkout, ["verify", "--json", str(path)])
    window_s, window_mb, window_cpu, _ = run(checkout, ["--screenshot", str(shot), str(path)])
    return {"verify_s": verify_s, "verify_mb": verify_mb, "verify_cpu_s": verify_cpu,
            "window_s": window_s, "window_mb": window_mb, "window_cpu_s": window_cpu,
            "report": report}


def summary(runs: list[dict[str, object]]) -> dict[str, float]:
    """Median times, largest peaks."""
    out: dict[str, float] = {}
    for key in ("verify_s", "window_s", "verify_cpu_s", "window_cpu_s"):
        out[key] = round(statistics.median(float(r[key]) for r in runs), 2)  # type: ignore[arg-type]
    for key in ("verify_mb", "window_mb"):
        out[key] = round(max(float(r[key]) for r in runs), 1)  # type: ignore[arg-type]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--old", type=Path, default=None)
    args = parser.parse_args()
    path = build(args.groups)
    shot = CACHE / "shot.png"
    new_runs, old_runs = [], []
    for _ in range(args.repeat):
        new_runs.append(measure(HERE, path, shot))
        if args.old is not None:
            old_runs.append(measure(args.old.resolve(), path, shot))
    result: dict[str, object] = {"groups": args.groups, "load": list(os.getloadavg()),
                                 "new": summary(new_runs)}
    if old_runs:
        old, new = summary(old_runs), summary(new_runs)
        result["old"] = old
        result["ratio"] = {k: round(new[k] / old[k], 2) for k in new if old[k]}
        result["same_report"] = all(_stripped(str(a["report"])) == _stripped(str(b["report"]))
                                    for a, b in zip(new_runs, old_runs, strict=True))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
