"""Benchmark: the feature dissimilarity matrix of a vision record: ours, rsatoolbox, numpy.

Writes once (cached in ``$INSPECTOR_BENCH_DIR`` or ``/tmp/inspector-bench-rsa``,
in a child process so that its memory is not measured) one HDF5 file per size
holding a float32 feature array ``(stimuli, features)`` laid out as the
reference writer lays out a vision record (``BaseData.save`` defaults: chunks
of at most 1 MiB found by halving the longest axis, gzip level 4 + shuffle):

* ``2000x50000``: 2 000 stimuli x 50 000 features (400 MB of float32);
* ``10000x4096``: 10 000 stimuli x 4 096 features (164 MB of float32).

Then, each in its own child process (so that each peak is its own), it
computes the correlation-distance matrix (``1 - Pearson r``) three ways:

* ``ours``: :func:`inspector.formats.analysis.rsa.features.feature_rdm` on the
  dataset as the recording reader offers it (an ``H5DatasetRef``), with its
  default memory budget;
* ``rsatoolbox``: read the dataset whole with h5py, then
  ``rsatoolbox.rdm.calc_rdm(rsatoolbox.data.Dataset(x), method="correlation")``
  (rsatoolbox 0.3.2, the array as stored: float32);
* ``numpy``: read it whole, ``1 - numpy.corrcoef(x)`` (float64).

Prints one JSON object: per size, per way, ``seconds`` (wall, from opening
the file to the matrix; imports excluded), ``cpu_seconds``, ``peak_mb`` (``VmHWM`` of the child)
and ``max_abs_diff`` from ours at 20 000 fixed pairs (a sanity check);
``speedup_vs_rsatoolbox`` and ``speedup_vs_numpy`` (their time over ours),
``memory_vs_rsatoolbox`` and ``memory_vs_numpy`` (our peak over theirs),
``cpus`` and the 1-minute load average before and after.

Usage: ``python benchmarks/rsa.py [--sizes 2000x50000,10000x4096] [--ways ours,rsatoolbox,numpy]``
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

import numpy as np
from decoder_info import decoder

# the checkout this script belongs to, before any installed copy
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SIZES = ("2000x50000", "10000x4096")
WAYS = ("ours", "rsatoolbox", "numpy")
PAIRS = 20_000


def _dims(size: str) -> tuple[int, int]:
    n, f = size.split("x")
    return int(n), int(f)


def _folder() -> Path:
    return Path(os.environ.get("INSPECTOR_BENCH_DIR", "/tmp/inspector-bench-rsa"))


def _chunks(shape: tuple[int, int], itemsize: int = 4, target: int = 1 << 20) -> tuple[int, int]:
    """The reference writer's chunks: halve the longest axis until at most ``target`` bytes."""
    c = list(shape)
    while c[0] * c[1] * itemsize > target:
        k = 0 if c[0] >= c[1] else 1
        c[k] = max(1, (c[k] + 1) // 2)
    return c[0], c[1]


def write(size: str) -> Path:
    """The feature file of ``size`` (written once, in row blocks)."""
    import h5py

    path = _folder() / f"features_{size}.h5"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    n, f = _dims(size)
    rng = np.random.default_rng(0)
    tmp = path.with_suffix(".tmp")
    with h5py.File(tmp, "w") as h:
        ds = h.create_dataset("features", shape=(n, f), dtype=np.float32,
                              chunks=_chunks((n, f)), compression="gzip",
                              compression_opts=4, shuffle=True)
        latent = rng.standard_normal((16, f)).astype(np.float32)
        for a in range(0, n, 500):
            b = min(n, a + 500)
            w = rng.standard_normal((b - a, 16)).astype(np.float32)
            ds[a:b] = w @ latent + rng.standard_normal((b - a, f)).astype(np.float32)
    tmp.rename(path)
    return path


def peak_mb() -> float:
    """``VmHWM`` of this process, MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    i, j = rng.integers(0, n, PAIRS), rng.integers(0, n, PAIRS)
    keep = i != j
    return np.minimum(i, j)[keep], np.maximum(i, j)[keep]


def _condensed_at(cond: np.ndarray, n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    return cond[i * n - i * (i + 1) // 2 + j - i - 1]


def _imports(way: str) -> None:
    """Import what a way uses before its clock starts (imports are not measured)."""
    import warnings

    import h5py  # noqa: F401

    if way == "ours":
        import inspector.formats.analysis.rsa.features
        import inspector.formats.hdf5.arrays  # noqa: F401
    elif way == "rsatoolbox":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import rsatoolbox  # noqa: F401


def _ours(path: Path) -> tuple[np.ndarray, int]:
    from inspector.formats.analysis.rsa.features import feature_rdm
    from inspector.formats.hdf5.arrays import H5DatasetRef
    from inspector.formats.hdf5.source import H5Source

    src = H5Source(path)
    ref = H5DatasetRef(src, src.file["features"], "features")
    rdm = feature_rdm(ref, "correlation")
    i, j = _pairs(rdm.n)
    return _condensed_at(rdm.condensed, rdm.n, i, j), rdm.n


def _toolbox(path: Path) -> tuple[np.ndarray, int]:
    import h5py
    import rsatoolbox

    with h5py.File(path, "r") as h:
        x = h["features"][()]
    rdm = rsatoolbox.rdm.calc_rdm(rsatoolbox.data.Dataset(x), method="correlation")
    vec = rdm.dissimilarities[0]
    n = x.shape[0]
    i, j = _pairs(n)
    return _condensed_at(vec, n, i, j).astype(np.float64), n


def _numpy(path: Path) -> tuple[np.ndarray, int]:
    import h5py

    with h5py.File(path, "r") as h:
        x = h["features"][()]
    d = 1.0 - np.corrcoef(x)
    i, j = _pairs(x.shape[0])
    return d[i, j], x.shape[0]


def child(way: str, path: Path, out: Path) -> None:
    """Compute one way, print its JSON line, save the sampled pairs to ``out``."""
    run = {"ours": _ours, "rsatoolbox": _toolbox, "numpy": _numpy}[way]
    _imports(way)
    t0, c0 = time.perf_counter(), time.process_time()
    values, _ = run(path)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    np.save(out, values)
    print(json.dumps({"seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
                      "peak_mb": round(peak_mb(), 1)}))


def _run_child(way: str, path: Path, out: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", way, "--file", str(path),
                           "--out", str(out)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(size: str, ways: list[str]) -> dict:
    """Every way on one size, each in its own child; speed and memory ratios."""
    subprocess.run([sys.executable, __file__, "--write", size], check=True)
    path = write(size)
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for way in ways:
            out[way] = _run_child(way, path, Path(tmp) / f"{way}.npy")
        base = Path(tmp) / "ours.npy"
        for way in ways:
            mine = Path(tmp) / f"{way}.npy"
            if way != "ours" and base.exists() and mine.exists():
                out[way]["max_abs_diff"] = float(np.max(np.abs(np.load(mine) - np.load(base))))
    ours = out.get("ours", {})
    for way in ways:
        other = out[way]
        if way != "ours" and "seconds" in ours and "seconds" in other:
            out[f"speedup_vs_{way}"] = round(other["seconds"] / ours["seconds"], 2)
            out[f"memory_vs_{way}"] = round(ours["peak_mb"] / other["peak_mb"], 3)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--ways", default=",".join(WAYS))
    ap.add_argument("--child", choices=WAYS)
    ap.add_argument("--write", metavar="SIZE")
    ap.add_argument("--file", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.write:
        write(args.write)
        return 0
    if args.child:
        child(args.child, args.file, args.out)
        return 0
    load0 = os.getloadavg()[0]
    result: dict = {"cpus": os.cpu_count(), "load_before": round(load0, 2)}
    for size in args.sizes.split(","):
        result[size] = measure(size, args.ways.split(","))
        print(json.dumps({size: result[size]}), file=sys.stderr, flush=True)  # as it comes
    result["load_after"] = round(os.getloadavg()[0], 2)
    result["decoder"] = decoder()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
