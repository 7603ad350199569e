"""Range requests over HTTP(S) (urllib3) and S3 (boto3), each fault a rule of
:mod:`.remote_rules`.

:meth:`Transport.fetch` asks for bytes ``[start, end)`` and returns an
:class:`Answer`; every request has a timeout (connect and between bytes) and an
overall deadline, reads at most the bytes asked for (never decompressed) and
checks the declared size and range (:mod:`.remote_bounds`).
Every answer's validator (ETag, Last-Modified, size) is compared with the
first one: a mismatch is ``remote.changed`` (RFC 9110 §8.8); S3 requests
also send ``If-Match``.  HTTP follows at most ``max_redirects`` redirects.
Nothing here imports Qt; boto3 is imported only for ``s3://`` URLs (the
optional extra ``remote``).
"""

from __future__ import annotations

import email.utils
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlsplit

from inspector.formats.remote import rules as R
from inspector.formats.remote.bounds import (
    BoundedS3Sender,
    Deadline,
    check_declared,
    chunks,
    read_body,
    refuse_coding,
    watched_pool,
)
from inspector.formats.remote.errors import RemoteError

if TYPE_CHECKING:
    from inspector.formats.remote.options import RemoteOptions

_T = TypeVar("_T")
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")


@dataclass(frozen=True)
class Validator:
    """What identifies one version of a remote object (RFC 9110 §8.8)."""

    etag: str | None
    last_modified: str | None
    size: int

    def key(self) -> str:
        """One string naming this version (disk cache key)."""
        return f"{self.etag}|{self.last_modified}|{self.size}"

    def mtime(self) -> float:
        """Last-Modified in seconds since the epoch (0.0 when absent or unparsable)."""
        if not self.last_modified:
            return 0.0
        try:
            return email.utils.parsedate_to_datetime(self.last_modified).timestamp()
        except (TypeError, ValueError, IndexError):
            return 0.0

    def differs(self, other: Validator) -> str | None:
        """What changed between ``self`` (the first answer) and ``other``, or None."""
        if self.size != other.size:
            return f"its size changed from {self.size} to {other.size} bytes"
        if self.etag and other.etag and self.etag != other.etag:
            return f"its ETag changed from {self.etag} to {other.etag}"
        if self.last_modified and other.last_modified and \
                self.last_modified != other.last_modified:
            return f"its Last-Modified changed from {self.last_modified} to {other.last_modified}"
        return None


@dataclass(frozen=True)
class Answer:
    """The bytes of one range request, the object's total ``size`` and validator."""

    data: bytes
    size: int
    validator: Validator
    requests: int = 1


class Transport(Protocol):
    """Fetches byte ranges of one object."""

    def fetch(self, start: int, end: int, expect: Validator | None,
              seconds: float | None = None) -> Answer:
        """Bytes ``[start, end)`` (fewer at the end of the object), within ``seconds`` (and
        the options' request deadline).

        Raises:
            RemoteError: any fault, or a validator differing from ``expect``.
        """
        ...


def make_transport(url: str, options: RemoteOptions) -> Transport:
    """The transport for ``url``'s scheme (``http``, ``https`` or ``s3``).

    Raises:
        ValueError: another scheme.
    """
    scheme = urlsplit(url).scheme.lower()
    if scheme in ("http", "https"):
        return HttpTransport(url, options)
    if scheme == "s3":
        return S3Transport(url, options)
    raise ValueError(f"not a remote URL: {url}")


def _changed(url: str, expect: Validator | None, got: Validator) -> None:
    why = expect.differs(got) if expect is not None else None
    if why is not None:
        raise RemoteError(R.CHANGED, f"{url} changed while it was open: {why}; reopen it")


