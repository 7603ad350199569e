"""Bounds of one HTTP answer: a deadline, a byte budget, no content coding, sane sizes.

A misbehaving server must not hold a reader longer or make it hold more memory than
the request needs (docs/architecture.md, "Remote sources"):

* :class:`Deadline` ends a request that outlives its overall deadline, however steadily
  its bytes come (the per-read timeout only bounds the wait between two bytes): a
  watchdog thread shuts the request's socket down, which ends any blocking read on it.
  :func:`watched_pool` gives the urllib3 pool whose connections tell the deadline of
  the request in progress on this thread which socket to shut.
* :func:`read_body` reads at most one byte more than the answer may have
  (``preload_content=False``, never ``.data``), with no decompression.
* :func:`refuse_coding` refuses an answer with a ``Content-Encoding``.
* :func:`check_declared` refuses a declared object size above the limit.

Each fault is a :class:`~.remote_transport.RemoteError` with its rule of
:mod:`.remote_rules`.  Nothing here imports Qt.
"""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from inspector.formats.remote import rules as R
from inspector.formats.remote.errors import RemoteError

#: Bytes asked of the socket per read of a body.
READ_CHUNK = 256 << 10
#: How often an expired deadline looks again for a socket to shut (a request that was
#: still connecting when the deadline passed), seconds.
_RECHECK_S = 0.25

_CURRENT = threading.local()


class Deadline:
    """The overall deadline of one request, used as ``with Deadline(seconds, what):``.

    While it is active on a thread, the urllib3 connections of :func:`watched_pool`
    register themselves with it; once ``seconds`` have passed, a watchdog thread shuts
    the registered connection's socket down (a blocked read on it then ends) and keeps
    doing so for any new connection until the ``with`` block ends.

    Args:
        seconds: the deadline, seconds from entering the block.
        what: the request, for the message (``bytes a-b of URL``).
    """

    def __init__(self, seconds: float, what: str) -> None:
        self.seconds = seconds
        self.what = what
        self.conn: Any = None
        self._done = threading.Event()
        self._expired = threading.Event()
        self._start = time.monotonic()
        self._outer: Deadline | None = None
        self._thread = threading.Thread(target=self._watch, daemon=True,
                                        name="inspector-remote-deadline")

    @property
    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self._expired.is_set() or time.monotonic() - self._start > self.seconds

    def error(self) -> RemoteError:
        """The ``remote.request-deadline`` fault of this request."""
        return RemoteError(R.REQUEST_DEADLINE, f"{self.what} took more than the "
                           f"{self.seconds:g} s allowed for one request; abandoned")

    def check(self) -> None:
        """Raise :meth:`error` when the deadline has passed.

        Raises:
            RemoteError: ``remote.request-deadline``.
        """
        if self.expired:
            raise self.error()

    def attach(self, conn: Any) -> None:
        """Make ``conn`` (a urllib3 connection) the one whose socket is shut at the deadline."""
        self.conn = conn
        if self._expired.is_set():
            _shut(conn)

    def _watch(self) -> None:
        if self._done.wait(self.seconds):
            return
        self._expired.set()
        while True:
            _shut(self.conn)
            if self._done.wait(_RECHECK_S):
                return

    def __enter__(self) -> Deadline:
        self._start = time.monotonic()
        self._outer = getattr(_CURRENT, "deadline", None)
        _CURRENT.deadline = self
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        _CURRENT.deadline = self._outer


def _shut(conn: Any) -> None:
    """Shut down ``conn``'s socket (both ways), if it has one; errors are ignored."""
    sock = getattr(conn, "sock", None)
    if sock is None:
        return
    try:  # the plain socket's shutdown, also for TLS: no TLS state is touched
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except (OSError, TypeError, ValueError):
        pass


def _register(conn: Any) -> None:
    deadline = getattr(_CURRENT, "deadline", None)
    if deadline is not None:
        deadline.attach(conn)


def watched_pool(num_pools: int, maxsize: int) -> Any:
    """A ``urllib3.PoolManager`` whose connections register with the :class:`Deadline`
    active on the thread that sends a request on them."""
    import urllib3
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class _Http(HTTPConnection):
        def request(self, *args: Any, **kwargs: Any) -> None:
            _register(self)
            super().request(*args, **kwargs)

    class _Https(HTTPSConnection):
        def request(self, *args: Any, **kwargs: Any) -> None:
            _register(self)
            super().request(*args, **kwargs)

    class _HttpPool(HTTPConnectionPool):
        ConnectionCls = _Http

    class _HttpsPool(HTTPSConnectionPool):
        ConnectionCls = _Https

    pool = urllib3.PoolManager(num_pools=num_pools, maxsize=maxsize)
    pool.pool_classes_by_scheme = {"http": _HttpPool, "https": _HttpsPool}
    return pool


def chunks(body: Any) -> Callable[[int], bytes]:
    """A function reading up to ``n`` bytes of ``body`` as they come, undecoded: a urllib3
    response opened with ``preload_content=False`` (``read1``, one socket read at most),
    else any object with ``read(n)`` (botocore's ``StreamingBody`` of a stubbed client)."""
    import urllib3

    if isinstance(body, urllib3.BaseHTTPResponse):
        return lambda n: body.read1(n, decode_content=False)
    return lambda n: body.read(n)


