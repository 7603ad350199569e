"""Load a fully verified AUCX archive into the shared :class:`AucExperiment`.

Seed "Checksums": every digest is verified before any model is constructed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from inspector.formats.auc_model import AucExperiment
from inspector.formats.aucx.model import build_experiment
from inspector.formats.aucx.reader import open_archive
from inspector.formats.document import Finding


class ArchiveReadError(Exception):
    """The archive is not a valid AUCX 1.0 archive.

    ``findings`` holds every error finding (severity, code, message,
    member location).
    """

    def __init__(self, message: str, findings: list[Finding]) -> None:
        super().__init__(message)
        self.findings = findings


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
        ArchiveReadError: any error finding (listed in the message and in
            ``.findings``) or an incomplete verification.
    """
    allowed = set(tolerate)
    doc = open_archive(Path(path))
    try:
        doc.verify()
        errors = [f for f in doc.findings if f.severity == "error" and f.code not in allowed]
        if errors or not doc.verified:
            text = "; ".join(f"[{f.code}] {f.location or '-'}: {f.message}" for f in errors)
            raise ArchiveReadError(f"{Path(path).name} is not a valid AUCX 1.0 archive: "
                                   f"{text or 'verification incomplete'}", errors)
        exp = doc.extra.get("experiment")
        if exp is None:
            parts = doc.extra["aucx_parts"]
            exp = build_experiment(parts["experiment"], parts["import"], parts["observations"],
                                   doc.arrays["radius"].read(), doc.arrays["signal"].read(),
                                   doc.arrays["mask"].read())
        return exp
    finally:
        doc.close()