class HttpTransport:
    """Range requests with urllib3: one connection pool per object, no retries of reads.

    Every request is bounded (docs/architecture.md, "Remote sources"): an overall
    deadline (:class:`~.remote_bounds.Deadline`) besides the per-read timeout; a body of
    at most the bytes asked for, read as it comes and never decompressed (``Accept-
    Encoding: identity``; an encoded answer is refused); a Content-Range naming the range
    asked and a declared size of at most ``max_object`` bytes.
    """

    def __init__(self, url: str, options: RemoteOptions) -> None:
        import urllib3

        self.url = url
        self._options = options
        self._timeout = urllib3.Timeout(connect=options.timeout, read=options.timeout)
        self._retries = urllib3.Retry(total=None, connect=1, read=0, status=0, other=0,
                                      redirect=options.max_redirects, raise_on_redirect=True,
                                      raise_on_status=False,
                                      respect_retry_after_header=False)
        self._pool = watched_pool(num_pools=4, maxsize=8)

    def _seconds(self, seconds: float | None) -> float:
        limit = self._options.request_deadline
        return limit if seconds is None else min(limit, seconds)

    def fetch(self, start: int, end: int, expect: Validator | None,
              seconds: float | None = None) -> Answer:
        """See :meth:`Transport.fetch` (HTTP ``Range: bytes=start-(end-1)``)."""
        what = f"bytes {start}-{end - 1} of {self.url}"
        headers = {"Range": f"bytes={start}-{end - 1}", "Accept-Encoding": "identity"}
        with Deadline(self._seconds(seconds), what) as deadline:
            return self._request(headers, what, deadline,
                                 lambda resp: self._answer(resp, start, end, expect, deadline))

    def get_page(self, cap: int, seconds: float | None = None) -> bytes:
        """The whole object by a plain ``GET`` (a directory index page), at most ``cap`` bytes,
        within the request deadline.

        Raises:
            RemoteError: any fault, or ``remote.too-large`` beyond ``cap`` bytes.
        """
        what = f"the listing of {self.url}"
        with Deadline(self._seconds(seconds), what) as deadline:
            return self._request({"Accept-Encoding": "identity"}, what, deadline,
                                 lambda resp: _page(resp, cap, self.url, deadline))

    def _request(self, headers: dict[str, str], what: str, deadline: Deadline,
                 take: Callable[[Any], _T]) -> _T:
        """Send a ``GET`` with ``headers`` and return ``take(response)``; every fault
        (one past the deadline included) as its :class:`RemoteError`."""
        try:
            resp = self._pool.request("GET", self.url, headers=headers, preload_content=False,
                                      decode_content=False, retries=self._retries,
                                      timeout=self._timeout)
        except Exception as exc:  # noqa: BLE001 - urllib3's errors become our findings
            raise _http_error(exc, what, deadline) from None
        complete = False
        try:
            result = take(resp)
            complete = True
            return result
        except RemoteError as exc:
            if deadline.expired and exc.rule is R.CONNECTION_RESET:
                raise deadline.error() from None
            raise
        except Exception as exc:  # noqa: BLE001 - urllib3's errors become our findings
            raise _http_error(exc, what, deadline) from None
        finally:
            if not complete:  # an unread body must not reach the next request on this connection
                resp.close()
            resp.release_conn()

    def _answer(self, resp: Any, start: int, end: int, expect: Validator | None,
                deadline: Deadline) -> Answer:
        what = deadline.what
        status = int(resp.status)
        _status_error(status, str(resp.reason or ""), self.url, what, start)
        headers = resp.headers
        refuse_coding(headers, what)
        etag, modified = headers.get("ETag"), headers.get("Last-Modified")
        if status == 416:  # an empty object answers "range not satisfiable"
            got = Validator(etag, modified, 0)
            _changed(self.url, expect, got)
            return Answer(b"", 0, got)
        if status == 200:
            return self._whole(resp, start, end, expect, deadline)
        size, last = _content_range(headers, start, end, what)
        check_declared(size, self._options.max_object, self.url, "its Content-Range total")
        got = Validator(etag, modified, size)
        _changed(self.url, expect, got)
        return Answer(_exact(resp, last - start + 1, deadline), size, got)

    def _whole(self, resp: Any, start: int, end: int, expect: Validator | None,
               deadline: Deadline) -> Answer:
        """A 200 answer to a range request: the server sent the whole object."""
        size = _length(resp.headers)
        if start != 0 or size is None or size > end:
            raise RemoteError(R.RANGE_UNSUPPORTED, f"the server does not support range requests: "
                              f"asked for {deadline.what}, it answered the whole object "
                              f"({size if size is not None else 'unknown'} bytes)")
        got = Validator(resp.headers.get("ETag"), resp.headers.get("Last-Modified"), size)
        _changed(self.url, expect, got)
        return Answer(_exact(resp, size, deadline), size, got)


def _length(headers: Any) -> int | None:
    """The Content-Length of ``headers`` (None when absent or not a number)."""
    length = str(headers.get("Content-Length") or "").strip()
    return int(length) if length.isdigit() and len(length) < 20 else None


