"""The driver of ``inspector verify`` over many files.

Entries are handed to the workers (:mod:`.local` or :mod:`.cluster`) as
they become free, at most :data:`WINDOW` entries ahead of the oldest one
not yet printed, so memory stays bounded however long the list is; each
file's output is printed as soon as every earlier entry's has been, so
standard output is in input order whatever the order of completion.

Standard output holds only the per-file output (one JSON line per file with
``--json``, else each text report), byte-identical to ``inspector verify
FILE`` for that file.  Standard error holds the progress line (one line
rewritten in place; when it is a terminal, or with ``--progress``) and, at
the end, the files skipped when asked (``--list-skipped``: ``inspector
verify: skipped PATH``, or with ``--json`` ``{"skipped": PATH}``, one a
line) and the summary: ``inspector verify: N files: A ok, B not ok, C
unreadable, S skipped (T s)``, or with ``--json`` one JSON object
``{"summary": {"files", "ok", "not_ok", "unreadable", "skipped",
"seconds"}}``.  ``files`` counts the files verified; ``skipped`` those a
folder walk met that no reader claims by content or name (never verified,
and no reason for exit status 1).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from inspector.batch.inputs import Entry
from inspector.batch.work import Outcome, Status, VerifyOptions, failed_outcome
from inspector.formats.core_rules import INPUT_NO_DOCUMENTS

__all__ = ["WINDOW", "Counts", "ProgressLine", "RunConfig", "Workers", "make_workers",
           "run_ordered", "skipped_line", "summary_text", "verify_many"]

#: Entries handed out at most ahead of the oldest one not yet printed.
WINDOW = 256


class Workers(Protocol):
    """What the driver needs of :class:`~.local.LocalWorkers` or :class:`~.cluster.DaskWorkers`."""

    capacity: int

    def free(self) -> bool: ...
    def running(self) -> int: ...
    def submit(self, index: int, name: str) -> None: ...
    def collect(self, wait_s: float) -> list[tuple[int, Outcome]]: ...
    def close(self) -> None: ...


@dataclass
class Counts:
    """Files finished so far, by :class:`~.work.Status`."""

    ok: int = 0
    not_ok: int = 0
    unreadable: int = 0
    skipped: int = 0
    started: float = field(default_factory=time.monotonic)

    def add(self, status: Status) -> None:
        """Count one finished file."""
        if status == Status.OK:
            self.ok += 1
        elif status == Status.NOT_OK:
            self.not_ok += 1
        else:
            self.unreadable += 1

    @property
    def files(self) -> int:
        """Files finished."""
        return self.ok + self.not_ok + self.unreadable

    @property
    def all_ok(self) -> bool:
        """True when every finished file is ok (vacuously for none; skipped files
        do not count)."""
        return self.files == self.ok

    def seconds(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started

    def to_json(self) -> dict[str, Any]:
        """``{"files", "ok", "not_ok", "unreadable", "skipped", "seconds"}``."""
        return {"files": self.files, "ok": self.ok, "not_ok": self.not_ok,
                "unreadable": self.unreadable, "skipped": self.skipped,
                "seconds": round(self.seconds(), 3)}


def summary_text(counts: Counts, as_json: bool) -> str:
    """The summary line written to standard error at the end of a run."""
    if as_json:
        return json.dumps({"summary": counts.to_json()})
    files = f"{counts.files} file" + ("" if counts.files == 1 else "s")
    return (f"inspector verify: {files}: {counts.ok} ok, {counts.not_ok} not ok, "
            f"{counts.unreadable} unreadable, {counts.skipped} skipped "
            f"({counts.seconds():.1f} s)")


def skipped_line(path: str, as_json: bool) -> str:
    """The ``--list-skipped`` line of one skipped file (standard error)."""
    return json.dumps({"skipped": path}) if as_json else f"inspector verify: skipped {path}"


class ProgressLine:
    """One status line on ``stream``, rewritten in place (``\\r``), at most 10 times a second."""

    def __init__(self, stream: TextIO, total: int, enabled: bool) -> None:
        self.stream = stream
        self.total = total
        self.enabled = enabled
        self._shown = 0
        self._last = 0.0

    def show(self, counts: Counts, running: int, force: bool = False) -> None:
        """Draw the line for ``counts`` (skipped when drawn less than 0.1 s ago)."""
        now = time.monotonic()
        if not self.enabled or (not force and now - self._last < 0.1):
            return
        self._last = now
        rate = counts.files / max(counts.seconds(), 1e-9)
        text = (f"verify: {counts.files}/{self.total} files, {counts.ok} ok, "
                f"{counts.not_ok} not ok, {counts.unreadable} unreadable, {running} running, "
                f"{rate:.1f} files/s")
        self.stream.write("\r" + text.ljust(self._shown))
        self.stream.flush()
        self._shown = len(text)

    def clear(self) -> None:
        """Erase the line (before other output, and at the end)."""
        if self.enabled and self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0


def run_ordered(entries: Sequence[Entry], workers: Workers, options: VerifyOptions,
                emit: Callable[[str], None], progress: ProgressLine) -> Counts:
    """Verify ``entries`` on ``workers``; ``emit`` each file's output in input order.

    Returns:
        The counts of the files by status.
    """
    counts = Counts()
    ready: dict[int, Outcome] = {}
    next_out = next_in = 0
    ahead = max(WINDOW, 4 * workers.capacity)
    while next_out < len(entries):
        while next_in < len(entries) and next_in - next_out < ahead and workers.free():
            entry = entries[next_in]
            if entry.empty:
                ready[next_in] = _no_documents(entry, options)
                counts.add(ready[next_in].status)
            else:
                workers.submit(next_in, entry.name)
            next_in += 1
        for index, outcome in workers.collect(0.2 if next_out not in ready else 0.0):
            ready[index] = outcome
            counts.add(outcome.status)
        if next_out in ready:
            progress.clear()
        while next_out in ready:
            emit(ready.pop(next_out).text)
            next_out += 1
        progress.show(counts, workers.running())
    progress.clear()
    return counts


def _no_documents(entry: Entry, options: VerifyOptions) -> Outcome:
    return failed_outcome(entry.name, INPUT_NO_DOCUMENTS, entry.empty, options)


@dataclass(frozen=True)
class RunConfig:
    """Where and how the files are verified.

    Attributes:
        jobs: local worker processes (ignored with ``dask``).
        timeout: seconds a file may take (None: no limit).
        memory_limit: address-space cap per local worker, bytes (0: none).
        progress: draw the progress line on standard error.
        dask: the Dask scheduler's address (or a cluster object), or None for local workers.
    """

    jobs: int
    timeout: float | None = None
    memory_limit: int = 0
    progress: bool = False
    dask: Any = None


class _NoWorkers:
    """The workers of a run with nothing to verify (only empty entries): none started."""

    capacity = 1

    def free(self) -> bool:
        return True

    def running(self) -> int:
        return 0

    def submit(self, index: int, name: str) -> None:
        raise RuntimeError("no workers: every entry is empty")

    def collect(self, wait_s: float) -> list[tuple[int, Outcome]]:
        return []

    def close(self) -> None:
        pass


def make_workers(config: RunConfig, options: VerifyOptions, files: int) -> Workers:
    """The workers of ``config`` for ``files`` files: local processes (no more than
    ``files``), or a Dask client; none when ``files`` is 0.

    Raises:
        DaskUnavailable: ``dask`` is set and ``distributed`` is missing or unreachable.
    """
    if files == 0:
        return _NoWorkers()
    if config.dask is not None:
        from inspector.batch.cluster import DaskWorkers

        return DaskWorkers(config.dask, options, timeout=config.timeout)
    from inspector.batch.local import LocalWorkers

    return LocalWorkers(min(config.jobs, files), options, timeout=config.timeout,
                        memory_limit=config.memory_limit)


def verify_many(entries: Sequence[Entry], options: VerifyOptions, config: RunConfig,
                stdout: TextIO, stderr: TextIO, workers: Workers | None = None, *,
                skipped: Sequence[str] = (), list_skipped: bool = False) -> Counts:
    """Verify ``entries``: outputs on ``stdout`` in order, progress and summary on ``stderr``.

    ``skipped`` (files a walk met that are no document) are counted in the
    summary and, with ``list_skipped``, named one a line before it.
    ``workers`` replaces those :func:`make_workers` would start (tests).

    Raises:
        DaskUnavailable: see :func:`make_workers`.
    """
    files = sum(not e.empty for e in entries)
    pool = workers if workers is not None else make_workers(config, options, files)

    def emit(text: str) -> None:
        print(text, file=stdout, flush=True)

    progress = ProgressLine(stderr, len(entries), config.progress)
    try:
        counts = run_ordered(entries, pool, options, emit, progress)
    finally:
        pool.close()
    counts.skipped = len(skipped)
    for path in skipped if list_skipped else ():
        print(skipped_line(path, options.as_json), file=stderr)
    print(summary_text(counts, options.as_json), file=stderr, flush=True)
    return counts
