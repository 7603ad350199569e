"""Raw data a dataset would read from other files, judged before HDF5 reads any of it.

An HDF5 dataset's values may live outside its file: *external storage*
(``H5Pset_external``: contiguous raw data in other files, named by path), the
*sources of a virtual dataset* (``H5Pset_virtual``: other datasets, of this file or
of other files) and datasets reached through *external links*
(``H5Lcreate_external``).  HDF5 opens those files with ``open(2)`` when the values are
read: a named pipe blocks forever, a device never ends, a virtual dataset whose
source is itself (or two naming each other) recurses until the process crashes, and
any readable file of the machine (``/etc/passwd``, ``~/.ssh/...``) is shown as if it
were the document's data.

So every read of a dataset's values asks :func:`check` first, which judges the
dataset from its creation properties alone (``H5Pget_external``,
``H5Pget_layout``, ``H5Pget_virtual_filename``/``_dsetname``), resolving each named
file the way HDF5 will (:func:`storage_path`, :func:`hdf5_candidates`):

- a document read from a URL never reads another file (HDF5 would look on this
  machine): ``external.remote``, ``vds.external``;
- otherwise a file is read only when it is a regular file inside the document's own
  folder tree (links followed), or inside a folder the user allowed
  (:func:`~inspector.formats.sources.folder_bounds.allow_folder`: ``--allow-external DIR``,
  or the window's action on the finding): else ``external.outside``;
- a named pipe, socket, device or folder is never read, allowed or not
  (``external.special-file``); nor a missing file (``external.missing``,
  ``vds.missing-source``), nor external storage naming the document itself
  (``external.self``), nor a virtual dataset that reaches itself again through its
  sources, at any depth (``vds.recursive``).

:func:`examine` gives the whole verdict (what is refused and why, and which other
files the values come from, for the tree, the detail pane and ``dump``); its result
is cached per dataset and recomputed when the allowed folders change.  The bounds of
a document are registered by :class:`~inspector.formats.hdf5.source.H5Source`
(:func:`register`); a file opened otherwise is bounded by its own folder.
Nothing here imports Qt.
"""

from __future__ import annotations

import os
import posixpath
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py

from inspector.formats.findings import Rule
from inspector.formats.hdf5 import heap as hdf5_heap
from inspector.formats.hdf5 import rules as R
from inspector.formats.hdf5.filters import create_plist
from inspector.formats.hdf5.object_header import object_identity
from inspector.formats.hdf5.read_watch import watch
from inspector.formats.hdf5.vds_guard import MAX_MAPPINGS, TooManyMappings, path_refusal
from inspector.formats.remote.path import RemotePath
from inspector.formats.sources.folder_bounds import (
    MISSING,
    REGULAR,
    allow_hint,
    allowed_folders,
    file_kind,
    inside_any,
    real,
)
from inspector.formats.sources.signatures import has_hdf5_signature

#: Virtual-dataset mappings read from one dataset's creation properties; a dataset
#: with more is not read (its sources cannot all be checked).
MAX_VIRTUAL_MAPPINGS = 1 << 18
#: Virtual datasets visited while following one dataset's sources (all levels).
MAX_VIRTUAL_VISITS = 256
#: Source datasets (distinct file and dataset names, all levels) checked for one dataset;
#: a dataset mapping more is not read (they cannot all be checked in bounded time).
MAX_SOURCES_CHECKED = 16384
#: Levels of virtual datasets mapping virtual datasets followed.
MAX_VIRTUAL_DEPTH = 16
#: External-storage files of one dataset checked (HDF5 allows any number).
MAX_STORAGE_FILES = 4096


class ExternalRefused(OSError):
    """The values of a dataset are not read: a file they come from is out of bounds.

    Attributes:
        refusal: the first reason (:class:`Refusal`).
    """

    def __init__(self, refusal: Refusal, location: str) -> None:
        super().__init__(refusal.message(location))
        self.refusal = refusal
        self.location = location


