"""Benchmark: ``inspector diff`` against HDF5's ``h5diff`` on 1 GB recordings, and on
two 500 MB archives against verifying them.

Builds once (cached in ``/tmp/inspector-diff-bench``):

* ``rec_a.h5``: the 1 GiB continuous recording of ``benchmarks/plot_envelope.py``
  (``neuro`` float32 ``(4194304, 64)``, gzip 4 + shuffle, chunks ``(4096, 64)``);
* ``rec_same.h5``: a byte copy of it (two identical recordings);
* ``rec_one_chunk.h5``: a copy in which the 4096 x 64 values of chunk 500 were
  rewritten with h5py (+1.0 each): the recordings differ in one chunk;
* ``arch_a.aucx``: the 500 MB archive of ``benchmarks/verify_archive.py``, and
  ``arch_b.aucx``, a byte copy of it.

Then prints one JSON object.  For each recording pair (``identical``,
``one_chunk``): ``ours_s`` and ``ours_peak_mb`` (``python -m inspector diff A B
--json``, the whole command: interpreter, imports, opening, verification and
comparison), ``h5diff_s`` and ``h5diff_peak_mb`` (``h5diff A B``, output to
``/dev/null``) and ``h5diff_q_s`` (``h5diff -q``), ``speedup`` (``h5diff_s /
ours_s``) and both exit statuses.  For the identical archives (``archives_identical``):
``checksums_read_s`` (a Python process reading both archives' ``checksums.sha256``
with ``zipfile``), ``raw_read_s`` (``cat A B > /dev/null``: reading both files once,
the floor), ``ours_s`` and ``ours_peak_mb`` (``inspector diff --json A B``: members by
stored bytes), ``digests_only_s`` (``--digests-only``), ``verify_s`` (``--verify``),
``verify_both_s`` (``inspector verify A`` plus ``inspector verify B``) and the ratios
``ours_vs_raw``, ``ours_vs_verify_both``, ``digests_only_vs_checksums``.  Peak memory is the
maximum resident set of the command (``/usr/bin/time -f %M``, the kernel's
``VmHWM`` at exit).  Every file is read once before each run (warm page cache for
every tool alike).  Times are medians of ``--repeat`` runs (default 1); ``cpus``,
the 1-minute load average before and after, and the h5diff version are included.
Usage::

    python benchmarks/diff.py [--repeat N] [--jobs N] [--archives-only]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from decoder_info import decoder

HERE = Path(__file__).resolve().parent
CACHE = Path("/tmp/inspector-diff-bench")
CHUNK_ROWS = 4096
CHANGED_CHUNK = 500


def _recordings() -> dict[str, Path]:
    CACHE.mkdir(parents=True, exist_ok=True)
    source = Path(tempfile.gettempdir()) / "inspector-bench-1gb.h5"
    if not source.exists():
        subprocess.run([sys.executable, str(HERE / "plot_envelope.py"), "--write-only",
                        "--path", str(source)], check=True)
    a, same, one = CACHE / "rec_a.h5", CACHE / "rec_same.h5", CACHE / "rec_one_chunk.h5"
    for path in (a, same):
        if not path.exists():
            shutil.copyfile(source, path)
    if not one.exists():
        tmp = one.with_suffix(".tmp")
        shutil.copyfile(source, tmp)
        import h5py

        with h5py.File(tmp, "a") as f:
            rows = slice(CHANGED_CHUNK * CHUNK_ROWS, (CHANGED_CHUNK + 1) * CHUNK_ROWS)
            f["neuro"][rows] = f["neuro"][rows] + 1.0
        os.replace(tmp, one)
    return {"a": a, "same": same, "one": one}


def _archives() -> tuple[Path, Path]:
    sys.path.insert(0, str(HERE))
    from verify_archive import build

    a = build("500MB")
    b = CACHE / "arch_b.aucx"
    if not b.exists():
        shutil.copyfile(a, b)
    return a, b


def _warm(*paths: Path) -> None:
    for p in paths:
        with open(p, "rb") as fh:
            while fh.read(16 << 20):
                pass


def _timed(cmd: list[str]) -> tuple[float, float, int]:
    """``(seconds, peak MB, exit status)`` of ``cmd`` (``/usr/bin/time``)."""
    fd, out = tempfile.mkstemp(prefix="diff-bench-time-")
    os.close(fd)
    try:
        proc = subprocess.run(["/usr/bin/time", "-o", out, "-f", "%e %M", *cmd],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              check=False)
        seconds, kb = Path(out).read_text().split()[-2:]
    finally:
        os.unlink(out)
    return float(seconds), int(kb) / 1024, proc.returncode


def _median(runs: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    return (statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2])


def _measure(cmd: list[str], files: tuple[Path, ...], repeat: int) -> tuple[float, float, int]:
    runs = []
    for _ in range(repeat):
        _warm(*files)
        runs.append(_timed(cmd))
    return _median(runs)


def _ours(jobs: int) -> list[str]:
    cmd = [sys.executable, "-m", "inspector", "diff", "--json"]
    return cmd + (["--jobs", str(jobs)] if jobs else [])


def _recording_pair(a: Path, b: Path, repeat: int, jobs: int) -> dict[str, object]:
    ours = _measure([*_ours(jobs), str(a), str(b)], (a, b), repeat)
    h5 = _measure(["h5diff", str(a), str(b)], (a, b), repeat)
    h5q = _measure(["h5diff", "-q", str(a), str(b)], (a, b), repeat)
    return {"ours_s": round(ours[0], 2), "ours_peak_mb": round(ours[1], 1),
            "ours_exit": ours[2], "h5diff_s": round(h5[0], 2),
            "h5diff_peak_mb": round(h5[1], 1), "h5diff_exit": h5[2],
            "h5diff_q_s": round(h5q[0], 2), "h5diff_q_peak_mb": round(h5q[1], 1),
            "speedup": round(h5[0] / ours[0], 1) if ours[0] else None}


_READ_CHECKSUMS = ("import sys, zipfile\n"
                   "for p in sys.argv[1:]:\n"
                   "    with zipfile.ZipFile(p) as z:\n"
                   "        z.read('checksums.sha256')\n")


def _ratio(x: float, y: float) -> float | None:
    return round(x / y, 2) if y else None


def _archive_pair(a: Path, b: Path, repeat: int, jobs: int) -> dict[str, object]:
    files = (a, b)
    sums = _measure([sys.executable, "-c", _READ_CHECKSUMS, str(a), str(b)], files, repeat)
    raw = _measure(["sh", "-c", 'cat "$1" "$2" > /dev/null', "sh", str(a), str(b)], files,
                   repeat)
    ours = _measure([*_ours(jobs), str(a), str(b)], files, repeat)
    digests = _measure([*_ours(jobs), "--digests-only", str(a), str(b)], files, repeat)
    verified = _measure([*_ours(jobs), "--verify", str(a), str(b)], files, repeat)
    verify = [_measure([sys.executable, "-m", "inspector", "verify", str(p)], (p,), repeat)
              for p in files]
    both = verify[0][0] + verify[1][0]
    return {"file_mb": round(a.stat().st_size / 1e6, 1),
            "checksums_read_s": round(sums[0], 2), "raw_read_s": round(raw[0], 2),
            "ours_s": round(ours[0], 2), "ours_peak_mb": round(ours[1], 1),
            "ours_exit": ours[2], "digests_only_s": round(digests[0], 2),
            "digests_only_peak_mb": round(digests[1], 1), "verify_s": round(verified[0], 2),
            "verify_peak_mb": round(verified[1], 1), "verify_both_s": round(both, 2),
            "ours_vs_raw": _ratio(ours[0], raw[0]),
            "ours_vs_verify_both": _ratio(ours[0], both),
            "digests_only_vs_checksums": _ratio(digests[0], sums[0])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=0, help="inspector diff --jobs (0: CPUs)")
    ap.add_argument("--archives-only", action="store_true",
                    help="only the identical archives (no recordings, no h5diff)")
    args = ap.parse_args(argv)
    rec = None if args.archives_only else _recordings()
    arch = _archives()
    load_before = os.getloadavg()[0]
    result: dict[str, object] = {}
    if rec is not None:
        version = subprocess.run(["h5diff", "--version"], capture_output=True, text=True,
                                 check=False).stdout.strip()
        result.update({
            "recording_mb": round(rec["a"].stat().st_size / 1e6, 1),
            "identical": _recording_pair(rec["a"], rec["same"], args.repeat, args.jobs),
            "one_chunk": _recording_pair(rec["a"], rec["one"], args.repeat, args.jobs),
            "h5diff": version})
    result.update({
        "archives_identical": _archive_pair(*arch, args.repeat, args.jobs),
        "cpus": os.cpu_count(), "repeat": args.repeat,
        "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
    })
    result["decoder"] = decoder()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
