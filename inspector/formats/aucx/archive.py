"""The public entry points of AUCX reading: open an archive, load a verified one.

:func:`open_archive` is :func:`.reader.read_archive` plus the export
capability (:class:`~inspector.formats.capabilities.ExperimentExport`), whose
``load`` is :func:`read_experiment`: an archive is exported only from its
fully verified bytes (AUCX 1.0 format document, "Checksums": every digest is verified before any
model is constructed).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path

from inspector.formats.auc.model import AucExperiment
from inspector.formats.aucx.model import build_experiment
from inspector.formats.aucx.reader import read_archive
from inspector.formats.capabilities import ExperimentExport
from inspector.formats.document import Document, Finding
from inspector.formats.remote.path import as_source


class ArchiveReadError(Exception):
    """The archive is not a valid AUCX 1.0 archive.

    ``findings`` holds every error finding (severity, code, message,
    member location).
    """

    def __init__(self, message: str, findings: list[Finding]) -> None:
        super().__init__(message)
        self.findings = findings


def open_archive(path: str | os.PathLike[str], *, overview_columns: int = 0) -> Document:
    """Open ``path`` as an AUCX archive; never raises for bad input.

    The document of :func:`.reader.read_archive`, plus ``export``: an
    :class:`ExperimentExport` whose ``load()`` returns :func:`read_experiment`
    ``(path)`` and raises :class:`ArchiveReadError` when the archive does not
    verify.  Call ``doc.verify()`` (or run ``doc.checks``) for the streamed
    checksum pass; with ``overview_columns`` above 0 it also builds the
    experiment's full-range envelopes (``doc.auc.overview``, :mod:`.overview`).
    Every read after opening refuses a file replaced or rewritten since
    (``file.changed``; :class:`~inspector.formats.sources.file_identity.FileChangedError`
    from the array reads and the export's ``load``).
    """
    doc, state = read_archive(as_source(path), overview_columns=overview_columns)
    if state is not None:  # the export reads this document's snapshot, or refuses
        doc.export = ExperimentExport(doc.summary.get("experiment_id"),
                                functools.partial(read_experiment, state.path))
    return doc


def read_experiment(path: str | os.PathLike[str],
                    tolerate: Iterable[str] = ()) -> AucExperiment:
    """Open, fully verify and load ``path``.

    Args:
        path: an ``.aucx`` file.
        tolerate: finding codes accepted as if they were warnings (e.g.
            ``"checksums.digest-not-lowercase"`` to load an archive whose
            digests are upper-case hex but otherwise verify).

    Returns:
        The experiment with the archive's import provenance unchanged and
        arrays normalised (float64; per-scan rows compacted left).

    Raises:
        ArchiveReadError: any integrity error finding (listed in the message
            and in ``.findings``) or an incomplete verification.  Errors in
            the experiment's structure do not prevent reading it.
    """
    allowed = set(tolerate)
    doc, state = read_archive(as_source(path))
    try:
        doc.verify()
        # integrity only: the experiment's structure is a separate verdict
        errors = [f for f in doc.findings if f.severity == "error"
                  and f.scope == "integrity" and f.code not in allowed]
        if errors or not doc.verified or state is None or state.model is None:
            text = "; ".join(f"[{f.code}] {f.location or '-'}: {f.message}" for f in errors)
            raise ArchiveReadError(f"{Path(path).name} is not a valid AUCX 1.0 archive: "
                                   f"{text or 'verification incomplete'}", errors)
        if doc.auc is not None and doc.auc.experiment is not None:
            return doc.auc.experiment
        parts = state.model
        return build_experiment(dict(parts.experiment),
                                dict(parts.imported) if parts.imported is not None else None,
                                dict(parts.observations),
                                doc.arrays["radius"].read(), doc.arrays["signal"].read(),
                                doc.arrays["mask"].read())
    finally:
        doc.close()
