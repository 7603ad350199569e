"""The decoder a benchmark's figures were produced with: every benchmark prints it.

Not a benchmark: the scripts import :func:`decoder` and print its text as ``decoder``
beside their figures, e.g. ``chunks: libdeflate (deflate 0.9.0); streams: ISA-L (isal
1.9.1)`` (:data:`inspector.formats.decoding.inflate.DECODER`).
"""

from __future__ import annotations


def decoder() -> str:
    """The inflater in use by the measured code (``DECODER``)."""
    try:
        from inspector.formats.decoding.inflate import DECODER
    except ImportError:  # a tree from before the one decoder
        return "unknown (no inspector.formats.decoding.inflate)"
    return DECODER
