"""The format-independent result of opening a file: a :class:`Document`.

Every reader registered in :mod:`inspector.formats.registry` turns a path
into a ``Document``.  The GUI (through :mod:`inspector.models`) and the
headless ``inspector verify`` command both consume it, so they report exactly
the same findings (docs/architecture.md, "Contracts").  A document says what
it offers through typed capabilities (:mod:`.capabilities`); views are chosen
by capability, never by format name.  Nothing here imports Qt.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.formats.capabilities import (
    MEMBER_STATUSES,
    ArchiveMembers,
    AucScans,
    CancelFn,
    CheckResult,
    ChecksumTable,
    DeferredCheck,
    ExperimentExport,
    ExperimentGroups,
    FormatMismatch,
    MemberCheck,
    MemberStatus,
    ObjectData,
    Progress,
    ProgressFn,
    Stimulus,
    StimulusFeatures,
    TrialStructure,
)
from inspector.formats.findings import SEVERITIES, Finding, Findings, Rule, Scope, Severity
from inspector.formats.nodes.node import Node
from inspector.formats.sources.file_identity import FILE_CHANGED, FileChangedError

if TYPE_CHECKING:
    from inspector.formats.analysis.arrays import ArrayRef
    from inspector.formats.auc.structure import AucStructure
    from inspector.formats.table import Table

__all__ = [
    "FORMAT_AUCX", "FORMAT_DELIMITED", "FORMAT_RECORDING", "FORMAT_UNKNOWN", "MEMBER_STATUSES",
    "SEVERITIES", "AucScans", "ExperimentExport", "CancelFn", "CheckResult", "ChecksumTable",
    "DeferredCheck", "Document", "Finding", "Findings", "FormatId", "FormatMismatch",
    "MemberCheck",
    "MemberStatus", "Node", "ObjectData", "Progress", "ProgressFn", "Rule", "Scope", "Severity",
    "Stimulus", "TrialStructure",
]


class FormatId(StrEnum):
    """Format identifiers of ``Document.format`` and ``verify --json``."""

    RECORDING = "vneurotk-recording"
    AUCX = "aucx"
    DELIMITED = "auc-delimited"
    BECKMAN = "beckman-xl"
    HDF5 = "hdf5"
    UNKNOWN = "unknown"


FORMAT_RECORDING = FormatId.RECORDING
FORMAT_AUCX = FormatId.AUCX
FORMAT_DELIMITED = FormatId.DELIMITED
FORMAT_UNKNOWN = FormatId.UNKNOWN


@dataclass
class Document:
    """Everything the inspector knows about one opened file.

    Built by :func:`inspector.formats.open_document`; never raises for bad
    input: problems are :class:`Finding` objects in :attr:`findings`.

    Attributes:
        path: the file (or folder, for delimited sources) that was opened.
        format: see :class:`FormatId`.
        kind_label: what the file is, for titles (``"VneuroTK recording"``).
        tree_title: the title of the raw structure view (``"HDF5 objects"``).
        findings: the collector of every finding, in discovery order.
        summary: the JSON-ready facts of ``inspector verify --json`` only;
            views never read it (they read the capabilities below).
        header: the summary tree (format, versions, modes, array facts).
        tree: the raw structure: HDF5 object tree or archive member list.
        provenance: provenance tree (vision records, import/export records).
        tables: named :class:`~inspector.formats.table.Table` objects (``"trial_meta"``,
            ``"scans"``, ``"groups"``).
        table_locations: the file location of each table, for findings.
        arrays: named lazy :class:`ArrayRef` objects for plotting.
        features: the arrays of one row per stimulus (no time axis), each
            one of :attr:`arrays`.
        stimuli: stimulus images.
        checksums: the checksum table, for archives.
        trials: the trial structure, for recordings.
        auc: the AUC experiment, for AUC documents.
        export: how to export the document to AUCX, when it can be.
        structure: the structural validation, readiness and summary of the
            AUC experiment inside (AUC documents).
        groups: the other experiments of the same source, when it holds several.
        object_data: the values of any dataset or attribute of ``tree``, for
            documents whose tree has stored values (HDF5 files).
        member_data: the members of an archive, each read once its digest
            verified (``inspector dump ARCHIVE::member``).
        mismatch: set when the file is a readable container of another kind
            than the format the findings check (see :class:`FormatMismatch`).
        structure_unchecked: why the structure of the AUC experiment inside
            has not been checked (yet), or None when it was (or the document
            holds no AUC experiment to check); :attr:`structure_ok` is then None.
        checks: deferred checks still to run (see :meth:`verify`, :meth:`apply`).
        traceback: the traceback of a reader bug (``internal.reader-failed``).
        snapshot_check: raises :class:`~.file_identity.FileChangedError` when the
            path no longer names the file opened (replaced, rewritten, removed),
            for documents that read their file after opening; None otherwise
            (see :meth:`changed_on_disk`).
    """

    path: Path
    format: str = FORMAT_UNKNOWN
    kind_label: str = "Unrecognised file"
    tree_title: str = "Structure"
    findings: Findings = field(default_factory=Findings)
    summary: dict[str, Any] = field(default_factory=dict)
    header: Node = field(default_factory=lambda: Node("header", kind="group"))
    tree: Node | None = None
    provenance: Node | None = None
    tables: dict[str, Table] = field(default_factory=dict)
    table_locations: dict[str, str] = field(default_factory=dict)
    arrays: dict[str, ArrayRef] = field(default_factory=dict)
    stimuli: list[Stimulus] = field(default_factory=list)
    features: list[StimulusFeatures] = field(default_factory=list)
    checksums: ChecksumTable | None = None
    trials: TrialStructure | None = None
    auc: AucScans | None = None
    export: ExperimentExport | None = None
    structure: AucStructure | None = None
    groups: ExperimentGroups | None = None
    object_data: ObjectData | None = None
    member_data: ArchiveMembers | None = None
    mismatch: FormatMismatch | None = None
    structure_unchecked: str | None = None
    checks: list[DeferredCheck] = field(default_factory=list)
    traceback: str | None = None
    snapshot_check: Callable[[], None] | None = None
    _check_findings: dict[int, tuple[Finding, ...]] = field(default_factory=dict, repr=False)
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)

    # -- findings -------------------------------------------------------
    def report(self, rule: Rule, message: str, location: str = "") -> Finding:
        """Record a finding of ``rule`` (shorthand for ``findings.report``)."""
        return self.findings.report(rule, message, location)

    def file_findings(self) -> list[Finding]:
        """The findings about the file itself, in discovery order.

        Every finding, except, when the file is of another kind than the
        format checked (:attr:`mismatch`), those that only say it is not of
        that format.  What the window's tab icon and failure page go by;
        ``verify`` and the Findings dock list every finding.
        """
        codes = self.mismatch.codes if self.mismatch is not None else frozenset()
        return [f for f in self.findings if f.code not in codes]

    def changed_on_disk(self) -> str | None:
        """Why the file is no longer the one this document opened (the message of a
        ``file.changed`` finding), or None when it still is or cannot tell.

        Only asks the file system for the file's status (no read); any thread.
        """
        if self.snapshot_check is None:
            return None
        try:
            self.snapshot_check()
        except FileChangedError as exc:
            return str(exc)
        return None

    def note_changed(self, message: str) -> Finding | None:
        """Record the ``file.changed`` finding (once; owning thread); the new finding,
        or None when it was recorded before."""
        if any(f.code == FILE_CHANGED.code for f in self.findings):
            return None
        return self.report(FILE_CHANGED, message)

    @property
    def ok(self) -> bool:
        """True exactly when there is no error of scope ``integrity``: the file
        is readable, safe and follows its format (for an archive: every
        member verifies; for a source: it imports cleanly)."""
        return not self.findings.has_errors_in(Scope.INTEGRITY)

    @property
    def structure_ok(self) -> bool | None:
        """True when no error of scope ``structure`` or ``validation`` was found:
        the experiment inside is consistent (AUCX format document, "Inspection
        and validation": a separate verdict from integrity).  None when it was
        not checked (:attr:`structure_unchecked` says why), and for a file that was
        not read as any format (not found, unrecognised, unreadable; its findings say
        why): never a verdict without the check."""
        if self.structure_unchecked is not None or self.format == FORMAT_UNKNOWN:
            return None
        return not self.findings.has_errors_in(Scope.STRUCTURE, Scope.VALIDATION)

    @property
    def name(self) -> str:
        """The file or folder name (the whole path when it has none)."""
        return self.path.name or str(self.path)

    # -- deferred checks --------------------------------------------------
    @property
    def verified(self) -> bool:
        """True when no deferred check is still pending."""
        return not self.checks

    @property
    def members(self) -> tuple[MemberCheck, ...]:
        """The checksum table's rows (empty when the document has none)."""
        return self.checksums.members if self.checksums is not None else ()

    def offers_array(self, ref: ArrayRef | None) -> bool:
        """True when ``ref`` is one of :attr:`arrays` (not withdrawn by a check)."""
        return ref is not None and any(a is ref for a in self.arrays.values())

    def offers_table(self, table: Table | None) -> bool:
        """True when ``table`` is one of :attr:`tables` (not withdrawn by a check)."""
        return table is not None and any(t is table for t in self.tables.values())

    def neural_array(self) -> ArrayRef | None:
        """The array the trials cut (``trials.neural``) while it is offered, else None."""
        ref = self.trials.neural if self.trials is not None else None
        return ref if self.offers_array(ref) else None

    def trial_table(self) -> Table | None:
        """The table of one row per trial (``trials.table``) while it is offered, else None."""
        table = self.trials.table if self.trials is not None else None
        return table if self.offers_table(table) else None

    def features_of(self, ref: ArrayRef) -> StimulusFeatures | None:
        """The :class:`StimulusFeatures` declared for ``ref``, or None."""
        return next((f for f in self.features if f.array is ref), None)

    def apply(self, check: DeferredCheck, result: CheckResult) -> None:
        """Apply what ``check`` found; call from the thread that owns the document.

        A complete result retires ``check``; a cancelled one keeps it pending.
        The findings of an earlier result of the same check are replaced.
        """
        self.findings.withdraw(self._check_findings.pop(id(check), ()))
        self._check_findings[id(check)] = result.findings
        self.findings.extend(result.findings)
        if result.checksums is not None:
            self.checksums = result.checksums
        self.summary.update(result.summary)
        if result.header is not None:
            self.header = result.header
        for name in result.withdraw_tables:
            self.tables.pop(name, None)
            self.table_locations.pop(name, None)
        for name in result.withdraw_arrays:
            self.arrays.pop(name, None)
        if result.withdraw_auc:
            self.auc = None
            self.export = None
            self.structure = None
        elif result.auc is not None:
            self.auc = result.auc
        if result.trials is not None:
            self.trials = result.trials
        if result.structure is not None:
            self.structure = result.structure
            self.structure_unchecked = None
        elif result.structure_unchecked is not None:
            self._withdraw_structure()
            self.structure_unchecked = result.structure_unchecked
        if result.complete and check in self.checks:
            self.checks.remove(check)

    def _withdraw_structure(self) -> None:
        """Take back a structural verdict given at open (a later check found that the
        members it was judged on do not verify): its findings and summary go."""
        if self.structure is None:
            return
        self.findings.withdraw(self.structure.findings)
        self.summary.pop("structure", None)
        self.summary.pop("readiness", None)
        self.structure = None

    def verify(self, progress: ProgressFn | None = None, cancelled: CancelFn | None = None) -> None:
        """Run every pending deferred check here and apply its result (headless path).

        Safe to call more than once: later calls do nothing once all checks
        have completed.
        """
        for check in list(self.checks):
            result = check.run(progress, cancelled)
            self.apply(check, result)
            if not result.complete:
                return

    # -- lifetime -------------------------------------------------------
    def on_close(self, fn: Callable[[], None]) -> None:
        """Register a callable run by :meth:`close` (e.g. closing an h5py file)."""
        self._closers.append(fn)

    def close(self) -> None:
        """Release file handles. Idempotent."""
        while self._closers:
            fn = self._closers.pop()
            try:
                fn()
            except Exception:  # noqa: BLE001 - closing must never raise
                pass

    def __enter__(self) -> Document:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- JSON -----------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The ``verify --json`` object for this document (texts shortened, see
        :func:`~inspector.formats.values.report_bounds.bounded`)."""
        from inspector.formats.values.report_bounds import bounded

        return bounded({
            "path": os.fspath(self.path),
            "format": str(self.format),
            "ok": self.ok,
            "structure_ok": self.structure_ok,
            "findings": [f.to_json() for f in self.findings],
            "summary": self.summary,
        })
