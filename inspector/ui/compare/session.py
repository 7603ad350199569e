"""The comparison behind a Compare tab, run as one job off the GUI thread.

:func:`run_comparison` opens and verifies both documents and compares them
(:mod:`inspector.formats.compare`); the documents stay open in the returned
:class:`Comparison` so that the tab can read the values a selected difference
shows (on further jobs), and are closed with the tab.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from inspector.formats.analysis.arrays import Envelope
from inspector.formats.compare.engine import compare_documents, needs_verifying
from inspector.formats.compare.model import DiffOptions, DiffReport
from inspector.formats.document import Document
from inspector.formats.registry import open_document

#: Samples on each side of the first differing index shown by a curve comparison.
HALF_WINDOW = 2048
#: Bins of a curve's envelope (about a plot's width in pixels).
BINS = 1200


@dataclass
class Comparison:
    """Two open documents and their report (close with :meth:`close`)."""

    a: Document
    b: Document
    report: DiffReport

    def close(self) -> None:
        self.a.close()
        self.b.close()


def run_comparison(path_a: Path | str, path_b: Path | str, options: DiffOptions,
                   cancelled: Any = None) -> Comparison:
    """Open, verify and compare (call on a job thread); two archives are verified only
    with ``options.verify``, as ``inspector diff`` does."""
    a = open_document(path_a)
    b = open_document(path_b)
    try:
        if needs_verifying(a, b, options):
            a.verify(cancelled=cancelled)
            b.verify(cancelled=cancelled)
        return Comparison(a, b, compare_documents(a, b, options))
    except BaseException:
        a.close()
        b.close()
        raise


@dataclass
class Curves:
    """One line of an array in both documents around its first difference.

    Attributes:
        name: the array's name; ``index``: the fixed indices (None on the sample axis).
        a, b: the envelopes (raw samples when the window is small) of A and B.
        x, diff: sample positions and ``a - b`` (float64) over the window.
        unit: what ``x`` counts ("samples"; a scan's "points").
    """

    name: str
    index: tuple[int | None, ...]
    a: Envelope
    b: Envelope
    x: np.ndarray
    diff: np.ndarray
    unit: str = "samples"


def array_curves(comparison: Comparison, name: str, first: list[int]) -> Curves | None:
    """The curves of array ``name`` around index ``first`` (call on a job thread), or
    None when either document has no such array of one line per index."""
    ra, rb = comparison.a.arrays.get(name), comparison.b.arrays.get(name)
    if ra is None or rb is None or ra.shape != rb.shape or not ra.shape:
        return None
    axis = ra.sample_axis if ra.ndim > 1 else 0
    index: tuple[int | None, ...] = tuple(None if i == axis else int(v)
                                          for i, v in enumerate(first))
    at = int(first[axis])
    start = max(0, at - HALF_WINDOW)
    stop = min(ra.shape[axis], at + HALF_WINDOW)
    ea = ra.envelope(index, start, stop, BINS)
    eb = rb.envelope(index, start, stop, BINS)
    sel = ra.line_selection(index, start, stop)
    va = np.asarray(ra.read(sel), dtype=np.float64)
    vb = np.asarray(rb.read(sel), dtype=np.float64)
    return Curves(name, index, ea, eb, np.arange(start, stop, dtype=np.float64), va - vb)


def scan_curves(comparison: Comparison, path: str) -> Curves | None:
    """A scan's radius or signal (``path``: ``SCAN_ID.radius`` or ``SCAN_ID.signal``) in
    both AUC documents, by point, and A − B (call on a job thread); None when either has
    no such scan or the two lines differ in length."""
    sid, _, what = path.rpartition(".")
    if what not in ("radius", "signal"):
        return None
    lines = []
    for doc in (comparison.a, comparison.b):
        exp = doc.auc.experiment if doc.auc is not None else None
        ids = [str(s) for s in exp.scan_ids] if exp is not None else []
        if sid not in ids:
            return None
        get = exp.scan_radius if what == "radius" else exp.scan_signal  # type: ignore[union-attr]
        lines.append(np.asarray(get(ids.index(sid)), dtype=np.float64))
    va, vb = lines
    if va.shape != vb.shape or va.ndim != 1:
        return None
    x = np.arange(va.shape[0], dtype=np.float64)
    ea, eb = (Envelope(0, va.shape[0], x, v, v, raw=True) for v in (va, vb))
    return Curves(path, (None,), ea, eb, x, va - vb, unit="points")


@dataclass
class Rows:
    """One row of a table in both documents (``changed``: the columns that differ)."""

    table: str
    labels: list[str]
    a: list[Any]
    b: list[Any]
    changed: set[str]


def table_rows(comparison: Comparison, table: str, row_a: int, row_b: int) -> Rows | None:
    """Row ``row_a`` of A's and ``row_b`` of B's table ``table`` (call on a job thread)."""
    ta, tb = comparison.a.tables.get(table), comparison.b.tables.get(table)
    if ta is None or tb is None:
        return None
    labels = [str(c) for c in ta.labels if c in tb.labels]
    pos_a = {str(c): i for i, c in enumerate(ta.labels)}
    pos_b = {str(c): i for i, c in enumerate(tb.labels)}
    va = [_cell(ta.column(pos_a[c])[row_a]) for c in labels]
    vb = [_cell(tb.column(pos_b[c])[row_b]) for c in labels]
    changed = {c for c, x, y in zip(labels, va, vb, strict=True) if repr(x) != repr(y)}
    return Rows(table, labels, va, vb, changed)


def _cell(v: Any) -> Any:
    item = getattr(v, "item", None)
    return item() if callable(item) and not isinstance(v, str | bytes) else v


#: Most pixels along each axis of an image comparison (larger arrays are strided).
IMAGE_PIXELS = (512, 512)


@dataclass
class Images:
    """A 2-D array or stimulus image in both documents, and their difference.

    Attributes:
        name: the difference's path.
        a, b: float64 ``(rows, cols)`` or ``(rows, cols, channels)`` (colour) samples.
        diff: float64 ``(rows, cols)``: ``a - b`` (for colour images, the mean over
            the channels of ``a - b``).
        step: elements per sample along rows and columns (1, 1: every element).
        levels: the colour scale shared by A and B (the finite min and max of both).
        limit: the largest finite ``|a - b|`` (the difference's scale is ±limit).
        picture: True for a stimulus image (drawn with square pixels).
    """

    name: str
    a: np.ndarray
    b: np.ndarray
    diff: np.ndarray
    step: tuple[int, int]
    levels: tuple[float, float]
    limit: float
    picture: bool = False


def image_pair(comparison: Comparison, section: str, path: str) -> Images | None:
    """The images of difference ``path`` of ``section`` (call on a job thread), or None
    when it is not a 2-D array (nor a stimulus image) in both documents."""
    if section == "stimuli":
        pair = _stimulus_pair(comparison, path)
        if pair is None or pair[0].ndim < 2:
            return None
        step = max(1, -(-max(pair[0].shape[:2]) // max(IMAGE_PIXELS)))
        shown = images(path, pair[0][::step, ::step], pair[1][::step, ::step], (step, step))
        if shown is not None:
            shown.picture = True
        return shown
    ra, rb = _image_ref(comparison.a, section, path), _image_ref(comparison.b, section, path)
    if ra is None or rb is None or ra.shape != rb.shape:
        return None
    from inspector.formats.nodes.image_plan import image_plan

    layout = getattr(ra, "chunk_layout", lambda: None)()
    chunks = layout.chunks if layout is not None else None
    plan = image_plan(range(ra.shape[0]), range(ra.shape[1]), IMAGE_PIXELS, chunks, (0, 1),
                      max(1, ra.dtype.itemsize))
    sel = (slice(plan.rows.start, plan.rows.stop, plan.rows.step),
           slice(plan.cols.start, plan.cols.stop, plan.cols.step))
    return images(path, ra.read(sel), rb.read(sel), plan.cell)


def images(name: str, a: Any, b: Any, step: tuple[int, int]) -> Images | None:
    """:class:`Images` of two equally shaped arrays (None when the shapes differ)."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if va.shape != vb.shape or va.ndim not in (2, 3):
        return None
    diff = va - vb if va.ndim == 2 else (va - vb).mean(axis=2)
    both = np.concatenate([va[np.isfinite(va)], vb[np.isfinite(vb)]])
    lo, hi = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
    finite = np.abs(diff[np.isfinite(diff)])
    limit = float(finite.max()) if finite.size else 0.0
    return Images(name, va, vb, diff, step, (lo, hi if hi > lo else lo + 1.0), limit)


def _image_ref(doc: Document, section: str, path: str) -> Any:
    """The lazy 2-D array of ``path`` shown as an image, or None (a recording's neural
    array and an AUC experiment's arrays are drawn as curves)."""
    ref: Any = None
    if section == "arrays":
        ref = doc.arrays.get(path)
        if ref is not None and (ref is doc.neural_array() or (
                doc.auc is not None and path in (doc.auc.radius_array, doc.auc.signal_array,
                                                  doc.auc.mask_array))):
            return None
    elif section == "objects" and doc.object_data is not None:
        node = doc.object_data.lookup(path)
        ref = node.array_ref() if node is not None else None
    if ref is None or ref.ndim != 2 or min(ref.shape) < 2:
        return None
    return ref


def _stimulus_pair(comparison: Comparison, path: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The decoded images of stimulus ``path`` in A and in B, or None."""
    from inspector.formats.compare.stimuli import stimulus_path

    found = []
    for doc in (comparison.a, comparison.b):
        s = next((s for s in doc.stimuli if stimulus_path(s.stim_id) == path), None)
        if s is None:
            return None
        found.append(np.asarray(s.load()))  # an image is decoded whole
    return found[0], found[1]
