"""Chunks read of chunks needed: the fraction done of one long read.

A read that shows its progress either first asks each array what it will read
(:meth:`ArrayRef.envelope_chunks
<inspector.formats.analysis.arrays.ArrayRef.envelope_chunks>`: the identities
of the chunks, so that a chunk two lines share counts once), makes a
:class:`ChunkMeter` of that many, and runs the reads inside
:func:`metering`, or makes an empty meter and lets the reader add the chunks it
plans (:func:`chunks_expected`: the trial averages and trial images of
:mod:`~inspector.formats.analysis.trial_average`; :func:`chunks_planned` by
the identities of the chunks, which a reader may plan twice: the AUC scans'
envelopes of :mod:`~inspector.formats.analysis.scan_envelope`).  The readers then report each
chunk they finish with :func:`chunk_read`, wherever they read it (the chunk summaries of an HDF5
dataset, the plain envelope path), and :func:`chunks_waiting` while they wait
for chunks decoded on other threads (so that the last count is not held back
by :data:`REPORT_EVERY_S`).  Outside :func:`metering` a report does
nothing, so readers report unconditionally.

A *chunk* is the piece a reader reads at once: a stored HDF5 chunk on the
summary path, a block of :data:`~inspector.formats.analysis.arrays.READ_BLOCK_SAMPLES`
samples (or one sampled window) on the plain path; a block of whole scans
(or a piece of one scan) of the AUC envelopes; in the trial computations a
stored chunk's share of a block of trials (one read of a block when the array
offers no chunks).

Thread safety: the meter is found through a :class:`contextvars.ContextVar`,
so it is the calling thread's own (a job's); reports are made on that thread
(worker pools decode, the calling thread collects and reports).  Nothing here
imports Qt.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: Least time between two progress reports of one meter (seconds).
REPORT_EVERY_S = 0.1

#: ``report(done, needed)``: chunks read so far of the chunks needed.
ReportFn = Callable[[int, int], None]

_current: ContextVar[ChunkMeter | None] = ContextVar("chunk_meter", default=None)


class ChunkMeter:
    """Counts the distinct chunks read against the number needed.

    Args:
        needed: how many chunks the read needs (distinct identities).
        report: called with ``(done, needed)`` at most every
            :data:`REPORT_EVERY_S` while chunks are read, and once more by
            :meth:`flush`; ``done`` never exceeds ``needed``.
    """

    def __init__(self, needed: int, report: ReportFn | None = None) -> None:
        self.needed = max(0, int(needed))
        self.report = report
        self._seen: set[Hashable] = set()
        self._planned: set[Hashable] = set()
        self._next = 0.0
        self._reported = -1

    @property
    def done(self) -> int:
        """Distinct chunks read so far, at most :attr:`needed`."""
        return min(len(self._seen), self.needed)

    def read(self, key: Hashable) -> None:
        """The chunk ``key`` was read (a chunk read twice counts once)."""
        self._seen.add(key)
        if self.report is not None:
            now = time.monotonic()
            if now >= self._next or self.done == self.needed:
                self._next = now + REPORT_EVERY_S
                self._send()

    def expect(self, n: int) -> None:
        """``n`` more chunks are needed (a reader that plans its reads itself)."""
        self.needed += max(0, int(n))

    def plan(self, keys: Iterable[Hashable]) -> None:
        """The chunks ``keys`` are needed; a chunk planned twice counts once (a reader
        that plans a later pass ahead, so that the fraction done never falls back)."""
        new = set(keys) - self._planned
        self._planned |= new
        self.needed += len(new)

    def waiting(self) -> None:
        """The reader is waiting for chunks: report a count not reported yet."""
        if self.report is not None and self.done != self._reported:
            self._next = time.monotonic() + REPORT_EVERY_S
            self._send()

    def flush(self) -> None:
        """Report the count now (the read ended or a line finished)."""
        if self.report is not None:
            self._send()

    def _send(self) -> None:
        self._reported = self.done
        if self.report is not None:
            self.report(self._reported, self.needed)


@contextmanager
def metering(meter: ChunkMeter) -> Iterator[ChunkMeter]:
    """Within the block, :func:`chunk_read` on this thread counts on ``meter``."""
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)


def chunk_read(key: Hashable) -> None:
    """Report that the chunk ``key`` was read (a no-op outside :func:`metering`)."""
    meter = _current.get()
    if meter is not None:
        meter.read(key)


def metered() -> bool:
    """True inside :func:`metering` on this thread (a reader may then plan its chunks)."""
    return _current.get() is not None


def chunks_expected(n: int) -> None:
    """Add ``n`` chunks to those the current meter needs (a no-op outside
    :func:`metering`): for readers that plan their reads only once they run."""
    meter = _current.get()
    if meter is not None:
        meter.expect(n)


def chunks_planned(keys: Iterable[Hashable]) -> None:
    """The chunks ``keys`` are needed (:meth:`ChunkMeter.plan`; a no-op outside
    :func:`metering`)."""
    meter = _current.get()
    if meter is not None:
        meter.plan(keys)


def chunks_waiting() -> None:
    """Report that the reader waits for chunks being decoded elsewhere: the count
    read so far is sent if it was not (a no-op outside :func:`metering`)."""
    meter = _current.get()
    if meter is not None:
        meter.waiting()
