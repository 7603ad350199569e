"""Crash-proof placement of a new file: written unnamed, linked into place whole.

AUCX 1.0 format document, "Atomic writes": an export never leaves a partial
archive behind.  This module makes that hold even when the process is
killed at any moment (SIGKILL, power loss after the fsync):

* On Linux the temporary is created with ``open(folder, O_TMPFILE)``: it has
  no name, so a crash at any point leaves nothing in the folder.  Only when
  the caller has written and verified it is it linked into place:

  - no overwrite: ``linkat`` straight to the destination name, which fails
    with ``EEXIST`` if the name exists (atomic no-clobber);
  - overwrite: ``linkat`` to a unique sibling name (prefix
    :data:`TEMP_PREFIX`), then ``os.replace`` onto the destination.

  ``os.link("/proc/self/fd/N", dest, follow_symlinks=True)`` fails with
  ``EXDEV`` under CPython 3.11 (it does not pass ``AT_SYMLINK_FOLLOW``
  through for that path), so libc's ``linkat(AT_FDCWD, "/proc/self/fd/N",
  AT_FDCWD, dest, AT_SYMLINK_FOLLOW)`` is called through :mod:`ctypes`.

* Between that link and the rename the archive has a name: a kill right then would
  leave it beside the intact destination.  So every temporary name (the sibling, and
  the named temporary below) is recorded in a journal before it appears and
  forgotten once it is gone (:mod:`inspector.formats.sources.partials`); the next start of
  ``inspector`` removes what a killed writer left.  Names carry the writer's pid.

* Where ``O_TMPFILE`` is unavailable (another OS, or a filesystem refusing it
  with ``EOPNOTSUPP``/``EISDIR``/``EINVAL``) the temporary is a named sibling
  with the prefix :data:`TEMP_PREFIX`, placed with ``os.link`` (no
  overwrite) or ``os.replace`` (overwrite).  A crash can leave such a file;
  every placement first removes the stale ones in its folder
  (:func:`remove_stale`).  A temporary in use is locked (``flock``), so a
  concurrent writer's file is never taken for a stale one.

The file is ``fsync``-ed before it is placed and the folder after.  Nothing
here imports Qt.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import IO

try:
    import fcntl
except ImportError:  # not on Windows: temporaries are not locked there
    fcntl = None  # type: ignore[assignment]

from inspector.formats.sources.partials import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    forget,
    record,
    remove_unlocked,
)

#: Environment variable naming a step (``written``, ``linked``, ``replaced``) at which
#: the writer stops for a minute after printing the step to stderr: tests kill it there.
PAUSE_ENV = "INSPECTOR_TEST_PAUSE_AT"
#: ``open(O_TMPFILE)`` errors meaning "not supported here": use a named temporary.
_NO_TMPFILE = (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOTSUP)
#: ``link`` errors meaning "no hard links on this filesystem".
_NO_LINKS = (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK)
_AT_FDCWD = -100
_AT_SYMLINK_FOLLOW = 0x400


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _lock(fd: int) -> bool:
    """Take the non-blocking exclusive lock on ``fd``; False when another
    process holds it (or locks are not available)."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def remove_stale(folder: Path) -> list[str]:
    """Remove the temporaries a crashed writer left in ``folder``; return their names.

    A name starting with :data:`TEMP_PREFIX` and ending with
    :data:`TEMP_SUFFIX` is removed when it is a regular file (never followed
    if a link) that no live writer holds locked.  Errors are ignored: this
    is housekeeping.
    """
    removed: list[str] = []
    try:
        names = [n for n in os.listdir(folder)
                 if n.startswith(TEMP_PREFIX) and n.endswith(TEMP_SUFFIX)]
    except OSError:
        return removed
    for name in names:
        if remove_unlocked(folder / name):
            removed.append(name)
    return removed


def _pause(step: str) -> None:
    """The test hook of :data:`PAUSE_ENV`: at ``step``, say so on stderr and wait."""
    if os.environ.get(PAUSE_ENV) == step:
        print(f"paused at {step}", file=sys.stderr, flush=True)
        time.sleep(60)


