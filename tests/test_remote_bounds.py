"""Every remote read is bounded: servers that never stop sending, a gzip bomb, a huge
declared size, a range other than the one asked, a trickle, an index page without end.

The misbehaving server is the hostile corpus's (fuzz/hostile/remote.py), on 127.0.0.1,
every loop in it bounded.  Memory is asserted through what the client reads: every body
is counted as it comes off the connection (an instrumented ``remote_bounds.chunks``), and
no answer may give more than one byte past the bytes asked for.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from range_server import RangeServer

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the harness is a top-level folder, not an installed package
    sys.path.insert(0, str(ROOT))

from fuzz.hostile.remote import MisbehavingServer, recording  # noqa: E402
from inspector.formats.registry import open_document  # noqa: E402
from inspector.formats.remote import rules as R  # noqa: E402
from inspector.formats.remote import transport as remote_transport  # noqa: E402
from inspector.formats.remote.errors import RemoteError  # noqa: E402
from inspector.formats.remote.folder import MAX_INDEX_BYTES, list_folder  # noqa: E402
from inspector.formats.remote.options import RemoteOptions  # noqa: E402
from inspector.formats.remote.path import RemotePath  # noqa: E402
from inspector.formats.remote.source import RemoteResource  # noqa: E402

#: Small blocks (a read asks for at most 32 KiB); a per-read timeout no loaded machine
#: reaches, so that only the bound under test can end a read.
OPTIONS = RemoteOptions(timeout=120.0, min_block=4096, max_block=32768)
#: Where a body "without end" stops on the server's side: far beyond every budget.
ENDLESS = 64 << 20


@pytest.fixture(scope="module")
def content() -> bytes:
    return recording()


@pytest.fixture(scope="module")
def server(content):
    with MisbehavingServer(content, endless_bytes=ENDLESS, trickle_seconds=60.0) as srv:
        yield srv


@pytest.fixture
def bodies(monkeypatch) -> list[int]:
    """The bytes read of each answer's body, in order (one entry per answer)."""
    counts: list[int] = []
    real = remote_transport.chunks

    def counted(body):
        read = real(body)
        counts.append(0)
        index = len(counts) - 1

        def step(n: int) -> bytes:
            piece = read(n)
            counts[index] += len(piece)
            return piece

        return step

    monkeypatch.setattr(remote_transport, "chunks", counted)
    return counts


def codes(target) -> list[str]:
    with open_document(target) as doc:
        doc.verify()
        return [f.code for f in doc.findings]


def test_the_well_behaved_answers_read_exactly_what_was_asked(server, content, bodies):
    res = RemoteResource(server.url("good.h5"), OPTIONS)
    with res.open() as fh:
        assert fh.read() == content
    assert sum(bodies) == len(content) and res.faults == []
    # (a small HDF5 file, no recording: read whole as an HDF5 file, with the note)
    assert codes(RemotePath(server.url("good.h5"), OPTIONS)) == ["format.container-only"]


@pytest.mark.parametrize("kind", ["endless", "chunked"])
def test_a_body_without_end_is_read_up_to_the_range_asked(server, bodies, kind):
    found = codes(RemotePath(server.url(f"{kind}.h5"), OPTIONS))
    assert found == [R.ANSWER_TOO_LONG.code]
    # the first request asks for one block: the body is cut one byte past it
    assert bodies and max(bodies) <= OPTIONS.min_block + 1
    assert sum(bodies) <= len(bodies) * (OPTIONS.max_block + 1)


def test_an_encoded_range_answer_is_refused_unread(server, bodies):
    assert codes(RemotePath(server.url("gzip.h5"), OPTIONS)) == [R.ENCODED_ANSWER.code]
    assert sum(bodies) == 0


def test_a_declared_size_beyond_the_limit_is_refused_unread(server, bodies):
    assert codes(RemotePath(server.url("hugetotal.h5"), OPTIONS)) == [R.DECLARED_TOO_LARGE.code]
    assert sum(bodies) == 0
    # under a limit above the claim (2**62 bytes), the same answers are read
    roomy = RemoteResource(server.url("hugetotal.h5"),
                           RemoteOptions(min_block=4096, max_object=1 << 63))
    assert roomy.probe().size == 2**62


def test_an_answer_for_other_bytes_than_asked_is_refused_unread(server, bodies):
    assert codes(RemotePath(server.url("longer.h5"), OPTIONS)) == [R.RANGE_MISMATCH.code]
    assert sum(bodies) == 0


