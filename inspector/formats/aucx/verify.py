"""Deferred streaming verification of an opened AUCX archive, as a ``DeferredCheck``.

:class:`ArchiveVerification` ``.run(progress, cancelled)`` streams every
present, safe member through SHA-256 (and CRC-32) while inflating, in
fixed-size blocks, on up to :data:`WORKERS` threads (the inflater of
:mod:`inspector.formats.decoding.inflate` and ``hashlib`` release the GIL).  Array members
also feed an
:class:`~.contentcheck.ArrayScan` so the mask and finiteness rules are
checked without holding any array.  With an :class:`~.overview.OverviewPlan`
(the app asks for one at open) the array members are streamed together by
:func:`~.overview.stream_with_overview` instead, which hashes and scans
them the same way and builds the experiment's full-range envelopes from the
same bytes; the result's ``auc`` then carries them (``AucScans.overview``).

``run`` reads only the frozen :class:`~.state.OpenedArchive` and returns a
:class:`~inspector.formats.capabilities.CheckResult`; it never touches the
document, which the owning thread updates with ``Document.apply``
(docs/architecture.md, "Deferred work").  Every run starts from the pending
rows of opening, so a run after a cancelled one starts afresh.

Row statuses (:class:`~inspector.formats.capabilities.MemberStatus`): ``ok``,
``mismatch``, ``missing-member``, ``unlisted``, ``malformed-entry``,
``duplicate-entry``, ``refused`` (failed a ZIP safety check, never
decompressed) and ``cancelled``; a member that cannot be read at all (the
file vanished or cannot be read) is ``mismatch`` with a ``member.unreadable``
finding.  When the archive's path names another file than the one opened
(replaced or rewritten: :mod:`inspector.formats.sources.file_identity`), before or
while streaming, the run ends with the single finding ``file.changed``: the
archive is not verified, and the members not read before are ``cancelled``.
The checksum file itself has no recorded digest; it is ``ok`` when it
inflates cleanly.

Progress: a :class:`~inspector.formats.capabilities.Progress` event after
each finished row, from the calling thread; for tables of more than
:data:`PROGRESS_EACH` rows after every ``total // PROGRESS_CALLS``-th row and
the last, so a consumer doing O(rows) work per event stays linear.

Cancellation is deterministic: ``cancelled()`` is polled before the first
row and between batches (and the workers stop between members); a cancelled
run returns ``complete=False``, every unfinished row ``cancelled`` and one
``verify.cancelled`` warning.  Only a complete run returns a checksum table
with ``verified=True`` (AUCX 1.0 format document, "Checksums": nothing is
reported as valid before verification succeeds).
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from inspector.formats.analysis.scan_envelope import ScanOverview
from inspector.formats.auc.structure import AucStructure, aucx_location, examine_facts
from inspector.formats.aucx import layout as L
from inspector.formats.aucx import rules as R
from inspector.formats.aucx.contentcheck import ArrayScan, cross_check
from inspector.formats.aucx.overview import OverviewPlan, stream_with_overview
from inspector.formats.aucx.state import (
    DUPLICATE,
    MALFORMED,
    OpenedArchive,
    members_summary,
)
from inspector.formats.aucx.stream import MemberStream
from inspector.formats.aucx.structure import NotChecked, facts_streamed
from inspector.formats.aucx.trees import header_tree
from inspector.formats.capabilities import (
    AucScans,
    CancelFn,
    CheckResult,
    ChecksumTable,
    MemberCheck,
    MemberStatus,
    Progress,
    ProgressFn,
)
from inspector.formats.findings import Finding, Severity, cause
from inspector.formats.sources.file_identity import FILE_CHANGED, FileChangedError, SnapshotPath

WORKERS = 2
#: Batches submitted to the pool at once (bounded queue of work).
IN_FLIGHT = 2 * WORKERS
#: Up to this many rows, progress is reported after every row ...
PROGRESS_EACH = 1000
#: ... above it, about this many times in all.
PROGRESS_CALLS = 200
#: Small members are hashed in batches of at most this many members ...
BATCH_MEMBERS = 512
#: ... or this many declared bytes (a larger member is a batch of its own).
BATCH_BYTES = 1 << 20
#: Members at least this large inflate on one thread and hash on another.
PIPELINE_BYTES = 8 << 20
_POLL_S = 0.05
#: Members whose content builds the experiment model.
_FEEDING = (L.MANIFEST, L.EXPERIMENT, L.PROVENANCE, L.RADIUS, L.SIGNAL, L.MASK)


class _Cancelled(Exception):
    """Raised on a worker when the run was cancelled."""


@dataclass(frozen=True)
class _Outcome:
    """What streaming one member established: its digest, a stream problem
    (a finding at the member), the content scan of an array member and, for
    the signal streamed with an overview plan, the overview built from it."""

    digest: str
    problem: Finding | None
    scan: ArrayScan | None
    overview: ScanOverview | None = None


#: One job of the pool: the outcome of each member of its batch, in order.
_Job = Callable[[], "list[_Outcome | Exception]"]


# -- hashing (worker threads) ---------------------------------------------------
def _hash_member(opened: OpenedArchive, name: str, scan: ArrayScan | None,
                 stop: threading.Event) -> _Outcome:
    """Hash one member; large members inflate and hash on two threads.

    Raises:
        _Cancelled: ``stop`` was set.
        OSError: the archive cannot be read.
    """
    entry = opened.scan.first(name)
    assert entry is not None  # only present members are streamed
    stream = MemberStream(opened.path, entry)
    h = hashlib.sha256()
    sinks = [h.update] if scan is None else [h.update, scan.feed]
    if entry.file_size < PIPELINE_BYTES:
        for block in stream:
            if stop.is_set():
                raise _Cancelled
            for sink in sinks:
                sink(block)
    else:
        _pipelined(stream, sinks, stop)
    if scan is not None:
        scan.finish()
    return _Outcome(h.hexdigest(), stream.result.problem, scan)


def _pipelined(stream: MemberStream, sinks: list[Any], stop: threading.Event) -> None:
    """Inflate ``stream`` on this thread while another thread feeds ``sinks``."""
    q: queue.Queue[bytes | None] = queue.Queue(maxsize=2)
    err: list[BaseException] = []

    def consume() -> None:
        try:
            while (block := q.get()) is not None:
                for sink in sinks:
                    sink(block)
        except BaseException as exc:  # noqa: BLE001 - handed to the inflating thread
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


def _hash_batch(opened: OpenedArchive, names: list[str], scans: Mapping[str, ArrayScan],
                stop: threading.Event) -> list[_Outcome | Exception]:
    """Hash several members in turn; a member that cannot be read gives its
    exception in place of an outcome.  Raises ``_Cancelled`` when stopped."""
    out: list[_Outcome | Exception] = []
    for name in names:
        if stop.is_set():
            raise _Cancelled
        try:
            out.append(_hash_member(opened, name, scans.get(name), stop))
        except (OSError, ValueError, MemoryError) as exc:
            out.append(exc)
    return out


def _hash_with_overview(opened: OpenedArchive, plan: OverviewPlan, names: list[str],
                        scans: Mapping[str, ArrayScan],
                        stop: threading.Event) -> list[_Outcome | Exception]:
    """Hash the plan's members (``names``) together and build the overview from them
    (:func:`.overview.stream_with_overview`); as :func:`_hash_batch` otherwise.

    Raises:
        _Cancelled: ``stop`` was set.
    """
    sinks = {m: [scans[m].feed] for m in names if m in scans}
    results, overview = stream_with_overview(opened.path, opened.scan, plan, sinks, stop)
    if stop.is_set():
        raise _Cancelled
    out: list[_Outcome | Exception] = []
    for name in names:
        r = results[name]
        if r.error is not None:
            if not isinstance(r.error, (OSError, ValueError, MemoryError)):
                raise r.error
            out.append(r.error)
            continue
        scan = scans.get(name)
        if scan is not None:
            scan.finish()
        out.append(_Outcome(r.digest, r.problem, scan,
                            overview if name == L.SIGNAL else None))
    return out


def _batches(opened: OpenedArchive, work: list[str]) -> Iterator[list[str]]:
    """``work`` (largest first) cut into batches of at most BATCH_MEMBERS
    members and, unless a single member is larger, BATCH_BYTES bytes."""
    batch: list[str] = []
    size = 0
    for name in work:
        n = _declared(opened, name)
        if batch and (size + n > BATCH_BYTES or len(batch) >= BATCH_MEMBERS):
            yield batch
            batch, size = [], 0
        batch.append(name)
        size += n
    if batch:
        yield batch


def _declared(opened: OpenedArchive, name: str) -> int:
    entry = opened.scan.first(name)
    return entry.file_size if entry is not None else 0


def _array_scans(opened: OpenedArchive) -> dict[str, ArrayScan]:
    """A fresh content scan per array member whose header passed at open."""
    scans: dict[str, ArrayScan] = {}
    keep = opened.mode == "per_scan"
    for key, member in L.ARRAY_MEMBERS.items():
        h = opened.headers.get(key)
        if h is None:
            continue
        if key == "mask" and h.dtype == np.bool_:
            scans[member] = ArrayScan(h, "mask", keep)
        elif key != "mask" and h.dtype.kind == "f":
            scans[member] = ArrayScan(h, "finite", keep)
    return scans


def _status(opened: OpenedArchive, name: str, computed: str | None) -> MemberStatus:
    """The row status of ``name`` once hashed (``computed``) or without hashing."""
    e = opened.scan.first(name)
    if e is None:
        return MemberStatus.MISSING_MEMBER
    if not e.safe:
        return MemberStatus.REFUSED
    if e.duplicate:
        return MemberStatus.DUPLICATE_ENTRY
    if name == L.CHECKSUMS:
        return MemberStatus.OK
    line = opened.line_status.get(name)
    if line is None:
        return MemberStatus.UNLISTED
    if line in (MALFORMED, DUPLICATE):
        return MemberStatus(line)
    return MemberStatus.OK if computed == opened.listed.get(name) else MemberStatus.MISMATCH


def _reason(exc: BaseException) -> str:
    """Why a member could not be read, without the archive's path."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return cause(exc)


