"""Streaming checks of ``.npy`` array contents during verification.

While a member is hashed, its data bytes (after the ``.npy`` header) are fed
to an :class:`ArrayScan`, which keeps one bit per element instead of the
array: for radius/signal the positions holding a non-finite value, for the
mask the positions that are True.  After all members are streamed,
:func:`cross_check` applies the content rules of the AUCX 1.0 format document
("Both radius modes"):

* shared mode: the mask must be all true, radius and signal all finite;
* per-scan mode: every masked-in radius and signal value must be finite
  (padding marked valid is rejected).

Memory: ``elements / 8`` bytes per array (1/64 of a float64 array).
"""

from __future__ import annotations

import numpy as np

from inspector.formats.aucx import rules as R
from inspector.formats.aucx.layout import MASK, RADIUS, SIGNAL
from inspector.formats.aucx.npyfmt import NpyHeader
from inspector.formats.findings import Finding


class ArrayScan:
    """Accumulate a packed bit per element of one array member.

    ``kind`` ``"finite"`` (bit = value non-finite) or ``"mask"`` (bit = True);
    with ``keep_bits=False`` only the counts are kept (enough in shared mode).
    Feed the whole member (header included) through :meth:`feed`; then
    :attr:`bits` (packed uint8, C or stored order) and :attr:`count` (number of
    set bits; for a mask also :attr:`false_count`) are available.
    """

    def __init__(self, header: NpyHeader, kind: str, keep_bits: bool = True) -> None:
        self.header = header
        self.kind = kind
        self.keep_bits = keep_bits
        self.itemsize = header.dtype.itemsize
        self._skip = header.data_offset
        self._carry = b""
        self._parts: list[np.ndarray] = []
        self.elements = 0
        self.count = 0
        self._group = self.itemsize * 8

    def feed(self, block: bytes) -> None:
        """Take the next bytes of the member (the ``.npy`` header is skipped)."""
        if self._skip:
            cut = min(self._skip, len(block))
            self._skip -= cut
            block = block[cut:]
            if not block:
                return
        if self._carry:
            block = self._carry + block
            self._carry = b""
        usable = (len(block) // self._group) * self._group
        if usable < len(block):
            self._carry = bytes(block[usable:])
        if usable:
            self._take(memoryview(block)[:usable])

    def _take(self, raw: memoryview) -> None:
        a = np.frombuffer(raw, dtype=self.header.dtype)
        flags = ~np.isfinite(a) if self.kind == "finite" else a.astype(bool, copy=False)
        self.elements += a.size
        self.count += int(np.count_nonzero(flags))
        if self.keep_bits:
            self._parts.append(np.packbits(flags))

    def finish(self) -> None:
        """Take the last partial group of elements (call once, after the last block)."""
        if self._carry:
            n = len(self._carry) // self.itemsize * self.itemsize
            if n:
                self._take(memoryview(self._carry)[:n])
            self._carry = b""

    @property
    def bits(self) -> np.ndarray:
        """One bit per element, packed (uint8 ``(ceil(elements / 8),)``), in stored order."""
        return np.concatenate(self._parts) if self._parts else np.zeros(0, np.uint8)

    @property
    def false_count(self) -> int:
        """Elements whose bit is not set (for a mask: the False entries)."""
        return self.elements - self.count


def cross_check(mode: str, radius: ArrayScan | None, signal: ArrayScan | None,
                mask: ArrayScan | None) -> list[Finding]:
    """Content findings, each located at the array member it concerns.

    ``mode`` is ``"shared"`` or ``"per_scan"``; scans are None when the member
    could not be streamed or its header already failed.  Rules: AUCX 1.0
    format document, "Both radius modes".
    """
    if mode == "shared":
        return _shared(radius, signal, mask)
    return _per_scan(radius, signal, mask)


def _shared(radius: ArrayScan | None, signal: ArrayScan | None,
            mask: ArrayScan | None) -> list[Finding]:
    out: list[Finding] = []
    if mask is not None and mask.false_count:
        out.append(R.ARRAY_SHARED_MASK_NOT_ALL_TRUE.finding(
            f"the mask of a shared-axis archive has {mask.false_count} False entr(y/ies); in "
            "shared mode every stored value is a real observation and the mask must be all "
            "true", MASK))
    for scan, member in ((radius, RADIUS), (signal, SIGNAL)):
        if scan is not None and scan.count:
            out.append(R.ARRAY_NON_FINITE.finding(
                f"{member} holds {scan.count} non-finite value(s) on a shared axis, where "
                "every value is a real observation", member))
    return out


def _per_scan(radius: ArrayScan | None, signal: ArrayScan | None,
              mask: ArrayScan | None) -> list[Finding]:
    out: list[Finding] = []
    if mask is None or mask.header.fortran_order:
        return out
    mbits = mask.bits
    for scan, member in ((radius, RADIUS), (signal, SIGNAL)):
        if (scan is None or scan.header.shape != mask.header.shape
                or scan.header.fortran_order != mask.header.fortran_order
                or scan.bits.shape != mbits.shape):
            continue
        bad = int(np.count_nonzero(np.unpackbits(scan.bits & mbits)))
        if bad:
            out.append(R.ARRAY_MASKED_IN_NON_FINITE.finding(
                f"{member} holds {bad} non-finite value(s) where the mask says a real "
                "observation exists (padding marked valid)", member))
    return out
