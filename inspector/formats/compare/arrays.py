"""The arrays section: lazy arrays of two documents, by name.

Shape and element type are content; how the values are stored (dense or
sparse, chunk shape, filters) is representation (``content=False``), noted
apart from the values, which are compared chunk by chunk (:mod:`.chunked`).
An archive's array whose member has the same content in both archives (the same
verified digest, or the same stored bytes) is equal without being read
(:mod:`.members`).  Nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from inspector.formats.compare.chunked import compare_values
from inspector.formats.compare.model import (
    ADDED,
    DTYPE,
    REMOVED,
    SHAPE,
    STORAGE,
    VALUES,
    Collector,
    Difference,
)

if TYPE_CHECKING:
    from inspector.formats.analysis.arrays import ArrayRef

SECTION = "arrays"


def compare_arrays(out: Collector, a: Mapping[str, ArrayRef], b: Mapping[str, ArrayRef],
                   skip: Collection[str] = (), same_members: Collection[str] = (),
                   section: str = SECTION, unread_members: Collection[str] = ()) -> None:
    """Compare the arrays of two documents by name (A's order, then B's others).

    Args:
        out: the collector.
        a, b: ``Document.arrays`` of each side.
        skip: names compared by another section (the scans of an AUC experiment).
        same_members: archive member names whose content is equal in both.
        section: the section the differences go in.
        unread_members: archive member names whose values are not read
            (``--digests-only``): such arrays' values are listed as not compared.
    """
    for name in [n for n in a if n not in skip] + [n for n in b if n not in a and n not in skip]:
        ra, rb = a.get(name), b.get(name)
        if ra is None or rb is None:
            ref = ra if ra is not None else rb
            assert ref is not None
            out.add(Difference(section, ADDED if ra is None else REMOVED, name,
                               describe(ra) if ra is not None else None,
                               describe(rb) if rb is not None else None))
            continue
        compare_pair(out, name, ra, rb, same_members, section, unread_members)


def describe(ref: ArrayRef) -> dict[str, Any]:
    """``{"shape", "dtype", "storage"}`` of an array, JSON-ready."""
    return {"shape": list(ref.shape), "dtype": str(ref.dtype), "storage": ref.storage}


def storage_of(ref: ArrayRef) -> dict[str, Any]:
    """How an array is stored: ``storage`` (dense, coo, npy...) and, for a chunked HDF5
    dataset, ``chunks`` and ``filters``."""
    out: dict[str, Any] = {"storage": ref.storage}
    get = getattr(ref, "chunk_layout", None)
    if get is not None:
        try:
            layout = get()
        except (OSError, ValueError, RuntimeError):
            layout = None
        out["chunks"] = list(layout.chunks) if layout is not None else None
        out["filters"] = list(layout.filters) if layout is not None else []
    return out


def compare_pair(out: Collector, name: str, ra: ArrayRef, rb: ArrayRef,
                 same_members: Collection[str] = (), section: str = SECTION,
                 unread_members: Collection[str] = ()) -> None:
    """Compare one pair of arrays: shape, dtype, storage, then values."""
    if tuple(ra.shape) != tuple(rb.shape):
        out.add(Difference(section, SHAPE, name, list(ra.shape), list(rb.shape),
                           note="values not compared: the shapes differ"))
        return
    if ra.dtype != rb.dtype:
        out.add(Difference(section, DTYPE, name, str(ra.dtype), str(rb.dtype)))
    sa, sb = storage_of(ra), storage_of(rb)
    if sa != sb:
        out.add(Difference(section, STORAGE, name, sa, sb, content=False))
    if ra.location and ra.location == rb.location and ra.location in same_members:
        return  # the same member content (verified digests, or equal stored bytes)
    if ra.location and ra.location in unread_members:
        out.skip(section, name, "values not read (--digests-only): the checksum files record "
                 "different digests for its member")
        return
    try:
        result = compare_values(ra, rb, out.options)
    except (OSError, ValueError, MemoryError) as exc:
        finding = ra.unreadable_finding(exc, "comparing") if isinstance(exc, OSError) else None
        out.skip(section, name, finding.message if finding is not None else str(exc))
        return
    if result.stats.differing:
        detail = result.stats.to_json()
        detail["method"] = result.method
        if result.stopped:
            detail["stopped"] = True
        out.add(Difference(section, VALUES, name, detail=detail,
                           note=f"{result.stats.differing:,} of {ra.size:,} values differ"
                           + (" (stopped at the first differing chunk)" if result.stopped
                              else "")))
