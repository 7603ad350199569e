"""Seekable read-only file objects over range requests, with block caches.

One :class:`RemoteResource` per URL (``http://``, ``https://``, ``s3://``)
holds a transport (:mod:`.remote_transport`), the validator of the first
answer (size, ETag, Last-Modified) and an in-memory block cache;
:meth:`RemoteResource.open` gives any number of independent
:class:`RangeFile` handles (``read``, ``readinto``, ``seek``, ``tell``) over
it, so h5py, the AUCX ZIP scanner and the streamed checksum verification all
read through the same cache.

Blocks: the object is cut into blocks of ``min_block`` bytes (100 KiB); a
read fetches the missing blocks it touches in one range request.  A handle
reading sequentially doubles its read-ahead on every request up to
``max_block`` (4 MiB), as remfile does, so streaming a 500 MB member costs
about 125 requests and each byte is fetched once; a jump resets it.  The
memory cache keeps ``memory_cap`` bytes, least recently used out first.
The optional disk cache (:class:`DiskCache`, in the user's cache folder)
keeps blocks across runs, keyed by URL and validator, size-capped, least
recently used out first.

Each request has an overall deadline (``request_deadline``) and the requests of
one resource share another (``document_deadline``, the sum of their durations):
past it every later read fails with ``remote.document-deadline``.

Faults are :class:`~.remote_transport.RemoteError` (an ``OSError``) carrying
a rule of :mod:`.remote_rules`; readers treat them as unreadable bytes, and
:attr:`RemoteResource.faults` keeps the first of each kind so that the
registry reports them as findings (docs/architecture.md, "Remote sources").

Nothing here imports Qt.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.formats.findings import Finding
from inspector.formats.remote import rules as R
from inspector.formats.remote.options import RemoteOptions, default_cache_folder
from inspector.formats.remote.transport import (
    Answer,
    RemoteError,
    Transport,
    Validator,
    make_transport,
)

__all__ = ["DiskCache", "RangeFile", "RemoteError", "RemoteOptions", "RemoteResource",
           "default_cache_folder"]

@dataclass(frozen=True)
class ProbeInfo:
    """What the first answer told: ``size`` in bytes, ``mtime`` in seconds since the epoch
    (0 when unknown) and the validator every later answer must match."""

    size: int
    mtime: float
    validator: Validator


@dataclass
class Counters:
    """Requests made, bytes received and seconds spent in requests for one resource (read
    by benchmarks and progress; ``seconds`` by the document deadline)."""

    requests: int = 0
    bytes: int = 0
    seconds: float = 0.0


class DiskCache:
    """Blocks on disk under ``folder``, at most ``cap`` bytes, least recently used out first.

    A block's file name is the SHA-256 of (URL, validator, block size) and
    its index, so a changed object never reads an old block.  Writes go
    through a temporary renamed into place; every I/O error is ignored (the
    cache is an optimisation, never a source of findings).
    """

    def __init__(self, folder: Path, cap: int) -> None:
        self.folder = Path(folder)
        self.cap = cap
        self._lock = threading.Lock()
        self._total: int | None = None

    def _file(self, key: str, index: int) -> Path:
        return self.folder / key[:2] / f"{key}-{index}"

    def get(self, key: str, index: int) -> bytes | None:
        """The stored block, or None (and its use time is refreshed)."""
        path = self._file(key, index)
        try:
            data = path.read_bytes()
            os.utime(path)
        except OSError:
            return None
        return data

    def put(self, key: str, index: int, data: bytes) -> None:
        """Store one block, then evict the least recently used beyond :attr:`cap`."""
        path = self._file(key, index)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError:
            return
        with self._lock:
            if self._total is None:
                self._total = sum(size for _, size, _ in self._entries())
            else:
                self._total += len(data)
            if self._total > self.cap:
                self._total = self._evict()

    def _entries(self) -> list[tuple[float, int, Path]]:
        out = []
        for path in self.folder.glob("*/*"):
            try:
                st = path.stat()
            except OSError:
                continue
            out.append((st.st_mtime, st.st_size, path))
        return out

    def _evict(self) -> int:
        """Remove the oldest blocks until at most 90 % of the cap is used; the new total."""
        entries = sorted(self._entries(), key=lambda e: e[0])
        total = sum(size for _, size, _ in entries)
        for _, size, path in entries:
            if total <= self.cap * 0.9:
                break
            try:
                path.unlink()
                total -= size
            except OSError:
                continue
        return total


@dataclass
class _Blocks:
    """The in-memory LRU of blocks (index -> bytes), guarded by the resource's lock."""

    cap: int
    data: OrderedDict[int, bytes] = field(default_factory=OrderedDict)
    total: int = 0

    def get(self, index: int) -> bytes | None:
        block = self.data.get(index)
        if block is not None:
            self.data.move_to_end(index)
        return block

    def put(self, index: int, block: bytes) -> None:
        old = self.data.pop(index, None)
        self.total += len(block) - (len(old) if old is not None else 0)
        self.data[index] = block
        while self.total > self.cap and len(self.data) > 1:
            _, dropped = self.data.popitem(last=False)
            self.total -= len(dropped)


