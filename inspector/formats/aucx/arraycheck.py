"""The ``.npy`` headers of an AUCX archive's three arrays, checked at open.

Only the first bytes of each array member are inflated (at most
:data:`~.npyfmt.MAX_HEADER_BYTES`); the data is checked later, while
streaming (:mod:`.contentcheck`).  Rules (AUCX 1.0 format document,
"Safety" and "Both radius modes"; AUCX on-disk notes §4 step 6): no object
(pickled) dtype; radius and signal floating, the mask exactly bool; shapes
as the manifest declares; signal 2-D; mask shape = signal shape; scan id
count = signal rows; shared: radius 1-D of length points; per_scan: radius
shape = signal shape.

Every problem is reported through ``report(rule, message, location)`` at the
member it concerns (the manifest for counts it declares).  Nothing here
imports Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from inspector.formats.aucx import layout as L
from inspector.formats.aucx import rules as R
from inspector.formats.aucx.arrayrefs import MaskedLineRef, NpyMemberRef
from inspector.formats.aucx.modelcheck import openauc_int, openauc_scan_ids
from inspector.formats.aucx.npyfmt import MAX_HEADER_BYTES, NpyHeader, NpyHeaderError, parse_header
from inspector.formats.aucx.stream import MemberStream
from inspector.formats.aucx.zipscan import ZipEntry, ZipScan
from inspector.formats.findings import Rule
from inspector.formats.sources.file_identity import FILE_CHANGED, FileChangedError

#: ``report(rule, message, location)``: how findings are handed back.
Report = Callable[[Rule, str, str], object]


def short(value: Any) -> str:
    """A bounded repr of a manifest value for a finding message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def read_headers(path: Path, scan: ZipScan, observations: Mapping[str, Any],
                 report: Report) -> dict[str, NpyHeader]:
    """Parse and check each array member's header on its own.

    Returns ``"radius"``/``"signal"``/``"mask"`` -> header for the members
    whose header is readable, not pickled and consistent with the member's
    size (a wrong dtype or declared shape is reported but kept, so the
    other checks still run).
    """
    declared = _mapping(observations.get("arrays"))
    headers: dict[str, NpyHeader] = {}
    for key, member in L.ARRAY_MEMBERS.items():
        e = scan.first(member)
        if e is None or not e.safe or e.duplicate:
            continue
        h = _header(path, e, report)
        if h is None:
            continue
        headers[key] = h
        _check_declared(key, h, _mapping(declared.get(key)), report)
    return headers


def _header(path: Path, e: ZipEntry, report: Report) -> NpyHeader | None:
    """The member's header, or None (with a finding) when unusable."""
    member = e.name
    stream = MemberStream(path, e, limit=MAX_HEADER_BYTES + 16, crc=False)
    try:
        head = b"".join(stream)
    except FileChangedError as exc:  # replaced or rewritten since the scan
        report(FILE_CHANGED, str(exc), "")
        return None
    except OSError as exc:
        report(R.MEMBER_UNREADABLE,
               f"{member} could not be read: {exc.strerror or type(exc).__name__}", member)
        return None
    if stream.result.problem is not None and not head:
        report(R.ARRAY_UNREADABLE,
               f"{member} is not a readable .npy array: {stream.result.problem.message}", member)
        return None
    try:
        h = parse_header(head)
    except NpyHeaderError as exc:
        report(R.ARRAY_UNREADABLE, f"{member} is not a readable .npy array: {exc}", member)
        return None
    if h.dtype.hasobject:
        report(R.ARRAY_PICKLED,
               f"{member} is an object-dtype (pickled) .npy array; arrays are loaded with "
               "pickling disabled, so it is rejected and never unpickled", member)
        return None
    if h.data_offset + h.nbytes != e.file_size:
        report(R.ARRAY_SIZE_MISMATCH,
               f"{member}'s header announces {h.nbytes} data bytes but the member holds "
               f"{e.file_size - h.data_offset}", member)
        return None
    return h


def _check_declared(key: str, h: NpyHeader, declared: Mapping[str, Any],
                    report: Report) -> None:
    """dtype kind, and the shape and dtype the manifest declares."""
    member = L.ARRAY_MEMBERS[key]
    if (key == "mask" and h.dtype != np.bool_) or (key != "mask" and h.dtype.kind != "f"):
        want = "exactly bool" if key == "mask" else "a floating-point dtype"
        report(R.ARRAY_DTYPE, f"the {key} array has dtype {h.dtype}; expected {want}", member)
    shape = declared.get("shape")
    if isinstance(shape, list) and tuple(shape) != h.shape:
        report(R.ARRAY_SHAPE_MISMATCH,
               f"the manifest declares {key} shape {short(tuple(shape))} but the stored array "
               f"has shape {h.shape}", member)
    dtype = declared.get("dtype")
    if isinstance(dtype, str) and dtype != str(h.dtype):
        report(R.ARRAY_DECLARED_DTYPE,
               f"the manifest declares {key} dtype {short(dtype)} but the stored array is "
               f"{h.dtype}", member)


def infer_mode(mode: str | None, headers: Mapping[str, NpyHeader],
               report: Report) -> str | None:
    """The radius axis mode: the manifest's, else the radius array's
    dimensionality (with a ``manifest.mode-inferred`` remark)."""
    rad = headers.get("radius")
    if mode is not None or rad is None or len(rad.shape) not in (1, 2):
        return mode
    inferred = "shared" if len(rad.shape) == 1 else "per_scan"
    report(R.MANIFEST_MODE_INFERRED,
           f"the radius axis mode was taken as {inferred!r} from the radius array's "
           "dimensionality because the manifest does not state it usably", L.RADIUS)
    return inferred


