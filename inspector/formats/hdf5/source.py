"""Read-only access to one HDF5 file, guarded against replacement.

:class:`H5Source` opens an HDF5 file read-only (``h5py.File(path, "r")``),
remembers the file's identity (device, inode, size, modification time) and
checks it before every lazy read: a file atomically replaced while a
document is open (seed, "Atomic writes": lazy readers "fail explicitly if the
pathname is later atomically replaced") raises :class:`FileChangedError`
instead of mixing two snapshots (the identity and the error are shared by
every format: :mod:`inspector.formats.sources.file_identity`).

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
import weakref
from pathlib import Path
from typing import IO, Any

import h5py
import numpy as np

from inspector.formats.decoding.inflate import ChunkOverflow
from inspector.formats.findings import Finding, Rule, cause
from inspector.formats.hdf5 import chunk_guard, elink_guard, external_guard
from inspector.formats.hdf5 import heap as hdf5_heap
from inspector.formats.hdf5 import rules as R
from inspector.formats.hdf5.read_watch import ReadStopped
from inspector.formats.remote.path import RemotePath
from inspector.formats.sources.file_identity import check_identity, identity_of


class RuleError(Exception):
    """A rule of the format is broken where reading cannot go on; becomes a finding.

    Attributes:
        rule: the broken rule (:mod:`inspector.formats.vneurotk.rules`).
        message: what is wrong here (never the file name).
        location: HDF5 path (``"/neuro"``) or ``"path@attr"``.
    """

    def __init__(self, rule: Rule, message: str, location: str = "") -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.location = location

    @property
    def code(self) -> str:
        """The finding code of :attr:`rule`."""
        return self.rule.code

    def finding(self) -> Finding:
        """This broken rule as a :class:`Finding`."""
        return self.rule.finding(self.message, self.location)


#: What reading one part of a recording may raise for bad input (see :func:`step_finding`).
STEP_ERRORS = (RuleError, OSError, RuntimeError, KeyError, TypeError, ValueError)


def step_finding(exc: BaseException) -> Finding:
    """The finding of one part of a recording that could not be read.

    A broken rule is its own finding; HDF5 reports damaged structures as
    ``OSError``/``RuntimeError``/``KeyError`` (``file.corrupt``) and
    undecodable values as ``TypeError``/``ValueError`` (``read.failed``,
    e.g. a datatype numpy has no equivalent for); values never read from another
    file (:class:`~.external_guard.ExternalRefused`) are the refusal's own rule.
    ``exc`` is one of :data:`STEP_ERRORS`.
    """
    if isinstance(exc, RuleError):
        return exc.finding()
    if isinstance(exc, external_guard.ExternalRefused):
        return exc.refusal.rule.finding(str(exc), exc.location)
    if isinstance(exc, ReadStopped):
        return R.DATA_READ_TIMEOUT.finding(str(exc), exc.location)
    if isinstance(exc, (OSError, RuntimeError, KeyError)):
        return R.FILE_CORRUPT.finding(
            f"HDF5 could not read part of the file (damaged file?): {cause(exc)}")
    return R.READ_FAILED.finding(f"a value cannot be decoded: {cause(exc)}")


class OpenError(Exception):
    """The file cannot be opened as HDF5 (the rule and message of the finding)."""

    def __init__(self, rule: Rule, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


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
#: Files open through a Python file object (URLs): closed at exit, before HDF5's
#: own exit handler would call back into a finalising interpreter (a crash).
_REMOTE_SOURCES: weakref.WeakSet[H5Source] = weakref.WeakSet()


def close_remote_sources() -> None:
    """Close every HDF5 file still open on a remote file object (registered with atexit)."""
    for src in list(_REMOTE_SOURCES):
        src.close()


def _register_exit_hook() -> None:
    global _exit_hook_registered
    if not _exit_hook_registered:
        _exit_hook_registered = True
        atexit.register(release_virtual_plists)
        atexit.register(close_remote_sources)


class H5Source:
    """An open, read-only HDF5 file plus its identity.

    Args:
        path: the recording.

    Raises:
        OpenError: not HDF5, truncated, unreadable or locked beyond recovery.
    """

    def __init__(self, path: Path | RemotePath) -> None:
        self.lock_warning: str | None = None
        self._fileobj: IO[bytes] | None = None
        self._refused: str | None = None
        #: What names this exact file: (device, inode, size, mtime_ns) on disk,
        #: (URL, validator) remote; None when nothing does.
        self.identity: tuple[Any, ...] | None = None
        if isinstance(path, RemotePath):
            self._open_remote(path)
            return
        self.path = Path(path)
        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise OpenError(R.FILE_UNREADABLE, f"cannot stat the file: {exc}") from exc
        self.identity = identity_of(st)
        _register_exit_hook()
        self.file = self._open()
        external_guard.register(self.file, self.path)
        hdf5_heap.register(self.file, self.path)
        self._refuse_corrupt_root()
        # The identity of what was actually opened (guards a replace during open).
        try:
            fd = self.file.id.get_vfd_handle()
            fd = fd[0] if isinstance(fd, tuple) else fd
            opened = identity_of(os.fstat(int(fd)))
            if self.identity is None or opened[:2] != self.identity[:2]:
                self.identity = opened
        except (AttributeError, OSError, TypeError, ValueError):
            pass

    def _refuse_corrupt_root(self) -> None:
        """Every lookup of a name in the file starts at the root group: when its names'
        heap would make HDF5 allocate without end, nothing is read
        (:func:`~inspector.formats.hdf5.heap.group_problem`)."""
        problem = hdf5_heap.group_problem(self.file)
        if problem is not None:
            self.close()
            raise OpenError(R.FILE_CORRUPT,
                            f"the root group's member names cannot be looked up: {problem}")

    def _open_remote(self, path: RemotePath) -> None:
        """Open a URL through h5py on a range-reading file object
        (docs/architecture.md, "Remote sources"); the transport checks on every
        request that the object has not changed, so :meth:`check` need not."""
        self.path = path
        _register_exit_hook()
        _REMOTE_SOURCES.add(self)
        elink_guard.install()
        try:
            self._fileobj = path.open("rb")
            self.file = h5py.File(self._fileobj, "r")
        except OSError as exc:
            raise _open_error(exc) from exc
        # Its external links name files beside the URL, never on this disk.
        self._refused = self.file.filename
        elink_guard.refuse_from(self._refused)
        external_guard.register(self.file, path)
        hdf5_heap.register(self.file, path)
        self._refuse_corrupt_root()
        validator = path.resource.probe().validator
        known = validator.etag or validator.last_modified
        # The chunk-summary disk cache is keyed by this; None (no validator) disables it.
        self.identity = (path.url, validator.key()) if known else None

    def _open(self) -> h5py.File:
        elink_guard.install()  # external links never open a pipe or a device
        try:
            return h5py.File(self.path, "r")
        except OSError as exc:
            first = exc
        if _is_lock_error(first):
            try:
                f = h5py.File(self.path, "r", locking=False)
            except OSError as exc:
                raise OpenError(
                    R.FILE_LOCKED,
                    "the file is locked by another process and could not be opened read-only "
                    f"without locking either ({exc}); close the writer and retry",
                ) from exc
            self.lock_warning = (
                "the file is locked by another process (probably a writer); "
                "opened read-only without taking the HDF5 lock, so contents may change while shown "
                f"(HDF5 said: {first})"
            )
            return f
        raise _open_error(first) from first

    # -- guard -------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`FileChangedError` if the path no longer names the opened file
        (:func:`~inspector.formats.sources.file_identity.check_identity`)."""
        if isinstance(self.path, RemotePath):
            return
        check_identity(self.path, self.identity)

    def read(self, dataset: h5py.Dataset, selection: Any = Ellipsis) -> np.ndarray:
        """Read ``dataset[selection]`` after checking the file identity.

        Raises:
            FileChangedError: the file was replaced.
            ExternalRefused: the values come from a file that is never read here
                (:mod:`.external_guard`).
            ReadStopped: the read blocked on a file swapped for a named pipe after
                it was checked and was stopped (:mod:`.read_watch`).
            OSError: HDF5 could not read the data (corrupt chunk, missing
                external file, closed file).
        """
        self.check()
        if not self.file.id.valid:
            raise OSError("the document was closed")
        try:
            with external_guard.watched(dataset):
                hdf5_heap.check_dataset(dataset, selection)
                chunk_guard.check_selection(dataset, selection)
                return dataset[selection]
        except (external_guard.ExternalRefused, ReadStopped, hdf5_heap.CorruptGlobalHeap,
                hdf5_heap.ValueTooLarge, ChunkOverflow):
            raise
        except (OSError, RuntimeError, KeyError) as exc:
            raise OSError(f"cannot read {dataset.name}: {exc}") from exc

    def close(self) -> None:
        """Close the HDF5 handle (idempotent)."""
        try:
            if self.file.id.valid:
                external_guard.unregister(self.file)
                hdf5_heap.unregister(self.file)
                self.file.close()
            if self._fileobj is not None:
                self._fileobj.close()
            if self._refused is not None:
                elink_guard.allow_from(self._refused)
        except Exception:  # noqa: BLE001 - closing must not raise
            pass


