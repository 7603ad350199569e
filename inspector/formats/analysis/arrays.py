"""Lazy array references and per-bin min/max envelopes for plotting.

An :class:`ArrayRef` exposes ``shape`` and ``dtype`` at once and reads data
only on request, through :meth:`ArrayRef.read` (a selection of the logical
array) and :meth:`ArrayRef.envelope` (min/max per bin of one line of samples,
as a plot at a given pixel width needs it).  Everything here is
format-neutral: storage that can answer envelopes faster than by reading
samples (the chunk summaries of a compressed HDF5 dataset,
:mod:`inspector.formats.hdf5.chunk_summary`) overrides
:meth:`ArrayRef.accelerated_envelope`.  Nothing here imports Qt or h5py.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from inspector.formats.analysis.read_meter import chunk_read
from inspector.formats.sources.file_identity import changed_finding

if TYPE_CHECKING:
    from inspector.formats.findings import Finding, Rule

#: When a range holds at most this many samples per bin, raw samples are
#: returned instead of an envelope.
RAW_SAMPLES_PER_BIN = 2
#: Most samples of one line read for one envelope on the plain (non-summary)
#: path; wider ranges are *sampled*: every bin reads an evenly placed window
#: of ``MAX_VIEW_SAMPLES // bins`` samples and the envelope is ``exact=False``.
#: Keeps the work of one view proportional to the screen, not to the array
#: (a declared ``(2**40, 5)`` array must not be read whole to draw it).
MAX_VIEW_SAMPLES = 1 << 24
#: Most samples fetched by one ``read`` call of the plain envelope path.
READ_BLOCK_SAMPLES = 1 << 20


@dataclass
class Envelope:
    """Min/max of one line of samples over ``[start, stop)`` in ``bins`` bins.

    Attributes:
        start, stop: sample index range covered (stop exclusive).
        x: float64 ``(n,)``: the first sample index of each bin (or the sample
            index of each raw sample when ``raw`` is true).
        lo, hi: float64 ``(n,)``: per-bin minimum and maximum over finite
            values; NaN where a bin has no finite value (a gap). When ``raw``
            is true ``lo`` and ``hi`` are the samples themselves.
        raw: True when the range was small enough to return raw samples.
        exact: False for a progressive preview that will be refined.
    """

    start: int
    stop: int
    x: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    raw: bool
    exact: bool = True

    def __len__(self) -> int:
        return int(self.x.shape[0])

    def edges(self) -> np.ndarray:
        """float64 ``(n + 1,)`` bin edges: ``x`` followed by ``stop``.

        For a raw envelope every "bin" is one sample.  Bins of the chunked
        path may be snapped to summary block boundaries, so use these edges
        (not :func:`bin_edges`) to know exactly which samples a bin covers.
        """
        return np.append(self.x, float(self.stop))

    def centers(self) -> np.ndarray:
        """float64 ``(n,)``: the x position to draw each bin at (sample units).

        Raw samples are drawn at their index; a bin at the middle of the
        samples it covers (``(first + last) / 2``).
        """
        if self.raw or len(self) == 0:
            return self.x.copy()
        e = self.edges()
        return (e[:-1] + e[1:] - 1.0) / 2.0


#: ``preview(envelope)``: receives progressive previews (``exact=False``).
PreviewFn = Callable[[Envelope], None]
#: ``cancelled() -> bool``: polled between blocks; True stops the work.
CancelledFn = Callable[[], bool]


class EnvelopeCancelled(Exception):
    """Raised by :meth:`ArrayRef.envelope` when ``cancelled()`` returned True."""


def bin_edges(start: int, stop: int, bins: int) -> np.ndarray:
    """Integer bin edges splitting ``[start, stop)`` into at most ``bins`` bins.

    Returns int64 ``(k + 1,)`` with ``k = min(bins, stop - start)``; every bin
    holds at least one sample.
    """
    n = max(stop - start, 0)
    k = max(min(bins, n), 0)
    if k == 0:
        return np.array([start], dtype=np.int64)
    return start + (np.arange(k + 1, dtype=np.int64) * n) // k


def minmax_bins(values: np.ndarray, edges: np.ndarray,
                offset: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per-bin (min, max) of a 1-D array over finite values.

    Args:
        values: 1-D array of any real dtype (any byte order) holding the
            samples ``[edges[0] - offset, edges[-1] - offset)``.
        edges: int64 bin edges (see :func:`bin_edges`).
        offset: sample index of ``values[0]``.

    Returns:
        Two float64 arrays ``(len(edges) - 1,)``; NaN for bins without a
        finite value.  Integers are converted to float64 first, so no
        overflow occurs.
    """
    v = np.asarray(values, dtype=np.float64)
    k = len(edges) - 1
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    if k <= 0 or v.size == 0:
        return lo, hi
    idx = (edges[:-1] - offset).astype(np.intp)
    finite = np.isfinite(v)
    if finite.all():
        lo = np.minimum.reduceat(v, idx)
        hi = np.maximum.reduceat(v, idx)
        return lo, hi
    vlo = np.where(finite, v, np.inf)
    vhi = np.where(finite, v, -np.inf)
    lo = np.minimum.reduceat(vlo, idx)
    hi = np.maximum.reduceat(vhi, idx)
    lo[~np.isfinite(lo)] = np.nan
    hi[~np.isfinite(hi)] = np.nan
    return lo, hi


