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
    "for whole reads over the network, a folder's directory index page is larger than "
    "the cap for index pages (8 MiB), an answer of an S3 store read whole (a listing page, "
    "an error document) is larger than 8 MiB, or an S3 listing page holds more keys than "
    "the 1 000 asked for.", _CONTRACT)
CANCELLED = rule(
    "remote.cancelled", Severity.ERROR,
    "Reading was cancelled before the object was read.", _CONTRACT)
ANSWER_TOO_LONG = rule(
    "remote.answer-too-long", Severity.ERROR,
    "An answer's body goes on past the bytes that were asked for (a body without end, a "
    "chunked body that does not stop, or a Content-Length beyond the range asked): reading "
    "stops at the range's length.",
    "RFC 9110 (HTTP Semantics) §14.4 'Content-Range' and §15.3.7 '206 Partial Content' (a "
    "206 body is the range it names); Inspector's remote-source contract "
    "(docs/architecture.md, 'Remote sources': a byte budget per answer)")
ENCODED_ANSWER = rule(
    "remote.encoded-answer", Severity.ERROR,
    "A range answer has a Content-Encoding (gzip, br...) although Inspector asks for "
    "'Accept-Encoding: identity': its body is not the bytes of the range, and it is not "
    "decompressed.",
    "RFC 9110 (HTTP Semantics) §12.5.3 'Accept-Encoding' (identity) and §14 'Range "
    "Requests' (ranges are of the selected representation); Inspector's remote-source "
    "contract (docs/architecture.md, 'Remote sources')")
DECLARED_TOO_LARGE = rule(
    "remote.declared-too-large", Severity.ERROR,
    "The server declares an object (Content-Range total, Content-Length or S3 object size) "
    "larger than the largest object Inspector opens over the network (RemoteOptions."
    "max_object, 1 TiB by default): nothing past the first answer is read.",
    _CONTRACT)
RANGE_MISMATCH = rule(
    "remote.range-mismatch", Severity.ERROR,
    "A 206 answer names (Content-Range) or announces (Content-Length) other bytes than the "
    "range asked for.",
    "RFC 9110 (HTTP Semantics) §14.4 'Content-Range' and §15.3.7 '206 Partial Content'")
REQUEST_DEADLINE = rule(
    "remote.request-deadline", Severity.ERROR,
    "One request took longer than its overall deadline (RemoteOptions.request_deadline, "
    "120 s by default; INSPECTOR_REMOTE_REQUEST_DEADLINE_S), from sending it to the last "
    "byte of its answer, the wait for the response headers included, however steadily its "
    "bytes came: the read is abandoned.",
    _CONTRACT)
DOCUMENT_DEADLINE = rule(
    "remote.document-deadline", Severity.ERROR,
    "The requests of one document took longer in all than its deadline "
    "(RemoteOptions.document_deadline, 3600 s by default; "
    "INSPECTOR_REMOTE_DOCUMENT_DEADLINE_S): every later read of it fails; reopen it.",
    _CONTRACT)