@dataclass(frozen=True)
class Refusal:
    """Why values from one named file are not read.

    Attributes:
        rule: the finding's rule.
        target: the file as the document names it.
        resolved: where it resolves on this machine (``""``: nowhere to look).
        why: what is wrong with it, in words.
        folder: the folder whose allowance would let it be read (``""``: never).
    """

    rule: Rule
    target: str
    resolved: str
    why: str
    folder: str = ""

    def message(self, location: str) -> str:
        """The finding's message for the dataset at ``location``."""
        where = f" ({self.resolved})" if self.resolved and self.resolved != self.target else ""
        text = f"{location}: its values come from {self.target}{where}, {self.why}; not read"
        if self.folder:
            text += f" {allow_hint(self.folder)}"
        return text


@dataclass(frozen=True)
class Verdict:
    """What reading a dataset's values would open.

    Attributes:
        files: the other files its values come from (resolved paths, or names as
            stored for a document read from a URL), each at most once.
        refusals: why some of them are not read (empty: the values may be read).
    """

    files: tuple[str, ...] = ()
    refusals: tuple[Refusal, ...] = ()

    @property
    def readable(self) -> bool:
        """True when nothing forbids reading the values."""
        return not self.refusals

    def note(self) -> str:
        """``"values from other files: a.bin, b.bin"`` (``""`` when from this file only)."""
        if not self.files:
            return ""
        shown = ", ".join(self.files[:3]) + (", …" if len(self.files) > 3 else "")
        return f"values from {'another file' if len(self.files) == 1 else 'other files'}: {shown}"


@dataclass
class Scope:
    """The bounds of one open document.

    Attributes:
        remote: read from a URL (no other file is ever read).
        folder: the document's folder (resolved), whose tree may be read.
        document: the document's own file (resolved; ``""`` remote).
    """

    remote: bool
    folder: str
    document: str
    cache: dict[Any, tuple[tuple[str, ...], Verdict]] = field(default_factory=dict)

    def roots(self) -> tuple[str, ...]:
        """The folders whose regular files may be read: the document's and the allowed."""
        return () if self.remote else (self.folder, *allowed_folders())


_lock = threading.RLock()
_scopes: dict[str, Scope] = {}
#: Open documents of each registered file (a file open twice is registered until both close).
_users: dict[str, int] = {}


def register(f: h5py.File, document: Any) -> None:
    """Bound the external reads of the open file ``f``, the document at ``document``
    (a local path, or a remote path: then nothing outside ``f`` is read).  A file
    registered already (another document of it is open) gains one more user."""
    remote = isinstance(document, RemotePath)
    path = "" if remote else real(document)
    scope = Scope(remote, os.path.dirname(path), path)
    with _lock:
        _users[f.filename] = _users.get(f.filename, 0) + 1
        _scopes[f.filename] = scope
        if path:
            _scopes[path] = scope


def unregister(f: h5py.File) -> None:
    """Forget :func:`register` for ``f`` when its last document was closed."""
    with _lock:
        users = _users.pop(f.filename, 1) - 1
        if users > 0:
            _users[f.filename] = users
            return
        scope = _scopes.pop(f.filename, None)
        if scope is not None and scope.document:
            _scopes.pop(scope.document, None)


def scope_of(filename: str) -> Scope:
    """The bounds registered for the HDF5 file named ``filename``; a file no document
    registered (reached through an external link, or opened directly) is bounded by
    its own folder."""
    with _lock:
        scope = _scopes.get(filename)
        if scope is None:
            resolved = real(filename)
            scope = _scopes.get(resolved)
            if scope is None:
                scope = _scopes[resolved] = Scope(False, os.path.dirname(resolved), resolved)
        return scope


