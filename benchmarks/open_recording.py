"""Benchmark: time to open a VneuroTK recording and build its summary.

Writes (once, cached in ``$INSPECTOR_BENCH_DIR`` or
``/tmp/inspector-bench-vneurotk``) schema-1 continuous recordings whose
neural array is about 10 MB, 100 MB and 1 GB, laid out as the reference
writer does (``BaseData.save`` defaults: chunks of at most 1 MiB found by
halving the longest axis, gzip level 4 + shuffle for numeric arrays; label
and trial arrays unchunked).  Each file has 64 float32 channels at 1 kHz, one
trial per second with per-sample ``stim_labels`` and ``trial`` arrays (as
long as the recording), per-trial arrays and metadata, a vision record and
a few array images.

Prints one JSON object ``{"open_ms": {"10MB": ..., "100MB": ..., "1GB": ...}}``
with the median wall time of ``open_recording(path)`` (``hash_arrays=False``)
plus closing, over several runs after one warm-up.

Usage: ``python benchmarks/open_recording.py [--runs N] [--sizes 10MB,100MB,1GB]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import h5py
import numpy as np
from decoder_info import decoder

from inspector.formats.vneurotk import open_recording

SIZES = {"10MB": 10 * 2**20, "100MB": 100 * 2**20, "1GB": 2**30}
N_CH = 64
SFREQ = 1000
CHUNK_TARGET = 1 << 20


def reference_chunks(
    shape: tuple[int, ...], itemsize: int, target: int = CHUNK_TARGET
) -> tuple[int, ...]:
    """Chunk shape of the reference writer: halve the longest axis until <= target bytes."""
    chunks = [max(1, int(n)) for n in shape]
    while int(np.prod(chunks)) * itemsize > target:
        axis = max(range(len(chunks)), key=lambda i: chunks[i])
        if chunks[axis] == 1:
            break
        chunks[axis] = max(1, (chunks[axis] + 1) // 2)
    return tuple(chunks)


def _typed(group: h5py.Group, name: str, values: list) -> None:
    g = group.create_group(name)
    g.attrs["encoding"] = "vneurotk_scalar_v1"
    codes = [2 if isinstance(v, int) else 4 for v in values]
    g.create_dataset("types", data=np.asarray(codes, dtype=np.uint8))
    g.create_dataset(
        "values", data=np.asarray([str(v) for v in values], dtype=h5py.string_dtype("utf-8"))
    )


def _numeric(f: h5py.Group, name: str, data: np.ndarray) -> None:
    f.create_dataset(
        name,
        data=data,
        chunks=reference_chunks(data.shape, data.dtype.itemsize),
        compression="gzip",
        compression_opts=4,
        shuffle=True,
    )


def write_recording(path: Path, nbytes: int) -> None:
    """Write one benchmark recording of about ``nbytes`` of neural data."""
    n_time = nbytes // (N_CH * 4)
    n_trials = n_time // SFREQ
    rng = np.random.default_rng(0)
    tmp = path.with_suffix(".tmp")
    with h5py.File(tmp, "w") as f:
        f.attrs.update(
            {
                "vneurotk_format": "recording",
                "vneurotk_schema_version": 1,
                "writer_version": "0.1.0",
                "data_mode": "continuous",
                "neuro_format": "dense",
            }
        )
        ds = f.create_dataset(
            "neuro",
            shape=(n_time, N_CH),
            dtype=np.float32,
            chunks=reference_chunks((n_time, N_CH), 4),
            compression="gzip",
            compression_opts=4,
            shuffle=True,
        )
        block = 1 << 18
        t = np.arange(block, dtype=np.float32)[:, None] / SFREQ
        for a in range(0, n_time, block):
            b = min(n_time, a + block)
            sig = 20 * np.sin(2 * np.pi * 10 * (t[: b - a] + a / SFREQ) + np.arange(N_CH))
            ds[a:b] = (sig + rng.standard_normal((b - a, N_CH))).astype(np.float32)
        onsets = np.arange(n_trials, dtype=np.int64) * SFREQ + 100
        ids = [int(i % 50) for i in range(n_trials)]
        labels = np.full(n_time, np.nan)
        labels[onsets] = ids
        f.create_dataset("stim_labels", data=labels)
        f.attrs.update(
            {
                "stim_labels_encoding": "native",
                "stim_labels_is_str": False,
                "stim_labels_shape": [n_time],
            }
        )
        trial = np.full(n_time, np.nan)
        starts, ends = onsets - 100, onsets + 500
        for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
            trial[s:e] = i
        for name, v in (
            ("trial", trial),
            ("trial_starts", starts),
            ("trial_ends", ends),
            ("vision_onsets", onsets),
        ):
            f.create_dataset(name, data=v)
        ni = f.create_group("neuro_info")
        ni.attrs["sfreq"] = float(SFREQ)
        ni.attrs["ch_names"] = np.array([f"E{i}" for i in range(N_CH)], dtype=h5py.string_dtype())
        ni.attrs["shape"] = [n_time, N_CH]
        vi = f.create_group("vision_info")
        uniq = sorted(set(ids))
        vi.attrs["n_stim"] = len(uniq)
        _typed(vi, "stim_ids", uniq)
        ti = f.create_group("trial_info")
        ti.attrs["baseline"] = np.array([-100, 0])
        ti.attrs["trial_window"] = np.array([-100, 500])
        tm = f.create_group("trial_meta")
        tm.attrs["encoding"] = "pandas_v1"
        ci = tm.create_group("column_index")
        ci.attrs.update({"kind": "values", "name_present": False})
        cd = ci.create_group("data")
        cd.attrs.update({"kind": "nullable", "dtype": "str"})
        _typed(cd, "values", ["stim_index", "rt"])
        idx = tm.create_group("index")
        idx.attrs.update(
            {"kind": "range", "name_present": False, "start": 0, "stop": n_trials, "step": 1}
        )
        cols = tm.create_group("columns")
        for pos, (dtype, values) in enumerate(
            (
                ("int64", np.asarray(ids, dtype=np.int64)),
                ("float64", rng.uniform(0.2, 0.8, n_trials)),
            )
        ):
            c = cols.create_group(str(pos))
            c.attrs.update({"kind": "numpy", "dtype": dtype})
            c.create_dataset("values", data=values)
        vs = f.create_group("vision_store").create_group("0")
        vs.attrs.update(
            {
                "model": "bench/model",
                "module_name": "layer",
                "module_type": "Linear",
                "extraction_provenance": json.dumps(
                    {"serialization_version": 1, "backend": "timm", "model_id": "bench/model"}
                ),
            }
        )
        _typed(vs, "stim_ids", uniq)
        _numeric(vs, "array", rng.standard_normal((len(uniq), 256)).astype(np.float32))
        db = f.create_group("stimuli_db")
        db.attrs["encoding"] = "ordered_entries_v1"
        for pos, sid in enumerate(uniq):
            e = db.create_group(str(pos))
            _typed(e, "id", [sid])
            _numeric(e, "image", rng.integers(0, 255, (16, 16, 3), dtype=np.uint8))
            e["image"].attrs["kind"] = "array"
    os.replace(tmp, path)


def time_open(path: Path, runs: int) -> float:
    """Median milliseconds of open + close over ``runs`` runs (after one warm-up)."""

    def once() -> float:
        t0 = time.perf_counter()
        doc = open_recording(path)
        if not doc.ok:
            raise SystemExit(f"benchmark file {path} did not open cleanly: {doc.findings}")
        doc.close()
        return (time.perf_counter() - t0) * 1000.0

    once()
    return statistics.median(once() for _ in range(runs))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--sizes", default=",".join(SIZES))
    args = ap.parse_args(argv)
    folder = Path(os.environ.get("INSPECTOR_BENCH_DIR", "/tmp/inspector-bench-vneurotk"))
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for label in args.sizes.split(","):
        path = folder / f"continuous_{label}.h5"
        if not path.exists():
            print(f"writing {path} ...", file=sys.stderr)
            write_recording(path, SIZES[label])
        out[label] = round(time_open(path, args.runs), 2)
    print(json.dumps({"decoder": decoder(), "open_ms": out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
