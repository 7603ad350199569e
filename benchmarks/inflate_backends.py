"""Benchmark: the deflate decoders available on this machine, side by side.

Measures, for each decoder installed (``zlib`` from the standard library,
ISA-L through the ``isal`` wheel, libdeflate through the ``deflate`` wheel):

* ``chunk_mb_s`` / ``chunk_2t_mb_s``: whole-chunk inflate of the stored
  chunks of an HDF5 dataset (default: the ``neuro`` array of
  ``benchmarks/plot_envelope.py``'s 1 GB recording, gzip 4 + shuffle, 1 MiB
  chunks), decoded MB per second on one thread and on two threads;
* ``stream_mb_s`` / ``stream_peak_mb``: streaming inflate of the largest
  member of an AUCX archive (default: ``benchmarks/verify_archive.py``'s
  500 MB archive) in blocks of 1 MiB out, 1 MiB in, raw deflate as ZIP
  stores it, with the peak resident memory of a fresh process doing only
  that (CRC-32 of the output included, as verification does);
* ``*_cpu_mb_s``: the same per second of the measuring thread's CPU time (on
  a shared machine wall time also counts waiting for a core).

Prints one JSON object, with the 1-minute load average before measuring and
the decoder :mod:`inspector.formats.decoding.inflate` chose.  Usage::

    python benchmarks/inflate_backends.py [--h5 FILE] [--aucx FILE] [--chunks N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from verify_archive import peak_mb  # (benchmarks/ is on the path of a script run)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _whole(name: str) -> Any:
    """``f(data, size) -> bytes`` of one decoder, or None when it is not installed."""
    if name == "zlib":
        return lambda data, size: zlib.decompress(data, 15, size)
    if name == "isal":
        try:
            from isal import isal_zlib
        except ImportError:
            return None
        return lambda data, size: isal_zlib.decompress(data, 15, size)
    try:
        import deflate
    except ImportError:
        return None
    return deflate.zlib_decompress


def _stream_module(name: str) -> Any:
    if name == "zlib":
        return zlib
    if name == "isal":
        try:
            from isal import isal_zlib
        except ImportError:
            return None
        return isal_zlib
    return None


def read_chunks(path: Path, dataset: str, count: int) -> tuple[list[bytes], int]:
    """The stored bytes of the first ``count`` chunks and their decoded size."""
    import h5py
    import numpy as np

    with h5py.File(path, "r") as f:
        ds = f[dataset]
        size = int(np.prod(ds.chunks)) * ds.dtype.itemsize
        n = min(count, ds.id.get_num_chunks())
        out = [bytes(ds.id.read_direct_chunk(ds.id.get_chunk_info(i).chunk_offset)[1])
               for i in range(n)]
    return out, size


def chunk_rates(chunks: list[bytes], size: int) -> dict[str, dict[str, float]]:
    """MB/s of decoded bytes, one thread and two, per decoder."""
    out: dict[str, dict[str, float]] = {}
    ref = zlib.decompress(chunks[0])
    for name in ("zlib", "isal", "deflate"):
        f = _whole(name)
        if f is None:
            continue
        assert bytes(f(chunks[0], size)) == ref, name
        best1 = best2 = cpu1 = float("inf")
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.thread_time()
            for c in chunks:
                f(c, size)
            best1 = min(best1, time.perf_counter() - t0)
            cpu1 = min(cpu1, time.thread_time() - c0)
            with ThreadPoolExecutor(2) as ex:
                t0 = time.perf_counter()
                list(ex.map(lambda c, f=f: f(c, size), chunks))
                best2 = min(best2, time.perf_counter() - t0)
        mb = len(chunks) * size / 1e6
        out[name] = {"chunk_mb_s": round(mb / best1, 1), "chunk_2t_mb_s": round(mb / best2, 1),
                     "chunk_cpu_mb_s": round(mb / cpu1, 1)}
    return out


def _largest_member(path: Path) -> tuple[int, int, int]:
    """``(data offset, compressed size, file size)`` of the largest member."""
    import zipfile

    with zipfile.ZipFile(path) as zf:
        info = max(zf.infolist(), key=lambda i: i.file_size)
    with open(path, "rb") as fh:
        fh.seek(info.header_offset + 26)
        n, m = int.from_bytes(fh.read(2), "little"), int.from_bytes(fh.read(2), "little")
    return info.header_offset + 30 + n + m, info.compress_size, info.file_size


def stream_child(name: str, path: str) -> dict[str, float]:
    """Inflate the largest member in 1 MiB blocks (fresh process: its peak memory)."""
    mod = _stream_module(name)
    offset, csize, fsize = _largest_member(Path(path))
    t0, c0 = time.perf_counter(), time.thread_time()
    d = mod.decompressobj(-15)
    total, crc, left = 0, 0, csize
    with open(path, "rb") as fh:
        fh.seek(offset)
        pending = b""
        while True:
            if not pending:
                if d.eof or left <= 0:
                    break
                pending = fh.read(min(1 << 20, left))
                left -= len(pending)
            out = d.decompress(pending, 1 << 20)
            pending = d.unconsumed_tail
            total += len(out)
            crc = zlib.crc32(out, crc)
    seconds, cpu = time.perf_counter() - t0, time.thread_time() - c0
    assert total == fsize, (total, fsize)
    return {"stream_mb_s": round(fsize / 1e6 / seconds, 1),
            "stream_cpu_mb_s": round(fsize / 1e6 / cpu, 1),
            "stream_peak_mb": round(peak_mb(), 1), "member_mb": round(fsize / 1e6, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--h5", type=Path,
                    default=Path(tempfile.gettempdir()) / "inspector-bench-1gb.h5")
    ap.add_argument("--dataset", default="neuro")
    ap.add_argument("--aucx", type=Path,
                    default=Path("/tmp/inspector-aucx-bench/bench_500MB_v1.aucx"))
    ap.add_argument("--chunks", type=int, default=128)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(stream_child(*args.child)))
        return 0
    from inspector.formats.decoding import inflate

    result: dict[str, Any] = {"decoder": inflate.DECODER,
                              "load_1min_before": round(os.getloadavg()[0], 2)}
    if args.h5.is_file():
        chunks, size = read_chunks(args.h5, args.dataset, args.chunks)
        result["chunks"] = {"count": len(chunks), "decoded_bytes": size,
                            **chunk_rates(chunks, size)}
    if args.aucx.is_file():
        streams = {}
        for name in ("zlib", "isal"):
            if _stream_module(name) is None:
                continue
            out = subprocess.run([sys.executable, __file__, "--child", name, str(args.aucx)],
                                 capture_output=True, text=True, check=True)
            streams[name] = json.loads(out.stdout.strip().splitlines()[-1])
        result["streams"] = streams
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
