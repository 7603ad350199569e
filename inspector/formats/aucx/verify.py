"""Deferred streaming verification of an opened AUCX archive (issue 4 item 3).

``doc.verifier(progress, cancelled)`` streams every present, safe member
through SHA-256 (and CRC-32) while inflating, in fixed-size blocks, on up to
:data:`WORKERS` threads (``zlib`` and ``hashlib`` release the GIL).  Array
members also feed an :class:`~.contentcheck.ArrayScan` so the mask and
finiteness rules are checked without holding any array.

Statuses (``MemberCheck.status``): ``ok``, ``mismatch``, ``missing-member``,
``unlisted``, ``malformed-entry``, ``duplicate-entry``, ``refused`` (failed
a ZIP safety check, never decompressed) and ``cancelled``; a member that
cannot be read at all (file changed under us) is ``mismatch`` with a
``member.unreadable`` finding.  The checksum
file itself has no recorded digest; it is ``ok`` when it inflates cleanly.
``progress(done, total, member_check)`` is called after each member from the
calling thread (for archives of more than :data:`PROGRESS_EACH` members: after
every ``total // PROGRESS_CALLS``-th member and the last, so a consumer doing
O(members) work per call stays linear; every row is final in ``doc.members``
when the verifier returns); when ``cancelled()`` returns True the remaining members become
``cancelled``, a warning ``verify.cancelled`` is added and ``doc.verified``
stays False.  Only a complete run sets ``doc.verified = True`` (seed
"Checksums": nothing is reported verified before verification succeeds).
"""

from __future__ import annotations

import hashlib
import queue
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace

import numpy as np

from inspector.formats.aucx import layout as L
from inspector.formats.aucx.contentcheck import ArrayScan, cross_check
from inspector.formats.aucx.stream import MemberStream
from inspector.formats.capabilities import CheckResult, ChecksumTable
from inspector.formats.document import CancelFn, Document, MemberCheck, ProgressFn

WORKERS = 2
#: Batches submitted to the pool at once (bounded queue of work).
IN_FLIGHT = 2 * WORKERS
#: Up to this many members, progress is reported after every member ...
PROGRESS_EACH = 1000
#: ... above it, about this many times in all.
PROGRESS_CALLS = 200
#: Small members are hashed in batches of at most this many members ...
BATCH_MEMBERS = 512
#: ... or this many declared bytes (a larger member is a batch of its own).
BATCH_BYTES = 1 << 20
_POLL_S = 0.05


class _Cancelled(Exception):
    pass


@dataclass
class _Outcome:
    digest: str
    problem: tuple[str, str] | None
    scan: ArrayScan | None


def _hash_member(st, name: str, scan: ArrayScan | None, stop: threading.Event) -> _Outcome:
    """Hash one member, pipelining inflation and hashing on two threads."""
    entry = st.scan.first(name)
    stream = MemberStream(st.path, entry)
    h = hashlib.sha256()
    if entry.file_size < (8 << 20):
        for block in stream:
            if stop.is_set():
                raise _Cancelled
            h.update(block)
            if scan is not None:
                scan.feed(block)
    else:
        q: queue.Queue = queue.Queue(maxsize=2)
        err: list[BaseException] = []

        def consume() -> None:
            try:
                while True:
                    block = q.get()
                    if block is None:
                        return
                    h.update(block)
                    if scan is not None:
                        scan.feed(block)
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                err.append(exc)
                while q.get() is not None:
                    pass

        t = threading.Thread(target=consume, daemon=True)
        t.start()
        try:
            for block in stream:
                if stop.is_set():
                    raise _Cancelled
                q.put(block)
        finally:
            q.put(None)
            t.join()
        if err:
            raise err[0]
    if scan is not None:
        scan.finish()
    return _Outcome(h.hexdigest(), stream.result.problem, scan)


def _hash_batch(st, names: list[str], scans: dict[str, ArrayScan],
                stop: threading.Event) -> list[_Outcome | BaseException]:
    """Hash several members in turn; a member that cannot be read gives its
    exception in place of an outcome.  Raises ``_Cancelled`` when stopped."""
    out: list[_Outcome | BaseException] = []
    for name in names:
        if stop.is_set():
            raise _Cancelled
        try:
            out.append(_hash_member(st, name, scans.get(name), stop))
        except (OSError, ValueError, MemoryError) as exc:
            out.append(exc)
    return out


