"""Write the values of a :class:`~inspector.formats.nodes.data.NodeData` as CSV, JSON or .npy.

This is ``inspector dump``: it writes exactly what the data views show —
compound fields as columns (dotted names), enums as labels, strings decoded
(invalid UTF-8 as ``\\xNN``), references as target paths, numbers in their
shortest round-trip text (:func:`~inspector.formats.nodes.cell_text.cell_text`).

Layouts:

* CSV: a header line, then rows.  A 0-D or 1-D selection has one row per
  element and one column per node column; a 2-D selection of a single
  column is the matrix (header: the column indices); anything else is long
  format, ``dim0, dim1, …`` (source indices) followed by the columns.
* JSON (RFC 8259, strict): ``{"location", "selection", "shape", "columns",
  "kinds", "values", "escaped"}``; ``values`` is nested lists of the
  selection's shape holding the value (one column) or an object keyed by
  column name.  Non-finite floats are ``"NaN"``, ``"Infinity"``,
  ``"-Infinity"``; complex numbers ``[real, imag]``; a null dataspace ``null``.
* .npy: the column's array (text as fixed-width unicode), or a structured
  array with one field per column.  Variable-length sequences cannot be
  written without pickling and are refused.

Reads are paged (:data:`DUMP_PAGE` elements at a time), so memory stays
bounded whatever the selection; :data:`DUMP_MAX_VALUES` is the size the
command line refuses without ``--all``.  Nothing here imports Qt or h5py.
"""

from __future__ import annotations

import codecs
import csv
import itertools
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from inspector.formats.nodes.cell_text import cell_text, plain_value
from inspector.formats.nodes.data import (
    NUMERIC_KINDS,
    Column,
    ColumnKind,
    NodeData,
    Values,
    pages,
    selected_shape,
    selection_text,
    span,
)

#: Most values (selected elements) ``inspector dump`` writes without ``--all``.
DUMP_MAX_VALUES = 10**6
#: Elements read (and held as text) per page.
DUMP_PAGE = 1 << 16


class DumpRefused(ValueError):
    """The values cannot be written in the asked format (say why; a usage error)."""


Selection = tuple[int | range, ...]


@dataclass
class DumpStats:
    """What a dump wrote: elements and text values shown with escapes."""

    values: int = 0
    escaped: int = 0


def _page_size(node: NodeData) -> int:
    return max(1, min(DUMP_PAGE, node.read_cap))


def _read(node: NodeData, sel: Selection, stats: DumpStats) -> Values:
    v = node.read(sel)
    stats.values += v.size
    stats.escaped += v.escaped_count
    return v


# -- CSV ---------------------------------------------------------------------------------
def _csv_layout(node: NodeData, norm: Selection) -> str:
    shape = selected_shape(norm)
    if node.is_null or len(shape) <= 1:
        return "rows"
    if len(shape) == 2 and len(node.columns) == 1:
        return "matrix"
    return "long"


def _items(col: Column) -> list[Any] | np.ndarray:
    """The values of a column in C order: numpy scalars where Python numbers would
    lose their width (float32 0.1 must read "0.1", not 0.10000000149011612)."""
    flat = col.values.reshape(-1)
    if flat.dtype.kind in "fc" and flat.dtype not in (np.float64, np.complex128):
        return flat
    return flat.tolist()


def _texts(col: Column) -> list[str]:
    return [cell_text(col.kind, v) for v in _items(col)]


def _source_indices(sel: Selection) -> Iterator[tuple[int, ...]]:
    """The source index (ranges only) of every element of ``sel``, in C order."""
    ranges = [s for s in sel if isinstance(s, range)]
    for idx in np.ndindex(*[span(r) for r in ranges]):
        yield tuple(r[i] for r, i in zip(ranges, idx, strict=True))


def _csv_header(node: NodeData, norm: Selection, layout: str) -> list[str]:
    labels = [c.label for c in node.columns]
    if layout == "matrix":
        cols = [s for s in norm if isinstance(s, range)][1]
        return [str(i) for i in cols]
    if layout == "long":
        return [f"dim{i}" for i in range(len(selected_shape(norm)))] + labels
    return labels


def write_csv(node: NodeData, norm: Selection, out: IO[str]) -> DumpStats:
    """Write ``node[norm]`` as CSV (see the module docstring for the layouts).

    The header is written once the first page is read: a node whose values cannot be
    read (:class:`~inspector.formats.nodes.data.NodeReadError`) writes nothing at all.
    """
    stats = DumpStats()
    layout = _csv_layout(node, norm)
    w = csv.writer(out, lineterminator="\n")
    header = _csv_header(node, norm, layout)
    if node.is_null:
        w.writerow(header)
        return stats
    pages_read = ((sel, _read(node, sel, stats)) for sel in pages(norm, _page_size(node)))
    first = next(pages_read, None)
    w.writerow(header)
    if first is None:
        return stats
    read = itertools.chain([first], pages_read)
    if layout == "matrix":
        return _csv_matrix(read, selected_shape(norm)[1], out, stats)
    for sel, v in read:
        cells = [_texts(c) for c in v.columns]
        rows: Any = zip(*cells, strict=True)
        if layout == "long":
            rows = ([*map(str, i), *r] for i, r in zip(_source_indices(sel), rows, strict=True))
        w.writerows(rows)
    return stats


