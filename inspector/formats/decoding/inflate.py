"""The one decoder of deflate data: HDF5 chunks (deflate, shuffle, Fletcher-32) and ZIP members.

Every compressed byte Inspector reads passes through here:

* **Whole HDF5 chunks** (:func:`inflate_exact`, :func:`undo_filters`): one
  zlib stream (RFC 1950, HDF5's deflate filter ``H5Zdeflate.c``) inflated in
  one call into a buffer of exactly the chunk's declared size (shape x
  element size, HDF5 File Format Specification 3.0, "Data Storage -
  Chunked"), by libdeflate (the ``deflate`` wheel), which never writes past
  that buffer: a stream holding more is a :class:`ChunkOverflow`, never
  inflated further.  The shuffle filter is undone by :func:`unshuffle`
  (``H5Zshuffle.c``) and the Fletcher-32 checksum checked as HDF5 checks it
  on every read (:func:`check_fletcher32`, ``H5Zfletcher32.c``).
* **Streams** (:func:`stream_decompressor`, :func:`count_inflated`,
  :func:`inflate_prefix`): bounded, block by block, with the ``zlib`` API
  (``decompressobj().decompress(data, max_length)``) of ISA-L (the ``isal``
  wheel): ZIP members for verification and reading (raw deflate,
  ``wbits=-15``), and chunks counted before HDF5 may read them.  Memory is one
  output block whatever the member's size.  A stream whose state must be
  copied (checkpoints of :class:`~inspector.formats.aucx.stream.InflateCursor`)
  uses :mod:`zlib`, the only one of the three whose state can be copied
  (:func:`copyable_decompressor`).

Both wheels are dependencies of every install (``pyproject.toml``); where one
is missing (a source build that failed, an unusual platform) :mod:`zlib` does
its part, to the same bytes (the tests force it and compare).  All three
release the GIL while inflating, so chunks and members decode in parallel on
the worker pool.  :data:`DECODER` names what is in use; benchmarks print it.

Why two libraries (``benchmarks/inflate_backends.py`` measures them): for a
whole buffer of known size libdeflate is the fastest inflater there is, but
it has no streaming API; ISA-L streams at nearly the same speed and is
zlib-compatible, including ``max_length``, which bounds a bomb's output.

Nothing here imports Qt.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

_deflate_wheel: Any
_isal_zlib: Any
try:  # libdeflate: whole buffers
    import deflate as _deflate_wheel
except ImportError:  # pragma: no cover - every install has it (pyproject.toml)
    _deflate_wheel = None
try:  # ISA-L: streams, zlib's API
    from isal import isal_zlib as _isal_zlib
except ImportError:  # pragma: no cover - every install has it (pyproject.toml)
    _isal_zlib = None

__all__ = ["DECODER", "ChunkOverflow", "check_fletcher32", "copyable_decompressor",
           "count_inflated", "crc32", "decoder", "fletcher32", "inflate_exact",
           "inflate_prefix", "stream_decompressor", "undo_filters", "unshuffle",
           "zlib_inflate"]

#: Whole-buffer inflater of chunks: the ``deflate`` module, or None (then zlib).
WHOLE: Any = _deflate_wheel
#: Streaming inflater: a module with zlib's ``decompressobj``/``error``/``crc32``.
STREAM: Any = _isal_zlib if _isal_zlib is not None else zlib
#: Most bytes one call of the ``deflate`` wheel can produce (its size is a C ``unsigned``).
_WHOLE_MAX = (1 << 32) - 1
#: Bytes inflated per step while counting a stream (the memory one count holds).
COUNT_BLOCK = 1 << 20


def decoder() -> str:
    """What inflates now, e.g. ``"chunks: libdeflate (deflate 0.9.0); streams: ISA-L
    (isal 1.9.1)"``; ``zlib`` where a wheel is missing."""
    if WHOLE is not None:
        chunks = f"libdeflate (deflate {getattr(WHOLE, '__version__', '?')})"
    else:
        chunks = f"zlib {zlib.ZLIB_RUNTIME_VERSION}"
    if STREAM is not zlib:
        from isal import __version__ as isal_version

        streams = f"ISA-L (isal {isal_version})"
    else:
        streams = f"zlib {zlib.ZLIB_RUNTIME_VERSION}"
    return f"chunks: {chunks}; streams: {streams}"


#: :func:`decoder` at import (benchmarks print it beside every figure).
DECODER = decoder()


