"""A misbehaving S3-compatible store: listings without end, pages over the keys asked for,
a page that never ends, an object whose body goes on (issue 35, point 2).

:func:`s3_handler` answers the two S3 operations Inspector asks of a store, path-style
(``/<bucket>?list-type=2&prefix=...`` for ``ListObjectsV2``, ``/<bucket>/<key>`` for
``GetObject``), on the :class:`~fuzz.hostile.remote.MisbehavingServer` (127.0.0.1 only,
an ephemeral port), for the bucket ``lab``:

* prefix ``endless/``: every page holds 1 000 scan files and says more follow
  (``IsTruncated``, a fresh ``NextContinuationToken``), without end;
* prefix ``crowded/``: one page of far more keys than the 1 000 asked for;
* prefix ``unending/``: a page whose XML never ends;
* key ``endless.h5``: the recording's bytes for the range asked (206, the asked
  ``Content-Range``, no ``Content-Length``), then zeros without end.

Every loop is bounded: a page or body "without end" stops after the server's
``endless_bytes``, the page count of a listing without end after :data:`MAX_PAGES`, and
every loop stops when the server is stopped.  The builder points the commands at the
server through the standard AWS environment variables (endpoint, test credentials,
region; no AWS configuration file is read); the remote deadlines are the defaults at
both scales (a store that ends its answers too late is the HTTP trickle's case).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from fuzz.hostile.case import Builder, HostileCase, Scale
from fuzz.hostile.remote import CountingHandler, MisbehavingServer, _asked, environment, recording

BUCKET = "lab"
#: Pages of a listing without end the server answers at most (then the last says no more).
MAX_PAGES = 10_000
#: Keys of the ``crowded/`` page, by scale.
CROWDED_KEYS = {"small": 5_000, "full": 100_000}
_PAGE_KEYS = 1000


def _page(prefix: str, names: Iterator[str], truncated: bool, token: str | None) -> bytes:
    """A ``ListObjectsV2`` answer listing ``names`` under ``prefix``."""
    keys = "".join(f"<Contents><Key>{escape(prefix + n)}</Key><Size>600</Size>"
                   "<ETag>&quot;v1&quot;</ETag><StorageClass>STANDARD</StorageClass></Contents>"
                   for n in names)
    more = f"<NextContinuationToken>{token}</NextContinuationToken>" if token else ""
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            f"<Name>{BUCKET}</Name><Prefix>{escape(prefix)}</Prefix><Delimiter>/</Delimiter>"
            f"<MaxKeys>{_PAGE_KEYS}</MaxKeys><IsTruncated>{str(truncated).lower()}</IsTruncated>"
            f"{more}{keys}</ListBucketResult>").encode()


def s3_handler(srv: MisbehavingServer) -> type[BaseHTTPRequestHandler]:
    """The request handler of the S3 store (see the module doc); ``srv.crowded`` is the
    number of keys of the ``crowded/`` page."""

    class Handler(CountingHandler):
        owner = srv

        def _send(self, status: int, body: bytes, kind: str = "application/xml") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self._write(body)

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            parts = urlsplit(self.path)
            bucket, _, key = parts.path.lstrip("/").partition("/")
            if bucket != BUCKET:
                self._send(404, b"<Error><Code>NoSuchBucket</Code></Error>")
            elif not key:
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                self._list(query.get("prefix", ""), query.get("continuation-token"))
            elif key == "endless.h5":
                self._endless_object()
            else:
                self._send(404, b"<Error><Code>NoSuchKey</Code></Error>")

        def _list(self, prefix: str, token: str | None) -> None:
            if prefix == "endless/":
                page = int(token or 0)
                names = (f"{page * _PAGE_KEYS + i + 1:06d}.RA1" for i in range(_PAGE_KEYS))
                more = page + 1 < MAX_PAGES
                self._send(200, _page(prefix, names, more, str(page + 1) if more else None))
            elif prefix == "crowded/":
                names = (f"{i + 1:06d}.RA1" for i in range(srv.crowded))  # type: ignore[attr-defined]
                self._send(200, _page(prefix, names, False, None))
            elif prefix == "unending/":
                self._unending_page(prefix)
            else:
                self._send(200, _page(prefix, iter(()), False, None))

        def _unending_page(self, prefix: str) -> None:
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Connection", "close")
            self.end_headers()
            head = _page(prefix, iter(()), False, None).removesuffix(b"</ListBucketResult>")
            if not self._write(head):
                return
            sent, n = len(head), 0
            while sent < srv.endless_bytes and not srv.stop.is_set():
                piece = "".join(f"<Contents><Key>{prefix}{n + i:09d}.RA1</Key><Size>1</Size>"
                                "</Contents>" for i in range(1000)).encode()
                if not self._write(piece):
                    return
                sent, n = sent + len(piece), n + 1000

        def _endless_object(self) -> None:
            size = len(srv.content)
            start, end = _asked(self.headers.get("Range", ""), size)
            self.close_connection = True
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{min(end, size) - 1}/{size}")
            self.send_header("ETag", '"v1"')
            self.send_header("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT")
            self.send_header("Connection", "close")
            self.end_headers()
            for piece in srv.endless(start):
                if not self._write(piece):
                    return

    return Handler


def _aws(endpoint: str) -> dict[str, str]:
    """The environment the commands read the store from: its endpoint, test credentials
    and a region (no AWS configuration or credentials file of this machine is read)."""
    return {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "hostile",
            "AWS_SECRET_ACCESS_KEY": "hostile", "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_CONFIG_FILE": "/nonexistent/hostile-aws-config",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/hostile-aws-credentials",
            "AWS_EC2_METADATA_DISABLED": "true"}


def storing(target: str) -> Builder:
    """A builder: start the S3 store and yield ``s3://lab/<target>``."""

    @contextmanager
    def build(folder: Path, scale: Scale) -> Iterator[str]:
        endless = 256 << 20 if scale == "small" else 8 << 30
        srv = MisbehavingServer(recording(), endless_bytes=endless, handler=s3_handler)
        srv.crowded = CROWDED_KEYS[scale]  # type: ignore[attr-defined]
        with srv:
            endpoint = f"http://127.0.0.1:{srv.httpd.server_address[1]}"
            with environment(_aws(endpoint)):
                yield f"s3://{BUCKET}/{target}"

    return build


