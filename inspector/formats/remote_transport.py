"""Range requests over HTTP(S) (urllib3) and S3 (boto3), each fault a rule of
:mod:`.remote_rules`.

:meth:`Transport.fetch` asks for bytes ``[start, end)`` and returns an
:class:`Answer`; every request has a timeout (connect and between bytes).
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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from inspector.formats import remote_rules as R
from inspector.formats.findings import Rule

if TYPE_CHECKING:
    from inspector.formats.remote_options import RemoteOptions

_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")


class RemoteError(OSError):
    """A network fault: the rule it breaks and a message naming the URL.

    An ``OSError``, so that readers treat it as bytes that cannot be read;
    the registry reports the fault itself (docs/architecture.md, "Remote sources").
    """

    def __init__(self, rule: Rule, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


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

    def fetch(self, start: int, end: int, expect: Validator | None) -> Answer:
        """Bytes ``[start, end)`` (fewer at the end of the object).

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
    """Range requests with urllib3: one connection pool per object, no retries of reads."""

    def __init__(self, url: str, options: RemoteOptions) -> None:
        import urllib3

        self.url = url
        self._timeout = urllib3.Timeout(connect=options.timeout, read=options.timeout)
        self._retries = urllib3.Retry(total=None, connect=1, read=0, status=0, other=0,
                                      redirect=options.max_redirects, raise_on_redirect=True,
                                      raise_on_status=False,
                                      respect_retry_after_header=False)
        self._pool = urllib3.PoolManager(num_pools=4, maxsize=8)

    def fetch(self, start: int, end: int, expect: Validator | None) -> Answer:
        """See :meth:`Transport.fetch` (HTTP ``Range: bytes=start-(end-1)``)."""
        what = f"bytes {start}-{end - 1} of {self.url}"
        try:
            resp = self._pool.request(
                "GET", self.url, headers={"Range": f"bytes={start}-{end - 1}",
                                          "Accept-Encoding": "identity"},
                preload_content=False, retries=self._retries, timeout=self._timeout)
        except Exception as exc:  # noqa: BLE001 - urllib3's errors become our findings
            raise _http_error(exc, what) from None
        complete = False
        try:
            answer = self._answer(resp, start, end, expect, what)
            complete = True
            return answer
        finally:
            if not complete:  # an unread body must not reach the next request on this connection
                resp.close()
            resp.release_conn()

    def get_page(self, cap: int) -> bytes:
        """The whole object by a plain ``GET`` (a directory index page), at most ``cap`` bytes.

        Raises:
            RemoteError: any fault, or ``remote.too-large`` beyond ``cap`` bytes.
        """
        what = f"the listing of {self.url}"
        try:
            resp = self._pool.request("GET", self.url, headers={"Accept-Encoding": "identity"},
                                      preload_content=False, retries=self._retries,
                                      timeout=self._timeout)
        except Exception as exc:  # noqa: BLE001 - urllib3's errors become our findings
            raise _http_error(exc, what) from None
        try:
            _status_error(int(resp.status), str(resp.reason or ""), self.url, what, 0)
            data = resp.read(cap + 1)
        except RemoteError:
            raise
        except Exception as exc:  # noqa: BLE001 - urllib3's errors become our findings
            raise _http_error(exc, what) from None
        finally:
            resp.close()
            resp.release_conn()
        if len(data) > cap:
            raise RemoteError(R.TOO_LARGE, f"{what} is larger than the {cap} bytes read of "
                              "a directory index page")
        return bytes(data)

    def _answer(self, resp: Any, start: int, end: int, expect: Validator | None,
                what: str) -> Answer:
        status = int(resp.status)
        _status_error(status, str(resp.reason or ""), self.url, what, start)
        headers = resp.headers
        etag, modified = headers.get("ETag"), headers.get("Last-Modified")
        if status == 416:  # an empty object answers "range not satisfiable"
            got = Validator(etag, modified, 0)
            _changed(self.url, expect, got)
            return Answer(b"", 0, got)
        if status == 200:
            return self._whole(resp, start, end, expect, what)
        m = _CONTENT_RANGE.match(headers.get("Content-Range", ""))
        if m is None or m.group(3) == "*" or int(m.group(1)) != start:
            raise RemoteError(R.RANGE_UNSUPPORTED, f"the answer for {what} has no usable "
                              f"Content-Range ({headers.get('Content-Range')!r})")
        size = int(m.group(3))
        got = Validator(etag, modified, size)
        _changed(self.url, expect, got)
        want = int(m.group(2)) - start + 1
        return Answer(_body(resp, want, what), size, got)

    def _whole(self, resp: Any, start: int, end: int, expect: Validator | None,
               what: str) -> Answer:
        """A 200 answer to a range request: the server sent the whole object."""
        length = resp.headers.get("Content-Length")
        size = int(length) if length is not None and length.isdigit() else -1
        if start != 0 or size < 0 or size > end:
            raise RemoteError(R.RANGE_UNSUPPORTED, f"the server does not support range requests: "
                              f"asked for {what}, it answered the whole object "
                              f"({size if size >= 0 else 'unknown'} bytes)")
        got = Validator(resp.headers.get("ETag"), resp.headers.get("Last-Modified"), size)
        _changed(self.url, expect, got)
        return Answer(_body(resp, size, what), size, got)


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


