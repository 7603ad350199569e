"""Benchmark: the exact whole-range overview of a long recording read cold from disk.

The recording (written once, cached in ``--cache``, default ``$INSPECTOR_BENCH_DIR``
or the temporary folder) is ``plot_envelope.py``'s continuous recording made longer:
``neuro`` float32 ``(34 000 000, 64)``, 8.70 GB of samples (9.4 hours at 1 kHz), gzip
level 4 + shuffle, chunked as the reference writer does (``(2076, 64)``, 0.53 MB).
Its first 256 chunks are computed and compressed by the writer; the later chunks
repeat their stored bytes (``write_recording(..., repeat_rows=...)``), so the file is
written at the disk's speed and every chunk costs as much to decode as a computed one.

Before each measured read the file is *cold*: its pages are dropped from the page
cache with ``posix_fadvise(POSIX_FADV_DONTNEED)`` (after ``fsync``; no root
``drop_caches`` needed), and the fraction still resident is checked with
``mincore`` (``resident_before_read``).  Each read runs in a fresh interpreter:

- ``ours``: ``open_document`` and the exact whole-range envelope of one channel at
  2000 bins through the reader's own ``ArrayRef`` (``envelope_with_preview``, which
  summarises every channel of every chunk on the worker pool), with the chunk meter
  running as the window runs it (``ChunkMeter`` + ``metering``): ``ours_s``,
  ``ours_cpu_s``, ``first_preview_s``, ``progress_reports`` (how many fractions the
  meter reported), ``progress_longest_silence_s`` (the longest interval without a
  report), ``chunks_read``/``chunks_needed``;
- ``plain``: a plain single-threaded h5py read of the same channel
  (``ds[:, channel]``) and numpy's min/max per bin.  One channel, not the whole
  dataset: a chunk holds all 64 channels, so reading one channel reads and inflates
  every stored byte, as the whole dataset would, without holding 8.7 GB in memory.
  ``plain_s``, ``plain_cpu_s``, and ``envelope_equal`` (numpy's min/max at our bin
  edges equals ours);
- ``window`` (with ``--window``): ``gui_latency.py``'s ``open_recording_1gb``
  scenario on this file: the real main window, offscreen, from opening the file to
  its exact curves (``window_s``; ``window_exact_curve_s``), the progress bar's
  updates seen (``window_progress_updates``) and the GUI thread's stalls
  (``window_max_gap_gui_cpu_ms``, ``window_max_gap_ms``);
- ``ours_no_prefetch`` (with ``--no-prefetch``): ``ours`` again without the summary's
  read-ahead of the chunks it will decode next (``chunk_summary.PREFETCH_AHEAD``):
  ``ours_no_prefetch_s``.

Also printed: ``ours_vs_plain`` (``ours_s / plain_s``; the target is at most 0.5),
the disk's sequential throughput read with ``dd iflag=direct`` (``disk_direct_mb_s``:
no page cache) and what the cold reads needed of it (``plain_mb_s``, ``ours_mb_s``:
stored bytes per second), the decoder in use, the CPU count and the load average.

Usage::

    python benchmarks/cold_overview.py [--cache DIR] [--channel 5] [--window]
        [--no-prefetch] [--samples 34000000]
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import mmap
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from decoder_info import decoder  # noqa: E402 - a sibling script

SAMPLES = 34_000_000
#: Chunks computed by the writer; the rest repeat their stored bytes.
COMPUTED_CHUNKS = 256
BINS = 2000


# -- the input -------------------------------------------------------------------------
def recording(cache: Path, samples: int) -> Path:
    """The cached recording (written once, in a child process)."""
    path = cache / f"inspector-bench-cold-{samples}.h5"
    if not path.exists():
        print(f"writing {path} (once)...", file=sys.stderr)
        subprocess.run([sys.executable, __file__, "--child", "write", "--path", str(path),
                        "--samples", str(samples)], check=True)
    return path


def _write(path: Path, samples: int) -> None:
    from plot_envelope import N_CHANNELS, reference_chunks, write_recording

    rows = reference_chunks((samples, N_CHANNELS), 4)[0]
    write_recording(path, samples, repeat_rows=rows * COMPUTED_CHUNKS)


# -- the page cache ----------------------------------------------------------------------
def resident_fraction(path: Path) -> float:
    """The fraction of ``path``'s pages in the page cache (``mincore``; Linux)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = path.stat().st_size
    page = mmap.PAGESIZE
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap failed")
        try:
            vec = ctypes.create_string_buffer(-(-size // page))
            if libc.mincore(ctypes.c_void_p(addr), size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore failed")
            pages = np.frombuffer(vec.raw, dtype=np.uint8)
            return float((pages & 1).mean())
        finally:
            libc.munmap(ctypes.c_void_p(addr), size)
    finally:
        os.close(fd)


def evict(path: Path) -> float:
    """Drop ``path`` from the page cache; the fraction of its pages still resident."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)  # dirty pages cannot be dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return resident_fraction(path)


def disk_direct_mb_s(path: Path) -> float | None:
    """Sequential read throughput of the whole file with ``dd iflag=direct`` (MB/s)."""
    try:
        proc = subprocess.run(["dd", f"if={path}", "of=/dev/null", "bs=8M", "iflag=direct"],
                              capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(r"^(\d+) bytes.*copied, ([\d.]+) s", proc.stderr, re.M)
    return round(int(m.group(1)) / float(m.group(2)) / 1e6, 1) if m else None


# -- the reads (children) ------------------------------------------------------------------
def _cpu_s() -> float:
    t = os.times()
    return t.user + t.system


def read_ours(path: Path, channel: int, out: Path) -> dict[str, Any]:
    """Our exact whole-range overview of ``channel``, the chunk meter running."""
    from inspector.formats import open_document
    from inspector.formats.analysis.arrays import envelope_with_preview
    from inspector.formats.analysis.read_meter import ChunkMeter, metering
    from inspector.formats.decoding.workers import worker_pool

    reports: list[tuple[float, int, int]] = []
    first: list[float] = []
    with worker_pool():
        t0, c0 = time.perf_counter(), _cpu_s()
        doc = open_document(path)
        ref = doc.arrays["neuro"]
        n = int(ref.shape[0])
        idx = (None, channel)
        needed = ref.envelope_chunks(idx, 0, n, BINS)
        meter = ChunkMeter(len(needed), lambda d, k: reports.append((time.perf_counter(), d, k)))
        with metering(meter):
            env = envelope_with_preview(
                ref, idx, 0, n, BINS,
                preview=lambda e: first or first.append(time.perf_counter()))
            meter.flush()
        t1, c1 = time.perf_counter(), _cpu_s()
        assert env.exact and not env.raw
        np.savez(out, edges=env.edges(), lo=env.lo, hi=env.hi)
        doc.close()
    times = [t0] + [r[0] for r in reports] + [t1]
    return {"ours_s": round(t1 - t0, 2), "ours_cpu_s": round(c1 - c0, 2),
            "first_preview_s": round(first[0] - t0, 2) if first else None,
            "progress_reports": len(reports),
            "progress_longest_silence_s": round(max(np.diff(times)), 2),
            "chunks_read": meter.done, "chunks_needed": meter.needed}


def read_plain(path: Path, channel: int, ours: Path) -> dict[str, Any]:
    """A plain h5py read of ``channel`` and numpy's min/max per bin."""
    import h5py

    from inspector.formats.analysis.arrays import bin_edges, minmax_bins

    t0, c0 = time.perf_counter(), _cpu_s()
    with h5py.File(path, "r") as f:
        line = f["neuro"][:, channel]
    n = line.shape[0]
    minmax_bins(line, bin_edges(0, n, BINS))
    t1, c1 = time.perf_counter(), _cpu_s()
    with np.load(ours) as z:
        lo, hi = minmax_bins(line, z["edges"].astype(np.int64))
        equal = bool(np.array_equal(lo, z["lo"]) and np.array_equal(hi, z["hi"]))
    return {"plain_s": round(t1 - t0, 2), "plain_cpu_s": round(c1 - c0, 2),
            "envelope_equal": equal}


def _child(mode: str, path: Path, channel: int, npz: Path) -> dict[str, Any]:
    """Evict ``path``, then run one read in a fresh interpreter."""
    resident = evict(path)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, __file__, "--child", mode, "--path", str(path),
                           "--channel", str(channel), "--npz", str(npz)],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if proc.returncode:
        sys.stderr.write(proc.stderr)
        return {f"{mode}_error": proc.returncode}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out[f"{mode}_resident_before_read"] = round(resident, 4)
    return out


def _window(path: Path) -> dict[str, Any]:
    """``gui_latency.py``'s open scenario on the cold file."""
    import gui_latency

    resident = evict(path)
    res = gui_latency._run_child("open_recording_1gb", path, None, False)
    out = {"window_resident_before_read": round(resident, 4)}
    for key, name in (("wall_ms", "window_s"), ("exact_curve_ms", "window_exact_curve_s")):
        if res.get(key) is not None:
            out[name] = round(res[key] / 1000, 2)
    for key in ("progress_updates", "max_gap_ms", "max_gap_gui_cpu_ms",
                "gaps_over_50ms_gui_cpu", "timed_out", "cpu_ms", "gui_thread_cpu_ms"):
        out[f"window_{key}"] = res.get(key)
    return out


def _read(args: argparse.Namespace) -> dict[str, Any]:
    """The read ``args.child`` names, in this (fresh) process."""
    if args.child == "plain":
        return read_plain(args.path, args.channel, args.npz)
    if args.child == "ours_no_prefetch":
        from inspector.formats.hdf5 import chunk_summary

        chunk_summary.PREFETCH_AHEAD = args.samples  # never reached: no read-ahead
        return {k.replace("ours", "ours_no_prefetch"): v
                for k, v in read_ours(args.path, args.channel, args.npz).items()}
    return read_ours(args.path, args.channel, args.npz)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "INSPECTOR_BENCH_DIR", tempfile.gettempdir())))
    ap.add_argument("--samples", type=int, default=SAMPLES)
    ap.add_argument("--channel", type=int, default=5)
    ap.add_argument("--window", action="store_true")
    ap.add_argument("--no-prefetch", action="store_true",
                    help="also run ours without reading chunks ahead (ours_no_prefetch_s)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--npz", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child == "write":
        _write(args.path, args.samples)
        return 0
    if args.child in ("ours", "ours_no_prefetch", "plain"):
        with tempfile.TemporaryDirectory(prefix="inspector-cold-") as cache:
            os.environ["XDG_CACHE_HOME"] = cache  # no summary saved by an earlier run
            print(json.dumps(_read(args)), flush=True)
        return 0
    return run(args)


def run(args: argparse.Namespace) -> int:
    """The measurements, in this order: disk, ours, plain, window."""
    args.cache.mkdir(parents=True, exist_ok=True)
    path = recording(args.cache, args.samples)
    load = os.getloadavg()[0]
    size = path.stat().st_size
    out: dict[str, Any] = {"file_gb": round(size / 1e9, 2),
                           "samples_gb": round(args.samples * 64 * 4 / 1e9, 2),
                           "channel": args.channel}
    evict(path)
    out["disk_direct_mb_s"] = disk_direct_mb_s(path)
    with tempfile.TemporaryDirectory(prefix="inspector-cold-") as tmp:
        npz = Path(tmp) / "ours.npz"
        out.update(_child("ours", path, args.channel, npz))
        out.update(_child("plain", path, args.channel, npz))
        if args.no_prefetch:
            out.update(_child("ours_no_prefetch", path, args.channel, npz))
    if args.window:
        out.update(_window(path))
    if out.get("ours_s") and out.get("plain_s"):
        out["ours_vs_plain"] = round(out["ours_s"] / out["plain_s"], 2)
        out["ours_mb_s"] = round(size / 1e6 / out["ours_s"], 1)
        out["plain_mb_s"] = round(size / 1e6 / out["plain_s"], 1)
    out.update({"decoder": decoder(), "cpus": len(os.sched_getaffinity(0)),
                "load_1min_before": round(load, 2),
                "load_1min_after": round(os.getloadavg()[0], 2)})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
