"""NumPy ``.npy`` headers: parse from the first bytes of a member, write exactly.

The ``.npy`` format (NumPy NEP 1, "A simple file format for NumPy arrays"):
magic ``\\x93NUMPY``, major/minor version, a little-endian header length
(uint16 for 1.0, uint32 for 2.0/3.0), and a Python-literal dict with
``descr``, ``fortran_order`` and ``shape``, padded with spaces and a final
newline so the data starts on a 64-byte boundary.

Parsing uses NumPy's own safe header readers (``ast.literal_eval``; nothing is
ever unpickled: object dtypes are *detected* from the header, never loaded).
Writing reproduces NumPy 2.x's format 1.0 header byte for byte, including the
spare spaces NumPy leaves after the dict so a growing first axis fits (AUCX
AUCX on-disk notes §2: ``.npy`` members are written with pickling disabled).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

import numpy as np

MAGIC = b"\x93NUMPY"
#: How many header bytes are read at most to parse a header.
MAX_HEADER_BYTES = 1 << 16
_ALIGN = 64
_GROWTH_AXIS_MAX_DIGITS = 21


@dataclass(frozen=True)
class NpyHeader:
    """A parsed ``.npy`` header.

    ``shape`` tuple of ints; ``dtype`` numpy dtype (possibly non-native byte
    order); ``fortran_order`` bool; ``data_offset`` byte offset of the data
    in the member; ``version`` ``(major, minor)``.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    fortran_order: bool
    data_offset: int
    version: tuple[int, int]

    @property
    def nbytes(self) -> int:
        """Bytes of array data the header announces (0 for object dtypes)."""
        n = 1
        for s in self.shape:
            n *= int(s)
        return n * (0 if self.dtype.hasobject else self.dtype.itemsize)


class NpyHeaderError(ValueError):
    """A ``.npy`` header that cannot be parsed; the message says why."""


#: What NumPy's header reader raises on a mutated header: ``ast.literal_eval``
#: (SyntaxError, ValueError, TypeError for unhashable keys, MemoryError and
#: RecursionError for deep nesting), the Python-2 header filter
#: (``tokenize.TokenError``), the descr-to-dtype step (TypeError, KeyError,
#: IndexError, OverflowError) and short input (EOFError).
_HEADER_FAILURES = (ValueError, SyntaxError, EOFError, TypeError, KeyError, IndexError,
                    OverflowError, MemoryError, RecursionError, tokenize.TokenError)


def parse_header(head: bytes) -> NpyHeader:
    """Parse the header at the start of ``head`` (the member's first bytes).

    Never executes code and never unpickles: the header dict is read with
    ``ast.literal_eval`` by NumPy's ``read_array_header_*`` functions, and
    every failure they can raise on hostile bytes becomes one error.

    Raises:
        NpyHeaderError: not an ``.npy`` header, unsupported version, malformed
            or hostile dict, or ``head`` too short to hold the whole header.
    """
    if len(head) < 10 or head[:6] != MAGIC:
        raise NpyHeaderError("not a .npy array (missing \\x93NUMPY magic)")
    major, minor = head[6], head[7]
    fp = io.BytesIO(head)
    fp.seek(8)
    if major == 1:
        reader = np.lib.format.read_array_header_1_0
    elif major in (2, 3):
        reader = np.lib.format.read_array_header_2_0
    else:
        raise NpyHeaderError(f"unsupported .npy format version {major}.{minor}")
    try:
        shape, fortran_order, dtype = reader(fp, max_header_size=MAX_HEADER_BYTES)
        dims = tuple(int(s) for s in shape)
        dt = np.dtype(dtype)
    except _HEADER_FAILURES as exc:
        raise NpyHeaderError(f"malformed .npy header: {_why(exc)}") from None
    if any(d < 0 for d in dims):
        raise NpyHeaderError(f"malformed .npy header: negative dimension in shape {dims}")
    return NpyHeader(dims, dt, bool(fortran_order), fp.tell(), (major, minor))


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def _why(exc: BaseException) -> str:
    """A bounded one-line reason in words (NumPy quotes the whole header in some messages).

    The exception type is not named: the finding describes the file, it is no bug report.
    """
    if isinstance(exc, (MemoryError, RecursionError)):
        return "the header dict is nested too deeply"
    if isinstance(exc, EOFError):
        return "the header is cut short"
    if isinstance(exc, (SyntaxError, tokenize.TokenError)):
        return "the header dict is not a Python literal"
    text = str(exc).splitlines()[0] if str(exc) else ""
    if text.startswith("Cannot parse header"):  # NumPy quotes the header after this
        return "the header dict cannot be parsed"
    text = _ADDRESS.sub(">", text)  # ast's "<ast.Call object at 0x7f...>": not reproducible
    if len(text) > 160:
        text = text[:157] + "..."
    return text or "the header dict is invalid"


def header_bytes(dtype: np.dtype, shape: tuple[int, ...]) -> bytes:
    """The format 1.0 header NumPy 2.x writes for a C-ordered array.

    Args:
        dtype: a non-object dtype (``float64``, ``bool``...).
        shape: the array shape.

    Raises:
        ValueError: object dtype (never written), or a header over 65535 bytes.
    """
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise ValueError("object arrays are never written (pickling disabled)")
    descr = np.lib.format.dtype_to_descr(dtype)
    text = "{" + f"'descr': {descr!r}, 'fortran_order': False, 'shape': {tuple(shape)!r}, " + "}"
    if shape:
        text += " " * (_GROWTH_AXIS_MAX_DIGITS - len(repr(shape[0])))
    raw = text.encode("latin1")
    pad = _ALIGN - (len(MAGIC) + 4 + len(raw) + 1) % _ALIGN
    raw = raw + b" " * (pad % _ALIGN) + b"\n"
    if len(raw) > 0xFFFF:
        raise ValueError("header too long for .npy format 1.0")
    return MAGIC + b"\x01\x00" + len(raw).to_bytes(2, "little") + raw