class ChunkOverflow(OSError):
    """A compressed chunk whose stream inflates past the chunk's declared size.

    Inflation stopped at ``declared`` bytes (the chunk's shape times the element
    size, HDF5 File Format Specification 3.0, "Data Storage - Chunked");
    :meth:`at` names the dataset and the chunk's offset.
    """

    def __init__(self, declared: int, dataset: str = "",
                 offset: tuple[int, ...] | None = None) -> None:
        self.declared, self.dataset, self.offset = declared, dataset, offset
        where = f"the chunk at {list(offset)} of {dataset}" if offset is not None and dataset \
            else "a compressed chunk"
        super().__init__(f"{where} inflates past its declared size of {declared:,} bytes; "
                         "inflation stopped there")

    def at(self, dataset: str, offset: tuple[int, ...]) -> ChunkOverflow:
        """The same overflow, naming the dataset and the chunk's offset."""
        return ChunkOverflow(self.declared, dataset, tuple(int(o) for o in offset))


# -- whole chunks ---------------------------------------------------------------------
def zlib_inflate(data: bytes | bytearray | memoryview, size: int) -> bytes:
    """Inflate one zlib stream of ``size`` decoded bytes with :mod:`zlib`, making at
    most ``size`` bytes (``decompressobj().decompress(data, max_length)``): the
    fallback of :func:`inflate_exact`, and how its failures are told apart.

    Raises:
        ChunkOverflow: the stream holds more than ``size`` bytes.
        OSError: corrupt data, or fewer than ``size`` bytes.
    """
    d = zlib.decompressobj()
    try:
        raw = d.decompress(data, size)
        if not d.eof and len(raw) == size and d.decompress(d.unconsumed_tail, 1):
            raise ChunkOverflow(size)
    except zlib.error as exc:
        raise OSError(f"corrupt compressed chunk: {exc}") from exc
    if len(raw) != size:
        raise OSError(f"decoded chunk holds {len(raw)} bytes, expected {size}")
    return raw


def inflate_exact(data: bytes | bytearray | memoryview, size: int) -> bytes | bytearray:
    """The ``size`` bytes one zlib stream (an HDF5 deflate chunk) inflates to.

    libdeflate writes into a buffer of exactly ``size`` bytes and stops there;
    without the wheel, :func:`zlib_inflate`.  A failure of libdeflate (it does
    not say which) is classified by :func:`zlib_inflate`, which also makes at
    most ``size`` bytes.

    Raises:
        ChunkOverflow: the stream holds more than ``size`` bytes.
        OSError: corrupt data, or fewer than ``size`` bytes.
    """
    if WHOLE is None or not 0 < size <= _WHOLE_MAX:
        return zlib_inflate(data, size)
    try:
        out = WHOLE.zlib_decompress(data, size)
    except WHOLE.DeflateError:
        zlib_inflate(data, size)  # raises ChunkOverflow or OSError
        raise OSError("corrupt compressed chunk (libdeflate refused it)") from None
    if len(out) != size:
        raise OSError(f"decoded chunk holds {len(out)} bytes, expected {size}")
    return out


def unshuffle(buf: bytes | bytearray | np.ndarray, itemsize: int) -> np.ndarray:
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
    out[n * itemsize:] = b[n * itemsize:]
    return out


_FOLD = 65535
#: Words summed at once by :func:`fletcher32` (int64 products never overflow).
_FLETCHER_BLOCK = 1 << 20


