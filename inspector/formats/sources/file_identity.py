"""One snapshot per document: the identity of a file when it was opened.

A document reads its file lazily (an archive's members, a recording's
chunks) long after it was opened.  If the path meanwhile names another file
(replaced atomically with ``os.replace``) or the same file rewritten in
place, a later read would mix two snapshots: values of the new file shown
through the old document, or a deflate stream resumed in the wrong bytes.
So a reader notes the file's identity when it opens it,

    (st_dev, st_ino, st_size, st_mtime_ns)

and every later read checks it first: when it differs, or the file is gone,
the read raises :class:`FileChangedError`, reported as the finding
``file.changed`` (:data:`FILE_CHANGED`).  This is what the VneuroTK format
document asks of lazy readers ("Atomic writes": fail explicitly if the
pathname is later atomically replaced) and what Inspector holds for every
format.

:class:`SnapshotPath` is a local ``Path`` whose ``open`` does the check on
the handle it opens (``os.fstat``: the file actually opened, so a replace
between a check and the open cannot slip through); a reader hands it where
it would hand a ``Path``.  Remote files have their own guard (the transport
compares ETag, Last-Modified and size: ``remote.changed``).  Nothing here
imports Qt or a format package.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import IO, Any

from inspector.formats.findings import Finding, Severity, rule

__all__ = ["FILE_CHANGED", "FileChangedError", "FileIdentity", "SnapshotPath",
           "changed_finding", "check_identity", "identity_of", "snapshot_path"]

#: ``(st_dev, st_ino, st_size, st_mtime_ns)`` of a file.
FileIdentity = tuple[int, int, int, int]

FILE_CHANGED = rule(
    "file.changed", Severity.ERROR,
    "The file was replaced, rewritten or removed on disk after the document was opened: "
    "nothing more is read from it (that would mix two snapshots); reload it to see its "
    "current contents.",
    "VneuroTK format document ('Atomic writes': lazy readers fail explicitly when the "
    "pathname is replaced); Inspector's one snapshot per document (inspector/formats/"
    "sources/file_identity.py)")

#: The message of a read from a file that changed (the path is not named: the report adds it).
CHANGED = ("the file changed on disk (replaced or modified) after it was opened; nothing more "
           "is read from this document, so that two snapshots are never mixed: reload it to "
           "see its current contents")
#: The message of a read from a file that was removed.
REMOVED = ("the file was removed after it was opened; nothing more is read from this "
           "document: reload it to see the current contents")


class FileChangedError(OSError):
    """The file behind an open document was replaced, removed or modified (``file.changed``)."""


def identity_of(st: os.stat_result) -> FileIdentity:
    """``(st_dev, st_ino, st_size, st_mtime_ns)`` of a ``stat`` result."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def check_identity(path: str | os.PathLike[str], identity: FileIdentity | None) -> None:
    """Raise :class:`FileChangedError` unless ``path`` still names the file of ``identity``.

    ``identity`` None (never noted) passes.

    Raises:
        FileChangedError: the path names another file, a rewritten one, or nothing.
    """
    if identity is None:
        return
    try:
        now = identity_of(os.stat(path))
    except FileNotFoundError as exc:
        raise FileChangedError(REMOVED) from exc
    if now != identity:
        raise FileChangedError(CHANGED)


def changed_finding(exc: BaseException, location: str = "") -> Finding | None:
    """The ``file.changed`` finding of ``exc`` when it (or what caused it) is a
    :class:`FileChangedError`, else None."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, FileChangedError):
            return FILE_CHANGED.finding(str(seen), location)
        seen = seen.__cause__ or seen.__context__
    return None


class _Guard:
    """The identity one :class:`SnapshotPath` opened first (shared by its copies)."""

    def __init__(self) -> None:
        self.identity: FileIdentity | None = None
        self.changed = False
        self.lock = threading.Lock()

    def admit(self, fh: IO[bytes]) -> None:
        """Note the identity of the first handle; refuse a handle to another file."""
        now = identity_of(os.fstat(fh.fileno()))
        with self.lock:
            if self.identity is None:
                self.identity = now
                return
            same = now == self.identity
            self.changed |= not same
        if not same:
            raise FileChangedError(CHANGED)


class SnapshotPath(type(Path())):  # type: ignore[misc]  # PosixPath or WindowsPath
    """A local path that opens only the file it named when first opened.

    The first :meth:`open` notes the identity of the file it opened; each
    later one compares the file it opened with it and raises
    :class:`FileChangedError` (closing the handle) when they differ.  Use
    :func:`snapshot_path` to make one; paths derived from it (``parent``,
    ``/``) are plain paths.
    """

    _guard: _Guard | None = None

    def open(self, mode: str = "r", buffering: int = -1, encoding: str | None = None,
             errors: str | None = None, newline: str | None = None) -> Any:
        """``Path.open``; reading handles are checked against the snapshot.

        Raises:
            FileChangedError: the path names another file than when first opened.
            OSError: as ``Path.open``.
        """
        fh = super().open(mode, buffering, encoding, errors, newline)
        guard = self._guard
        if guard is not None and "r" in mode:
            try:
                guard.admit(fh)
            except BaseException:
                fh.close()
                raise
        return fh

    @property
    def identity(self) -> FileIdentity | None:
        """The identity noted by the first open (None before it)."""
        return self._guard.identity if self._guard is not None else None

    @property
    def changed(self) -> bool:
        """True once an open met another file than the first."""
        return self._guard is not None and self._guard.changed

    def check(self) -> None:
        """Raise :class:`FileChangedError` unless the path still names the noted file."""
        check_identity(self, self.identity)

    def plain(self) -> Path:
        """The same path as a plain ``Path``."""
        return Path(self)


def snapshot_path(path: str | os.PathLike[str]) -> SnapshotPath:
    """A :class:`SnapshotPath` for ``path`` (a new snapshot: nothing noted yet; a
    ``SnapshotPath`` is returned as it is, sharing its snapshot)."""
    if isinstance(path, SnapshotPath):
        return path
    p = SnapshotPath(path)
    p._guard = _Guard()
    return p
