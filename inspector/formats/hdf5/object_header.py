"""An HDF5 object header read from the file's bytes: its messages (version 1 and 2, with
continuation blocks), its attributes' bodies, and the datatypes they declare.

Read with the file's own offsets and lengths, never through HDF5, so that a header
HDF5 would mis-read (a datatype that does not fit its message, a continuation that
loops) is found before HDF5 is asked for the object (:mod:`.heap`)."""

from __future__ import annotations

import struct
from typing import Any, Protocol

import h5py


class HeaderSource(Protocol):
    """What reads object headers: the file's bytes and its address and length sizes
    (:class:`~inspector.formats.hdf5.heap.HeapGuard`)."""

    @property
    def layout(self) -> Any: ...

    def _read(self, offset: int, length: int) -> bytes: ...


#: Object-header chunks followed per object (continuation messages).
MAX_HEADER_CHUNKS = 64


#: Bytes of one object-header chunk read.
MAX_CHUNK_BYTES = 1 << 20


_CONTINUATION_MSG = 0x0010


# -- object headers ---------------------------------------------------------------------
def header_messages(guard: HeaderSource, start: int) -> list[tuple[int, bytes]]:
    """The (type, body) messages of the object header at byte ``start`` (bounded)."""
    first = guard._read(start, 16)
    if first[:4] == b"OHDR":
        return _v2_messages(guard, start)
    if first[:1] == b"\x01":
        return _v1_messages(guard, start, first)
    return []


def _v1_messages(guard: HeaderSource, start: int, first: bytes) -> list[tuple[int, bytes]]:
    if len(first) < 16:
        return []
    size = struct.unpack_from("<I", first, 8)[0]
    chunks = [(start + 16, min(size, MAX_CHUNK_BYTES))]
    out: list[tuple[int, bytes]] = []
    while chunks and len(out) < 1 << 16:
        offset, length = chunks.pop(0)
        data = guard._read(offset, length)
        pos = 0
        while pos + 8 <= len(data):
            mtype, msize = struct.unpack_from("<HH", data, pos)
            body = data[pos + 8:pos + 8 + msize]
            out.append((mtype, body))
            _follow(guard, mtype, body, chunks, v2=False)
            pos += 8 + ((msize + 7) & ~7)
    return out


def _v2_messages(guard: HeaderSource, start: int) -> list[tuple[int, bytes]]:
    head = guard._read(start, 64)
    if len(head) < 7:
        return []
    flags = head[5]
    pos = 6 + (16 if flags & 0x20 else 0) + (4 if flags & 0x10 else 0)
    width = 1 << (flags & 0x03)
    size = int.from_bytes(head[pos:pos + width], "little")
    chunks = [(start + pos + width, min(size, MAX_CHUNK_BYTES))]
    out: list[tuple[int, bytes]] = []
    while chunks and len(out) < 1 << 16:
        offset, length = chunks.pop(0)
        data = guard._read(offset, length)
        _v2_chunk(guard, data, flags, out, chunks)
    return out


def _v2_chunk(guard: HeaderSource, data: bytes, flags: int, out: list[tuple[int, bytes]],
              chunks: list[tuple[int, int]]) -> None:
    order = 2 if flags & 0x04 else 0
    pos = 0
    while pos + 4 + order <= len(data):
        mtype = data[pos]
        msize = int.from_bytes(data[pos + 1:pos + 3], "little")
        body = data[pos + 4 + order:pos + 4 + order + msize]
        out.append((mtype, body))
        _follow(guard, mtype, body, chunks, v2=True)
        pos += 4 + order + msize


def _follow(guard: HeaderSource, mtype: int, body: bytes, chunks: list[tuple[int, int]],
            v2: bool) -> None:
    """Queue the chunk a continuation message names (v2 chunks: past ``OCHK``, before
    the checksum)."""
    lay = guard.layout
    if mtype != _CONTINUATION_MSG or len(body) < lay.sizeof_addr + lay.sizeof_size:
        return
    if len(chunks) >= MAX_HEADER_CHUNKS:
        return
    offset = int.from_bytes(body[:lay.sizeof_addr], "little") + lay.base
    length = int.from_bytes(body[lay.sizeof_addr:lay.sizeof_addr + lay.sizeof_size], "little")
    if v2:
        offset, length = offset + 4, length - 8
    chunks.append((offset, min(max(length, 0), MAX_CHUNK_BYTES)))


