"""Misbehaving HTTP servers: bodies that never end, a gzip bomb, a huge declared size, a
trickle, an index page without end (issue 35, point 2).

:class:`MisbehavingServer` listens on 127.0.0.1 (an ephemeral port) and serves one real
HDF5 file (a dataset ``/x`` of 1 000 float64) at ``/good.h5`` and the same file, badly, at
``/<behaviour>.h5`` (see :data:`BEHAVIOURS`), plus ``/index/``, a directory index page whose
links never end.  Every loop is bounded: a body "without end" stops after
``endless_bytes`` (a few hundred MB at the small scale, 8 GB at full scale), a trickle
after ``trickle_seconds``, and every loop also stops when the server is stopped.  Each
case's builder starts the server and stops it on exit; tests/test_remote_bounds.py uses
the same server.

At the small scale the builder also shortens the remote deadlines in this process's
environment (``INSPECTOR_REMOTE_REQUEST_DEADLINE_S``, read by the ``inspector`` commands
the runner starts from it) so that the trickle hits them in seconds; at full scale the
defaults apply (docs/architecture.md, "Remote sources").
"""

from __future__ import annotations

import os
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from fuzz.hostile.case import HostileCase, Scale

#: ``/<name>.h5`` answers: what each does to a range request.
BEHAVIOURS = {
    "endless": "206 with the asked Content-Range, no Content-Length, and a body that goes on",
    "chunked": "206 with the asked Content-Range, chunked, and chunks that go on",
    "gzip": "206 with Content-Encoding gzip: a small body that inflates to gigabytes",
    "hugetotal": "206 whose Content-Range claims a total of 2**62 bytes (zeros past the file)",
    "longer": "206 whose Content-Range and Content-Length give far more than was asked",
    "trickle": "206 with the right headers, then a few bytes a second",
}
_CHUNK = 64 << 10
_ZEROS = bytes(_CHUNK)


