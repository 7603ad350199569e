"""Benchmark: condition averages of one channel, block by block against the naive way.

Writes once (cached in ``$INSPECTOR_BENCH_DIR`` or ``/tmp/inspector-bench-vneurotk``,
in a child process so that its memory is not measured) two schema-1 recordings
whose float32 neural array is about ``--size`` (default 1GB), 64 channels at
1 kHz, laid out as the reference writer does (``BaseData.save`` defaults:
chunks of at most 1 MiB found by halving the longest axis, gzip level 4 +
shuffle), with 50 stimulus IDs over the trials:

* ``epochs_<size>.h5``: ``(1000, time, 64)``, onset at 1/5 of each epoch,
  ``trial_window = [-onset, time - onset]``;
* ``continuous_<size>.h5``: ``(time, 64)`` with 1000 onsets one inter-stimulus
  interval (ISI) apart, each trial from ISI/20 before its onset to ISI/5
  after (``trial_window``; at 1 GB an ISI of 4.2 s and a window of about
  [-0.2, 0.84) s, a usual evoked-response epoch), so the epochs cover 25 %
  of the recording: the naive way materialises the whole channel, the
  block reader decodes only the chunks the epochs touch (at 1 GB the
  reference's chunks of 4096 samples are about one ISI long, so nearly every
  chunk holds part of a trial: both decode about the whole array, and
  inflating it is the floor).

Then, on the opened documents (opening excluded), it times
``inspector.formats.analysis.trial_average.trial_average(doc, "stimulus", channels=[5])``
(per-condition mean, sem and n against time) and the naive way: read the
channel whole with h5py (``neuro[:, :, 5]`` / ``neuro[:, 5]``), cut the
epochs with numpy, then ``pandas`` ``groupby`` ``mean``, ``sem`` and
``count``.  Prints one JSON object: ``epochs_ms``, ``naive_epochs_ms``,
``continuous_ms``, ``naive_continuous_ms`` (medians of ``--runs``),
``peak_rss_mb`` (peak resident memory of the measuring process, read right
after the ``trial_average`` runs, before the naive runs),
``max_abs_diff`` (largest difference between the two results, a sanity
check), the CPU time of every measured run (``*_cpu_ms``, all threads: on
a shared machine wall time also counts waiting for a core), ``size``,
``cpus``, the 1-minute load average before and after measuring, the
decoder in use (``decoder``, :data:`inspector.formats.decoding.inflate.DECODER`) and
``epochs_vs_naive`` / ``continuous_vs_naive`` (naive time over ours, same run).

Usage: ``python benchmarks/trial_average.py [--size 100MB|1GB] [--runs N]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
from decoder_info import decoder

SIZES = {"10MB": 10 * 2**20, "100MB": 100 * 2**20, "1GB": 2**30}
N_CH = 64
N_TRIALS = 1000
N_STIM = 50
SFREQ = 1000.0
CHANNEL = 5
CHUNK_TARGET = 1 << 20


def reference_chunks(shape: tuple[int, ...], itemsize: int,
                     target: int = CHUNK_TARGET) -> tuple[int, ...]:
    """Chunk shape of the reference writer: halve the longest axis until <= target bytes."""
    chunks = [max(1, int(n)) for n in shape]
    while int(np.prod(chunks)) * itemsize > target:
        axis = max(range(len(chunks)), key=lambda i: chunks[i])
        if chunks[axis] == 1:
            break
        chunks[axis] = max(1, (chunks[axis] + 1) // 2)
    return tuple(chunks)


def _typed(group: h5py.Group, name: str, values: list[int]) -> None:
    g = group.create_group(name)
    g.attrs["encoding"] = "vneurotk_scalar_v1"
    g.create_dataset("types", data=np.full(len(values), 2, dtype=np.uint8))
    g.create_dataset("values", data=np.asarray([str(v) for v in values],
                                               dtype=h5py.string_dtype("utf-8")))


def _metadata(f: h5py.File, shape: tuple[int, ...], ids: list[int], window: list[int]) -> None:
    ni = f.create_group("neuro_info")
    ni.attrs["sfreq"] = SFREQ
    ni.attrs["ch_names"] = np.array([f"E{i}" for i in range(N_CH)], dtype=h5py.string_dtype())
    ni.attrs["shape"] = list(shape)
    vi = f.create_group("vision_info")
    vi.attrs["n_stim"] = len(set(ids))
    _typed(vi, "stim_ids", sorted(set(ids)))
    ti = f.create_group("trial_info")
    ti.attrs["baseline"] = np.array([window[0], 0])
    ti.attrs["trial_window"] = np.array(window)


def _signal(rng: np.random.Generator, t0: int, n: int) -> np.ndarray:
    t = (np.arange(t0, t0 + n, dtype=np.float64) / SFREQ)[:, None]
    sig = 20 * np.sin(2 * np.pi * 10 * t + np.arange(N_CH))
    return (sig + rng.standard_normal((n, N_CH))).astype(np.float32)


def write_epochs(path: Path, nbytes: int) -> None:
    """``(1000, time, 64)`` float32 epochs, onset at 1/5 of each epoch."""
    n_time = max(10, nbytes // (N_TRIALS * N_CH * 4))
    onset = n_time // 5
    rng = np.random.default_rng(0)
    ids = [i % N_STIM for i in range(N_TRIALS)]
    shape = (N_TRIALS, n_time, N_CH)
    with h5py.File(path, "w") as f:
        f.attrs.update({"vneurotk_format": "recording", "vneurotk_schema_version": 1,
                        "writer_version": "0.1.0", "data_mode": "epochs", "neuro_format": "dense"})
        ds = f.create_dataset("neuro", shape=shape, dtype=np.float32,
                              chunks=reference_chunks(shape, 4), compression="gzip",
                              compression_opts=4, shuffle=True)
        step = ds.chunks[0]
        for a in range(0, N_TRIALS, step):
            b = min(N_TRIALS, a + step)
            block = np.stack([_signal(rng, 0, n_time) for _ in range(b - a)])
            block[:, onset:onset + n_time // 4] += np.asarray(ids[a:b], np.float32)[:, None, None]
            ds[a:b] = block
        labels = np.full((N_TRIALS, n_time), np.nan)
        labels[:, onset] = ids
        f.create_dataset("stim_labels", data=labels.ravel())
        f.attrs.update({"stim_labels_encoding": "native", "stim_labels_is_str": False,
                        "stim_labels_shape": [N_TRIALS, n_time]})
        f.create_dataset("trial", data=np.repeat(np.arange(N_TRIALS, dtype=float)[:, None],
                                                 n_time, axis=1))
        f.create_dataset("trial_starts", data=np.zeros(N_TRIALS, np.int64))
        f.create_dataset("trial_ends", data=np.full(N_TRIALS, n_time, np.int64))
        f.create_dataset("vision_onsets", data=np.full(N_TRIALS, onset, np.int64))
        _metadata(f, shape, ids, [-onset, n_time - onset])


def continuous_layout(nbytes: int) -> tuple[int, np.ndarray, list[int]]:
    """``(n_time, onsets, trial_window)`` of the continuous benchmark recording."""
    n_time = nbytes // (N_CH * 4)
    isi = n_time // N_TRIALS
    onsets = np.arange(N_TRIALS, dtype=np.int64) * isi + isi // 20
    return n_time, onsets, [-(isi // 20), isi // 5]


def write_continuous(path: Path, nbytes: int) -> None:
    """``(time, 64)`` float32, 1000 onsets, trials covering 25 % of the recording."""
    n_time, onsets, window = continuous_layout(nbytes)
    rng = np.random.default_rng(1)
    ids = [i % N_STIM for i in range(N_TRIALS)]
    with h5py.File(path, "w") as f:
        f.attrs.update({"vneurotk_format": "recording", "vneurotk_schema_version": 1,
                        "writer_version": "0.1.0", "data_mode": "continuous",
                        "neuro_format": "dense"})
        ds = f.create_dataset("neuro", shape=(n_time, N_CH), dtype=np.float32,
                              chunks=reference_chunks((n_time, N_CH), 4), compression="gzip",
                              compression_opts=4, shuffle=True)
        block = 1 << 18
        for a in range(0, n_time, block):
            ds[a:min(n_time, a + block)] = _signal(rng, a, min(n_time, a + block) - a)
        labels = np.full(n_time, np.nan)
        labels[onsets] = ids
        f.create_dataset("stim_labels", data=labels)
        f.attrs.update({"stim_labels_encoding": "native", "stim_labels_is_str": False,
                        "stim_labels_shape": [n_time]})
        starts, ends = onsets + window[0], onsets + window[1]
        trial = np.full(n_time, np.nan)
        for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
            trial[s:e] = i
        for name, v in (("trial", trial), ("trial_starts", starts), ("trial_ends", ends),
                        ("vision_onsets", onsets)):
            f.create_dataset(name, data=v)
        _metadata(f, (n_time, N_CH), ids, window)


def build(folder: Path, label: str) -> dict[str, Path]:
    """The two recordings of ``label`` size, written by a child process when missing."""
    paths = {m: folder / f"trial_average_{m}_{label}.h5" for m in ("epochs", "continuous")}
    for mode, path in paths.items():
        if not path.exists():
            print(f"writing {path} ...", file=sys.stderr)
            subprocess.run([sys.executable, __file__, "--write", mode, "--size", label,
                            "--out", str(path)], check=True)
    return paths


def naive(path: Path, mode: str, ids: np.ndarray, window: tuple[int, int],
          onsets: np.ndarray) -> pd.DataFrame:
    """Materialise the channel with h5py, cut epochs with numpy, pandas groupby."""
    with h5py.File(path, "r") as f:
        if mode == "epochs":
            x = f["neuro"][:, :, CHANNEL].astype(np.float64)
            x = x[:, onsets[0] + window[0]:onsets[0] + window[1]]
        else:
            chan = f["neuro"][:, CHANNEL].astype(np.float64)
            x = chan[onsets[:, None] + np.arange(*window)[None, :]]
    g = pd.DataFrame(x).groupby(ids)
    return pd.concat({"mean": g.mean(), "sem": g.sem(), "n": g.count()}, axis=1)


def _ms(fn) -> tuple[float, float, object]:
    """Wall and CPU (all threads of the process) milliseconds of ``fn()``, and its result."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - t0) * 1000.0, (time.process_time() - c0) * 1000.0, out


