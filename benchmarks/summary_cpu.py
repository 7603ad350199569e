"""Benchmark: the CPU one chunk of a long recording's overview costs, warm, and where it goes.

The recording is ``cold_overview.py``'s (``neuro`` float32 ``(34 000 000, 64)``,
gzip 4 + shuffle, 16 378 chunks of ``(2076, 64)``; written once into ``--cache``).
Its chunks ``[--first, --first + --chunks)`` are read into the page cache first
(warm: no disk), then, in a fresh summary (no saved one), the exact envelope of
channel 5 over those chunks is made through the reader's own ``ArrayRef``
(``envelope_with_preview``, every channel of every chunk summarised on the worker
pool).  Printed, as one JSON object:

- ``wall_s``, ``cpu_s`` (the process), ``main_thread_cpu_s`` (the thread that asks
  for the envelope: it submits the chunks, hints and collects them), and
  ``cpu_ms_per_chunk`` (``cpu_s`` per chunk, the summary's set-up included);
- single-threaded, best of three passes over ``--stages`` of the chunks, in CPU-ms per
  chunk: ``inflate_ms`` (the one decoder's inflate), ``summary_ms``
  (:func:`~inspector.formats.hdf5.chunk_minmax.stored_block_minmax`: inflate, unshuffle
  and the block min/max of all channels), ``locate_ms`` (HDF5's own lookup of where a
  chunk lies, ``H5Dget_chunk_info_by_coord``, for the same chunks) and ``plain_ms``
  (h5py's read of one channel of those chunks, ``ds[a:b, 5]``);
- the decoder, the CPU count and the load average.

``--first`` defaults to the last chunks of the file, where HDF5's lookup by offset
costs the most.  Run it against another revision's code with ``paired.py``.  Usage::

    python benchmarks/summary_cpu.py [--cache DIR] [--first 14000] [--chunks 1500]
        [--workers 2] [--stages 200]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CHANNEL = 5


def _cpu_s() -> float:
    t = os.times()
    return t.user + t.system


def _warm(path: Path, first: int, count: int) -> None:
    """Read the stored bytes of chunks ``[first, first + count)`` once (page cache)."""
    import h5py

    with h5py.File(path, "r") as f:
        ds = f["neuro"]
        for i in range(first, first + count):
            ds.id.read_direct_chunk((i * ds.chunks[0], 0))


def _best(fn: Any, n: int, reps: int = 3) -> float:
    """Least thread CPU of ``reps`` calls of ``fn``, in ms per item of ``n``."""
    best = float("inf")
    for _ in range(reps):
        c0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - c0)
    return round(best / max(n, 1) * 1e3, 3)


def stages(path: Path, first: int, count: int) -> dict[str, float]:
    """Single-threaded CPU per chunk of each stage (see the module notes)."""
    import h5py

    from inspector.formats.decoding.inflate import inflate_exact
    from inspector.formats.hdf5.chunk_minmax import stored_block_minmax
    from inspector.formats.hdf5.chunk_summary import choose_block

    with h5py.File(path, "r") as f:
        ds = f["neuro"]
        rows, width = ds.chunks
        offsets = [((first + i) * rows, 0) for i in range(count)]
        raw = [ds.id.read_direct_chunk(o) for o in offsets]
        size = rows * width * ds.dtype.itemsize
        block = choose_block(rows)
        return {
            "inflate_ms": _best(lambda: [inflate_exact(r[1], size) for r in raw], count),
            "summary_ms": _best(lambda: [stored_block_minmax(
                r[1], r[0], ("shuffle", "gzip"), ds.dtype, ds.chunks, block) for r in raw],
                count),
            "locate_ms": _best(lambda: [ds.id.get_chunk_info_by_coord(o) for o in offsets],
                               count),
            "plain_ms": _best(lambda: ds[first * rows:(first + count) * rows, CHANNEL], count),
        }


def overview(path: Path, first: int, count: int, workers: int) -> dict[str, Any]:
    """The exact envelope of chunks ``[first, first + count)``, in a fresh summary."""
    from inspector.formats import open_document
    from inspector.formats.analysis.arrays import envelope_with_preview
    from inspector.formats.decoding.workers import worker_pool

    with worker_pool(workers):
        doc = open_document(path)
        ref = doc.arrays["neuro"]
        rows = int(ref.chunk_layout().chunks[0])
        t0, c0, m0 = time.perf_counter(), _cpu_s(), time.thread_time()
        env = envelope_with_preview(ref, (None, CHANNEL), first * rows, (first + count) * rows,
                                    2000, preview=None)
        t1, c1, m1 = time.perf_counter(), _cpu_s(), time.thread_time()
        assert env.exact
        doc.close()
    return {"wall_s": round(t1 - t0, 2), "cpu_s": round(c1 - c0, 2),
            "main_thread_cpu_s": round(m1 - m0, 2),
            "cpu_ms_per_chunk": round((c1 - c0) / count * 1e3, 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "INSPECTOR_BENCH_DIR", tempfile.gettempdir())))
    ap.add_argument("--first", type=int, default=14000)
    ap.add_argument("--chunks", type=int, default=1500)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--stages", type=int, default=200)
    args = ap.parse_args(argv)
    from cold_overview import SAMPLES, recording
    from decoder_info import decoder

    path = recording(args.cache, SAMPLES)
    load = os.getloadavg()[0]
    _warm(path, args.first, args.chunks)
    out: dict[str, Any] = {"first": args.first, "chunks": args.chunks,
                           "workers": args.workers}
    with tempfile.TemporaryDirectory(prefix="inspector-summary-cpu-") as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # no summary saved by an earlier run
        out.update(overview(path, args.first, args.chunks, args.workers))
    out.update(stages(path, args.first, args.stages))
    out.update({"decoder": decoder(), "cpus": len(os.sched_getaffinity(0)),
                "load_1min_before": round(load, 2),
                "load_1min_after": round(os.getloadavg()[0], 2)})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