class MisbehavingServer:
    """``with MisbehavingServer(content) as srv: srv.url("endless.h5")``.

    Args:
        content: the bytes of ``/good.h5`` (and the start of every bad answer).
        endless_bytes: where a body "without end" stops (bytes).
        trickle_seconds: how long a trickle goes on before the server closes it.
        trickle_rate: bytes per second of a trickle.
        handler: makes the request handler class of this server (the HTTP answers
            above by default; :mod:`fuzz.hostile.s3` gives an S3-compatible one).
    """

    def __init__(self, content: bytes, endless_bytes: int = 256 << 20,
                 trickle_seconds: float = 30.0, trickle_rate: float = 4.0,
                 handler: Callable[[MisbehavingServer], type[BaseHTTPRequestHandler]]
                 | None = None) -> None:
        self.content = content
        self.endless_bytes = endless_bytes
        self.trickle_seconds = trickle_seconds
        self.trickle_rate = trickle_rate
        self.sent = 0
        self._lock = threading.Lock()
        self.stop = threading.Event()
        self._gzip: bytes | None = None
        self.httpd = _Quiet(("127.0.0.1", 0), (handler or _handler)(self))
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, name: str) -> str:
        """``http://127.0.0.1:PORT/name``."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def count(self, n: int) -> None:
        """Add ``n`` to the body bytes sent (all answers)."""
        with self._lock:
            self.sent += n

    def gzip_bomb(self) -> bytes:
        """A gzip member inflating to ``min(endless_bytes, 4 GiB)`` zeros, about 1/1000 of
        that (one deflate block of 1 MiB of zeros, repeated; built once)."""
        if self._gzip is None:
            block = bytes(1 << 20)
            count = max(1, min(self.endless_bytes, 4 << 30) >> 20)
            comp = zlib.compressobj(9, zlib.DEFLATED, -15)
            piece = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
            crc = 0
            for _ in range(count):
                crc = zlib.crc32(block, crc)
            self._gzip = (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + piece * count
                          + b"\x03\x00" + struct.pack("<II", crc, (count << 20) & 0xFFFFFFFF))
        return self._gzip

    def endless(self, start: int) -> Iterator[bytes]:
        """The file from ``start``, then zeros, in pieces, up to ``endless_bytes`` in all."""
        head = self.content[start:]
        sent = 0
        if head:
            yield head
            sent = len(head)
        while sent < self.endless_bytes and not self.stop.is_set():
            piece = _ZEROS[: min(_CHUNK, self.endless_bytes - sent)]
            yield piece
            sent += len(piece)

    def __enter__(self) -> MisbehavingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(5)


class _Quiet(ThreadingHTTPServer):
    """Clients that give up on an answer (as they must) are not errors here."""

    def handle_error(self, request: object, client_address: object) -> None:
        pass


def _asked(header: str, size: int) -> tuple[int, int]:
    """``[start, end)`` of ``Range: bytes=a-b`` (the whole object when absent)."""
    if not header.startswith("bytes="):
        return 0, size
    first, _, last = header[6:].partition("-")
    start = int(first or 0)
    return start, (int(last) + 1 if last else size)


class CountingHandler(BaseHTTPRequestHandler):
    """The base of this server's request handlers: HTTP/1.1, no request log, and
    :meth:`_write`, which counts every byte sent on the :attr:`owner` server."""

    protocol_version = "HTTP/1.1"
    owner: MisbehavingServer

    def log_message(self, *args: object) -> None:
        pass

    def _write(self, data: bytes) -> bool:
        """Send ``data``; False once the client has gone."""
        try:
            self.wfile.write(data)
        except OSError:
            return False
        self.owner.count(len(data))
        return True


def _handler(srv: MisbehavingServer) -> type[BaseHTTPRequestHandler]:  # noqa: C901
    class Handler(CountingHandler):
        owner = srv

        def _head(self, status: int, headers: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("ETag", '"v1"')
            self.send_header("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT")
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            name = self.path.lstrip("/").split("?", 1)[0]
            if name.startswith("index/"):
                self._index()
                return
            kind = name.removesuffix(".h5")
            size = len(srv.content)
            start, end = _asked(self.headers.get("Range", ""), size)
            end = min(end, size) if kind != "hugetotal" else end
            if kind not in BEHAVIOURS and kind != "good" or start >= end:
                self._head(404 if start < end else 416, {"Content-Length": "0"})
                return
            getattr(self, f"_{kind}")(start, end, size)

        def _good(self, start: int, end: int, size: int) -> None:
            body = srv.content[start:end]
            self._head(206, {"Content-Range": f"bytes {start}-{end - 1}/{size}",
                             "Content-Length": str(len(body))})
            self._write(body)

        def _endless(self, start: int, end: int, size: int) -> None:
            self.close_connection = True
            self._head(206, {"Content-Range": f"bytes {start}-{end - 1}/{size}",
                             "Connection": "close"})
            for piece in srv.endless(start):
                if not self._write(piece):
                    return

        def _chunked(self, start: int, end: int, size: int) -> None:
            self.close_connection = True
            self._head(206, {"Content-Range": f"bytes {start}-{end - 1}/{size}",
                             "Transfer-Encoding": "chunked"})
            for piece in srv.endless(start):
                if not self._write(b"%x\r\n%s\r\n" % (len(piece), piece)):
                    return
            self._write(b"0\r\n\r\n")

        def _gzip(self, start: int, end: int, size: int) -> None:
            body = srv.gzip_bomb()
            self._head(206, {"Content-Range": f"bytes {start}-{end - 1}/{size}",
                             "Content-Encoding": "gzip", "Content-Length": str(len(body))})
            self._write(body)

        def _hugetotal(self, start: int, end: int, size: int) -> None:
            body = srv.content[start:end]
            body += bytes(min(end - start - len(body), _CHUNK * 16))
            self._head(206, {"Content-Range": f"bytes {start}-{start + len(body) - 1}/{2**62}",
                             "Content-Length": str(len(body))})
            self._write(body)

        def _longer(self, start: int, end: int, size: int) -> None:
            self.close_connection = True
            last = start + srv.endless_bytes - 1
            self._head(206, {"Content-Range": f"bytes {start}-{last}/{last + 1}",
                             "Content-Length": str(srv.endless_bytes), "Connection": "close"})
            for piece in srv.endless(start):
                if not self._write(piece):
                    return

        def _trickle(self, start: int, end: int, size: int) -> None:
            self.close_connection = True
            body = srv.content[start:end]
            self._head(206, {"Content-Range": f"bytes {start}-{end - 1}/{size}",
                             "Content-Length": str(len(body)), "Connection": "close"})
            until = time.monotonic() + srv.trickle_seconds
            for byte in body:
                if time.monotonic() > until or srv.stop.wait(1.0 / srv.trickle_rate):
                    return
                if not self._write(bytes([byte])):
                    return

        def _index(self) -> None:
            self.close_connection = True
            self._head(200, {"Content-Type": "text/html", "Connection": "close"})
            sent, n = 0, 0
            while sent < srv.endless_bytes and not srv.stop.is_set():
                page = "".join(f'<a href="scan{n + i:09d}.RA1">scan</a>\n'
                               for i in range(1000)).encode()
                if not self._write(page):
                    return
                sent, n = sent + len(page), n + 1000

    return Handler


def recording() -> bytes:
    """A small valid HDF5 file: a dataset ``/x`` of 1 000 float64 (0.0 ... 999.0)."""
    import io

    import h5py
    import numpy as np

    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        f.create_dataset("x", data=np.arange(1000, dtype="<f8"))
    return buf.getvalue()


#: Environment variables the small scale sets for the commands it runs (seconds).
SMALL_DEADLINES = {"INSPECTOR_REMOTE_REQUEST_DEADLINE_S": "2",
                   "INSPECTOR_REMOTE_DOCUMENT_DEADLINE_S": "6"}


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """``values`` in this process's environment (which the runner passes to the commands
    it starts); restored on exit."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def small_deadlines(scale: Scale) -> AbstractContextManager[None]:
    """At the small scale, short remote deadlines (:data:`SMALL_DEADLINES`) in this
    process's environment; restored on exit."""
    return environment(SMALL_DEADLINES if scale == "small" else {})


