"""The format-independent result of opening a file: a :class:`Document`.

Every reader in :mod:`inspector.formats` turns a path into a ``Document``.
The GUI (through :mod:`inspector.models`) and the headless ``inspector verify``
command both consume it, so they report exactly the same findings (DESIGN.md,
"Contracts").  Nothing here imports Qt.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from inspector.formats.arrays import ArrayRef

#: Severities, most severe first.
SEVERITIES = ("error", "warning", "info")

#: Format identifiers used in ``Document.format`` and in ``verify --json``.
FORMAT_RECORDING = "vneurotk-recording"
FORMAT_AUCX = "aucx"
FORMAT_DELIMITED = "auc-delimited"
FORMAT_UNKNOWN = "unknown"


@dataclass(frozen=True)
class Finding:
    """One problem or remark about a file.

    Attributes:
        severity: ``"error"`` (the file breaks a rule; the document is not ok),
            ``"warning"`` (readable but suspicious) or ``"info"``.
        code: short stable identifier, e.g. ``"header.missing-writer-version"``.
        message: one sentence naming the rule broken and its source.
        location: where in the file: an HDF5 path (``"/neuro"``), an archive
            member (``"arrays/mask.npy"``) or ``"file:line"`` for text sources;
            ``""`` for the file as a whole.
    """

    severity: str
    code: str
    message: str
    location: str = ""

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")

    def to_json(self) -> dict[str, str]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "location": self.location,
        }


@dataclass
class Node:
    """A node of a display tree (header, raw object tree, provenance).

    Attributes:
        name: label shown in the first column.
        value: a Python value shown in the value column (``None`` for a pure
            container). Typed values keep their Python type so that an int
            ``1`` and a str ``"1"`` can be shown differently.
        kind: what the node is: ``"group"``, ``"dataset"``, ``"attribute"``,
            ``"field"``, ``"member"``, ``"link"``, ...
        location: the file location it stands for (same vocabulary as
            :attr:`Finding.location`), used to jump from a finding to a node.
        detail: short extra text (shape/dtype/chunking for a dataset).
        children: child nodes, in display order.
    """

    name: str
    value: Any = None
    kind: str = "field"
    location: str = ""
    detail: str = ""
    children: list[Node] = field(default_factory=list)

    def add(self, name: str, value: Any = None, **kw: Any) -> Node:
        """Append and return a child node."""
        child = Node(name, value, **kw)
        self.children.append(child)
        return child

    def walk(self):
        """Yield this node and every descendant, depth first."""
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, location: str) -> Node | None:
        """Return the first node whose ``location`` equals ``location``."""
        for n in self.walk():
            if n.location == location:
                return n
        return None


#: Member statuses of an archive's checksum table (issue 4).
MEMBER_STATUSES = (
    "pending",
    "ok",
    "mismatch",
    "missing-member",
    "unlisted",
    "malformed-entry",
    "duplicate-entry",
    "cancelled",
    # a member that failed a ZIP safety check and was never decompressed
    "refused",
)


@dataclass
class MemberCheck:
    """One row of an archive's checksum table.

    ``recorded`` is the digest in ``checksums.sha256`` (None if unlisted);
    ``computed`` the streamed SHA-256 of the member (None until hashed or if
    the member is missing); ``status`` one of :data:`MEMBER_STATUSES`.
    """

    name: str
    recorded: str | None
    computed: str | None = None
    status: str = "pending"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "recorded": self.recorded,
            "computed": self.computed,
            "status": self.status,
        }


@dataclass
class Stimulus:
    """A stimulus image, decoded on demand.

    ``stim_id`` keeps its Python type (int, str, float...). ``kind`` is the
    stored kind (``array``, ``image_bytes``, ``path``). ``load`` returns an
    ``(H, W)`` or ``(H, W, C)`` uint8/float array, raising ``OSError`` or
    ``ValueError`` when the image cannot be decoded or found.
    """

    stim_id: Any
    kind: str
    location: str
    load: Callable[[], Any]


#: ``progress(done, total, member_check)`` during verification.
ProgressFn = Callable[[int, int, MemberCheck | None], None]
CancelFn = Callable[[], bool]


@dataclass
class Document:
    """Everything the inspector knows about one opened file.

    Built by :func:`inspector.formats.open_document`; never raises for bad
    input: problems are :class:`Finding` objects in :attr:`findings`.

    Attributes:
        path: the file (or folder, for delimited sources) that was opened.
        format: one of ``"vneurotk-recording"``, ``"aucx"``,
            ``"auc-delimited"``, ``"unknown"``.
        findings: every problem found, in discovery order.
        summary: the JSON-ready facts of ``inspector verify --json`` (issue 2
            item 5; key names of the corpus ``expected.json`` files).
        header: the summary tree (format, versions, modes, array facts).
        tree: the raw structure: HDF5 object tree or archive member list.
        provenance: provenance tree (vision records, import/export records).
        tables: named ``pandas.DataFrame`` objects (``"trial_meta"``,
            ``"scans"``...).
        arrays: named lazy :class:`ArrayRef` objects for plotting.
        members: the checksum table (archives only).
        stimuli: stimulus images (recordings only).
        verifier: for formats with a deferred streaming check (AUCX checksums),
            a callable ``verifier(progress, cancelled)`` that fills in
            :attr:`members` and appends findings; None otherwise.  Until it has
            run, :attr:`verified` is False and nothing is reported verified.
        extra: format-specific objects for views (e.g. AUC experiment model).
    """

    path: Path
    format: str = FORMAT_UNKNOWN
    findings: list[Finding] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    header: Node = field(default_factory=lambda: Node("header", kind="group"))
    tree: Node | None = None
    provenance: Node | None = None
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    arrays: dict[str, ArrayRef] = field(default_factory=dict)
    members: list[MemberCheck] = field(default_factory=list)
    stimuli: list[Stimulus] = field(default_factory=list)
    verifier: Callable[[ProgressFn | None, CancelFn | None], None] | None = None
    verified: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)

    # -- findings -------------------------------------------------------
    def error(self, code: str, message: str, location: str = "") -> Finding:
        """Record and return an error finding."""
        return self._add("error", code, message, location)

    def warning(self, code: str, message: str, location: str = "") -> Finding:
        """Record and return a warning finding."""
        return self._add("warning", code, message, location)

    def info(self, code: str, message: str, location: str = "") -> Finding:
        """Record and return an info finding."""
        return self._add("info", code, message, location)

    def _add(self, severity: str, code: str, message: str, location: str) -> Finding:
        f = Finding(severity, code, message, location)
        self.findings.append(f)
        return f

    @property
    def ok(self) -> bool:
        """True exactly when there is no error finding (issue 2 item 5)."""
        return not any(f.severity == "error" for f in self.findings)

    @property
    def name(self) -> str:
        return self.path.name or str(self.path)

    # -- verification ---------------------------------------------------
    def verify(self, progress: ProgressFn | None = None, cancelled: CancelFn | None = None) -> None:
        """Run the deferred verification (if any) to completion.

        Safe to call more than once: later calls do nothing.
        """
        if self.verifier is not None and not self.verified:
            self.verifier(progress, cancelled)

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
        """The ``verify --json`` object for this document (issue 2 item 5)."""
        return {
            "path": os.fspath(self.path),
            "format": self.format,
            "ok": self.ok,
            "findings": [f.to_json() for f in self.findings],
            "summary": self.summary,
        }
