"""What opening an AUCX archive learned, frozen for the deferred verification.

:class:`OpenedArchive` is built once at the end of opening and never changed
afterwards; :class:`~.verify.ArchiveVerification` reads it on a worker
thread while the document it was opened for stays with the thread that owns
it (docs/architecture.md, "Deferred work").  Mappings are read-only views
of dicts that nothing else holds; the parsed JSON values it keeps (for
rebuilding the header tree and the experiment model) are never modified by
anyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from inspector.formats.aucx.npyfmt import NpyHeader
from inspector.formats.aucx.zipscan import ZipScan
from inspector.formats.capabilities import AucScans, MemberCheck

#: ``verify --json`` lists at most this many checksum rows in ``members``;
#: a longer table ends with one marker ``{"omitted": n}`` (an AUCX archive
#: has 7 members; a hostile one may have tens of thousands).
MAX_SUMMARY_MEMBERS = 1000

#: How a member is listed in ``checksums.sha256``.
LISTED = "listed"
MALFORMED = "malformed-entry"
DUPLICATE = "duplicate-entry"


def frozen_map(values: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only view of a private copy of ``values``."""
    return MappingProxyType(dict(values))


@dataclass(frozen=True)
class HeaderParts:
    """The parsed values the header tree is built from (see :func:`.trees.header_tree`).

    Attributes:
        manifest: the ``manifest.json`` object, or None when unreadable.
        export: the export record of ``provenance.json`` (timestamps
            normalised), or None.
        metadata: the ``metadata`` object of ``experiment.json``, or None.
    """

    manifest: Mapping[str, Any] | None = None
    export: Mapping[str, Any] | None = None
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ModelParts:
    """The parsed parts :func:`.model.build_experiment` needs besides the arrays.

    Attributes:
        experiment: the ``experiment.json`` object.
        imported: the ``import`` object of ``provenance.json``, or None.
        observations: the manifest's ``observations`` block with a usable ``mode``.
    """

    experiment: Mapping[str, Any]
    imported: Mapping[str, Any] | None
    observations: Mapping[str, Any]


@dataclass(frozen=True)
class OpenedArchive:
    """Everything the streamed verification needs, as opening left it.

    Attributes:
        path: the archive.
        scan: its ZIP directory (entries and their safety verdicts).
        rows: the checksum table as opened: one ``pending`` row per member
            name (archive order, then names only ``checksums.sha256`` lists).
        listed: member name -> lowercase digest recorded for it (well-formed
            lines and upper-case-hex lines).
        line_status: member name -> :data:`LISTED`, :data:`MALFORMED` or
            :data:`DUPLICATE`, for every name ``checksums.sha256`` mentions.
        checksum_present: the archive has a ``checksums.sha256`` member.
        mode: the radius axis mode (``"shared"``/``"per_scan"``), or None.
        headers: ``"radius"``/``"signal"``/``"mask"`` -> parsed ``.npy`` header
            (only those that passed the header checks).
        header_parts: what the header tree is rebuilt from.
        model: what the experiment model is built from, or None.
        auc: the ``AucScans`` capability as opened, or None.
        opened_ok: opening found no error.
        structure_deferred: the structure was not checked at open (arrays too
            large to read whole); the verification folds them in row blocks.
    """

    path: Path
    scan: ZipScan
    rows: tuple[MemberCheck, ...]
    listed: Mapping[str, str]
    line_status: Mapping[str, str]
    checksum_present: bool
    mode: str | None
    headers: Mapping[str, NpyHeader]
    header_parts: HeaderParts
    model: ModelParts | None
    auc: AucScans | None
    opened_ok: bool
    structure_deferred: bool = False


def members_summary(rows: tuple[MemberCheck, ...] | list[MemberCheck]) -> list[dict[str, Any]]:
    """The ``verify --json`` ``members`` list: one object per row (see
    :meth:`MemberCheck.to_json`), at most :data:`MAX_SUMMARY_MEMBERS`, then
    ``{"omitted": n}`` when ``n`` rows were left out."""
    out: list[dict[str, Any]] = [m.to_json() for m in rows[:MAX_SUMMARY_MEMBERS]]
    if len(rows) > MAX_SUMMARY_MEMBERS:
        out.append({"omitted": len(rows) - MAX_SUMMARY_MEMBERS})
    return out