def read_body(read: Callable[[int], bytes], limit: int, deadline: Deadline,
              what: str) -> bytes:
    """The body ``read`` gives (see :func:`chunks`), when it has at most ``limit`` bytes.

    At most ``limit + 1`` bytes are read: one more shows the body goes on.

    Raises:
        RemoteError: ``remote.answer-too-long`` (more than ``limit`` bytes),
            ``remote.request-deadline``, or a connection fault (any exception of
            urllib3 escapes as it is, for the caller to name).
    """
    buf = bytearray()
    while True:
        deadline.check()
        piece = read(min(READ_CHUNK, limit + 1 - len(buf)))
        if not piece:
            return bytes(buf)
        buf += piece
        if len(buf) > limit:
            raise RemoteError(R.ANSWER_TOO_LONG, f"the answer for {what} goes on past the "
                              f"{limit} bytes it should hold; reading stopped there")


def refuse_coding(headers: Any, what: str) -> None:
    """Refuse an answer whose ``Content-Encoding`` is other than ``identity``.

    Raises:
        RemoteError: ``remote.encoded-answer``.
    """
    coding = str(headers.get("Content-Encoding") or "").strip().lower()
    if coding and coding != "identity":
        raise RemoteError(R.ENCODED_ANSWER, f"the answer for {what} is encoded "
                          f"(Content-Encoding: {coding}) although 'identity' was asked for; "
                          "it is not decompressed")


def check_declared(size: int, limit: int, url: str, said: str) -> None:
    """Refuse an object whose declared ``size`` (bytes, as ``said``: the header or field
    it comes from) is above ``limit``.

    Raises:
        RemoteError: ``remote.declared-too-large``.
    """
    if size > limit:
        raise RemoteError(R.DECLARED_TOO_LARGE, f"{url} declares {size} bytes ({said}), more "
                          f"than the {limit} bytes of the largest object opened over the "
                          "network; it is not read")


#: Bytes of a non-streamed S3 answer (a ``ListObjectsV2`` page of 1 000 keys is about
#: 300 KB; an error document a few hundred bytes) read at most.
S3_ANSWER_CAP = 8 << 20


class BoundedS3Sender:
    """Sends botocore's requests of one client itself, bounded: registered for the
    client's ``before-send`` event (botocore's documented hook: a handler returning an
    ``AWSResponse`` is the answer, and botocore sends nothing), it sends each request
    through a :func:`watched_pool`, so that the overall request deadline covers the wait
    for the response headers too (botocore bounds it only by its per-read timeout, and
    a server sending its headers a byte at a time would never end), and reads every
    answer botocore would read whole (every operation but ``GetObject``'s body, and
    every error document) within :data:`S3_ANSWER_CAP` bytes.

    A streamed answer (``GetObject``) is handed back unread: its reader reads it within
    its own :class:`Deadline`, active on the thread while botocore sends.

    Args:
        seconds: the request deadline.
        timeout: seconds to connect and between two reads.
        url: the object or folder URL, for messages.
    """

    def __init__(self, seconds: float, timeout: float, url: str) -> None:
        self._seconds = seconds
        self._timeout = timeout
        self._url = url
        self._pool = watched_pool(num_pools=2, maxsize=4)

    def __call__(self, request: Any, **_: Any) -> Any:
        """The answer to botocore's prepared ``request``.

        Raises:
            RemoteError: ``remote.too-large`` (an answer beyond the cap) or
                ``remote.request-deadline``; urllib3's errors as they are (botocore
                names them).
        """
        what = f"an answer of the store for {self._url}"
        outer = getattr(_CURRENT, "deadline", None)
        if request.stream_output and outer is not None:
            response = self._send(request, outer)
            if response.status < 300:
                return _aws_response(request.url, response, None)
            raw_answer = response
        else:
            raw_answer = None
        with Deadline(self._seconds, what) as deadline:
            try:
                response = raw_answer or self._send(request, deadline)
                content = self._content(response, deadline, what)
            except Exception:
                if deadline.expired:
                    raise deadline.error() from None
                raise
        return _aws_response(request.url, response, content)

    def _send(self, request: Any, deadline: Deadline) -> Any:
        import urllib3

        deadline.check()
        body = request.body
        if hasattr(body, "read"):
            body = body.read()
        return self._pool.urlopen(
            request.method, request.url, body=body, headers=dict(request.headers.items()),
            preload_content=False, decode_content=False, redirect=False, retries=False,
            timeout=urllib3.Timeout(connect=self._timeout, read=self._timeout))

    @staticmethod
    def _content(response: Any, deadline: Deadline, what: str) -> bytes:
        deadline.attach(getattr(response, "connection", None))
        complete = False
        try:
            content = read_body(chunks(response), S3_ANSWER_CAP, deadline, what)
            complete = True
        except RemoteError as exc:
            if exc.rule is R.ANSWER_TOO_LONG:
                raise RemoteError(R.TOO_LARGE, f"{what} is larger than the "
                                  f"{S3_ANSWER_CAP} bytes read of one answer") from None
            raise
        finally:
            _finish(response, complete)
        return content


class _Read(io.BytesIO):
    """An answer's body already read, as botocore's ``AWSResponse`` reads a raw body
    (``stream``) or its ``StreamingBody`` one (``read``)."""

    def stream(self, *_: Any, **__: Any) -> Any:
        yield self.getvalue()


def _aws_response(url: str, response: Any, content: bytes | None) -> Any:
    """botocore's ``AWSResponse`` of a urllib3 ``response``: its raw stream unread, or
    ``content`` when it was read here."""
    from botocore.awsrequest import AWSResponse

    headers = {k: v for k, v in response.headers.items()}
    raw = response if content is None else _Read(content)
    return AWSResponse(url, response.status, headers, raw)


def _finish(raw: Any, complete: bool) -> None:
    """Close ``raw`` unless its body was read to the end (its connection must not serve
    another request), then give its connection back to the pool."""
    if not complete and hasattr(raw, "close"):
        raw.close()
    if hasattr(raw, "release_conn"):
        raw.release_conn()