def _not_checked(why: str) -> Finding:
    return R.STRUCTURE_NOT_CHECKED.finding(
        f"the structure and readiness of the experiment were not checked: {why}")


# -- the check -----------------------------------------------------------------
class ArchiveVerification:
    """The deferred streamed verification of one opened archive (a ``DeferredCheck``).

    Args:
        opened: what opening learned; read, never changed.
        overview: when given, the array members are streamed together and
            the experiment's full-range envelopes built from them
            (:mod:`.overview`); the complete result's ``auc`` carries them.
            None (the command line) costs nothing extra.
    """

    title = "Verifying checksums"

    def __init__(self, opened: OpenedArchive, overview: OverviewPlan | None = None) -> None:
        self.opened = opened
        self.overview = overview

    def run(self, progress: ProgressFn | None = None,
            cancelled: CancelFn | None = None) -> CheckResult:
        """Stream, hash and check every member (see the module docstring).

        Returns the findings, the new checksum table, the ``members`` and
        ``checksum_verified`` summary keys, a header tree with the integrity
        line, and what is withdrawn; ``complete=False`` when cancelled.
        Never raises for bad input (an unreadable member is a finding).
        """
        return _Run(self.opened, progress, cancelled, self.overview).execute()


class _Run:
    """The state of one run, private to the thread that called ``run``."""

    def __init__(self, opened: OpenedArchive, progress: ProgressFn | None,
                 cancelled: CancelFn | None, plan: OverviewPlan | None = None) -> None:
        self.opened = opened
        self.plan = plan
        self.progress = progress
        self.cancelled = cancelled
        self.rows: dict[str, MemberCheck] = {r.name: r for r in opened.rows}
        self.outcomes: dict[str, _Outcome] = {}
        self.unreadable: dict[str, BaseException] = {}
        self.total = len(opened.rows)
        self.done = 0
        self.step = 1 if self.total <= PROGRESS_EACH else self.total // PROGRESS_CALLS

    def execute(self) -> CheckResult:
        if self._stop_requested():
            return self._cancelled()
        changed = self._changed_since_opened()
        if changed is not None:
            return self._changed(changed)
        work = self._settle_unstreamed()
        if not self._stream(work):
            return self._cancelled()
        changed = next((e for e in self.unreadable.values()
                        if isinstance(e, FileChangedError)), None)
        if changed is not None:
            return self._changed(changed)
        try:
            structure, why = self._structure()
        except _Cancelled:
            return self._cancelled()
        return self._complete(structure, why)

    def _structure(self) -> tuple[AucStructure | None, str | None]:
        """The structural validation deferred from open (arrays folded in row blocks,
        :func:`.structure.facts_streamed`), or why it could not run; ``(None, None)``
        when it was done at open (or not at all).

        Raises:
            _Cancelled: the run was cancelled between blocks.
        """
        model = self.opened.model
        if not self.opened.structure_deferred or model is None:
            return None, None
        try:
            facts = facts_streamed(self.opened.path, self.opened.scan, model,
                                   self.opened.headers, self._stop_requested)
        except NotChecked as exc:
            return None, str(exc)
        except OSError as exc:
            return None, f"the archive could not be read ({_reason(exc)})"
        if facts is None:
            raise _Cancelled
        return examine_facts(facts, locate=aucx_location), None

    def _changed_since_opened(self) -> FileChangedError | None:
        """Why the archive's path no longer names the file opened, or None."""
        path = self.opened.path
        try:
            if isinstance(path, SnapshotPath):
                path.check()
        except FileChangedError as exc:
            return exc
        return None

    def _stop_requested(self) -> bool:
        return self.cancelled is not None and bool(self.cancelled())

    def _finish(self, row: MemberCheck) -> None:
        self.rows[row.name] = row
        self.done += 1
        if self.progress is not None and (self.done % self.step == 0
                                          or self.done == self.total):
            self.progress(Progress(self.done, self.total, row))

    def _settle_unstreamed(self) -> list[str]:
        """Finish the rows that need no streaming (missing, refused); return
        the others, largest first."""
        work: list[str] = []
        for row in self.opened.rows:
            e = self.opened.scan.first(row.name)
            if e is None or not e.safe:
                self._finish(replace(row, status=_status(self.opened, row.name, None)))
            else:
                work.append(row.name)
        work.sort(key=lambda n: -_declared(self.opened, n))
        return work

    # -- streaming ---------------------------------------------------------
    def _stream(self, work: list[str]) -> bool:
        """Hash ``work`` on the pool; False when cancelled.

        Members go to the pool in batches (small members together, up to
        BATCH_MEMBERS or BATCH_BYTES each) and at most IN_FLIGHT batches are
        submitted at a time, so each wait() looks at a handful of futures:
        the work is linear in the member count even for 100 000 entries.
        """
        scans = _array_scans(self.opened)
        stop = threading.Event()
        todo = self._jobs(work, scans, stop)
        pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="aucx-verify")
        pending: dict[Future[list[_Outcome | Exception]], list[str]] = {}
        try:
            while True:
                if self._stop_requested():
                    stop.set()
                    return False
                self._refill(pool, pending, todo)
                if not pending:
                    return True
                finished, _ = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
                for fut in finished:
                    self._take(pending.pop(fut), fut)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _jobs(self, work: list[str], scans: Mapping[str, ArrayScan],
              stop: threading.Event) -> Iterator[tuple[list[str], _Job]]:
        """``(names, job)`` for the pool: the overview plan's members together
        first (when there is a plan), then ``work``'s other members in batches."""
        plan = self.plan
        joint = list(plan.members.values()) if plan is not None else []
        if plan is not None and all(m in work for m in joint):
            yield joint, partial(_hash_with_overview, self.opened, plan, joint, scans, stop)
        else:
            joint = []
        rest = [n for n in work if n not in joint]
        for batch in _batches(self.opened, rest):
            yield batch, partial(_hash_batch, self.opened, batch, scans, stop)

    def _refill(self, pool: ThreadPoolExecutor,
                pending: dict[Future[list[_Outcome | Exception]], list[str]],
                todo: Iterator[tuple[list[str], _Job]]) -> None:
        while len(pending) < IN_FLIGHT:
            job = next(todo, None)
            if job is None:
                return
            pending[pool.submit(job[1])] = job[0]

    def _take(self, batch: list[str], fut: Future[list[_Outcome | Exception]]) -> None:
        results = fut.result()
        for name, out in zip(batch, results, strict=True):
            row = self.rows[name]
            if isinstance(out, Exception):
                # the file changed or vanished under us: not verified
                self.unreadable[name] = out
                self._finish(replace(row, status=MemberStatus.MISMATCH))
                continue
            self.outcomes[name] = out
            self._finish(replace(row, computed=out.digest,
                                 status=_status(self.opened, name, out.digest)))

    # -- results -------------------------------------------------------------
    def _ordered(self) -> tuple[MemberCheck, ...]:
        return tuple(self.rows[r.name] for r in self.opened.rows)

    def _cancelled(self) -> CheckResult:
        rows = tuple(replace(r, status=MemberStatus.CANCELLED)
                     if r.status is MemberStatus.PENDING else r for r in self._ordered())
        note = R.VERIFY_CANCELLED.finding(
            f"verification was cancelled after {self.done:,} of {self.total:,} member(s); the "
            "archive is not verified")
        return self._unverified(rows, note, "verification was cancelled", "cancelled",
                                complete=False)

    def _changed(self, exc: FileChangedError) -> CheckResult:
        """The file was replaced or rewritten since it was opened: the archive is not
        verified (``file.changed``); members not read before the change stay unchecked."""
        rows = tuple(replace(r, status=MemberStatus.CANCELLED)
                     if r.status is MemberStatus.PENDING or r.name in self.unreadable else r
                     for r in self._ordered())
        note = FILE_CHANGED.finding(f"{exc}; the archive is not verified")
        return self._unverified(rows, note, "the file changed on disk",
                                "not verified: the file changed on disk")

    def _unverified(self, rows: tuple[MemberCheck, ...], note: Finding, cause: str,
                    status: str, complete: bool = True) -> CheckResult:
        """The result of a run that ended before every member verified (``note`` says
        why); a structure deferred to this run is then not checked either."""
        findings: tuple[Finding, ...] = (note,)
        why = None
        if self.opened.structure_deferred:
            why = f"{cause} before the structure was checked"
            findings += (_not_checked(why),)
        return CheckResult(
            findings=findings, structure_unchecked=why,
            checksums=ChecksumTable(rows, verified=False),
            summary={"members": members_summary(rows), "checksum_verified": False},
            header=header_tree(self.opened.header_parts, self.opened.headers, status),
            auc=self._no_overview(), complete=complete)

    def _no_overview(self) -> AucScans | None:
        """The AUC capability as opened without an overview pending (a plot then reads
        the arrays itself), or None when none was pending."""
        auc = self.opened.auc
        if auc is None or not auc.overview_pending:
            return None
        return replace(auc, overview_pending=False)

    def _row_findings(self, row: MemberCheck) -> list[Finding]:
        """Unreadable, stream and digest findings of one finished row."""
        name = row.name
        if name in self.unreadable:
            return [R.MEMBER_UNREADABLE.finding(
                "the member could not be read while verifying: "
                f"{_reason(self.unreadable[name])}", name)]
        out: list[Finding] = []
        outcome = self.outcomes.get(name)
        if outcome is not None and outcome.problem is not None:
            out.append(outcome.problem)
        recorded = self.opened.listed.get(name)
        if row.computed is None or not recorded:
            return out
        faulted_line = row.status in (MemberStatus.DUPLICATE_ENTRY,
                                      MemberStatus.MALFORMED_ENTRY)
        if row.status is MemberStatus.MISMATCH or (faulted_line and recorded != row.computed):
            out.append(R.CHECKSUMS_MISMATCH.finding(
                f"checksum mismatch (recorded {recorded}, computed {row.computed}); the member "
                "changed after checksums.sha256 was written", name))
        return out

    def _content_findings(self) -> list[Finding]:
        if self.opened.mode is None:
            return []

        def got(member: str) -> ArrayScan | None:
            out = self.outcomes.get(member)
            return out.scan if out is not None and out.problem is None else None

        return cross_check(self.opened.mode, got(L.RADIUS), got(L.SIGNAL), got(L.MASK))

    def _trusted(self, row: MemberCheck) -> bool:
        """The member's bytes match their recorded digest, even on a line whose
        format is faulted (upper-case hex)."""
        if row.status is MemberStatus.OK:
            return True
        return (row.status is MemberStatus.MALFORMED_ENTRY and row.computed is not None
                and row.computed == self.opened.listed.get(row.name))

    def _complete(self, structure: AucStructure | None = None,
                  why: str | None = None) -> CheckResult:
        rows = self._ordered()
        findings = [f for row in rows for f in self._row_findings(row)]
        findings += self._content_findings()
        failed = {r.name: str(r.status) for r in rows if not self._trusted(r)}
        errors = any(f.severity is Severity.ERROR for f in findings)
        if errors and self.opened.opened_ok:  # judged (at open or now) on unverified bytes
            structure, why = None, ("the archive failed verification (see the errors above); "
                                    "no structure is judged on members that do not verify")
        structural: list[Finding] = []
        if structure is not None:
            structural = list(structure.findings)
        elif why is not None:
            structural = [_not_checked(why)]
        integrity = ("verified" if self.opened.opened_ok and not errors
                     else "failed verification")
        summary: dict[str, Any] = {
            "members": members_summary(rows),
            "checksum_verified": (all(r.status is MemberStatus.OK for r in rows)
                                  and self.opened.checksum_present)}
        if L.EXPERIMENT in failed:
            summary["experiment_id"] = None
        if structure is not None:
            summary["structure"] = structure.summary
            summary["readiness"] = [entry.to_json() for entry in structure.readiness]
        return CheckResult(
            findings=tuple(findings + structural), structure=structure,
            structure_unchecked=why, checksums=ChecksumTable(rows, verified=True),
            summary=summary,
            header=header_tree(self.opened.header_parts, self.opened.headers, integrity,
                               failed),
            withdraw_tables=("scans",) if L.EXPERIMENT in failed else (),
            auc=self._auc(failed, errors), withdraw_auc=L.MANIFEST in failed)

    def _auc(self, failed: Mapping[str, str], errors: bool) -> AucScans | None:
        """The AUC capability after verification, or None to keep it as opened.

        The experiment model is withdrawn when any member it is built from
        failed, or any error was found; the experiment id when
        ``experiment.json`` failed; arrays whose member failed are untrusted.
        The overview streamed with the signal (if any) is handed over, marked
        with the untrusted arrays; a pending overview is no longer pending.
        """
        auc = self.opened.auc
        if auc is None or L.MANIFEST in failed:
            return None
        untrusted = frozenset(k for k, m in L.ARRAY_MEMBERS.items() if m in failed)
        keep_model = not errors and not any(m in failed for m in _FEEDING)
        keep_id = L.EXPERIMENT not in failed
        streamed = self.outcomes.get(L.SIGNAL)
        overview = streamed.overview if streamed is not None else None
        if overview is not None:  # it shows these bytes: it says which are not verified
            overview = replace(overview, untrusted=untrusted)
        if (keep_model and keep_id and untrusted == auc.untrusted_arrays and overview is None
                and not auc.overview_pending):
            return None
        return replace(auc, experiment=auc.experiment if keep_model else None,
                       experiment_id=auc.experiment_id if keep_id else None,
                       untrusted_arrays=untrusted, overview=overview, overview_pending=False)
