"""Benchmark: the generic data views on big HDF5 datasets (headless).

Builds (once, cached in ``/tmp/inspector-generic-views-bench``) two files
cheaply — every chunk is written with ``write_direct_chunk`` from a few
pre-compressed blocks, so nothing large is compressed at build time:

* ``rows``: a 1-D float32 dataset of ``--rows`` elements (default 10^8),
  chunks of 65 536, gzip;
* ``image``: a ``--size`` x ``--size`` float32 dataset (default 20 000),
  gzip + shuffle, in two chunk layouts: row strips ``(1, 4096)`` and square
  tiles ``(256, 256)``.

Then prints one JSON object::

    {"rows": {"n", "first_page_ms", "last_page_ms", "rows_read"},
     "image": {"strips": {"first": {...}, "refined": {...}}, "tiles": {...}},
     "peak_rss_mb", "load_average", "targets"}

Table pages are timed through the table model the GUI uses
(``inspector.ui.data.table.NodeTableModel`` on a ``JobRunner``, Qt core
only): from asking for a cell to the page arriving.  Each image entry is the
screen-sized read of the image view (``image_plan`` for a 1000 x 800 pixel
view, then ``NodeData.read``; ``first`` within ``IMAGE_FIRST_BYTES`` of
decoded chunks, ``refined`` within ``IMAGE_BUDGET_BYTES`` when the first is
coarse): ``ms``, ``bytes_read`` (file bytes read by the process,
``/proc/self/io`` ``rchar``), ``decoded_bytes`` (chunks decoded),
``samples`` (image size), ``coarse`` and ``whole_dataset`` (whether every
chunk was read).  ``load_average`` is the machine's 1-minute load when done
(the timings are wall times on a possibly shared machine).  ``peak_rss_mb``
is the process's peak resident size.  Targets: image under 1 s, never the whole
dataset, peak RSS under 300 MB.
Usage::

    python benchmarks/generic_views.py [--rows N] [--size N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
import zlib
from pathlib import Path

import numpy as np
from decoder_info import decoder

CACHE = Path("/tmp/inspector-generic-views-bench")
ROW_CHUNK = 1 << 16
LAYOUTS = {"strips": (1, 4096), "tiles": (256, 256)}
SCREEN = (800, 1000)  # rows x columns of the image view, in pixels
_BUILD_VERSION = "2"


def _shuffled_gzip(block: np.ndarray) -> bytes:
    """``block`` as HDF5 stores it with the shuffle and deflate filters."""
    raw = np.ascontiguousarray(block).view(np.uint8).reshape(-1, block.dtype.itemsize)
    return zlib.compress(np.ascontiguousarray(raw.T).tobytes(), 4)


def build_rows(n: int) -> Path:
    import h5py

    path = CACHE / f"rows_{n}_v{_BUILD_VERSION}.h5"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    base = np.sin(np.arange(ROW_CHUNK, dtype=np.float64) / 500.0).astype(np.float32)
    blocks = [zlib.compress((base + k).tobytes(), 4) for k in range(16)]
    with h5py.File(tmp, "w") as f:
        ds = f.create_dataset("rows", (n,), dtype="<f4", chunks=(ROW_CHUNK,),
                              compression="gzip")
        for i, start in enumerate(range(0, n, ROW_CHUNK)):
            ds.id.write_direct_chunk((start,), blocks[i % len(blocks)])
    tmp.rename(path)
    return path


def build_image(size: int) -> Path:
    import h5py

    path = CACHE / f"image_{size}_v{_BUILD_VERSION}.h5"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    rng = np.random.default_rng(7)
    with h5py.File(tmp, "w") as f:
        for name, wanted in LAYOUTS.items():
            chunks = (min(wanted[0], size), min(wanted[1], size))
            ds = f.create_dataset(name, (size, size), dtype="<f4", chunks=chunks,
                                  compression="gzip", shuffle=True)
            y, x = np.mgrid[0:chunks[0], 0:chunks[1]]
            blocks = [_shuffled_gzip(np.round(np.sin(x / 40.0 + k) * np.cos(y / 30.0 + k)
                                              + rng.normal(0, 0.01, chunks), 2)
                                     .astype(np.float32)) for k in range(8)]
            k = 0
            for r in range(0, size, chunks[0]):
                for c in range(0, size, chunks[1]):
                    ds.id.write_direct_chunk((r, c), blocks[k % len(blocks)])
                    k += 1
    tmp.rename(path)
    return path


def _rchar() -> int:
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def time_pages(path: Path) -> dict:
    """First and last page of the table model, as the GUI reads them."""
    from PySide6.QtCore import QCoreApplication

    from inspector.formats import open_document
    from inspector.jobs import JobRunner
    from inspector.ui.data.slicing import SliceState
    from inspector.ui.data.table import NodeTableModel

    app = QCoreApplication.instance() or QCoreApplication([])
    out: dict = {}
    with open_document(path) as doc:
        node = doc.object_data.node("/rows")
        jobs = JobRunner()
        model = NodeTableModel(node, SliceState.default(node.shape), jobs)
        n = node.shape[0]
        out["n"] = n
        for label, row in (("first_page_ms", 0), ("last_page_ms", n - 1)):
            t0 = time.perf_counter()
            while model.cell(row, 0) is None:
                app.processEvents()
                time.sleep(0.001)
            out[label] = round((time.perf_counter() - t0) * 1000, 1)
        out["rows_read"] = sum(s[0].stop - s[0].start for s in model.reads)
        jobs.wait(5000)
    return out


def _image_read(node, budget: int) -> dict:
    from inspector.formats.nodes.image_plan import image_plan

    rows, cols = node.shape
    chunks = node.storage.chunks
    t0 = time.perf_counter()
    before = _rchar()
    plan = image_plan(range(rows), range(cols), SCREEN, chunks, (0, 1), node.type.size,
                      budget=budget)
    sel = (slice(plan.rows.start, plan.rows.stop, plan.rows.step),
           slice(plan.cols.start, plan.cols.stop, plan.cols.step))
    img = node.read(sel).column("").values.astype(np.float64)
    ms = (time.perf_counter() - t0) * 1000
    read = _rchar() - before
    n_chunks = -(-rows // chunks[0]) * -(-cols // chunks[1])
    touched = plan.touched_bytes // (chunks[0] * chunks[1] * 4)
    stored = node.storage.stored_bytes or 0
    return {"ms": round(ms, 1), "bytes_read": read, "decoded_bytes": plan.touched_bytes,
            "samples": list(img.shape), "cell": list(plan.cell), "coarse": plan.coarse,
            "chunks_touched": int(touched), "chunks_total": n_chunks,
            "whole_dataset": bool(touched >= n_chunks or read >= stored > 0)}


def time_image(path: Path, layout: str) -> dict:
    """The screen-sized strided reads of the image view for one chunk layout: the quick
    first image, then the refined one (when the first is coarse)."""
    from inspector.formats import open_document
    from inspector.formats.nodes.image_plan import IMAGE_BUDGET_BYTES, IMAGE_FIRST_BYTES

    with open_document(path) as doc:
        node = doc.object_data.node(f"/{layout}")
        out = {"chunks": list(node.storage.chunks), "stored_bytes": node.storage.stored_bytes,
               "first": _image_read(node, IMAGE_FIRST_BYTES)}
        if out["first"]["coarse"]:
            out["refined"] = _image_read(node, IMAGE_BUDGET_BYTES)
    return out


def main() -> None:
    """Build the files, time the views and print the JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**8)
    parser.add_argument("--size", type=int, default=20_000)
    args = parser.parse_args()
    from inspector.formats.decoding.workers import worker_pool

    t0 = time.perf_counter()
    rows_file, image_file = build_rows(args.rows), build_image(args.size)
    build_s = round(time.perf_counter() - t0, 1)
    with worker_pool():
        result = {"rows": time_pages(rows_file),
                  "image": {name: time_image(image_file, name) for name in LAYOUTS},
                  "screen": list(SCREEN), "build_s": build_s}
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["load_average"] = round(os.getloadavg()[0], 2)
    result["targets"] = {"image_ms": 1000, "peak_rss_mb": 300, "whole_dataset": False}
    result["decoder"] = decoder()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
