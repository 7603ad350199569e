"""Array values compared chunk by chunk, in parallel, in bounded memory.

Two lazy arrays (:class:`~inspector.formats.analysis.arrays.ArrayRef`) of one
shape are cut into regions and each pair of regions is compared on a thread of
a pool of ``jobs`` threads, with at most ``2 * jobs`` regions in flight, so
memory stays a few regions whatever the arrays' size:

* When both are chunked HDF5 datasets with the same chunk shape, element type
  and filters (the recording reader's :class:`~inspector.formats.hdf5.arrays.H5DatasetRef`
  offers ``chunk_layout`` and ``read_raw_chunk``), a region is a chunk: its
  stored bytes are read from both files (``os.pread``, outside h5py's lock) and
  compared first; equal stored bytes with equal filter masks decode to equal
  values, so only chunks whose bytes differ are decoded
  (:func:`~inspector.formats.hdf5.chunks.decode_chunk`, the one decoder of
  :mod:`inspector.formats.decoding.inflate`) and compared value by value.  A chunk that
  is not stored (it reads as the fill value) is read through ``ArrayRef.read``.
* Otherwise a region is a block of rows along axis 0 read with ``ArrayRef.read``.

Regions are consumed in order, so with ``first`` the comparison stops at the
first differing region (in storage order) and no region after it is started.
Nothing here imports Qt.
"""

from __future__ import annotations

import itertools
import math
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.compare.values import ValueStats, compare_block

if TYPE_CHECKING:
    from inspector.formats.analysis.arrays import ArrayRef
    from inspector.formats.compare.model import DiffOptions

#: Bytes of one side of a block of rows (the plain path).
BLOCK_BYTES = 4 << 20
#: Most chunks an array may declare to be compared (a hostile file can declare billions
#: of one-element chunks, none stored: reading them would never end); an array declaring
#: more is reported as not compared.
MAX_CHUNKS = 1 << 22
Region = tuple[slice, ...]


@dataclass
class ValueOutcome:
    """The values of two arrays compared.

    Attributes:
        stats: counts and extremes of what differs.
        regions: regions compared; ``same_bytes``: of them, chunks whose stored bytes
            were equal (compared without decoding).
        method: ``"chunks"`` (stored chunks first) or ``"blocks"``.
        stopped: True when ``first`` stopped before the last region.
    """

    stats: ValueStats
    regions: int = 0
    same_bytes: int = 0
    method: str = "blocks"
    stopped: bool = False