def _body(resp: Any, want: int, what: str) -> bytes:
    """Exactly ``want`` bytes of the body, or the fault that stopped them."""
    try:
        data = resp.read()
    except Exception as exc:  # noqa: BLE001 - urllib3's errors become our findings
        raise _http_error(exc, what) from None
    if len(data) != want:
        raise RemoteError(R.CONNECTION_RESET, f"the connection ended after {len(data)} of "
                          f"{want} bytes of {what}")
    return bytes(data)


def _http_error(exc: BaseException, what: str) -> RemoteError:
    """The finding of a urllib3 exception raised for a request for ``what``."""
    from urllib3 import exceptions as ux

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
            self._client = boto3.session.Session().client("s3", endpoint_url=endpoint,
                                                          config=config)
        return self._client

    def fetch(self, start: int, end: int, expect: Validator | None) -> Answer:
        """See :meth:`Transport.fetch` (``GetObject`` with ``Range`` and ``If-Match``)."""
        what = f"bytes {start}-{end - 1} of {self.url}"
        kwargs: dict[str, Any] = {"Bucket": self.bucket, "Key": self.key,
                                  "Range": f"bytes={start}-{end - 1}"}
        if expect is not None and expect.etag:
            kwargs["IfMatch"] = expect.etag
        try:
            resp = self._s3().get_object(**kwargs)
            data = resp["Body"].read()
        except RemoteError:
            raise
        except Exception as exc:  # noqa: BLE001 - botocore's errors become our findings
            if _s3_code(exc) in ("InvalidRange", "416") and start == 0:
                return Answer(b"", 0, Validator(None, None, 0))
            raise _s3_error(exc, self.url, what) from None
        m = _CONTENT_RANGE.match(str(resp.get("ContentRange") or ""))
        size = int(m.group(3)) if m and m.group(3) != "*" else len(data)
        modified = resp.get("LastModified")
        got = Validator(resp.get("ETag"), modified.isoformat() if modified else None, size)
        _changed(self.url, expect, got)
        want = min(end, size) - start
        if len(data) != want:
            raise RemoteError(R.CONNECTION_RESET, f"the connection ended after {len(data)} "
                              f"of {want} bytes of {what}")
        return Answer(data, size, got)


    def list_names(self, limit: int) -> tuple[list[str], bool]:
        """The names of the objects directly under the prefix (``ListObjectsV2`` with the
        delimiter ``/``), at most ``limit``, and whether there were more.

        Raises:
            RemoteError: any fault (a missing bucket is ``remote.not-found``).
        """
        prefix = self.key if not self.key or self.key.endswith("/") else self.key + "/"
        names: list[str] = []
        token: str | None = None
        while True:
            kwargs: dict[str, Any] = {"Bucket": self.bucket, "Prefix": prefix,
                                      "Delimiter": "/", "MaxKeys": 1000}
            if token:
                kwargs["ContinuationToken"] = token
            try:
                page = self._s3().list_objects_v2(**kwargs)
            except RemoteError:
                raise
            except Exception as exc:  # noqa: BLE001 - botocore's errors become our findings
                raise _s3_error(exc, self.url, f"the listing of {self.url}") from None
            names.extend(o["Key"][len(prefix):] for o in page.get("Contents", ())
                         if o["Key"] != prefix)
            token = page.get("NextContinuationToken")
            if len(names) > limit or not page.get("IsTruncated") or not token:
                return names[:limit], len(names) > limit


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