def check(ds: h5py.Dataset) -> Verdict:
    """Raise unless every file the values of ``ds`` come from may be read; return the
    :class:`Verdict`.  The kinds of those files are judged again now (the verdict is
    cached): one swapped for a pipe, device or socket since is refused.

    Raises:
        ExternalRefused: the first :class:`Refusal` of :func:`examine`, or
            ``external.special-file`` for a file no longer a regular one.
    """
    verdict = examine(ds)
    if verdict.refusals:
        raise ExternalRefused(verdict.refusals[0], ds.name or "dataset")
    for path in verdict.files:
        kind = file_kind(path)
        if kind not in (REGULAR, MISSING):
            raise ExternalRefused(Refusal(
                R.EXTERNAL_SPECIAL, path, real(path),
                "now a named pipe, socket, device or folder (never read)"), ds.name or "dataset")
    return verdict


@contextmanager
def watched(ds: h5py.Dataset) -> Iterator[None]:
    """:func:`check` ``ds``, then run the body (its read) under the watchdog of
    :mod:`.read_watch` when its values come from other files: a file swapped for a
    named pipe after the check cannot block the read past
    :data:`.read_watch.READ_TIMEOUT_S`.

    Raises:
        ExternalRefused: see :func:`check`.
        ReadStopped: the read was stopped (``data.read-timeout``).
    """
    verdict = check(ds)
    with watch(verdict.files, ds.name or "dataset"):
        yield


def examine(ds: h5py.Dataset) -> Verdict:
    """The :class:`Verdict` of ``ds`` from its creation properties (cached).

    A dataset whose properties cannot be read has nothing to judge here (HDF5's own
    read reports it), nor one stored in this file alone (no external-storage file in
    its creation properties, not virtual: :func:`_in_this_file`), which is answered
    from those properties without looking at its file or the cache."""
    dcpl = _create_plist(ds)
    if dcpl is None or _in_this_file(dcpl):
        return _NOTHING
    scope = scope_of(ds.file.filename)
    key = object_identity(ds) or (ds.file.filename, ds.name)
    generation = allowed_folders()
    with _lock:
        cached = scope.cache.get(key)
    if cached is not None and cached[0] == generation:
        return cached[1]
    verdict = _Examination(scope).dataset(ds)
    with _lock:
        if len(scope.cache) > 4096:
            scope.cache.clear()
        scope.cache[key] = (generation, verdict)
    return verdict


#: The verdict of a dataset whose values are read from its own file only.
_NOTHING = Verdict()


def _in_this_file(dcpl: Any) -> bool:
    """True when the creation properties ``dcpl`` name no external-storage file and no
    virtual layout (``H5Pget_external_count``, ``H5Pget_layout``: both read from the
    property list in memory), so reading the values opens no other file; False when
    either cannot be read (the full examination then judges the dataset)."""
    try:
        return dcpl.get_external_count() == 0 and dcpl.get_layout() != h5py.h5d.VIRTUAL
    except (OSError, RuntimeError, ValueError):
        return False


def _create_plist(ds: h5py.Dataset) -> Any | None:
    try:
        return create_plist(ds)
    except (OSError, RuntimeError, ValueError, AttributeError):
        return None


# -- where HDF5 looks ------------------------------------------------------------------
def storage_path(ds: h5py.Dataset, name: str) -> str:
    """Where HDF5 opens the external-storage file ``name`` of ``ds``: as given when
    absolute, else under the dataset's external-file prefix (``H5Pget_efile_prefix``:
    the ``HDF5_EXTFILE_PREFIX`` environment variable or the access property list,
    ``${ORIGIN}`` = the file's folder), else from the working directory."""
    if os.path.isabs(name):
        return os.path.normpath(name)
    try:
        prefix = os.fsdecode(ds.id.get_access_plist().get_efile_prefix() or b"")
    except (OSError, RuntimeError, ValueError, AttributeError):
        prefix = ""
    if prefix.startswith("${ORIGIN}"):
        here = os.path.dirname(os.path.abspath(ds.file.filename))
        prefix = here + prefix[len("${ORIGIN}"):]
    return os.path.abspath(os.path.join(prefix, name)) if prefix else os.path.abspath(name)