def serving(name: str):  # noqa: ANN201 - a Builder
    """A builder: start a :class:`MisbehavingServer` and yield the URL of ``name``."""

    @contextmanager
    def build(folder: Path, scale: Scale) -> Iterator[str]:
        endless = 256 << 20 if scale == "small" else 8 << 30
        trickle = 10.0 if scale == "small" else 400.0
        with small_deadlines(scale), MisbehavingServer(
                recording(), endless_bytes=endless, trickle_seconds=trickle) as srv:
            if name == "gzip.h5":
                srv.gzip_bomb()  # built before the commands run, not while they wait
            yield srv.url(name)

    return build


def _case(kind: str, codes: set[str], time_limit_s: float = 60.0) -> HostileCase:
    return HostileCase(
        name=f"http-{kind}", area="remote", build=serving(f"{kind}.h5"),
        commands=(("verify", "--json", "{target}"), ("dump", "{target}::/x")),
        expect_codes=frozenset(codes), rss_limit_mb=300.0, time_limit_s=time_limit_s,
        description=f"an HTTP server answering range requests with {BEHAVIOURS[kind]}")


CASES = (
    _case("endless", {"remote.answer-too-long"}),
    _case("chunked", {"remote.answer-too-long"}),
    _case("gzip", {"remote.encoded-answer"}),
    _case("hugetotal", {"remote.declared-too-large"}),
    _case("longer", {"remote.range-mismatch"}),
    _case("trickle", {"remote.request-deadline"}, time_limit_s=240.0),
    HostileCase(
        name="http-endless-index-page", area="remote", build=serving("index/"),
        commands=(("verify", "--json", "{target}"),),
        expect_codes=frozenset({"remote.too-large"}), rss_limit_mb=300.0,
        description="a folder URL whose directory index page never ends"),
)