def _linkat(source: str, dest: Path) -> None:
    """``linkat(AT_FDCWD, source, AT_FDCWD, dest, AT_SYMLINK_FOLLOW)`` (libc).

    Raises:
        OSError: with the errno of the call (``EEXIST`` when ``dest`` exists).
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.linkat(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(dest),
                   _AT_SYMLINK_FOLLOW) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(dest))


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class AtomicFile:
    """A new file in ``folder`` that appears at its destination only whole.

    Use as a context manager: write through :attr:`file`, read it back
    through :attr:`read_path`, then :meth:`place`; leaving the block without
    placing discards the temporary.

    Args:
        folder: the destination's folder (the temporary lives on its
            filesystem).
        tmpfile: try ``O_TMPFILE`` first (tests turn it off).

    Raises (from ``__enter__``):
        OSError: the temporary cannot be created.
    """

    def __init__(self, folder: Path, *, tmpfile: bool = True) -> None:
        self.folder = folder
        self._try_tmpfile = tmpfile
        self.fd = -1
        self.name: Path | None = None
        self.entry: Path | None = None  # the journal entry of a named temporary
        self.file: IO[bytes]
        self.placed = False

    @property
    def unnamed(self) -> bool:
        """True for an ``O_TMPFILE`` temporary (nothing visible in the folder)."""
        return self.name is None

    @property
    def read_path(self) -> Path:
        """A path that opens the temporary for reading."""
        return self.name if self.name is not None else Path(f"/proc/self/fd/{self.fd}")

    def __enter__(self) -> AtomicFile:
        remove_stale(self.folder)
        self.fd = self._unnamed() if self._try_tmpfile else -1
        if self.fd < 0:
            name = self._sibling_name()
            self.entry = record(name)
            try:
                self.fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            except OSError:
                forget(self.entry)
                raise
            self.name = name
        _lock(self.fd)
        self.file = os.fdopen(self.fd, "w+b", closefd=False)
        return self

    def _unnamed(self) -> int:
        flag = getattr(os, "O_TMPFILE", None)
        if flag is None:
            return -1
        try:
            return os.open(self.folder, flag | os.O_RDWR, 0o600)
        except OSError as exc:
            if exc.errno in _NO_TMPFILE:
                return -1
            raise

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            self.file.close()
        finally:
            os.close(self.fd)
            if self.name is not None and not self.placed:
                try:
                    os.unlink(self.name)
                except OSError:
                    pass
            forget(self.entry)

    def finish(self, mode: int) -> None:
        """Flush, set the permission bits ``mode`` and ``fsync`` the content."""
        self.file.flush()
        if hasattr(os, "fchmod"):
            os.fchmod(self.fd, mode)
        else:  # Windows
            os.chmod(self.read_path, mode)
        os.fsync(self.fd)

    def place(self, dest: Path, overwrite: bool) -> None:
        """Make the finished temporary appear as ``dest``.

        Raises:
            FileExistsError: ``dest`` exists and ``overwrite`` is False
                (nothing is changed).
            OSError: linking or renaming failed (``dest`` is unchanged).
        """
        _pause("written")
        if self.unnamed:
            self._place_unnamed(dest, overwrite)
        else:
            self._place_named(dest, overwrite)
        self.placed = True
        _pause("replaced")
        _fsync_folder(dest.parent)

    def _place_unnamed(self, dest: Path, overwrite: bool) -> None:
        if not overwrite:
            _linkat(str(self.read_path), dest)  # EEXIST: FileExistsError
            return
        sibling = self._sibling_name()
        entry = record(sibling)
        try:
            _linkat(str(self.read_path), sibling)
            _pause("linked")
            try:
                os.replace(sibling, dest)
            except OSError:
                os.unlink(sibling)
                raise
        finally:
            forget(entry)

    def _sibling_name(self) -> Path:
        return self.folder / f"{TEMP_PREFIX}{os.getpid()}-{os.urandom(8).hex()}{TEMP_SUFFIX}"

    def _place_named(self, dest: Path, overwrite: bool) -> None:
        assert self.name is not None
        if overwrite:
            os.replace(self.name, dest)
            return
        try:
            os.link(self.name, dest)  # EEXIST: FileExistsError
        except OSError as exc:
            if exc.errno not in _NO_LINKS:
                raise
            if os.path.lexists(dest):  # no hard links here: best effort
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST),
                                      str(dest)) from exc
            os.replace(self.name, dest)
            return
        os.unlink(self.name)


def new_file_mode(dest: Path) -> int:
    """The permission bits of a file created at ``dest``: those of the file it
    replaces, else ``0o666`` minus the umask."""
    try:
        return stat.S_IMODE(os.stat(dest).st_mode)
    except OSError:
        return 0o666 & ~_umask()
