"""Benchmark: ``inspector verify`` of many small archives, two workers against one.

Copies one small corpus archive (``tests/fixtures/aucx/
syn_moving_boundary_s42_20x300.aucx``, 45 KB, 20 scans x 300 points) under
``--files`` different names (default 1000) into a temporary folder, then, in
the same run, verifies the folder with ``inspector verify --json --jobs 1``
and ``--jobs 2`` (each a fresh ``python -m inspector`` process, standard
output to a pipe whose bytes are compared between the two runs) and prints
one JSON object::

    {"files", "archive_bytes", "cpus",
     "jobs1": {"wall_s", "files_per_s", "verify_s"},
     "jobs2": {"wall_s", "files_per_s", "verify_s"},
     "in_process": {"verify_s", "files_per_s"},
     "ratio_wall", "ratio_verify", "same_output"}

* ``wall_s``: the whole command (interpreter start, imports, worker start,
  the folder walk and every file); ``files_per_s`` = files / ``wall_s``;
* ``verify_s``: the ``seconds`` of the command's own summary (from the first
  file handed to a worker to the last line printed);
* ``in_process``: ``open_document`` + ``verify`` + JSON line, one file after
  another in this process (the single-file code path), for reference;
* ``ratio_*``: jobs 1 time / jobs 2 time.

Usage::

    python benchmarks/verify_many.py [--files N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from decoder_info import decoder

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "fixtures" / "aucx" / "syn_moving_boundary_s42_20x300.aucx"


def build(folder: Path, n: int) -> list[Path]:
    """``n`` copies of :data:`SOURCE` in ``folder`` (100 a sub-folder, so the walk recurses)."""
    out = []
    for i in range(n):
        sub = folder / f"batch_{i // 100:03d}"
        sub.mkdir(exist_ok=True)
        path = sub / f"archive_{i:05d}.aucx"
        shutil.copyfile(SOURCE, path)
        out.append(path)
    return out


def run_cli(folder: Path, jobs: int) -> dict:
    """One ``inspector verify --json --jobs N FOLDER`` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "inspector", "verify", "--json", "--jobs",
                           str(jobs), str(folder)], capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    summary = json.loads(proc.stderr.decode().strip().splitlines()[-1])["summary"]
    lines = proc.stdout.count(b"\n")
    if proc.returncode != 0 or summary["ok"] != lines:
        raise SystemExit(f"jobs {jobs}: exit {proc.returncode}, summary {summary}")
    return {"wall_s": round(wall, 3), "files_per_s": round(lines / wall, 1),
            "verify_s": summary["seconds"], "_digest": hashlib.sha256(proc.stdout).hexdigest(),
            "_files": lines}


def run_in_process(paths: list[Path]) -> dict:
    """The single-file code path, file after file, in this process."""
    sys.path.insert(0, str(ROOT))
    from inspector.cli import render_document
    from inspector.formats import open_document
    from inspector.formats.decoding.workers import worker_pool

    with worker_pool():
        start = time.perf_counter()
        for path in paths:
            with open_document(path) as doc:
                doc.verify()
                render_document(doc, True)
        seconds = time.perf_counter() - start
    return {"verify_s": round(seconds, 3), "files_per_s": round(len(paths) / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="archives to verify")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="inspector-verify-many-") as tmp:
        paths = build(Path(tmp), args.files)
        one = run_cli(Path(tmp), 1)
        two = run_cli(Path(tmp), 2)
        here = run_in_process(paths)
    same = one.pop("_digest") == two.pop("_digest")
    assert one.pop("_files") == two.pop("_files") == args.files
    print(json.dumps({"decoder": decoder(),
        "files": args.files, "archive_bytes": SOURCE.stat().st_size,
        "cpus": os.cpu_count(),
        "jobs1": one, "jobs2": two, "in_process": here,
        "ratio_wall": round(one["wall_s"] / two["wall_s"], 2),
        "ratio_verify": round(one["verify_s"] / two["verify_s"], 2),
        "same_output": same,
    }))


if __name__ == "__main__":
    main()
