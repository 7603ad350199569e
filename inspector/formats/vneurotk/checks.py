"""The deferred checks of a recording: work that reads whole arrays.

Opening a recording reads metadata only (VneuroTK recording notes
(spec/vneurotk-recording.md) §6, "Reading discipline").  What needs every
byte of a large dataset runs later as a :class:`RecordingCheck`, a
:class:`~inspector.formats.capabilities.DeferredCheck`:

* the COO coordinate range check (every ``neuro_row``/``neuro_col`` entry
  inside ``neuro_shape``, notes §2), streamed in blocks;
* decoding every ``image_bytes`` stimulus (notes §5).

A check only reads the file (through the identity-checked
:class:`~inspector.formats.hdf5.source.H5Source`) and returns a
:class:`~inspector.formats.capabilities.CheckResult`; it never touches the
document, so it can run on a worker thread (docs/architecture.md,
"Deferred work").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from inspector.formats.capabilities import CancelFn, CheckResult, Progress, ProgressFn
from inspector.formats.findings import Finding
from inspector.formats.hdf5.source import H5Source
from inspector.formats.vneurotk import rules as R
from inspector.formats.vneurotk.coo import COO_BLOCK, CooNeuroRef
from inspector.formats.vneurotk.vision import StimulusEntry, decode_image

#: One step of a check: yields findings; polls ``cancelled`` between blocks.
Step = Callable[[CancelFn], Iterator[Finding]]


class _Cancelled(Exception):
    """Internal: a step saw ``cancelled()`` return True."""


def _poll(cancelled: CancelFn) -> None:
    if cancelled():
        raise _Cancelled


def coo_bounds_step(source: H5Source, ref: CooNeuroRef) -> Step:
    """Stream ``neuro_row``/``neuro_col`` in blocks of :data:`COO_BLOCK`.

    Findings: ``neuro.coo-out-of-range`` when a coordinate falls outside
    ``neuro_shape``, ``neuro.unreadable`` when a block cannot be read
    (notes §2).  Memory is bounded by one block.
    """
    def run(cancelled: CancelFn) -> Iterator[Finding]:
        n_tr, n_t, n_ch = ref.shape
        limits = {"neuro_row": n_tr * n_t, "neuro_col": n_ch}
        for what, ds in (("neuro_row", ref.row_dataset), ("neuro_col", ref.col_dataset)):
            lo: int | None = None
            hi: int | None = None
            try:
                for a in range(0, ref.nnz, COO_BLOCK):
                    _poll(cancelled)
                    v = np.asarray(source.read(ds, slice(a, min(ref.nnz, a + COO_BLOCK))))
                    if v.size:
                        vmin, vmax = int(v.min()), int(v.max())
                        lo = vmin if lo is None else min(lo, vmin)
                        hi = vmax if hi is None else max(hi, vmax)
            except (OSError, ValueError, TypeError) as exc:
                yield R.NEURO_UNREADABLE.finding(f"/{what} cannot be read: {exc}", f"/{what}")
                continue
            if lo is not None and hi is not None and (lo < 0 or hi >= limits[what]):
                yield R.COO_OUT_OF_RANGE.finding(
                    f"/{what} holds coordinates from {lo} to {hi}, outside 0..{limits[what] - 1} "
                    f"allowed by neuro_shape {list(ref.shape)}", f"/{what}")
    return run


def image_step(source: H5Source, entries: list[StimulusEntry], folder: Path) -> Step:
    """Decode every ``image_bytes`` stimulus; ``stimuli.undecodable`` for each
    that Pillow rejects (notes §5)."""
    def run(cancelled: CancelFn) -> Iterator[Finding]:
        for e in entries:
            _poll(cancelled)
            if e.kind != "image_bytes":
                continue
            try:
                decode_image(source, e, folder)
            except (OSError, ValueError) as exc:
                yield R.STIMULI_UNDECODABLE.finding(
                    f"stimulus image cannot be decoded: {exc}", e.location)
    return run


@dataclass
class RecordingCheck:
    """The deferred checks of one recording, run in order.

    Attributes:
        title: shown while it runs.
        steps: the steps (see :func:`coo_bounds_step`, :func:`image_step`).
    """

    title: str = "Recording checks"
    steps: list[Step] = field(default_factory=list)

    def run(self, progress: ProgressFn | None = None,
            cancelled: CancelFn | None = None) -> CheckResult:
        """Run every step; never mutates the document.

        Returns:
            The findings, ``complete=False`` when ``cancelled`` stopped it.
        """
        poll: CancelFn = cancelled if cancelled is not None else (lambda: False)
        found: list[Finding] = []
        total = len(self.steps)
        for i, step in enumerate(self.steps):
            try:
                found.extend(step(poll))
            except _Cancelled:
                return CheckResult(findings=tuple(found), complete=False)
            if progress is not None:
                progress(Progress(i + 1, total))
        return CheckResult(findings=tuple(found))
