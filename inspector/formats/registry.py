"""The reader registry: every format is one package that registers a reader.

A format package (a sub-package of :mod:`inspector.formats`) registers
itself with one line in its ``__init__.py``: ``READER = SomeReader()``, an
object following :class:`~.reader_api.FormatReader`.  :func:`readers`
imports every sub-package of ``inspector.formats`` the first time it is
asked and registers each ``READER`` it finds, so a new format needs no edit
anywhere else: not in ``ui/``, not in ``cli.py``, not in ``pyproject.toml``
(which discovers packages).  Format packages never import this module, so
there is no import cycle.

:func:`open_document` asks the readers, in priority order, which one
recognises the file by its content (never by its extension), opens it with
that reader, and is the single place where an unexpected reader failure is
caught: such a failure is the finding ``internal.reader-failed``, a bug to
fix, never a verdict on the file.

Nothing here imports Qt.
"""

from __future__ import annotations

import fnmatch
import importlib
import os
import pkgutil
import stat
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path

from inspector.formats.core_rules import (
    FILE_BAD_LINK,
    FILE_NOT_FOUND,
    FILE_UNREADABLE,
    FORMAT_CONTAINER_ONLY,
    FORMAT_UNRECOGNISED,
    READER_FAILED,
    STRUCTURE_NOT_CHECKED,
)
from inspector.formats.document import FORMAT_UNKNOWN, Document
from inspector.formats.reader_api import FormatReader, OpenOptions
from inspector.formats.remote.path import RemotePath, as_source

__all__ = ["FormatReader", "OpenOptions", "claims_name", "open_document", "open_filters",
           "reader_for", "reader_modules", "readers", "register", "sniff"]

_READERS: list[FormatReader] = []
_DISCOVERED = False
_LOCK = threading.Lock()

#: Held while the format packages are imported (:func:`readers`), and by the window's
#: background import thread around each module it imports (``inspector.runtime.preload``).
#: Two threads importing modules of one package in different orders (a package's
#: ``__init__`` importing its modules, and a list of those modules imported one by one)
#: can each hold the import lock of a module the other waits for; Python breaks that
#: cycle by handing one of them a module still being initialised (importlib's
#: ``_DeadlockError``), whose missing names later fail as ``AttributeError`` (seen once
#: in a loaded suite run: "module 'numpy' has no attribute 'matrix'" from a reader).
#: A re-entrant lock: an import done under it may import more.
IMPORT_LOCK = threading.RLock()


def register(reader: FormatReader) -> FormatReader:
    """Add ``reader`` to the registry (discovery does this for every ``READER``).

    Raises:
        ValueError: another reader already has its ``format_id``.
    """
    with _LOCK:
        if any(r.format_id == reader.format_id for r in _READERS if r is not reader):
            raise ValueError(f"a reader for {reader.format_id!r} is already registered")
        if reader not in _READERS:
            _READERS.append(reader)
            _READERS.sort(key=lambda r: r.priority)
    return reader