def hdf5_candidates(parent: str, name: str, env: str) -> list[str]:
    """The paths HDF5 tries, in order, for a file ``name`` named by the file ``parent``
    (an external link's or a virtual dataset's source file; HDF5 library,
    ``H5F_prefix_open_file``): an absolute name as given, then its last component (or
    the relative name) under each folder of the environment variable ``env``
    (``HDF5_EXT_PREFIX``/``HDF5_VDS_PREFIX``), beside ``parent``, and from the
    working directory."""
    out: list[str] = []
    if os.path.isabs(name):
        out.append(os.path.normpath(name))
        name = os.path.basename(name)
    here = os.path.dirname(os.path.abspath(parent))
    for prefix in filter(None, os.environ.get(env, "").split(os.pathsep)):
        out.append(os.path.join(prefix.replace("${ORIGIN}", here), name))
    out += [os.path.join(here, name), os.path.abspath(name)]
    return [os.path.abspath(p) for p in dict.fromkeys(out)]


def opened_file(parent: str, name: str, env: str) -> tuple[str, str]:
    """``(path, kind)`` of the file HDF5 would open for ``name`` (see
    :func:`hdf5_candidates`): the first candidate that is not a regular HDF5 file
    inside nothing (a pipe or device, kind ``special``), or the first regular HDF5
    file; ``("", missing)`` when no candidate exists.  A candidate that exists but is
    not HDF5 is passed over, as HDF5 does."""
    fallback = ("", MISSING)
    for path in hdf5_candidates(parent, name, env):
        kind = file_kind(path)
        if kind == MISSING:
            continue
        if kind != REGULAR:
            return path, kind
        if has_hdf5_signature(Path(path)):
            return path, kind
        fallback = fallback if fallback[0] else (path, kind)
    return fallback


def link_refusal(parent: str, name: str) -> Refusal | None:
    """Why an external link of the file ``parent`` to the file ``name`` is not followed,
    or None (the link callback of :mod:`.elink_guard` and the tree ask this)."""
    scope = scope_of(parent)
    if scope.remote:
        return Refusal(R.LINK_EXTERNAL_URL, name, "", "a file beside a URL")
    path, kind = opened_file(parent, name, "HDF5_EXT_PREFIX")
    return _file_refusal(scope, name, path, kind, missing=None)


def linked_mappings(group: h5py.Group, raw_name: bytes,
                    location: str) -> TooManyMappings | None:
    """The refusal of the external link ``raw_name`` of ``group`` when its target is a
    virtual dataset of more mappings than are opened (:mod:`.vds_guard`), counted from
    the target file's layout message before HDF5 opens it (HDF5 decodes every mapping
    when it opens one); None otherwise (not an external link, or a target not followed:
    :func:`link_refusal` and the link checks say why)."""
    try:
        if group.id.links.get_info(raw_name).type != h5py.h5l.TYPE_EXTERNAL:
            return None
        filename, target = group.id.links.get_val(raw_name)
        parent = group.file.filename
    except (AttributeError, KeyError, OSError, RuntimeError, TypeError, ValueError):
        return None
    name = os.fsdecode(filename)
    if scope_of(parent).remote or link_refusal(parent, name) is not None:
        return None
    path, kind = opened_file(parent, name, "HDF5_EXT_PREFIX")
    if kind != REGULAR:
        return None
    return _counted_in(path, target, location)


def _counted_in(path: str, target: bytes, location: str) -> TooManyMappings | None:
    """:func:`~.vds_guard.path_refusal` of ``target`` in the file at ``path``, opened
    read-only and guarded (:func:`~.hdf5_heap.register`) for the count alone."""
    try:
        other = h5py.File(path, "r")
    except (OSError, RuntimeError, ValueError):
        return None
    try:
        hdf5_heap.register(other, path)
        return path_refusal(other, target, location)
    finally:
        hdf5_heap.unregister(other)
        other.close()


