"""Rules of reading a file at an ``http(s)://`` or ``s3://`` URL (network faults).

A network fault is never a verdict on the file's content: it says the file
could not be read as it is, so every rule here has scope ``integrity`` (the
document is not ok) and names the URL in its message.  Sources: RFC 9110
(HTTP Semantics) for status codes, range requests and validators, and
Inspector's remote-source contract (docs/architecture.md, "Remote sources").
"""

from __future__ import annotations

from inspector.formats.findings import Severity, rule

_CONTRACT = "Inspector's remote-source contract (docs/architecture.md, 'Remote sources')"

NOT_FOUND = rule(
    "remote.not-found", Severity.ERROR,
    "The server has no object at the URL (HTTP 404 or 410, S3 NoSuchKey or NoSuchBucket).",
    "RFC 9110 (HTTP Semantics) §15.5.5 '404 Not Found'")
FORBIDDEN = rule(
    "remote.forbidden", Severity.ERROR,
    "The server refuses to give the object (HTTP 401 or 403, S3 AccessDenied or missing "
    "credentials).",
    "RFC 9110 (HTTP Semantics) §15.5.2 '401 Unauthorized' and §15.5.4 '403 Forbidden'")
TIMEOUT = rule(
    "remote.timeout", Severity.ERROR,
    "A request got no answer (or no more bytes) within its time limit.", _CONTRACT)
CONNECTION_RESET = rule(
    "remote.connection-reset", Severity.ERROR,
    "The connection broke, or the server sent fewer bytes than it announced, in the middle "
    "of a read.",
    "RFC 9112 (HTTP/1.1) §6.3 'Message Body Length' (an incomplete message)")
RANGE_UNSUPPORTED = rule(
    "remote.range-unsupported", Severity.ERROR,
    "The server ignores range requests (answers the whole object), so a large file cannot be "
    "read part by part.",
    "RFC 9110 (HTTP Semantics) §14 'Range Requests' and §15.3.7 '206 Partial Content'")
CHANGED = rule(
    "remote.changed", Severity.ERROR,
    "The object changed while it was open (its ETag, Last-Modified date or size differs "
    "from the first answer): its parts would mix two versions.",
    "RFC 9110 (HTTP Semantics) §8.8 'Validator Fields' (ETag, Last-Modified)")
REDIRECT_LOOP = rule(
    "remote.redirect-loop", Severity.ERROR,
    "The URL redirects more times than allowed (a redirect loop).",
    "RFC 9110 (HTTP Semantics) §15.4 'Redirection 3xx' (clients detect infinite loops)")
UNREACHABLE = rule(
    "remote.unreachable", Severity.ERROR,
    "The server cannot be reached, or answered with an error status other than the ones "
    "above.", _CONTRACT)
TOO_LARGE = rule(
    "remote.too-large", Severity.ERROR,
    "A file that is read whole (a CSV/TSV scan table or its manifest) is larger than the cap "
    "for whole reads over the network.", _CONTRACT)
CANCELLED = rule(
    "remote.cancelled", Severity.ERROR,
    "Reading was cancelled before the object was read.", _CONTRACT)