def test_a_trickle_ends_at_the_request_deadline(server, content, bodies):
    options = RemoteOptions(timeout=120.0, min_block=4096, request_deadline=1.0)
    assert codes(RemotePath(server.url("trickle.h5"), options)) == [R.REQUEST_DEADLINE.code]
    assert sum(bodies) < 4096  # not the block: the read was abandoned


def test_a_trickle_ends_at_the_document_deadline(server):
    options = RemoteOptions(timeout=120.0, min_block=4096, request_deadline=60.0,
                            document_deadline=0.5)
    res = RemoteResource(server.url("trickle.h5"), options)
    with pytest.raises(RemoteError) as first:
        res.probe()
    assert first.value.rule is R.DOCUMENT_DEADLINE
    assert res.counters.seconds >= 0.5
    # nothing more is asked of the server once the document's time is spent
    with pytest.raises(RemoteError) as again:
        res._timed_fetch(0, 10, None)
    assert again.value.rule is R.DOCUMENT_DEADLINE


def test_an_answer_whose_headers_never_come_ends_at_the_request_deadline():
    """The watchdog shuts the socket while the client waits for the status line."""
    with RangeServer(slow_seconds=30.0) as srv:
        url = srv.add("x.h5", b"\x89HDF\r\n\x1a\n" + bytes(100), fault="slow")
        options = RemoteOptions(timeout=120.0, request_deadline=1.0)
        assert codes(RemotePath(url, options)) == [R.REQUEST_DEADLINE.code]


def test_an_index_page_without_end_is_cut_at_its_cap(server, bodies):
    with pytest.raises(RemoteError) as err:
        list_folder(RemotePath(server.url("index/"), OPTIONS))
    assert err.value.rule is R.TOO_LARGE
    assert bodies == [MAX_INDEX_BYTES + 1]
    assert R.TOO_LARGE.code in codes(RemotePath(server.url("index/"), OPTIONS))


class _Endless:
    """A raw S3 body stream that never ends (counts what is read)."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def read(self, n: int | None = None) -> bytes:
        n = 1 << 20 if n is None or n < 0 else n
        self.read_bytes += n
        return bytes(n)

    def close(self) -> None:
        pass


class _Client:
    """A stand-in boto3 client answering every ``GetObject`` with ``answer``."""

    def __init__(self, **answer) -> None:
        self.answer = answer

    def get_object(self, **kwargs):
        return dict(self.answer)


def _s3(client: _Client, **options) -> remote_transport.S3Transport:
    transport = remote_transport.S3Transport("s3://lab/x.h5", RemoteOptions(**options))
    transport._client = client
    return transport


def test_s3_bodies_and_declared_sizes_are_bounded():
    botocore = pytest.importorskip("botocore.response")
    raw = _Endless()
    body = botocore.StreamingBody(raw, 100)
    endless = _Client(Body=body, ContentRange="bytes 0-99/100", ContentLength=100)
    with pytest.raises(RemoteError) as err:
        _s3(endless).fetch(0, 100, None)
    assert err.value.rule is R.ANSWER_TOO_LONG and raw.read_bytes == 101
    huge = _Client(Body=botocore.StreamingBody(_Endless(), 100), ContentLength=100,
                   ContentRange=f"bytes 0-99/{2**62}")
    with pytest.raises(RemoteError) as err:
        _s3(huge).fetch(0, 100, None)
    assert err.value.rule is R.DECLARED_TOO_LARGE
    other = _Client(Body=botocore.StreamingBody(_Endless(), 100), ContentLength=100,
                    ContentRange="bytes 0-999999/1000000")
    with pytest.raises(RemoteError) as err:
        _s3(other).fetch(0, 100, None)
    assert err.value.rule is R.RANGE_MISMATCH


def test_the_limits_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("INSPECTOR_REMOTE_REQUEST_DEADLINE_S", "2.5")
    monkeypatch.setenv("INSPECTOR_REMOTE_DOCUMENT_DEADLINE_S", "10")
    monkeypatch.setenv("INSPECTOR_REMOTE_MAX_OBJECT_GIB", "2")
    options = RemoteOptions.from_environment()
    assert (options.request_deadline, options.document_deadline, options.max_object) == \
        (2.5, 10.0, 2 << 30)
    monkeypatch.setenv("INSPECTOR_REMOTE_REQUEST_DEADLINE_S", "-1")
    monkeypatch.setenv("INSPECTOR_REMOTE_DOCUMENT_DEADLINE_S", "soon")
    options = RemoteOptions.from_environment()
    assert (options.request_deadline, options.document_deadline) == (120.0, 3600.0)


class _RawS3:
    """A hand-written S3 endpoint on 127.0.0.1 answering every request with
    ``answer(conn)`` (each loop bounded; it stops when the client hangs up)."""

    def __init__(self, answer) -> None:
        self._answer = answer
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(5)
                try:
                    conn.recv(65536)  # the request (small, no body)
                    self._answer(conn, self._stop)
                except OSError:
                    pass

    def __enter__(self) -> str:
        self._thread.start()
        return self.endpoint

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(10)
        self._sock.close()


def _s3_env(monkeypatch) -> None:
    pytest.importorskip("boto3")
    for key, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                       ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(key, value)


def _trickled_headers(conn, stop) -> None:
    """Headers one byte every 50 ms, never ending (at most 60 s)."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    for _ in range(1200):
        if stop.is_set():
            return
        conn.sendall(b"a")
        time.sleep(0.05)


