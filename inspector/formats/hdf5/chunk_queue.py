"""The order in which a chunk summary visits chunks, and the collection of finished ones.

Nothing here imports Qt.
"""

from __future__ import annotations

import queue
from concurrent.futures import Future
from typing import Any

import numpy as np


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


def drain(done: queue.SimpleQueue[Future[Any]]) -> list[Future[Any]]:
    """The futures finished so far, waiting up to 50 ms for the first (else none).

    ``done`` is the queue each future puts itself into as it finishes
    (``future.add_done_callback(done.put)``): one put per future, where
    ``concurrent.futures.wait`` would install and remove a waiter on every pending
    future each time it is called.
    """
    try:
        out = [done.get(timeout=0.05)]
    except queue.Empty:
        return []
    while True:
        try:
            out.append(done.get_nowait())
        except queue.Empty:
            return out
