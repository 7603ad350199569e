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
#: Digits of a plain decimal read exactly here (below 2**53; 10**k exact for k <= 22).
_MAX_DIGITS = 15
_POW10 = 10 ** np.arange(_MAX_DIGITS + 1, dtype=np.int64)


def field_bounds(block: Block, delimiter: str,
                 columns: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(starts, ends)``, each ``int64 (lines, columns)``: offsets in ``block.data`` of
    every field; None when a line has another field count."""
    arr = np.frombuffer(block.data, dtype=np.uint8)
    at = np.flatnonzero(arr == ord(delimiter))
    n = len(block)
    line = np.searchsorted(block.starts, at, side="right") - 1
    inside = (line >= 0) & (at < block.ends[np.maximum(line, 0)])
    at, line = at[inside], line[inside]
    if at.size != n * (columns - 1) or (np.bincount(line, minlength=n) != columns - 1).any():
        return None
    cuts = at.reshape(n, columns - 1).astype(np.int64)
    return (np.column_stack((block.starts, cuts + 1)), np.column_stack((cuts, block.ends)))


def cells(block: Block, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """``uint8 (lines, width)``: the bytes of one field per line, NUL-padded; None when a
    field is longer than :data:`MAX_FAST_CELL`."""
    arr = np.frombuffer(block.data, dtype=np.uint8)
    lengths = ends - starts
    width = int(lengths.max()) if lengths.size else 0
    if width > MAX_FAST_CELL:
        return None
    width = max(width, 1)
    pos = np.arange(width)
    idx = np.minimum(starts[:, None] + pos, max(arr.size - 1, 0))
    return np.where(pos < lengths[:, None], arr[idx], 0).astype(np.uint8)


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


def _plain_decimals(m: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(ok, values)``: which cells are plain decimals (sign, at most 15 digits, one
    point) and their value, exact as ``float()`` gives it (m / 10**k, both exact)."""
    pos = np.arange(m.shape[1])
    inside = pos < lengths[:, None]
    digit = (m >= 0x30) & (m <= 0x39) & inside
    point = (m == 0x2E) & inside
    sign = ((m == 0x2D) | (m == 0x2B)) & (pos == 0)
    ndig = digit.sum(axis=1)
    ok = ((digit | point | sign | ~inside).all(axis=1) & (point.sum(axis=1) <= 1)
          & (ndig >= 1) & (ndig <= _MAX_DIGITS))
    later = ndig[:, None] - np.cumsum(digit, axis=1)  # digits after each position
    weight = np.where(digit, _POW10[np.clip(later, 0, _MAX_DIGITS)], 0)
    mantissa = (weight * (m.astype(np.int64) - 0x30)).sum(axis=1)
    at = np.where(point.any(axis=1), point.argmax(axis=1), m.shape[1])
    fraction = (digit & (pos > at[:, None])).sum(axis=1)
    values = mantissa / 10.0 ** fraction
    return ok, np.where(m[:, 0] == 0x2D, -values, values)


def numbers(block: Block, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """``float64 (lines,)``: the finite number of each field as ``float()`` reads it
    (its text stripped); None when a field is not one (or is too long to read here)."""
    m = cells(block, starts, ends)
    if m is None:
        return None
    ok, values = _plain_decimals(m, ends - starts)
    if not ok.all():
        other, inverse = np.unique(as_bytes(m[~ok]), return_inverse=True)
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