def _batches(st, work: list[MemberCheck]):
    """``work`` (largest first) cut into batches of at most BATCH_MEMBERS
    members and, unless a single member is larger, BATCH_BYTES bytes."""
    batch: list[MemberCheck] = []
    size = 0
    for row in work:
        n = st.scan.first(row.name).file_size
        if batch and (size + n > BATCH_BYTES or len(batch) >= BATCH_MEMBERS):
            yield batch
            batch, size = [], 0
        batch.append(row)
        size += n
    if batch:
        yield batch


def _status(st, name: str, computed: str | None) -> str:
    e = st.scan.first(name)
    if e is None:
        return "missing-member"
    if not e.safe:
        return "refused"
    if e.duplicate:
        return "duplicate-entry"
    if name == L.CHECKSUMS:
        return "ok"
    line = st.line_status.get(name)
    if line is None:
        return "unlisted"
    if line in ("malformed-entry", "duplicate-entry"):
        return line
    return "ok" if computed == st.listed.get(name) else "mismatch"


class ArchiveVerification:
    """The deferred streamed verification of one opened archive."""

    title = "Verifying checksums"

    def __init__(self, doc: Document, state) -> None:
        self._doc = doc
        self._state = state

    def run(self, progress: ProgressFn | None = None,
            cancelled: CancelFn | None = None) -> CheckResult:
        """Stream every member (see the module docstring)."""
        complete = run_verification(self._doc, self._state, progress, cancelled)
        return CheckResult(complete=complete)


def run_verification(doc: Document, st, progress: ProgressFn | None = None,
                     cancelled: CancelFn | None = None) -> bool:
    """Stream, hash and check every member of ``doc`` (see module docstring).

    Findings repeated for many members are capped per code
    (:func:`.findingcap.cap_repeated`).
    """
    if st.verify_findings:
        stale = {id(f) for f in st.verify_findings}
        doc.findings[:] = [f for f in doc.findings if id(f) not in stale]
    st.verify_findings.clear()
    start = len(doc.findings)
    try:
        return _run(doc, st, progress, cancelled)
    finally:
        st.verify_findings[:] = doc.findings[start:]