def measure(paths: dict[str, Path], runs: int) -> dict[str, float]:
    from inspector.formats.analysis.trial_average import trial_average
    from inspector.formats.decoding.workers import worker_pool
    from inspector.formats.registry import open_document

    out: dict[str, float] = {}
    docs = {m: open_document(p) for m, p in paths.items()}
    for doc in docs.values():
        doc.verify()  # the trial stimulus IDs come from the deferred label scan
    with worker_pool():
        results = {}
        for mode, doc in docs.items():
            if not doc.ok:
                raise SystemExit(f"{paths[mode]} did not open cleanly: {list(doc.findings)}")
            times, cpu = [], []
            for _ in range(runs):
                ms, cpu_ms, results[mode] = _ms(
                    lambda d=doc: trial_average(d, "stimulus", channels=[CHANNEL]))
                times.append(ms)
                cpu.append(cpu_ms)
            out[f"{mode}_ms"] = round(statistics.median(times), 1)
            out[f"{mode}_cpu_ms"] = round(statistics.median(cpu), 1)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    diff = 0.0
    for mode, doc in docs.items():
        t = doc.trials
        ids = np.asarray(t.trial_stim_ids)
        onsets = t.vision_onsets
        window = results[mode].attrs["window_samples"]
        times, cpu = [], []
        for _ in range(runs):
            ms, cpu_ms, ref = _ms(lambda m=mode, i=ids, w=window, o=onsets:
                                  naive(paths[m], m, i, w, o))
            times.append(ms)
            cpu.append(cpu_ms)
        out[f"naive_{mode}_ms"] = round(statistics.median(times), 1)
        out[f"naive_{mode}_cpu_ms"] = round(statistics.median(cpu), 1)
        res = results[mode]
        ours = res["mean"].to_numpy().reshape(len(res.attrs["conditions"]), -1)
        diff = max(diff, float(np.nanmax(np.abs(ours - ref["mean"].to_numpy()))))
        doc.close()
    out["max_abs_diff"] = diff
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1GB", choices=list(SIZES))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--write", choices=["epochs", "continuous"], help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.write:
        out = Path(args.out)
        tmp = out.with_suffix(".tmp")
        (write_epochs if args.write == "epochs" else write_continuous)(tmp, SIZES[args.size])
        os.replace(tmp, out)
        return 0
    folder = Path(os.environ.get("INSPECTOR_BENCH_DIR", "/tmp/inspector-bench-vneurotk"))
    folder.mkdir(parents=True, exist_ok=True)
    paths = build(folder, args.size)
    load = os.getloadavg()[0]
    result = measure(paths, args.runs)
    result.update({"size": args.size, "cpus": len(os.sched_getaffinity(0)),
                   "load_1min_before": round(load, 2), "decoder": decoder(),
                   "load_1min_after": round(os.getloadavg()[0], 2)})
    for mode in ("epochs", "continuous"):
        if result.get(f"{mode}_ms"):
            result[f"{mode}_vs_naive"] = round(result[f"naive_{mode}_ms"]
                                               / result[f"{mode}_ms"], 2)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
