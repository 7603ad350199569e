"""Open an AUCX 1.0 archive as a :class:`Document` (issue 4).

Order of work (spec ``aucx-archive.md`` section 4, but never stopping at the
first problem):

1. ZIP central directory and local headers, safety checks, nothing
   decompressed (:mod:`.zipscan`).
2. ``checksums.sha256`` parsed line by line; listed-but-missing and unlisted
   members reported (:mod:`.checksums`).
3. ``manifest.json``: JSON object, ``aucx_format_version == "1.0"``, parts,
   observations block; members outside the parts.
4. ``experiment.json`` / ``provenance.json`` (small JSON, bounded read).
5. ``.npy`` headers of the three arrays (only their first bytes are
   inflated): pickled/object dtype, dtype kinds, ndim, shapes against the
   manifest and each other, scan count against ``scan_ids``.

Checksums and array contents are checked by the deferred streaming verifier
(:mod:`.verify`), so the document opens with every member ``pending`` and
``doc.verified`` False.  Every problem is a finding located at the member it
concerns.  Nothing is ever extracted to disk.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from inspector.formats.auc_model import AucExperiment
from inspector.formats.aucx import layout as L
from inspector.formats.aucx.arrayrefs import MaskedLineRef, NpyMemberRef
from inspector.formats.aucx.checksums import ChecksumFile, parse_checksums
from inspector.formats.aucx.jsonmember import parse_json_member
from inspector.formats.aucx.model import build_experiment, scans_table
from inspector.formats.aucx.npyfmt import MAX_HEADER_BYTES, NpyHeader, parse_header
from inspector.formats.aucx.state import (
    HeaderParts,
    ModelParts,
    OpenedArchive,
    frozen_map,
    members_summary,
)
from inspector.formats.aucx.stream import MemberStream, read_member
from inspector.formats.aucx.trees import header_tree, member_tree, provenance_tree
from inspector.formats.aucx.verify import ArchiveVerification
from inspector.formats.aucx.zipscan import ZipScan, scan_zip, unsafe_name_reason
from inspector.formats.capabilities import AucScans, ChecksumTable
from inspector.formats.document import FORMAT_AUCX, Document, MemberCheck

#: Largest ``manifest.json`` / ``provenance.json`` parsed, in bytes.  Real
#: ones are about 1 KiB (10 000 scans: a 0.2 MiB manifest); larger members
#: are reported (``member.too-large``) and not parsed.
JSON_MEMBER_LIMIT = 4 << 20
#: Largest ``experiment.json`` parsed: it grows by about 1 KiB per scan
#: (10 000 scans: 9 MiB; open + verify 2.6 s, 120 MB resident).  Parsing
#: JSON can take ~20 bytes of memory per byte of text, so the limit also
#: bounds memory (16 MiB of hostile JSON: about 300 MB).
EXPERIMENT_MEMBER_LIMIT = 16 << 20
#: Largest ``checksums.sha256`` parsed (7 lines of ~80 bytes in practice).
CHECKSUM_MEMBER_LIMIT = 4 << 20
#: Most ``[`` and ``{`` a JSON member may contain: bounds the objects built
#: by parsing (10 000 scans need about 90 000).
MAX_JSON_CONTAINERS = 1_000_000
_LIMITS = {L.MANIFEST: JSON_MEMBER_LIMIT, L.PROVENANCE: JSON_MEMBER_LIMIT,
           L.EXPERIMENT: EXPERIMENT_MEMBER_LIMIT, L.CHECKSUMS: CHECKSUM_MEMBER_LIMIT}
#: Arrays totalling at most this many bytes are loaded into
#: ``doc.auc.experiment`` at open; larger ones stay lazy only.
EXPERIMENT_LOAD_LIMIT = 8 << 20


@dataclass
class ArchiveState:
    """What opening learned; shared with the deferred verifier."""

    path: Path
    scan: ZipScan
    rows: dict[str, str | None] = field(default_factory=dict)
    checksums: ChecksumFile | None = None
    checksum_present: bool = False
    listed: dict[str, str] = field(default_factory=dict)
    line_status: dict[str, str] = field(default_factory=dict)
    manifest: dict[str, Any] | None = None
    mode: str | None = None
    headers: dict[str, NpyHeader] = field(default_factory=dict)
    content_ok: dict[str, bool] = field(default_factory=dict)
    verify_findings: list[Any] = field(default_factory=list)
    header_parts: HeaderParts = field(default_factory=HeaderParts)
    model: ModelParts | None = None


KIND_LABEL = "AUCX archive"
TREE_TITLE = "Archive members"


def read_archive(path: Path) -> tuple[Document, OpenedArchive | None]:
    """Open ``path`` as an AUCX archive; never raises for bad input.

    Returns the :class:`Document` (format ``"aucx"``) and what opening
    learned (None when the ZIP could not be read at all).  The document has
    ``header``, ``tree`` (members), ``provenance`` (import and export
    subtrees), ``tables["scans"]``, lazy ``arrays`` (``radius``, ``signal``,
    ``mask``), ``checksums`` (every row ``pending``, not verified), ``auc``
    (scan ids, units, the experiment when small and safe), ``summary`` (the
    reference ``info`` keys plus ``members``) and ``checks`` (the streamed
    checksum and content verification).  Rules: seed ``002_59993c7ffff01d56``
    ("Safety", "Checksums", "Both radius modes") and AUCX on-disk notes §4.
    """
    p = Path(path)
    doc = Document(p, format=FORMAT_AUCX, kind_label=KIND_LABEL, tree_title=TREE_TITLE)
    st: OpenedArchive | None = None
    try:
        st = _open(doc, p)
    except Exception as exc:  # noqa: BLE001 - the contract is: never raise
        doc.error("internal.reader-failed",
                  f"{p.name}: the AUCX reader failed unexpectedly: {type(exc).__name__}: {exc}")
        doc.traceback = traceback.format_exc()
        doc.checks = []
        st = None
    return doc, st


def _open(doc: Document, p: Path) -> OpenedArchive | None:
    doc.summary = {"aucx_format_version": None, "radius_axis_mode": None, "n_scans": 0,
                   "n_points": 0, "scan_ids": [], "radius_unit": None, "signal_unit": None,
                   "experiment_id": None, "export": None, "members": [],
                   "checksum_verified": False}
    if not p.is_file():
        doc.error("file.not-found", f"{p}: no such file", "")
        return None
    scan = scan_zip(p)
    for prob in scan.problems:
        if prob.code in ("zip.prefixed-data", "zip.many-members"):
            doc.warning(prob.code, prob.message, prob.location)
        else:
            doc.error(prob.code, prob.message, prob.location)
    doc.tree = member_tree(scan)
    if scan.fatal or not scan.entries:
        return None
    st = ArchiveState(p, scan)
    for name in scan.names:
        st.rows[name] = None
    _checksums(doc, st)
    _manifest(doc, st)
    experiment, imported, export = _payload_json(doc, st)
    _arrays(doc, st)
    _facts(doc, st, experiment, imported, export)
    rows = tuple(MemberCheck(name, recorded) for name, recorded in st.rows.items())
    doc.checksums = ChecksumTable(rows, verified=False)
    doc.summary["members"] = members_summary(rows)
    opened = OpenedArchive(
        path=p, scan=scan, rows=rows, listed=frozen_map(st.listed),
        line_status=frozen_map(st.line_status), checksum_present=st.checksum_present,
        mode=st.mode, headers=frozen_map(st.headers), header_parts=st.header_parts,
        model=st.model, auc=doc.auc, opened_ok=doc.ok)
    doc.checks = [ArchiveVerification(opened)]
    return opened


# --------------------------------------------------------------------------
def _read_small(doc: Document, st: ArchiveState, name: str) -> bytes | None:
    """The bytes of a JSON or checksum member, or None (with a finding).

    Members declaring more than their limit (:data:`_LIMITS`) are not
    inflated: an AUCX metadata member is a few KiB, and parsing is the only
    step whose memory grows with the member.
    """
    e = st.scan.first(name)
    if e is None or not e.safe:
        return None
    limit = _LIMITS[name]
    if e.file_size > limit:
        doc.error("member.too-large",
                  f"{st.path.name}: {name} declares {e.file_size} bytes, more than the "
                  f"{limit} bytes ({limit >> 20} MiB) read for this member; it is not parsed "
                  "(AUCX metadata members are a few KiB; seed 'Safety': declared sizes are "
                  "limits)", name)
        return None
    data, why = read_member(st.path, e, limit)
    if data is None:
        doc.error("member.unreadable", f"{st.path.name}: {name} could not be read: {why}", name)
    return data


def _parse_json(doc: Document, st: ArchiveState, member: str, raw: bytes, code: str) -> Any:
    """Parse a JSON member strictly (:func:`.jsonmember.parse_json_member`);
    None with an error finding ``code`` at the member when it is unacceptable."""
    containers = raw.count(b"[") + raw.count(b"{")
    if containers > MAX_JSON_CONTAINERS:
        value, why = None, (f"it holds {containers} arrays/objects, more than the "
                            f"{MAX_JSON_CONTAINERS} parsed (AUCX metadata has a few per scan)")
    else:
        value, why = parse_json_member(raw)
    if why is not None:
        doc.error(code, f"{st.path.name}: {member} is not valid JSON: {why} (RFC 8259; "
                  "AUCX on-disk notes §1)", member)
    return value


def _checksums(doc: Document, st: ArchiveState) -> None:
    name = st.path.name
    e = st.scan.first(L.CHECKSUMS)
    if e is None:
        doc.error("checksums.missing",
                  f"{name} has no {L.CHECKSUMS}; an archive without checksums cannot be "
                  "verified and is not accepted (AUCX 1.0 format, 'Checksums')", L.CHECKSUMS)
        return
    st.checksum_present = True
    raw = _read_small(doc, st, L.CHECKSUMS)
    if raw is None:
        return
    cf = parse_checksums(raw)
    st.checksums = cf
    if cf.problem is not None:
        doc.error(cf.problem[0], f"{name}: {cf.problem[1]} (AUCX 1.0 format, 'Checksums')", L.CHECKSUMS)
    for line in cf.lines:
        if line.problem is not None:
            code, msg = line.problem
            loc = line.name if line.name is not None else L.CHECKSUMS
            doc.error(code, f"{name}: {msg}", loc)
        if line.name is None:
            continue
        if line.name not in st.line_status:
            if line.problem is None:
                st.line_status[line.name] = "listed"
                st.listed[line.name] = line.digest or ""
            elif line.problem[0] == "checksums.digest-not-lowercase":
                st.line_status[line.name] = "malformed-entry"
                st.listed[line.name] = line.digest or ""
            else:
                st.line_status[line.name] = "malformed-entry"
        elif line.problem is not None and line.problem[0] == "checksums.duplicate-entry":
            if st.line_status[line.name] == "listed":
                st.line_status[line.name] = "duplicate-entry"
        if st.rows.get(line.name) is None:
            st.rows[line.name] = line.digest if line.digest else line.text.split(None, 1)[0]
    present = set(st.scan.names)
    for listed in st.line_status:
        if listed not in present:
            doc.error("checksums.listed-missing",
                      f"{name}: {L.CHECKSUMS} lists {listed!r}, which is missing from the "
                      "archive (AUCX 1.0 format, 'Checksums')", listed)
    if cf.problem is None:
        for member in st.scan.names:
            if member != L.CHECKSUMS and member not in st.line_status:
                doc.error("checksums.unlisted",
                          f"{name} contains member {member!r} that {L.CHECKSUMS} does not list "
                          "(AUCX 1.0 format, 'Checksums': unlisted members are rejected)", member)


def _manifest(doc: Document, st: ArchiveState) -> None:
    name = st.path.name
    if st.scan.first(L.MANIFEST) is None:
        doc.error("manifest.missing", f"{name} has no {L.MANIFEST} (AUCX 1.0 format, 'Structure')",
                  L.MANIFEST)
        return
    raw = _read_small(doc, st, L.MANIFEST)
    if raw is None:
        return
    manifest = _parse_json(doc, st, L.MANIFEST, raw, "manifest.not-json")
    del raw
    if manifest is None:
        return
    if not isinstance(manifest, dict):
        doc.error("manifest.not-object",
                  f"{name}: {L.MANIFEST} must contain a JSON object, got "
                  f"{type(manifest).__name__} (AUCX on-disk notes §4 step 4)", L.MANIFEST)
        return
    st.manifest = manifest
    version = manifest.get("aucx_format_version")
    if not isinstance(version, str) or not version:
        doc.error("manifest.version-missing",
                  f"{name}: manifest does not declare aucx_format_version (seed: only 1.0 is "
                  "read; archives are never migrated)", L.MANIFEST)
    elif version != L.AUCX_FORMAT_VERSION:
        doc.error("manifest.version-unsupported",
                  f"{name}: unsupported AUCX format version {_short(version)}; only "
                  f"{L.AUCX_FORMAT_VERSION!r} is read and archives are never migrated "
                  "(AUCX 1.0 format, 'Current format version'). The remaining checks treat it as 1.0.",
                  L.MANIFEST)
    _parts(doc, st, manifest)
    _observations(doc, st, manifest)


def _parts(doc: Document, st: ArchiveState, manifest: dict[str, Any]) -> None:
    name = st.path.name
    parts = manifest.get("parts")
    if not isinstance(parts, list) or not all(isinstance(x, str) for x in parts):
        doc.error("manifest.parts-invalid",
                  f"{name}: manifest 'parts' must be a list of member names (AUCX on-disk notes §1)",
                  L.MANIFEST)
        return
    present = set(st.scan.names)
    for required in L.PAYLOAD:
        if required not in parts:
            doc.error("manifest.parts-incomplete",
                      f"{name}: manifest 'parts' omits the required member {required!r} "
                      "(AUCX 1.0 format, 'Structure')", required)
    for part in parts:
        why = unsafe_name_reason(part)
        if why is not None and part not in present:
            doc.error("manifest.unsafe-part-name",
                      f"{name}: manifest part name {part!r} {why} (AUCX 1.0 format, 'Safety')", L.MANIFEST)
        if part not in present and part not in st.line_status:
            doc.error("manifest.part-missing",
                      f"{name}: manifest lists part {part!r}, which is missing from the archive "
                      "(AUCX 1.0 format, 'Structure': a listed part that is absent is rejected)", part)
    allowed = set(parts) | {L.MANIFEST, L.CHECKSUMS}
    for member in st.scan.names:
        if member in allowed:
            continue
        if st.checksums is not None and member not in st.line_status:
            continue  # already reported as unlisted (neither listed nor a part)
        doc.error("manifest.member-not-in-parts",
                  f"{name} contains member {member!r} that the manifest does not list as a "
                  "part (AUCX 1.0 format, 'Structure': unlisted members are rejected)", member)


def _observations(doc: Document, st: ArchiveState, manifest: dict[str, Any]) -> None:
    name = st.path.name
    block = manifest.get("observations")
    if not isinstance(block, dict):
        doc.error("manifest.observations-invalid",
                  f"{name}: manifest has no 'observations' object (AUCX on-disk notes §1)", L.MANIFEST)
        return
    problems = []
    mode = block.get("mode")
    if mode not in L.MODES:
        problems.append(f"mode {_short(mode)} is not 'shared' or 'per_scan'")
    else:
        st.mode = mode
    for key in ("radius_unit", "signal_unit"):
        if block.get(key) not in L.UNITS:
            problems.append(f"{key} {_short(block.get(key))} is not one of the fixed unit strings")
    ids = block.get("scan_ids")
    if not isinstance(ids, list) or not all(isinstance(x, str) and x.strip() for x in ids):
        problems.append("scan_ids must be a list of non-empty strings")
    elif len(set(ids)) != len(ids):
        problems.append("scan_ids repeat an identifier")
    for key in ("n_scans", "n_points"):
        if key in block and _count(block[key]) is None:
            problems.append(f"{key} must be a non-negative integer, got {_short(block[key])}")
    if problems:
        doc.error("manifest.observations-invalid",
                  f"{name}: manifest 'observations' block is invalid: " + "; ".join(problems)
                  + " (AUCX on-disk notes §1)", L.MANIFEST)


def _count(value: Any) -> int | None:
    """``value`` when it is a non-negative integer (not a bool), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _short(value: Any) -> str:
    """A bounded repr of a manifest value for a finding message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _payload_json(doc: Document, st: ArchiveState):
    name = st.path.name
    experiment = imported = export = None
    for member in (L.EXPERIMENT, L.PROVENANCE):
        raw = _read_small(doc, st, member) if not _dup(st, member) else None
        if raw is None:
            continue
        payload = _parse_json(doc, st, member, raw, "json.invalid")
        del raw
        if payload is None:
            continue
        if not isinstance(payload, dict):
            doc.error("json.not-object", f"{name}: {member} must contain a JSON object, got "
                      f"{type(payload).__name__}", member)
            continue
        if member == L.EXPERIMENT:
            md = payload.get("metadata")
            if not isinstance(md, dict) or not isinstance(md.get("experiment_id"), str) \
                    or not md.get("experiment_id", "").strip():
                doc.error("experiment.metadata-invalid",
                          f"{name}: {member} needs a 'metadata' object with a non-empty "
                          "experiment_id (AUCX on-disk notes §1)", member)
            if not isinstance(payload.get("scans", []), list) or not isinstance(
                    payload.get("samples", []), list):
                doc.error("experiment.invalid",
                          f"{name}: {member} 'scans' and 'samples' must be lists", member)
            experiment = payload
        else:
            export = payload.get("export")
            if not isinstance(export, dict):
                doc.error("provenance.no-export",
                          f"{name}: {member} has no 'export' object (AUCX 1.0 format, 'Provenance')", member)
                export = None
            imported = payload.get("import")
            if imported is not None and not isinstance(imported, dict):
                doc.error("provenance.import-invalid",
                          f"{name}: {member} 'import' must be an object or null", member)
                imported = None
            st.content_ok["provenance"] = True
    return experiment, imported, export


def _dup(st: ArchiveState, member: str) -> bool:
    e = st.scan.first(member)
    return e is not None and e.duplicate


def _arrays(doc: Document, st: ArchiveState) -> None:
    name = st.path.name
    block = (st.manifest or {}).get("observations")
    block = block if isinstance(block, dict) else {}
    declared = block.get("arrays") if isinstance(block.get("arrays"), dict) else {}
    for key, member in L.ARRAY_MEMBERS.items():
        e = st.scan.first(member)
        if e is None or not e.safe or e.duplicate:
            continue
        stream = MemberStream(st.path, e, limit=MAX_HEADER_BYTES + 16, crc=False)
        head = b"".join(stream)
        try:
            h = parse_header(head)
        except ValueError as exc:
            doc.error("array.unreadable", f"{name}: {member} is not a readable .npy array: {exc}",
                      member)
            continue
        if h.dtype.hasobject:
            doc.error("array.pickled",
                      f"{name}: {member} is an object-dtype (pickled) .npy array; arrays are "
                      "loaded with pickling disabled, so it is rejected and never unpickled "
                      "(AUCX 1.0 format, 'Safety')", member)
            continue
        if h.data_offset + h.nbytes != e.file_size:
            doc.error("array.size-mismatch",
                      f"{name}: {member}'s header announces {h.nbytes} data bytes but the member "
                      f"holds {e.file_size - h.data_offset} (.npy format)", member)
            continue
        st.headers[key] = h
        want = "b" if key == "mask" else "f"
        if (key == "mask" and h.dtype != np.bool_) or (key != "mask" and h.dtype.kind != want):
            doc.error("array.dtype",
                      f"{name}: {key} array has dtype {h.dtype}; expected "
                      f"{'exactly bool' if key == 'mask' else 'a floating-point dtype'} "
                      "(AUCX 1.0 format, 'Safety')", member)
        d = declared.get(key) if isinstance(declared.get(key), dict) else {}
        shape = d.get("shape")
        if isinstance(shape, list) and tuple(shape) != h.shape:
            doc.error("array.shape-mismatch",
                      f"{name}: manifest declares {key} shape {_short(tuple(shape))} but the stored "
                      f"array has shape {h.shape} (AUCX 1.0 format, 'Safety')", member)
        if isinstance(d.get("dtype"), str) and d["dtype"] != str(h.dtype):
            doc.warning("array.declared-dtype",
                        f"{name}: manifest declares {key} dtype {_short(d['dtype'])} but the stored "
                        f"array is {h.dtype}", member)
    sig, rad, mask = (st.headers.get(k) for k in ("signal", "radius", "mask"))
    if sig is not None and len(sig.shape) != 2:
        doc.error("array.ndim", f"{name}: signal must be 2-D (scan, point), got "
                  f"{len(sig.shape)}-D (AUCX 1.0 format, 'Both radius modes')", L.SIGNAL)
    if st.mode is None and rad is not None and len(rad.shape) in (1, 2):
        st.mode = "shared" if len(rad.shape) == 1 else "per_scan"
        doc.info("manifest.mode-inferred",
                 f"{name}: radius axis mode taken as {st.mode!r} from the radius array's "
                 "dimensionality because the manifest does not state it usably", L.RADIUS)
    if sig is not None and len(sig.shape) == 2:
        if mask is not None and mask.shape != sig.shape:
            doc.error("array.shape", f"{name}: mask shape {mask.shape} does not match signal "
                      f"shape {sig.shape} (AUCX 1.0 format, 'Both radius modes')", L.MASK)
        ids = block.get("scan_ids")
        if isinstance(ids, list) and len(ids) != sig.shape[0]:
            doc.error("array.scan-count",
                      f"{name}: manifest lists {len(ids)} scan id(s) but the signal array has "
                      f"{sig.shape[0]} row(s) (AUCX 1.0 format, 'Safety')", L.MANIFEST)
        for key, axis, what in (("n_scans", 0, "row(s)"), ("n_points", 1, "column(s)")):
            count = _count(block.get(key))
            if count is not None and count != sig.shape[axis]:
                doc.error("array.scan-count" if axis == 0 else "array.point-count",
                          f"{name}: manifest declares {key} = {_short(count)} but the signal "
                          f"array has {sig.shape[axis]} {what} (AUCX 1.0 format, 'Safety': "
                          "declared shapes must match the stored arrays)", L.MANIFEST)
        if rad is not None and st.mode == "shared":
            if len(rad.shape) != 1:
                doc.error("array.ndim", f"{name}: a shared radius axis must be 1-D, got "
                          f"{len(rad.shape)}-D (AUCX 1.0 format, 'Both radius modes')", L.RADIUS)
            elif rad.shape[0] != sig.shape[1]:
                doc.error("array.shape", f"{name}: shared radius axis has {rad.shape[0]} "
                          f"point(s) but signal has {sig.shape[1]} column(s)", L.RADIUS)
        elif rad is not None and st.mode == "per_scan":
            if len(rad.shape) != 2:
                doc.error("array.ndim", f"{name}: per-scan radius must be 2-D (scan, point), "
                          f"got {len(rad.shape)}-D (AUCX 1.0 format, 'Both radius modes')", L.RADIUS)
            elif rad.shape != sig.shape:
                doc.error("array.shape", f"{name}: radius shape {rad.shape} does not match "
                          f"signal shape {sig.shape}", L.RADIUS)
    units = {"radius": block.get("radius_unit"), "signal": block.get("signal_unit")}
    refs: dict[str, NpyMemberRef] = {}
    # Only real numeric arrays are handed out for plotting; a structured,
    # complex, string or datetime array has its array.dtype finding instead.
    if mask is not None and mask.dtype.kind not in "biu":
        mask = None
    if mask is not None:
        refs["mask"] = NpyMemberRef("mask", st.path, st.scan.first(L.MASK), mask,
                                    {"role": "validity mask"})
    mref = refs.get("mask") if mask is not None and mask.dtype == np.bool_ else None
    for key in ("radius", "signal"):
        h = st.headers.get(key)
        if h is not None and h.dtype.kind in "fiub" and not h.dtype.fields:
            refs[key] = MaskedLineRef(key, st.path, st.scan.first(L.ARRAY_MEMBERS[key]), h,
                                      {"unit": units[key]}, mask=mref)
    doc.arrays = {k: refs[k] for k in ("radius", "signal", "mask") if k in refs}


def _facts(doc: Document, st: ArchiveState, experiment, imported, export) -> None:
    m = st.manifest or {}
    obs = m.get("observations") if isinstance(m.get("observations"), dict) else {}
    md = experiment.get("metadata") if isinstance(experiment, dict) else None
    exp_record = None
    if isinstance(export, dict):
        exp_record = dict(export)
        if "exported_at" in exp_record:
            exp_record["exported_at"] = L.normalise_record_timestamp(exp_record["exported_at"])
    ids = obs.get("scan_ids") if isinstance(obs.get("scan_ids"), list) else []

    def _int(v: Any) -> int:
        count = _count(v)
        return 0 if count is None else count

    doc.summary.update({
        "aucx_format_version": m.get("aucx_format_version"),
        "radius_axis_mode": obs.get("mode") if obs.get("mode") in L.MODES else st.mode,
        "n_scans": _int(obs.get("n_scans")),
        "n_points": _int(obs.get("n_points")),
        "scan_ids": [str(x) for x in ids],
        "radius_unit": obs.get("radius_unit"),
        "signal_unit": obs.get("signal_unit"),
        "experiment_id": (str(md.get("experiment_id")) if isinstance(md, dict)
                          and md.get("experiment_id") is not None else None),
        "export": exp_record,
    })
    st.header_parts = HeaderParts(st.manifest, exp_record, md if isinstance(md, dict) else None)
    doc.header = header_tree(st.header_parts, st.headers)
    doc.provenance = provenance_tree(imported, exp_record)
    if isinstance(experiment, dict) and isinstance(experiment.get("scans"), list):
        doc.tables["scans"] = scans_table(experiment["scans"])
        doc.table_locations["scans"] = L.EXPERIMENT
    observations = {**obs, "mode": st.mode}
    if isinstance(experiment, dict) and st.mode is not None:
        st.model = ModelParts(experiment, imported, observations)
    loaded = _load_small(doc, st, experiment, imported, observations)
    if all(k in doc.arrays for k in ("radius", "signal")):
        doc.auc = AucScans(
            scan_ids=tuple(str(x) for x in ids), radius_unit=str(obs.get("radius_unit") or ""),
            signal_unit=str(obs.get("signal_unit") or ""),
            experiment_id=doc.summary["experiment_id"], experiment=loaded)


def _load_small(doc: Document, st: ArchiveState, experiment: Any, imported: Any,
                observations: dict[str, Any]) -> AucExperiment | None:
    """The experiment model, when every part it needs is readable and small."""
    if not (doc.ok and isinstance(experiment, dict) and st.mode is not None
            and all(k in doc.arrays for k in ("radius", "signal", "mask"))
            and sum(st.headers[k].nbytes for k in ("radius", "signal", "mask"))
            <= EXPERIMENT_LOAD_LIMIT):
        return None
    try:
        return build_experiment(experiment, imported, observations,
                                doc.arrays["radius"].read(), doc.arrays["signal"].read(),
                                doc.arrays["mask"].read())
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        doc.warning("experiment.not-loaded",
                    f"{st.path.name}: the experiment could not be assembled: {exc}", "")
        return None
