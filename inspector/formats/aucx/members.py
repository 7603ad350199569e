"""One member of an archive, read only once its digest verified (``inspector dump``).

``inspector dump ARCHIVE.aucx::arrays/signal.npy`` writes the values of an
``.npy`` member (through :mod:`inspector.formats.nodes.dump`: CSV, JSON or
.npy, paged), and ``ARCHIVE.aucx::experiment.json`` the text of a JSON
member (or of ``checksums.sha256``).  Nothing is shown that was not
verified first (AUCX 1.0 format document, "Checksums": every digest is
verified before the bytes are used): the member is streamed, its SHA-256
compared with the digest ``checksums.sha256`` records for it, and its ZIP
checks (CRC-32, sizes) must hold; ``checksums.sha256`` itself has no digest
and only has to inflate cleanly.  A refusal is a
:class:`~inspector.formats.nodes.data.NodeReadError` whose finding names the
rule broken.  The array values are then read lazily from the same snapshot
of the file (:mod:`inspector.formats.sources.file_identity`: a file replaced since
is refused, never mixed).
"""

from __future__ import annotations

import functools
import hashlib

from inspector.formats.aucx import layout as L
from inspector.formats.aucx import rules as R
from inspector.formats.aucx.arrayrefs import NpyMemberRef
from inspector.formats.aucx.npyfmt import MAX_HEADER_BYTES, NpyHeaderError, parse_header
from inspector.formats.aucx.state import DUPLICATE, OpenedArchive
from inspector.formats.aucx.stream import MemberStream, read_member
from inspector.formats.aucx.zipscan import ZipEntry
from inspector.formats.capabilities import ArchiveMembers, MemberContent, StoredMember
from inspector.formats.core_rules import NODE_NOT_FOUND
from inspector.formats.findings import Finding, Rule
from inspector.formats.nodes.array_node import ArrayNode
from inspector.formats.nodes.data import NodeReadError, StorageInfo
from inspector.formats.sources.file_identity import FILE_CHANGED, FileChangedError

__all__ = ["TEXT_LIMIT", "archive_members", "member_content", "stored_member"]

#: Largest JSON member (or checksum list) written as text, in bytes.
TEXT_LIMIT = 64 << 20


def archive_members(opened: OpenedArchive) -> ArchiveMembers:
    """The :class:`ArchiveMembers` capability of an opened archive."""
    return ArchiveMembers(tuple(opened.scan.names), functools.partial(member_content, opened),
                          functools.partial(stored_member, opened))


def stored_member(opened: OpenedArchive, name: str) -> StoredMember | None:
    """How member ``name`` is stored, with readers of its stored bytes and of its
    inflated digest (nothing verified), or None when it is absent, occurs more than
    once, failed a ZIP safety check or its local header could not be read."""
    entry = opened.scan.first(name)
    if entry is None or entry.duplicate or not entry.safe or entry.data_offset is None:
        return None
    return StoredMember(name, entry.method, entry.compressed_size, entry.file_size, entry.crc,
                        functools.partial(_read_stored, opened, entry),
                        functools.partial(_content_digest, opened, entry))


def _read_stored(opened: OpenedArchive, entry: ZipEntry, offset: int, size: int) -> bytes:
    """Up to ``size`` stored bytes of ``entry`` from ``offset`` within its data.

    Raises:
        OSError: the archive cannot be read, or was replaced since it was opened.
    """
    assert entry.data_offset is not None
    size = max(0, min(size, entry.compressed_size - offset))
    with opened.path.open("rb") as fh:
        fh.seek(entry.data_offset + offset)
        return fh.read(size)


def _content_digest(opened: OpenedArchive, entry: ZipEntry) -> tuple[str, str | None]:
    """The SHA-256 of the inflated member and its ZIP problem (a sentence), or None.

    Raises:
        OSError: the archive cannot be read, or was replaced since it was opened.
    """
    stream = MemberStream(opened.path, entry)
    digest = hashlib.sha256()
    for block in stream:
        digest.update(block)
    problem = stream.result.problem
    return digest.hexdigest(), problem.message if problem is not None else None


def _refuse(rule: Rule, message: str, name: str) -> NodeReadError:
    return NodeReadError(rule.finding(message, name))


