"""The objects section: every other HDF5 object and attribute, by location.

Walks both object trees (``Document.tree``): objects and attributes present on
one side only, objects of another kind, attribute values, datasets' shapes and
element types (content) and storage (layout, chunks, filters: representation),
and dataset values, read through ``Document.object_data``: real numbers as
lazy arrays chunk by chunk (:mod:`.chunked`), other values (text, compound) in
one bounded read.  For a recording, the objects its reader interprets are
compared by the other sections and left out here (``skip``).  Nothing here
imports Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.compare.fields import plain
from inspector.formats.compare.model import (
    ADDED,
    CHANGED,
    DTYPE,
    KIND,
    REMOVED,
    SHAPE,
    STORAGE,
    VALUES,
    Collector,
    Difference,
)
from inspector.formats.compare.values import ValueStats, compare_block

if TYPE_CHECKING:
    from inspector.formats.document import Document
    from inspector.formats.nodes.data import NodeData
    from inspector.formats.nodes.node import Node

SECTION = "objects"
#: Most attributes of one object compared (an object's tree lists the first ones; the
#: others are paged in).
MAX_PAGED_ATTRIBUTES = 100_000
#: Node kinds of the object tree compared here.
OBJECT_KINDS = frozenset({"group", "dataset", "attribute", "link", "datatype"})


def nodes_of(doc: Document, skip: Callable[[str], bool]) -> dict[str, Node]:
    """The object tree's nodes by location (the root and ``skip``-ped ones left out)."""
    if doc.tree is None:
        return {}
    return {n.location: n for n in doc.tree.walk()
            if n.location and n.location != "/" and n.kind in OBJECT_KINDS
            and not skip(n.location)}


def compare_objects(out: Collector, a: Document, b: Document,
                    skip: Callable[[str], bool] = lambda loc: False) -> None:
    """Compare the object trees of two documents (nothing when either has none)."""
    if a.tree is None or b.tree is None or a.object_data is None or b.object_data is None:
        return
    na, nb = nodes_of(a, skip), nodes_of(b, skip)
    for doc, nodes in ((a, na), (b, nb)):
        _page_attributes(out, doc, nodes, skip)
    for loc in [x for x in na if x not in nb]:
        out.add(Difference(SECTION, REMOVED, loc, na[loc].kind, None))
    for loc in [x for x in nb if x not in na]:
        out.add(Difference(SECTION, ADDED, loc, None, nb[loc].kind))
    for loc, x in na.items():
        y = nb.get(loc)
        if y is None:
            continue
        if x.kind != y.kind:
            out.add(Difference(SECTION, KIND, loc, x.kind, y.kind))
        elif x.kind in ("dataset", "attribute"):
            _compare_values(out, loc, a, b)
        elif x.kind == "link" and x.detail != y.detail:
            out.add(Difference(SECTION, CHANGED, loc, x.detail, y.detail))


def _page_attributes(out: Collector, doc: Document, nodes: dict[str, Node],
                     skip: Callable[[str], bool]) -> None:
    """Add the attributes an object's tree node does not list (its ``more attributes``
    row) to ``nodes``, page by page through ``ObjectData.attributes``; an object with more
    than :data:`MAX_PAGED_ATTRIBUTES` is listed as not compared."""
    from inspector.formats.capabilities import ATTRIBUTE_PAGE, MORE_ATTRIBUTES
    from inspector.formats.nodes.data import NodeReadError

    assert doc.tree is not None and doc.object_data is not None
    pager = doc.object_data.attributes
    owners = [n for n in doc.tree.walk() if any(c.kind == MORE_ATTRIBUTES for c in n.children)]
    for owner in owners:
        loc = owner.location or "/"
        if pager is None:
            out.skip(SECTION, loc, "its further attributes cannot be paged in")
            continue
        start = sum(1 for c in owner.children if c.kind == "attribute")
        try:
            while True:
                page = pager(loc, start, ATTRIBUTE_PAGE)
                if page.total > MAX_PAGED_ATTRIBUTES:
                    out.skip(SECTION, loc, f"{page.total} attributes, more than the "
                             f"{MAX_PAGED_ATTRIBUTES} compared")
                    break
                nodes.update((n.location, n) for n in page.nodes if not skip(n.location))
                if not page.nodes or page.end >= page.total:
                    break
                start = page.end
        except (NodeReadError, OSError) as exc:
            out.skip(SECTION, loc, f"its further attributes cannot be read: {exc}")


