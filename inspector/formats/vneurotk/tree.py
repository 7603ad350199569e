"""The raw HDF5 object tree of a file, built without reading dataset data.

Every group, dataset and link becomes a :class:`~inspector.formats.document.Node`
(location = HDF5 path); every attribute a child node of kind ``"attribute"``
(location ``"path@name"``) holding its decoded value.  Datasets show shape,
dtype, chunking and filters in ``detail``.  Scalar datasets and null-dataspace
(``h5py.Empty``) datasets/attributes are shown for what they are.

Safety (VneuroTK on-disk notes §6, "External links and virtual datasets point outside
the file: never follow one silently"): external links and virtual datasets
are followed read-only, each reported as a warning naming its target file; a
dangling link or a missing virtual-dataset source is an error.  Text
attributes holding invalid UTF-8 are shown escaped and reported as warnings.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import h5py

from inspector.formats.document import Node
from inspector.formats.vneurotk.values import as_text, display

#: ``report(severity, code, message, location)``.
Report = Callable[[str, str, str, str], None]


def dataset_detail(ds: h5py.Dataset) -> str:
    """``shape dtype, chunks ..., gzip(4)+shuffle`` for a dataset (no data read)."""
    if ds.shape is None:
        shape = "null dataspace (empty)"
    elif ds.shape == ():
        shape = "scalar"
    else:
        shape = "(" + ", ".join(str(n) for n in ds.shape) + ")"
    parts = [f"{shape} {ds.dtype}"]
    try:
        dcpl = ds.id.get_create_plist()
        layout = dcpl.get_layout()
        if layout == h5py.h5d.CHUNKED:
            parts.append("chunks (" + ", ".join(str(n) for n in dcpl.get_chunk()) + ")")
        elif layout == h5py.h5d.VIRTUAL:
            parts.append("virtual")
        elif layout == h5py.h5d.COMPACT:
            parts.append("compact")
        elif ds.shape not in (None, ()):
            parts.append("contiguous")
        filters = []
        for i in range(dcpl.get_nfilters()):
            code, _flags, values, _name = dcpl.get_filter(i)
            if code == h5py.h5z.FILTER_DEFLATE:
                filters.append(f"gzip({values[0]})" if values else "gzip")
            elif code == h5py.h5z.FILTER_SHUFFLE:
                filters.append("shuffle")
            else:
                filters.append(_name.decode("ascii", "replace") if isinstance(_name, bytes) else str(code))
        if filters:
            parts.append("+".join(f for f in filters if f != "shuffle") + ("+shuffle" if "shuffle" in filters else ""))
        if dcpl.get_external_count():
            parts.append("external raw storage")
    except (OSError, RuntimeError, ValueError, AttributeError):
        pass
    return ", ".join(parts)


def _attr_nodes(obj: h5py.HLObject, node: Node, report: Report) -> None:
    loc0 = obj.name or "/"
    try:
        names = list(obj.attrs.keys())
    except (OSError, RuntimeError) as exc:
        report("warning", "tree.attributes-unreadable", f"{loc0}: attributes cannot be listed: {exc}", loc0)
        return
    for name in names:
        loc = f"{loc0}@{name}"
        try:
            value = obj.attrs[name]
        except (OSError, RuntimeError, TypeError, ValueError, UnicodeDecodeError) as exc:
            report("warning", "tree.attribute-unreadable", f"{loc}: attribute cannot be read: {exc}", loc)
            node.add(name, None, kind="attribute", location=loc, detail="unreadable")
            continue
        if isinstance(value, h5py.Empty):
            node.add(name, None, kind="attribute", location=loc, detail=f"null dataspace (empty) {value.dtype}")
            continue
        t = as_text(value)
        if t is not None and not t.valid:
            report("warning", "text.invalid-utf8",
                   f"{loc}: text attribute is not valid UTF-8; shown with \\x escapes", loc)
        detail = type(value).__name__
        if t is not None:
            detail = {"str": "string", "bytes": "byte string", "array": "one-element text array"}[t.stored_as]
        elif hasattr(value, "dtype"):
            detail = f"{getattr(value, 'shape', ())} {value.dtype}" if getattr(value, "shape", ()) else str(value.dtype)
        node.add(name, display(value), kind="attribute", location=loc, detail=detail)


def build_tree(f: h5py.File, path: Path, report: Report) -> Node:
    """Walk ``f`` and return its object tree (root node location ``"/"``).

    Args:
        f: the open file.
        path: the file's path, used to resolve relative external targets in messages.
        report: receives findings (links, virtual datasets, invalid text).
    """
    root = Node(path.name, kind="group", location="/", detail="HDF5 file")
    _attr_nodes(f, root, report)
    seen: set[tuple[int, object]] = set()
    _walk(f, root, report, seen, path)
    return root


def _walk(group: h5py.Group, node: Node, report: Report, seen: set, path: Path) -> None:
    base = group.name.rstrip("/")
    try:
        names = list(group.keys())
    except (OSError, RuntimeError) as exc:
        report("error", "tree.group-unreadable", f"{group.name}: members cannot be listed: {exc}", group.name)
        return
    for name in names:
        loc = f"{base}/{name}"
        try:
            link = group.get(name, getlink=True)
        except (OSError, RuntimeError, KeyError) as exc:
            report("error", "tree.link-unreadable", f"{loc}: link cannot be read: {exc}", loc)
            continue
        via = None
        if isinstance(link, h5py.ExternalLink):
            via = node.add(name, f"{link.filename}:{link.path}", kind="link", location=loc,
                           detail=f"external link to {link.filename}:{link.path}")
            try:
                obj = group[name]
            except (KeyError, OSError, RuntimeError, ValueError) as exc:
                report("error", "link.dangling",
                       f"{loc}: external link to {link.filename}:{link.path} cannot be resolved "
                       f"(dangling link): {exc}", loc)
                continue
            target_file = h5py.h5f.get_name(obj.id).decode("utf-8", "backslashreplace")
            report("warning", "link.external",
                   f"{loc} is an external link to {link.filename}:{link.path} "
                   f"(resolved to {target_file}); followed read-only, its data live outside this file "
                   "(VneuroTK on-disk notes §6)", loc)
        elif isinstance(link, h5py.SoftLink):
            via = node.add(name, link.path, kind="link", location=loc, detail=f"soft link to {link.path}")
            try:
                obj = group[name]
            except (KeyError, OSError, RuntimeError, ValueError) as exc:
                report("error", "link.dangling", f"{loc}: soft link to {link.path} is dangling: {exc}", loc)
                continue
        else:
            try:
                obj = group[name]
            except (KeyError, OSError, RuntimeError, ValueError) as exc:
                report("error", "tree.object-unreadable", f"{loc}: object cannot be opened: {exc}", loc)
                continue
        target = via if via is not None else node
        if isinstance(obj, h5py.Group):
            try:
                info = h5py.h5o.get_info(obj.id)
                key = (obj.id.fileno, getattr(info, "token", None) or getattr(info, "addr", None))
            except Exception:  # noqa: BLE001 - identity is only used to stop cycles
                key = (id(obj), loc)
            try:
                members = f"{len(obj)} member{'' if len(obj) == 1 else 's'}"
            except (OSError, RuntimeError, ValueError) as exc:
                report("error", "tree.group-unreadable", f"{loc}: group cannot be read: {exc}", loc)
                members = "unreadable"
            child = target.add(name, None, kind="group", location=loc, detail=members) if via is None else via
            if via is not None:
                via.kind = "link"
            _attr_nodes(obj, child, report)
            if key in seen:
                child.detail += " (already shown: hard-link cycle)"
                continue
            seen.add(key)
            _walk(obj, child, report, seen, path)
        elif isinstance(obj, h5py.Dataset):
            detail = dataset_detail(obj)
            if via is None:
                child = node.add(name, None, kind="dataset", location=loc, detail=detail)
            else:
                child = via
                child.detail += f"; target {detail}"
            _attr_nodes(obj, child, report)
            _check_virtual(obj, loc, report, path)
        else:
            target.add(name, None, kind="object", location=loc, detail=type(obj).__name__)


def _check_virtual(ds: h5py.Dataset, loc: str, report: Report, path: Path) -> None:
    try:
        if not ds.is_virtual:
            return
        sources = ds.virtual_sources()
    except (OSError, RuntimeError, ValueError) as exc:
        report("error", "vds.unreadable", f"{loc}: virtual dataset mapping cannot be read: {exc}", loc)
        return
    files = []
    for s in sources:
        if s.file_name not in files:
            files.append(s.file_name)
    for name in files:
        if name == ".":
            report("info", "vds.internal", f"{loc} is a virtual dataset mapping other datasets of this file", loc)
            continue
        target = Path(name)
        resolved = target if target.is_absolute() else Path(ds.file.filename).parent / target
        if not resolved.exists():
            report("error", "vds.missing-source",
                   f"{loc} is a virtual dataset whose source file {name} does not exist; HDF5 would "
                   "silently return fill values (VneuroTK on-disk notes §6)", loc)
        else:
            report("warning", "vds.external",
                   f"{loc} is a virtual dataset reading from {name}; followed read-only, its data live "
                   "outside this file (VneuroTK on-disk notes §6)", loc)