def _run(doc: Document, st, progress: ProgressFn | None, cancelled: CancelFn | None) -> bool:
    # a previous (cancelled) run left nothing behind (see run_verification)
    rows = list(doc.checksums.members) if doc.checksums is not None else []
    for row in rows:
        row.status, row.computed = "pending", None
    total = len(rows)
    done = 0

    def add(sev: str, code: str, msg: str, loc: str) -> None:
        st.verify_findings.append(getattr(doc, sev)(code, msg, loc))

    step = 1 if total <= PROGRESS_EACH else total // PROGRESS_CALLS

    def report(row: MemberCheck) -> None:
        nonlocal done
        done += 1
        if progress is not None and (done % step == 0 or done == total):
            progress(done, total, row)

    scans: dict[str, ArrayScan] = {}
    for key, member in L.ARRAY_MEMBERS.items():
        h = st.headers.get(key)
        if h is None:
            continue
        keep = st.mode == "per_scan"
        if key == "mask" and h.dtype == np.bool_:
            scans[member] = ArrayScan(h, "mask", keep)
        elif key != "mask" and h.dtype.kind == "f":
            scans[member] = ArrayScan(h, "finite", keep)

    work: list[MemberCheck] = []
    for row in rows:
        e = st.scan.first(row.name)
        if e is None or not e.safe:
            row.status = _status(st, row.name, None)
            report(row)
        else:
            work.append(row)
    work.sort(key=lambda r: -st.scan.first(r.name).file_size)

    stop = threading.Event()
    was_cancelled = False
    outcomes: dict[str, _Outcome] = {}
    unreadable: set[str] = set()
    # Members go to the pool in batches (small members together, up to
    # BATCH_MEMBERS or BATCH_BYTES each) and at most IN_FLIGHT batches are
    # submitted at a time, so each wait() looks at a handful of futures: the
    # work is linear in the member count even for 100 000 entries.
    todo = iter(_batches(st, work))
    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="aucx-verify") as pool:
        futures: dict[Future, list[MemberCheck]] = {}
        pending: set[Future] = set()

        def refill() -> None:
            while len(pending) < IN_FLIGHT and not stop.is_set():
                batch = next(todo, None)
                if batch is None:
                    return
                fut = pool.submit(_hash_batch, st, [r.name for r in batch], scans, stop)
                futures[fut] = batch
                pending.add(fut)

        refill()
        while pending:
            if cancelled is not None and cancelled():
                stop.set()
                was_cancelled = True
            finished, pending = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
            refill()
            for fut in finished:
                batch = futures.pop(fut)
                try:
                    results = fut.result()
                except _Cancelled:
                    continue
                for row, out in zip(batch, results, strict=False):
                    if isinstance(out, BaseException):
                        # the file changed or vanished under us: not verified
                        row.status = "mismatch"
                        unreadable.add(row.name)
                        add("error", "member.unreadable",
                            f"{st.path.name}: member {row.name!r} could not be read while "
                            f"verifying: {type(out).__name__}: {out}", row.name)
                        report(row)
                        continue
                    outcomes[row.name] = out
                    row.computed = out.digest
                    row.status = _status(st, row.name, out.digest)
                    report(row)
    if was_cancelled:
        for row in rows:
            if row.status == "pending":
                row.status = "cancelled"
        add("warning", "verify.cancelled",
            f"{st.path.name}: verification cancelled after {done} of {total} member(s); the "
            "archive is not verified", "")
        doc.summary["members"] = [m.to_json() for m in rows]
        _set_integrity(doc, "cancelled")
        return False

    name = st.path.name
    for row in rows:
        out = outcomes.get(row.name)
        if out is not None and out.problem is not None:
            code, msg = out.problem
            add("error", code, f"{name}: member {row.name!r}: {msg} (APPNOTE 4.4; seed "
                "'Safety')", row.name)
        if row.status == "mismatch" and row.name not in unreadable:
            add("error", "checksums.mismatch",
                f"{name}: checksum mismatch for {row.name!r} (recorded {row.recorded}, computed "
                f"{row.computed}); the member changed after checksums.sha256 was written "
                "(AUCX 1.0 format, 'Checksums')", row.name)
        elif row.status == "duplicate-entry" and row.computed is not None:
            rec = st.listed.get(row.name)
            if rec and rec != row.computed:
                add("error", "checksums.mismatch",
                    f"{name}: checksum mismatch for {row.name!r} (recorded {rec}, computed "
                    f"{row.computed}) (AUCX 1.0 format, 'Checksums')", row.name)
        elif (row.status == "malformed-entry" and row.computed is not None
              and st.listed.get(row.name) and st.listed[row.name] != row.computed):
            add("error", "checksums.mismatch",
                f"{name}: checksum mismatch for {row.name!r} (recorded {st.listed[row.name]}, "
                f"computed {row.computed}) (AUCX 1.0 format, 'Checksums')", row.name)

    content_ok = True
    if st.mode is not None:
        def got(member: str) -> ArrayScan | None:
            out = outcomes.get(member)
            return out.scan if out is not None and out.problem is None else None

        for code, msg, loc in cross_check(st.mode, got(L.RADIUS), got(L.SIGNAL), got(L.MASK)):
            add("error", code, f"{name}: {msg}", loc)
            content_ok = False

    doc.checksums = ChecksumTable(tuple(rows), verified=True)
    all_ok = all(r.status == "ok" for r in rows)
    doc.summary["members"] = [m.to_json() for m in rows]
    doc.summary["checksum_verified"] = all_ok and st.checksum_present
    _set_integrity(doc, "verified" if doc.ok else "failed verification")
    # content is verified when its digest matched, even on a line whose
    # format is faulted (upper-case hex)
    _withhold_unverified(doc, {
        r.name: "ok" if r.status == "ok" or (
            r.status == "malformed-entry" and r.computed is not None
            and r.computed == st.listed.get(r.name)) else r.status
        for r in rows})
    feeding = (L.MANIFEST, L.EXPERIMENT, L.PROVENANCE, L.RADIUS, L.SIGNAL, L.MASK)
    if not content_ok or not doc.ok or any(
            r.status != "ok" for r in rows if r.name in feeding):
        if doc.auc is not None:
            doc.auc = replace(doc.auc, experiment=None)
    return True


def _withhold_unverified(doc: Document, status: dict[str, str]) -> None:
    """Parts whose member failed verification are no longer shown as facts:
    the scan table and experiment id (``experiment.json``); the provenance
    tree is marked unverified (``provenance.json``)."""
    if status.get(L.EXPERIMENT) != "ok":
        doc.tables.pop("scans", None)
        doc.summary["experiment_id"] = None
        for node in doc.header.children:
            if node.name == "experiment_id":
                node.detail = "not verified"
    if status.get(L.PROVENANCE) != "ok" and doc.provenance is not None:
        doc.provenance.detail = "not verified: provenance.json failed verification"


def _set_integrity(doc: Document, text: str) -> None:
    for node in doc.header.children:
        if node.name == "integrity":
            node.value = text
