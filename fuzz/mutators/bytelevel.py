"""Format-blind byte mutations, aimed at "hot" offsets when the format says where they are.

``hot`` offsets are where the structure lives (the HDF5 superblock and
object headers, ZIP local and central headers): half of the point edits land
within a few dozen bytes after one of them, the rest anywhere.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Sequence
from typing import Any

INTERESTING: tuple[bytes, ...] = (
    b"\x00", b"\xff", b"\x7f", b"\x80", b"\x01",
    b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\xff\xff\xff\x7f", b"\x00\x00\x00\x80",
    struct.pack("<Q", 2 ** 63 - 1), struct.pack("<Q", 2 ** 64 - 1), struct.pack("<Q", 2 ** 40),
    struct.pack("<I", 65536), struct.pack("<H", 0xFFFF),
)


def signature_offsets(data: bytes, signatures: Sequence[bytes]) -> list[int]:
    """Offsets of every occurrence of each signature (at most 500 in all)."""
    out: list[int] = []
    for sig in signatures:
        start = 0
        while len(out) < 500:
            i = data.find(sig, start)
            if i < 0:
                break
            out.append(i)
            start = i + 1
    return sorted(out)


def _offset(rng: random.Random, size: int, hot: Sequence[int], reach: int) -> int:
    if hot and rng.random() < 0.5:
        return min(size - 1, rng.choice(hot) + rng.randrange(reach))
    return rng.randrange(size)


def mutate_bytes(rng: random.Random, data: bytes, *, hot: Sequence[int] = (), reach: int = 64,
                 others: Sequence[bytes] = (), n_ops: int | None = None
                 ) -> tuple[bytes, list[dict[str, Any]]]:
    """1-4 byte edits (flips, overwrites, truncation, splices, inserts, deletions).

    Returns the new bytes (always different from ``data`` when ``data`` is
    not empty) and one op description per edit.
    """
    buf = bytearray(data)
    ops: list[dict[str, Any]] = []
    for _ in range(n_ops or rng.choice([1, 1, 2, 3, 4])):
        op = _one_edit(rng, buf, hot, reach, others)
        ops.append(op)
    if bytes(buf) == data:  # e.g. a splice that copied equal bytes
        if not buf:
            buf.append(0)
        at = rng.randrange(len(buf))
        buf[at] ^= 0xFF
        ops.append({"op": "byte-invert", "at": at})
    return bytes(buf), ops


def _one_edit(rng: random.Random, buf: bytearray, hot: Sequence[int], reach: int,
              others: Sequence[bytes]) -> dict[str, Any]:
    if not buf:
        buf.extend(rng.choice(INTERESTING))
        return {"op": "byte-fill-empty"}
    kind = rng.choices(["flip", "interesting", "truncate", "splice", "insert", "delete",
                        "duplicate", "random"], weights=[30, 25, 8, 8, 8, 8, 5, 8])[0]
    size = len(buf)
    at = _offset(rng, size, hot, reach)
    if kind == "flip":
        bits = [rng.randrange(8) for _ in range(rng.choice([1, 1, 2, 8]))]
        for b in bits:
            buf[at] ^= 1 << b
        return {"op": "bit-flip", "at": at, "bits": bits}
    if kind == "interesting":
        value = rng.choice(INTERESTING)
        buf[at:at + len(value)] = value
        return {"op": "byte-overwrite", "at": at, "bytes": value.hex()}
    if kind == "truncate":
        cut = rng.choice([at, rng.randrange(size), size // 2, max(0, size - rng.randrange(1, 64))])
        del buf[cut:]
        return {"op": "truncate", "at": cut}
    if kind == "splice" and others:
        other = rng.choice(others)
        start = rng.randrange(len(other)) if other else 0
        piece = other[start:start + rng.choice([16, 256, 4096])]
        buf[at:at + len(piece)] = piece
        return {"op": "splice", "at": at, "from": start, "length": len(piece)}
    if kind == "insert":
        piece = bytes(rng.randrange(256) for _ in range(rng.choice([1, 4, 64])))
        buf[at:at] = piece
        return {"op": "insert", "at": at, "length": len(piece)}
    if kind == "delete":
        n = rng.choice([1, 4, 64, 512])
        del buf[at:at + n]
        return {"op": "delete", "at": at, "length": n}
    if kind == "duplicate":
        n = rng.choice([8, 64, 1024])
        buf[at:at] = buf[at:at + n]
        return {"op": "duplicate-range", "at": at, "length": n}
    n = rng.choice([1, 2, 8, 32])
    buf[at:at + n] = bytes(rng.randrange(256) for _ in range(n))
    return {"op": "random-bytes", "at": at, "length": n}
