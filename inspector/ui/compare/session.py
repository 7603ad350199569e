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
from inspector.formats.compare.engine import compare_documents
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
    """Open, verify and compare (call on a job thread)."""
    a = open_document(path_a)
    b = open_document(path_b)
    try:
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
    """

    name: str
    index: tuple[int | None, ...]
    a: Envelope
    b: Envelope
    x: np.ndarray
    diff: np.ndarray


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
