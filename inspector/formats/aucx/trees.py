"""Display trees of an AUCX archive: header, member list, provenance.

Pure functions from parsed archive parts to :class:`Node` trees (docs/architecture.md,
"Seams"). The provenance tree keeps the import provenance and the export
record in two separate subtrees (AUCX 1.0 format document, "Provenance").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspector.formats.aucx.layout import EXPERIMENT, MANIFEST, PROVENANCE
from inspector.formats.aucx.npyfmt import NpyHeader
from inspector.formats.aucx.state import HeaderParts
from inspector.formats.aucx.zipscan import STORED, ZipScan
from inspector.formats.document import Node

#: Children shown per JSON object/array; the rest is summarised in one node
#: (10 000 scans still show every scan id).
MAX_CHILDREN = 10_000
#: The integrity line of a header tree before verification.
PENDING = "pending verification"


def json_node(name: str, value: Any, location: str = "", kind: str = "field") -> Node:
    """A tree of ``value`` (dicts by key, lists by index; scalars as values).

    At most :data:`MAX_CHILDREN` children per object/array; the others are
    summarised by a final ``"..."`` node.  ``value`` comes from
    :func:`.jsonmember.parse_json_member`, which bounds its depth.
    """
    if isinstance(value, dict):
        node = Node(name, None, kind="group", location=location)
        for i, key in enumerate(value):
            if i == MAX_CHILDREN:
                _more(node, len(value) - i, location)
                break
            node.children.append(json_node(str(key), value[key], location))
        return node
    if isinstance(value, list):
        node = Node(name, None, kind="group", location=location, detail=f"{len(value)} item(s)")
        for i, item in enumerate(value):
            if i == MAX_CHILDREN:
                _more(node, len(value) - i, location)
                break
            node.children.append(json_node(f"[{i}]", item, location))
        return node
    return Node(name, value, kind=kind, location=location)


def _more(node: Node, count: int, location: str) -> None:
    node.add("...", None, kind="field", location=location,
             detail=f"{count} more item(s) not shown")


def member_tree(scan: ZipScan) -> Node:
    """``doc.tree``: one ``kind="member"`` node per ZIP entry, in archive order.

    ``value`` is the uncompressed size in bytes, ``location`` the member name,
    ``detail`` the sizes, compression, CRC-32, timestamp and permission bits.
    """
    root = Node(scan.path.name, None, kind="group", location="",
                detail=f"ZIP archive, {len(scan.entries):,} entr(y/ies), {scan.file_size:,} bytes")
    for e in scan.entries:
        method = "stored" if e.method == STORED else ("deflate" if e.method == 8 else
                                                      f"method {e.method}")
        perms = (e.external_attr >> 16) & 0o7777
        y, mo, d, h, mi, s = e.date_time
        detail = (f"{e.file_size:,} bytes, {method}, {e.compressed_size:,} compressed, "
                  f"crc {e.crc:08x}, {y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}, "
                  f"mode {perms:04o}")
        if not e.safe:
            detail += ", refused (failed a safety check)"
        if e.duplicate:
            detail += ", duplicate name"
        root.add(e.name, e.file_size, kind="member", location=e.name, detail=detail)
    return root


def header_tree(parts: HeaderParts, headers: Mapping[str, NpyHeader],
                integrity: str = PENDING, failed: Mapping[str, str] | None = None) -> Node:
    """``doc.header``: format version, creator, export time, axis mode, counts,
    units, scan ids, the three arrays' stored/declared shape and dtype, and
    last the ``integrity`` line.

    Args:
        parts: the parsed manifest, export record and experiment metadata.
        headers: the parsed ``.npy`` headers by array name.
        integrity: ``"pending verification"``, ``"verified"``,
            ``"failed verification"`` or ``"cancelled"``.
        failed: member name -> status of the members whose bytes failed
            verification; each is listed under the integrity line, and the
            experiment id is marked "not verified" when ``experiment.json``
            failed.
    """
    failed = failed or {}
    root = Node("AUCX archive", None, kind="group", location="")
    m: Mapping[str, Any] = parts.manifest if isinstance(parts.manifest, Mapping) else {}
    _manifest_nodes(root, m)
    obs = _mapping(m.get("observations"))
    if isinstance(parts.metadata, Mapping):
        node = root.add("experiment_id", parts.metadata.get("experiment_id"),
                        location=EXPERIMENT)
        if EXPERIMENT in failed:
            node.detail = "not verified"
    _array_nodes(root, _mapping(obs.get("arrays")), headers)
    line = root.add("integrity", integrity, location="")
    for member, status in failed.items():
        line.add(member, status, kind="member", location=member, detail="not verified")
    return root


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _manifest_nodes(root: Node, m: Mapping[str, Any]) -> None:
    """Format, creator, export time, checksum algorithm, observations."""
    root.add("format", "aucx", location=MANIFEST)
    root.add("aucx_format_version", m.get("aucx_format_version"), location=MANIFEST)
    cb = _mapping(m.get("created_by"))
    created = root.add("created_by", None, kind="group", location=MANIFEST)
    created.add("software", cb.get("software"), location=MANIFEST)
    created.add("version", cb.get("version"), location=MANIFEST)
    root.add("exported_at", m.get("exported_at"), location=MANIFEST)
    root.add("checksum_algorithm", m.get("checksum_algorithm"), location=MANIFEST)
    obs = _mapping(m.get("observations"))
    root.add("radius_axis_mode", obs.get("mode"), location=MANIFEST)
    root.add("n_scans", obs.get("n_scans"), location=MANIFEST)
    root.add("n_points", obs.get("n_points"), location=MANIFEST)
    root.add("radius_unit", obs.get("radius_unit"), location=MANIFEST)
    root.add("signal_unit", obs.get("signal_unit"), location=MANIFEST)
    ids = obs.get("scan_ids") if isinstance(obs.get("scan_ids"), list) else []
    root.children.append(json_node("scan_ids", ids, MANIFEST))


def _array_nodes(root: Node, declared: Mapping[str, Any],
                 headers: Mapping[str, NpyHeader]) -> None:
    arrays = root.add("arrays", None, kind="group", location=MANIFEST)
    for name in ("radius", "signal", "mask"):
        d = _mapping(declared.get(name))
        member = str(d.get("path") or f"arrays/{name}.npy")
        h = headers.get(name)
        node = arrays.add(name, None, kind="dataset", location=member)
        if h is not None:
            node.detail = f"{h.shape} {h.dtype}"
            node.add("shape", list(h.shape), location=member)
            node.add("dtype", str(h.dtype), location=member)
            node.add("fortran_order", h.fortran_order, location=member)
        node.add("declared_shape", d.get("shape"), location=MANIFEST)
        node.add("declared_dtype", d.get("dtype"), location=MANIFEST)


def provenance_tree(imported: Any, export: Any) -> Node:
    """``doc.provenance``: ``import`` and ``export`` as two separate subtrees.

    Import: source path/file name, digest, one child per source file
    (``role: filename`` with digest and byte size), parser, imported_at,
    warnings, assumptions and the value-category lists. Export: the AUCX
    export record (software, version, exported_at, checksum algorithm,
    member count).
    """
    root = Node("provenance", None, kind="group", location=PROVENANCE)
    imp = Node("import", None, kind="group", location=PROVENANCE,
               detail="where the data came from (import provenance)")
    if imported is None:
        imp.value = None
        imp.detail = "no import provenance recorded"
    elif isinstance(imported, dict):
        for key, value in imported.items():
            if key == "source_checksums" and isinstance(value, list):
                files = imp.add("source_files", None, kind="group", location=PROVENANCE,
                                detail=f"{len(value)} file(s)")
                for entry in value:
                    if isinstance(entry, dict):
                        label = f"{entry.get('role')}: {entry.get('filename')}"
                        files.children.append(json_node(label, entry, PROVENANCE))
                    else:
                        files.add("?", entry, location=PROVENANCE)
            else:
                imp.children.append(json_node(key, value, PROVENANCE))
    else:
        imp.value = imported
    root.children.append(imp)
    exp = json_node("export", export if export is not None else {}, PROVENANCE)
    exp.detail = "the AUCX export event that wrote this archive"
    root.children.append(exp)
    return root