def fletcher32(data: bytes | bytearray | memoryview | np.ndarray) -> int:
    """HDF5's Fletcher-32 checksum of ``data`` (``H5_checksum_fletcher32``,
    ``H5checksum.c``): big-endian 16-bit words (an odd last byte is the high
    byte of a last word), ``sum1`` their sum and ``sum2`` the sum of the running
    ``sum1``, both reduced with end-around carry; ``(sum2 << 16) | sum1``.

    Computed in closed form (word ``i`` of ``n`` counts ``n - i`` times in
    ``sum2``), block by block in int64.  HDF5's folds keep each sum congruent
    modulo 65535 and in 1..65535 once it is positive; both are 0 only for data
    of zero bytes.
    """
    b = np.frombuffer(data, dtype=np.uint8)
    if not b.any():
        return 0
    words = b[: b.size // 2 * 2].view(">u2")
    n = words.size + (b.size % 2)
    s1 = s2 = 0
    for lo in range(0, words.size, _FLETCHER_BLOCK):
        w = words[lo: lo + _FLETCHER_BLOCK].astype(np.int64)
        weight = (n - lo - np.arange(w.size, dtype=np.int64)) % _FOLD
        s1 += int(w.sum())
        s2 = (s2 + int(np.dot(w, weight))) % _FOLD
    if b.size % 2:
        s1 += int(b[-1]) << 8
        s2 += int(b[-1]) << 8
    return (((s2 - 1) % _FOLD + 1) << 16) | ((s1 - 1) % _FOLD + 1)


def check_fletcher32(buf: bytes | bytearray | memoryview | np.ndarray,
                     where: str = "a chunk") -> np.ndarray:
    """``buf`` (a uint8 view) without its trailing Fletcher-32 checksum, once checked
    as HDF5 checks it on every read (``H5Z__filter_fletcher32``): the stored little-endian word
    must equal the checksum of the bytes before it, or the same with the bytes
    of each 16-bit half swapped (written by HDF5 before 1.6.3).

    Raises:
        OSError: fewer than 4 bytes, or the checksums differ.
    """
    view = np.frombuffer(buf, dtype=np.uint8)
    if view.size < 4:
        raise OSError(f"{where}: too short to hold its Fletcher-32 checksum")
    body = view[:-4]
    stored = int.from_bytes(view[-4:].tobytes(), "little")
    got = fletcher32(body)
    swapped = ((got & 0x00FF00FF) << 8) | ((got >> 8) & 0x00FF00FF)
    if stored not in (got, swapped):
        raise OSError(f"{where}: data error detected by Fletcher-32 checksum "
                      f"(stored {stored:08x}, computed {got:08x})")
    return body


def undo_filters(data: bytes | bytearray | memoryview, mask: int, filters: Sequence[str],
                 itemsize: int, size: int,
                 keep_shuffled: bool = False) -> tuple[np.ndarray, bool]:
    """Decode one stored chunk: its filters undone in reverse write order.

    Args:
        data: the stored bytes (``read_direct_chunk``).
        mask: HDF5's filter mask: bit ``i`` set means filter ``i`` was skipped.
        filters: the pipeline in write order, names among ``"shuffle"``,
            ``"gzip"`` (deflate) and ``"fletcher32"``.
        itemsize: element size in bytes (shuffle's byte planes).
        size: the chunk's declared decoded size in bytes.
        keep_shuffled: leave a last (first written) shuffle undone: the caller
            unshuffles only the elements it needs.

    Returns:
        ``(uint8 array of size bytes, still_shuffled)``.

    Raises:
        ChunkOverflow: the deflate stream holds more than ``size`` bytes.
        OSError: corrupt data, a failed Fletcher-32 check, a decoded size other
            than ``size``, or another filter (``ValueError`` is never raised).
    """
    buf: Any = data
    shuffled = False
    active = [i for i in range(len(filters)) if not mask & (1 << i)]
    for k in range(len(active) - 1, -1, -1):
        f = filters[active[k]]
        if f == "gzip":
            buf = inflate_exact(buf, size)
        elif f == "shuffle":
            if keep_shuffled and k == 0:
                shuffled = True
            else:
                buf = unshuffle(buf, itemsize)
        elif f == "fletcher32":
            buf = check_fletcher32(buf)
        else:
            raise OSError(f"filter {f!r} cannot be decoded here")
    arr = np.frombuffer(buf, dtype=np.uint8)
    if arr.size != size:
        raise OSError(f"decoded chunk holds {arr.size} bytes, expected {size}")
    return arr, shuffled


# -- streams --------------------------------------------------------------------------
def stream_decompressor(wbits: int = -15) -> Any:
    """A streaming decompressor with zlib's API (``decompress(data, max_length)``,
    ``unconsumed_tail``, ``eof``): ISA-L's, or zlib's without the wheel.  Its
    errors are :data:`STREAM_ERRORS`.  ``wbits=-15``: raw deflate (ZIP)."""
    return STREAM.decompressobj(wbits)


def copyable_decompressor(wbits: int = -15) -> zlib._Decompress:
    """A zlib decompressor, whose state ``copy()`` can save (ISA-L's cannot)."""
    return zlib.decompressobj(wbits)


#: Exceptions a decompressor of :func:`stream_decompressor` raises on corrupt data.
STREAM_ERRORS: tuple[type[Exception], ...] = (
    (zlib.error,) if STREAM is zlib else (zlib.error, STREAM.error))


def crc32(data: bytes | bytearray | memoryview, value: int = 0) -> int:
    """CRC-32 of ``data`` continuing ``value`` (ZIP's, as :func:`zlib.crc32`)."""
    return int(STREAM.crc32(data, value))


def count_inflated(raw: bytes | bytearray | memoryview, declared: int,
                   block: int = COUNT_BLOCK) -> int:
    """Bytes the zlib stream ``raw`` inflates to, counted in blocks of ``block``
    and never past ``declared + 1`` (the memory held is one block).

    Raises:
        OSError: the stream is corrupt.
    """
    d = stream_decompressor(15)
    total, data = 0, raw
    try:
        while total <= declared:
            out = d.decompress(data, min(block, declared + 1 - total))
            total += len(out)
            data = d.unconsumed_tail
            if d.eof or (not out and not data):
                break
    except STREAM_ERRORS as exc:
        raise OSError(f"corrupt compressed chunk: {exc}") from exc
    return total


def inflate_prefix(raw: bytes | bytearray | memoryview, limit: int) -> bytes:
    """The first ``limit`` bytes a zlib stream inflates to (never more are made).

    Raises:
        OSError: the stream is corrupt before ``limit`` bytes.
    """
    try:
        return bytes(stream_decompressor(15).decompress(raw, limit))
    except STREAM_ERRORS as exc:
        raise OSError(f"corrupt compressed data: {exc}") from exc
