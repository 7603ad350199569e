"""The verification of one entry, as a worker runs it.

:func:`verify_entry` opens, verifies and renders one entry exactly as
``inspector verify FILE`` does for a single file (the CLI passes its own
renderer, so each file's JSON line or text report is byte-identical) and
returns an :class:`Outcome`: the text to print and the file's status.
Everything an :class:`Outcome` holds is plain text, so it crosses process
and network boundaries (pickled by ``concurrent.futures`` or Dask).

A file is ``unreadable`` when it got no verdict: it could not be read or
recognised, a reader or check failed unexpectedly, its worker died or ran
out of time (:data:`UNREADABLE_CODES`); ``ok`` when ``Document.ok`` and
``Document.structure_ok`` hold (``ok`` alone with ``--integrity-only``);
``not ok`` otherwise.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from inspector.formats.core_rules import (
    CHECK_FAILED,
    FILE_BAD_LINK,
    FILE_NOT_FOUND,
    FILE_UNREADABLE,
    FORMAT_UNRECOGNISED,
    INPUT_NO_DOCUMENTS,
    READER_FAILED,
    VERIFY_TIMEOUT,
    WORKER_CRASHED,
)
from inspector.formats.decoding.workers import worker_pool
from inspector.formats.document import Document
from inspector.formats.findings import Rule

__all__ = ["UNREADABLE_CODES", "Outcome", "Status", "VerifyOptions", "failed_outcome",
           "init_worker", "status_of", "verify_entry"]

#: Finding codes that mean the file got no verdict.
UNREADABLE_CODES = frozenset(r.code for r in (
    FILE_NOT_FOUND, FILE_BAD_LINK, FILE_UNREADABLE, FORMAT_UNRECOGNISED, READER_FAILED,
    CHECK_FAILED, WORKER_CRASHED, VERIFY_TIMEOUT, INPUT_NO_DOCUMENTS))


class Status(StrEnum):
    """The verdict on one file, as the summary counts it."""

    OK = "ok"
    NOT_OK = "not ok"
    UNREADABLE = "unreadable"


#: ``render(doc, as_json)``: the text ``inspector verify`` prints for one document.
Render = Callable[[Document, bool], str]


@dataclass(frozen=True)
class VerifyOptions:
    """How each file is verified and rendered (picklable: ``render`` is a module function).

    Attributes:
        render: the CLI's renderer of one document.
        as_json: render the JSON line (``--json``) rather than the text report.
        hash_arrays: ``--hash-arrays``.
        integrity_only: ``--integrity-only`` (only ``ok`` decides the status).
        threads: threads of the worker's own pool (``inspector.formats.decoding.workers``).
    """

    render: Render
    as_json: bool = False
    hash_arrays: bool = False
    integrity_only: bool = False
    threads: int = 1


@dataclass(frozen=True)
class Outcome:
    """What one file gave: its printed text (no trailing newline) and its status."""

    name: str
    status: Status
    text: str


def status_of(doc: Document, integrity_only: bool = False) -> Status:
    """The :class:`Status` of a verified document (see the module documentation)."""
    if any(f.code in UNREADABLE_CODES for f in doc.findings):
        return Status.UNREADABLE
    if doc.ok and (integrity_only or doc.structure_ok):
        return Status.OK
    return Status.NOT_OK


_pool_lock = threading.Lock()
_pool_stack: contextlib.ExitStack | None = None


def _ensure_pool(threads: int) -> None:
    """Open this process's worker pool once, for the life of the process.

    A worker verifies file after file (and a Dask worker may run several at
    once on its threads), so the pool is not opened and shut per file.
    """
    global _pool_stack
    with _pool_lock:
        if _pool_stack is None:
            stack = contextlib.ExitStack()
            stack.enter_context(worker_pool(threads))
            _pool_stack = stack


def init_worker(memory_limit: int, threads: int) -> None:
    """Set up a local worker process (``ProcessPoolExecutor`` initializer).

    Ctrl-C is left to the parent, which stops the workers itself; standard
    output goes to standard error, so that only the parent writes the
    ordered report there; the address space is capped at ``memory_limit``
    bytes (0: no cap), so that a file that makes a reader allocate without
    bound fails alone (``MemoryError``, or the process dies:
    ``verify.worker-crashed``).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, ValueError):
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    if memory_limit > 0:
        with contextlib.suppress(ImportError, ValueError, OSError):
            import resource

            _, hard = resource.getrlimit(resource.RLIMIT_AS)
            soft = memory_limit if hard == resource.RLIM_INFINITY else min(memory_limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    _ensure_pool(threads)
    from inspector.formats.registry import readers

    readers()  # import the format packages once, before the first file


def verify_entry(name: str, options: VerifyOptions) -> Outcome:
    """Open, verify and render ``name`` (a path or a URL), as ``inspector verify`` does.

    Never raises for bad input (``open_document`` turns it into findings);
    an exception raised by a deferred check is the finding
    ``internal.verify-failed`` instead of ending the run.
    """
    from inspector.formats.registry import open_document

    _ensure_pool(options.threads)
    with open_document(name, hash_arrays=options.hash_arrays) as doc:
        try:
            doc.verify()
        except Exception as exc:  # noqa: BLE001 - one file's bug must not end a run of many
            doc.report(CHECK_FAILED, f"verification failed unexpectedly: "
                                     f"{type(exc).__name__}: {exc}")
            doc.traceback = "".join(traceback.format_exception(exc))
        return Outcome(name, status_of(doc, options.integrity_only),
                       options.render(doc, options.as_json))


def failed_outcome(name: str, rule: Rule, message: str, options: VerifyOptions) -> Outcome:
    """The outcome of a file that got no verdict (``rule`` says why), rendered as usual."""
    doc = Document(Path(name))
    doc.report(rule, message)
    return Outcome(name, Status.UNREADABLE, options.render(doc, options.as_json))


def worker_pid() -> int:
    """The id of the process this runs in (asked of a new local worker)."""
    return os.getpid()