def _content_range(headers: Any, start: int, end: int, what: str) -> tuple[int, int]:
    """The total size and last byte a 206 answer declares for the range ``[start, end)``.

    Raises:
        RemoteError: ``remote.range-unsupported`` (no usable Content-Range),
            ``remote.range-mismatch`` (other bytes than asked, or a Content-Length
            differing from the range).
    """
    said = headers.get("Content-Range")
    m = _CONTENT_RANGE.fullmatch(str(said or "").strip())
    if m is None or m.group(3) == "*" or len(said or "") > 120:
        raise RemoteError(R.RANGE_UNSUPPORTED, f"the answer for {what} has no usable "
                          f"Content-Range ({str(said)[:120]!r})")
    first, last, size = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if first != start or last < first or last >= end or last >= size:
        raise RemoteError(R.RANGE_MISMATCH, f"the answer for {what} names other bytes "
                          f"(Content-Range: {said})")
    length = _length(headers)
    if length is not None and length != last - first + 1:
        raise RemoteError(R.RANGE_MISMATCH, f"the answer for {what} announces {length} bytes "
                          f"(Content-Length) for the {last - first + 1} bytes of its "
                          f"Content-Range ({said})")
    return size, last


def _exact(resp: Any, want: int, deadline: Deadline) -> bytes:
    """Exactly ``want`` bytes of the body (no more are read), or the fault that stopped them."""
    data = read_body(chunks(resp), want, deadline, deadline.what)
    if len(data) != want:
        raise RemoteError(R.CONNECTION_RESET, f"the connection ended after {len(data)} of "
                          f"{want} bytes of {deadline.what}")
    return data


def _page(resp: Any, cap: int, url: str, deadline: Deadline) -> bytes:
    """The body of a plain ``GET`` of ``url`` (an index page) of at most ``cap`` bytes."""
    what = deadline.what
    _status_error(int(resp.status), str(resp.reason or ""), url, what, 0)
    refuse_coding(resp.headers, what)
    length = _length(resp.headers)
    too_large = RemoteError(R.TOO_LARGE, f"{what} is larger than the {cap} bytes read of a "
                            "directory index page")
    if length is not None and length > cap:
        raise too_large
    try:
        return read_body(chunks(resp), cap, deadline, what)
    except RemoteError as exc:
        if exc.rule is R.ANSWER_TOO_LONG:
            raise too_large from None
        raise


def _status_error(status: int, reason: str, url: str, what: str, start: int) -> None:
    """Raise the finding of an error status (anything but 200, 206 and 416)."""
    said = f"HTTP {status} {reason}".strip()
    if status in (404, 410):
        raise RemoteError(R.NOT_FOUND, f"{url}: no such object on the server ({said})")
    if status in (401, 403):
        raise RemoteError(R.FORBIDDEN, f"{url}: the server refuses access ({said})")
    if 300 <= status < 400:
        raise RemoteError(R.REDIRECT_LOOP, f"{url}: redirected without end ({said})")
    if status == 416 and start != 0:
        raise RemoteError(R.CHANGED, f"{url} changed while it was open: {what} is no longer "
                          f"in the object ({said}); reopen it")
    if status not in (200, 206, 416):
        raise RemoteError(R.UNREACHABLE, f"{url}: the server answered {said} for {what}")


def _http_error(exc: BaseException, what: str, deadline: Deadline | None = None) -> RemoteError:
    """The finding of a urllib3 exception raised for a request for ``what`` (the deadline's,
    when it has passed: its watchdog broke the connection)."""
    from urllib3 import exceptions as ux

    if deadline is not None and deadline.expired:
        return deadline.error()

    reason = exc.reason if isinstance(exc, ux.MaxRetryError) and exc.reason else exc
    text = f"{type(reason).__name__}: {reason}"
    if isinstance(reason, ux.ResponseError) and "redirect" in str(reason):
        return RemoteError(R.REDIRECT_LOOP, f"too many redirects for {what} ({reason})")
    if isinstance(reason, TimeoutError | ux.TimeoutError | ux.ConnectTimeoutError):
        return RemoteError(R.TIMEOUT, f"no answer in time for {what} ({text})")
    if isinstance(reason, ux.ProtocolError | ConnectionResetError | ux.IncompleteRead):
        return RemoteError(R.CONNECTION_RESET, f"the connection broke during {what} ({text})")
    return RemoteError(R.UNREACHABLE, f"cannot reach the server for {what} ({text})")