def envelope_of(values: np.ndarray, start: int, stop: int, bins: int) -> Envelope:
    """Envelope of an in-memory 1-D line (``values`` covers ``[start, stop)``)."""
    v = np.asarray(values)
    n = stop - start
    if n <= bins * RAW_SAMPLES_PER_BIN:
        f = np.array(v, dtype=np.float64).reshape(-1)
        f[~np.isfinite(f)] = np.nan
        x = np.arange(start, stop, dtype=np.float64)
        return Envelope(start, stop, x, f, f, raw=True)
    edges = bin_edges(start, stop, bins)
    lo, hi = minmax_bins(v, edges, offset=start)
    return Envelope(start, stop, edges[:-1].astype(np.float64), lo, hi, raw=False)


class ArrayRef(ABC):
    """A lazily read array.

    Subclasses implement :meth:`read`; :meth:`envelope` has a default that
    reads the requested line in blocks.

    Attributes:
        name: display name (``"neuro"``, ``"signal"``...).
        shape: logical shape.
        dtype: logical numpy dtype (native byte order not guaranteed).
        storage: how it is stored (``"dense"``, ``"coo"``, ``"npy"``...).
        location: file location (HDF5 path or archive member).
        sample_axis: the axis plotted as x by default (time or points).
        attrs: display metadata (units, channel names, sampling rate...).
        unreadable_rule: the rule a file breaks when this array's stored values cannot
            be read back (a damaged chunk, a missing source file), declared by its format;
            None when the format declares none.
    """

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    storage: str = "dense"
    location: str = ""
    sample_axis: int = 0
    unreadable_rule: Rule | None = None

    def __init__(self) -> None:
        self.attrs: dict[str, Any] = {}

    @property
    def ndim(self) -> int:
        """Number of axes."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements (int64 product of ``shape``)."""
        return int(np.prod(self.shape, dtype=np.int64))

    @abstractmethod
    def read(self, selection: Any = Ellipsis) -> np.ndarray:
        """Return ``array[selection]`` (numpy basic indexing), native byte order.

        Raises:
            OSError: the file cannot be read (changed, truncated, locked).
            IndexError: the selection is out of bounds.
        """

    def unreadable_finding(self, exc: BaseException, while_doing: str) -> Finding | None:
        """The finding for a read of this array's data that raised ``exc`` (the ``OSError``
        of :meth:`read` or :meth:`envelope`: the file is to blame) ``while_doing`` (e.g.
        ``"plotting"``), at :attr:`location`; None without :attr:`unreadable_rule`.  A
        read refused because the file changed since it was opened is ``file.changed``
        (:mod:`.file_identity`), whatever the format."""
        changed = changed_finding(exc, self.location)
        if changed is not None:
            return changed
        if self.unreadable_rule is None:
            return None
        return self.unreadable_rule.finding(
            f"the stored values cannot be read back while {while_doing}: {exc}", self.location)

    def line_selection(self, index: tuple[int | None, ...], start: int, stop: int) -> tuple:
        """The selection of samples ``[start, stop)`` along the ``None`` axis of ``index``."""
        if len(index) != self.ndim or sum(i is None for i in index) != 1:
            raise ValueError(f"index {index!r} must have {self.ndim} entries, exactly one None")
        return tuple(slice(start, stop) if i is None else int(i) for i in index)

    def envelope(
        self,
        index: tuple[int | None, ...],
        start: int,
        stop: int,
        bins: int,
        *,
        preview: PreviewFn | None = None,
        cancelled: CancelledFn | None = None,
    ) -> Envelope:
        """Per-bin min/max of one line of samples.

        Args:
            index: one entry per axis; ``None`` marks the sample axis, the
                others fix a position (e.g. ``(None, 3)`` is channel 3 of a
                ``(time, channels)`` array; ``(5, None, 3)`` trial 5, channel 3).
            start, stop: sample range (clipped to the axis length).
            bins: number of bins (the plot's width in pixels).
            preview: optional; called (on the calling thread) with coarse
                ``exact=False`` envelopes while a long computation runs.
            cancelled: optional; polled between blocks, stops the work by
                raising :class:`EnvelopeCancelled` when it returns True.

        Returns:
            An exact :class:`Envelope` (``raw=True`` when the range holds at
            most ``RAW_SAMPLES_PER_BIN * bins`` samples), or an ``exact=False``
            sampled one for a range wider than :meth:`sampled_read_limit`
            (:data:`MAX_VIEW_SAMPLES`, fewer where each sample costs more: an
            HDF5 dataset of one-sample chunks).  Bins
            follow :func:`bin_edges`, except where an accelerated path snaps
            inner edges to its blocks (see :meth:`Envelope.edges`).

        Raises:
            OSError: the data cannot be read.
            ValueError: ``index`` does not have one ``None`` per the rules above.
        """
        self.line_selection(index, 0, 0)  # validates index
        n = self.shape[index.index(None)]
        start = max(0, min(int(start), n))
        stop = max(start, min(int(stop), n))
        bins = max(1, int(bins))
        fast = self.accelerated_envelope(index, start, stop, bins, preview, cancelled)
        if fast is not None:
            return fast
        if stop - start <= bins * RAW_SAMPLES_PER_BIN:
            env = envelope_of(self.read(self.line_selection(index, start, stop)), start, stop,
                              bins)
            chunk_read((index, "raw"))
            return env
        edges = bin_edges(start, stop, bins)
        if stop - start > self.sampled_read_limit(index):  # (MAX_VIEW_SAMPLES unless costlier)
            return self._sampled_envelope(index, edges, cancelled)
        return self._read_envelope(index, edges, preview, cancelled)

    def envelope_chunks(self, index: tuple[int | None, ...], start: int, stop: int,
                        bins: int) -> set[Any]:
        """The chunks :meth:`envelope` with these arguments reads, as hashable
        identities (:mod:`~inspector.formats.analysis.read_meter`): lines sharing a
        chunk share its identity.  Reads nothing.

        Here (the plain path): one piece for a raw range, one per sampled window,
        else one per block of :data:`READ_BLOCK_SAMPLES` samples.  Storage that
        overrides :meth:`accelerated_envelope` overrides this too.

        Raises:
            ValueError: ``index`` does not have one ``None`` (see :meth:`envelope`).
        """
        self.line_selection(index, 0, 0)
        n = self.shape[index.index(None)]
        start = max(0, min(int(start), n))
        stop = max(start, min(int(stop), n))
        bins = max(1, int(bins))
        if stop - start <= bins * RAW_SAMPLES_PER_BIN:
            return {(index, "raw")}
        if stop - start > self.sampled_read_limit(index):
            return {(index, "window", i) for i in range(len(bin_edges(start, stop, bins)) - 1)}
        return {(index, "block", b) for b in range(start // READ_BLOCK_SAMPLES,
                                                    (stop - 1) // READ_BLOCK_SAMPLES + 1)}

    def _blocks_read(self, index: tuple[int | None, ...], start: int, end: int,
                     final: bool) -> None:
        """Report the read blocks of :meth:`envelope_chunks` wholly below ``end`` (all
        up to ``end`` when ``final``)."""
        last = (end - 1) // READ_BLOCK_SAMPLES + 1 if final else end // READ_BLOCK_SAMPLES
        for b in range(start // READ_BLOCK_SAMPLES, last):
            chunk_read((index, "block", b))

    def accelerated_envelope(self, index: tuple[int | None, ...], start: int, stop: int,
                             bins: int, preview: PreviewFn | None,
                             cancelled: CancelledFn | None) -> Envelope | None:
        """A faster envelope than reading the samples, or None (the default).

        Called by :meth:`envelope` with the range already clipped; storage
        with summaries overrides it and returns an envelope with the same
        contract, or None to use the reading path.
        """
        return None

    def sampled_read_limit(self, index: tuple[int | None, ...]) -> int:
        """Most samples a sampled envelope of the line ``index`` reads in all.

        :data:`MAX_VIEW_SAMPLES` here; storage whose cost is counted in
        pieces other than samples (HDF5 chunks: one lookup each, stored or
        not) overrides it.
        """
        return MAX_VIEW_SAMPLES

    def _fold_wide_bin(self, index: tuple[int | None, ...], s: int, e: int,
                       cancelled: CancelledFn | None) -> tuple[float, float]:
        """Min/max of one bin wider than a read block, read block by block."""
        lo = hi = np.nan
        for a in range(s, e, READ_BLOCK_SAMPLES):
            if cancelled is not None and cancelled():
                raise EnvelopeCancelled()
            b = min(e, a + READ_BLOCK_SAMPLES)
            blo, bhi = minmax_bins(self.read(self.line_selection(index, a, b)),
                                   np.array([a, b]), offset=a)
            lo, hi = float(np.fmin(lo, blo[0])), float(np.fmax(hi, bhi[0]))
        return lo, hi

    def _read_envelope(self, index: tuple[int | None, ...], edges: np.ndarray,
                       preview: PreviewFn | None, cancelled: CancelledFn | None) -> Envelope:
        """Exact envelope by reading whole bins, about a block of samples at a time."""
        start, stop = int(edges[0]), int(edges[-1])
        k = len(edges) - 1
        lo = np.full(k, np.nan)
        hi = np.full(k, np.nan)
        b0 = 0
        next_preview = time.monotonic() + 0.25
        while b0 < k:
            if cancelled is not None and cancelled():
                raise EnvelopeCancelled()
            s = int(edges[b0])
            b1 = int(np.searchsorted(edges, s + READ_BLOCK_SAMPLES, side="right")) - 1
            b1 = min(max(b1, b0 + 1), k)
            e = int(edges[b1])
            if b1 == b0 + 1 and e - s > READ_BLOCK_SAMPLES:
                lo[b0], hi[b0] = self._fold_wide_bin(index, s, e, cancelled)
            else:
                vals = self.read(self.line_selection(index, s, e))
                lo[b0:b1], hi[b0:b1] = minmax_bins(vals, edges[b0: b1 + 1], offset=s)
            b0 = b1
            self._blocks_read(index, start, e, final=b0 >= k)
            if preview is not None and b0 < k and time.monotonic() >= next_preview:
                next_preview = time.monotonic() + 0.5
                preview(Envelope(start, stop, edges[:-1].astype(np.float64), lo.copy(),
                                 hi.copy(), raw=False, exact=False))
        return Envelope(start, stop, edges[:-1].astype(np.float64), lo, hi, raw=False)

    def _sampled_envelope(self, index: tuple[int | None, ...], edges: np.ndarray,
                          cancelled: CancelledFn | None) -> Envelope:
        """Envelope of a range too wide to read: one centred window per bin.

        Reads at most :data:`MAX_VIEW_SAMPLES` samples in total; the result
        is ``exact=False`` (extremes outside the windows may be missed).
        """
        k = len(edges) - 1
        per = max(1, min(READ_BLOCK_SAMPLES, self.sampled_read_limit(index) // max(k, 1)))
        lo = np.full(k, np.nan)
        hi = np.full(k, np.nan)
        for i in range(k):
            if cancelled is not None and cancelled():
                raise EnvelopeCancelled()
            s, e = int(edges[i]), int(edges[i + 1])
            w = min(per, e - s)
            a = s + (e - s - w) // 2
            vals = self.read(self.line_selection(index, a, a + w))
            blo, bhi = minmax_bins(vals, np.array([a, a + w]), offset=a)
            lo[i], hi[i] = blo[0], bhi[0]
            chunk_read((index, "window", i))
        return Envelope(int(edges[0]), int(edges[-1]), edges[:-1].astype(np.float64), lo, hi,
                        raw=False, exact=False)


def envelope_with_preview(
    ref: ArrayRef,
    index: tuple[int | None, ...],
    start: int,
    stop: int,
    bins: int,
    preview: PreviewFn | None = None,
    cancelled: CancelledFn | None = None,
) -> Envelope:
    """``ref.envelope(index, start, stop, bins, preview=..., cancelled=...)``."""
    return ref.envelope(index, start, stop, bins, preview=preview, cancelled=cancelled)


class NumpyArrayRef(ArrayRef):
    """An :class:`ArrayRef` over an in-memory array (small arrays, tests)."""

    def __init__(self, name: str, array: np.ndarray, *, location: str = "",
                 storage: str = "memory", sample_axis: int = 0) -> None:
        super().__init__()
        self.name = name
        self._a = np.asarray(array)
        self.shape = tuple(self._a.shape)
        self.dtype = self._a.dtype
        self.location = location
        self.storage = storage
        self.sample_axis = sample_axis

    def read(self, selection: Any = Ellipsis) -> np.ndarray:
        """``array[selection]`` in native byte order."""
        out = np.asarray(self._a[selection])
        if not out.dtype.isnative:
            out = out.astype(out.dtype.newbyteorder("="))
        return out
