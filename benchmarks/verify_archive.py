"""Benchmark: streamed AUCX verification against the reference library.

Builds (once, cached in ``/tmp/inspector-aucx-bench``) two shared-axis AUCX
archives of about 50 MB and 500 MB whose signal is a smooth profile plus
Gaussian noise in float64 (random mantissas: deflate barely shrinks it), then
prints one JSON object::

    {"50MB": {"file_mb", "uncompressed_mb", "ours_s", "ours_overview_s", "reference_s",
              "ours_peak_mb", "ours_overview_peak_mb", "reference_peak_mb", "sha256_s",
              "runs"}, "500MB": {...}}

* ``ours_s``: ``inspector.formats.aucx.open_archive(path)`` + ``doc.verify()``
  (as ``inspector verify`` does);
* ``ours_overview_s``: the same as the desktop app opens an archive
  (``overview_columns=OVERVIEW_COLUMNS``: the verification also builds the
  full-range scan envelopes for the plot), with ``ours_overview_peak_mb``;
* ``reference_s``: ``openauc.validate_aucx(path)`` (openauc 0.1.0a1), same
  file, same run;
* ``sha256_s``: plain ``hashlib.sha256`` over the same uncompressed member
  bytes, already in memory;
* ``floor_s``: the floor of a verifier that inflates: SHA-256 plus inflate of
  every member, read from the file, with the chosen decoder
  (:func:`inspector.formats.decoding.inflate.stream_decompressor`) on two cores (a
  large member inflates on one thread while another hashes, small members
  two at a time), nothing else; ``ours_vs_floor`` is ``ours_s / floor_s``;
* ``*_peak_mb``: the peak resident memory (``VmHWM``) of a fresh subprocess
  doing only that job (interpreter and imports included);
* ``decoder``, ``cpus`` and the 1-minute load average before and after.

Times are medians over ``--repeat`` runs (default 3), each in its own
subprocess; imports are not timed.  Usage::

    python benchmarks/verify_archive.py [--repeat N] [--sizes 50MB,500MB]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CACHE = Path("/tmp/inspector-aucx-bench")
#: label -> (scans, points); float64 signal bytes = scans * points * 8.
SIZES = {"50MB": (50, 125_000), "500MB": (500, 125_000)}
_BUILD_VERSION = "1"


def build(label: str) -> Path:
    """The cached archive for ``label``; written with :func:`write_aucx` if absent."""
    import numpy as np

    from inspector.formats.auc.model import AucExperiment
    from inspector.formats.aucx import write_aucx

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"bench_{label}_v{_BUILD_VERSION}.aucx"
    if path.is_file():
        return path
    n_scans, n_points = SIZES[label]
    rng = np.random.default_rng(12345)
    radius = np.linspace(5.9, 7.2, n_points)
    signal = np.empty((n_scans, n_points))
    for i in range(n_scans):
        boundary = 6.0 + 1.0 * i / max(n_scans - 1, 1)
        signal[i] = 0.5 * (1 + np.tanh((radius - boundary) / 0.02)) + rng.normal(0, 0.01, n_points)
    scans = [{"scan_id": f"scan_{i + 1:04d}", "index": i,
              "elapsed_time": {"value": float(60 * i), "unit": "s", "unit_label": None,
                               "status": "present", "provenance": "supplied"}}
             for i in range(n_scans)]
    exp = AucExperiment(
        metadata={"experiment_id": f"bench-{label}"}, instrument=None, samples=[], scans=scans,
        provenance=None, mode="shared", radius_unit="cm", signal_unit="AU",
        scan_ids=[s["scan_id"] for s in scans], radius=radius, signal=signal,
        mask=np.ones(signal.shape, dtype=bool))
    write_aucx(exp, path, exported_at="2026-01-01T00:00:00+00:00", overwrite=True)
    return path


# -- child jobs (each runs in a fresh interpreter) ---------------------------
def _child(job: str, path: str) -> dict:
    import time

    if job in ("ours", "ours_overview"):
        from inspector.formats.analysis.scan_envelope import OVERVIEW_COLUMNS
        from inspector.formats.aucx import open_archive

        columns = OVERVIEW_COLUMNS if job == "ours_overview" else 0
        t0 = time.perf_counter()
        doc = open_archive(Path(path), overview_columns=columns)
        doc.verify()
        seconds = time.perf_counter() - t0
        ok = doc.ok and doc.verified and (doc.auc.overview is not None) == bool(columns)
    elif job == "reference":
        import openauc

        t0 = time.perf_counter()
        report = openauc.validate_aucx(path)
        seconds = time.perf_counter() - t0
        ok = report.is_valid
    elif job == "floor":
        t0 = time.perf_counter()
        _floor(path)
        seconds = time.perf_counter() - t0
        ok = True
    elif job == "sha256":
        import hashlib
        import zipfile

        with zipfile.ZipFile(path) as zf:
            members = [zf.read(i) for i in zf.infolist()]
        t0 = time.perf_counter()
        for data in members:
            hashlib.sha256(data).hexdigest()
        seconds = time.perf_counter() - t0
        ok = True
    else:
        raise SystemExit(f"unknown job {job}")
    return {"seconds": seconds, "maxrss_mb": peak_mb(), "ok": ok}


def peak_mb() -> float:
    """Peak resident memory of this process in MB: ``VmHWM`` (``ru_maxrss`` keeps
    the parent's size at ``fork`` across ``exec``: a parent that built the archive
    would be counted)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _member_blocks(path: str, info, block: int = 1 << 20):
    """The inflated blocks of one deflated member, read from the file."""
    from inspector.formats.decoding import inflate

    with open(path, "rb") as fh:
        fh.seek(info.header_offset + 26)
        n, m = int.from_bytes(fh.read(2), "little"), int.from_bytes(fh.read(2), "little")
        fh.seek(info.header_offset + 30 + n + m)
        d = inflate.stream_decompressor()
        left, pending = info.compress_size, b""
        while True:
            if not pending:
                if d.eof or left <= 0:
                    return
                pending = fh.read(min(block, left))
                left -= len(pending)
            out = d.decompress(pending, block)
            pending = d.unconsumed_tail
            if out:
                yield out