def _file_refusal(scope: Scope, name: str, path: str, kind: str,
                  missing: Rule | None) -> Refusal | None:
    """The refusal of a local file ``name`` resolved to ``path`` of ``kind``, or None."""
    if kind == MISSING:
        return None if missing is None else Refusal(missing, name, path,
                                                    "which does not exist")
    if kind != REGULAR:
        return Refusal(R.EXTERNAL_SPECIAL, name, real(path),
                       "a named pipe, socket, device or folder (never read)")
    if inside_any(path, scope.roots()) is None:
        resolved = real(path)
        return Refusal(R.EXTERNAL_OUTSIDE, name, resolved,
                       "a file outside the document's folder", os.path.dirname(resolved))
    return None


# -- the examination of one dataset ----------------------------------------------------
@dataclass
class _Examination:
    """One walk through a dataset's storage and (virtual) sources."""

    scope: Scope
    files: dict[str, None] = field(default_factory=dict)
    refusals: list[Refusal] = field(default_factory=list)
    visits: int = 0
    checked: int = 0
    handles: dict[str, h5py.File] = field(default_factory=dict)
    where: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    def dataset(self, ds: h5py.Dataset) -> Verdict:
        try:
            self._visit(ds, [])
        finally:
            for handle in self.handles.values():
                hdf5_heap.unregister(handle)
                handle.close()
        return Verdict(tuple(self.files), tuple(dict.fromkeys(self.refusals)))

    def _open(self, path: str) -> h5py.File | None:
        """The source file at ``path``, opened read-only once per examination."""
        if path not in self.handles:
            try:
                self.handles[path] = h5py.File(path, "r")
            except (OSError, RuntimeError, ValueError):
                return None  # HDF5 fills the mapped region with fill values: nothing to guard
            hdf5_heap.register(self.handles[path], path)  # its virtual datasets' mappings
            # are counted before they are opened
        return self.handles[path]

    def _visit(self, ds: h5py.Dataset, stack: list[tuple[Any, str]]) -> None:
        """Judge ``ds``; ``stack`` holds the virtual datasets on the way to it."""
        dcpl = _create_plist(ds)
        if dcpl is None:
            return
        self._storage(ds, dcpl)
        try:
            virtual = dcpl.get_layout() == h5py.h5d.VIRTUAL
        except (OSError, RuntimeError, ValueError):
            virtual = False
        if not virtual:
            return
        self.visits += 1
        if len(stack) >= MAX_VIRTUAL_DEPTH or self.visits > MAX_VIRTUAL_VISITS:
            self.refusals.append(Refusal(
                R.VDS_RECURSIVE, ds.name or "dataset", "",
                f"more than {MAX_VIRTUAL_DEPTH} levels or {MAX_VIRTUAL_VISITS} virtual "
                "datasets deep (not followed further)"))
            return
        self._virtual(ds, dcpl, stack)

    def _storage(self, ds: h5py.Dataset, dcpl: Any) -> None:
        try:
            n = dcpl.get_external_count()
            names = dict.fromkeys(os.fsdecode(dcpl.get_external(i)[0])
                                  for i in range(min(n, MAX_STORAGE_FILES)))
        except (OSError, RuntimeError, ValueError):
            return
        for name in names:
            refusal = self._storage_refusal(ds, name)
            if refusal is not None:
                self.refusals.append(refusal)
            else:
                self.files[storage_path(ds, name)] = None

    def _storage_refusal(self, ds: h5py.Dataset, name: str) -> Refusal | None:
        if self.scope.remote or scope_of(ds.file.filename).remote:
            return Refusal(R.EXTERNAL_REMOTE, name, "",
                           "external storage of a file read from a URL (HDF5 would read it "
                           "from this machine)")
        path = storage_path(ds, name)
        kind = file_kind(path)
        if kind == REGULAR and real(path) == real(ds.file.filename):
            return Refusal(R.EXTERNAL_SELF, name, real(path), "the document itself")
        return _file_refusal(self.scope, name, path, kind, R.EXTERNAL_MISSING)

    def _virtual(self, ds: h5py.Dataset, dcpl: Any, stack: list[tuple[Any, str]]) -> None:
        here = object_identity(ds) or (ds.file.filename, ds.name)
        location = f"{os.path.basename(ds.file.filename)}:{ds.name or 'dataset'}"
        try:
            count = dcpl.get_virtual_count()
        except (OSError, RuntimeError, ValueError):
            return
        if count > MAX_VIRTUAL_MAPPINGS:
            self.refusals.append(Refusal(
                R.VDS_UNREADABLE, f"{count} mappings", "",
                f"more than the {MAX_VIRTUAL_MAPPINGS} checked before a virtual dataset is "
                "read"))
            return
        sources = _virtual_sources(dcpl, count)
        self.checked += len(sources)
        if self.checked > MAX_SOURCES_CHECKED:
            self.refusals.append(Refusal(
                R.VDS_UNREADABLE, f"{len(sources)} source datasets", "",
                f"more than the {MAX_SOURCES_CHECKED} source datasets checked before a virtual "
                "dataset is read"))
            return
        for file_name, dset in sources:
            self._source(ds, file_name, dset, [*stack, (here, location)])
            if len(self.refusals) > 64:
                return

    def _source(self, ds: h5py.Dataset, file_name: str, dset: str,
                stack: list[tuple[Any, str]]) -> None:
        """Judge one source ``dset`` of ``file_name`` of the virtual dataset ``ds``."""
        if file_name == ".":
            self._follow(ds.file, dset, f"{dset} of the same file", stack)
            return
        if self.scope.remote or scope_of(ds.file.filename).remote:
            self.refusals.append(Refusal(R.VDS_EXTERNAL, file_name, "",
                                         "a file beside a URL (never read over the network)"))
            return
        key = (ds.file.filename, file_name)
        if key not in self.where:
            self.where[key] = opened_file(ds.file.filename, file_name, "HDF5_VDS_PREFIX")
        path, kind = self.where[key]
        refusal = _file_refusal(self.scope, file_name, path, kind, R.VDS_MISSING_SOURCE)
        if refusal is not None:
            self.refusals.append(refusal)
            return
        if real(path) == real(ds.file.filename):
            self._follow(ds.file, dset, f"{dset} of the same file", stack)
            return
        self.files[real(path)] = None
        other = self._open(path)
        if other is not None:
            self._follow(other, dset, f"{file_name}:{dset}", stack)

    def _follow(self, f: h5py.File, dset: str, named: str,
                stack: list[tuple[Any, str]]) -> None:
        """Judge the dataset ``dset`` of the open file ``f``, a source on ``stack``."""
        path = posixpath.normpath("/" + dset)
        refused = path_refusal(f, os.fsencode(path), named)
        if refused is not None:  # opening it would have HDF5 decode all its mappings
            self.refusals.append(Refusal(
                R.VDS_TOO_MANY_MAPPINGS, named, "",
                f"a virtual dataset of {refused.count:,} mappings (more than {MAX_MAPPINGS:,}: "
                "not opened)"))
            return
        try:
            obj = f.get(path)
        except (OSError, RuntimeError, ValueError, KeyError):
            return
        if not isinstance(obj, h5py.Dataset):
            return
        identity = object_identity(obj) or (f.filename, obj.name)
        if any(identity == seen for seen, _ in stack):
            chain = " -> ".join(loc for _, loc in stack)
            self.refusals.append(Refusal(
                R.VDS_RECURSIVE, named, "",
                f"which leads back to a dataset already on the way ({chain} -> {named}); "
                "HDF5 would recurse until the process crashes"))
            return
        self._visit(obj, stack)


def _virtual_sources(dcpl: Any, count: int) -> list[tuple[str, str]]:
    """The distinct ``(file name, dataset name)`` of a virtual dataset's mappings."""
    out: dict[tuple[str, str], None] = {}
    for i in range(count):
        try:
            out[(dcpl.get_virtual_filename(i), dcpl.get_virtual_dsetname(i))] = None
        except (OSError, RuntimeError, ValueError):
            continue
    return list(out)
