"""How remote objects are read: timeouts, block sizes, caches, the S3 endpoint.

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
        """Defaults, with the disk cache on when ``INSPECTOR_REMOTE_CACHE_MB`` is a size > 0
        (in MiB), in :func:`default_cache_folder`."""
        try:
            mib = int(os.environ.get("INSPECTOR_REMOTE_CACHE_MB", "0"))
        except ValueError:
            mib = 0
        folder = default_cache_folder() if mib > 0 else None
        return RemoteOptions(disk_cache=folder, disk_cap=max(mib, 1) * MIB,
                             s3_endpoint=s3_endpoint or _S3_ENDPOINT[0])