def _discover() -> None:
    """Import every format package of ``inspector.formats`` once (under :data:`IMPORT_LOCK`)."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    import inspector.formats as formats_pkg

    with IMPORT_LOCK:
        for info in pkgutil.iter_modules(formats_pkg.__path__):
            if info.ispkg:
                package = importlib.import_module(f"{formats_pkg.__name__}.{info.name}")
                reader = getattr(package, "READER", None)
                if reader is not None:
                    register(reader)
        _DISCOVERED = True


def reader_modules() -> list[str]:
    """The name of every module of every format package, without importing any.

    For importing them ahead of need (the window does so on a background
    thread while idle), so that opening a file imports nothing.
    """
    import inspector.formats as formats_pkg

    out = []
    for info in pkgutil.iter_modules(formats_pkg.__path__):
        if info.ispkg:
            package = f"{formats_pkg.__name__}.{info.name}"
            folder = [os.path.join(formats_pkg.__path__[0], info.name)]
            out += [f"{package}.{m.name}" for m in pkgutil.iter_modules(folder)
                    if m.name != "__main__"]
    return out


def readers() -> Sequence[FormatReader]:
    """The registered readers in the order they are asked."""
    _discover()
    return tuple(_READERS)


def _claim(path: Path) -> tuple[FormatReader | None, BaseException | None]:
    """The first reader that recognises ``path`` by its content, and the exception
    of a sniffer that raised before one did (the reader it belongs to is returned
    with it).  Every sniffer runs here, inside the one never-raise wrapper."""
    for reader in readers():
        if path.is_dir() and not reader.opens_folders:
            continue
        try:
            if reader.sniff(path):
                return reader, None
        except Exception as exc:  # noqa: BLE001 - the one never-raise wrapper
            return reader, exc
    return None, None


def reader_for(path: Path) -> FormatReader | None:
    """The first reader that recognises ``path`` by its content, or None.

    Never raises: a sniffer that raises hands the file to its reader, whose
    open is wrapped (:func:`open_document` reports the failure).
    """
    return _claim(path)[0]


def sniff(path: str | os.PathLike[str]) -> str:
    """The format id of ``path`` by content (``"unknown"`` when no reader claims it)."""
    reader = reader_for(Path(path))
    return reader.format_id if reader is not None else str(FORMAT_UNKNOWN)


def open_filters() -> list[tuple[str, tuple[str, ...]]]:
    """``(display name, patterns)`` of every format, for an Open dialog."""
    return [(r.display_name, r.file_patterns) for r in readers() if r.file_patterns]


def open_document(path: str | os.PathLike[str], *, hash_arrays: bool = False,
                  auc_overview_columns: int = 0, only: str | None = None) -> Document:
    """Open ``path`` read-only and return its :class:`Document`.

    ``path`` may be an ``http(s)://`` or ``s3://`` URL (a string or a
    :class:`~.remote_path.RemotePath`): it is read by range requests, and
    network faults are findings of :mod:`.remote_rules`
    (docs/architecture.md, "Remote sources").

    The format is recognised from content by the registered readers.
    Opening reads headers and small metadata only; arrays stay lazy.
    ``hash_arrays``, ``auc_overview_columns`` and ``only`` (open for the values of one
    object, as ``inspector dump`` does): see :class:`OpenOptions`.

    Never raises for bad input: a path that cannot be read, a file no reader
    recognises, or a reader bug becomes an error finding.
    """
    p = as_source(path)
    options = OpenOptions(hash_arrays=hash_arrays, auc_overview_columns=auc_overview_columns,
                          only=only)
    if isinstance(p, RemotePath):
        return _open_remote(p, options)
    missing = _stat_problem(p)
    if missing is not None:
        return missing
    return _open_with_reader(p, options)


def _open_remote(p: RemotePath, options: OpenOptions) -> Document:
    from inspector.formats.remote.opening import add_faults, unreachable

    if p.is_dir():
        return _open_remote_folder(p, options)
    doc = unreachable(p)
    if doc is None:
        doc = _open_with_reader(p, options)
        add_faults(doc, p)
    return doc


def _open_remote_folder(p: RemotePath, options: OpenOptions) -> Document:
    """A folder URL (``s3://bucket/run/``): opened by the first reader that lists folders
    at URLs (``lists_remote_folders``), which reports the listing's faults and a
    listing without its files itself; unrecognised when no reader does."""
    reader = next((r for r in readers() if getattr(r, "lists_remote_folders", False)), None)
    return _open_by(reader, p, options)


def _open_with_reader(p: Path, options: OpenOptions) -> Document:
    reader, failure = _claim(p)
    if reader is not None and failure is not None:
        return reader_failed(p, reader.format_id, failure)
    return _open_by(reader, p, options)


def _open_by(reader: FormatReader | None, p: Path | RemotePath,
             options: OpenOptions) -> Document:
    """The one never-raise wrapper around a reader: unrecognised without one, a reader
    bug as ``internal.reader-failed``, and the structural questions answered."""
    if reader is None:
        return _unrecognised(p)
    try:
        doc = reader.open(p, options)
    except Exception as exc:  # noqa: BLE001 - the one never-raise wrapper
        return reader_failed(p, reader.format_id, exc)
    _note_kinds_declined(doc, reader, p)
    _examine_structure(doc)
    return doc


def _note_kinds_declined(doc: Document, reader: FormatReader, p: Path | RemotePath) -> None:
    """A container's document (an HDF5 file) says why it is none of the formats built on
    that container (``builds_on``: a VneuroTK recording), each in that format's words
    (``format.container-only``, a note).  Nothing is said of a file the container's reader
    could not open (no tree: its error findings say why)."""
    if doc.format != reader.format_id or doc.tree is None:
        return
    for other in readers():
        if getattr(other, "builds_on", None) == reader.format_id:
            doc.report(FORMAT_CONTAINER_ONLY,
                       f"read as {doc.kind_label}: {_mismatch_reason(other, p)}", "/")


def _examine_structure(doc: Document) -> None:
    """Every AUC document answers the structural questions, whatever its format.

    A reader that knows better places (file and line) computes the structure
    itself; for any other AUC document with a loaded experiment it is computed
    here, located in the experiment's model (``scans[3].rotor_speed``).  An AUC
    source (one that offers export) whose experiment could not be imported is
    not checked (``structure.not-checked``; :attr:`Document.structure_ok` None).
    """
    if doc.structure is not None or doc.structure_unchecked is not None:
        return
    if doc.auc is None or doc.auc.experiment is None:
        if doc.export is not None:  # an AUC source whose experiment could not be imported
            why = "the AUC experiment could not be imported (see the errors above)"
            doc.structure_unchecked = why
            doc.report(STRUCTURE_NOT_CHECKED, "the structure and readiness of the experiment "
                       f"were not checked: {why}")
        return
    from inspector.formats.auc.structure import examine, publish

    doc.structure = examine(doc.auc.experiment)
    publish(doc.structure, doc.findings, doc.summary)


def reader_failed(path: Path, format_id: str, exc: BaseException) -> Document:
    """The document of a reader that raised: one ``internal.reader-failed`` finding."""
    doc = Document(path, format=format_id)
    doc.report(READER_FAILED,
               f"the {format_id} reader failed unexpectedly: {type(exc).__name__}: {exc}")
    doc.traceback = "".join(traceback.format_exception(exc))
    doc.structure_unchecked = "the reader failed (internal.reader-failed)"
    return doc


#: What a path that is neither a file nor a folder is (``stat`` file types).
_SPECIAL = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
            (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def claims_name(reader: FormatReader, name: str) -> bool:
    """True when ``name`` matches ``reader.walk_patterns`` (the names of that format alone;
    case ignored)."""
    lowered = name.lower()
    return any(fnmatch.fnmatchcase(lowered, pat.lower())
               for pat in getattr(reader, "walk_patterns", ()))


def _stat_problem(p: Path) -> Document | None:
    """A ``file.*`` document for a path that cannot be opened as a file or folder, else None.

    A named pipe, socket or device is refused before any reader opens it: opening
    a pipe waits for a writer forever, and a device never ends.
    """
    try:
        mode = os.stat(p).st_mode
    except OSError as exc:
        doc = Document(p)
        if p.is_symlink():
            doc.report(FILE_BAD_LINK,
                       f"a symbolic link that cannot be followed ({exc.strerror or exc})")
        elif isinstance(exc, FileNotFoundError):
            doc.report(FILE_NOT_FOUND, "no such file or folder")
        else:
            doc.report(FILE_UNREADABLE, f"cannot be read ({exc.strerror or exc})")
        return doc
    kind = next((what for test, what in _SPECIAL if test(mode)), None)
    if kind is not None:
        doc = Document(p)
        doc.report(FILE_UNREADABLE, f"cannot be read: it is {kind}, not a file or folder "
                   "(it is not opened: reading it could wait or run forever)")
        return doc
    return None


def _mismatch_reason(reader: FormatReader, p: Path) -> str:
    try:
        return reader.mismatch_reason(p)
    except Exception as exc:  # noqa: BLE001 - the one never-raise wrapper
        return f"the {reader.format_id} reader could not tell ({type(exc).__name__}: {exc})"


def _unrecognised(p: Path) -> Document:
    doc = Document(p, format=FORMAT_UNKNOWN)
    reasons = dict.fromkeys(_mismatch_reason(rd, p) for rd in readers())  # in order, once
    reason = ", ".join(r for r in reasons if r) or "no reader is registered"
    named = [rd.display_name for rd in readers() if claims_name(rd, p.name)]
    if named:  # a destroyed archive or recording: say what its name promises
        reason = f"named like {' or '.join(named)}, but {reason}"
    doc.report(FORMAT_UNRECOGNISED, f"unrecognised format: {reason}")
    try:
        size = p.stat().st_size if p.is_file() else 0
    except OSError:
        size = 0
    doc.header.add("format", doc.kind_label)  # "Unrecognised file"
    doc.header.add("size", f"{size:,} bytes")
    doc.summary = {"size": size}
    return doc