def _floor(path: str) -> None:
    """SHA-256 + inflate of every member on two threads, nothing else."""
    import hashlib
    import queue
    import threading
    import zipfile
    from concurrent.futures import ThreadPoolExecutor

    with zipfile.ZipFile(path) as zf:
        infos = sorted(zf.infolist(), key=lambda i: -i.file_size)

    def small(info) -> str:
        h = hashlib.sha256()
        for b in _member_blocks(path, info):
            h.update(b)
        return h.hexdigest()

    for info in [i for i in infos if i.file_size >= 8 << 20]:
        q: queue.Queue = queue.Queue(maxsize=2)
        h = hashlib.sha256()

        def consume(q=q, h=h) -> None:
            while (b := q.get()) is not None:
                h.update(b)

        t = threading.Thread(target=consume)
        t.start()
        for b in _member_blocks(path, info):
            q.put(b)
        q.put(None)
        t.join()
    with ThreadPoolExecutor(2) as ex:
        list(ex.map(small, [i for i in infos if i.file_size < 8 << 20]))


def _run_child(job: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", job, str(path)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(label: str, repeat: int) -> dict:
    import zipfile

    path = build(label)
    with zipfile.ZipFile(path) as zf:
        uncompressed = sum(i.file_size for i in zf.infolist())
    runs: dict[str, list[dict]] = {"ours": [], "ours_overview": [], "reference": [],
                                   "sha256": [], "floor": []}
    for _ in range(repeat):
        for job in runs:
            runs[job].append(_run_child(job, path))
    for job, rs in runs.items():
        if not all(r["ok"] for r in rs):
            raise SystemExit(f"{job} did not accept {path}")

    def med(job: str, key: str) -> float:
        return round(statistics.median(r[key] for r in runs[job]), 3)

    ours, ref = med("ours", "seconds"), med("reference", "seconds")
    return {
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "uncompressed_mb": round(uncompressed / 1e6, 1),
        "ours_s": ours,
        "ours_overview_s": med("ours_overview", "seconds"),
        "reference_s": ref,
        "speedup": round(ref / ours, 2) if ours else None,
        "ours_peak_mb": round(max(r["maxrss_mb"] for r in runs["ours"]), 1),
        "ours_overview_peak_mb": round(max(r["maxrss_mb"] for r in runs["ours_overview"]), 1),
        "reference_peak_mb": round(max(r["maxrss_mb"] for r in runs["reference"]), 1),
        "sha256_s": med("sha256", "seconds"),
        "floor_s": med("floor", "seconds"),
        "ours_vs_floor": round(ours / med("floor", "seconds"), 2),
        "floor_peak_mb": round(max(r["maxrss_mb"] for r in runs["floor"]), 1),
        "ours_s_runs": [round(r["seconds"], 3) for r in runs["ours"]],
        "reference_s_runs": [round(r["seconds"], 3) for r in runs["reference"]],
        "runs": repeat,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--child", nargs=2, metavar=("JOB", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(*args.child)))
        return 0
    load = os.getloadavg()[0]
    result: dict = {label: measure(label, args.repeat) for label in args.sizes.split(",")}
    from inspector.formats.decoding.inflate import DECODER

    result.update({"decoder": DECODER, "cpus": len(os.sched_getaffinity(0)),
                   "load_1min_before": round(load, 2),
                   "load_1min_after": round(os.getloadavg()[0], 2)})
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
