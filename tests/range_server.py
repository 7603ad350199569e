"""A range-capable HTTP server on 127.0.0.1 for tests and benchmarks/remote.py.

Serves named files (bytes in memory or a local path) with single-range
``GET`` (206 + Content-Range), ``ETag`` and ``Last-Modified``; counts
requests and body bytes; optionally adds latency per request; and plays
faults per name: ``"404"``, ``"403"``, ``"norange"`` (answers 200 with the
whole body), ``"redirect-loop"``, ``"slow"`` (never answers within the
client's timeout), ``"reset"`` (the second and later requests send half
their body, then drop the connection), ``"change"`` (the ETag changes after
the first request).  Listens on the loopback interface only.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

LAST_MODIFIED = "Tue, 01 Dec 2026 10:00:00 GMT"


class RangeServer:
    """``with RangeServer() as srv: srv.add("x.h5", data); url = srv.url("x.h5")``."""

    def __init__(self, latency: float = 0.0, slow_seconds: float = 5.0) -> None:
        self.files: dict[str, bytes | Path] = {}
        self.faults: dict[str, str] = {}
        self.latency = latency
        self.slow_seconds = slow_seconds
        self.requests = 0
        self.bytes = 0
        self.seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.httpd = _Quiet(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def add(self, name: str, content: bytes | Path, fault: str | None = None) -> str:
        """Serve ``content`` at ``/name`` (with ``fault``); returns its URL."""
        self.files[name] = content
        if fault:
            self.faults[name] = fault
        return self.url(name)

    def url(self, name: str) -> str:
        """``http://127.0.0.1:PORT/name``."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def reset_counts(self) -> None:
        """Zero the request and byte counters."""
        with self._lock:
            self.requests = 0
            self.bytes = 0

    def _count(self, name: str, nbytes: int) -> int:
        with self._lock:
            self.requests += 1
            self.bytes += nbytes
            self.seen[name] = self.seen.get(name, 0) + 1
            return self.seen[name]

    def __enter__(self) -> RangeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(5)


class _Quiet(ThreadingHTTPServer):
    """Clients that drop connections on purpose (timeouts, faults) are not errors here."""

    def handle_error(self, request: object, client_address: object) -> None:
        pass


def _size(content: bytes | Path) -> int:
    return len(content) if isinstance(content, bytes) else os.path.getsize(content)


def _slice(content: bytes | Path, start: int, end: int) -> bytes:
    if isinstance(content, bytes):
        return content[start:end]
    with open(content, "rb") as fh:
        fh.seek(start)
        return fh.read(end - start)


def _handler(server: RangeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            name = self.path.lstrip("/").split("?", 1)[0]
            fault = server.faults.get(name, "")
            if server.latency:
                time.sleep(server.latency)
            content = server.files.get(name)
            if content is None or fault in ("404", "403"):
                server._count(name, 0)
                code = 403 if fault == "403" else 404
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if fault == "redirect-loop":
                server._count(name, 0)
                self.send_response(302)
                self.send_header("Location", f"/{name}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if fault == "slow":
                server._count(name, 0)
                server._stop.wait(server.slow_seconds)
                return
            self._serve(name, content, fault)

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
            name = self.path.lstrip("/").split("?", 1)[0]
            content = server.files.get(name)
            if server.latency:
                time.sleep(server.latency)
            server._count(name, 0)
            if content is None or server.faults.get(name) in ("404", "403"):
                self.send_response(403 if server.faults.get(name) == "403" else 404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("ETag", '"v1"')
            self.send_header("Last-Modified", LAST_MODIFIED)
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(_size(content)))
            self.end_headers()

        def _serve(self, name: str, content: bytes | Path, fault: str) -> None:
            size = _size(content)
            start, end = 0, size
            rng = self.headers.get("Range", "")
            ranged = rng.startswith("bytes=") and fault != "norange"
            if ranged:
                first, _, last = rng[6:].partition("-")
                start = int(first)
                end = min(size, int(last) + 1) if last else size
                if start >= size:
                    server._count(name, 0)
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{size}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
            body = _slice(content, start, end)
            nth = server._count(name, len(body))
            self.send_response(206 if ranged else 200)
            etag = '"v2"' if fault == "change" and nth > 1 else '"v1"'
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", LAST_MODIFIED)
            self.send_header("Accept-Ranges", "bytes" if fault != "norange" else "none")
            if ranged:
                self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if fault == "reset" and nth > 1:
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.wfile.write(body)

    return Handler
