"""Open any HDF5 file as a :class:`~inspector.formats.document.Document` ("HDF5 file").

The document holds the object tree (groups, datasets, links, attributes;
:mod:`.tree`), the values of any dataset or attribute on demand
(:mod:`.data`, the ``ObjectData`` capability: the detail, table and plot
views), a header counting what the file holds, and the findings about the
file itself (:mod:`.rules`): a part HDF5 cannot read, a link that cannot be
followed, a filter that is not installed.  Opening reads metadata only.

Never raises for bad input: a file HDF5 cannot open is a document with the
finding that says why (``file.truncated``, ``file.locked``...).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from inspector.formats.document import Document, FormatId
from inspector.formats.hdf5 import rules as R
from inspector.formats.hdf5.data import object_data
from inspector.formats.hdf5.source import STEP_ERRORS, H5Source, OpenError, step_finding
from inspector.formats.hdf5.tree import build_path_tree, build_tree
from inspector.formats.nodes.node import Node
from inspector.formats.remote.path import RemotePath, as_source

#: ``Document.kind_label`` of an HDF5 file.
KIND_HDF5 = "HDF5 file"
#: ``Document.kind_label`` of a file HDF5 cannot open, by the code of the finding saying why.
KIND_UNOPENED = {
    R.FILE_TRUNCATED.code: "Truncated HDF5 file",
    R.FILE_NOT_HDF5.code: "Not an HDF5 file",
    R.FILE_LOCKED.code: "Locked HDF5 file",
}
KIND_UNREADABLE = "Unreadable HDF5 file"

T = TypeVar("T")


def open_hdf5(path: Path | RemotePath, *, only: str | None = None) -> Document:
    """Open ``path`` read-only as an HDF5 file.

    Args:
        path: the file, local or a URL.
        only: open for the values of this one object (``"/a/b"``, ``"/a@attr"``:
            ``inspector dump``): the tree holds the objects on its way alone
            (:func:`~.tree.build_path_tree`), and nothing else is read or counted.

    Returns:
        A Document of format ``"hdf5"`` whose ``tree`` is the object tree,
        ``object_data`` gives any dataset's or attribute's values, ``header``
        counts the groups, datasets, links and root attributes, and
        ``summary`` (``verify --json``) holds the same counts and the size of
        the user block (``userblock_bytes``: 512 for a MATLAB 7.3 file).

    Never raises for bad input: every problem is a finding.
    """
    path = as_source(path)
    doc = Document(path, format=FormatId.HDF5, kind_label=KIND_HDF5, tree_title="HDF5 objects")
    try:
        src = H5Source(path)
    except OpenError as exc:
        doc.report(exc.rule, exc.message)
        doc.kind_label = KIND_UNOPENED.get(exc.rule.code, KIND_UNREADABLE)
        doc.header.add("format", doc.kind_label)
        return doc
    doc.on_close(src.close)
    doc.snapshot_check = src.check
    doc.object_data = object_data(src)
    if src.lock_warning:
        doc.report(R.FILE_LOCK_BYPASSED, src.lock_warning)
    if only is not None:
        doc.tree = _guard(doc, lambda: build_path_tree(src.file, doc.path, doc.report, only))
        return doc
    doc.tree = _guard(doc, lambda: build_tree(src.file, doc.path, doc.report,
                                              unresolved_external=R.LINK_EXTERNAL_UNRESOLVED))
    userblock = _guard(doc, lambda: int(src.file.userblock_size))
    doc.header = contents_header(doc.tree, KIND_HDF5, userblock)
    doc.summary = {c.name.replace(" ", "_"): c.value for c in doc.header.children
                   if c.name != "format"}
    return doc


def _guard(doc: Document, fn: Callable[[], T]) -> T | None:
    """Run one step; HDF5 failing on a damaged part is a finding (not repeated)."""
    try:
        return fn()
    except STEP_ERRORS as exc:
        finding = step_finding(exc)
        if not any(f.code == finding.code and f.location == finding.location
                   for f in doc.findings):
            doc.findings.add(finding)
    return None


def contents_header(tree: Node | None, kind: str, userblock: int | None = None) -> Node:
    """The header of an HDF5 file: what it is, and how many groups, datasets, links and
    root attributes it holds (counted in ``tree``; virtual sources are not objects of the
    file), and the size of its user block when it has one."""
    h = Node("header", kind="group")
    h.add("format", kind)
    if tree is None:
        return h
    counts = {"group": 0, "dataset": 0, "link": 0}
    for n in tree.walk():
        if n is not tree and n.kind in counts and n.location:  # (not virtual sources)
            counts[n.kind] += 1
    for label, key in (("groups", "group"), ("datasets", "dataset"), ("links", "link")):
        h.add(label, counts[key])
    h.add("root attributes", sum(1 for c in tree.children if c.kind == "attribute"),
          location="/")
    if userblock:
        h.add("userblock bytes", userblock,
              detail="bytes before the HDF5 superblock, kept for another program "
                     "(a MATLAB 7.3 file's header)")
    return h
