"""Lazy :class:`ArrayRef` views of the ``.npy`` members of an AUCX archive.

Shape and dtype come from the ``.npy`` header parsed at open; data is read
on demand straight from the ZIP (never extracted to disk):

* stored (uncompressed) members: the rows a selection needs are read by
  seeking to their byte offset;
* deflated members up to :data:`CACHE_LIMIT` bytes: inflated once and cached;
* larger deflated members: the rows needed are inflated by the member's
  :class:`~inspector.formats.aucx.stream.InflateCursor`, which resumes where
  the previous read ended, or from its nearest checkpoint before the rows,
  keeping only the requested rows (bounded by the request).  Reading a
  member in ascending blocks (as :mod:`inspector.formats.analysis.scan_envelope`
  does) therefore inflates it once, not once per block.

Reads of one member are serialised by its lock (one inflate state per
member); reads of different members run in parallel.

:class:`MaskedLineRef` (radius and signal) honours the validity mask in
:meth:`envelope`: positions whose mask entry is False (per-scan NaN padding)
and non-finite values become gaps, never plotted values (AUCX 1.0 format document, "Both radius
modes": the mask is authoritative).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from inspector.formats.analysis.arrays import (
    ArrayRef,
    CancelledFn,
    Envelope,
    EnvelopeCancelled,
    PreviewFn,
    envelope_of,
)
from inspector.formats.aucx.npyfmt import NpyHeader
from inspector.formats.aucx.stream import InflateCursor
from inspector.formats.aucx.zipscan import DEFLATED, STORED, ZipEntry
from inspector.formats.remote.path import as_source

#: Deflated members up to this many data bytes are inflated once and cached.
CACHE_LIMIT = 16 << 20


class NpyMemberRef(ArrayRef):
    """An array stored as an ``.npy`` member of a ZIP archive.

    Args:
        name: ``"radius"``, ``"signal"`` or ``"mask"``.
        path: the archive.
        entry: its (safe) ZIP entry.
        header: the parsed ``.npy`` header (non-object dtype).
        attrs: display metadata (units...).

    :meth:`read` returns native-byte-order arrays; raises ``OSError`` when the
    member cannot be inflated (changed or corrupt file) and ``IndexError``
    for out-of-range selections.
    """

    def __init__(self, name: str, path: Path, entry: ZipEntry, header: NpyHeader,
                 attrs: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.name = name
        self.path = as_source(path)
        self.entry = entry
        self.header = header
        self.shape = tuple(header.shape)
        self.dtype = header.dtype
        self.location = entry.name
        self.storage = "npy-stored" if entry.method == STORED else "npy-deflated"
        self.sample_axis = len(self.shape) - 1 if self.shape else 0
        self.attrs.update(attrs or {})
        self._cache: np.ndarray | None = None
        self._lock = threading.Lock()  # the cache
        self._inflate_lock = threading.Lock()  # the cursor: one read at a time
        self.cursor: InflateCursor | None = None
        if entry.method == DEFLATED and entry.data_offset is not None and entry.safe:
            self.cursor = InflateCursor(self.path, entry)

    # -- raw access -------------------------------------------------------
    @property
    def _row_bytes(self) -> int:
        n = self.dtype.itemsize
        for s in self.shape[1:]:
            n *= s
        return n

    def _from_bytes(self, raw: bytes, rows: int) -> np.ndarray:
        a = np.frombuffer(raw, dtype=self.dtype)
        a = a.reshape((rows, *self.shape[1:]) if self.shape else ())
        if not self.dtype.isnative:
            a = a.astype(self.dtype.newbyteorder("="))
        return a

    def _whole(self) -> np.ndarray:
        with self._lock:
            if self._cache is None:
                raw = self._read_range(0, self.header.nbytes)
                rows = self.shape[0] if self.shape else 1
                a = self._from_bytes(raw, rows)
                if self.header.fortran_order:
                    a = np.frombuffer(raw, dtype=self.dtype).reshape(
                        self.shape[::-1]).T
                    if not self.dtype.isnative:
                        a = a.astype(self.dtype.newbyteorder("="))
                self._cache = a
            return self._cache

    def _read_range(self, start: int, stop: int) -> bytes:
        """Bytes ``[start, stop)`` of the array data (after the header).

        Raises:
            OSError: the archive cannot be read, the member is not a safe
                stored or deflated one, its deflate data is corrupt or it ends
                before ``stop`` (shorter than its ``.npy`` header says).
        """
        off = self.header.data_offset
        if self.entry.method == STORED and self.entry.data_offset is not None:
            with self.path.open("rb") as fh:
                fh.seek(self.entry.data_offset + off + start)
                raw = fh.read(stop - start)
        elif self.cursor is not None:
            with self._inflate_lock:
                raw = self.cursor.read(off + start, off + stop)
        elif self.entry.method not in (STORED, DEFLATED):
            raise OSError(f"{self.entry.name}: the member uses compression method "
                          f"{self.entry.method}")
        else:
            raise OSError(f"{self.entry.name}: the member failed a safety check and is not read")
        if len(raw) != stop - start:
            raise OSError(f"{self.entry.name}: array data is shorter than its header says")
        return raw

    # -- ArrayRef ---------------------------------------------------------
    def read(self, selection: Any = Ellipsis) -> np.ndarray:
        """The selected elements, native byte order (see the class docstring)."""
        if (self.header.fortran_order or not self.shape
                or (self.entry.method != STORED and self.header.nbytes <= CACHE_LIMIT)):
            return np.asarray(self._whole()[selection])
        sel = selection if isinstance(selection, tuple) else (selection,)
        if not sel or sel[0] is Ellipsis:
            if self.header.nbytes <= CACHE_LIMIT or self.entry.method == STORED:
                return np.asarray(self._whole()[selection])
            sel = (slice(None), *sel)
        first, rest = sel[0], sel[1:]
        n = self.shape[0]
        if isinstance(first, slice):
            rows = range(n)[first]
            if len(rows) == 0:
                empty = np.empty((0, *self.shape[1:]), dtype=self.dtype.newbyteorder("="))
                return empty[(slice(None), *rest)]
            r0, r1 = min(rows[0], rows[-1]), max(rows[0], rows[-1]) + 1
            cols = self._column_span(rest)
            if cols is not None:  # a narrow window of columns: only its bytes of each row
                c0, c1 = cols
                block = self._row_spans(r0, r1, c0, c1)
                rest = (slice(None),)  # the block holds exactly the selected columns
            else:
                block = self._rows(r0, r1)
            picked = block[np.asarray(rows, dtype=np.intp) - r0]
            return np.asarray(picked[(slice(None), *rest)])
        i = int(first)
        if i < -n or i >= n:
            raise IndexError(f"index {i} is out of bounds for axis 0 with size {n}")
        i %= n
        return np.asarray(self._rows(i, i + 1)[(0, *rest)])

    def _rows(self, r0: int, r1: int) -> np.ndarray:
        rb = self._row_bytes
        return self._from_bytes(self._read_range(r0 * rb, r1 * rb), r1 - r0)

    def _column_span(self, rest: tuple[Any, ...]) -> tuple[int, int] | None:
        """``(c0, c1)`` when ``rest`` selects at most half of a 2-D array's columns with a
        forward slice (the window of a zoomed plot), else None (whole rows are read)."""
        if len(self.shape) != 2 or len(rest) != 1 or not isinstance(rest[0], slice):
            return None
        sl = rest[0]
        cols = range(self.shape[1])[sl]
        if sl.step not in (None, 1) or len(cols) == 0 or 2 * len(cols) > self.shape[1]:
            return None
        return cols[0], cols[-1] + 1

    def _row_spans(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """``(r1 - r0, c1 - c0)``: columns ``[c0, c1)`` of rows ``[r0, r1)``, one read
        per row (in ascending order: a deflated member is still inflated once)."""
        rb, item = self._row_bytes, self.dtype.itemsize
        spans = [(r * rb + c0 * item, r * rb + c1 * item) for r in range(r0, r1)]
        if self.entry.method == STORED and self.entry.data_offset is not None:
            base = self.entry.data_offset + self.header.data_offset
            with self.path.open("rb") as fh:
                raw = []
                for lo, hi in spans:
                    fh.seek(base + lo)
                    raw.append(fh.read(hi - lo))
        else:
            raw = [self._read_range(lo, hi) for lo, hi in spans]
        if any(len(part) != (c1 - c0) * item for part in raw):
            raise OSError(f"{self.entry.name}: array data is shorter than its header says")
        a = np.frombuffer(b"".join(raw), dtype=self.dtype).reshape(r1 - r0, c1 - c0)
        return a.astype(self.dtype.newbyteorder("=")) if not self.dtype.isnative else a


class MaskedLineRef(NpyMemberRef):
    """A radius or signal member whose envelope hides masked-out positions.

    ``mask`` is the mask member's :class:`NpyMemberRef` (bool, same
    ``(scans, points)`` shape for signal and per-scan radius) or None.
    """

    def __init__(self, *args: Any, mask: NpyMemberRef | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.mask = mask

    def envelope(self, index: tuple[int | None, ...], start: int, stop: int, bins: int, *,
                 preview: PreviewFn | None = None,
                 cancelled: CancelledFn | None = None) -> Envelope:
        """Per-bin min/max of one scan line, masked and NaN positions left out.

        A scan line is read in one piece (at most a few MB), so ``preview`` is
        never called and ``cancelled`` is only polled before reading.

        Raises:
            EnvelopeCancelled: ``cancelled()`` returned True.
            OSError: the member cannot be inflated.
        """
        if cancelled is not None and cancelled():
            raise EnvelopeCancelled
        axis = index.index(None)
        n = self.shape[axis]
        start = max(0, min(int(start), n))
        stop = max(start, min(int(stop), n))
        values = np.asarray(self.read(self.line_selection(index, start, stop)), dtype=np.float64)
        if (self.mask is not None and self.mask.shape == self.shape
                and self.mask.dtype == np.bool_):
            keep = np.asarray(self.mask.read(self.line_selection(index, start, stop)), dtype=bool)
            values = np.where(keep, values, np.nan)
        return envelope_of(values, start, stop, max(1, int(bins)))
