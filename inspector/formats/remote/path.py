"""Where a document lives when it is not on this machine: ``http(s)://`` and ``s3://`` URLs.

:class:`RemotePath` stands where a reader expects a :class:`pathlib.Path`:
it has the parts of a path that readers of remote files use (``name``,
``stem``, ``suffix``, ``parent``, ``stat()``, ``is_file()``, ``open("rb")``)
and is written as its URL (``str``, ``os.fspath``), so ``verify --json``
reports the URL as the document's path.  ``open("rb")`` gives a seekable,
read-only file object reading by range requests through one shared block
cache (:mod:`inspector.formats.remote.source`); nothing is fetched before
the first ``stat`` or ``open``.

:func:`split_location` splits ``FILE::/hdf5/path`` for local paths and URLs
alike; :func:`as_source` turns a command-line argument into a ``Path`` or a
``RemotePath``.  This module imports nothing beyond the standard library
(the window imports it at start); see docs/architecture.md, "Remote sources".
"""

from __future__ import annotations

import os
import posixpath
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast
from urllib.parse import quote, unquote, urlsplit

if TYPE_CHECKING:
    from inspector.formats.remote.source import RemoteResource

    # Readers are typed with ``Path``; a RemotePath offers the part of its
    # interface they use (see the class docstring), so it is typed as one.
    _PathLike = Path
else:
    _PathLike = object

#: URL schemes read by range requests.
REMOTE_SCHEMES = ("http", "https", "s3")


def is_url(text: object) -> bool:
    """True when ``text`` is an ``http://``, ``https://`` or ``s3://`` URL (a str or RemotePath)."""
    if isinstance(text, RemotePath):
        return True
    if not isinstance(text, str) or "://" not in text:
        return False
    return text.split("://", 1)[0].lower() in REMOTE_SCHEMES


def split_location(arg: str) -> tuple[str, str | None]:
    """Split ``FILE::/group/dataset`` (or ``URL::/group/dataset``) into the file and the node.

    For a URL the last ``::`` followed by ``/`` counts, so that an IPv6 host
    (``http://[::1]:8000/x.h5``) is not split.  Returns ``(file, None)`` when
    no node is given.
    """
    if is_url(arg):
        head, sep, node = arg.rpartition("::")
        if sep and node.startswith("/") and "]" not in node.split("/", 1)[0]:
            return head, node
        return arg, None
    if "::" in arg:
        path, node = arg.split("::", 1)
        return path, node or None
    return arg, None


def as_source(arg: str | os.PathLike[str]) -> Path:
    """A :class:`RemotePath` for a URL (kept as it is when already one), else a ``Path``
    (a ``Path`` given is kept as it is: a subclass such as
    :class:`~inspector.formats.sources.file_identity.SnapshotPath` stays one)."""
    if isinstance(arg, RemotePath | Path):
        return arg
    if isinstance(arg, str) and is_url(arg):
        return RemotePath(arg)
    return Path(arg)


class RemoteStat:
    """What :meth:`RemotePath.stat` knows: ``st_size`` (bytes) and ``st_mtime`` (seconds)."""

    def __init__(self, size: int, mtime: float) -> None:
        self.st_size = size
        self.st_mtime = mtime
        self.st_mtime_ns = int(mtime * 1e9)


