"""The raw HDF5 object tree of a file, built without reading dataset data.

Every group, dataset and link becomes a :class:`~inspector.formats.document.Node`
(location = HDF5 path); every attribute a child node of kind ``"attribute"``
(location ``"path@name"``) holding its decoded value.  Datasets show shape,
dtype, chunking and filters in ``detail``.  Scalar datasets and null-dataspace
(``h5py.Empty``) datasets/attributes are shown for what they are.

Safety (recording notes §6, "External links and virtual datasets point outside
the file: never follow one silently"): external links and virtual datasets
are followed read-only, each reported as a warning naming its target file; a
dangling link or a missing virtual-dataset source is an error.  Names and text
attributes holding invalid UTF-8 are shown escaped and reported as warnings.

Bounded work: the walk is iterative (a chain of groups thousands deep opens),
each object lists at most :data:`MAX_ATTRIBUTES` attributes (the others are
counted in a finding), an attribute larger than :data:`MAX_ATTRIBUTE_BYTES`
is described, not read, and the tree holds at most :data:`MAX_OBJECTS`
objects.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import h5py

from inspector.formats.document import Node
from inspector.formats.findings import Rule
from inspector.formats.hdf5 import external_guard, vds_guard
from inspector.formats.hdf5 import rules as R
from inspector.formats.hdf5.attributes import Report, attribute_nodes, decoded_name
from inspector.formats.hdf5.elink_guard import special_target
from inspector.formats.hdf5.filters import missing_text
from inspector.formats.hdf5.heap import HeapGuard, guard_of, soft_link_problem
from inspector.formats.hdf5.object_header import object_identity
from inspector.formats.hdf5.read_watch import watch
from inspector.formats.hdf5.type_text import dataset_detail, dtype_text
from inspector.formats.nodes.node import LinkTarget
from inspector.formats.remote.path import RemotePath
from inspector.formats.sources.folder_bounds import real

#: Objects (groups, datasets, links) listed in the tree; the rest are counted.
MAX_OBJECTS = 200_000


# -- objects -----------------------------------------------------------------------------
@dataclass
class _Walk:
    """State of one iterative walk."""

    report: Report
    seen: set[tuple[Any, ...]]
    stack: list[tuple[h5py.Group, Node]]
    objects: int = 0
    left_out: int = 0
    remote: RemotePath | None = None
    """The URL of a file read from one: its external links resolve beside it, unfollowed."""
    unresolved_external: Rule = R.LINK_DANGLING
    """The rule of an external link whose file or object cannot be found."""
    parent: _Parent | None = None
    """What the members of the group being walked share (:func:`_enter`)."""
    filenos: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """The file number of each queued group reached by a hard link (by ``id``)."""


@dataclass
class _Parent:
    """What every member of one group shares, asked for once per group: the heap guard
    of its file (:mod:`.heap`) and the file number of its object identity (a hard link
    stays in its group's file, so a member's identity is this number and the link's
    address: no second ``H5Gget_objinfo`` per member)."""

    guard: HeapGuard | None
    fileno: tuple[int, ...] | None


def _enter(group: h5py.Group, walk: _Walk) -> None:
    """Make ``group`` the group whose members ``walk`` adds next."""
    fileno = walk.filenos.pop(id(group), None)
    if fileno is None:
        identity = object_identity(group)
        fileno = identity[0] if identity is not None else None
    walk.parent = _Parent(guard_of(group), fileno)


def build_tree(f: h5py.File, path: Path, report: Report, *,
               unresolved_external: Rule = R.LINK_DANGLING) -> Node:
    """Walk ``f`` iteratively and return its object tree (root node location ``"/"``).

    Args:
        f: the open file.
        path: the file's path (its name labels the root node).
        report: receives findings (links, virtual datasets, invalid text, caps).
        unresolved_external: the rule of an external link whose file or object
            cannot be found: ``link.dangling`` (an error: a recording's links are
            its content) or ``link.external-unresolved`` (a warning: a plain HDF5
            file whose other files are not beside it is still read).
    """
    root = Node(path.name, kind="group", location="/", detail="HDF5 file")
    attribute_nodes(f, root, report)
    remote = path if isinstance(path, RemotePath) else None
    _check_object_info(f, "/", report)
    walk = _Walk(report, {_identity(f, "/")}, [(f, root)], remote=remote,
                 unresolved_external=unresolved_external)
    while walk.stack:
        group, node = walk.stack.pop()
        _members(group, node, walk)
    if walk.left_out:
        report(R.TREE_MEMBERS_CAPPED,
               f"the file has more than {MAX_OBJECTS} objects; {walk.left_out} are not listed",
               "/")
    return root


def build_path_tree(f: h5py.File, path: Path, report: Report, location: str) -> Node:
    """The object tree of ``f`` cut down to the objects on the way to ``location``
    (``"/a/b"`` or ``"/a/b@attr"``): each member on the way is added, checked and
    reported exactly as :func:`build_tree` adds it, and no other member is listed or
    opened (``inspector dump`` of one member of a file of 100 000 groups).  When
    ``location`` names a group, its own members are listed too (not theirs).

    Args:
        f, path, report: as for :func:`build_tree`.
        location: the object whose way is walked; a name with ``\\xNN`` escapes is
            not looked up (the walk stops before it).
    """
    root = Node(path.name, kind="group", location="/", detail="HDF5 file")
    attribute_nodes(f, root, report)
    remote = path if isinstance(path, RemotePath) else None
    walk = _Walk(report, {_identity(f, "/")}, [], remote=remote)
    group, node = f, root
    base = ""
    way = location.partition("@")[0].strip("/")
    for name in way.split("/") if way else []:
        raw = name.encode("utf-8", "surrogateescape")
        try:
            if not name or "\\x" in name or not group.id.links.exists(raw):
                break
        except (OSError, RuntimeError, ValueError):
            break
        base = f"{base}/{name}"
        _enter(group, walk)
        queued = _member(group, raw, name, base, node, walk)
        if queued is None:
            break
        group, node = queued
    else:
        if "@" not in location:  # a group asked for by name: its own members too, one level
            _members(group, node, walk)
    return root


def _identity(obj: Any, loc: str) -> tuple[Any, ...]:
    """A key naming the object itself (not the path), to stop hard-link cycles and
    external links back into the same file: its file number and object header address
    (:func:`~inspector.formats.hdf5.heap.object_identity`, which reads the
    object header only).  When even that cannot be read, the file's name and the path
    HDF5 opened the object by: a link back to a path already walked is still seen."""
    identity = object_identity(obj)
    if identity is not None:
        return identity
    try:
        return (h5py.h5f.get_name(obj.id), h5py.h5i.get_name(obj.id))
    except (OSError, RuntimeError, ValueError, AttributeError):
        return (id(obj), loc)


def _check_object_info(obj: Any, loc: str, report: Report, failed: Exception | None = None,
                       read: bool = False) -> None:
    """Report a group whose object information HDF5 cannot read (``H5Oget_info``, which
    also reads the attribute storage: its fractal heap and free-space manager, HDF5 File
    Format Specification 3.0, III.G and III.H) while its header itself can be read.
    ``read``: the information was asked for already, ``failed`` its error (or None)."""
    try:
        if failed is not None:
            raise failed
        if not read:
            h5py.h5o.get_info(obj.id)
    except (OSError, RuntimeError, ValueError) as exc:
        if object_identity(obj) is not None:
            report(R.FILE_CORRUPT, f"{loc}: HDF5 cannot read the object's information (its "
                   f"header or attribute storage is damaged): {exc}", loc)


def _member_names(group: h5py.Group, loc: str, walk: _Walk) -> list[bytes]:
    try:
        return list(group.id)
    except (OSError, RuntimeError, ValueError) as exc:
        walk.report(R.TREE_GROUP_UNREADABLE, f"{loc}: members cannot be listed: {exc}", loc)
        return []


def _members(group: h5py.Group, node: Node, walk: _Walk) -> None:
    """Add the members of ``group`` under ``node``; queue its subgroups."""
    base = node.location.rstrip("/")
    subgroups: list[tuple[h5py.Group, Node]] = []
    _enter(group, walk)
    for raw in _member_names(group, node.location, walk):
        if walk.objects >= MAX_OBJECTS:
            walk.left_out += 1
            continue
        walk.objects += 1
        name = decoded_name(raw, f"{base}/", walk.report)
        queued = _member(group, raw, name, f"{base}/{name}", node, walk)
        if queued is not None:
            subgroups.append(queued)
    walk.stack.extend(reversed(subgroups))  # depth first, in name order


def _soft_target(base: str, target: str) -> str:
    """The absolute path a soft link's value names (relative values from the link's group)."""
    return posixpath.normpath(target if target.startswith("/") else f"{base}/{target}")


def _external_file(group: h5py.Group, filename: str, remote: RemotePath | None) -> str:
    """Where HDF5 looks for an external link's file first: a relative name from the
    folder of the linking file (HDF5 library, ``H5Lcreate_external``).  For a file
    read from the URL ``remote``, the URL beside it (``""`` for a local absolute path)."""
    if remote is not None:
        beside = remote.beside(filename)
        return str(beside) if beside is not None else ""
    name = Path(filename)
    if name.is_absolute():
        return str(name)
    here = Path(h5py.h5f.get_name(group.id).decode("utf-8", "backslashreplace"))
    return os.path.abspath(here.parent / name)


def _link_node(group: h5py.Group, info: Any, raw: bytes, name: str, loc: str,
               node: Node, remote: RemotePath | None) -> tuple[Node | None, str]:
    """The node of a soft or external link (None for a hard link) and what it points at,
    given the link's ``info`` (``H5Lget_info``).

    Read with the low-level link API: h5py's ``Group.get`` decodes the name
    and fails on invalid UTF-8.
    """
    if info.type == h5py.h5l.TYPE_SOFT:
        target = group.id.links.get_val(raw).decode("utf-8", "backslashreplace")
        path = _soft_target(loc.rsplit("/", 1)[0] or "/", target)
        return node.add(name, target, kind="link", location=loc,
                        detail=f"soft link to {target}",
                        target=LinkTarget(path, "soft")), target
    if info.type == h5py.h5l.TYPE_EXTERNAL:
        filename, path = (v.decode("utf-8", "backslashreplace")
                          for v in group.id.links.get_val(raw))
        target = f"{filename}:{path}"
        link = LinkTarget(path, "external", filename, _external_file(group, filename, remote))
        return node.add(name, target, kind="link", location=loc,
                        detail=f"external link to {target}", target=link), target
    return None, ""


def _follow_link(group: h5py.Group, raw: bytes, name: str, loc: str, node: Node,
                 walk: _Walk) -> tuple[Any, Node | None, int | None] | None:
    """Open member ``raw`` of ``group``: ``(object, link node or None, the header address
    of a hard link's object or None)``, or None.  The link is asked for once
    (``H5Lget_info``) and its answer shared by the guards."""
    try:
        info = group.id.links.get_info(raw)
        via, target = _link_node(group, info, raw, name, loc, node, walk.remote)
        addr = int(info.u) if info.type == h5py.h5l.TYPE_HARD else None
    except (OSError, RuntimeError, KeyError, ValueError) as exc:
        walk.report(R.TREE_LINK_UNREADABLE, f"{loc}: link cannot be read: {exc}", loc)
        return None
    if walk.remote is not None and via is not None and via.detail.startswith("external"):
        _remote_external(via, target, loc, walk)
        return None
    if via is not None and _outside_link(group, via, loc, walk):
        return None
    if _refused_before_open(group, raw, name, loc, node, via, addr, walk):
        return None
    try:
        with watch(_opened_by(via), loc):  # a target swapped for a pipe is released
            # Asked again right before HDF5 opens the member: measured, HDF5 then keeps
            # about 1.4 KB less per open group (benchmarks/hdf5_many_groups.py; 20 000
            # groups: 119 MB against 147 MB peak); why is not known.
            group.id.links.get_info(raw)
            obj = group[raw]
    except (KeyError, OSError, RuntimeError, ValueError) as exc:
        if via is None:
            walk.report(R.TREE_OBJECT_UNREADABLE, f"{loc}: object cannot be opened: {exc}", loc)
        else:
            walk.report(_dangling_rule(via, exc, walk), f"{loc}: {via.detail} is dangling "
                        f"(cannot be resolved): {_why_dangling(via, exc)}", loc)
            via.detail += " (dangling: nothing there)"
            if via.target is not None:
                via.target = replace(via.target, dangling=True)
        return None
    if via is not None and via.detail.startswith("external"):
        resolved = h5py.h5f.get_name(obj.id).decode("utf-8", "backslashreplace")
        walk.report(R.LINK_EXTERNAL,
                    f"{loc} is an external link to {target} (resolved to {resolved}); "
                    "followed read-only, its data live outside this file", loc)
        if via.target is not None:
            via.target = replace(via.target, resolved=os.path.abspath(resolved))
    return obj, via, addr if via is None else None


def _opened_by(via: Node | None) -> list[str]:
    """The file an external link ``via`` opens (where HDF5 looks first), for the
    watchdog (:mod:`.read_watch`); none for a hard or soft link."""
    link = via.target if via is not None else None
    return [link.resolved] if link is not None and link.kind == "external" and link.resolved \
        else []


def _outside_link(group: h5py.Group, via: Node, loc: str, walk: _Walk) -> bool:
    """True (after ``external.outside``) when the external link ``via`` leads to a file
    outside the document's folder tree that no ``--allow-external`` allows: it is not
    followed (:func:`.external_guard.link_refusal`)."""
    link = via.target
    if link is None or link.kind != "external" or not link.file:
        return False
    parent = h5py.h5f.get_name(group.id).decode("utf-8", "backslashreplace")
    refusal = external_guard.link_refusal(parent, link.file)
    if refusal is None or refusal.rule is not R.EXTERNAL_OUTSIDE:
        return False
    walk.report(refusal.rule, refusal.message(loc), loc)
    via.detail += " (outside the document's folder: not followed)"
    via.target = replace(link, dangling=True)
    return True


def _refused_before_open(group: h5py.Group, raw: bytes, name: str, loc: str, node: Node,
                         via: Node | None, addr: int | None, walk: _Walk) -> bool:
    """True (after the finding) when member ``raw`` (a hard link to the object header at
    ``addr``, or the link ``via``) must not be opened: a group on the way whose local
    heap HDF5 would loop on, or a virtual dataset of more mappings than are opened
    (:mod:`.vds_guard`: HDF5 would decode them all)."""
    guard = walk.parent.guard if walk.parent is not None else None
    problem = _open_problem(group, raw, via, addr, guard)
    if problem is not None:  # opening it would have HDF5 allocate without end
        walk.report(R.TREE_GROUP_UNREADABLE, f"{loc}: members cannot be listed: {problem}", loc)
        if via is None:
            node.add(name, None, kind="group", location=loc, detail="members cannot be listed")
        else:
            via.detail += "; its target's members cannot be listed"
        return True
    if via is not None and (via.target is None or via.target.kind != "soft"):
        refused = external_guard.linked_mappings(group, raw, loc)  # in another file
    elif via is None:
        refused = vds_guard.refusal_at(guard, addr, loc) \
            if guard is not None and addr is not None else None
    else:
        refused = vds_guard.member_refusal(group, raw, loc)
    if refused is None:
        return False
    walk.report(R.VDS_TOO_MANY_MAPPINGS, str(refused), loc)
    what = f"virtual dataset of {refused.count:,} mappings (not opened)"
    if via is None:
        node.add(name, None, kind="dataset", location=loc, detail=what)
    else:
        via.detail += f"; its target is a {what}"
    return True


def _open_problem(group: h5py.Group, raw: bytes, via: Node | None, addr: int | None,
                  guard: HeapGuard | None) -> str | None:
    """Why member ``raw`` (a hard link to the object header at ``addr``, or the soft
    link ``via``) must not be opened: a group on the way whose local heap HDF5 would
    loop on (:meth:`.heap.HeapGuard.problem_at`), or None."""
    if via is None:
        return guard.problem_at(addr) if guard is not None and addr is not None else None
    if via.target is not None and via.target.kind == "soft":
        return soft_link_problem(group, raw)
    return None


def _remote_external(via: Node, target: str, loc: str, walk: _Walk) -> None:
    """An external link of a file read from a URL: shown with the URL it names, never
    followed (HDF5 would look for the file on this machine; docs/architecture.md,
    "Remote sources").  A local absolute path names nothing to open."""
    link = via.target
    assert link is not None
    if link.resolved:
        via.detail += f" (at {link.resolved}; not followed over the network)"
        where = f"at {link.resolved}"
    else:
        via.target = replace(link, dangling=True)
        via.detail += " (a local path of the machine that wrote it: nothing to open)"
        where = "a local path, nothing beside the URL"
    walk.report(R.LINK_EXTERNAL_URL,
                f"{loc} is an external link to {target} ({where}); not followed over the "
                "network: its target opens as a document of its own", loc)


def _dangling_rule(via: Node, exc: BaseException, walk: _Walk) -> Rule:
    """``link.dangling``, or the walk's rule for an external link that is merely not found
    (not one refused: a named pipe, a cycle of links)."""
    link = via.target
    if (link is None or link.kind != "external" or "too many links" in str(exc)
            or special_target("", link.resolved or link.file or "")):
        return R.LINK_DANGLING
    return walk.unresolved_external


def _why_dangling(via: Node, exc: BaseException) -> str:
    """Why a link leads nowhere, in words where HDF5's are cryptic."""
    link = via.target
    if link is not None and link.kind == "external" and link.file:
        if special_target("", link.resolved or link.file):
            return f"its file {link.file} is a named pipe, socket or device, never opened"
    if "too many links" in str(exc):
        return "it leads back to itself (a cycle of links HDF5 gives up on)"
    return str(exc)


def _member(group: h5py.Group, raw: bytes, name: str, loc: str, node: Node,
            walk: _Walk) -> tuple[h5py.Group, Node] | None:
    """Add one member; return ``(subgroup, its node)`` when its members are to be listed."""
    opened = _follow_link(group, raw, name, loc, node, walk)
    if opened is None:
        return None
    obj, via, addr = opened
    if isinstance(obj, h5py.Group):
        fileno = walk.parent.fileno if walk.parent is not None else None
        key = (fileno, addr) if fileno is not None and addr is not None else None
        return _group_member(obj, name, loc, node, via, walk, key)
    if isinstance(obj, h5py.Dataset):
        detail = dataset_detail(obj)
        if "unsupported HDF5 type" in detail:
            walk.report(R.TREE_UNSUPPORTED_TYPE,
                        f"{loc}: {dtype_text(obj)}; its values cannot be read", loc)
        missing = missing_text(obj)
        if missing is not None:
            walk.report(R.DATA_FILTER_UNAVAILABLE, f"{loc}: {missing}; its values cannot be "
                        "read", loc)
        if via is None:
            child = node.add(name, None, kind="dataset", location=loc, detail=detail)
        else:
            child = via
            child.detail += f"; target {detail}"
        attribute_nodes(obj, child, walk.report)
        refused = _check_external(obj, loc, child, walk.report)
        _check_virtual(obj, loc, child, walk.report, walk.remote, refused)
        return None
    (via if via is not None else node).add(name, None, kind="object", location=loc,
                                           detail=type(obj).__name__)
    return None


def _attribute_count(n: int | None) -> str:
    """``", 8 attributes"`` for a group of ``n`` attributes (shown as its children beside
    its members, so that "0 members" above eight rows does not read as a contradiction),
    else ``""``; ``""`` too when the attribute table cannot be read (``n`` None: reported
    by :func:`attribute_nodes`)."""
    return f", {n} attribute{'' if n == 1 else 's'}" if n else ""


def _counted_attributes(obj: h5py.Group, n: int | None) -> int | None:
    """``n``, or when ``H5Oget_info`` failed, the count HDF5 gives on its own (which may
    still be read), or None."""
    if n is not None:
        return n
    try:
        return len(obj.attrs)
    except (OSError, RuntimeError, ValueError, KeyError):
        return None


def _object_info(obj: Any) -> tuple[int | None, Exception | None]:
    """``(number of attributes, None)`` of ``obj`` from one ``H5Oget_info`` (which the
    attribute count, the attribute listing and :func:`_check_object_info` all need), or
    ``(None, the error)`` when HDF5 cannot read it."""
    try:
        return int(h5py.h5o.get_info(obj.id).num_attrs), None
    except (OSError, RuntimeError, ValueError, KeyError) as exc:
        return None, exc


def _group_member(obj: h5py.Group, name: str, loc: str, node: Node, via: Node | None,
                  walk: _Walk, key: tuple[Any, ...] | None = None
                  ) -> tuple[h5py.Group, Node] | None:
    """Add the group ``obj`` (identified by ``key`` when its hard link gave it); return
    it and its node when its members are to be listed."""
    n_attrs, failed = _object_info(obj)
    try:
        n = len(obj)
        counted = _attribute_count(_counted_attributes(obj, n_attrs))
        members = f"{n} member{'' if n == 1 else 's'}" + counted
    except (OSError, RuntimeError, ValueError) as exc:
        walk.report(R.TREE_GROUP_UNREADABLE, f"{loc}: group cannot be read: {exc}", loc)
        members = "unreadable"
    child = via if via is not None else node.add(name, None, kind="group", location=loc,
                                                  detail=members)
    attribute_nodes(obj, child, walk.report, n_attrs)
    key = key if key is not None else _identity(obj, loc)
    if key in walk.seen:
        child.detail += " (already shown: hard-link cycle)"
        return None
    _check_object_info(obj, loc, walk.report, failed, n_attrs is not None)
    walk.seen.add(key)
    if len(key) == 2 and isinstance(key[0], tuple):  # (file number, address)
        walk.filenos[id(obj)] = key[0]
    return obj, child


#: Virtual-dataset sources listed as link nodes under their dataset; the rest are counted.
MAX_VIRTUAL_SOURCES = 100


def _virtual_sources(ds: h5py.Dataset, sources: list[Any], node: Node,
                     remote: RemotePath | None) -> None:
    """One link node per source of a virtual dataset (at most :data:`MAX_VIRTUAL_SOURCES`),
    with its target: a dataset of this file (``"."``) or of another one (beside the
    URL ``remote`` for a file read from one)."""
    here = Path(ds.file.filename)
    for i, s in enumerate(sources[:MAX_VIRTUAL_SOURCES]):
        path = s.dset_name if s.dset_name.startswith("/") else f"/{s.dset_name}"
        if s.file_name == ".":
            link = LinkTarget(path, "virtual")
        elif remote is not None:
            beside = _external_file(ds, s.file_name, remote)
            link = LinkTarget(path, "virtual", s.file_name, beside, dangling=not beside)
        else:
            name = Path(s.file_name)
            resolved = name if name.is_absolute() else here.parent / name
            link = LinkTarget(path, "virtual", s.file_name, os.path.abspath(resolved),
                              dangling=not resolved.exists())
        where = "this file" if link.in_this_file else s.file_name
        node.add(f"source {i}", f"{where}:{path}", kind="link",
                 detail=f"virtual dataset source: {path} in {where}"
                        + (" (missing file)" if link.dangling else ""), target=link)
    if len(sources) > MAX_VIRTUAL_SOURCES:
        node.add("more sources", len(sources) - MAX_VIRTUAL_SOURCES,
                 detail="virtual dataset sources not listed")


def _check_external(ds: h5py.Dataset, loc: str, node: Node, report: Report) -> set[str]:
    """Report what reading ``ds`` would open in other files (:mod:`.external_guard`):
    each refusal (the values are then never read), external storage read from the
    document's folder; the dataset's detail says where its values come from.
    Returns the file names (as stored) that are refused."""
    verdict = external_guard.examine(ds)
    for refusal in verdict.refusals:
        report(refusal.rule, refusal.message(loc), loc)
    note = verdict.note()
    if note:
        node.detail += f"; {note}"
    if not verdict.readable:
        named = ", ".join(dict.fromkeys(r.resolved or r.target for r in verdict.refusals[:3]))
        node.detail += f"; values not read (from {named}; see the findings)"
    elif verdict.files and not ds.is_virtual:
        report(R.EXTERNAL_STORAGE, f"{loc}: its values are read from "
               f"{', '.join(verdict.files[:3])}, outside this file (external storage)", loc)
    return {r.target for r in verdict.refusals}


def _same_file(ds: h5py.Dataset, name: str) -> bool:
    """True when the virtual source file ``name`` of ``ds`` is the file of ``ds`` itself."""
    path, _kind = external_guard.opened_file(ds.file.filename, name, "HDF5_VDS_PREFIX")
    return bool(path) and real(path) == real(ds.file.filename)


def _check_virtual(ds: h5py.Dataset, loc: str, node: Node, report: Report,
                   remote: RemotePath | None = None, refused: set[str] | None = None) -> None:
    """List the sources of a virtual dataset and report each source file that is read
    (recording notes §6); ``refused`` are those :func:`_check_external` reported as
    never read (those of a file read from a URL among them)."""
    try:
        if not ds.is_virtual:
            return
        sources = ds.virtual_sources()
    except (OSError, RuntimeError, ValueError) as exc:
        report(R.VDS_UNREADABLE, f"{loc}: virtual dataset mapping cannot be read: {exc}", loc)
        return
    _virtual_sources(ds, sources, node, remote)
    files = list(dict.fromkeys(s.file_name for s in sources))
    for name in files:
        if name == ".":
            report(R.VDS_INTERNAL,
                   f"{loc} is a virtual dataset mapping other datasets of this file", loc)
        elif name not in (refused or set()) and remote is None and not _same_file(ds, name):
            report(R.VDS_EXTERNAL,
                   f"{loc} is a virtual dataset reading from {name}; followed read-only, its "
                   "data live outside this file", loc)
