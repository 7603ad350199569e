"""Headless benchmark: the full-range envelope of a 12.8 GB dataset that is mostly unwritten.

Builds (in ``$TMPDIR``) a copy of a small corpus recording whose ``neuro`` is
replaced by float32 ``(640_000_000, 5)`` (12.8 GB declared), chunked
``(65536, 5)`` with gzip, of which only :data:`WRITTEN` chunks are written
(random values); the file itself stays a few MB.  Then, through the app's
own path (``open_document`` -> ``doc.arrays["neuro"].envelope``), measures
and prints one JSON object:

- ``full_range_ms``: the whole-range envelope of one channel at 2000 bins
  (the chunk index says which chunks exist; the others are the fill value,
  never read);
- ``exact``: whether that envelope is exact, and ``matches_numpy``: whether
  its extremes equal numpy's over the written chunks and the fill value;
- ``cancel_ms``: from the first time the read asks whether it is cancelled
  (answered yes) to the envelope call returning, on a cold summary;
- ``file_mb`` and ``declared_gb``; ``peak_rss_mb``.

Usage::

    python benchmarks/sparse_envelope.py
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np
from decoder_info import decoder

from inspector.formats import open_document
from inspector.formats.analysis.arrays import EnvelopeCancelled
from inspector.formats.decoding.workers import worker_pool

SOURCE = Path(__file__).resolve().parents[1] / "tests/fixtures/vneurotk/v1/" \
    "continuous_dense_f32_intids.h5"
SHAPE = (640_000_000, 5)
CHUNK = (65536, 5)
WRITTEN = (0, 3_000, 9_000)  # chunk numbers along time
BINS = 2000


def build(folder: Path) -> tuple[Path, np.ndarray]:
    """The sparse recording and the values written to channel 0 (with the fill value 0)."""
    path = folder / "sparse.h5"
    shutil.copy(SOURCE, path)
    os.chmod(path, 0o644)
    rng = np.random.default_rng(7)
    written = []
    with h5py.File(path, "r+") as f:
        del f["neuro"]
        ds = f.create_dataset("neuro", shape=SHAPE, dtype="f4", chunks=CHUNK,
                              compression="gzip")
        f.attrs["neuro_shape"] = np.array(SHAPE, dtype=np.int64)
        for c in WRITTEN:
            block = rng.normal(0, 1, CHUNK).astype("f4")
            ds[c * CHUNK[0]:(c + 1) * CHUNK[0]] = block
            written.append(block[:, 0])
    return path, np.concatenate([*written, np.zeros(1, "f4")])


def full_range(path: Path, channel0: np.ndarray) -> dict[str, object]:
    with open_document(path) as doc:
        ref = doc.arrays["neuro"]
        t0 = time.perf_counter()
        env = ref.envelope((None, 0), 0, SHAPE[0], BINS)
        ms = (time.perf_counter() - t0) * 1000.0
        lo, hi = np.nanmin(env.lo), np.nanmax(env.hi)
        return {"full_range_ms": round(ms, 1), "exact": bool(env.exact),
                "matches_numpy": bool(lo == channel0.min() and hi == channel0.max())}


def cancel(path: Path) -> float:
    """Milliseconds from the first cancel answer to the envelope call returning."""
    asked: list[float] = []

    def cancelled() -> bool:
        if not asked:
            asked.append(time.perf_counter())
        return True

    with open_document(path) as doc:
        try:
            doc.arrays["neuro"].envelope((None, 1), 0, SHAPE[0], BINS, cancelled=cancelled)
        except EnvelopeCancelled:
            pass
        done = time.perf_counter()
    return round((done - asked[0]) * 1000.0, 1) if asked else float("nan")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, worker_pool():
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # cold: no saved summary
        path, channel0 = build(Path(tmp))
        out: dict[str, object] = full_range(path, channel0)
        shutil.rmtree(Path(tmp) / "cache", ignore_errors=True)
        out["cancel_ms"] = cancel(path)
        out["file_mb"] = round(path.stat().st_size / 1e6, 1)
        out["declared_gb"] = round(np.prod(SHAPE) * 4 / 1e9, 1)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    out["decoder"] = decoder()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