class RemotePath(_PathLike):
    """A file at an ``http(s)://`` or ``s3://`` URL, standing where a reader takes a path.

    Args:
        url: the URL (``s3://bucket/key`` or ``https://host/path``).
        options: how to reach it (:class:`~.remote_source.RemoteOptions`:
            timeouts, caches, S3 endpoint); the defaults when None.

    Equal and hashed by URL.  The network resource (:attr:`resource`) is
    created on first use and shared by every file object :meth:`open` gives.
    """

    def __init__(self, url: str, options: Any = None) -> None:
        self.url = url
        self.options = options
        self._resource: RemoteResource | None = None
        self._lock = threading.Lock()
        parts = urlsplit(url)
        self.scheme = parts.scheme.lower()
        self._key = unquote(parts.path)

    # -- path-like -------------------------------------------------------
    def __fspath__(self) -> str:
        return self.url

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"RemotePath({self.url!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RemotePath) and other.url == self.url

    def __hash__(self) -> int:
        return hash(self.url)

    @property
    def name(self) -> str:
        """The last component of the URL's path (``x.h5``), unquoted."""
        return posixpath.basename(self._key.rstrip("/"))

    @property
    def stem(self) -> str:
        """:attr:`name` without its last suffix."""
        name = self.name
        i = name.rfind(".")
        return name[:i] if i > 0 else name

    @property
    def suffix(self) -> str:
        """The last suffix of :attr:`name` (``.h5``), or ``""``."""
        name = self.name
        i = name.rfind(".")
        return name[i:] if i > 0 else ""

    @property
    def parent(self) -> RemotePath:
        """The URL of the folder holding this file (same options)."""
        parts = urlsplit(self.url)
        folder = posixpath.dirname(parts.path.rstrip("/")) or "/"
        return RemotePath(parts._replace(path=folder, query="", fragment="").geturl(),
                          self.options)

    def __truediv__(self, name: str | os.PathLike[str]) -> RemotePath:
        parts = urlsplit(self.url)
        path = posixpath.join(parts.path, quote(os.fspath(name)))
        return RemotePath(parts._replace(path=path, query="", fragment="").geturl(),
                          self.options)

    def beside(self, name: str) -> RemotePath | None:
        """The object a file name stored in this file names, or None when it names none here.

        A relative name (``"raw/run1.h5"``, ``"../x.h5"``) resolves from this
        object's folder on the same server or bucket, as HDF5 resolves a
        relative external-link name from the linking file's folder (HDF5
        library, ``H5Lcreate_external``).  An absolute local path
        (``/home/...``, ``C:\\...``) names a file on the writer's machine: None.
        """
        if not name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
            return None
        parts = urlsplit(self.url)
        folder = posixpath.dirname(parts.path) or "/"
        path = posixpath.normpath(posixpath.join(folder, quote(name.replace("\\", "/"))))
        return RemotePath(parts._replace(path=path, query="", fragment="").geturl(),
                          self.options)

    def is_absolute(self) -> bool:
        """Always True: a URL names one place."""
        return True

    def is_dir(self) -> bool:
        """True for a folder URL, whose path ends with ``/`` (``s3://bucket/run/``); its
        files are listed by :func:`.remote_folder.list_folder`.  Asks the server nothing."""
        return urlsplit(self.url).path.endswith("/")

    def is_symlink(self) -> bool:
        """Always False."""
        return False

    def exists(self) -> bool:
        """True when the object can be reached (fetches its first block once)."""
        try:
            self.stat()
        except OSError:
            return False
        return True

    def is_file(self) -> bool:
        """Same as :meth:`exists`."""
        return self.exists()

    # -- content ---------------------------------------------------------
    @property
    def resource(self) -> RemoteResource:
        """The shared network resource (block cache, validator, request log)."""
        with self._lock:
            if self._resource is None:
                from inspector.formats.remote.source import RemoteResource

                self._resource = RemoteResource(self.url, self.options)
            return self._resource

    def progress(self) -> tuple[int, int] | None:
        """``(requests, bytes)`` made so far, or None before the first (never fetches)."""
        resource = self._resource
        if resource is None:
            return None
        return resource.counters.requests, resource.counters.bytes

    def cancel(self) -> None:
        """Make every later read of this object fail with ``remote.cancelled``."""
        resource = self._resource
        if resource is not None:
            resource.cancel()

    def stat(self) -> RemoteStat:  # type: ignore[override]
        """Size and modification time of the object.

        Raises:
            RemoteError (an ``OSError``): the object cannot be reached.
        """
        info = self.resource.probe()
        return RemoteStat(info.size, info.mtime)

    def open(self, mode: str = "rb") -> BinaryIO:  # type: ignore[override]
        """A new seekable read-only file object over the shared cache.

        Raises:
            ValueError: ``mode`` is not ``"rb"`` (remote files are never written).
            RemoteError: the object cannot be reached.
        """
        if mode != "rb":
            raise ValueError(f"remote files open read-only ('rb'), not {mode!r}")
        return cast(BinaryIO, self.resource.open())

    def read_bytes(self) -> bytes:
        """The whole object (callers cap the size first, with :meth:`stat`)."""
        with self.open("rb") as fh:
            return fh.read()
