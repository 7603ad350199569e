"""Headless benchmark of plot envelopes on a 1 GB continuous recording (issue 6).

Writes once (cached in ``$TMPDIR``, default ``/tmp``) a VneuroTK-style
continuous recording: ``neuro`` float32 ``(4194304, 64)`` (1 GiB), gzip level
4 + shuffle, chunked as the reference writer does (halve the longest axis
until a chunk holds at most 1 MiB: ``(4096, 64)``), then measures through the
app's own code path (``open_document`` -> ``doc.arrays["neuro"].envelope``,
the recording reader's own ArrayRef with its chunk hook) and prints one JSON
object:

- ``first_preview_ms``: cold summary; time to the first progressive preview
  of the whole range of one channel at 2000 bins.
- ``exact_full_ms``: cold summary; time to the exact envelope of that range.
- ``window_10k_ms``: envelope of a 10 000-sample window in the middle
  (decoded-chunk cache emptied first).
- ``naive_full_ms``: h5py read of the whole channel, then numpy min/max per bin.
- ``other_channel_ms``: whole-range envelope of another channel afterwards.
- ``pan_zoom_ms``: summary warm; the median, over a scripted sequence of
  zooms and pans (``gui_latency.pan_zoom_ranges``: four 4x zooms in, four
  pans, three zooms out), of the time from a range change of the app's
  :class:`~inspector.ui.plots.neural.NeuralView` (offscreen, 1200 x 600, four
  channels) to its exact curves drawn and painted; ``pan_zoom_steps_ms``
  lists every step.
- ``peak_rss_mb``: peak resident memory of the measuring process;
- ``exact_vs_naive``: ``naive_full_ms / exact_full_ms`` (medians), with every
  run's figures in ``exact_full_runs_ms`` and ``naive_full_runs_ms``;
- ``decoder``: the inflater in use (:data:`inspector.formats.decoding.inflate.DECODER`),
  ``cpus`` and the 1-minute load average before and after measuring.

Medians of ``--repeat`` runs (default 3).  Usage::

    python benchmarks/plot_envelope.py [--repeat N] [--path FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from decoder_info import decoder

N_SAMPLES = 4 * 1024 * 1024
N_CHANNELS = 64
SFREQ = 1000.0
BINS = 2000


def reference_chunks(
    shape: tuple[int, ...], itemsize: int, target: int = 1 << 20
) -> tuple[int, ...]:
    """Chunk shape of the reference writer: halve the longest axis until <= target bytes."""
    chunks = [max(1, s) for s in shape]
    while int(np.prod(chunks)) * itemsize > target:
        ax = max(range(len(chunks)), key=lambda i: chunks[i])
        if chunks[ax] == 1:
            break
        chunks[ax] = max(1, (chunks[ax] + 1) // 2)
    return tuple(chunks)


def write_recording(path: Path, n_samples: int = N_SAMPLES,
                    repeat_rows: int | None = None) -> None:
    """Write the benchmark recording (child process, so its memory is not measured).

    ``n_samples`` rows of ``N_CHANNELS`` float32 channels at ``SFREQ`` (the default:
    1 GiB).  With ``repeat_rows`` (a multiple of the chunk length), the rows from
    there on repeat the stored (compressed) chunks of the first ``repeat_rows`` rows,
    written with ``write_direct_chunk``: a long recording is written at the disk's
    speed instead of the compressor's, and every chunk still decodes exactly as
    much as one of the computed chunks (``cold_overview.py``'s 9-hour recording).
    """
    import h5py

    N_SAMPLES = n_samples  # noqa: N806 - the module constant's name, for this recording
    rng = np.random.default_rng(6)
    chunks = reference_chunks((N_SAMPLES, N_CHANNELS), 4)
    if repeat_rows is not None and (repeat_rows <= 0 or repeat_rows % chunks[0]):
        raise ValueError(f"repeat_rows {repeat_rows} is not a multiple of {chunks[0]}")
    tmp = path.with_suffix(".tmp")
    with h5py.File(tmp, "w") as f:
        f.attrs["vneurotk_format"] = "recording"
        f.attrs["vneurotk_schema_version"] = np.int64(1)
        f.attrs["writer_version"] = "0.1.0"
        f.attrs["data_mode"] = "continuous"
        f.attrs["neuro_format"] = "dense"
        ds = f.create_dataset(
            "neuro",
            shape=(N_SAMPLES, N_CHANNELS),
            dtype="<f4",
            chunks=chunks,
            compression="gzip",
            compression_opts=4,
            shuffle=True,
        )
        freqs = rng.uniform(0.5, 40.0, N_CHANNELS)
        amp = rng.uniform(5.0, 50.0, N_CHANNELS)
        step = chunks[0] * 16
        computed = N_SAMPLES if repeat_rows is None else min(N_SAMPLES, repeat_rows)
        for s in range(0, computed, step):
            t = (np.arange(s, min(s + step, computed)) / SFREQ)[:, None]
            block = (
                amp * np.sin(2 * np.pi * freqs * t)
                + rng.standard_normal((t.shape[0], N_CHANNELS)) * 3
            )
            ds[s : s + t.shape[0]] = block.astype(np.float32)
        for s in range(computed, N_SAMPLES, chunks[0]):
            mask, data = ds.id.read_direct_chunk(((s - computed) % computed, 0))
            ds.id.write_direct_chunk((s, 0), data, mask)
        n_trials = 400
        starts = np.linspace(0, N_SAMPLES - 5000, n_trials).astype(np.int64)
        f.create_dataset("trial_starts", data=starts)
        f.create_dataset("trial_ends", data=starts + 4000)
        f.create_dataset("vision_onsets", data=starts + 500)
        trial = np.full(N_SAMPLES, np.nan)
        for i, s in enumerate(starts):
            trial[s : s + 4000] = i
        f.create_dataset("trial", data=trial)
        f.create_dataset("stim_labels", data=np.zeros(N_SAMPLES))
        f.attrs["stim_labels_encoding"] = "native"
        f.attrs["stim_labels_shape"] = [N_SAMPLES]
        ni = f.create_group("neuro_info")
        ni.attrs["sfreq"] = SFREQ
        ni.attrs["ch_names"] = np.array(
            [f"ch{i:02d}" for i in range(N_CHANNELS)], dtype=h5py.string_dtype()
        )
        ni.attrs["shape"] = [N_SAMPLES, N_CHANNELS]
    os.replace(tmp, path)


def open_ref(path: Path):
    """The ``neuro`` ArrayRef exactly as the app gets it (``open_document``), and the document."""
    from inspector.formats import open_document

    doc = open_document(path)
    ref = doc.arrays.get("neuro")
    if ref is None or ref.chunk_layout() is None:
        raise SystemExit(f"{path}: the reader gave no chunked 'neuro' array: {doc.findings}")
    return ref, "open_document (reader's ArrayRef with chunk hook)", doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--path", type=Path, default=Path(tempfile.gettempdir()) / "inspector-bench-1gb.h5"
    )
    ap.add_argument("--write-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.write_only:
        write_recording(args.path)
        return 0
    if not args.path.exists():
        print(f"writing {args.path} (once)...", file=sys.stderr)
        subprocess.run(
            [sys.executable, __file__, "--write-only", "--path", str(args.path)], check=True
        )

    load_before = os.getloadavg()[0]
    cache_home = tempfile.mkdtemp(prefix="inspector-bench-cache-")
    os.environ["XDG_CACHE_HOME"] = cache_home
    from inspector.formats.analysis.arrays import bin_edges, envelope_with_preview, minmax_bins
    from inspector.formats.decoding.workers import worker_pool

    with worker_pool():
        return measure(args, cache_home, bin_edges, envelope_with_preview, minmax_bins,
                       load_before)


def measure(args, cache_home, bin_edges, envelope_with_preview, minmax_bins,
            load_before: float) -> int:
    """The measurements (inside the worker pool the app's entry points open)."""
    ref, how, keep = open_ref(args.path)
    print(f"code path: {how}; chunks {ref.chunk_layout()}", file=sys.stderr)
    n = ref.shape[0]
    ch, other = 5, 41
    res: dict[str, list[float]] = {k: [] for k in ("first", "exact", "window", "naive", "other")}

    # warm the page cache once so every method sees the same (hot) file
    with open(args.path, "rb") as fh:
        while fh.read(64 << 20):
            pass

    for _ in range(args.repeat):
        keep.close()
        ref, how, keep = open_ref(args.path)  # a fresh reference: no summary in memory
        shutil.rmtree(os.path.join(cache_home, "inspector"), ignore_errors=True)
        first: list[float] = []
        t0 = time.perf_counter()

        def preview(env, first=first, t0=t0):
            if not first:
                first.append(time.perf_counter() - t0)

        env = envelope_with_preview(ref, (None, ch), 0, n, BINS, preview=preview)
        t1 = time.perf_counter() - t0
        assert env.exact and not env.raw
        res["exact"].append(t1 * 1000)
        res["first"].append((first[0] if first else t1) * 1000)

        s = ref.chunk_summary()
        t0 = time.perf_counter()
        env2 = ref.envelope((None, other), 0, n, BINS)
        res["other"].append((time.perf_counter() - t0) * 1000)
        assert env2.exact

        if s is not None:
            s.forget_decoded()
        mid = n // 2 + _ * 50_000
        t0 = time.perf_counter()
        ref.envelope((None, ch), mid, mid + 10_000, BINS)
        res["window"].append((time.perf_counter() - t0) * 1000)

    import h5py

    with h5py.File(args.path, "r") as f:
        ds = f["neuro"]
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            line = ds[:, ch]
            lo, hi = minmax_bins(line, bin_edges(0, n, BINS))
            res["naive"].append((time.perf_counter() - t0) * 1000)
            del line
    # the naive envelope and ours agree at the same bin edges
    e = env.edges().astype(np.int64)
    with h5py.File(args.path, "r") as f:
        lo2, hi2 = minmax_bins(f["neuro"][:, ch], e)
    assert np.array_equal(lo2, env.lo) and np.array_equal(hi2, env.hi), (
        "envelope differs from numpy"
    )

    steps = pan_zoom(ref)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    out = {
        "first_preview_ms": round(statistics.median(res["first"]), 1),
        "exact_full_ms": round(statistics.median(res["exact"]), 1),
        "window_10k_ms": round(statistics.median(res["window"]), 1),
        "naive_full_ms": round(statistics.median(res["naive"]), 1),
        "other_channel_ms": round(statistics.median(res["other"]), 1),
        "pan_zoom_ms": round(statistics.median(steps), 1),
        "pan_zoom_steps_ms": [round(v, 1) for v in steps],
        "peak_rss_mb": round(peak, 1),
        "exact_vs_naive": round(statistics.median(res["naive"])
                                / statistics.median(res["exact"]), 2),
        "exact_full_runs_ms": [round(v, 1) for v in res["exact"]],
        "naive_full_runs_ms": [round(v, 1) for v in res["naive"]],
        "decoder": decoder(),
        "cpus": len(os.sched_getaffinity(0)),
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(out))
    shutil.rmtree(cache_home, ignore_errors=True)
    del keep
    return 0


def pan_zoom(ref) -> list[float]:
    """Ms per scripted pan/zoom step of a NeuralView over ``ref`` (its summary warm)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gui_latency

    from inspector.app import make_application
    from inspector.jobs import JobRunner
    from inspector.ui.plots.neural import NeuralView

    app = make_application()
    jobs = JobRunner()
    view = NeuralView(ref, jobs)
    view.resize(1200, 600)
    view.show()

    def exact() -> bool:
        return view.is_idle() and bool(view.lines) and all(ln.exact for ln in view.lines)

    if not gui_latency._spin(app, exact, 600):
        raise SystemExit("the plot never showed its exact curves")
    try:
        return gui_latency.time_steps(app, view, exact)
    finally:
        view.close()
        jobs.cancel_all()
        jobs.wait(10_000)


if __name__ == "__main__":
    sys.exit(main())
