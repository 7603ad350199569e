"""Benchmark: time and peak memory of the scan-table readers on large and malformed input.

Builds (in ``--out``, default a fresh temporary folder) the inputs of the hostile corpus's
table cases (``fuzz/hostile/tables.py``) and runs ``inspector verify --json`` on each in
its own process, measuring wall time and peak resident set (``wait4``'s ``ru_maxrss``):

* ``csv_million_scans``: a long CSV of 1 000 000 scans of one point;
* ``beckman_malformed_64mb``: a 64 MB Beckman scan file of malformed data lines;
* ``csv_unterminated_quote_100mb``: a 100 MB long CSV whose first data line opens a quote;
* ``csv_five_million_rows``: a long CSV of 5 000 000 rows (1 000 scans);
* ``csv_five_million_rows_bad_1_in_5000``: the same with every 5 000th line's signal
  not a number (one malformed line in 5 000: it should cost no more than a good one);

and, with ``--window``, opens the 5 000 000-row CSV and the 60 MB Beckman run in the
window (``--screenshot``).  Prints one JSON object::

    {"scale", "results": {NAME: {"seconds", "peak_rss_mb", "status", "longest_line",
     "input_mb", "mb_per_s"}}}

Usage (``PYTHONPATH`` chooses the checkout whose ``inspector`` runs)::

    PYTHONPATH=. python benchmarks/table_streaming.py [--scale small|full] [--window]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from decoder_info import decoder  # noqa: E402 - a sibling script

from fuzz.hostile import tables  # noqa: E402


def _rows_with_bad_lines(folder: Path, scale: str) -> Path:
    """The 5 000 000-row CSV (200 000 at small scale) with every 5 000th data line's signal
    made non-numeric (``x``): one malformed line in 5 000."""
    tables._many_rows(folder, scale)  # type: ignore[arg-type]
    data = folder / "scans.csv"
    bad = folder / "scans.bad"
    with data.open("rb") as src, bad.open("wb") as dst:
        dst.write(src.readline())
        for k, line in enumerate(src, start=1):
            if k % 5000 == 0:
                scan, radius, _, elapsed = line.split(b",")
                line = b",".join((scan, radius, b"x", elapsed))
            dst.write(line)
    bad.replace(data)
    return folder


CASES = {
    "csv_million_scans": (tables._many_scans, "verify"),
    "beckman_malformed_64mb": (tables._beckman_malformed, "verify"),
    "csv_unterminated_quote_100mb": (tables._unterminated_quote, "verify"),
    "csv_five_million_rows": (tables._many_rows, "verify"),
    "csv_five_million_rows_bad_1_in_5000": (_rows_with_bad_lines, "verify"),
}
WINDOW_CASES = {
    "csv_five_million_rows_window": (tables._many_rows, "window"),
    "beckman_run_60mb_window": (tables._beckman_run, "window"),
}


def _size_mb(target: Path) -> float:
    files = [target] if target.is_file() else [p for p in target.rglob("*") if p.is_file()]
    return round(sum(p.stat().st_size for p in files) / 1e6, 1)


def measure(target: Path, mode: str, out: Path) -> dict[str, Any]:
    """Run ``inspector`` on ``target`` in a child process; its time, peak RSS, output."""
    argv = (["verify", "--json", str(target)] if mode == "verify"
            else ["--screenshot", str(out / "shot.png"), str(target)])
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    if env.get("PYTHONPATH"):  # the child runs in ``out``: a relative entry would not hold
        env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve())
                                            for p in env["PYTHONPATH"].split(os.pathsep))
    with tempfile.TemporaryFile() as stdout:
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "inspector", *argv], stdout=stdout,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env,
                                cwd=out)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - start
        proc.returncode = 0
        stdout.seek(0)
        longest = max((len(line) for line in stdout), default=0)
    size = _size_mb(target)
    return {"seconds": round(seconds, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "status": os.waitstatus_to_exitcode(status), "longest_line": longest,
            "input_mb": size, "mb_per_s": round(size / seconds, 1) if seconds else None}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/table_streaming.py")
    p.add_argument("--scale", choices=("small", "full"), default="full")
    p.add_argument("--window", action="store_true", help="also open two inputs in the window")
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="table-bench-"))
    cases = {**CASES, **(WINDOW_CASES if args.window else {})}
    results = {}
    for name, (build, mode) in cases.items():
        if args.only is not None and name not in args.only:
            continue
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        target = build(folder, args.scale)
        results[name] = measure(target, mode, folder)
    print(json.dumps({"decoder": decoder(), "scale": args.scale, "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
