"""Benchmark: what opening files at URLs costs, in requests, bytes and time, per range reader.

Starts its own servers on 127.0.0.1: the range-capable HTTP server of
``tests/range_server.py`` (counts requests and body bytes; optional latency
per request) and moto's S3 server (``moto[server]``).  Files are the cached
benchmark files of the other benchmarks, built by their builders when
missing: the continuous recording of ``benchmarks/trial_average.py``
(``--recording 1GB``: ``(4194304, 64)`` float32, gzip 4 + shuffle, 1 MiB
chunks) and the archive of ``benchmarks/verify_archive.py`` (``--archive
500MB``).  Everything goes through the app's own path (``open_document`` on
the URL, the reader's ``ArrayRef``, ``doc.verify()``); only the range
reader behind ``RemotePath.open`` changes:

* ``inspector``: ours (:mod:`inspector.formats.remote.source`: 100 KiB
  blocks, read-ahead doubling to 4 MiB, one cache shared by every handle);
* ``remfile``: ``remfile.File(url)`` (its defaults: 100 KiB chunks growing
  by 1.7x up to 100 MiB), one per URL shared by every handle;
* ``fsspec``: ``fsspec.filesystem("http").open(url)`` (its defaults: 5 MiB
  read-ahead blocks), one per URL shared by every handle.

The registry's first range request (100 KiB, which finds network faults and
feeds the sniffers) is made by ours in every case and counted.  Prints one
JSON object: per reader, ``open`` (the whole ``open_document``: requests,
bytes, ms; ``header_and_trees`` is the part before the trial stimulus IDs),
``preview`` (until the first full-range preview of one channel, 2000 bins),
``checks`` (then the deferred checks, among them the scan of the per-sample
stimulus labels), ``window`` (a 10 000-sample window in the middle,
after a fresh open), ``verify`` (open + streamed verification of the
archive; with the archive's size), ``first_view_ms_latency`` (the open
again with ``--latency-ms`` added to every request); and ``s3`` (ours via
moto: open and verify counts, from our own counters).

The libraries compared are not dependencies: ``pip install remfile fsspec aiohttp``
(a reader that is not installed is reported as skipped); S3 needs the
``remote`` and ``test`` extras (boto3, moto[server]).  ``preview`` stops at
the first progressive envelope, so its counts depend on how fast chunks
decode.

Usage: ``python benchmarks/remote.py [--recording 100MB|1GB] [--archive 50MB|500MB]
[--readers inspector,remfile,fsspec] [--latency-ms 50] [--no-s3]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import trial_average  # noqa: E402  (the builders of the other benchmarks)
import verify_archive  # noqa: E402
from decoder_info import decoder  # noqa: E402 - a sibling script
from range_server import RangeServer  # noqa: E402

from inspector.formats.analysis.arrays import EnvelopeCancelled  # noqa: E402
from inspector.formats.decoding.workers import worker_pool  # noqa: E402
from inspector.formats.registry import open_document  # noqa: E402
from inspector.formats.remote.path import RemotePath  # noqa: E402

OURS = RemotePath.open
BINS = 2000
CHANNEL = 5


class SharedView:
    """An independent position over one shared library file object (under a lock)."""

    def __init__(self, obj: Any, lock: threading.Lock, size: int) -> None:
        self._obj, self._lock, self._pos, self.size = obj, lock, 0, size

    def seek(self, offset: int, whence: int = 0) -> int:
        self._pos = offset if whence == 0 else (self._pos + offset if whence == 1
                                                 else self.size + offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, n: int = -1) -> bytes:
        with self._lock:
            self._obj.seek(self._pos)
            data = self._obj.read(n if n is not None and n >= 0 else self.size - self._pos)
        self._pos += len(data)
        return data

    def readinto(self, buf: Any) -> int:
        view = memoryview(buf).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def close(self) -> None:
        pass

    def __enter__(self) -> SharedView:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def use_reader(kind: str) -> None:
    """Put the range reader ``kind`` behind ``RemotePath.open``."""
    if kind == "inspector":
        RemotePath.open = OURS  # type: ignore[method-assign]
        return
    def make(url: str) -> tuple[Any, int]:
        if kind == "remfile":
            import remfile

            f = remfile.File(url)
            return f, int(f.size if hasattr(f, "size") else f.length)
        import fsspec

        f = fsspec.filesystem("http").open(url, "rb")
        return f, int(f.size)

    def opener(self: RemotePath, mode: str = "rb") -> SharedView:
        # One library file object per opened RemotePath (one document), as ours has one cache.
        shared = self.__dict__.get("_bench_shared")
        if shared is None:
            obj, size = make(self.url)
            shared = self.__dict__["_bench_shared"] = (obj, threading.Lock(), size)
        obj, lock, size = shared
        return SharedView(obj, lock, size)

    RemotePath.open = opener  # type: ignore[method-assign,assignment]


def counted(srv: RangeServer, fn: Callable[[], Any]) -> dict[str, Any]:
    """Requests, body bytes and milliseconds that ``fn()`` costs on ``srv``."""
    srv.reset_counts()
    t0 = time.perf_counter()
    fn()
    ms = (time.perf_counter() - t0) * 1000
    return {"requests": srv.requests, "bytes": srv.bytes, "ms": round(ms, 1)}


def first_preview(doc: Any) -> None:
    """Draw the full-range preview of one channel: stop at the first progressive envelope."""
    ref = doc.arrays["neuro"]
    seen: list[Any] = []
    try:
        env = ref.envelope((None, CHANNEL), 0, ref.shape[0], BINS, preview=seen.append,
                           cancelled=lambda: bool(seen))
        seen.append(env)
    except EnvelopeCancelled:
        pass
    assert seen, "no envelope"


def header_and_trees_mark(srv: RangeServer) -> list[dict[str, Any]]:
    """Note the server's counts when the next open has read the header, the trees and the
    small metadata, just before the reader's trial stimulus ID step (whose label scan is a
    deferred check, counted in ``checks``)."""
    from inspector.formats.vneurotk import reader

    marks: list[dict[str, Any]] = []
    inner = reader.__dict__.setdefault("_bench_trial_ids", reader._trial_ids)
    t0 = time.perf_counter()

    def mark(ctx: Any, got: Any) -> None:
        if not marks:
            marks.append({"requests": srv.requests, "bytes": srv.bytes,
                          "ms": round((time.perf_counter() - t0) * 1000, 1)})
        inner(ctx, got)

    reader._trial_ids = mark
    return marks


def recording_costs(srv: RangeServer, url: str, latency: float) -> dict[str, Any]:
    """open (``header_and_trees``: the part before the trial IDs), preview, deferred
    checks, window and latency figures of the recording at ``url``."""
    out: dict[str, Any] = {}
    docs: list[Any] = []
    marks = header_and_trees_mark(srv)
    out["open"] = counted(srv, lambda: docs.append(open_document(url)))
    out["open"]["header_and_trees"] = marks[0] if marks else None
    doc = docs[-1]
    assert doc.header is not None and doc.tree is not None and "neuro" in doc.arrays, \
        [f.message for f in doc.findings]
    out["preview"] = counted(srv, lambda: first_preview(doc))
    out["checks"] = counted(srv, doc.verify)
    doc.close()
    doc = open_document(url)
    ref = doc.arrays["neuro"]
    mid = ref.shape[0] // 2
    out["window"] = counted(srv, lambda: ref.envelope((None, CHANNEL), mid, mid + 10_000, BINS))
    doc.close()
    srv.latency = latency
    out["first_view_ms_latency"] = counted(srv, lambda: open_document(url).close())["ms"]
    srv.latency = 0.0
    return out


def archive_costs(srv: RangeServer, url: str, size: int) -> dict[str, Any]:
    """open + verify figures of the archive at ``url``."""
    docs: list[Any] = []

    def run() -> None:
        doc = open_document(url)
        doc.verify()
        docs.append(doc)

    out = counted(srv, run)
    doc = docs[0]
    out.update(file_bytes=size, ok=doc.ok, verified=doc.verified,
               bytes_per_file_byte=round(out["bytes"] / size, 3))
    doc.close()
    return out


def s3_costs(recording: Path, archive: Path) -> dict[str, Any]:
    """Ours against moto's S3 server: open the recording, open + verify the archive."""
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    import boto3
    from moto.server import ThreadedMotoServer

    from inspector.formats.remote.options import set_s3_endpoint

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        s3 = boto3.client("s3", endpoint_url=endpoint)
        s3.create_bucket(Bucket="bench")
        s3.upload_file(str(recording), "bench", recording.name)
        s3.upload_file(str(archive), "bench", archive.name)
        set_s3_endpoint(endpoint)
        out: dict[str, Any] = {}
        for name, verify in ((recording.name, False), (archive.name, True)):
            path = RemotePath(f"s3://bench/{name}")
            t0 = time.perf_counter()
            with open_document(path) as doc:
                if verify:
                    doc.verify()
                ok = doc.ok
            requests, nbytes = path.progress() or (0, 0)
            out["verify" if verify else "open"] = {
                "requests": requests, "bytes": nbytes, "ok": ok,
                "ms": round((time.perf_counter() - t0) * 1000, 1)}
        return out
    finally:
        set_s3_endpoint(None)
        server.stop()


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recording", default="1GB", choices=["10MB", "100MB", "1GB"])
    ap.add_argument("--archive", default="500MB", choices=list(verify_archive.SIZES))
    ap.add_argument("--readers", default="inspector,remfile,fsspec")
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--no-s3", action="store_true", help="skip the S3 (moto) figures")
    args = ap.parse_args(argv)
    folder = Path(os.environ.get("INSPECTOR_BENCH_DIR", "/tmp/inspector-bench-vneurotk"))
    folder.mkdir(parents=True, exist_ok=True)
    recording = trial_average.build(folder, args.recording)["continuous"]
    archive = verify_archive.build(args.archive)
    result: dict[str, Any] = {"recording": {"file": recording.name,
                                            "bytes": recording.stat().st_size},
                              "archive": {"file": archive.name, "bytes": archive.stat().st_size},
                              "latency_ms": args.latency_ms, "readers": {}}
    with worker_pool(), RangeServer() as srv, tempfile.TemporaryDirectory() as cache:
        rec_url = srv.add(recording.name, recording)
        arc_url = srv.add(archive.name, archive)
        for i, kind in enumerate(args.readers.split(",")):
            if kind != "inspector" and not _installed(kind):
                result["readers"][kind] = {"skipped": f"pip install {kind} (and aiohttp)"}
                continue
            # A fresh summary cache for each reader: nothing is read from an earlier one.
            os.environ["XDG_CACHE_HOME"] = os.path.join(cache, str(i))
            use_reader(kind)
            figures = recording_costs(srv, rec_url, args.latency_ms / 1000)
            figures["verify"] = archive_costs(srv, arc_url, archive.stat().st_size)
            result["readers"][kind] = figures
            print(f"{kind}: done", file=sys.stderr)
        use_reader("inspector")
        if not args.no_s3:
            os.environ["XDG_CACHE_HOME"] = os.path.join(cache, "s3")
            result["s3"] = s3_costs(recording, archive)
    result["decoder"] = decoder()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