def _compare_values(out: Collector, loc: str, a: Document, b: Document) -> None:
    from inspector.formats.nodes.data import NodeReadError

    assert a.object_data is not None and b.object_data is not None
    try:
        da, db = a.object_data.lookup(loc), b.object_data.lookup(loc)
    except NodeReadError as exc:
        out.skip(SECTION, loc, exc.finding.message)
        return
    if da is None or db is None:
        out.skip(SECTION, loc, "no stored values to compare")
        return
    if da.shape != db.shape:
        out.add(Difference(SECTION, SHAPE, loc, plain(da.shape), plain(db.shape)))
        return
    if da.type.text != db.type.text:
        out.add(Difference(SECTION, DTYPE, loc, da.type.text, db.type.text))
    sa, sb = _storage(da), _storage(db)
    if sa != sb:
        out.add(Difference(SECTION, STORAGE, loc, sa, sb, content=False))
    stats = _value_stats(out, loc, da, db)
    if stats is not None and stats.differing:
        out.add(Difference(SECTION, VALUES, loc, detail=stats.to_json(),
                           note=f"{stats.differing:,} of {stats.compared:,} values differ"))


def _storage(node: NodeData) -> dict[str, Any]:
    s = node.storage
    return {"layout": s.layout, "chunks": plain(s.chunks),
            "filters": [f.name for f in s.filters]}


def _value_stats(out: Collector, loc: str, da: NodeData, db: NodeData) -> ValueStats | None:
    """The values compared, or None (recorded as not compared)."""
    from inspector.formats.compare.chunked import compare_values
    from inspector.formats.nodes.data import NodeReadError, SelectionTooLarge

    ra, rb = da.array_ref(), db.array_ref()
    try:
        if ra is not None and rb is not None:
            return compare_values(ra, rb, out.options).stats
        va, vb = da.read(), db.read()
    except (OSError, ValueError, MemoryError) as exc:
        if isinstance(exc, SelectionTooLarge):
            out.skip(SECTION, loc, f"too many values to compare in one read: {exc}")
        else:
            out.skip(SECTION, loc, f"the values cannot be read: {exc}")
        return None
    except NodeReadError as exc:
        out.skip(SECTION, loc, exc.finding.message)
        return None
    stats = ValueStats()
    names_b = [c.name for c in vb.columns]
    if [c.name for c in va.columns] != names_b:
        out.add(Difference(SECTION, DTYPE, loc, [c.name for c in va.columns], names_b,
                           note="fields differ"))
        return None
    o = out.options
    for ca, cb in zip(va.columns, vb.columns, strict=True):
        x, y = np.asarray(ca.values), np.asarray(cb.values)
        if x.shape != y.shape:
            return None
        stats.merge(compare_block(x, y, (), o.rtol, o.atol, o.exact))
    return stats


#: The root objects and attributes a VneuroTK recording's reader interprets (VneuroTK
#: format document, sections 1-5): compared by the other sections, not as objects.
RECORDING_OBJECTS = frozenset({
    "neuro", "neuro_row", "neuro_col", "neuro_data", "neuro_info", "stim_labels",
    "stimuli_db", "trial", "trial_starts", "trial_ends", "vision_onsets", "vision_info",
    "trial_info", "trial_meta", "vision_store",
})
RECORDING_ATTRIBUTES = frozenset({
    "vneurotk_format", "vneurotk_schema_version", "writer_version", "data_mode",
    "neuro_format", "neuro_shape", "neuro_dtype", "stim_labels_encoding",
    "stim_labels_shape", "stim_labels_is_str",
})


def interpreted_by_recording(location: str) -> bool:
    """True for a location of an object or attribute the recording reader interprets."""
    if location.startswith("/@"):
        return location[2:] in RECORDING_ATTRIBUTES
    top = location.lstrip("/").split("/", 1)[0].split("@", 1)[0]
    return top in RECORDING_OBJECTS