def member_content(opened: OpenedArchive, name: str) -> MemberContent:
    """The text or the values of member ``name``, once its digest verified.

    Raises:
        NodeReadError: the member is absent, unsafe, of no kind shown (neither
            ``.npy`` nor JSON), not listed or listed twice, its digest or ZIP
            checks fail, an ``.npy`` member's data is not the size its header
            announces, it cannot be read, or the file changed since it was
            opened; the finding says which.
    """
    entry = opened.scan.first(name)
    if entry is None:
        shown = ", ".join(opened.scan.names[:12])
        raise _refuse(NODE_NOT_FOUND, f"{name} names no member of the archive (its members: "
                      f"{shown})", name)
    if not entry.safe:
        raise _refuse(R.ZIP_REFUSED, f"{name} failed a ZIP safety check and is never "
                      "decompressed", name)
    if name.endswith(".npy"):
        _check(opened, name, *_streamed_digest(opened, entry))
        return MemberContent(name, node=_npy_node(opened, entry))
    if name.endswith(".json") or name == L.CHECKSUMS:
        return MemberContent(name, text=_text(opened, entry))
    raise _refuse(NODE_NOT_FOUND, f"{name} is neither an .npy array nor a JSON member: "
                  "inspector dump shows only those", name)


def _unreadable(exc: OSError, name: str) -> NodeReadError:
    if isinstance(exc, FileChangedError):
        return _refuse(FILE_CHANGED, str(exc), name)
    return _refuse(R.MEMBER_UNREADABLE, f"{name} could not be read: "
                   f"{exc.strerror or exc}", name)


def _streamed_digest(opened: OpenedArchive, entry: ZipEntry) -> tuple[str, Finding | None]:
    """The SHA-256 of the whole member and its ZIP problem (CRC, sizes), streamed."""
    stream = MemberStream(opened.path, entry)
    digest = hashlib.sha256()
    try:
        for block in stream:
            digest.update(block)
    except OSError as exc:
        raise _unreadable(exc, entry.name) from exc
    return digest.hexdigest(), stream.result.problem


def _check(opened: OpenedArchive, name: str, computed: str, problem: Finding | None) -> None:
    """Refuse unless the member's bytes verify (its ZIP checks and recorded digest)."""
    if problem is not None:
        raise NodeReadError(problem)
    if name == L.CHECKSUMS:
        return  # it records no digest of itself: it verifies when it inflates cleanly
    recorded = opened.listed.get(name)
    if recorded is None:
        why = (f"the archive has no {L.CHECKSUMS}" if not opened.checksum_present
               else f"{L.CHECKSUMS} does not list it (or its line is malformed)")
        raise _refuse(R.CHECKSUMS_UNLISTED, f"{name} cannot be verified: {why}; its bytes "
                      "are not shown", name)
    if opened.line_status.get(name) == DUPLICATE:
        raise _refuse(R.CHECKSUMS_DUPLICATE_ENTRY, f"{L.CHECKSUMS} lists {name} on more "
                      "than one line: its digest is ambiguous and its bytes are not shown",
                      name)
    if computed != recorded:
        raise _refuse(R.CHECKSUMS_MISMATCH, f"checksum mismatch (recorded {recorded}, "
                      f"computed {computed}); the member changed after {L.CHECKSUMS} was "
                      "written, and its bytes are not shown", name)


def _text(opened: OpenedArchive, entry: ZipEntry) -> str:
    """The verified text of a JSON member or of the checksum list (UTF-8; bytes that
    are not are shown as ``\\xNN``)."""
    try:
        data, why = read_member(opened.path, entry, TEXT_LIMIT)
    except OSError as exc:
        raise _unreadable(exc, entry.name) from exc
    if data is None:
        rule = R.MEMBER_TOO_LARGE if entry.file_size > TEXT_LIMIT else R.MEMBER_UNREADABLE
        raise _refuse(rule, f"{entry.name} is not shown: it {why}", entry.name)
    _check(opened, entry.name, hashlib.sha256(data).hexdigest(), None)
    return data.decode("utf-8", errors="backslashreplace")


def _npy_node(opened: OpenedArchive, entry: ZipEntry) -> ArrayNode:
    """The verified ``.npy`` member as a node (values read lazily, from the same file)."""
    stream = MemberStream(opened.path, entry, limit=MAX_HEADER_BYTES + 16, crc=False)
    try:
        header = parse_header(b"".join(stream))
        if header.data_offset + header.nbytes != entry.file_size:
            raise _refuse(R.ARRAY_SIZE_MISMATCH,
                          f"{entry.name}'s header announces {header.nbytes:,} data bytes but "
                          f"the member holds {entry.file_size - header.data_offset:,}: its "
                          "values are not shown", entry.name)
        ref = NpyMemberRef(entry.name.rsplit("/", 1)[-1].removesuffix(".npy"), opened.path,
                           entry, header)
        return ArrayNode(ref, entry.name, StorageInfo(layout=ref.storage))
    except OSError as exc:
        raise _unreadable(exc, entry.name) from exc
    except (NpyHeaderError, ValueError) as exc:
        raise _refuse(R.ARRAY_UNREADABLE, f"{entry.name} is not an array inspector dump "
                      f"writes: {exc}", entry.name) from exc
