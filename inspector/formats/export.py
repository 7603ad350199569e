"""Export an AUC experiment to a new AUCX archive.

The source is an AUCX archive, a delimited AUC source (folder, manifest or
data file), or an already loaded :class:`~inspector.formats.auc_model.
AucExperiment`.  Writing is delegated to :func:`inspector.formats.aucx.
write_aucx`, which writes a sibling temporary file, verifies it by reading it
back and only then moves it into place (seed ``002_59993c7ffff01d56.txt``,
"Atomic writes"; spec ``aucx-archive.md`` section 3).  Every failure becomes
an :class:`ExportError` with a message naming the file and the reason, and a
failed export leaves no file behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from inspector.formats.auc_model import AucExperiment
from inspector.formats.document import FORMAT_AUCX, FORMAT_DELIMITED

#: ``progress(done, total, message)``: called as the export advances (3 steps).
ExportProgress = Callable[[int, int, str], None]

#: How many findings an :class:`ExportError` message lists at most.
MAX_LISTED = 5


class ExportError(Exception):
    """An export could not be done; the message says which file and why.

    Attributes:
        findings: the source's findings when the source was rejected (may be empty).
    """

    def __init__(self, message: str, findings: list | None = None) -> None:
        super().__init__(message)
        self.findings = list(findings or [])


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


def _describe(findings: list) -> str:
    errors = [f for f in findings if getattr(f, "severity", "error") == "error"]
    lines = [f"{f.location or '-'}: {f.message}" for f in errors[:MAX_LISTED]]
    more = len(errors) - MAX_LISTED
    if more > 0:
        lines.append(f"... and {more} more error(s)")
    return "; ".join(lines)


def load_source(source: str | os.PathLike[str] | AucExperiment) -> AucExperiment:
    """Load ``source`` into an experiment (archive: fully verified; delimited: strict import).

    Raises:
        ExportError: the source does not exist, is not an AUC source, or is
            rejected (the message lists its first errors).
    """
    if isinstance(source, AucExperiment):
        return source
    path = Path(source)
    if not path.exists():
        raise ExportError(f"{path}: no such file or folder")
    from inspector.formats.registry import sniff

    fmt = sniff(path)
    if fmt == FORMAT_AUCX:
        from inspector.formats.aucx import read_experiment

        try:
            return read_experiment(path)
        except ExportError:
            raise
        except Exception as exc:  # noqa: BLE001 - any reader failure is an invalid source
            findings = list(getattr(exc, "findings", []) or [])
            detail = _describe(findings) if findings else f"{type(exc).__name__}: {exc}"
            raise ExportError(f"{path.name}: not a valid AUCX archive: {detail}",
                              findings) from exc
    if fmt == FORMAT_DELIMITED:
        from inspector.formats.delimited import DelimitedError, load_delimited

        try:
            return load_delimited(path)
        except DelimitedError as exc:
            raise ExportError(f"{path.name}: not a valid AUC scan source: "
                              f"{_describe(exc.findings) or exc}", exc.findings) from exc
    raise ExportError(f"{path.name}: not an AUC source (expected an AUCX archive, or a "
                      "CSV/TSV scan table or folder with a manifest)")


def _check_dest(dest: Path, overwrite: bool, source: object) -> None:
    parent = dest.parent
    if not parent.is_dir():
        raise ExportError(f"{dest}: the destination folder {parent} does not exist")
    if dest.is_dir():
        raise ExportError(f"{dest}: the destination is a folder, not a file")
    if dest.exists() and not overwrite:
        raise ExportError(f"{dest}: already exists (use --overwrite to replace it)")
    if isinstance(source, str | os.PathLike) and dest.exists():
        try:
            if Path(source).exists() and os.path.samefile(source, dest):
                raise ExportError(f"{dest}: the destination is the source file itself")
        except OSError:
            pass


def export_to_aucx(
    source: str | os.PathLike[str] | AucExperiment,
    dest: str | os.PathLike[str],
    *,
    exported_at: str | datetime | None = None,
    overwrite: bool = False,
    progress: ExportProgress | None = None,
) -> Path:
    """Write ``source`` as a new AUCX archive at ``dest`` and return ``dest``.

    Args:
        source: an ``.aucx`` archive, a delimited source (folder, manifest or
            data file), or an :class:`AucExperiment`.
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
    experiment = load_source(source)
    if progress:
        progress(1, 3, "writing archive")
    from inspector.formats.aucx import write_aucx

    existed = dest_path.exists()
    try:
        written = write_aucx(experiment, dest_path, exported_at=when, overwrite=overwrite)
    except FileExistsError as exc:
        raise ExportError(f"{dest_path}: already exists (use --overwrite to replace it)") from exc
    except Exception as exc:  # noqa: BLE001 - every write failure is an export error
        if not existed and dest_path.exists():
            try:
                dest_path.unlink()
            except OSError:
                pass
        raise ExportError(f"{dest_path}: writing the archive failed: "
                          f"{type(exc).__name__}: {exc}") from exc
    if progress:
        progress(3, 3, "done")
    return Path(written)
