"""Per-chunk min/max summaries of large chunked arrays, decoded in parallel.

A :class:`ChunkSummary` holds, for an array stored in compressed chunks (an
:class:`~inspector.formats.arrays.ArrayRef` whose
:meth:`~inspector.formats.arrays.ArrayRef.chunk_layout` is not None), the
minimum and maximum over finite values of every *block* of ``block`` samples
along the sample axis, for every position of the other axes (every channel).
Blocks never straddle chunks: ``block`` divides the chunk length.

Chunks are read with ``ArrayRef.read_raw_chunk`` (HDF5's
``read_direct_chunk``: one short call under h5py's lock) and decoded here
with :mod:`zlib` and a numpy unshuffle in a thread pool: zlib and numpy
release the GIL, so decoding uses every core.  Chunks whose filters cannot
be undone here are read through ``ArrayRef.read``.

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
import tempfile
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import numpy as np

from inspector.formats.arrays import (
    RAW_SAMPLES_PER_BIN,
    ArrayRef,
    CancelledFn,
    ChunkLayout,
    Envelope,
    EnvelopeCancelled,
    PreviewFn,
    bin_edges,
    envelope_of,
    minmax_bins,
)

#: Arrays smaller than this are enveloped by plain reads (no summary).
SUMMARY_MIN_BYTES = 16 << 20
#: Target number of samples per summary block.
TARGET_BLOCK = 128
#: Chunks shorter than this along the sample axis are not worth a summary.
MIN_CHUNK_SAMPLES = 16
#: Upper bound of the number of chunks handled through the summary.
MAX_CHUNKS = 1 << 20
#: Summary memory cap (bytes); bigger summaries are not built.
MAX_SUMMARY_BYTES = 512 << 20
#: Bytes of decoded chunks kept for repeated window reads.
DECODED_CACHE_BYTES = 64 << 20
#: Format version of the on-disk summary files.
CACHE_VERSION = 1
#: First preview after this many seconds (or this many chunks, whichever first).
FIRST_PREVIEW_S = 0.12
FIRST_PREVIEW_CHUNKS = 48
#: Later previews at most this often (seconds).
PREVIEW_EVERY_S = 0.5

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def workers() -> int:
    """Number of decoding threads (one per core, at least two)."""
    return max(2, os.cpu_count() or 2)


def executor() -> ThreadPoolExecutor:
    """The shared decoding thread pool."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=workers(), thread_name_prefix="chunks")
        return _executor


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/inspector/chunk-summary`` (or ``~/.cache/...``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "inspector" / "chunk-summary"


# -- HDF5 helpers (duck-typed: no h5py import needed here) ---------------------------

_FILTER_NAMES = {1: "gzip", 2: "shuffle", 3: "fletcher32"}


def h5_chunk_layout(dataset: Any, identity: tuple | None = None) -> ChunkLayout | None:
    """The :class:`ChunkLayout` of an ``h5py.Dataset``, or None if not chunked.

    Args:
        dataset: an open ``h5py.Dataset``.
        identity: ``(st_dev, st_ino, st_size, st_mtime_ns)`` of the file;
            the dataset path is appended.  None disables the disk cache.

    Filters other than deflate, shuffle and Fletcher-32 become ``"other"``
    (their chunks are then read through HDF5).
    """
    chunks = getattr(dataset, "chunks", None)
    if not chunks:
        return None
    filters: list[str] = []
    try:
        dcpl = dataset.id.get_create_plist()
        for i in range(dcpl.get_nfilters()):
            code = dcpl.get_filter(i)[0]
            filters.append(_FILTER_NAMES.get(int(code), "other"))
    except Exception:  # noqa: BLE001 - unknown plist: decode through HDF5
        filters.append("other")
    ident = None if identity is None else (*tuple(identity), str(dataset.name))
    return ChunkLayout(tuple(int(c) for c in chunks), np.dtype(dataset.dtype), tuple(filters), ident)


def h5_read_raw_chunk(dataset: Any, offset: tuple[int, ...]) -> tuple[int, bytes]:
    """``dataset.id.read_direct_chunk(offset)`` with errors turned into ``OSError``."""
    try:
        mask, data = dataset.id.read_direct_chunk(tuple(int(o) for o in offset))
    except (KeyError, ValueError, RuntimeError) as exc:
        raise OSError(f"cannot read chunk {offset} of {getattr(dataset, 'name', '?')}: {exc}") from exc
    return int(mask), bytes(data) if not isinstance(data, bytes) else data


# -- decoding ------------------------------------------------------------------------


def unshuffle(buf: bytes | np.ndarray, itemsize: int) -> np.ndarray:
    """Undo the HDF5 shuffle filter: uint8 array of the original byte order.

    The shuffle filter stores byte 0 of every element, then byte 1, ...;
    trailing bytes that do not fill an element are left in place (HDF5
    ``H5Zshuffle.c``).
    """
    b = np.frombuffer(buf, dtype=np.uint8)
    if itemsize <= 1:
        return b
    n = b.size // itemsize
    out = np.empty(b.size, dtype=np.uint8)
    dst = out[: n * itemsize].reshape(n, itemsize)
    src = b[: n * itemsize].reshape(itemsize, n)
    for j in range(itemsize):  # one strided column at a time: ~5x faster than .T copy
        dst[:, j] = src[j]
    out[n * itemsize :] = b[n * itemsize :]
    return out


def decode_chunk(data: bytes, filter_mask: int, layout: ChunkLayout) -> np.ndarray:
    """Decode one stored chunk into an array of shape ``layout.chunks``.

    Filters are undone in reverse write order; a set bit ``i`` of
    ``filter_mask`` means filter ``i`` was not applied to this chunk.

    Raises:
        OSError: corrupt data (zlib error, wrong decoded size).
    """
    dtype = np.dtype(layout.dtype)
    expected = int(np.prod(layout.chunks, dtype=np.int64)) * dtype.itemsize
    buf: bytes | np.ndarray = data
    for i in range(len(layout.filters) - 1, -1, -1):
        if filter_mask & (1 << i):
            continue
        f = layout.filters[i]
        if f == "gzip":
            try:
                # the known output size avoids repeated buffer growth
                buf = zlib.decompress(buf, bufsize=max(expected, 1 << 14))
            except zlib.error as exc:
                raise OSError(f"corrupt compressed chunk: {exc}") from exc
        elif f == "shuffle":
            buf = unshuffle(buf, dtype.itemsize)
        elif f == "fletcher32":
            buf = bytes(buf)[:-4]
        else:
            raise OSError(f"filter {f!r} cannot be decoded here")
    arr = np.frombuffer(buf, dtype=np.uint8)
    if arr.size != expected:
        raise OSError(f"decoded chunk holds {arr.size} bytes, expected {expected}")
    return arr.view(dtype).reshape(layout.chunks)


def _summary_dtype(dtype: np.dtype) -> np.dtype:
    """float32 when it holds every value exactly, else float64."""
    dtype = np.dtype(dtype)
    if (dtype.kind == "f" and dtype.itemsize <= 4) or (dtype.kind in "biu" and dtype.itemsize <= 2):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def _block_minmax(v: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Min/max over finite values of consecutive blocks along axis 0.

    ``v``: ``(L, ...)``; returns two float64 arrays ``(ceil(L / block), ...)``
    with NaN for blocks without a finite value.  Integers never overflow
    (min/max are taken in the integer type, then converted).
    """
    length = v.shape[0]
    nb = -(-length // block)
    full = length // block
    parts_lo = []
    parts_hi = []
    if full:
        m = v[: full * block].reshape(full, block, *v.shape[1:])
        parts_lo.append(m.min(axis=1))
        parts_hi.append(m.max(axis=1))
    if full < nb:
        t = v[full * block :]
        parts_lo.append(t.min(axis=0, keepdims=True))
        parts_hi.append(t.max(axis=0, keepdims=True))
    lo = np.concatenate(parts_lo).astype(np.float64) if len(parts_lo) > 1 else parts_lo[0].astype(np.float64)
    hi = np.concatenate(parts_hi).astype(np.float64) if len(parts_hi) > 1 else parts_hi[0].astype(np.float64)
    if v.dtype.kind == "f" and not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        finite = np.isfinite(v)
        vf = v.astype(np.float64)
        vlo = np.where(finite, vf, np.inf)
        vhi = np.where(finite, vf, -np.inf)
        idx = np.arange(0, length, block)
        lo = np.minimum.reduceat(vlo, idx, axis=0)
        hi = np.maximum.reduceat(vhi, idx, axis=0)
        lo[~np.isfinite(lo)] = np.nan
        hi[~np.isfinite(hi)] = np.nan
    return lo, hi


def choose_block(chunk_len: int) -> int:
    """Largest divisor of ``chunk_len`` close to but not below :data:`TARGET_BLOCK`.

    Returns ``chunk_len`` itself when it is shorter than the target.
    """
    if chunk_len <= TARGET_BLOCK:
        return chunk_len
    for d in range(chunk_len // TARGET_BLOCK, 0, -1):
        if chunk_len % d == 0:
            return chunk_len // d
    return chunk_len


def worth_summarising(ref: ArrayRef, layout: ChunkLayout) -> bool:
    """True when ``ref`` is large enough and its layout suits a summary."""
    if len(layout.chunks) != ref.ndim or ref.size == 0:
        return False
    axis = ref.sample_axis
    nbytes = ref.size * np.dtype(layout.dtype).itemsize
    if nbytes < SUMMARY_MIN_BYTES or layout.chunks[axis] < MIN_CHUNK_SAMPLES:
        return False
    if np.dtype(layout.dtype).kind not in "biuf":
        return False
    grid = [-(-s // c) for s, c in zip(ref.shape, layout.chunks, strict=True)]
    if int(np.prod(grid, dtype=np.int64)) > MAX_CHUNKS:
        return False
    block = choose_block(layout.chunks[axis])
    nblocks = -(-ref.shape[axis] // block)
    others = ref.size // max(ref.shape[axis], 1)
    return nblocks * others * 2 * _summary_dtype(layout.dtype).itemsize <= MAX_SUMMARY_BYTES


def interleaved_order(n: int) -> np.ndarray:
    """``0..n-1`` in an order that spreads early items over the whole range.

    Bit-reversal order: the first k items of the order are roughly evenly
    spaced for every k, so a partial pass already covers the whole range.
    """
    if n <= 1:
        return np.arange(n)
    bits = int(n - 1).bit_length()
    i = np.arange(1 << bits, dtype=np.int64)
    r = np.zeros_like(i)
    for b in range(bits):
        r |= ((i >> b) & 1) << (bits - 1 - b)
    return r[r < n]


class ChunkSummary:
    """Block min/max of a chunked array along its sample axis, filled lazily.

    Attributes:
        axis: the sample axis.
        n: samples along it.
        chunk_len: chunk length along it.
        block: samples per block (divides ``chunk_len``).
        lo, hi: ``(n_blocks, *other axes)`` float32/float64 block minima and
            maxima over finite values (NaN: no finite value or not yet known).
        done: bool over the chunk grid: chunks already summarised.
    """

    def __init__(self, ref: ArrayRef, layout: ChunkLayout) -> None:
        self.ref = ref
        self.layout = layout
        self.axis = int(ref.sample_axis)
        self.shape = tuple(int(s) for s in ref.shape)
        self.n = self.shape[self.axis]
        self.chunks = tuple(int(c) for c in layout.chunks)
        self.chunk_len = self.chunks[self.axis]
        self.block = choose_block(self.chunk_len)
        self.blocks_per_chunk = self.chunk_len // self.block
        self.n_blocks = -(-self.n // self.block)
        self.grid = tuple(-(-s // c) for s, c in zip(self.shape, self.chunks, strict=True))
        self.others = tuple(s for a, s in enumerate(self.shape) if a != self.axis)
        sdt = _summary_dtype(layout.dtype)
        self.lo = np.full((self.n_blocks, *self.others), np.nan, dtype=sdt)
        self.hi = np.full((self.n_blocks, *self.others), np.nan, dtype=sdt)
        self.done = np.zeros(self.grid, dtype=bool)
        self.fast = layout.decodable
        self._lock = threading.Lock()
        self._inflight: dict[tuple[int, ...], Future] = {}
        self._decoded: OrderedDict[tuple[int, ...], np.ndarray] = OrderedDict()
        self._decoded_bytes = 0
        self._saved = False
        self._load_cache()

    # -- cache ---------------------------------------------------------------------
    def cache_key(self) -> str | None:
        """Hex key of the on-disk summary, or None without a file identity."""
        if self.layout.identity is None:
            return None
        desc = [CACHE_VERSION, [str(x) for x in self.layout.identity], list(self.shape),
                list(self.chunks), np.dtype(self.layout.dtype).str, self.axis, self.block]
        return hashlib.sha256(json.dumps(desc).encode()).hexdigest()

    def cache_path(self) -> Path | None:
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

    def _save_cache(self) -> None:
        path = self.cache_path()
        if path is None or self._saved:
            return
        self._saved = True
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".summary-", suffix=".npz", dir=path.parent)
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, lo=self.lo, hi=self.hi)
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)  # type: ignore[possibly-undefined]
            except (OSError, NameError):
                pass

    @property
    def complete(self) -> bool:
        return bool(self.done.all())

    # -- chunk access --------------------------------------------------------------
    def _chunk_slices(self, coord: tuple[int, ...]) -> tuple[slice, ...]:
        return tuple(
            slice(c * k, min((c + 1) * k, s)) for c, k, s in zip(coord, self.chunks, self.shape, strict=True)
        )

    def _decode(self, coord: tuple[int, ...]) -> np.ndarray:
        """Decode chunk ``coord`` (valid part only) and fill its summary."""
        sl = self._chunk_slices(coord)
        arr = None
        if self.fast:
            offset = tuple(s.start for s in sl)
            try:
                mask, data = self.ref.read_raw_chunk(offset)
                full = decode_chunk(data, mask, self.layout)
                arr = full[tuple(slice(0, s.stop - s.start) for s in sl)]
            except (OSError, NotImplementedError):
                arr = None  # unallocated or odd chunk: let HDF5 decode it
        if arr is None:
            arr = np.asarray(self.ref.read(sl))
        if not self.done[coord]:
            v = np.moveaxis(arr, self.axis, 0)
            lo, hi = _block_minmax(v, self.block)
            b0 = coord[self.axis] * self.blocks_per_chunk
            dst = (slice(b0, b0 + lo.shape[0]),) + tuple(
                s for a, s in enumerate(sl) if a != self.axis
            )
            self.lo[dst] = lo
            self.hi[dst] = hi
            self.done[coord] = True
        return arr

    def _task(self, coord: tuple[int, ...], keep: bool) -> np.ndarray:
        try:
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

    def visit(
        self,
        coords: Iterable[tuple[int, ...]],
        need_data: bool,
        on_chunk: Any = None,
        cancelled: CancelledFn | None = None,
        on_tick: Any = None,
    ) -> None:
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
        """
        pending: dict[Future, tuple[int, ...]] = {}
        it = iter(coords)
        window = 2 * workers()
        exhausted = False
        pool = executor()
        while True:
            while not exhausted and len(pending) < window:
                try:
                    coord = next(it)
                except StopIteration:
                    exhausted = True
                    break
                with self._lock:
                    if need_data and coord in self._decoded:
                        self._decoded.move_to_end(coord)
                        arr = self._decoded[coord]
                        fut = None
                    elif not need_data and self.done[coord]:
                        continue
                    else:
                        arr = None
                        fut = self._inflight.get(coord)
                        if fut is None:
                            fut = pool.submit(self._task, coord, need_data)
                            self._inflight[coord] = fut
                if fut is None:
                    if on_chunk is not None:
                        on_chunk(coord, arr)
                    continue
                pending[fut] = coord
            if not pending:
                return
            finished, _ = wait(list(pending), timeout=0.05, return_when=FIRST_COMPLETED)
            if cancelled is not None and cancelled():
                raise EnvelopeCancelled()
            for fut in finished:
                coord = pending.pop(fut)
                arr = fut.result()  # re-raises OSError from the worker
                if need_data and on_chunk is not None:
                    on_chunk(coord, arr)
                del arr
                if on_tick is not None:
                    on_tick()
            if on_tick is not None and not finished:
                on_tick()

    def _column(self, index: tuple[int | None, ...], c0: int, c1: int) -> list[tuple[int, ...]]:
        """Chunk coordinates of line ``index`` for sample-axis chunks ``[c0, c1)``."""
        base = [0 if i is None else int(i) // k for i, k in zip(index, self.chunks, strict=True)]
        out = []
        for c in range(c0, c1):
            base[self.axis] = c
            out.append(tuple(base))
        return out

    def read_line(self, index: tuple[int | None, ...], start: int, stop: int,
                  cancelled: CancelledFn | None = None) -> np.ndarray:
        """Samples ``[start, stop)`` of line ``index`` (stored dtype), decoding in parallel."""
        out = np.empty(max(stop - start, 0), dtype=np.dtype(self.layout.dtype))
        if stop <= start:
            return out
        c0 = start // self.chunk_len
        c1 = -(-stop // self.chunk_len)

        def put(coord: tuple[int, ...], arr: np.ndarray) -> None:
            s0 = coord[self.axis] * self.chunk_len
            a = max(start, s0)
            b = min(stop, s0 + arr.shape[self.axis])
            sel = tuple(
                slice(a - s0, b - s0) if ax == self.axis else int(i) - coord[ax] * self.chunks[ax]
                for ax, i in enumerate(index)
            )
            out[a - start : b - start] = arr[sel]

        self.visit(self._column(index, c0, c1), True, put, cancelled)
        return out

    def line_blocks(self, index: tuple[int | None, ...], b0: int, b1: int) -> tuple[np.ndarray, np.ndarray]:
        """float64 block minima and maxima of line ``index`` for blocks ``[b0, b1)``."""
        sel = (slice(b0, b1),) + tuple(int(i) for a, i in enumerate(index) if a != self.axis)
        return self.lo[sel].astype(np.float64), self.hi[sel].astype(np.float64)


def summary_for(ref: ArrayRef, layout: ChunkLayout | None = None) -> ChunkSummary:
    """The (single, lazily created) :class:`ChunkSummary` of ``ref``."""
    s = getattr(ref, "_chunk_summary", None)
    if s is None:
        with _summary_lock:
            s = getattr(ref, "_chunk_summary", None)
            if s is None:
                s = ChunkSummary(ref, layout or ref.chunk_layout())
                ref._chunk_summary = s  # type: ignore[attr-defined]
    return s


_summary_lock = threading.Lock()


def _snapped_edges(start: int, stop: int, bins: int, block: int) -> np.ndarray:
    """Bin edges over ``[start, stop)`` whose inner edges are block boundaries."""
    e = bin_edges(start, stop, bins)
    inner = np.round(e[1:-1] / block).astype(np.int64) * block
    inner = inner[(inner > start) & (inner < stop)]
    return np.unique(np.concatenate([[start], inner, [stop]]).astype(np.int64))


def _reduce_bins(
    s: ChunkSummary, index: tuple[int | None, ...], start: int, stop: int, edges: np.ndarray,
    head: tuple[float, float], tail: tuple[float, float], fill: bool,
) -> tuple[np.ndarray, np.ndarray]:
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
        ba, bb = a // B, b // B
        blo, bhi = s.line_blocks(index, ba, bb)
        if fill:
            col = tuple(0 if i is None else int(i) // c for i, c in zip(index, s.chunks, strict=True))
            sel = tuple(slice(None) if ax == s.axis else col[ax] for ax in range(len(col)))
            done_chunks = np.flatnonzero(s.done[sel])
            if done_chunks.size:
                blk_chunk = np.arange(ba, bb) // s.blocks_per_chunk
                known = s.done[sel][blk_chunk]
                if not known.all():
                    # per-chunk min/max of the summarised chunks
                    clo, chi = s.line_blocks(index, 0, s.n_blocks)
                    with np.errstate(all="ignore"):
                        pad = (-len(clo)) % s.blocks_per_chunk
                        clo = np.concatenate([clo, np.full(pad, np.nan)]).reshape(-1, s.blocks_per_chunk)
                        chi = np.concatenate([chi, np.full(pad, np.nan)]).reshape(-1, s.blocks_per_chunk)
                    cmin = np.fmin.reduce(clo, axis=1)
                    cmax = np.fmax.reduce(chi, axis=1)
                    j = np.searchsorted(done_chunks, blk_chunk[~known])
                    j0 = done_chunks[np.clip(j - 1, 0, done_chunks.size - 1)]
                    j1 = done_chunks[np.clip(j, 0, done_chunks.size - 1)]
                    near = np.where(np.abs(j0 - blk_chunk[~known]) <= np.abs(j1 - blk_chunk[~known]), j0, j1)
                    blo[~known] = cmin[near]
                    bhi[~known] = cmax[near]
        # bin i covers blocks [(max(e_i, a) - a) / B, (min(e_i+1, b) - a) / B)
        lo_edge = (np.clip(edges[:-1], a, b) - a) // B
        hi_edge = (np.clip(edges[1:], a, b) - a) // B
        nonempty = hi_edge > lo_edge
        if nonempty.any():
            idx = lo_edge[nonempty]
            r_lo = np.fmin.reduceat(blo, idx) if blo.size else np.array([])
            r_hi = np.fmax.reduceat(bhi, idx) if bhi.size else np.array([])
            # reduceat over idx gives [idx_j, idx_{j+1}); the last runs to the end of
            # the block array, which is exactly hi_edge of the last non-empty bin
            # because bins are contiguous.
            lo[nonempty] = r_lo
            hi[nonempty] = r_hi
    if start < a:
        lo[0] = np.fmin(lo[0], head[0])
        hi[0] = np.fmax(hi[0], head[1])
    if b < stop and b >= a:
        lo[-1] = np.fmin(lo[-1], tail[0])
        hi[-1] = np.fmax(hi[-1], tail[1])
    return lo, hi


def _seg_minmax(v: np.ndarray) -> tuple[float, float]:
    if v.size == 0:
        return (np.nan, np.nan)
    lo, hi = minmax_bins(v, np.array([0, v.size], dtype=np.int64))
    return float(lo[0]), float(hi[0])


def chunked_envelope(
    ref: ArrayRef,
    index: tuple[int | None, ...],
    start: int,
    stop: int,
    bins: int,
    preview: PreviewFn | None = None,
    cancelled: CancelledFn | None = None,
) -> Envelope:
    """:meth:`ArrayRef.envelope` through the chunk summary (same contract).

    Narrow ranges (fewer than ``block`` samples per bin) are read as raw
    samples, decoding the needed chunks in parallel; wide ranges are reduced
    from the block summary, first summarising any missing chunk of the line
    (all channels of those chunks at once), in an interleaved order that
    allows coarse ``exact=False`` previews of the whole range early on.
    """
    s = summary_for(ref)
    B = s.block
    if stop - start <= bins * RAW_SAMPLES_PER_BIN:
        return envelope_of(s.read_line(index, start, stop, cancelled), start, stop, bins)
    if (stop - start) < bins * B:
        vals = s.read_line(index, start, stop, cancelled)
        edges = bin_edges(start, stop, bins)
        lo, hi = minmax_bins(vals, edges, offset=start)
        return Envelope(start, stop, edges[:-1].astype(np.float64), lo, hi, raw=False)
    edges = _snapped_edges(start, stop, bins, B)
    a = -(-start // B) * B
    b = (stop // B) * B
    head = _seg_minmax(s.read_line(index, start, a, cancelled)) if start < a else (np.nan, np.nan)
    tail = _seg_minmax(s.read_line(index, b, stop, cancelled)) if b < stop else (np.nan, np.nan)
    c0 = a // s.chunk_len
    c1 = -(-b // s.chunk_len)
    column = s._column(index, c0, c1)
    missing = [c for c in column if not s.done[c]]
    if missing:
        order = interleaved_order(len(missing))
        coords = [missing[i] for i in order]
        t0 = time.monotonic()
        state = {"count": 0, "next": t0 + FIRST_PREVIEW_S, "first": True}

        def tick() -> None:
            state["count"] += 1
            if preview is None:
                return
            now = time.monotonic()
            if state["first"] and state["count"] >= min(FIRST_PREVIEW_CHUNKS, len(coords) // 4 + 1):
                state["next"] = now
            if now >= state["next"] and state["count"] < len(coords):
                state["first"] = False
                state["next"] = now + PREVIEW_EVERY_S
                plo, phi = _reduce_bins(s, index, start, stop, edges, head, tail, fill=True)
                preview(Envelope(start, stop, edges[:-1].astype(np.float64), plo, phi,
                                 raw=False, exact=False))

        s.visit(coords, False, None, cancelled, tick)
        if s.complete:
            s._save_cache()
    lo, hi = _reduce_bins(s, index, start, stop, edges, head, tail, fill=False)
    return Envelope(start, stop, edges[:-1].astype(np.float64), lo, hi, raw=False)


def summarise_all(ref: ArrayRef, cancelled: CancelledFn | None = None) -> ChunkSummary:
    """Summarise every chunk of ``ref`` (all channels) and save the summary.

    Raises:
        ValueError: ``ref`` has no chunk layout.
        OSError: a chunk cannot be read.
    """
    layout = ref.chunk_layout()
    if layout is None:
        raise ValueError(f"{ref.name}: not chunked")
    s = summary_for(ref, layout)
    coords = [tuple(int(x) for x in c) for c in np.argwhere(~s.done)]
    s.visit(coords, False, None, cancelled)
    if s.complete:
        s._save_cache()
    return s
