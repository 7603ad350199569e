"""The full-range AUC envelopes, built while verification streams the array members.

Verification inflates every member once to hash it (:mod:`.verify`).  When
a plot will want the whole experiment (``OpenOptions.auc_overview_columns``,
which the desktop app sets), the radius, signal and mask members are
streamed together instead, by :func:`stream_with_overview`: each member on
a thread of its own that inflates it, hashes it and feeds its content scan
(:class:`~.contentcheck.ArrayScan`) exactly as the plain pass does, then
hands the bytes to the calling thread, which decodes them and feeds
:class:`~inspector.formats.analysis.scan_envelope.EnvelopeBuilder` in aligned
pieces (the members are C-order arrays of one layout, so the n-th element
of each is the same point).  The result is the
:class:`~inspector.formats.analysis.scan_envelope.ScanOverview` that
:func:`~inspector.formats.analysis.scan_envelope.scan_envelopes` would compute over
the framed extent (same definitions, tested against it).

The radius range is needed before the first signal block, so:

* shared axis: the radius member (``points`` values, at most
  :data:`SHARED_RADIUS_LIMIT` bytes) is streamed first and kept whole, then
  signal and mask together;
* per-scan radius: radius and mask are streamed together for the extent,
  then the signal together with radius and mask again; the second reading
  is not hashed (its ZIP CRC-32 is checked again), so the radius and mask
  are inflated twice.

Every member is hashed to its end whatever happens to the overview.  There
is no overview (the plot reads the arrays itself, as without this pass)
when a member ends early or cannot be read, a stream reports a problem
(corrupt data, CRC-32, size), or the run is cancelled.  A member whose
digest does not match still gives an overview; verification marks it
untrusted (``ScanOverview.untrusted``, ``AucScans.untrusted_arrays``).

Memory: a few 1 MB blocks per member in flight, one piece of
:data:`~inspector.formats.analysis.scan_envelope.BLOCK_POINTS` points per array, the
shared axis, and the envelopes (``2 * 8 * scans * columns`` bytes).
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from inspector.formats.analysis.scan_envelope import (
    BLOCK_POINTS,
    EnvelopeBuilder,
    ExtentBuilder,
    ScanOverview,
    ScanShape,
    framed_range,
    scan_pieces,
    scan_shape,
)
from inspector.formats.aucx import layout as L
from inspector.formats.aucx.npyfmt import NpyHeader
from inspector.formats.aucx.stream import MemberStream
from inspector.formats.aucx.zipscan import ZipEntry, ZipScan
from inspector.formats.capabilities import AucScans
from inspector.formats.findings import Finding

#: Largest shared radius axis kept whole while the signal streams (8 M points).
SHARED_RADIUS_LIMIT = 64 << 20
#: Most memory the overview's envelopes may take (500 scans at 2048 columns: 16 MB);
#: with more scans it has fewer columns (halved), and none below MIN_COLUMNS.
OVERVIEW_BYTES = 64 << 20
MIN_COLUMNS = 64
#: Inflated blocks waiting between a member's thread and the decoding thread ...
QUEUE_BLOCKS = 4
#: ... of at most this many bytes each.
BLOCK_BYTES = 1 << 20
#: Members at least this large inflate on one thread and hash on another.
PIPELINE_BYTES = 8 << 20
#: Most points of one array handed to the envelopes at once.
PIECE_POINTS = BLOCK_POINTS
_POLL_S = 0.05
#: ``sink(block)``: what a member's thread does with each inflated block.
Sink = Callable[[bytes], None]


@dataclass(frozen=True)
class OverviewPlan:
    """What :func:`stream_with_overview` streams, decided at open.

    Attributes:
        columns: columns of the overview (``OVERVIEW_COLUMNS`` in the app).
        shape: the arrays' layout (:func:`~inspector.formats.analysis.scan_envelope.scan_shape`).
        members: ``"radius"``, ``"signal"`` and, when the plot uses one,
            ``"mask"`` -> member name.
        headers: the same keys -> parsed ``.npy`` header.
    """

    columns: int
    shape: ScanShape
    members: Mapping[str, str]
    headers: Mapping[str, NpyHeader]


def overview_plan(columns: int, auc: AucScans | None, arrays: Mapping[str, Any],
                  headers: Mapping[str, NpyHeader], scan: ZipScan) -> OverviewPlan | None:
    """The plan for an archive's overview, or None when none is built while verifying.

    None when ``columns < 1``, there is no AUC experiment, it is loaded
    whole at open (a plot of it reads memory), or the arrays the plot
    would read (``arrays``: ``Document.arrays``) are not plain C-order
    members of one layout in safe entries holding the data their headers
    announce (a plot of them reads them itself and says what is wrong).
    Memory follows what the members hold, never what a header declares: the
    columns are halved (a power of two stays one) until the envelopes fit in
    :data:`OVERVIEW_BYTES`.
    """
    if columns < 1 or auc is None or auc.experiment is not None:
        return None
    if not all(k in arrays for k in ("radius", "signal")):
        return None
    keys = ("radius", "signal", "mask") if "mask" in arrays else ("radius", "signal")
    hs = {k: headers.get(k) for k in keys}
    used: dict[str, NpyHeader] = {k: h for k, h in hs.items() if h is not None}
    if len(used) != len(keys) or any(h.fortran_order or h.dtype.hasobject
                                     for h in used.values()):
        return None
    for k in keys:  # the data the header announces is within the member's declared size
        e = scan.first(L.ARRAY_MEMBERS[k])
        if e is None or not e.safe or used[k].data_offset + used[k].nbytes > e.file_size:
            return None
    try:
        shape = scan_shape(used["radius"], used["signal"], used.get("mask"))
    except (ValueError, TypeError):
        return None
    if not shape.per_scan and used["radius"].nbytes > SHARED_RADIUS_LIMIT:
        return None
    fit = _columns_within(int(columns), shape.scans)
    if fit is None:
        return None
    return OverviewPlan(fit, shape, {k: L.ARRAY_MEMBERS[k] for k in keys}, used)


def _columns_within(columns: int, scans: int) -> int | None:
    """``columns`` halved until the envelopes (two float64 per scan and column) fit in
    :data:`OVERVIEW_BYTES`; None below :data:`MIN_COLUMNS` (very many scans: no overview)."""
    while columns >= MIN_COLUMNS and 16 * scans * columns > OVERVIEW_BYTES:
        columns //= 2
    return columns if columns >= MIN_COLUMNS else None


@dataclass(frozen=True)
class Streamed:
    """What streaming one member established.

    Attributes:
        digest: lowercase hex SHA-256 of its bytes (``""`` when not hashed).
        problem: a stream finding at the member (corrupt data, CRC-32...), or None.
        error: why the member could not be read at all (``OSError``...), or None.
    """

    digest: str
    problem: Finding | None
    error: BaseException | None


class _Elements:
    """The decoded elements of one member, inflated on a thread of its own.

    The thread inflates, feeds ``sinks`` (the digest, the content scan) and
    queues each block; :meth:`take` decodes them on the calling thread.
    :meth:`finish` lets the thread run to the member's end without queueing
    (so every byte is hashed whatever the caller still wants) and waits for it.
    """

    def __init__(self, path: Path, entry: ZipEntry, header: NpyHeader, hashed: bool,
                 sinks: list[Sink], stop: threading.Event) -> None:
        self.stream = MemberStream(path, entry, out_block=BLOCK_BYTES, read_block=BLOCK_BYTES)
        self.dtype = header.dtype
        self._skip = header.data_offset
        self._carry = b""
        self._parts: deque[np.ndarray] = deque()
        self._have = 0
        self._ended = False
        self._hash = hashlib.sha256() if hashed else None
        self._sinks = ([self._hash.update] if self._hash is not None else []) + sinks
        self._stop = stop
        self._q: queue.Queue[bytes | None] = queue.Queue(maxsize=QUEUE_BLOCKS)
        self._released = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._produce, daemon=True,
                                        name="aucx-overview")
        self._thread.start()

    def _produce(self) -> None:
        try:
            if self._sinks and self.stream.entry.file_size >= PIPELINE_BYTES:
                self._pipelined()
            else:
                for block in self.stream:
                    if self._stop.is_set():
                        break
                    self._sink(block)
        except BaseException as exc:  # noqa: BLE001 - handed to the decoding thread
            self.error = exc
        finally:
            self._put(None)

    def _sink(self, block: bytes) -> None:
        for sink in self._sinks:
            sink(block)
        self._put(block)

    def _pipelined(self) -> None:
        """Inflate on this thread while another hashes, scans and queues (as verify.py's
        large members: ``zlib`` and ``hashlib`` release the interpreter lock)."""
        q: queue.Queue[bytes | None] = queue.Queue(maxsize=2)
        err: list[BaseException] = []

        def consume() -> None:
            try:
                while (block := q.get()) is not None:
                    self._sink(block)
            except BaseException as exc:  # noqa: BLE001 - raised on the inflating thread
                err.append(exc)
                while q.get() is not None:
                    pass

        t = threading.Thread(target=consume, daemon=True, name="aucx-overview-hash")
        t.start()
        try:
            for block in self.stream:
                if self._stop.is_set():
                    break
                q.put(block)
        finally:
            q.put(None)
            t.join()
        if err:
            raise err[0]

    def _put(self, item: bytes | None) -> None:
        while not self._released.is_set():
            try:
                self._q.put(item, timeout=_POLL_S)
                return
            except queue.Full:
                continue

    def take(self, n: int) -> np.ndarray | None:
        """The next ``n`` elements (1-D, the member's dtype), or None when it ends first."""
        while self._have < n and not self._ended:
            block = self._q.get()
            if block is None:
                self._ended = True
            else:
                self._decode(block)
        if self._have < n:
            return None
        out: list[np.ndarray] = []
        need = n
        while need:
            a = self._parts[0]
            if a.size <= need:
                out.append(self._parts.popleft())
                need -= a.size
            else:
                out.append(a[:need])
                self._parts[0] = a[need:]
                need = 0
        self._have -= n
        return out[0] if len(out) == 1 else np.concatenate(out)

    def _decode(self, block: bytes) -> None:
        if self._skip:  # the .npy header
            cut = min(self._skip, len(block))
            self._skip -= cut
            block = block[cut:]
        if self._carry:
            block = self._carry + block
            self._carry = b""
        size = self.dtype.itemsize
        usable = len(block) // size * size
        if usable < len(block):
            self._carry = bytes(block[usable:])
        if usable:
            a = np.frombuffer(block, dtype=self.dtype, count=usable // size)
            self._parts.append(a)
            self._have += a.size

    def finish(self) -> Streamed:
        """Stop queueing, let the member be read to its end, and say what it established."""
        self._released.set()
        self._thread.join()
        self._parts.clear()
        digest = self._hash.hexdigest() if self._hash is not None else ""
        return Streamed(digest, self.stream.result.problem, self.error)

    @property
    def clean(self) -> bool:
        """Read to its end without error or stream problem (after :meth:`finish`)."""
        return self.error is None and self.stream.result.problem is None


class _Streams:
    """The member readers of one run: opened as needed, each finished exactly once."""

    def __init__(self, path: Path, scan: ZipScan, plan: OverviewPlan,
                 sinks: Mapping[str, Sequence[Sink]], stop: threading.Event) -> None:
        self.path, self.scan, self.plan, self.sinks, self.stop = path, scan, plan, sinks, stop
        self.open: list[tuple[_Elements, str | None]] = []
        self.results: dict[str, Streamed] = {}
        self.clean = True

    def reader(self, key: str, hashed: bool = True) -> _Elements:
        """A reader of the member of ``key``; ``hashed=False`` reads it again (no digest)."""
        member = self.plan.members[key]
        entry = self.scan.first(member)
        assert entry is not None  # the plan holds present, safe members only
        r = _Elements(self.path, entry, self.plan.headers[key], hashed,
                      list(self.sinks.get(member, ())) if hashed else [], self.stop)
        self.open.append((r, member if hashed else None))
        return r

    def finish_all(self) -> None:
        """Finish every reader still open (each runs to its member's end)."""
        while self.open:
            r, member = self.open.pop(0)
            out = r.finish()
            self.clean &= r.clean
            if member is not None:
                self.results[member] = out


def _pieces(readers: list[_Elements | None], shape: ScanShape, stop: threading.Event,
            each: Callable[[int, int, list[np.ndarray | None]], None]) -> bool:
    """Hand ``each(row0, q0, arrays)`` aligned ``(rows, n)`` pieces of every reader, in
    storage order; False when a reader ended early or the run was cancelled."""
    for rows, q0, q1 in scan_pieces(shape, PIECE_POINTS):
        if stop.is_set():
            return False
        n_rows, n = rows.stop - rows.start, q1 - q0
        got: list[np.ndarray | None] = []
        for r in readers:
            a = r.take(n_rows * n) if r is not None else None
            if r is not None and a is None:
                return False
            got.append(None if a is None else a.reshape(n_rows, n))
        each(rows.start, q0, got)
    return True


def _shared_pass(streams: _Streams) -> ScanOverview | None:
    """Shared axis: the radius whole, then signal and mask together."""
    plan = streams.plan
    radius = streams.reader("radius").take(plan.shape.points)
    streams.finish_all()
    signal = streams.reader("signal")
    mask = streams.reader("mask") if "mask" in plan.members else None
    if radius is None or not streams.clean:
        return None
    extent = ExtentBuilder()
    extent.add(radius)
    ext = extent.result()
    if ext is None:
        return ScanOverview(None, None)
    builder = EnvelopeBuilder(plan.shape, *framed_range(ext), plan.columns,
                              shared_radius=radius)

    def each(row0: int, q0: int, got: list[np.ndarray | None]) -> None:
        assert got[0] is not None
        builder.add(row0, q0, got[0], got[1])

    if not _pieces([signal, mask], plan.shape, streams.stop, each):
        return None
    return ScanOverview(ext, builder.result())


def _per_scan_extent(streams: _Streams) -> tuple[bool, tuple[float, float] | None]:
    """Per-scan radius, first pass: radius and mask (hashed) for the extent; the flag
    says whether both were read whole."""
    plan = streams.plan
    radius = streams.reader("radius")
    mask = streams.reader("mask") if "mask" in plan.members else None
    extent = ExtentBuilder()

    def each(row0: int, q0: int, got: list[np.ndarray | None]) -> None:
        assert got[0] is not None
        extent.add(got[0], got[1])

    whole = _pieces([radius, mask], plan.shape, streams.stop, each)
    return whole, extent.result()


def _per_scan_pass(streams: _Streams) -> ScanOverview | None:
    """Per-scan radius: the extent, then the signal with radius and mask read again."""
    plan = streams.plan
    whole, ext = _per_scan_extent(streams)
    streams.finish_all()
    signal = streams.reader("signal")
    if not whole or not streams.clean:
        return None
    if ext is None:
        return ScanOverview(None, None)
    radius = streams.reader("radius", hashed=False)
    mask = streams.reader("mask", hashed=False) if "mask" in plan.members else None
    builder = EnvelopeBuilder(plan.shape, *framed_range(ext), plan.columns)

    def each(row0: int, q0: int, got: list[np.ndarray | None]) -> None:
        assert got[0] is not None
        builder.add(row0, q0, got[0], got[2], radius=got[1])

    if not _pieces([signal, radius, mask], plan.shape, streams.stop, each):
        return None
    return ScanOverview(ext, builder.result())


def stream_with_overview(path: Path, scan: ZipScan, plan: OverviewPlan,
                         sinks: Mapping[str, Sequence[Sink]],
                         stop: threading.Event) -> tuple[dict[str, Streamed],
                                                         ScanOverview | None]:
    """Hash the plan's members and build the overview from the same bytes.

    Args:
        path, scan: the archive and its ZIP directory.
        plan: from :func:`overview_plan`.
        sinks: member name -> extra consumers of its inflated bytes (the
            content scan), called on the member's thread.
        stop: set to cancel; the members' threads stop between blocks.

    Returns:
        member name -> :class:`Streamed` for every member of the plan, and
        the overview (``untrusted`` empty: verification sets it), or None
        (see the module notes).  Never raises for a member that cannot be
        read: its :attr:`Streamed.error` says why.
    """
    streams = _Streams(path, scan, plan, sinks, stop)
    overview: ScanOverview | None = None
    try:
        overview = (_per_scan_pass(streams) if plan.shape.per_scan
                    else _shared_pass(streams))
    except (ValueError, MemoryError):  # the overview only: every digest stands
        overview = None
    finally:
        streams.finish_all()
    if not streams.clean or stop.is_set():
        overview = None
    return streams.results, overview