def attribute_body(body: bytes) -> tuple[bytes | None, bytes | None, bytes]:
    """(name, datatype, data part) of an attribute message (versions 1 to 3); name None
    if unparsed, datatype None when it is a shared (committed) one (HDF5 File Format
    Specification 3.0, IV.A.2.m "Attribute Message")."""
    if len(body) < 8:
        return None, None, b""
    version = body[0]
    name_size, dt_size, ds_size = struct.unpack_from("<HHH", body, 2)
    if version == 1:
        pad = [(s + 7) & ~7 for s in (name_size, dt_size, ds_size)]
        pos = 8
    elif version in (2, 3):
        pad = [name_size, dt_size, ds_size]
        pos = 8 if version == 2 else 9
    else:
        return None, None, b""
    at = pos + pad[0]
    dtype = None if version > 1 and body[1] & 0x01 else body[at:at + dt_size]
    return body[pos:pos + name_size].rstrip(b"\x00"), dtype, body[pos + sum(pad):]


# -- datatypes ---------------------------------------------------------------------------
#: Nesting of datatypes followed (a compound of arrays of variable-length sequences...).
MAX_DATATYPE_DEPTH = 32


_VLEN_KINDS = {0: "sequence", 1: "string"}


def datatype_problem(raw: bytes) -> str | None:
    """What in the datatype message ``raw`` would crash HDF5, or None.

    A variable-length datatype's type field (class bit field bits 0-3) says a
    sequence (0) or a string (1); other values are reserved (HDF5 File Format
    Specification 3.0, IV.A.2.d "Datatype Message", class 9).  HDF5 2.0.0
    decodes such a datatype without complaint and then dereferences what it
    never set up when converting a value: a segmentation fault.  The walk
    follows the base types of variable-length, array and enumeration types and
    the members of compound ones, bounded by ``raw``'s bytes and by
    :data:`MAX_DATATYPE_DEPTH`; what it cannot parse is left to HDF5.
    """
    try:
        return _type_at(raw, 0, 0)[1]
    except (IndexError, ValueError, struct.error):
        return None


def _type_at(raw: bytes, pos: int, depth: int) -> tuple[int, str | None]:
    """(offset past the datatype at ``pos``, its first problem)."""
    if depth > MAX_DATATYPE_DEPTH or pos + 8 > len(raw):
        raise ValueError("datatype not parsed")
    cls, version = raw[pos] & 0x0F, raw[pos] >> 4
    flags = int.from_bytes(raw[pos + 1:pos + 4], "little")
    size = int.from_bytes(raw[pos + 4:pos + 8], "little")
    body = pos + 8
    fixed = {0: 4, 1: 12, 2: 2, 3: 0, 4: 4, 7: 0}
    if cls in fixed:
        return body + fixed[cls], None
    if cls == 5:
        return body + (flags & 0xFF), None
    if cls == 9:
        kind = flags & 0x0F
        if kind not in _VLEN_KINDS:
            return body, (f"is variable-length of type {kind} (only 0, a sequence, and 1, a "
                          "string, are defined)")
        return _type_at(raw, body, depth + 1)
    if cls == 10:
        ndims = raw[body]
        start = body + (4 if version < 3 else 1) + 4 * ndims * (2 if version < 3 else 1)
        return _type_at(raw, start, depth + 1)
    if cls == 8:  # the base type, then names and values (not needed here)
        return _type_at(raw, body, depth + 1)
    if cls == 6:
        return _compound_at(raw, body, version, flags & 0xFFFF, size, depth)
    raise ValueError("unknown datatype class")


def _compound_at(raw: bytes, pos: int, version: int, members: int, size: int,
                 depth: int) -> tuple[int, str | None]:
    """Walk the members of a compound datatype (their layout per version)."""
    offset_bytes = 1 if size < 1 << 8 else 2 if size < 1 << 16 else 3 if size < 1 << 24 else 4
    for _ in range(members):
        end = raw.index(b"\x00", pos)
        pos = end + 1 if version >= 3 else pos + ((end - pos + 8) & ~7)
        pos += offset_bytes if version >= 3 else 4 + (28 if version == 1 else 0)
        pos, problem = _type_at(raw, pos, depth + 1)
        if problem is not None:
            return pos, problem
    return pos, None


def object_identity(obj: Any) -> tuple[tuple[int, ...], int] | None:
    """``(file number, object header address)`` of an open h5py object, or None.

    Asked with ``H5Gget_objinfo``, which reads the object header only: the
    fuller ``H5Oget_info`` also counts the object's attributes and sizes its
    attribute storage, and fails on a damaged fractal heap or free-space
    manager of dense attribute storage (HDF5 File Format Specification 3.0,
    III.G and III.H) although the object itself is sound.  The address is
    relative to the superblock's base, as in the file's own addresses.
    """
    try:
        stat = h5py.h5g.get_objinfo(obj.id)
        return tuple(int(n) for n in stat.fileno), int(stat.objno[0])
    except (AttributeError, OSError, RuntimeError, TypeError, ValueError):
        return None


def object_address(obj: Any) -> int | None:
    """The object header address of ``obj`` (see :func:`object_identity`), or None."""
    identity = object_identity(obj)
    return None if identity is None else identity[1]
