"""Export an AUC experiment to a new AUCX archive.

The source is any file or folder whose document offers export
(``Document.export``, an :class:`~inspector.formats.capabilities.ExperimentExport`),
an already opened :class:`~inspector.formats.document.Document`, or an
already loaded :class:`~inspector.formats.auc.model.AucExperiment`.  This
module never asks which format a source is: it opens a path with
:func:`inspector.formats.registry.open_document` and asks the document's
export capability for the experiment (docs/architecture.md, "Seams").

Writing is delegated to the AUCX writer (the destination format),
which writes a sibling temporary file, verifies it by reading it back and only
then moves it into place (seed ``002_59993c7ffff01d56.txt``, "Atomic writes";
spec ``aucx-archive.md`` section 3).  Every failure becomes an
:class:`ExportError` with a message naming the file and the reason, and a
failed export leaves no file behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

from inspector.formats.auc.model import AucExperiment, Handoff
from inspector.formats.document import Document
from inspector.formats.findings import Finding, Severity, cause
from inspector.formats.registry import open_document

#: ``progress(done, total, message)``: called as the export advances (3 steps).
ExportProgress = Callable[[int, int, str], None]

#: What :func:`load_source` and :func:`export_to_aucx` accept as a source.
ExportSource = str | os.PathLike[str] | Document | AucExperiment

#: How many findings an :class:`ExportError` message lists at most.
MAX_LISTED = 5


class ExportError(Exception):
    """An export could not be done; the message says which file and why.

    Attributes:
        findings: the source's findings when the source was rejected (may be empty).
    """

    def __init__(self, message: str, findings: Iterable[Finding] | None = None) -> None:
        super().__init__(message)
        self.findings: list[Finding] = list(findings or [])


def parse_exported_at(value: str | datetime | None) -> datetime | None:
    """The export time as a datetime (ISO-8601 text accepted; ``Z`` allowed).

    A time without an offset is passed on as given (the AUCX writer takes a
    naive time as UTC).

    Raises:
        ExportError: text that is not ISO-8601.
    """
    if value is None or isinstance(value, datetime):
        return value
    text = str(value).strip()
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise ExportError(f"--exported-at {value!r} is not an ISO-8601 time "
                          "(for example 2026-01-01T00:00:00Z)") from None


def _describe(findings: Iterable[Finding]) -> str:
    """The first :data:`MAX_LISTED` error findings as ``location: message``, joined."""
    errors = [f for f in findings if getattr(f, "severity", Severity.ERROR) == Severity.ERROR]
    lines = [f"{f.location or '-'}: {f.message}" for f in errors[:MAX_LISTED]]
    more = len(errors) - MAX_LISTED
    if more > 0:
        lines.append(f"... and {more} more error(s)")
    return "; ".join(lines)


def rejected(name: str, kind: str, findings: Iterable[Finding],
             fallback: str = "") -> ExportError:
    """The :class:`ExportError` of a source that was rejected.

    ``"<name>: not a valid <kind>: <location>: <message>; ..."``, listing the
    first error findings (``fallback`` when there is none).
    """
    kept = list(findings)
    detail = _describe(kept) or fallback or "the source was rejected"
    return ExportError(f"{name}: not a valid {kind}: {detail}", kept)


def _from_exception(name: str, kind: str, exc: Exception) -> ExportError:
    """Map an exception of ``ExperimentExport.load`` to an :class:`ExportError`.

    An exception carrying ``findings`` (``DelimitedError``,
    ``ArchiveReadError``...) lists them; any other says its type and text.
    """
    findings = list(getattr(exc, "findings", None) or [])
    return rejected(name, kind, findings, fallback=cause(exc))


def _load_document(doc: Document, *, owned: bool) -> AucExperiment:
    """The experiment ``doc`` offers for export.

    ``owned``: the document was opened here, so its deferred checks are run
    here (headless path, ``Document.verify``); a document opened elsewhere
    (the GUI's) is never mutated and must already be verified.

    Raises:
        ExportError: ``doc`` offers no export, has error findings, is not
            verified, or its ``load`` rejected it.
    """
    export, kind = doc.export, doc.kind_label
    if export is None:
        raise ExportError(f"{doc.name}: not an AUC source ({kind}); only AUC "
                          "experiments can be exported to AUCX")
    if owned:
        doc.verify()
    if not doc.ok:
        raise rejected(doc.name, kind, doc.findings)
    if not doc.verified:
        raise ExportError(f"{doc.name}: not verified yet; a {kind} is exported "
                          "only once its checks have completed")
    try:
        return export.load()
    except ExportError:
        raise
    except Exception as exc:
        if getattr(exc, "findings", None) is None and not isinstance(exc, OSError | ValueError):
            raise  # a bug, not a verdict on the source
        raise _from_exception(doc.name, kind, exc) from exc


def open_group(source: str | os.PathLike[str], group: str) -> Document:
    """The verified document of ``source`` offering its experiment group ``group``.

    For sources that hold several experiments (a Beckman run folder: one per
    cell, channel, type and wavelength), through the document's
    :class:`~inspector.formats.capabilities.ExperimentGroups`.

    Raises:
        ExportError: ``source`` holds a single experiment, or no group ``group``.
    """
    path = Path(source)
    with open_document(path) as doc:
        groups = doc.groups
        if groups is None:
            raise ExportError(f"{path.name}: holds a single experiment; --group applies to "
                              "sources with several (a run folder of several cells or "
                              "wavelengths)")
        if group not in groups.keys:
            raise ExportError(f"{path.name}: no group {group!r}; its groups are "
                              f"{', '.join(groups.keys)}")
    chosen: Document = groups.open(group)
    chosen.verify()
    return chosen


def load_source(source: ExportSource) -> AucExperiment:
    """Load ``source`` into an experiment, by the export capability of its document.

    A path is opened with :func:`~inspector.formats.registry.open_document`,
    its deferred checks are run (an archive is fully verified), and the
    document's ``export.load()`` gives the experiment.  An open
    :class:`Document` must already be verified; an :class:`AucExperiment`
    passes through.

    Raises:
        ExportError: the source does not exist, offers no export, is not
            verified, or is rejected (the message lists its first errors).
    """
    if isinstance(source, AucExperiment):
        return source
    if isinstance(source, Document):
        return _load_document(source, owned=False)
    path = Path(source)
    if not path.exists():
        raise ExportError(f"{path}: no such file or folder")
    with open_document(path) as doc:
        return _load_document(doc, owned=True)


def _check_dest(dest: Path, overwrite: bool, source: ExportSource) -> None:
    """Refuse a destination that cannot be written (see :func:`export_to_aucx`)."""
    parent = dest.parent
    if not parent.is_dir():
        raise ExportError(f"{dest}: the destination folder {parent} does not exist")
    if dest.is_dir():
        raise ExportError(f"{dest}: the destination is a folder, not a file")
    if dest.exists() and not overwrite:
        raise ExportError(f"{dest}: already exists (use --overwrite to replace it)")
    origin = source.path if isinstance(source, Document) else source
    if isinstance(origin, str | os.PathLike) and dest.exists():
        try:
            if Path(origin).exists() and os.path.samefile(origin, dest):
                raise ExportError(f"{dest}: the destination is the source file itself")
        except OSError:
            pass


def _write_archive(handoff: Handoff, dest: Path, when: datetime | None,
                   overwrite: bool) -> Path:
    """Write the experiment of ``handoff`` at ``dest`` with the AUCX writer (which drops
    it before reading the archive back).

    The AUCX writer is the destination of every export, the one format this
    module is about; sources are never told apart here.
    """
    from inspector.formats.aucx.writer import write_aucx

    return Path(write_aucx(handoff, dest, exported_at=when, overwrite=overwrite))


def export_to_aucx(
    source: ExportSource,
    dest: str | os.PathLike[str],
    *,
    exported_at: str | datetime | None = None,
    overwrite: bool = False,
    progress: ExportProgress | None = None,
) -> Path:
    """Write ``source`` as a new AUCX archive at ``dest`` and return ``dest``.

    Args:
        source: a file or folder whose document offers export (an ``.aucx``
            archive, a delimited source...), an open verified
            :class:`Document`, or an :class:`AucExperiment` (see :func:`load_source`).
        dest: the archive to write; its folder must exist.
        exported_at: the export time recorded in the archive (ISO-8601 text or
            datetime); now (UTC) when omitted.  The same experiment and
            ``exported_at`` give a byte-identical archive.
        overwrite: replace an existing ``dest``.
        progress: optional ``progress(done, total, message)`` callback.

    Returns:
        The path written.

    Raises:
        ExportError: invalid or unrecognised source, destination exists
            (without ``overwrite``), destination folder missing, or a write
            failure.  Nothing is left at ``dest`` (or beside it) on failure.
    """
    dest_path = Path(dest)
    when = parse_exported_at(exported_at)
    _check_dest(dest_path, overwrite, source)
    if progress:
        progress(0, 3, "loading source")
    handoff = Handoff(load_source(source))  # the writer's alone: dropped before read-back
    if progress:
        progress(1, 3, "writing archive")
    existed = dest_path.exists()
    try:
        written = _write_archive(handoff, dest_path, when, overwrite)
    except FileExistsError as exc:
        raise ExportError(f"{dest_path}: already exists (use --overwrite to replace it)") from exc
    except Exception as exc:  # noqa: BLE001 - every write failure is an export error
        if not existed and dest_path.exists():
            try:
                dest_path.unlink()
            except OSError:
                pass
        raise ExportError(f"{dest_path}: writing the archive failed: "
                          f"{cause(exc)}") from exc
    if progress:
        progress(3, 3, "done")
    return Path(written)