def _csv_matrix(read: Iterable[tuple[Selection, Values]], width: int, out: IO[str],
                stats: DumpStats) -> DumpStats:
    """A 2-D selection of one column, ``width`` values a row: one CSV row per row,
    written as pages arrive (a row longer than a page is written in pieces)."""
    done = 0
    for _sel, v in read:
        texts = _texts(v.columns[0])
        for k in range(0, len(texts)):
            pos = (done + k) % width
            cell = texts[k]
            if any(ch in cell for ch in ',"\n\r'):
                cell = '"' + cell.replace('"', '""') + '"'
            out.write(("," if pos else "") + cell + ("\n" if pos == width - 1 else ""))
        done += len(texts)
    return stats


# -- JSON --------------------------------------------------------------------------------
def _plain_column(col: Column) -> list[Any]:
    if col.kind == ColumnKind.NUMBER and col.values.dtype.kind in "iu":
        return [int(x) for x in col.values.reshape(-1).tolist()]
    if col.kind == ColumnKind.NUMBER and col.values.dtype.kind == "f" and \
            bool(np.isfinite(col.values).all()):
        return [float(x) for x in col.values.reshape(-1).tolist()]
    return [plain_value(x) for x in col.values.reshape(-1).tolist()]


def _nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    """Nested lists of ``shape`` from a C-order flat list (the element itself for ``()``)."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    step = math.prod(shape[1:])
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def values_json(v: Values) -> Any:
    """The JSON-ready nested values of one read (records when there are several columns)."""
    if v.shape is None:
        return None
    cols = [_plain_column(c) for c in v.columns]
    if len(cols) == 1:
        flat = cols[0]
    else:
        labels = [c.spec.label for c in v.columns]
        flat = [dict(zip(labels, row, strict=True)) for row in zip(*cols, strict=True)]
    return _nest(flat, v.shape)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def _json_block(node: NodeData, norm: Selection, write: Callable[[str], Any], cap: int,
                stats: DumpStats) -> None:
    """Write the nested values of ``node[norm]``, reading at most ``cap`` at a time."""
    axes = [i for i, s in enumerate(norm) if isinstance(s, range)]
    lens = selected_shape(norm)
    if math.prod(lens) <= cap:
        write(_dumps(values_json(_read(node, norm, stats))))
        return
    first = axes[0]
    r = norm[first]
    assert isinstance(r, range)
    rest = math.prod(lens[1:])
    write("[")
    if rest <= cap:
        run, wrote = max(1, cap // max(rest, 1)), False
        for a in range(0, span(r), run):
            sel = norm[:first] + (r[a:a + run],) + norm[first + 1:]
            items = values_json(_read(node, sel, stats))
            if items:
                write(("," if wrote else "") + _dumps(items)[1:-1])
                wrote = True
    else:
        for k, i in enumerate(r):
            write("," if k else "")
            _json_block(node, norm[:first] + (i,) + norm[first + 1:], write, cap, stats)
    write("]")


def write_json(node: NodeData, norm: Selection, out: IO[str]) -> DumpStats:
    """Write ``node[norm]`` as one strict JSON object (see the module docstring)."""
    stats = DumpStats()
    head = {"location": node.location, "selection": selection_text(norm),
            "shape": None if node.is_null else list(selected_shape(norm)),
            "columns": [c.label for c in node.columns],
            "kinds": [str(c.kind) for c in node.columns]}
    out.write(_dumps(head)[:-1] + ', "values": ')
    if node.is_null:
        out.write("null")
    else:
        _json_block(node, norm, out.write, _page_size(node), stats)
    out.write(f', "escaped": {stats.escaped}}}\n')
    return stats


# -- .npy --------------------------------------------------------------------------------
def _npy_array(col: Column, width: int | None = None) -> np.ndarray:
    if col.kind in NUMERIC_KINDS:
        return col.values
    if col.kind == ColumnKind.SEQUENCE:
        raise DumpRefused(f"column {col.spec.label!r} holds variable-length sequences, which "
                          ".npy cannot store without pickling; use --format json")
    texts = np.array([cell_text(col.kind, v) for v in col.values.reshape(-1).tolist()],
                     dtype=f"U{width}" if width else None)
    if texts.dtype.kind != "U":
        texts = texts.astype("U1")
    return texts.reshape(col.values.shape)


def _npy_dtype(first: Values, widths: dict[str, int]) -> np.dtype:
    parts = []
    for c in first.columns:
        arr = _npy_array(c, widths.get(c.spec.label))
        parts.append((c.spec.label, arr.dtype))
    return parts[0][1] if len(parts) == 1 else np.dtype(parts)


def _npy_page(v: Values, dtype: np.dtype, widths: dict[str, int]) -> np.ndarray:
    assert v.shape is not None
    arrays = [_npy_array(c, widths.get(c.spec.label)) for c in v.columns]
    if len(arrays) == 1:
        return np.asarray(arrays[0], dtype=dtype, order="C")
    out = np.empty(v.shape, dtype=dtype)
    for c, a in zip(v.columns, arrays, strict=True):
        out[c.spec.label] = a
    return out


def _text_widths(node: NodeData, norm: Selection) -> dict[str, int]:
    """Widest text of each text column over the whole selection (a first pass)."""
    widths: dict[str, int] = {}
    for sel in pages(norm, _page_size(node)):
        for c in node.read(sel).columns:
            if c.kind not in NUMERIC_KINDS and c.kind != ColumnKind.SEQUENCE:
                w = max((len(cell_text(c.kind, x)) for x in c.values.reshape(-1).tolist()),
                        default=1)
                widths[c.spec.label] = max(widths.get(c.spec.label, 1), w)
    return widths


def write_npy(node: NodeData, norm: Selection, out: IO[bytes]) -> DumpStats:
    """Write ``node[norm]`` as one .npy array (NEP 1, version 1.0 or 2.0 header).

    Raises:
        DumpRefused: a column of variable-length sequences.
    """
    stats = DumpStats()
    if node.is_null:
        np.save(out, np.zeros((0,)), allow_pickle=False)
        return stats
    blocks = pages(norm, _page_size(node))
    first_sel = next(blocks)
    if math.prod(selected_shape(first_sel)) == math.prod(selected_shape(norm)):
        v = _read(node, norm, stats)
        dtype = _npy_dtype(v, {})
        np.save(out, _npy_page(v, dtype, {}), allow_pickle=False)
        return stats
    has_text = any(c.kind not in NUMERIC_KINDS for c in node.columns)
    widths = _text_widths(node, norm) if has_text else {}
    first = _read(node, first_sel, stats)
    dtype = _npy_dtype(first, widths)
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
              "shape": selected_shape(norm)}
    np.lib.format.write_array_header_2_0(out, header)
    out.write(_npy_page(first, dtype, widths).tobytes())
    for sel in blocks:
        out.write(_npy_page(_read(node, sel, stats), dtype, widths).tobytes())
    return stats


# -- one text value too large to read whole ------------------------------------------------
_CSV_SPECIAL = (b",", b'"', b"\r", b"\n")


def _until_nul(pages: Iterator[bytes]) -> Iterator[bytes]:
    """The pages up to the first NUL byte (a C string ends there, as HDF5 reads it)."""
    for page in pages:
        cut = page.find(b"\x00")
        if cut >= 0:
            yield page[:cut]
            return
        yield page


def _decoded(pages: Iterator[bytes], stats: DumpStats) -> Iterator[str]:
    """The text of the pages as the views decode it (invalid UTF-8 as ``\\xNN``),
    page by page; ``stats.escaped`` counts the value once when any byte was escaped."""
    strict = codecs.getincrementaldecoder("utf-8")()
    lenient = codecs.getincrementaldecoder("utf-8")("backslashreplace")
    escaped = False
    for page in _until_nul(pages):
        text = lenient.decode(page)
        if not escaped:
            try:
                strict.decode(page)
            except UnicodeDecodeError:
                escaped = True
        yield text
    tail = lenient.decode(b"", final=True)
    if not escaped:
        try:
            strict.decode(b"", final=True)
        except UnicodeDecodeError:
            escaped = True
    stats.values, stats.escaped = 1, int(escaped)
    if tail:
        yield tail


def write_text_csv(node: NodeData, pages: Callable[[], Iterator[bytes]],
                   out: IO[str]) -> DumpStats:
    """Write the single text value of ``node`` whose bytes ``pages()`` gives (twice: once
    to learn whether CSV must quote it) as :func:`write_csv` writes a scalar: the header,
    then the value, quoted (``"`` doubled) when it holds a comma, a quote or a line break.
    Memory: one page.

    Raises:
        NodeReadError: the bytes cannot be read (from ``pages``).
    """
    quote = any(any(c in page for c in _CSV_SPECIAL) for page in _until_nul(pages()))
    stats = DumpStats()
    csv.writer(out, lineterminator="\n").writerow([c.label for c in node.columns])
    out.write('"' if quote else "")
    for text in _decoded(pages(), stats):
        out.write(text.replace('"', '""') if quote else text)
    out.write('"\n' if quote else "\n")
    return stats


def write_text_json(node: NodeData, pages: Callable[[], Iterator[bytes]],
                    out: IO[str]) -> DumpStats:
    """Write the single text value of ``node`` as :func:`write_json` writes a scalar,
    the string's JSON text written page by page.

    Raises:
        NodeReadError: the bytes cannot be read (from ``pages``).
    """
    stats = DumpStats()
    head = {"location": node.location, "selection": selection_text(()), "shape": [],
            "columns": [c.label for c in node.columns],
            "kinds": [str(c.kind) for c in node.columns]}
    out.write(_dumps(head)[:-1] + ', "values": "')
    for text in _decoded(pages(), stats):
        out.write(_dumps(text)[1:-1])
    out.write(f'", "escaped": {stats.escaped}}}\n')
    return stats
