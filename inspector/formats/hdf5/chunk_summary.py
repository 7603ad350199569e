"""Per-chunk min/max summaries of large chunked HDF5 arrays, decoded in parallel.

A :class:`ChunkSummary` holds, for a dataset stored in compressed chunks,
the minimum and maximum over finite values of every *block* of ``block``
samples along the sample axis, for every position of the other axes (every
channel).  Blocks never straddle chunks: ``block`` divides the chunk length.

Chunks are read raw and decoded by the one decoder (:mod:`inspector.formats.decoding.inflate`,
through :mod:`inspector.formats.hdf5.chunks`) on the shared worker pool
(:func:`inspector.formats.decoding.workers.pool`, opened by the entry points);
chunks whose filters cannot be undone here are read through HDF5.  While a file's
reads come from a disk, each chunk's stored bytes are asked of it
:data:`PREFETCH_AHEAD` chunks before a worker reads them
(:meth:`~inspector.formats.hdf5.chunks.ChunkFile.prefetch`), so that reading a cold
file overlaps decoding.
Unallocated chunks (a sparse dataset) hold the fill value and are never
read.

Every decoded chunk fills the summary for all its channels, so after one
full pass any channel, any wide window, is answered from memory.  A complete
summary is saved to the user's cache folder (``$XDG_CACHE_HOME/inspector``
or ``~/.cache/inspector``), keyed by the file identity (device, inode, size,
mtime) and dataset; never next to the data file.

Nothing here imports Qt.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from inspector.formats.analysis.arrays import (
    RAW_SAMPLES_PER_BIN,
    CancelledFn,
    Envelope,
    EnvelopeCancelled,
    PreviewFn,
    bin_edges,
    envelope_of,
    minmax_bins,
)
from inspector.formats.analysis.read_meter import chunk_read, chunks_waiting
from inspector.formats.decoding.inflate import ChunkOverflow
from inspector.formats.decoding.workers import default_workers, pool
from inspector.formats.hdf5.block_minmax import block_minmax, seg_minmax, snapped_edges
from inspector.formats.hdf5.chunk_minmax import stored_block_minmax
from inspector.formats.hdf5.chunk_queue import drain, interleaved_order
from inspector.formats.hdf5.chunks import ChunkLayout, decode_chunk

#: Arrays smaller than this are enveloped by plain reads (no summary).
SUMMARY_MIN_BYTES = 16 << 20
#: Target number of samples per summary block.
TARGET_BLOCK = 128
#: Chunks shorter than this along the sample axis are not worth a summary.
MIN_CHUNK_SAMPLES = 16
#: Upper bound of the number of chunks handled through the summary.
MAX_CHUNKS = 1 << 20
#: Summary size aimed at (bytes): longer arrays get longer blocks.
SUMMARY_TARGET_BYTES = 32 << 20
#: Summary memory cap (bytes); bigger summaries are not built.
MAX_SUMMARY_BYTES = 512 << 20
#: Bytes of decoded chunks kept for repeated window reads.
DECODED_CACHE_BYTES = 64 << 20
#: Chunks an envelope must have decoded before its summary is worth saving to disk (a
#: mostly unwritten dataset is summarised from its chunk index again at once).
SAVE_AFTER_CHUNKS = 64
#: Format version of the on-disk summary files.
CACHE_VERSION = 1
#: First preview after this many seconds (or this many chunks, whichever first).
FIRST_PREVIEW_S = 0.12
FIRST_PREVIEW_CHUNKS = 48
#: Later previews at most this often (seconds).
PREVIEW_EVERY_S = 0.5
#: Chunks ahead of the one submitted whose reads from disk start at once (a cold file).
PREFETCH_AHEAD = 16
#: Chunks per worker queued at once when only summaries are wanted: the workers keep
#: decoding while the collecting thread waits for a core on a busy machine.
SUMMARY_IN_FLIGHT = 8
#: Bytes of decoded chunks per worker a summary visit may have queued at once.
IN_FLIGHT_BYTES = 8 << 20

Coord = tuple[int, ...]


class ChunkedArray(Protocol):
    """What a summary needs of a chunked array (the recording's ``H5DatasetRef``)."""

    name: str
    shape: tuple[int, ...]
    sample_axis: int

    def read(self, selection: Any = ...) -> np.ndarray:
        """``array[selection]``, decoded by HDF5."""
        ...

    def read_raw_chunk(self, offset: tuple[int, ...]) -> tuple[int, bytes]:
        """``(filter_mask, stored bytes)`` of the chunk at ``offset``; raises OSError."""
        ...


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/inspector/chunk-summary`` (or ``~/.cache/...``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "inspector" / "chunk-summary"


def _summary_dtype(dtype: np.dtype) -> np.dtype:
    """float32 when it holds every value exactly, else float64."""
    dtype = np.dtype(dtype)
    if (dtype.kind == "f" and dtype.itemsize <= 4) or (dtype.kind in "biu" and dtype.itemsize <= 2):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def choose_block(chunk_len: int, target: int = TARGET_BLOCK) -> int:
    """The smallest divisor of ``chunk_len`` not below ``target`` (samples per block).

    Returns ``chunk_len`` itself when it is shorter than the target.
    """
    if chunk_len <= target:
        return chunk_len
    for d in range(chunk_len // target, 0, -1):
        if chunk_len % d == 0:
            return chunk_len // d
    return chunk_len


def summary_block(shape: tuple[int, ...], sample_axis: int, layout: ChunkLayout) -> int:
    """Samples per summary block for an array of ``shape``: :data:`TARGET_BLOCK`, or more
    when the summary would otherwise exceed :data:`SUMMARY_TARGET_BYTES` (a long, mostly
    unwritten dataset: its summary stays small however much it declares)."""
    n = max(int(shape[sample_axis]), 1)
    others = int(np.prod(shape, dtype=np.int64)) // n
    per_sample = others * 2 * _summary_dtype(layout.dtype).itemsize
    least = max(TARGET_BLOCK, -(-n * per_sample // SUMMARY_TARGET_BYTES))
    return choose_block(int(layout.chunks[sample_axis]), least)


def worth_summarising(shape: tuple[int, ...], sample_axis: int, layout: ChunkLayout) -> bool:
    """True when an array of ``shape`` is large enough and ``layout`` suits a summary."""
    size = int(np.prod(shape, dtype=np.int64))
    if len(layout.chunks) != len(shape) or size == 0:
        return False
    nbytes = size * np.dtype(layout.dtype).itemsize
    if nbytes < SUMMARY_MIN_BYTES or layout.chunks[sample_axis] < MIN_CHUNK_SAMPLES:
        return False
    if np.dtype(layout.dtype).kind not in "biuf":
        return False
    grid = [-(-s // c) for s, c in zip(shape, layout.chunks, strict=True)]
    if int(np.prod(grid, dtype=np.int64)) > MAX_CHUNKS:
        return False
    block = summary_block(shape, sample_axis, layout)
    nblocks = -(-shape[sample_axis] // block)
    others = size // max(shape[sample_axis], 1)
    return nblocks * others * 2 * _summary_dtype(layout.dtype).itemsize <= MAX_SUMMARY_BYTES


class ChunkSummary:
    """Block min/max of a chunked array along its sample axis, filled lazily.

    Args:
        ref: the array (its ``read_raw_chunk`` and ``read``).
        layout: its chunk layout.
        allocated: offsets of the chunks stored in the file, or None when
            unknown; with a known fill value, the other chunks are
            summarised as that value without being read.

    Attributes:
        axis: the sample axis.
        n: samples along it.
        chunk_len: chunk length along it.
        block: samples per block (divides ``chunk_len``).
        lo, hi: ``(n_blocks, *other axes)`` float32/float64 block minima and
            maxima over finite values (NaN: no finite value or not yet known).
        done: bool over the chunk grid: chunks already summarised.
    """

    def __init__(self, ref: ChunkedArray, layout: ChunkLayout,
                 allocated: set[Coord] | None = None) -> None:
        self.ref = ref
        self.layout = layout
        self.axis = int(ref.sample_axis)
        self.shape = tuple(int(s) for s in ref.shape)
        self.n = self.shape[self.axis]
        self.chunks = tuple(int(c) for c in layout.chunks)
        self.chunk_len = self.chunks[self.axis]
        self.block = summary_block(self.shape, self.axis, layout)
        self.blocks_per_chunk = self.chunk_len // self.block
        self.n_blocks = -(-self.n // self.block)
        self.grid = tuple(-(-s // c) for s, c in zip(self.shape, self.chunks, strict=True))
        self.others = tuple(s for a, s in enumerate(self.shape) if a != self.axis)
        sdt = _summary_dtype(layout.dtype)
        self.lo = np.full((self.n_blocks, *self.others), np.nan, dtype=sdt)
        self.hi = np.full((self.n_blocks, *self.others), np.nan, dtype=sdt)
        self.done = np.zeros(self.grid, dtype=bool)
        self.fast = layout.decodable
        self._unallocated_fill = layout.fill if allocated is not None else None
        self._allocated = allocated
        self._lock = threading.Lock()
        self._inflight: dict[Coord, Future[np.ndarray | None]] = {}
        self._decoded: OrderedDict[Coord, np.ndarray] = OrderedDict()
        self._decoded_bytes = 0
        self._saved = False
        self._summarise_unallocated()
        self._load_cache()

    # -- sparse datasets -----------------------------------------------------------
    def _summarise_unallocated(self) -> None:
        """Mark every unallocated chunk summarised: it holds the fill value only."""
        fill = self._unallocated_fill
        if fill is None or self._allocated is None:
            return
        stored = np.zeros(self.grid, dtype=bool)
        # (HDF5 offsets are unsigned 64-bit: uint64 holds any a file declares)
        offsets = np.array(list(self._allocated), dtype=np.uint64).reshape(-1, len(self.grid))
        coords = offsets // np.array(self.chunks, dtype=np.uint64)
        inside = (coords < np.array(self.grid, dtype=np.uint64)).all(axis=1)
        stored[tuple(coords[inside].astype(np.intp).T)] = True
        value = fill if np.isfinite(fill) else np.nan
        self.lo[...] = value  # every allocated chunk overwrites its own blocks when decoded
        self.hi[...] = value
        self.done[...] = ~stored

    def _is_unallocated(self, offset: Coord) -> bool:
        return (self._unallocated_fill is not None and self._allocated is not None
                and offset not in self._allocated)

    # -- cache ---------------------------------------------------------------------
    def cache_key(self) -> str | None:
        """Hex key of the on-disk summary, or None without a file identity."""
        if self.layout.identity is None:
            return None
        desc = [CACHE_VERSION, [str(x) for x in self.layout.identity], list(self.shape),
                list(self.chunks), np.dtype(self.layout.dtype).str, self.axis, self.block]
        return hashlib.sha256(json.dumps(desc).encode()).hexdigest()

    def cache_path(self) -> Path | None:
        """Where the complete summary is (or would be) saved."""
        key = self.cache_key()
        return None if key is None else cache_dir() / f"{key}.npz"

    def _load_cache(self) -> None:
        path = self.cache_path()
        if path is None or not path.is_file():
            return
        try:
            with np.load(path, allow_pickle=False) as z:
                lo, hi = z["lo"], z["hi"]
                if lo.shape != self.lo.shape or hi.shape != self.hi.shape:
                    return
                self.lo[...] = lo
                self.hi[...] = hi
            self.done[...] = True
            self._saved = True
        except (OSError, ValueError, KeyError):
            return

    def save_cache(self) -> None:
        """Save a complete summary to :func:`cache_dir` (atomically; once)."""
        path = self.cache_path()
        if path is None or self._saved or not self.complete:
            return
        self._saved = True
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".summary-", suffix=".npz", dir=path.parent)
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, lo=self.lo, hi=self.hi)
            os.replace(tmp, path)
        except OSError:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    @property
    def complete(self) -> bool:
        """True when every chunk is summarised."""
        return bool(self.done.all())

    # -- chunk access --------------------------------------------------------------
    def _chunk_slices(self, coord: Coord) -> tuple[slice, ...]:
        return tuple(slice(c * k, min((c + 1) * k, s))
                     for c, k, s in zip(coord, self.chunks, self.shape, strict=True))

    def _read_chunk(self, sl: tuple[slice, ...]) -> np.ndarray:
        """The valid part of one chunk: the fill value, decoded here, or read by HDF5."""
        offset = tuple(s.start for s in sl)
        valid = tuple(s.stop - s.start for s in sl)
        if self._is_unallocated(offset):
            return np.full(valid, self._unallocated_fill, dtype=np.dtype(self.layout.dtype))
        if self.fast:
            try:
                mask, data = self.ref.read_raw_chunk(offset)
                return decode_chunk(data, mask, self.layout)[tuple(slice(0, v) for v in valid)]
            except ChunkOverflow as exc:  # never handed to HDF5, which would inflate it all
                raise exc.at(str(getattr(self.ref, "location", "")), offset) from None
            except OSError:
                pass  # odd chunk: let HDF5 decode it
        return np.asarray(self.ref.read(sl))

    def _decode(self, coord: Coord) -> np.ndarray:
        """Decode chunk ``coord`` (valid part only) and fill its summary."""
        sl = self._chunk_slices(coord)
        arr = self._read_chunk(sl)
        if not self.done[coord]:
            lo, hi = block_minmax(np.moveaxis(arr, self.axis, 0), self.block)
            b0 = coord[self.axis] * self.blocks_per_chunk
            dst = (slice(b0, b0 + lo.shape[0]),) + tuple(
                s for a, s in enumerate(sl) if a != self.axis)
            self.lo[dst] = lo
            self.hi[dst] = hi
            self.done[coord] = True
        return arr

    def _summarise(self, coord: Coord) -> bool:
        """Fill the summary of a whole, stored chunk ``coord`` (sample axis first) from
        its stored bytes without decoding it whole
        (:func:`~inspector.formats.hdf5.chunk_minmax.stored_block_minmax`); False when
        that path does not apply (the caller decodes the chunk)."""
        sl = self._chunk_slices(coord)
        offset = tuple(s.start for s in sl)
        if not self.fast or self.axis != 0 or self._is_unallocated(offset) or \
                any(s.stop - s.start != c for s, c in zip(sl, self.chunks, strict=True)):
            return False
        try:
            mask, data = self.ref.read_raw_chunk(offset)
            lohi = stored_block_minmax(data, mask, self.layout.filters, self.layout.dtype,
                                       self.chunks, self.block)
        except ChunkOverflow as exc:  # never handed to HDF5, which would inflate it all
            raise exc.at(str(getattr(self.ref, "location", "")), offset) from None
        except OSError:
            return False  # odd chunk: decoded the usual way (HDF5 has the last word)
        if lohi is None:
            return False  # NaN or infinity: reduced over finite values by _decode
        b0 = coord[0] * self.blocks_per_chunk
        dst = (slice(b0, b0 + lohi[0].shape[0]), *sl[1:])
        self.lo[dst] = lohi[0]
        self.hi[dst] = lohi[1]
        self.done[coord] = True
        return True

    def _task(self, coord: Coord, keep: bool) -> np.ndarray | None:
        """Summarise chunk ``coord``; its samples when ``keep`` (else None when the
        summary was filled without decoding the chunk whole)."""
        try:
            if not keep and (self.done[coord] or self._summarise(coord)):
                return None
            arr = self._decode(coord)
            if keep and arr.nbytes <= DECODED_CACHE_BYTES // 4:
                with self._lock:
                    self._decoded[coord] = arr
                    self._decoded_bytes += arr.nbytes
                    while self._decoded_bytes > DECODED_CACHE_BYTES and self._decoded:
                        _, old = self._decoded.popitem(last=False)
                        self._decoded_bytes -= old.nbytes
            return arr
        finally:
            with self._lock:
                self._inflight.pop(coord, None)

    def forget_decoded(self) -> None:
        """Drop the decoded-chunk cache (benchmarks measure cold window reads)."""
        with self._lock:
            self._decoded.clear()
            self._decoded_bytes = 0

    def _start(self, coord: Coord, need_data: bool) -> tuple[Future[np.ndarray | None] | None,
                                                              np.ndarray | None, bool]:
        """``(future, cached array, skip)`` for one chunk of :meth:`visit`."""
        with self._lock:
            if need_data and coord in self._decoded:
                self._decoded.move_to_end(coord)
                return None, self._decoded[coord], False
            if not need_data and self.done[coord]:
                return None, None, True
            fut = self._inflight.get(coord)
            if fut is None:
                fut = pool().submit(self._task, coord, need_data)
                self._inflight[coord] = fut
            return fut, None, False

    def _in_flight(self, need_data: bool) -> int:
        """Chunks per worker a visit queues at once: 2 when it wants their samples, up to
        :data:`SUMMARY_IN_FLIGHT` when only summaries (as many as hold
        :data:`IN_FLIGHT_BYTES` per worker, should the chunks be decoded whole)."""
        if need_data:
            return 2
        itemsize = np.dtype(self.layout.dtype).itemsize
        chunk_bytes = int(np.prod(self.chunks, dtype=np.int64)) * itemsize
        return max(2, min(SUMMARY_IN_FLIGHT, IN_FLIGHT_BYTES // max(chunk_bytes, 1)))

    def _hint(self, coord: Coord, need_data: bool) -> None:
        """Start reading stored chunk ``coord`` from disk before a worker reads it."""
        offset = tuple(c * k for c, k in zip(coord, self.chunks, strict=True))
        prefetch = getattr(self.ref, "prefetch_chunk", None)
        if (prefetch is not None and self.fast and (need_data or not self.done[coord])
                and not self._is_unallocated(offset)):
            prefetch(offset)

    def visit(self, coords: Iterable[Coord], need_data: bool,
              on_chunk: Callable[[Coord, np.ndarray], None] | None = None,
              cancelled: CancelledFn | None = None,
              on_tick: Callable[[], None] | None = None) -> None:
        """Make sure every chunk of ``coords`` is summarised, in parallel.

        Args:
            coords: chunk-grid coordinates, in the order to process them.
            need_data: when True, ``on_chunk(coord, array)`` receives each
                decoded chunk (valid part) on the calling thread; otherwise
                already summarised chunks are skipped.
            cancelled: polled while waiting; raises :class:`EnvelopeCancelled`.
            on_tick: called on the calling thread after each finished chunk.

        Raises:
            OSError: a chunk could not be read or decoded.
            RuntimeError: no worker pool is open (see :mod:`inspector.formats.decoding.workers`).
        """
        pending: dict[Future[np.ndarray | None], Coord] = {}
        finished: queue.SimpleQueue[Future[np.ndarray | None]] = queue.SimpleQueue()
        order = list(coords)
        window = self._in_flight(need_data) * default_workers()
        i = 0
        while True:
            while i < len(order) and len(pending) < window:
                coord = order[i]
                if i + PREFETCH_AHEAD < len(order):
                    self._hint(order[i + PREFETCH_AHEAD], need_data)
                i += 1
                fut, arr, skip = self._start(coord, need_data)
                if fut is not None:
                    pending[fut] = coord
                    fut.add_done_callback(finished.put)
                else:
                    if not skip and on_chunk is not None and arr is not None:
                        on_chunk(coord, arr)
                    chunk_read(coord)
            if not pending:
                return
            self._collect(pending, drain(finished), need_data, on_chunk, cancelled, on_tick)

    def _collect(self, pending: dict[Future[np.ndarray | None], Coord],
                 finished: list[Future[np.ndarray | None]], need_data: bool,
                 on_chunk: Callable[[Coord, np.ndarray], None] | None,
                 cancelled: CancelledFn | None, on_tick: Callable[[], None] | None) -> None:
        if cancelled is not None and cancelled():
            raise EnvelopeCancelled()
        for fut in finished:
            coord = pending.pop(fut)
            arr = fut.result()  # re-raises OSError from the worker
            if need_data and on_chunk is not None:
                # a summary-only task this visit joined holds no samples: decode here
                on_chunk(coord, arr if arr is not None else self._decode(coord))
            chunk_read(coord)
            if on_tick is not None:
                on_tick()
        if not finished:
            chunks_waiting()
            if on_tick is not None:
                on_tick()

    def column(self, index: tuple[int | None, ...], c0: int, c1: int) -> list[Coord]:
        """Chunk coordinates of line ``index`` for sample-axis chunks ``[c0, c1)``."""
        base = [0 if i is None else int(i) // k for i, k in zip(index, self.chunks, strict=True)]
        out = []
        for c in range(c0, c1):
            base[self.axis] = c
            out.append(tuple(base))
        return out

    def missing(self, index: tuple[int | None, ...], c0: int, c1: int) -> list[Coord]:
        """:meth:`column`'s chunks not summarised yet (read from :attr:`done` at once)."""
        base = [0 if i is None else int(i) // k for i, k in zip(index, self.chunks, strict=True)]
        sel: list[Any] = list(base)
        sel[self.axis] = slice(c0, c1)
        todo = np.flatnonzero(~self.done[tuple(sel)]) + c0
        out = []
        for c in todo.tolist():
            base[self.axis] = c
            out.append(tuple(base))
        return out

    def read_line(self, index: tuple[int | None, ...], start: int, stop: int,
                  cancelled: CancelledFn | None = None) -> np.ndarray:
        """Samples ``[start, stop)`` of line ``index`` (stored dtype), decoding in parallel."""
        out = np.empty(max(stop - start, 0), dtype=np.dtype(self.layout.dtype))
        if stop <= start:
            return out

        def put(coord: Coord, arr: np.ndarray) -> None:
            s0 = coord[self.axis] * self.chunk_len
            a = max(start, s0)
            b = min(stop, s0 + arr.shape[self.axis])
            sel: list[slice | int] = []
            for ax, i in enumerate(index):
                if ax == self.axis or i is None:
                    sel.append(slice(a - s0, b - s0))
                else:
                    sel.append(int(i) - coord[ax] * self.chunks[ax])
            out[a - start: b - start] = arr[tuple(sel)]

        c0, c1 = start // self.chunk_len, -(-stop // self.chunk_len)
        self.visit(self.column(index, c0, c1), True, put, cancelled)
        return out

    def line_blocks(self, index: tuple[int | None, ...], b0: int,
                    b1: int) -> tuple[np.ndarray, np.ndarray]:
        """float64 block minima and maxima of line ``index`` for blocks ``[b0, b1)``."""
        fixed = tuple(int(i) for a, i in enumerate(index) if a != self.axis and i is not None)
        sel: tuple[slice | int, ...] = (slice(b0, b1), *fixed)
        return self.lo[sel].astype(np.float64), self.hi[sel].astype(np.float64)

    def done_along(self, index: tuple[int | None, ...]) -> np.ndarray:
        """bool per sample-axis chunk of line ``index``: already summarised."""
        col = tuple(0 if i is None else int(i) // c for i, c in zip(index, self.chunks,
                                                                    strict=True))
        sel = tuple(slice(None) if ax == self.axis else col[ax] for ax in range(len(col)))
        return np.asarray(self.done[sel])


def _fill_unknown(s: ChunkSummary, index: tuple[int | None, ...], ba: int, bb: int,
                  blo: np.ndarray, bhi: np.ndarray) -> None:
    """For a preview: blocks of chunks not yet summarised take the min/max of the
    nearest summarised chunk of the line (in place)."""
    done = s.done_along(index)
    done_chunks = np.flatnonzero(done)
    if not done_chunks.size:
        return
    blk_chunk = np.arange(ba, bb) // s.blocks_per_chunk
    known = done[blk_chunk]
    if known.all():
        return
    clo, chi = s.line_blocks(index, 0, s.n_blocks)
    pad = (-len(clo)) % s.blocks_per_chunk
    with np.errstate(all="ignore"):
        clo = np.concatenate([clo, np.full(pad, np.nan)]).reshape(-1, s.blocks_per_chunk)
        chi = np.concatenate([chi, np.full(pad, np.nan)]).reshape(-1, s.blocks_per_chunk)
    cmin = np.fmin.reduce(clo, axis=1)
    cmax = np.fmax.reduce(chi, axis=1)
    want = blk_chunk[~known]
    j = np.searchsorted(done_chunks, want)
    j0 = done_chunks[np.clip(j - 1, 0, done_chunks.size - 1)]
    j1 = done_chunks[np.clip(j, 0, done_chunks.size - 1)]
    near = np.where(np.abs(j0 - want) <= np.abs(j1 - want), j0, j1)
    blo[~known] = cmin[near]
    bhi[~known] = cmax[near]


def _reduce_bins(s: ChunkSummary, index: tuple[int | None, ...], start: int, stop: int,
                 edges: np.ndarray, head: tuple[float, float], tail: tuple[float, float],
                 fill: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per-bin min/max from whole blocks plus the partial head/tail segments.

    With ``fill``, blocks of chunks not yet summarised take the values of the
    nearest summarised chunk (for previews).
    """
    B = s.block
    a = -(-start // B) * B
    b = (stop // B) * B
    k = len(edges) - 1
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    if b > a:
        blo, bhi = s.line_blocks(index, a // B, b // B)
        if fill:
            _fill_unknown(s, index, a // B, b // B, blo, bhi)
        # bin i covers blocks [(max(e_i, a) - a) / B, (min(e_i+1, b) - a) / B); bins
        # are contiguous, so reduceat over the first block of each non-empty bin
        # runs exactly to the end of that bin.
        lo_edge = (np.clip(edges[:-1], a, b) - a) // B
        hi_edge = (np.clip(edges[1:], a, b) - a) // B
        nonempty = hi_edge > lo_edge
        if nonempty.any() and blo.size:
            lo[nonempty] = np.fmin.reduceat(blo, lo_edge[nonempty])
            hi[nonempty] = np.fmax.reduceat(bhi, lo_edge[nonempty])
    if start < a:
        lo[0] = np.fmin(lo[0], head[0])
        hi[0] = np.fmax(hi[0], head[1])
    if a <= b < stop:
        lo[-1] = np.fmin(lo[-1], tail[0])
        hi[-1] = np.fmax(hi[-1], tail[1])
    return lo, hi


class _Previews:
    """Calls ``preview`` with coarse envelopes while the missing chunks decode."""

    def __init__(self, s: ChunkSummary, index: tuple[int | None, ...], edges: np.ndarray,
                 ends: tuple[tuple[float, float], tuple[float, float]], total: int,
                 preview: PreviewFn | None) -> None:
        self.s, self.index, self.edges, self.ends = s, index, edges, ends
        self.total, self.preview = total, preview
        self.count = 0
        self.next = time.monotonic() + FIRST_PREVIEW_S
        self.first = True

    def tick(self) -> None:
        """One more chunk finished: send a preview when one is due."""
        self.count += 1
        if self.preview is None:
            return
        now = time.monotonic()
        if self.first and self.count >= min(FIRST_PREVIEW_CHUNKS, self.total // 4 + 1):
            self.next = now
        if now >= self.next and self.count < self.total:
            self.first = False
            self.next = now + PREVIEW_EVERY_S
            start, stop = int(self.edges[0]), int(self.edges[-1])
            lo, hi = _reduce_bins(self.s, self.index, start, stop, self.edges, *self.ends,
                                  fill=True)
            self.preview(Envelope(start, stop, self.edges[:-1].astype(np.float64), lo, hi,
                                  raw=False, exact=False))


def chunked_envelope(s: ChunkSummary, index: tuple[int | None, ...], start: int, stop: int,
                     bins: int, preview: PreviewFn | None = None,
                     cancelled: CancelledFn | None = None) -> Envelope:
    """:meth:`ArrayRef.envelope` through the chunk summary ``s`` (same contract).

    Narrow ranges (fewer than ``block`` samples per bin) are read as raw
    samples, decoding the needed chunks in parallel; wide ranges are reduced
    from the block summary, first summarising any missing chunk of the line
    (all channels of those chunks at once), in an interleaved order that
    allows coarse ``exact=False`` previews of the whole range early on.
    """
    B = s.block
    if stop - start <= bins * RAW_SAMPLES_PER_BIN:
        return envelope_of(s.read_line(index, start, stop, cancelled), start, stop, bins)
    if (stop - start) < bins * B:
        vals = s.read_line(index, start, stop, cancelled)
        edges = bin_edges(start, stop, bins)
        lo, hi = minmax_bins(vals, edges, offset=start)
        return Envelope(start, stop, edges[:-1].astype(np.float64), lo, hi, raw=False)
    edges = snapped_edges(start, stop, bins, B)
    a, b = -(-start // B) * B, (stop // B) * B
    nan2 = (np.nan, np.nan)
    head = seg_minmax(s.read_line(index, start, a, cancelled)) if start < a else nan2
    tail = seg_minmax(s.read_line(index, b, stop, cancelled)) if b < stop else nan2
    missing = s.missing(index, a // s.chunk_len, -(-b // s.chunk_len))
    if missing:
        coords = [missing[i] for i in interleaved_order(len(missing))]
        ticker = _Previews(s, index, edges, (head, tail), len(coords), preview)
        s.visit(coords, False, None, cancelled, ticker.tick)
        if len(coords) >= SAVE_AFTER_CHUNKS:
            s.save_cache()
    lo, hi = _reduce_bins(s, index, start, stop, edges, head, tail, fill=False)
    return Envelope(start, stop, edges[:-1].astype(np.float64), lo, hi, raw=False)


def envelope_chunks(s: ChunkSummary, index: tuple[int | None, ...], start: int, stop: int,
                    bins: int) -> set[Coord]:
    """The chunk coordinates :func:`chunked_envelope` with these arguments reads
    (``start``/``stop`` already clipped): the line's chunks of a narrow range, else
    the chunks not summarised yet and those of the partial head and tail blocks.
    Reads nothing (:meth:`ChunkSummary.missing` reads the summary's ``done`` map)."""
    B = s.block
    bins = max(1, int(bins))
    if stop <= start:
        return set()
    if (stop - start) < bins * B:  # (the raw range too: both read the line's samples)
        return set(s.column(index, start // s.chunk_len, -(-stop // s.chunk_len)))
    a, b = -(-start // B) * B, (stop // B) * B
    out = set(s.missing(index, a // s.chunk_len, -(-b // s.chunk_len)))
    if start < a:
        out.update(s.column(index, start // s.chunk_len, -(-a // s.chunk_len)))
    if b < stop:
        out.update(s.column(index, b // s.chunk_len, -(-stop // s.chunk_len)))
    return out


def summarise_all(s: ChunkSummary, cancelled: CancelledFn | None = None) -> ChunkSummary:
    """Summarise every chunk (all channels) and save the summary.

    Raises:
        OSError: a chunk cannot be read.
        EnvelopeCancelled: ``cancelled`` returned True.
    """
    coords = [tuple(int(x) for x in c) for c in np.argwhere(~s.done)]
    s.visit(coords, False, None, cancelled)
    s.save_cache()
    return s
