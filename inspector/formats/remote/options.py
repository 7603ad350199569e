"""How remote objects are read: timeouts, deadlines, limits, block sizes, caches, the S3
endpoint.

See :mod:`.remote_source` and docs/architecture.md, "Remote sources".  Nothing
here imports Qt.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

KIB = 1024
MIB = 1024 * KIB


def default_cache_folder() -> Path:
    """``$XDG_CACHE_HOME/inspector/remote`` (``~/.cache/inspector/remote`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "inspector" / "remote"


#: The S3 endpoint given on the command line (``--s3-endpoint``), for this process.
_S3_ENDPOINT: list[str | None] = [None]


def set_s3_endpoint(url: str | None) -> None:
    """Use ``url`` as the S3 endpoint of every later :class:`RemoteOptions` default
    (``inspector --s3-endpoint URL``); None returns to ``AWS_ENDPOINT_URL`` or AWS."""
    _S3_ENDPOINT[0] = url


@dataclass(frozen=True)
class RemoteOptions:
    """How remote objects are read.

    Attributes:
        timeout: seconds each request may wait to connect and between bytes.
        request_deadline: seconds one request may take in all, from sending it to its
            last byte (``remote.request-deadline`` beyond).
        document_deadline: seconds the requests of one document (one URL) may take in
            all, summed (``remote.document-deadline`` beyond; every later read fails).
        max_object: largest object size in bytes a server may declare (Content-Range
            total, Content-Length, S3 size) for the object to be read
            (``remote.declared-too-large`` beyond).
        max_redirects: redirects followed before ``remote.redirect-loop``.
        min_block: block size in bytes (the first read of a region).
        max_block: largest read-ahead in bytes of a sequential reader.
        memory_cap: bytes of blocks kept in memory.
        disk_cache: folder of the on-disk block cache, or None for none.
        disk_cap: bytes the disk cache may hold.
        whole_cap: largest object read whole (CSV/TSV sources), bytes.
        s3_endpoint: endpoint URL of an S3-compatible store (default: the
            ``AWS_ENDPOINT_URL`` environment variable, else AWS).
    """

    timeout: float = 30.0
    request_deadline: float = 120.0
    document_deadline: float = 3600.0
    max_object: int = 1 << 40
    max_redirects: int = 10
    min_block: int = 100 * KIB
    max_block: int = 4 * MIB
    memory_cap: int = 64 * MIB
    disk_cache: Path | None = None
    disk_cap: int = 2 * 1024 * MIB
    whole_cap: int = 64 * MIB
    s3_endpoint: str | None = None

    @staticmethod
    def from_environment(s3_endpoint: str | None = None) -> RemoteOptions:
        """Defaults, changed by the environment: the disk cache is on when
        ``INSPECTOR_REMOTE_CACHE_MB`` is a size > 0 (in MiB), in
        :func:`default_cache_folder`; ``INSPECTOR_REMOTE_REQUEST_DEADLINE_S`` and
        ``INSPECTOR_REMOTE_DOCUMENT_DEADLINE_S`` (seconds > 0) set the deadlines and
        ``INSPECTOR_REMOTE_MAX_OBJECT_GIB`` (GiB > 0) the largest object.  A value that
        is not a positive number is ignored."""
        mib = _number("INSPECTOR_REMOTE_CACHE_MB", 0.0)
        folder = default_cache_folder() if mib > 0 else None
        d = RemoteOptions()
        gib = _number("INSPECTOR_REMOTE_MAX_OBJECT_GIB", d.max_object / (1 << 30))
        return RemoteOptions(
            disk_cache=folder, disk_cap=max(int(mib), 1) * MIB,
            request_deadline=_number("INSPECTOR_REMOTE_REQUEST_DEADLINE_S", d.request_deadline),
            document_deadline=_number("INSPECTOR_REMOTE_DOCUMENT_DEADLINE_S",
                                      d.document_deadline),
            max_object=int(gib * (1 << 30)),
            s3_endpoint=s3_endpoint or _S3_ENDPOINT[0])


def _number(name: str, default: float) -> float:
    """The positive number in the environment variable ``name``, else ``default``."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 and value != float("inf") else default