def check_shapes(mode: str | None, headers: Mapping[str, NpyHeader],
                 observations: Mapping[str, Any], report: Report) -> None:
    """Signal 2-D; mask, radius and the declared counts against the signal."""
    sig = headers.get("signal")
    if sig is None:
        _counts_without_signal(mode, headers, observations, report)
        return
    if len(sig.shape) != 2:
        report(R.ARRAY_NDIM, f"the signal must be 2-D (scan, point), got {len(sig.shape)}-D",
               L.SIGNAL)
        return
    mask = headers.get("mask")
    if mask is not None and mask.shape != sig.shape:
        report(R.ARRAY_SHAPE,
               f"the mask shape {mask.shape} does not match the signal shape {sig.shape}",
               L.MASK)
    _check_counts(sig, observations, report)
    rad = headers.get("radius")
    if rad is not None and mode in L.MODES:
        _check_radius(mode, rad, sig, report)


def _counts_without_signal(mode: str | None, headers: Mapping[str, NpyHeader],
                           observations: Mapping[str, Any], report: Report) -> None:
    """The manifest's counts against the arrays that can still be read when the
    signal's header cannot (refused, unreadable): every problem of an archive is
    reported, whichever member is refused first.  The mask has the signal's shape
    by rule; so has a per-scan radius."""
    mask, rad = headers.get("mask"), headers.get("radius")
    if mask is not None and len(mask.shape) == 2:
        _check_counts(mask, observations, report, "mask")
    elif rad is not None and mode == "per_scan" and len(rad.shape) == 2:
        _check_counts(rad, observations, report, "per-scan radius")
    elif rad is not None and mode == "shared" and len(rad.shape) == 1:
        n = openauc_int(observations.get("n_points"))
        if n is not None and n != rad.shape[0]:
            report(R.ARRAY_DECLARED_COUNT, f"the manifest declares n_points = {short(n)} but "
                   f"the shared radius axis has {rad.shape[0]} point(s)",
                   f"{L.MANIFEST}:observations.n_points")


def _check_counts(sig: NpyHeader, observations: Mapping[str, Any], report: Report,
                  array: str = "signal") -> None:
    """Scan ids (as openauc makes them) against the ``array``'s rows: an error; the
    declared ``n_scans``/``n_points`` against its rows/columns: a warning (openauc
    reads them only with ``int()``)."""
    ids = openauc_scan_ids(observations.get("scan_ids"))
    if ids is not None and len(ids) != sig.shape[0]:
        report(R.ARRAY_SCAN_COUNT,
               f"the manifest lists {len(ids)} scan id(s) but the {array} array has "
               f"{sig.shape[0]} row(s)", L.MANIFEST)
    for key, axis, what in (("n_scans", 0, "row(s)"), ("n_points", 1, "column(s)")):
        n = openauc_int(observations.get(key))
        if n is not None and n != sig.shape[axis]:
            report(R.ARRAY_DECLARED_COUNT, f"the manifest declares {key} = {short(n)} but the "
                   f"{array} array has {sig.shape[axis]} {what}",
                   f"{L.MANIFEST}:observations.{key}")


def _check_radius(mode: str, rad: NpyHeader, sig: NpyHeader, report: Report) -> None:
    if mode == "shared":
        if len(rad.shape) != 1:
            report(R.ARRAY_NDIM, f"a shared radius axis must be 1-D, got {len(rad.shape)}-D",
                   L.RADIUS)
        elif rad.shape[0] != sig.shape[1]:
            report(R.ARRAY_SHAPE, f"the shared radius axis has {rad.shape[0]} point(s) but "
                   f"the signal has {sig.shape[1]} column(s)", L.RADIUS)
    elif len(rad.shape) != 2:
        report(R.ARRAY_NDIM, "a per-scan radius must be 2-D (scan, point), got "
               f"{len(rad.shape)}-D", L.RADIUS)
    elif rad.shape != sig.shape:
        report(R.ARRAY_SHAPE, f"the radius shape {rad.shape} does not match the signal shape "
               f"{sig.shape}", L.RADIUS)


def array_refs(path: Path, scan: ZipScan, headers: Mapping[str, NpyHeader],
               observations: Mapping[str, Any]) -> dict[str, NpyMemberRef]:
    """Lazy references for plotting, in the order radius, signal, mask.

    Only real numeric arrays are handed out; a structured, complex, string
    or datetime array has its ``array.dtype`` finding instead.
    """
    refs: dict[str, NpyMemberRef] = {}
    mask = headers.get("mask")
    mask_entry = scan.first(L.MASK)
    if mask is not None and mask.dtype.kind in "biu" and mask_entry is not None:
        refs["mask"] = NpyMemberRef("mask", path, mask_entry, mask, {"role": "validity mask"})
    mref = refs.get("mask") if mask is not None and mask.dtype == np.bool_ else None
    units = {"radius": observations.get("radius_unit"),
             "signal": observations.get("signal_unit")}
    for key in ("radius", "signal"):
        h = headers.get(key)
        entry = scan.first(L.ARRAY_MEMBERS[key])
        if h is not None and entry is not None and h.dtype.kind in "fiub" and not h.dtype.fields:
            refs[key] = MaskedLineRef(key, path, entry, h, {"unit": units[key]}, mask=mref)
    return {k: refs[k] for k in ("radius", "signal", "mask") if k in refs}