def default_jobs() -> int:
    """Threads used when ``jobs`` is 0: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def compare_values(ra: ArrayRef, rb: ArrayRef, options: DiffOptions,
                   cancelled: Callable[[], bool] | None = None) -> ValueOutcome:
    """Compare the values of ``ra`` and ``rb`` (same shape).

    Raises:
        OSError: a region of either array cannot be read or decoded.
        ValueError: the shapes differ.
    """
    if ra.shape != rb.shape:
        raise ValueError(f"arrays of shapes {ra.shape} and {rb.shape}")
    for ref in (ra, rb):
        grid = _grid(ref)
        if grid > MAX_CHUNKS:
            raise ValueError(f"{ref.name} declares {grid} chunks, more than the {MAX_CHUNKS} "
                             "compared chunk by chunk: its values are not compared")
    layout = _shared_layout(ra, rb)
    if layout is not None:
        regions: Iterator[Region] = _chunk_regions(ra.shape, layout.chunks)
        task = _ChunkTask(ra, rb, layout, options)
    else:
        regions = _row_blocks(ra.shape, max(ra.dtype.itemsize, rb.dtype.itemsize))
        task = _ChunkTask(ra, rb, None, options)
    outcome = ValueOutcome(ValueStats(), method="chunks" if layout is not None else "blocks")
    jobs = options.jobs or default_jobs()
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="diff") as pool:
        _run(pool, regions, task, outcome, 2 * jobs, options.first, cancelled)
    return outcome


def _run(pool: ThreadPoolExecutor, regions: Iterator[Region], task: _ChunkTask,
         outcome: ValueOutcome, window: int, first: bool,
         cancelled: Callable[[], bool] | None) -> None:
    """Submit regions with at most ``window`` in flight; consume results in order."""
    pending: deque[Future[tuple[ValueStats, bool]]] = deque()
    try:
        for region in itertools.chain(regions, [None]):
            if region is not None:
                pending.append(pool.submit(task, region))
                if len(pending) < window:
                    continue
            while pending and (region is None or len(pending) >= window):
                stats, same = pending.popleft().result()
                outcome.regions += 1
                outcome.same_bytes += same
                outcome.stats.merge(stats)
                if first and stats.differing or (cancelled is not None and cancelled()):
                    outcome.stopped = True
                    return
    finally:
        for f in pending:
            f.cancel()


def _shared_layout(ra: ArrayRef, rb: ArrayRef) -> Any:
    """The chunk layout both arrays share, when their stored chunks can be compared."""
    la = _layout(ra)
    lb = _layout(rb)
    if la is None or lb is None:
        return None
    if (la.chunks != lb.chunks or la.dtype != lb.dtype or la.filters != lb.filters
            or not la.decodable or len(la.chunks) != len(ra.shape)):
        return None
    return la


def _grid(ref: ArrayRef) -> int:
    """How many chunks ``ref`` declares (0 when it is not chunked)."""
    layout = _layout(ref)
    if layout is None or len(layout.chunks) != len(ref.shape):
        return 0
    return math.prod(-(-n // max(1, c)) for n, c in zip(ref.shape, layout.chunks, strict=True))


def _layout(ref: ArrayRef) -> Any:
    get = getattr(ref, "chunk_layout", None)
    if get is None or not hasattr(ref, "read_raw_chunk"):
        return None
    try:
        return get()
    except (OSError, ValueError, RuntimeError):
        return None


def _chunk_regions(shape: tuple[int, ...], chunks: tuple[int, ...]) -> Iterator[Region]:
    """The chunks of ``shape`` in C order of the chunk grid, clipped to the shape."""
    axes = [range(0, n, c) for n, c in zip(shape, chunks, strict=True)]
    for starts in itertools.product(*axes):
        yield tuple(slice(s, min(s + c, n))
                    for s, c, n in zip(starts, chunks, shape, strict=True))


def _row_blocks(shape: tuple[int, ...], itemsize: int) -> Iterator[Region]:
    """Blocks of whole rows along axis 0 of at most :data:`BLOCK_BYTES` per side."""
    if not shape:
        yield ()
        return
    row = max(1, math.prod(shape[1:]) * itemsize)
    step = max(1, BLOCK_BYTES // row)
    rest = tuple(slice(0, n) for n in shape[1:])
    for s in range(0, shape[0], step):
        yield (slice(s, min(s + step, shape[0])), *rest)
    if shape[0] == 0:
        return


class _ChunkTask:
    """Compares one region of two arrays (called on a pool thread)."""

    def __init__(self, ra: ArrayRef, rb: ArrayRef, layout: Any, options: DiffOptions) -> None:
        self.ra, self.rb, self.layout, self.options = ra, rb, layout, options

    def __call__(self, region: Region) -> tuple[ValueStats, bool]:
        offset = tuple(s.start for s in region)
        if self.layout is not None:
            pair = self._stored(region, offset)
            if pair is None:
                n = math.prod(s.stop - s.start for s in region)
                return ValueStats(compared=n), True
            a, b = pair
        else:
            a, b = self.ra.read(region), self.rb.read(region)
        o = self.options
        return compare_block(np.asarray(a), np.asarray(b), offset, o.rtol, o.atol,
                             o.exact), False

    def _stored(self, region: Region, offset: tuple[int, ...]) -> tuple[Any, Any] | None:
        """The decoded values of the chunk at ``offset`` in both arrays, or None when its
        stored bytes are equal.  A chunk not stored is read through ``ArrayRef.read``."""
        from inspector.formats.hdf5.chunks import decode_chunk

        try:
            raw_a = self.ra.read_raw_chunk(offset)  # type: ignore[attr-defined]
            raw_b = self.rb.read_raw_chunk(offset)  # type: ignore[attr-defined]
        except OSError:
            return self.ra.read(region), self.rb.read(region)
        if raw_a == raw_b:
            return None
        inside = tuple(slice(0, s.stop - s.start) for s in region)
        a = decode_chunk(raw_a[1], raw_a[0], self.layout)[inside]
        b = decode_chunk(raw_b[1], raw_b[0], self.layout)[inside]
        return a, b