class S3Transport:
    """Ranged ``GetObject`` with boto3 (credentials and region from the standard AWS
    environment variables and config files; endpoint from the options or
    ``AWS_ENDPOINT_URL``)."""

    def __init__(self, url: str, options: RemoteOptions) -> None:
        parts = urlsplit(url)
        self.url = url
        self.bucket, self.key = parts.netloc, parts.path.lstrip("/")
        self._options = options
        self._client: Any = None

    def _s3(self) -> Any:
        if self._client is None:
            try:
                import boto3
                from botocore.config import Config
            except ImportError as exc:
                raise RemoteError(R.UNREACHABLE, f"{self.url}: reading s3:// URLs needs boto3 "
                                  "(pip install 'vneurotk-aucx-inspector[remote]')") from exc
            t = self._options.timeout
            endpoint = (self._options.s3_endpoint or os.environ.get("AWS_ENDPOINT_URL_S3")
                        or os.environ.get("AWS_ENDPOINT_URL") or None)
            config = Config(connect_timeout=t, read_timeout=t,
                            retries={"max_attempts": 1, "mode": "standard"},
                            s3={"addressing_style": "path"} if endpoint else None)
            client = boto3.session.Session().client("s3", endpoint_url=endpoint, config=config)
            client.meta.events.register("before-send.s3", BoundedS3Sender(
                self._options.request_deadline, t, self.url))
            self._client = client
        return self._client

    def fetch(self, start: int, end: int, expect: Validator | None,
              seconds: float | None = None) -> Answer:
        """See :meth:`Transport.fetch` (``GetObject`` with ``Range`` and ``If-Match``).

        The body is read as it comes, at most one byte past the range asked, within the
        request deadline (botocore's per-read timeout bounds the wait for the headers);
        the declared size is checked first.
        """
        what = f"bytes {start}-{end - 1} of {self.url}"
        kwargs: dict[str, Any] = {"Bucket": self.bucket, "Key": self.key,
                                  "Range": f"bytes={start}-{end - 1}"}
        if expect is not None and expect.etag:
            kwargs["IfMatch"] = expect.etag
        limit = self._options.request_deadline if seconds is None else \
            min(self._options.request_deadline, seconds)
        with Deadline(limit, what) as deadline:
            try:
                resp = self._s3().get_object(**kwargs)
                deadline.check()
                raw = getattr(resp["Body"], "_raw_stream", resp["Body"])
                deadline.attach(getattr(raw, "connection", None))
                try:
                    size, want = self._declared(resp, start, end, what)
                    data = read_body(chunks(raw), want, deadline, what)
                finally:
                    resp["Body"].close()
            except RemoteError:
                raise
            except Exception as exc:  # noqa: BLE001 - botocore's errors become our findings
                if _s3_code(exc) in ("InvalidRange", "416") and start == 0:
                    return Answer(b"", 0, Validator(None, None, 0))
                if deadline.expired:
                    raise deadline.error() from None
                raise _s3_error(exc, self.url, what) from None
        if len(data) != want:
            raise RemoteError(R.CONNECTION_RESET, f"the connection ended after {len(data)} "
                              f"of {want} bytes of {what}")
        modified = resp.get("LastModified")
        got = Validator(resp.get("ETag"), modified.isoformat() if modified else None, size)
        _changed(self.url, expect, got)
        return Answer(data, size, got)

    def _declared(self, resp: dict[str, Any], start: int, end: int,
                  what: str) -> tuple[int, int]:
        """The object's size and the body's length a ``GetObject`` answer declares, checked
        against the range asked and ``max_object``.

        Raises:
            RemoteError: ``remote.declared-too-large`` or ``remote.range-mismatch``.
        """
        said = str(resp.get("ContentRange") or "")
        m = _CONTENT_RANGE.fullmatch(said.strip()) if len(said) <= 120 else None
        length = resp.get("ContentLength")
        if m is None or m.group(3) == "*":  # no range: the whole object
            size = int(length) if isinstance(length, int) else -1
            check_declared(size, self._options.max_object, self.url, "its ContentLength")
            if start != 0 or size < 0 or size > end:
                raise RemoteError(R.RANGE_MISMATCH, f"the answer for {what} is the whole "
                                  f"object ({size} bytes), not the range asked")
            return size, size
        first, last, size = int(m.group(1)), int(m.group(2)), int(m.group(3))
        check_declared(size, self._options.max_object, self.url, "its ContentRange total")
        if first != start or last < first or last >= min(end, size) or \
                (isinstance(length, int) and length != last - first + 1):
            raise RemoteError(R.RANGE_MISMATCH, f"the answer for {what} names other bytes "
                              f"(ContentRange {said}, ContentLength {length})")
        return size, last - first + 1

    def list_names(self, limit: int) -> tuple[list[str], bool]:
        """The names of the objects directly under the prefix (``ListObjectsV2`` with the
        delimiter ``/``), at most ``limit``, and whether there were more.

        At most ``limit // PAGE_KEYS + 2`` pages are asked for (pages of sub-folders only
        count too), all within the request deadline (checked between pages).

        Raises:
            RemoteError: any fault (a missing bucket is ``remote.not-found``), or
                ``remote.request-deadline``.
        """
        prefix = self.key if not self.key or self.key.endswith("/") else self.key + "/"
        names: list[str] = []
        token: str | None = None
        deadline = Deadline(self._options.request_deadline, f"the listing of {self.url}")
        for _ in range(limit // PAGE_KEYS + 2):
            deadline.check()
            kwargs: dict[str, Any] = {"Bucket": self.bucket, "Prefix": prefix,
                                      "Delimiter": "/", "MaxKeys": PAGE_KEYS}
            if token:
                kwargs["ContinuationToken"] = token
            try:
                page = self._s3().list_objects_v2(**kwargs)
            except RemoteError:
                raise
            except Exception as exc:  # noqa: BLE001 - botocore's errors become our findings
                raise _s3_error(exc, self.url, f"the listing of {self.url}") from None
            _check_page(page, self.url)
            names.extend(o["Key"][len(prefix):] for o in page.get("Contents", ())
                         if o["Key"] != prefix)
            token = page.get("NextContinuationToken")
            if len(names) > limit or not page.get("IsTruncated") or not token:
                return names[:limit], len(names) > limit
        return names[:limit], True


#: Keys (objects and sub-folders) asked for per ``ListObjectsV2`` page.
PAGE_KEYS = 1000


def _check_page(page: dict[str, Any], url: str) -> None:
    """Refuse a listing page holding more keys than the :data:`PAGE_KEYS` asked for
    (counted here, objects and sub-folders: a store ignoring ``MaxKeys`` would let one
    page carry any number).

    Raises:
        RemoteError: ``remote.too-large``.
    """
    keys = len(page.get("Contents", ()) or ()) + len(page.get("CommonPrefixes", ()) or ())
    if keys > PAGE_KEYS:
        raise RemoteError(R.TOO_LARGE, f"the listing of {url}: the store answered a page of "
                          f"{keys} keys, more than the {PAGE_KEYS} asked for; not listed")


def _s3_code(exc: BaseException) -> str:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", ""))
    return ""


def _s3_error(exc: BaseException, url: str, what: str) -> RemoteError:
    """The finding of a boto3/botocore exception."""
    code, name = _s3_code(exc), type(exc).__name__
    text = f"{name}: {exc}"
    if code in ("NoSuchKey", "NoSuchBucket", "404", "NotFound"):
        return RemoteError(R.NOT_FOUND, f"{url}: no such object in the store ({code})")
    if code in ("AccessDenied", "403", "InvalidAccessKeyId", "SignatureDoesNotMatch") or \
            name in ("NoCredentialsError", "PartialCredentialsError"):
        return RemoteError(R.FORBIDDEN, f"{url}: the store refuses access ({text})")
    if code in ("PreconditionFailed", "412"):
        return RemoteError(R.CHANGED, f"{url} changed while it was open: its ETag no longer "
                           "matches; reopen it")
    if "Timeout" in name:
        return RemoteError(R.TIMEOUT, f"no answer in time for {what} ({text})")
    if name in ("IncompleteReadError", "ResponseStreamingError", "ProtocolError",
                "ConnectionClosedError"):
        return RemoteError(R.CONNECTION_RESET, f"the connection broke during {what} ({text})")
    return RemoteError(R.UNREACHABLE, f"cannot read {what} ({text})")
