"""Which part of an array the image view reads: the plane of two chosen axes (and a colour
axis), strided to the pixels shown within a budget of decoded chunk bytes
(:class:`ImagePlan`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.formats.nodes.data import span

if TYPE_CHECKING:
    pass


# -- image sampling -----------------------------------------------------------------------
#: Most decoded chunk bytes one image read may touch (:func:`image_plan`).
IMAGE_BUDGET_BYTES = 96 << 20


#: The budget of the first, quick image of a view (refined up to the full budget next).
IMAGE_FIRST_BYTES = 24 << 20


@dataclass(frozen=True)
class ImagePlan:
    """A strided 2-D sample of a node for an image at screen resolution.

    Attributes:
        rows, cols: the sampled positions along the row and column axes
            (sample ``k`` stands for the cell ``[start + k*step, start + (k+1)*step)``,
            taken at its middle).
        touched_bytes: decoded bytes of the chunks (or elements) the read touches.
        coarse: True when the steps were widened beyond the screen resolution to
            stay within :data:`IMAGE_BUDGET_BYTES` (one sample per several chunks).
    """

    rows: range
    cols: range
    touched_bytes: int
    coarse: bool

    @property
    def cell(self) -> tuple[int, int]:
        """Data elements per pixel along rows and columns (the steps)."""
        return self.rows.step, self.cols.step


def _touched(extent: range, step: int, chunk: int) -> int:
    """Chunks along one axis that samples every ``step`` (from the middle) hit."""
    n = span(extent)
    if step >= chunk:
        return max(1, -(-n // step))
    first, last = extent.start // chunk, (extent.stop - 1) // chunk
    return last - first + 1


def _samples(extent: range, step: int) -> range:
    start = extent.start + min(step // 2, max(span(extent) - 1, 0))
    return range(start, extent.stop, step)


def image_plan(rows: range, cols: range, pixels: tuple[int, int], chunks: Sequence[int] | None,
               axes: tuple[int, int], itemsize: int,
               budget: int = IMAGE_BUDGET_BYTES) -> ImagePlan:
    """Choose the rows and columns to sample so that a ``rows x cols`` region fits
    ``pixels`` (height, width) while decoding at most ``budget`` bytes of chunks.

    Args:
        rows, cols: the region (ranges of step 1) along the two image axes.
        pixels: the screen size of the image (at least 1 x 1).
        chunks: the chunk shape of a chunked node (all axes), or None
            (contiguous or in memory: only the sampled elements are read).
        axes: the node axes shown as rows and columns (indices into ``chunks``).
        itemsize: bytes per element.

    Returns:
        Steps of ``ceil(extent / pixels)`` when that stays within ``budget``;
        otherwise steps widened to whole multiples of the chunk size, so that
        only one chunk in several is decoded (``coarse=True``).
    """
    step = [max(1, -(-span(rows) // max(1, pixels[0]))),
            max(1, -(-span(cols) // max(1, pixels[1])))]
    if not chunks:
        touched = span(_samples(rows, step[0])) * span(_samples(cols, step[1])) * itemsize
        return ImagePlan(_samples(rows, step[0]), _samples(cols, step[1]), touched, False)
    c = [max(1, int(chunks[axes[0]])), max(1, int(chunks[axes[1]]))]
    chunk_bytes = math.prod(int(x) for x in chunks) * itemsize
    extents = (rows, cols)

    def cost() -> int:
        return _touched(rows, step[0], c[0]) * _touched(cols, step[1], c[1]) * chunk_bytes

    coarse = False
    while cost() > budget:
        t = [_touched(extents[i], step[i], c[i]) for i in (0, 1)]
        growable = [i for i in (0, 1) if step[i] < span(extents[i])]
        if not growable:
            break
        i = max(growable, key=lambda a: t[a])
        k = step[i] // c[i]
        step[i] = c[i] * max(k + 1, k * 5 // 4)  # whole chunks: the others are skipped
        coarse = True
    return ImagePlan(_samples(rows, step[0]), _samples(cols, step[1]), cost(), coarse)