def _endless_page(conn, stop) -> None:
    """A 200 answer whose body never ends (at most 64 MiB)."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n\r\n<x>")
    for _ in range(256):
        if stop.is_set():
            return
        conn.sendall(b"y" * (256 << 10))


def _page_of(n: int):
    def answer(conn, _stop) -> None:
        keys = "".join(f"<Contents><Key>run/s{i}.RA1</Key><Size>1</Size></Contents>"
                       for i in range(n))
        body = ('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>lab</Name>'
                f"<Prefix>run/</Prefix><KeyCount>{n}</KeyCount><MaxKeys>1000</MaxKeys>"
                f"<IsTruncated>false</IsTruncated>{keys}</ListBucketResult>").encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
    return answer


def test_s3_headers_sent_without_end_meet_the_request_deadline(monkeypatch):
    """The wait for the response headers is within the request deadline (a byte every
    50 ms never trips the 5 s per-read timeout)."""
    _s3_env(monkeypatch)
    with _RawS3(_trickled_headers) as endpoint:
        options = RemoteOptions(s3_endpoint=endpoint, timeout=5.0, request_deadline=1.0)
        transport = remote_transport.S3Transport("s3://lab/x.h5", options)
        with pytest.raises(RemoteError) as err:
            transport.fetch(0, 100, None)
        assert err.value.rule is R.REQUEST_DEADLINE, err.value
        listing = remote_transport.S3Transport("s3://lab/run/", options)
        with pytest.raises(RemoteError) as err:
            listing.list_names(10)
        assert err.value.rule is R.REQUEST_DEADLINE, err.value


def test_s3_answers_read_whole_by_botocore_are_capped(monkeypatch):
    """A listing page without end: read up to the cap, then refused."""
    _s3_env(monkeypatch)
    with _RawS3(_endless_page) as endpoint:
        options = RemoteOptions(s3_endpoint=endpoint, timeout=5.0, request_deadline=60.0)
        with pytest.raises(RemoteError) as err:
            remote_transport.S3Transport("s3://lab/run/", options).list_names(10)
    assert err.value.rule is R.TOO_LARGE


def test_an_s3_listing_page_is_held_to_the_keys_asked_for(monkeypatch):
    _s3_env(monkeypatch)
    options_of = lambda endpoint: RemoteOptions(s3_endpoint=endpoint, timeout=5.0)  # noqa: E731
    with _RawS3(_page_of(remote_transport.PAGE_KEYS)) as endpoint:
        names, more = remote_transport.S3Transport(
            "s3://lab/run/", options_of(endpoint)).list_names(5000)
    assert len(names) == remote_transport.PAGE_KEYS and names[:2] == ["s0.RA1", "s1.RA1"]
    assert more is False
    with _RawS3(_page_of(remote_transport.PAGE_KEYS + 1)) as endpoint:
        with pytest.raises(RemoteError) as err:
            remote_transport.S3Transport("s3://lab/run/", options_of(endpoint)).list_names(5000)
    assert err.value.rule is R.TOO_LARGE and "1001 keys" in str(err.value)


def test_an_s3_listing_through_the_bounded_session_is_the_listing(tmp_path):
    from s3_server import moto_s3

    objects = {f"run/scan{i}.RA1": b"x" * i for i in range(3)}
    with moto_s3(objects) as endpoint:
        listing = list_folder(RemotePath("s3://lab/run/", RemoteOptions(s3_endpoint=endpoint)))
    assert [p.name for p in listing.files] == ["scan0.RA1", "scan1.RA1", "scan2.RA1"]
