"""The reads of a neural plot, on a job: each line's envelopes over one view.

:func:`envelope_job` makes the job function of one request of
:class:`~inspector.ui.plots.neural.NeuralView` (see its module docstring for
how requests are coalesced and superseded); :func:`zigzag` turns an envelope
into the points of one drawn line.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from inspector.formats.analysis.arrays import (
    ArrayRef,
    Envelope,
    EnvelopeCancelled,
    envelope_with_preview,
)
from inspector.formats.analysis.read_meter import ChunkMeter, metering
from inspector.jobs import JobContext
from inspector.ui.plots.base import ReadFailed

#: Seconds a job runs before a newer pending view makes it stop (see
#: :mod:`inspector.ui.plots.neural`).
SUPERSEDE_AFTER_S = 0.1
#: A job that has run this long sends each line as it is done; a quicker one sends them all
#: at once with its result (one hand-over to the GUI thread, one redraw).
PROGRESS_AFTER_S = 0.05


def zigzag(env: Envelope) -> tuple[np.ndarray, np.ndarray]:
    """Sample-unit ``(x, y)`` to draw an envelope: raw samples, or lo/hi interleaved.

    For a binned envelope each bin gives two points at its centre (min then
    max), so one line draws the whole band at pixel resolution; NaN bins stay
    NaN (gaps with ``connect="finite"``).
    """
    if env.raw:
        return env.x.astype(np.float64), np.asarray(env.lo, dtype=np.float64)
    c = env.centers()
    x = np.repeat(c, 2)
    y = np.empty(2 * len(env))
    y[0::2] = env.lo
    y[1::2] = env.hi
    return x, y


def envelope_job(ref: ArrayRef, lines: list[tuple[str, list[tuple]]],
                  span: tuple[int, int, int], gen: int, stop: threading.Event) -> Any:
    """The job function of one request: every line's envelopes over ``span = (start, stop, bins)``.

    The fraction done is counted in chunks: the distinct chunks the lines' envelopes
    read (:meth:`ArrayRef.envelope_chunks`; a chunk several channels share counts
    once) against those read so far (:mod:`~inspector.formats.analysis.read_meter`),
    sent as progress ``(done, needed, (gen, None, None))`` at most every
    :data:`~inspector.formats.analysis.read_meter.REPORT_EVERY_S`.  Each preview of a
    single line, and each finished line once the job has run :data:`PROGRESS_AFTER_S`,
    is sent as progress ``(done, needed, (gen, key, envelopes))``.
    Returns ``(gen, {key: envelopes}, span, complete)``; ``complete`` is False
    when ``stop`` was set (a newer view is pending) and the job had run
    :data:`SUPERSEDE_AFTER_S`: the lines finished by then are returned.  A read
    that the file makes fail (``OSError``) returns a :class:`ReadFailed` instead.
    Runs on a worker thread; reads only ``ref`` and its arguments.
    """
    start, end, bins = span

    def work(ctx: JobContext) -> (tuple[int, dict[str, list[Envelope]], tuple[int, int, int],
                                        bool] | ReadFailed):
        began = time.monotonic()

        def cancelled() -> bool:
            return ctx.cancelled or (stop.is_set()
                                     and time.monotonic() - began >= SUPERSEDE_AFTER_S)

        try:
            needed: set[Any] = set()
            for _key, indices in lines:
                for idx in indices:
                    needed |= ref.envelope_chunks(idx, start, end, bins)
        except OSError as exc:
            return ReadFailed.of(ref, exc)
        meter = ChunkMeter(len(needed), lambda d, n: ctx.progress(d, n, (gen, None, None)))
        del needed
        with metering(meter):
            return _read_lines(ref, lines, span, gen, ctx, meter, cancelled, began)

    return work


def _read_lines(ref: ArrayRef, lines: list[tuple[str, list[tuple]]],
                span: tuple[int, int, int], gen: int, ctx: JobContext, meter: ChunkMeter,
                cancelled: Any, began: float) -> Any:
    """The reads of :func:`envelope_job`, inside its :func:`metering` block."""
    start, end, bins = span
    out: dict[str, list[Envelope]] = {}
    for key, indices in lines:
        envs = []
        for idx in indices:
            def preview(env: Envelope, key: str = key, n: int = len(indices)) -> None:
                if n == 1:
                    ctx.progress(meter.done, meter.needed, (gen, key, [env]))
            try:
                envs.append(envelope_with_preview(ref, idx, start, end, bins, preview,
                                                  cancelled))
            except EnvelopeCancelled:
                ctx.check()  # the view is gone: nothing is delivered
                return gen, out, span, False
            except OSError as exc:
                return ReadFailed.of(ref, exc)
            ctx.check()
        out[key] = envs
        meter.flush()
        if time.monotonic() - began >= PROGRESS_AFTER_S:
            ctx.progress(meter.done, meter.needed, (gen, key, envs))
        if cancelled():
            return gen, out, span, False
    return gen, out, span, True


def exactness_note(exact: bool, complete: bool) -> str:
    """What the status adds about the drawn envelopes: nothing when exact; a read that
    was sampled (too costly to read whole: ``ArrayRef.sampled_read_limit``) stays so
    until the user zooms in; a job cut short for a newer view is followed by it."""
    if exact and complete:
        return ""
    if complete:
        return " (sampled: a window of each pixel's range read; zoom in for exact values)"
    return " (a quick preview; exact values follow)"