class RemoteResource:
    """One remote object: transport, validator, counters, faults and the block caches.

    Args:
        url: ``http(s)://host/path`` or ``s3://bucket/key``.
        options: :class:`RemoteOptions` (defaults from the environment when None).

    Thread-safe: handles on several threads share the caches under one lock;
    fetches run outside it.
    """

    def __init__(self, url: str, options: RemoteOptions | None = None) -> None:
        self.url = url
        self.options = options or RemoteOptions.from_environment()
        self.block = self.options.min_block
        self.counters = Counters()
        self.faults: list[RemoteError] = []
        self._lock = threading.Lock()
        self._probe_lock = threading.Lock()
        self._info: ProbeInfo | None = None
        self._cancelled = threading.Event()
        self._blocks = _Blocks(self.options.memory_cap)
        folder = self.options.disk_cache
        self._disk = DiskCache(folder, self.options.disk_cap) if folder is not None else None
        self._disk_key = ""
        self._transport: Transport = make_transport(url, self.options)

    # -- faults ----------------------------------------------------------
    def _fault(self, exc: RemoteError) -> RemoteError:
        """Keep a copy of ``exc`` (no traceback: the raised one collects the frames of
        the reader it passes through, and h5py's would then outlive the interpreter)."""
        with self._lock:
            if all(f.rule is not exc.rule for f in self.faults):
                self.faults.append(RemoteError(exc.rule, exc.message))
        return exc

    def findings(self) -> list[Finding]:
        """The first fault of each kind as a finding (in the order they happened)."""
        with self._lock:
            return [f.rule.finding(f.message) for f in self.faults]

    def cancel(self) -> None:
        """Make every later read fail with ``remote.cancelled`` (closing a loading tab)."""
        self._cancelled.set()

    # -- first answer ----------------------------------------------------
    def probe(self) -> ProbeInfo:
        """Size and validator from the first range request (its bytes are cached).

        Raises:
            RemoteError: 404, 403, timeout, no range support, redirect loop, ...
        """
        with self._probe_lock:
            if self._info is not None:
                return self._info
            try:
                answer = self._timed_fetch(0, self.block, None)
            except RemoteError as exc:
                raise self._fault(exc) from None
            self._count(answer)
            info = ProbeInfo(answer.size, answer.validator.mtime(), answer.validator)
            key = f"{self.url}\0{info.validator.key()}\0{self.block}"
            self._disk_key = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
            self._info = info
            if answer.data:
                self._store(0, answer.data)
            return info

    def _timed_fetch(self, start: int, end: int, expect: Validator | None) -> Answer:
        """One request, within what is left of the document's deadline (the sum of the
        durations of its requests, ``options.document_deadline``) and the request deadline.

        Raises:
            RemoteError: the fetch's fault, or ``remote.document-deadline``.
        """
        with self._lock:
            left = self.options.document_deadline - self.counters.seconds
        spent = R.DOCUMENT_DEADLINE
        past = RemoteError(spent, f"the requests for {self.url} took more than the "
                           f"{self.options.document_deadline:g} s allowed for one document; "
                           "nothing more is read (reopen it to try again)")
        if left <= 0:
            raise past
        began = time.monotonic()
        try:
            return self._transport.fetch(start, end, expect, left)
        except RemoteError as exc:
            if exc.rule is R.REQUEST_DEADLINE and left < self.options.request_deadline:
                raise past from None
            raise
        finally:
            with self._lock:
                self.counters.seconds += time.monotonic() - began

    def _count(self, answer: Answer) -> None:
        with self._lock:
            self.counters.requests += answer.requests
            self.counters.bytes += len(answer.data)

    # -- blocks ----------------------------------------------------------
    def _store(self, first: int, data: bytes) -> None:
        """Cut ``data`` (starting at block ``first``) into blocks and keep them."""
        b = self.block
        with self._lock:
            for i in range(0, len(data), b):
                self._blocks.put(first + i // b, data[i : i + b])
        if self._disk is not None:
            for i in range(0, len(data), b):
                self._disk.put(self._disk_key, first + i // b, data[i : i + b])

    def _cached(self, index: int) -> bytes | None:
        with self._lock:
            block = self._blocks.get(index)
        if block is None and self._disk is not None:
            block = self._disk.get(self._disk_key, index)
            if block is not None:
                with self._lock:
                    self._blocks.put(index, block)
        return block

    def fetch_blocks(self, first: int, last: int) -> bytes:
        """Fetch blocks ``first..last`` (inclusive) in one request, keep and return them.

        Raises:
            RemoteError: the request failed, or the object changed.
        """
        info = self.probe()
        if self._cancelled.is_set():
            raise self._fault(RemoteError(R.CANCELLED, f"reading {self.url} was cancelled"))
        start, end = first * self.block, min(info.size, (last + 1) * self.block)
        if start >= end:
            return b""
        try:
            answer = self._timed_fetch(start, end, info.validator)
        except RemoteError as exc:
            raise self._fault(exc) from None
        self._count(answer)
        self._store(first, answer.data)
        return answer.data

    def read(self, pos: int, size: int, ahead: int) -> tuple[bytes, int]:
        """Bytes ``[pos, pos + size)`` (fewer at the end), fetching what is missing.

        ``ahead`` is how many blocks past the last needed one the caller
        wants fetched with them (its read-ahead).  Returns the bytes and the
        number of blocks fetched by this call (0 when all were cached).

        Raises:
            RemoteError: a fetch failed.
        """
        info = self.probe()
        end = min(info.size, pos + size)
        if pos >= end:
            return b"", 0
        b, nblocks = self.block, -(-info.size // self.block)
        first, last = pos // b, (end - 1) // b
        parts: list[bytes] = []
        fetched = 0
        i = first
        while i <= last:
            block = self._cached(i)
            if block is None:
                j = i
                while j + 1 <= min(last + ahead, nblocks - 1) and self._cached(j + 1) is None:
                    j += 1
                got = self.fetch_blocks(i, j)
                fetched += j - i + 1
                wanted = got[: (min(j, last) - i + 1) * b]  # the needed blocks among them
                parts.append(wanted)
                i += max(1, -(-len(wanted) // b))
                continue
            parts.append(block)
            i += 1
        data = b"".join(parts)
        lo = pos - first * b
        return data[lo : lo + (end - pos)], fetched

    def open(self) -> RangeFile:
        """A new handle at offset 0 (probes the object first).

        Raises:
            RemoteError: the object cannot be reached.
        """
        self.probe()
        return RangeFile(self)

    def fetch_whole(self) -> bytes:
        """The whole object, when at most ``whole_cap`` bytes.

        Raises:
            RemoteError: ``remote.too-large``, or a fetch failed.
        """
        info = self.probe()
        cap = self.options.whole_cap
        if info.size > cap:
            raise self._fault(RemoteError(
                R.TOO_LARGE, f"{self.url} holds {info.size} bytes, more than the {cap} bytes "
                "read whole over the network"))
        with self.open() as fh:
            return fh.read()


class RangeFile(io.RawIOBase):
    """A seekable, read-only file object over a :class:`RemoteResource`.

    Each handle keeps its position and its read-ahead (in blocks): doubled
    on each fetch that continues where the last read ended, up to
    ``max_block``; reset to none after a jump.
    """

    def __init__(self, resource: RemoteResource) -> None:
        super().__init__()
        self.resource = resource
        self.size = resource.probe().size
        self._pos = 0
        self._ahead = 0
        self._next = -1
        self._max_ahead = max(0, resource.options.max_block // resource.block - 1)

    def readable(self) -> bool:
        """True."""
        return True

    def seekable(self) -> bool:
        """True."""
        return True

    def writable(self) -> bool:
        """False: remote files are never written."""
        return False

    def tell(self) -> int:
        """The current offset in bytes."""
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move to ``offset`` (from the start, the current offset or the end); no request.

        Raises:
            OSError: a negative position.  ValueError: an unknown ``whence``.
        """
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self.size + offset
        else:
            raise ValueError(f"invalid whence {whence}")
        if pos < 0:
            raise OSError(22, "negative seek position")
        self._pos = pos
        return pos

    def readinto(self, buffer: Any) -> int:
        """Read into a writable buffer; the number of bytes read (see :meth:`read`)."""
        view = memoryview(buffer).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes from the current position (all the rest for -1).

        Raises:
            RemoteError: a fetch failed (an ``OSError``).
        """
        if self.closed:
            raise ValueError("read of a closed file")
        n = self.size - self._pos if size is None or size < 0 else size
        if n <= 0 or self._pos >= self.size:
            return b""
        sequential = self._pos == self._next
        ahead = self._ahead if sequential else 0
        data, fetched = self.resource.read(self._pos, n, ahead)
        if fetched:
            self._ahead = min(self._max_ahead, max(1, 2 * self._ahead + 1)) if sequential else 0
        self._pos += len(data)
        self._next = self._pos
        return data

    def readall(self) -> bytes:
        """Everything from the current offset to the end."""
        return self.read(-1)

    @property
    def name(self) -> str:
        """The URL (h5py and zipfile show it in their messages)."""
        return self.resource.url