def _open_error(first: OSError) -> OpenError:
    """The finding of HDF5 refusing to open a file (truncated, not HDF5, unreadable)."""
    text = str(first)
    if "truncated" in text:
        return OpenError(
            R.FILE_TRUNCATED,
            "truncated HDF5 file: the superblock records more bytes than the file holds "
            f"({text})",
        )
    if "signature" in text:
        return OpenError(
            R.FILE_NOT_HDF5, f"not an HDF5 file: no HDF5 superblock signature ({text})",
        )
    return OpenError(R.FILE_UNREADABLE, f"cannot open as HDF5: {text}")


#: Most elements of one small metadata dataset (per-trial arrays, table columns,
#: ID lists) read whole at open.  A file may declare any size for free (unallocated
#: storage costs nothing on disk), so every read sized by the file is capped.
MAX_SMALL_ELEMENTS = 1 << 22


def element_count(shape: tuple[int, ...] | None) -> int:
    """Elements of a dataspace (exact Python integer; 0 for a null dataspace)."""
    if shape is None:
        return 0
    n = 1
    for x in shape:
        n *= int(x)
    return n


def read_whole(dataset: h5py.Dataset, rule: Rule, *, source: H5Source | None = None,
               limit: int = MAX_SMALL_ELEMENTS, location: str | None = None) -> Any:
    """``dataset[()]`` when it declares at most ``limit`` elements.

    Args:
        rule: the rule reported when the dataset is too large to read at open.
        source: when given, the read goes through :meth:`H5Source.read`
            (identity check, errors as ``OSError``).
        location: the finding's location (default: the dataset's path).

    Returns:
        The value as h5py returns it (an array, a scalar, or ``h5py.Empty``
        for a null dataspace).

    Raises:
        RuleError: ``rule`` when the dataset declares more than ``limit`` elements.
        ExternalRefused, OSError: see :meth:`H5Source.read`.
    """
    n = element_count(dataset.shape)
    if n > limit:
        raise RuleError(rule, f"{dataset.name} declares {n} elements (shape "
                        f"{tuple(dataset.shape)}), more than the {limit} read at open",
                        location or dataset.name)
    try:
        if source is not None:
            return source.read(dataset, ())
        with external_guard.watched(dataset):
            hdf5_heap.check_dataset(dataset)
            chunk_guard.check_selection(dataset, ())
            return dataset[()]
    except hdf5_heap.ValueTooLarge as exc:
        raise too_large(exc, location or dataset.name) from exc


def too_large(exc: hdf5_heap.ValueTooLarge, location: str) -> RuleError:
    """``data.value-too-large`` at ``location`` for values refused by their declared sizes."""
    return RuleError(R.DATA_VALUE_TOO_LARGE,
                     f"{location}: {exc}; `inspector dump FILE::{location} --all --out FILE` "
                     "writes the values", location)