_VERIFY = ("verify", "--json", "{target}")

CASES = (
    HostileCase(
        name="s3-listing-without-end", area="remote", build=storing("endless/"),
        commands=(_VERIFY,), expect_codes=frozenset({"beckman.too-many-files"}),
        rss_limit_mb=300.0, time_limit_s=120.0,
        description="an S3 store whose folder listing says more pages follow, without end"),
    HostileCase(
        name="s3-listing-page-over-keys", area="remote", build=storing("crowded/"),
        commands=(_VERIFY,), expect_codes=frozenset({"remote.too-large"}),
        rss_limit_mb=300.0, time_limit_s=120.0,
        description="an S3 store answering a listing page of far more than the 1 000 keys "
                    "asked for"),
    HostileCase(
        name="s3-listing-page-without-end", area="remote", build=storing("unending/"),
        commands=(_VERIFY,), expect_codes=frozenset({"remote.too-large"}),
        rss_limit_mb=300.0, time_limit_s=120.0,
        description="an S3 store whose listing page never ends"),
    HostileCase(
        name="s3-object-without-end", area="remote", build=storing("endless.h5"),
        commands=(_VERIFY, ("dump", "{target}::/x")),
        expect_codes=frozenset({"remote.answer-too-long"}), rss_limit_mb=300.0,
        time_limit_s=120.0,
        description="an S3 store answering a ranged GetObject with a body that goes on"),
)
