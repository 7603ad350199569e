"""Read-only access to one HDF5 file, guarded against replacement.

:class:`H5Source` opens a recording read-only (``h5py.File(path, "r")``),
remembers the file's identity (device, inode, size, modification time) and
checks it before every lazy read: a file atomically replaced while a
document is open (seed, "Atomic writes": lazy readers "fail explicitly if the
pathname is later atomically replaced") raises :class:`FileChangedError`
instead of mixing two snapshots.

Locking: HDF5 takes a shared lock when reading.  If another process holds an
exclusive lock (a writer), the file is reopened without locking and the
caller gets a warning (:attr:`H5Source.lock_warning`); if that fails too the
open fails with a clear message.

Virtual datasets at exit: HDF5 crashes (SIGSEGV in ``H5P_close`` during
``H5_term_library``) when the creation property list of a virtual dataset is
still open when the process exits, which happens whenever a document is
still referenced (e.g. by the GUI) at interpreter shutdown.
:func:`release_virtual_plists` closes every such list; it is registered with
:mod:`atexit` (Python's exit handlers run before HDF5's C exit handler) the
first time a file is opened.
"""

from __future__ import annotations

import atexit
import gc
import os
from pathlib import Path
from typing import Any

import h5py
import numpy as np


class RuleError(Exception):
    """A rule of the format is broken; becomes an error finding.

    Attributes:
        code: finding code (e.g. ``"header.partial"``).
        message: the sentence naming the rule and its source.
        location: HDF5 path (``"/neuro"``) or ``"path@attr"``.
    """

    def __init__(self, code: str, message: str, location: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.location = location


class FileChangedError(OSError):
    """The file behind an open document was replaced, removed or modified."""


class OpenError(Exception):
    """The file cannot be opened as HDF5 (code and message for the finding)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


_LOCK_PHRASES = ("unable to lock file", "lock file", "file locking", "locking disabled")


def _is_lock_error(exc: BaseException) -> bool:
    """True for HDF5's "unable to lock file, errno = 11" family (not "sblock->...")."""
    text = str(exc).lower()
    return any(p in text for p in _LOCK_PHRASES)


def release_virtual_plists() -> int:
    """Close every open dataset-creation property list of a virtual dataset.

    Returns the number closed.  Safe to call at any time: h5py objects whose
    list was closed only lose their cached layout information.
    """
    closed = 0
    try:
        objs = gc.get_objects()
    except Exception:  # noqa: BLE001 - best effort at shutdown
        return 0
    for obj in objs:
        if type(obj) is not h5py.h5p.PropDCID:
            continue
        try:
            if obj.valid and obj.get_layout() == h5py.h5d.VIRTUAL:
                obj._close()
                closed += 1
        except Exception:  # noqa: BLE001 - best effort at shutdown
            continue
    return closed


_exit_hook_registered = False


def _register_exit_hook() -> None:
    global _exit_hook_registered
    if not _exit_hook_registered:
        _exit_hook_registered = True
        atexit.register(release_virtual_plists)


class H5Source:
    """An open, read-only HDF5 file plus its identity.

    Args:
        path: the recording.

    Raises:
        OpenError: not HDF5, truncated, unreadable or locked beyond recovery.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.lock_warning: str | None = None
        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise OpenError("file.unreadable", f"{self.path.name}: cannot stat file: {exc}") from exc
        self.identity = _identity(st)
        _register_exit_hook()
        self.file = self._open()
        # The identity of what was actually opened (guards a replace during open).
        try:
            fd = self.file.id.get_vfd_handle()
            fd = fd[0] if isinstance(fd, tuple) else fd
            opened = _identity(os.fstat(int(fd)))
            if opened[:2] != self.identity[:2]:
                self.identity = opened
        except (AttributeError, OSError, TypeError, ValueError):
            pass

    def _open(self) -> h5py.File:
        try:
            return h5py.File(self.path, "r")
        except OSError as exc:
            first = exc
        if _is_lock_error(first):
            try:
                f = h5py.File(self.path, "r", locking=False)
            except OSError as exc:
                raise OpenError(
                    "file.locked",
                    f"{self.path.name}: the file is locked by another process and could not be "
                    f"opened read-only without locking either ({exc}); close the writer and retry",
                ) from exc
            self.lock_warning = (
                f"{self.path.name}: the file is locked by another process (probably a writer); "
                "opened read-only without taking the HDF5 lock, so contents may change while shown "
                f"(HDF5 said: {first})"
            )
            return f
        text = str(first)
        if "truncated" in text:
            raise OpenError(
                "file.truncated",
                f"{self.path.name}: truncated HDF5 file: the superblock records more bytes than the "
                f"file holds ({text})",
            ) from first
        if "signature" in text:
            raise OpenError(
                "file.not-hdf5",
                f"{self.path.name}: not an HDF5 file: no HDF5 superblock signature ({text})",
            ) from first
        raise OpenError("file.unreadable", f"{self.path.name}: cannot open as HDF5: {text}") from first

    # -- guard -------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`FileChangedError` if the path no longer names the opened file."""
        try:
            now = _identity(os.stat(self.path))
        except FileNotFoundError as exc:
            raise FileChangedError(
                f"{self.path}: the file was removed after it was opened; reopen it to see its "
                "current contents (seed, 'Atomic writes')"
            ) from exc
        if now != self.identity:
            raise FileChangedError(
                f"{self.path}: the file changed on disk (replaced or modified) after it was opened; "
                "reopen it instead of mixing file snapshots (seed, 'Atomic writes')"
            )

    def read(self, dataset: h5py.Dataset, selection: Any = Ellipsis) -> np.ndarray:
        """Read ``dataset[selection]`` after checking the file identity.

        Raises:
            FileChangedError: the file was replaced.
            OSError: HDF5 could not read the data (corrupt chunk, missing
                external file, closed file).
        """
        self.check()
        if not self.file.id.valid:
            raise OSError(f"{self.path}: the document was closed")
        try:
            return dataset[selection]
        except (OSError, RuntimeError, KeyError) as exc:
            raise OSError(f"{self.path}: cannot read {dataset.name}: {exc}") from exc

    def close(self) -> None:
        """Close the HDF5 handle (idempotent)."""
        try:
            if self.file.id.valid:
                self.file.close()
        except Exception:  # noqa: BLE001 - closing must not raise
            pass
