"""Cells of a block of simple lines (:class:`~.lines.Block`), found by numpy over its bytes.

Used by the long layout for blocks it can read without a finding: every line has
the header's field count, the cells read are short (at most :data:`MAX_FAST_CELL`
bytes) and the numbers are what Python's ``float()`` reads, finite.  Anything
else returns None and the caller reads the block line by line, as the rules say
(:mod:`.layouts`), so findings and their order do not depend on this module.
"""

from __future__ import annotations

import numpy as np

from inspector.formats.delimited.lines import Block

#: Longest cell (bytes) read here; longer ones are read line by line.
MAX_FAST_CELL = 64
#: Digits of a plain decimal read by numpy's conversion here (longer ones by ``float()``).
_MAX_DIGITS = 15


def field_bounds(block: Block, delimiter: str,
                 columns: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(starts, ends)``, each ``int64 (lines,)``x``columns``: offsets in ``block.data``
    of every field; None when a line has another field count."""
    arr = np.frombuffer(block.data, dtype=np.uint8)
    at = np.flatnonzero(arr == ord(delimiter))
    n = len(block)
    cuts = _cuts_in_order(block, at, n, columns)
    if cuts is None:
        line = np.searchsorted(block.starts, at, side="right") - 1
        inside = (line >= 0) & (at < block.ends[np.maximum(line, 0)])
        at, line = at[inside], line[inside]
        if at.size != n * (columns - 1) or (np.bincount(line, minlength=n) != columns - 1).any():
            return None
        cuts = at.reshape(n, columns - 1).astype(np.int64)
    return (np.column_stack((block.starts, cuts + 1)), np.column_stack((cuts, block.ends)))


def _cuts_in_order(block: Block, at: np.ndarray, n: int, columns: int) -> np.ndarray | None:
    """``int64 (lines, columns - 1)``: the delimiters of each line when every delimiter of
    the block is inside a line and each line holds ``columns - 1`` of them (the common
    case, checked in one pass: the k-th group of ``columns - 1`` sorted offsets lies in
    line k, and the total leaves none over); None otherwise (ask line by line)."""
    if columns < 2 or at.size != n * (columns - 1):
        return None
    cuts = at.reshape(n, columns - 1)
    if not ((cuts[:, 0] >= block.starts) & (cuts[:, -1] < block.ends)).all():
        return None
    return cuts.astype(np.int64)


def cells(block: Block, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """``uint8 (lines, width)``: the bytes of one field per line, NUL-padded; None when a
    field is longer than :data:`MAX_FAST_CELL`.  Gathered a column of bytes at a time
    (a handful of ``(lines,)`` arrays, not ``(lines, width)`` int64 offsets)."""
    arr = np.frombuffer(block.data, dtype=np.uint8)
    lengths = ends - starts
    width = int(lengths.max()) if lengths.size else 0
    if width > MAX_FAST_CELL:
        return None
    width = max(width, 1)
    columns = np.zeros((width, starts.size), dtype=np.uint8)
    if arr.size:
        last = arr.size - 1
        for j in range(width):
            got = arr[np.minimum(starts + j, last)]
            got[lengths <= j] = 0
            columns[j] = got
    return np.ascontiguousarray(columns.T)


def as_bytes(matrix: np.ndarray) -> np.ndarray:
    """``S{width} (lines,)``: the rows of :func:`cells` as byte strings."""
    return np.ascontiguousarray(matrix).view(f"S{matrix.shape[1]}").reshape(-1)


def trimmed(block: Block, starts: np.ndarray, ends: np.ndarray) -> bool:
    """True when no field is empty or starts or ends with a space or a tab."""
    if not starts.size:
        return True
    arr = np.frombuffer(block.data, dtype=np.uint8)
    if (ends <= starts).any():
        return False
    edges = np.concatenate((arr[starts], arr[ends - 1]))
    return not ((edges == 0x20) | (edges == 0x09)).any()


#: Byte classes of a plain decimal: 1 digit, 2 point, 3 sign, 4 NUL (padding), 0 other.
_NUMBER_CLASS = np.zeros(256, dtype=np.uint8)
_NUMBER_CLASS[0x30:0x3A] = 1
_NUMBER_CLASS[0x2E] = 2
_NUMBER_CLASS[[0x2B, 0x2D]] = 3
_NUMBER_CLASS[0] = 4


def _plain_decimals(m: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``bool (lines,)``: which cells are plain decimals (a sign first, at most 15 digits,
    one point), whose value numpy's conversion of the text gives exactly as ``float()``
    does (both round correctly; the forms they differ on are left to ``float()``).
    Counted a column of bytes at a time."""
    cls = _NUMBER_CLASS[m]
    bad = np.zeros(m.shape[0], dtype=np.bool_)
    points = np.zeros(m.shape[0], dtype=np.int32)
    digits = np.zeros(m.shape[0], dtype=np.int32)
    for j in range(m.shape[1]):
        c = cls[:, j]
        wrong = (c == 0) | (c == 4) | (c == 3) if j else (c == 0) | (c == 4)
        bad |= wrong & (lengths > j)
        points += c == 2
        digits += c == 1
    return ~bad & (points <= 1) & (digits >= 1) & (digits <= _MAX_DIGITS)


def numbers(block: Block, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """``float64 (lines,)``: the finite number of each field as ``float()`` reads it
    (its text stripped); None when a field is not one (or is too long to read here)."""
    m = cells(block, starts, ends)
    if m is None:
        return None
    text = as_bytes(m)
    ok = _plain_decimals(m, ends - starts)
    if ok.all():
        values = text.astype(np.float64)
    else:
        values = np.zeros(ok.size, dtype=np.float64)
        values[ok] = text[ok].astype(np.float64)
        other, inverse = np.unique(text[~ok], return_inverse=True)
        try:
            parsed = np.array([float(v) for v in other.tolist()], dtype=np.float64)
        except ValueError:
            return None
        values[~ok] = parsed[inverse.reshape(-1)]
    return values if np.isfinite(values).all() else None


def blank(block: Block, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """``bool (lines,)``: fields holding only spaces and tabs (or nothing); None when a
    field is longer than :data:`MAX_FAST_CELL`."""
    m = cells(block, starts, ends)
    if m is None:
        return None
    return ((m == 0x20) | (m == 0x09) | (m == 0)).all(axis=1)


def suspects(block: Block, delimiter: str, columns: int, text: int,
             numeric: tuple[int, ...]) -> np.ndarray:
    """``bool (lines,)``: lines the numpy path may refuse: another field count than
    ``columns``, field ``text`` empty, untrimmed or long, or a field of ``numeric`` that
    is not a plain decimal.  (A line not marked can still be refused, for a reason that
    concerns several lines: the caller then reads them line by line.)"""
    n = len(block)
    bad = block.count(ord(delimiter)) != columns - 1
    good = np.flatnonzero(~bad)
    if not good.size:
        return bad
    sub = Block(block.data, block.at, block.starts[good], block.ends[good],
                block.numbers[good], block.simple)
    bounds = field_bounds(sub, delimiter, columns)
    if bounds is None:
        return np.ones(n, dtype=bool)
    starts, ends = bounds
    arr = np.frombuffer(block.data, dtype=np.uint8)
    s, e = starts[:, text], ends[:, text]
    lengths = e - s
    wrong = (lengths <= 0) | (lengths > MAX_FAST_CELL)
    ok = ~wrong
    edges = np.zeros(good.size, dtype=bool)
    edges[ok] = np.isin(arr[s[ok]], (0x20, 0x09)) | np.isin(arr[e[ok] - 1], (0x20, 0x09))
    wrong |= edges
    for i in numeric:
        s, e = starts[:, i], ends[:, i]
        lengths = e - s
        long = lengths > MAX_FAST_CELL
        wrong |= long
        short = np.flatnonzero(~long)
        if short.size:
            m = cells(sub, s[short], e[short])
            if m is not None:
                wrong[short] |= ~_plain_decimals(m, lengths[short])
    bad[good[wrong]] = True
    return bad
