"""Open an AUCX 1.0 archive as a :class:`Document`.

Order of work (AUCX on-disk notes §4, but never stopping at the first
problem):

1. ZIP central directory and local headers, safety checks, nothing
   decompressed (:mod:`.zipscan`).
2. ``checksums.sha256`` parsed line by line; listed-but-missing and unlisted
   members reported (:mod:`.checksums`).
3. ``manifest.json``: JSON object, ``aucx_format_version == "1.0"``, parts,
   observations block; members outside the parts.
4. ``experiment.json`` / ``provenance.json`` (small JSON, bounded read).
5. ``.npy`` headers of the three arrays (only their first bytes are
   inflated): pickled/object dtype, dtype kinds, ndim, shapes against the
   manifest and each other, scan count against ``scan_ids``
   (:mod:`.arraycheck`).

Checksums and array contents are checked by the deferred streaming
verification (:class:`~.verify.ArchiveVerification`, in ``doc.checks``), so
the document opens with every checksum row ``pending`` and ``doc.verified``
False.  Every problem is a finding of a rule in :mod:`.rules`, located at the
member it concerns; messages never name the archive (the text report adds
it).  Nothing is ever extracted to disk.  Unexpected exceptions are not
caught here: the registry's one wrapper reports them as reader bugs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspector.formats.auc.model import AucExperiment, summary_list
from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.auc.structure import aucx_location, examine_facts, publish
from inspector.formats.aucx import arraycheck
from inspector.formats.aucx import layout as L
from inspector.formats.aucx import rules as R
from inspector.formats.aucx.arraycheck import short
from inspector.formats.aucx.checksums import ChecksumFile, parse_checksums
from inspector.formats.aucx.jsonmember import parse_json_member
from inspector.formats.aucx.jsonstream import parse_experiment_stream
from inspector.formats.aucx.members import archive_members
from inspector.formats.aucx.model import build_experiment, scan_records, scans_table
from inspector.formats.aucx.modelcheck import (
    experiment_problems,
    finite,
    observations_problems,
    openauc_int,
    openauc_scan_ids,
    provenance_problems,
    shown,
)
from inspector.formats.aucx.npyfmt import NpyHeader
from inspector.formats.aucx.overview import overview_plan
from inspector.formats.aucx.state import (
    DUPLICATE,
    LISTED,
    MALFORMED,
    HeaderParts,
    ModelParts,
    OpenedArchive,
    frozen_map,
    members_summary,
)
from inspector.formats.aucx.stream import read_member
from inspector.formats.aucx.structure import facts_in_memory
from inspector.formats.aucx.trees import header_tree, member_tree, provenance_tree
from inspector.formats.aucx.verify import ArchiveVerification
from inspector.formats.aucx.zipscan import ZipEntry, ZipScan, scan_zip, unsafe_name_reason
from inspector.formats.capabilities import AucScans, ChecksumTable, MemberCheck
from inspector.formats.document import FORMAT_AUCX, Document
from inspector.formats.findings import Rule, Scope, Severity
from inspector.formats.remote.path import RemotePath, as_source
from inspector.formats.sources.file_identity import FILE_CHANGED, FileChangedError, snapshot_path

#: Largest ``manifest.json`` / ``provenance.json`` parsed, in bytes.  Real
#: ones are about 1 KiB; the manifest lists every scan id (a million scans: about
#: 18 MiB), the provenance one source checksum per Beckman scan file (100 000
#: files: about 25 MiB); larger members are reported (``member.too-large``) and
#: not parsed.  Parsing 32 MiB of hostile JSON (a list of floats) takes about 300 MB.
JSON_MEMBER_LIMIT = 32 << 20
#: Largest ``experiment.json`` parsed: it grows by about 1 KiB per scan
#: (10 000 scans: 9 MiB; open + verify 2.6 s, 120 MB resident).  Parsing
#: JSON can take ~20 bytes of memory per byte of text, so the limit also
#: bounds memory (16 MiB of hostile JSON: about 300 MB).
EXPERIMENT_MEMBER_LIMIT = 16 << 20
#: Largest ``experiment.json`` read at all (openauc 0.1.0a1's member limit, 512 MiB:
#: about a million scans); one above :data:`EXPERIMENT_MEMBER_LIMIT` is parsed as it
#: inflates, one value at a time (:mod:`.jsonstream`), its scans straight into columns.
EXPERIMENT_STREAM_LIMIT = 512 << 20
#: Largest ``checksums.sha256`` parsed (7 lines of ~80 bytes in practice).
CHECKSUM_MEMBER_LIMIT = 4 << 20
#: Most ``[`` and ``{`` a JSON member may contain: bounds the objects built
#: by parsing (10 000 scans need about 90 000).
MAX_JSON_CONTAINERS = 1_000_000
_LIMITS = {L.MANIFEST: JSON_MEMBER_LIMIT, L.PROVENANCE: JSON_MEMBER_LIMIT,
           L.EXPERIMENT: EXPERIMENT_STREAM_LIMIT, L.CHECKSUMS: CHECKSUM_MEMBER_LIMIT}
#: Arrays totalling at most this many bytes are loaded into
#: ``doc.auc.experiment`` at open; larger ones stay lazy only.  The same
#: bound decides where the structure is checked: radius and mask of at most
#: this many bytes are read whole at open, larger ones are folded in row
#: blocks by the deferred verification (:mod:`.structure`).
EXPERIMENT_LOAD_LIMIT = 8 << 20
#: When the experiment is not loaded (its arrays are over
#: :data:`EXPERIMENT_LOAD_LIMIT`), radius and mask of at most this many bytes (and
#: of at most that limit) are read whole at open for the structure; larger ones are
#: folded by the deferred verification, so that opening does not hold them.
STRUCTURE_READ_LIMIT = 1 << 20
#: Integrity errors that leave every part the structure is read from as the
#: reference reads it (openauc loads archives whose digests are upper-case hex).
_STRUCTURE_NEUTRAL = frozenset({R.CHECKSUMS_DIGEST_NOT_LOWERCASE.code})
#: ``Document.structure_unchecked`` while the verification has not run yet.
DEFERRED_NOTE = "the structure is checked while the archive is verified"

#: ``Document.kind_label`` and ``Document.tree_title`` of an archive.
KIND_LABEL = "AUCX archive"
TREE_TITLE = "Archive members"


@dataclass
class _Opening:
    """What opening has learned so far (private; frozen into an
    :class:`OpenedArchive` at the end)."""

    doc: Document
    path: Path
    scan: ZipScan
    recorded: dict[str, str | None] = field(default_factory=dict)
    checksums: ChecksumFile | None = None
    checksum_present: bool = False
    listed: dict[str, str] = field(default_factory=dict)
    line_status: dict[str, str] = field(default_factory=dict)
    manifest: dict[str, Any] | None = None
    mode: str | None = None
    headers: dict[str, NpyHeader] = field(default_factory=dict)
    experiment: dict[str, Any] | None = None
    imported: dict[str, Any] | None = None
    export: dict[str, Any] | None = None

    def report(self, rule: Rule, message: str, location: str = "") -> None:
        self.doc.report(rule, message, location)

    @property
    def observations(self) -> dict[str, Any]:
        block = (self.manifest or {}).get("observations")
        return block if isinstance(block, dict) else {}

    def duplicate(self, member: str) -> bool:
        e = self.scan.first(member)
        return e is not None and e.duplicate


def _summary_defaults() -> dict[str, Any]:
    """The ``verify --json`` facts before anything is known (reference ``info`` keys)."""
    return {"aucx_format_version": None, "radius_axis_mode": None, "n_scans": 0,
            "n_points": 0, "scan_ids": [], "radius_unit": None, "signal_unit": None,
            "experiment_id": None, "export": None, "members": [],
            "checksum_verified": False}


def read_archive(path: Path, *, overview_columns: int = 0,
                 with_table: bool = True) -> tuple[Document, OpenedArchive | None]:
    """Open ``path`` as an AUCX archive; never raises for bad input.

    Returns the :class:`Document` (format ``"aucx"``) and what opening
    learned (None when the ZIP could not be read at all).  The document has
    The file's identity is noted when the ZIP directory is read, and every
    later read of this document (array reads, member streams, the deferred
    verification, the export's load) refuses another file or a rewritten one
    (:mod:`inspector.formats.sources.file_identity`: ``file.changed``).

    ``header``, ``tree`` (members), ``provenance`` (import and export
    subtrees), ``tables["scans"]`` (located at ``experiment.json``), lazy
    ``arrays`` (``radius``, ``signal``, ``mask``), ``checksums`` (every row
    ``pending``, not verified), ``auc`` (scan ids, units, the experiment
    when small and safe), ``summary`` (the reference ``info`` keys plus
    ``members`` and ``checksum_verified``) and ``checks`` (the streamed
    checksum and content verification; with ``overview_columns`` above 0 it
    also builds ``doc.auc.overview``, :mod:`.overview`).  ``with_table=False`` leaves
    out ``tables["scans"]`` (the export's read-back: a million scans' table is a view
    no verdict rests on).  Rules: AUCX 1.0 format document
    ("Safety", "Checksums", "Structure", "Both radius modes") and AUCX
    on-disk notes §4; see :mod:`.rules`.
    """
    p = as_source(path)
    doc = Document(p, format=FORMAT_AUCX, kind_label=KIND_LABEL, tree_title=TREE_TITLE)
    doc.summary = _summary_defaults()
    if not p.is_file():
        doc.report(R.FILE_NOT_FOUND, "no such file (or not a regular file)")
        _not_checked(doc, "the file could not be read")
        return doc, None
    if not isinstance(p, RemotePath):  # one snapshot per document
        p = snapshot_path(p)
        doc.snapshot_check = p.check
    scan = scan_zip(p)
    doc.findings.extend(scan.problems)
    doc.tree = member_tree(scan)
    if scan.fatal or not scan.entries:
        _not_checked(doc, "the archive's ZIP directory could not be read")
        return doc, None
    op = _Opening(doc, p, scan, recorded=dict.fromkeys(scan.names))
    _checksums(op)
    _manifest(op)
    _payload_json(op)
    _arrays(op)
    return doc, _finish(op, overview_columns, with_table)


# -- reading small members -------------------------------------------------------
def _read_small(op: _Opening, name: str) -> bytes | None:
    """The bytes of a JSON or checksum member, or None (with a finding).

    Members declaring more than their limit (:data:`_LIMITS`) are not
    inflated: an AUCX metadata member is a few KiB, and parsing is the only
    step whose memory grows with the member.
    """
    e = op.scan.first(name)
    if e is None or not e.safe:
        return None
    limit = _LIMITS[name]
    if e.file_size > limit:
        op.report(R.MEMBER_TOO_LARGE,
                  f"{name} declares {e.file_size} bytes, more than the {limit} bytes "
                  f"({limit >> 20} MiB) read for this member; it is not parsed (AUCX metadata "
                  "members are a few KiB)", name)
        return None
    why: str | None
    try:
        data, why = read_member(op.path, e, limit)
    except FileChangedError as exc:  # replaced or rewritten since the scan
        op.report(FILE_CHANGED, str(exc))
        return None
    except OSError as exc:  # the archive vanished or cannot be read since the scan
        data, why = None, exc.strerror or type(exc).__name__
    if data is None:
        op.report(R.MEMBER_UNREADABLE, f"{name} could not be read: {why}", name)
    return data


def _parse_json(op: _Opening, member: str, raw: bytes, rule: Rule) -> tuple[bool, Any]:
    """Parse a JSON member (:func:`.jsonmember.parse_json_member`, NaN and Infinity
    read as openauc reads them, with a ``json.non-finite-number`` warning):
    ``(True, value)``, or ``(False, None)`` with a finding of ``rule`` at the
    member when it is unacceptable."""
    containers = raw.count(b"[") + raw.count(b"{")
    why: str | None
    notes: list[str] = []
    if containers > MAX_JSON_CONTAINERS:
        value, why = None, (f"it holds {containers} arrays/objects, more than the "
                            f"{MAX_JSON_CONTAINERS} parsed (AUCX metadata has a few per scan)")
    else:
        value, why = parse_json_member(raw, notes)
    if why is not None:
        op.report(rule, f"{member} is not valid JSON: {why}", member)
        return False, None
    for note in notes:
        op.report(R.JSON_NON_FINITE, f"{member}: {note}", member)
    return True, value


# -- checksums.sha256 --------------------------------------------------------
def _checksums(op: _Opening) -> None:
    if op.scan.first(L.CHECKSUMS) is None:
        op.report(R.CHECKSUMS_MISSING,
                  f"the archive has no {L.CHECKSUMS}; an archive without checksums cannot be "
                  "verified and is not accepted", L.CHECKSUMS)
        return
    op.checksum_present = True
    raw = _read_small(op, L.CHECKSUMS)
    if raw is None:
        return
    cf = op.checksums = parse_checksums(raw)
    if cf.problem is not None:
        op.doc.findings.add(cf.problem)
    for line in cf.lines:
        if line.problem is not None:
            op.doc.findings.add(line.problem)
        if line.name is not None:
            code = line.problem.code if line.problem is not None else None
            _classify_line(op, line.name, code, line.digest)
            if op.recorded.get(line.name) is None:
                op.recorded[line.name] = line.recorded
    present = set(op.scan.names)
    for listed in op.line_status:
        if listed not in present:
            op.report(R.CHECKSUMS_LISTED_MISSING,
                      f"{L.CHECKSUMS} lists {listed!r}, which is missing from the archive",
                      listed)
    if cf.problem is None:
        for member in op.scan.names:
            if member != L.CHECKSUMS and member not in op.line_status:
                op.report(R.CHECKSUMS_UNLISTED,
                          f"the archive contains member {member!r} that {L.CHECKSUMS} does not "
                          "list; unlisted members are rejected", member)


def _classify_line(op: _Opening, name: str, problem: str | None, digest: str | None) -> None:
    """How ``name`` is listed: the first line decides, a later duplicate line
    turns a well-formed listing into a duplicate one."""
    if name not in op.line_status:
        if problem is None or problem == R.CHECKSUMS_DIGEST_NOT_LOWERCASE.code:
            op.line_status[name] = LISTED if problem is None else MALFORMED
            op.listed[name] = digest or ""
        else:
            op.line_status[name] = MALFORMED
    elif problem == R.CHECKSUMS_DUPLICATE_ENTRY.code and op.line_status[name] == LISTED:
        op.line_status[name] = DUPLICATE


# -- manifest.json -----------------------------------------------------------
def _manifest(op: _Opening) -> None:
    if op.scan.first(L.MANIFEST) is None:
        op.report(R.MANIFEST_MISSING, f"the archive has no {L.MANIFEST}", L.MANIFEST)
        return
    raw = _read_small(op, L.MANIFEST)
    if raw is None:
        return
    parsed, manifest = _parse_json(op, L.MANIFEST, raw, R.MANIFEST_NOT_JSON)
    del raw
    if not parsed:
        return
    if not isinstance(manifest, dict):
        op.report(R.MANIFEST_NOT_OBJECT, f"{L.MANIFEST} must contain a JSON object, got "
                  f"{'null' if manifest is None else type(manifest).__name__}", L.MANIFEST)
        return
    op.manifest = manifest
    _version(op, manifest.get("aucx_format_version"))
    _parts(op, manifest.get("parts"))
    _observations(op, manifest.get("observations"))


def _version(op: _Opening, version: Any) -> None:
    if not isinstance(version, str) or not version:
        op.report(R.MANIFEST_VERSION_MISSING,
                  "the manifest does not declare aucx_format_version (only 1.0 is read; "
                  "archives are never migrated)", L.MANIFEST)
    elif version != L.AUCX_FORMAT_VERSION:
        op.report(R.MANIFEST_VERSION_UNSUPPORTED,
                  f"unsupported AUCX format version {short(version)}; only "
                  f"{L.AUCX_FORMAT_VERSION!r} is read and archives are never migrated. The "
                  "remaining checks treat it as 1.0.", L.MANIFEST)


def _parts(op: _Opening, parts: Any) -> None:
    if not isinstance(parts, list) or not all(isinstance(x, str) for x in parts):
        op.report(R.MANIFEST_PARTS_INVALID,
                  "the manifest's 'parts' must be a list of member names", L.MANIFEST)
        return
    present = set(op.scan.names)
    for required in L.PAYLOAD:
        if required not in parts:
            op.report(R.MANIFEST_PARTS_INCOMPLETE,
                      f"the manifest's 'parts' omits the required member {required!r}",
                      required)
    for part in parts:
        why = unsafe_name_reason(part)
        if why is not None and part not in present:
            op.report(R.MANIFEST_UNSAFE_PART_NAME, f"the manifest part name {part!r} {why}",
                      L.MANIFEST)
        if part not in present and part not in op.line_status:
            op.report(R.MANIFEST_PART_MISSING,
                      f"the manifest lists part {part!r}, which is missing from the archive; "
                      "a listed part that is absent is rejected", part)
    allowed = set(parts) | {L.MANIFEST, L.CHECKSUMS}
    for member in op.scan.names:
        if member in allowed:
            continue
        if op.checksums is not None and member not in op.line_status:
            continue  # already reported as unlisted (neither listed nor a part)
        op.report(R.MANIFEST_MEMBER_NOT_IN_PARTS,
                  f"the archive contains member {member!r} that the manifest does not list as "
                  "a part; unlisted members are rejected", member)


def _observations(op: _Opening, block: Any) -> None:
    """The ``observations`` object as openauc's loader reads it
    (:func:`.modelcheck.observations_problems`): one finding per bad entry."""
    where = f"{L.MANIFEST}:observations"
    if not isinstance(block, dict):
        found = shown(block) if "observations" in (op.manifest or {}) else "no such key"
        op.report(R.MANIFEST_OBSERVATIONS_INVALID,
                  f"the manifest has no 'observations' object; found {found}", where)
        return
    if isinstance(block.get("mode"), str) and block["mode"] in L.MODES:
        op.mode = block["mode"]
    for key, why in observations_problems(block):
        op.report(R.MANIFEST_OBSERVATIONS_INVALID,
                  f"the manifest's observations.{key} {why}", f"{where}.{key}")


# -- experiment.json, provenance.json -------------------------------------------
def _payload_json(op: _Opening) -> None:
    """``experiment.json`` and ``provenance.json``: JSON objects whose values
    openauc's models accept (:mod:`.modelcheck`), every violation a finding at
    its JSON path."""
    for member in (L.EXPERIMENT, L.PROVENANCE):
        parsed, payload = _payload(op, member)
        if not parsed:
            continue
        if not isinstance(payload, dict):
            op.report(R.JSON_NOT_OBJECT, f"{member} must contain a JSON object, got "
                      f"{'null' if payload is None else type(payload).__name__}", member)
            continue
        if member == L.EXPERIMENT:
            streamed = payload.get("scans")
            problems = experiment_problems(
                payload, streamed if isinstance(streamed, ScanRecords) else None)
            if isinstance(payload.get("scans"), list):
                payload["scans"] = scan_records(payload["scans"])
            op.experiment = payload
        else:
            export, imported = payload.get("export"), payload.get("import")
            op.export = export if isinstance(export, dict) else None
            op.imported = imported if isinstance(imported, dict) else None
            problems = provenance_problems(payload)
        for rule, message, location in problems:
            op.report(rule, message, location)


def _payload(op: _Opening, member: str) -> tuple[bool, Any]:
    """``(True, value)`` of a payload JSON member, or ``(False, None)`` (reported).
    An ``experiment.json`` above :data:`EXPERIMENT_MEMBER_LIMIT` (and at most
    :data:`EXPERIMENT_STREAM_LIMIT`) is parsed as it inflates, its scans into columns
    (:mod:`.jsonstream`)."""
    if op.duplicate(member):
        return False, None
    e = op.scan.first(member)
    if (member == L.EXPERIMENT and e is not None and e.safe
            and EXPERIMENT_MEMBER_LIMIT < e.file_size <= EXPERIMENT_STREAM_LIMIT):
        return _parse_streamed(op, e)
    raw = _read_small(op, member)
    if raw is None:
        return False, None
    return _parse_json(op, member, raw, R.JSON_INVALID)


def _parse_streamed(op: _Opening, e: ZipEntry) -> tuple[bool, Any]:
    """``experiment.json`` parsed as it inflates (:func:`.jsonstream.parse_experiment_stream`)."""
    notes: list[str] = []
    try:
        value, why, unreadable = parse_experiment_stream(op.path, e, notes)
    except FileChangedError as exc:
        op.report(FILE_CHANGED, str(exc))
        return False, None
    except OSError as exc:
        value, why, unreadable = None, exc.strerror or type(exc).__name__, True
    if why is not None:
        if unreadable:
            op.report(R.MEMBER_UNREADABLE, f"{L.EXPERIMENT} could not be read: {why}",
                      L.EXPERIMENT)
        else:
            op.report(R.JSON_INVALID, f"{L.EXPERIMENT} is not valid JSON: {why}", L.EXPERIMENT)
        return False, None
    for note in notes:
        op.report(R.JSON_NON_FINITE, f"{L.EXPERIMENT}: {note}", L.EXPERIMENT)
    return True, value


# -- arrays ------------------------------------------------------------------
def _arrays(op: _Opening) -> None:
    obs = op.observations
    op.headers = arraycheck.read_headers(op.path, op.scan, obs, op.report)
    op.mode = arraycheck.infer_mode(op.mode, op.headers, op.report)
    arraycheck.check_shapes(op.mode, op.headers, obs, op.report)
    op.doc.arrays = dict(arraycheck.array_refs(op.path, op.scan, op.headers, obs))


# -- facts, capabilities, the frozen state ---------------------------------------
def _export_record(export: dict[str, Any] | None) -> dict[str, Any] | None:
    """The export record with its timestamp in the reference's ``Z`` form."""
    if export is None:
        return None
    record = dict(export)
    if "exported_at" in record:
        record["exported_at"] = L.normalise_record_timestamp(record["exported_at"])
    return record


def _metadata(op: _Opening) -> dict[str, Any] | None:
    md = op.experiment.get("metadata") if op.experiment is not None else None
    return md if isinstance(md, dict) else None


def _scan_ids(obs: dict[str, Any]) -> list[str]:
    """The scan ids as openauc makes them of the manifest's (``[]`` when unreadable)."""
    return openauc_scan_ids(obs.get("scan_ids", [])) or []


def _facts(op: _Opening, record: dict[str, Any] | None) -> None:
    """The ``verify --json`` facts (the reference ``info`` keys)."""
    m = op.manifest or {}
    obs = op.observations
    md = _metadata(op)
    ids = _scan_ids(obs)
    op.doc.summary.update(finite({
        "aucx_format_version": m.get("aucx_format_version"),
        "radius_axis_mode": obs.get("mode") if obs.get("mode") in L.MODES else op.mode,
        "n_scans": openauc_int(obs.get("n_scans", 0)) or 0,
        "n_points": openauc_int(obs.get("n_points", 0)) or 0,
        "scan_ids": summary_list(ids),
        "radius_unit": obs.get("radius_unit"),
        "signal_unit": obs.get("signal_unit"),
        "experiment_id": (str(md.get("experiment_id")) if md is not None
                          and md.get("experiment_id") is not None else None),
        "export": record,
    }))


def _model_parts(op: _Opening) -> ModelParts | None:
    if op.experiment is None or op.mode is None:
        return None
    return ModelParts(op.experiment, op.imported,
                      {**op.observations, "mode": op.mode, "scan_ids": _scan_ids(op.observations)})


def _load_small(op: _Opening, parts: ModelParts | None) -> AucExperiment | None:
    """The experiment model, when every part it needs is readable, error-free
    and small (:data:`EXPERIMENT_LOAD_LIMIT`)."""
    doc = op.doc
    names = ("radius", "signal", "mask")
    if (parts is None or not doc.ok or not all(k in doc.arrays for k in names)
            or sum(op.headers[k].nbytes for k in names) > EXPERIMENT_LOAD_LIMIT):
        return None
    try:
        return build_experiment(dict(parts.experiment),
                                dict(parts.imported) if parts.imported is not None else None,
                                dict(parts.observations), doc.arrays["radius"].read(),
                                doc.arrays["signal"].read(), doc.arrays["mask"].read())
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        op.report(R.EXPERIMENT_NOT_LOADED, f"the experiment could not be assembled: {exc}")
        return None


def _auc(op: _Opening, loaded: AucExperiment | None) -> AucScans | None:
    """The AUC capability, when the radius and signal can be plotted."""
    if not all(k in op.doc.arrays for k in ("radius", "signal")):
        return None
    obs = op.observations
    ids = _scan_ids(obs)
    return AucScans(scan_ids=tuple(ids),
                    radius_unit=str(obs.get("radius_unit") or ""),
                    signal_unit=str(obs.get("signal_unit") or ""),
                    experiment_id=op.doc.summary["experiment_id"], experiment=loaded,
                    table=op.doc.tables.get("scans"))


def _not_checked(doc: Document, why: str) -> None:
    """Say that the structure was not checked, and why (``structure_ok`` is then None)."""
    doc.structure_unchecked = why
    doc.report(R.STRUCTURE_NOT_CHECKED, f"the structure and readiness of the experiment were "
               f"not checked: {why}")


def _unexaminable(op: _Opening, parts: ModelParts | None) -> str | None:
    """Why the structure cannot be checked from what opening read, or None."""
    errors = [f for f in op.doc.findings if f.scope is Scope.INTEGRITY
              and f.severity is Severity.ERROR and f.code not in _STRUCTURE_NEUTRAL]
    if errors:
        return (f"the archive failed {len(errors)} integrity check(s); an experiment that "
                "cannot be loaded is not examined")
    if parts is None:
        return "experiment.json or the manifest's observations could not be read"
    if not all(k in op.doc.arrays and k in op.headers for k in ("radius", "signal", "mask")):
        return "an array member could not be read"
    return None


def _structure(op: _Opening, parts: ModelParts | None, loaded: bool = False) -> bool:
    """The structural validation, readiness and summary (AUCX format document,
    "Inspection and validation"; a separate verdict from integrity), from the
    parsed parts and the radius and mask.  Small arrays (those of an experiment
    ``loaded`` at open, or radius and mask within :data:`STRUCTURE_READ_LIMIT`)
    are read whole here; for larger ones True is returned: the deferred
    verification folds them in row blocks (:func:`.structure.facts_streamed`).  Where it cannot run,
    a ``structure.not-checked`` finding says why."""
    doc = op.doc
    why = _unexaminable(op, parts)
    if why is not None or parts is None:
        _not_checked(doc, why or "nothing to check")
        return False
    limit = EXPERIMENT_LOAD_LIMIT if loaded else min(STRUCTURE_READ_LIMIT, EXPERIMENT_LOAD_LIMIT)
    if sum(op.headers[k].nbytes for k in ("radius", "mask")) > limit:
        doc.structure_unchecked = DEFERRED_NOTE
        return True
    shape = op.headers["signal"].shape
    try:
        facts = facts_in_memory(parts, shape[0] if shape else 0, doc.arrays["radius"].read(),
                                doc.arrays["mask"].read())
    except (OSError, ValueError) as exc:
        _not_checked(doc, f"the radius or mask could not be read ({exc})")
        return False
    doc.structure = examine_facts(facts, locate=aucx_location)
    publish(doc.structure, doc.findings, doc.summary)
    return False


def _finish(op: _Opening, overview_columns: int = 0, table: bool = True) -> OpenedArchive:
    """Fill the document's views and capabilities and freeze what opening learned
    (and plan the overview the verification builds, when one is asked for)."""
    doc = op.doc
    record = _export_record(op.export)
    _facts(op, record)
    header_parts = HeaderParts(op.manifest, record, _metadata(op))
    doc.header = header_tree(header_parts, op.headers)
    doc.provenance = provenance_tree(op.imported, record)
    scans = op.experiment.get("scans") if op.experiment is not None else None
    if table and isinstance(scans, list | ScanRecords):
        doc.tables["scans"] = scans_table(scans)
        doc.table_locations["scans"] = L.EXPERIMENT
    parts = _model_parts(op)
    doc.auc = _auc(op, _load_small(op, parts))
    deferred = _structure(op, parts, doc.auc is not None and doc.auc.experiment is not None)
    plan = overview_plan(overview_columns, doc.auc, doc.arrays, op.headers, op.scan)
    if plan is not None and doc.auc is not None:
        doc.auc = replace(doc.auc, overview_pending=True)
    rows = tuple(MemberCheck(name, recorded) for name, recorded in op.recorded.items())
    doc.checksums = ChecksumTable(rows, verified=False)
    doc.summary["members"] = members_summary(rows)
    opened = OpenedArchive(
        path=op.path, scan=op.scan, rows=rows, listed=frozen_map(op.listed),
        line_status=frozen_map(op.line_status), checksum_present=op.checksum_present,
        mode=op.mode, headers=frozen_map(op.headers), header_parts=header_parts,
        model=parts, auc=doc.auc, opened_ok=doc.ok, structure_deferred=deferred)
    doc.checks = [ArchiveVerification(opened, overview=plan)]
    doc.member_data = archive_members(opened)
    return opened
