"""Outcome classes of one fuzzing run and how a finished child is classified.

A child (see :mod:`fuzz.child`) opens one mutant, verifies it and writes a
small ``result.json`` next to the mutant; the parent combines that file with
the child's exit status, the tail of its stderr and the digest of the input
taken before and after the run (:func:`classify`).  Exactly one class is
chosen per run, by the precedence of :data:`PRECEDENCE`; the others that
also apply are kept as ``flags``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    """What happened when Inspector opened and verified one mutant."""

    CLEAN = "clean"
    """The reader returned a document and ``verify()`` finished, with findings only."""
    INTERNAL = "internal-failure"
    """The document carries ``internal.reader-failed``: a reader raised and the
    registry's never-raise wrapper caught it."""
    ESCAPED = "escaped-exception"
    """An exception got out of ``open_document``/``verify()``/``to_json()``."""
    CRASH = "crash"
    """The child died of a signal (SIGSEGV, SIGABRT, ...) or exited without a result."""
    HANG = "hang"
    """The child was still running at the wall-time limit."""
    MEMORY = "memory-limit"
    """A ``MemoryError`` under the address-space limit, or an allocation failure that killed
    the child."""
    MODIFIED = "input-modified"
    """The input file or folder is not byte-identical after the run."""
    OVERSIZED = "oversized-report"
    """The verify-JSON line is longer than the bound (2 MB by default)."""
    INVALID_REPORT = "invalid-report"
    """The verify-JSON line is not one strict-JSON object with the verify keys."""


COUNT_KEYS: dict[Outcome, str] = {
    Outcome.CLEAN: "clean",
    Outcome.INTERNAL: "internal_failures",
    Outcome.ESCAPED: "escaped_exceptions",
    Outcome.CRASH: "crashes",
    Outcome.HANG: "hangs",
    Outcome.MEMORY: "memory_limit_hits",
    Outcome.MODIFIED: "inputs_modified",
    Outcome.OVERSIZED: "oversized_reports",
    Outcome.INVALID_REPORT: "invalid_reports",
}
"""The key of each outcome in the per-format counts that ``python -m fuzz`` prints."""

PRECEDENCE: tuple[Outcome, ...] = (
    Outcome.MODIFIED, Outcome.HANG, Outcome.MEMORY, Outcome.CRASH, Outcome.ESCAPED,
    Outcome.OVERSIZED, Outcome.INVALID_REPORT, Outcome.INTERNAL, Outcome.CLEAN,
)
"""When several classes apply, the first in this order is the run's outcome."""

EXIT_DONE = 0
"""The child ran the target to the end and wrote ``result.json``."""
EXIT_ESCAPED = 70
"""The target raised; ``result.json`` holds the exception."""
EXIT_MEMORY = 71
"""The target raised ``MemoryError``."""
EXIT_SETUP = 72
"""The harness itself failed in the child before the target ran (a harness bug)."""

REPORT_KEYS = ("path", "format", "ok", "findings", "summary")
"""The keys of a ``verify --json`` object (``Document.to_json``)."""
READER_FAILED = "internal.reader-failed"

# Text of an allocation failure in a child that died of it (C libraries, NumPy, CPython).
_OOM_MARKERS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory",
                "Unable to allocate", "memory allocation failed", "Could not allocate")


@dataclass
class RunRecord:
    """What the parent knows about one finished child.

    Attributes:
        returncode: ``os.waitstatus_to_exitcode`` form: the exit code, or minus
            the number of the signal that killed the child.
        killed_by_parent: the parent's watchdog killed the child (it overran
            the time limit by the grace period, e.g. with SIGALRM blocked).
        result: the parsed ``result.json`` of the child, or None when it wrote none.
        stderr_tail: the last part of the child's stderr (faulthandler dumps land here).
        digest_before, digest_after: :func:`fuzz.hashing.tree_digest` of the input
            before the child started and after it ended, taken by the parent.
        max_report_bytes: the bound on the verify-JSON line.
        seconds: wall time of the child.
        max_rss_kb: peak resident set of the child (``ru_maxrss``), when known.
        rss_budget_kb: how far the resident set may grow while the target runs
            (the child's ``rss_growth_kb``; 0: no budget).
    """

    returncode: int
    killed_by_parent: bool
    result: dict[str, Any] | None
    stderr_tail: str
    digest_before: str
    digest_after: str
    max_report_bytes: int
    seconds: float
    max_rss_kb: int | None = None
    rss_budget_kb: int = 0


@dataclass
class Classified:
    """The outcome of one run with what identifies its failure class.

    Attributes:
        outcome: the class chosen by :data:`PRECEDENCE`.
        flags: every class that applied (``outcome`` first).
        exception: the exception type name (``"KeyError"``), the signal name
            (``"SIGSEGV"``) or a short description, "" for clean runs.
        message: the exception message or a one-line description.
        top_frame: the innermost frame inside ``inspector/`` as
            ``"inspector/formats/x.py:12 in func"`` ("" when none is known).
        traceback: the Python traceback or faulthandler dump the class comes from.
        detail: facts for ``outcome.json`` (exit status, report size, ...).
    """

    outcome: Outcome
    flags: list[Outcome] = field(default_factory=list)
    exception: str = ""
    message: str = ""
    top_frame: str = ""
    traceback: str = ""
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        """The failure class: outcome, exception type and top frame in ``inspector/``."""
        if self.outcome is Outcome.CLEAN:
            return "clean"
        where = self.top_frame or "(no frame in inspector/)"
        return f"{self.outcome}: {self.exception or '?'} at {where}"

    def to_json(self) -> dict[str, Any]:
        """The ``outcome.json`` object of a reproducer (without the traceback text)."""
        return {
            "outcome": str(self.outcome),
            "flags": [str(f) for f in self.flags],
            "signature": self.signature,
            "exception": self.exception,
            "message": self.message,
            "top_frame": self.top_frame,
            **self.detail,
        }


def signal_name(number: int) -> str:
    """``"SIGSEGV"`` for 11, ``"signal 99"`` for a number Python does not name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def classify(run: RunRecord) -> Classified:
    """Sort one finished child into an :class:`Outcome` (see :data:`PRECEDENCE`)."""
    found: dict[Outcome, Classified] = {}
    if run.digest_before != run.digest_after or _child_saw_modification(run.result):
        found[Outcome.MODIFIED] = Classified(
            Outcome.MODIFIED, exception="input modified",
            message="the input is not byte-identical after the run")
    _classify_exit(run, found)
    growth = int((run.result or {}).get("rss_growth_kb") or 0)
    if run.rss_budget_kb and growth > run.rss_budget_kb:
        found[Outcome.MEMORY] = Classified(
            Outcome.MEMORY, exception="peak RSS over budget",
            message=f"the resident set grew by {growth // 1024} MiB while the mutant was "
                    f"inspected, over the {run.rss_budget_kb // 1024} MiB budget")
    if run.returncode == EXIT_DONE and run.result is not None:
        _classify_report(run, found)
    if not found:
        found[Outcome.CLEAN] = Classified(Outcome.CLEAN)
    ordered = [o for o in PRECEDENCE if o in found]
    chosen = found[ordered[0]]
    if not chosen.top_frame:
        chosen.top_frame = next((c.top_frame for c in found.values() if c.top_frame), "")
        chosen.traceback = chosen.traceback or next(
            (c.traceback for c in found.values() if c.traceback), "")
    chosen.flags = ordered
    chosen.detail.update(_detail(run))
    return chosen


def _child_saw_modification(result: dict[str, Any] | None) -> bool:
    if not result or not result.get("digest_before") or not result.get("digest_after"):
        return False
    return bool(result["digest_before"] != result["digest_after"])


def _classify_exit(run: RunRecord, found: dict[Outcome, Classified]) -> None:
    """Classes that follow from how the child ended: hang, crash, memory, escaped."""
    rc, tail = run.returncode, run.stderr_tail
    if run.killed_by_parent or rc == -signal.SIGALRM:
        how = "killed by the parent's watchdog" if run.killed_by_parent else "SIGALRM"
        found[Outcome.HANG] = Classified(
            Outcome.HANG, exception="timeout", message=f"still running at the time limit ({how})",
            top_frame=top_frame_of_dump(tail), traceback=tail)
    elif rc < 0:
        name = signal_name(-rc)
        oom = rc == -signal.SIGKILL or any(m in tail for m in _OOM_MARKERS)
        kind = Outcome.MEMORY if oom else Outcome.CRASH
        found[kind] = Classified(kind, exception=name, message=f"killed by {name}",
                                 top_frame=top_frame_of_dump(tail), traceback=tail)
    elif rc in (EXIT_ESCAPED, EXIT_MEMORY):
        exc = (run.result or {}).get("exception") or {}
        kind = Outcome.MEMORY if rc == EXIT_MEMORY else Outcome.ESCAPED
        text = str(exc.get("traceback", ""))
        found[kind] = Classified(kind, exception=str(exc.get("type", "?")),
                                 message=str(exc.get("message", ""))[:500],
                                 top_frame=top_frame_of_traceback(text), traceback=text)
    elif rc == EXIT_SETUP:
        raise HarnessError(f"the child could not set itself up:\n{tail}")
    elif rc != EXIT_DONE or run.result is None:
        found[Outcome.CRASH] = Classified(
            Outcome.CRASH, exception=f"exit {rc}",
            message=f"the child exited with status {rc} without a result",
            top_frame=top_frame_of_dump(tail), traceback=tail)


def _classify_report(run: RunRecord, found: dict[Outcome, Classified]) -> None:
    """Classes that follow from a finished run's report: size, validity, internal failures."""
    result = run.result or {}
    size = int(result.get("report_bytes", 0))
    if size > run.max_report_bytes:
        found[Outcome.OVERSIZED] = Classified(
            Outcome.OVERSIZED, exception="oversized report",
            message=f"the verify-JSON line has {size} bytes (bound {run.max_report_bytes})")
    elif result.get("report_problem"):
        found[Outcome.INVALID_REPORT] = Classified(
            Outcome.INVALID_REPORT, exception="invalid report",
            message=str(result["report_problem"]))
    internal = result.get("internal") or []
    if internal:
        text = str(internal[0].get("traceback") or "")
        exc = exception_of_traceback(text) or _exception_of_message(internal[0].get("message", ""))
        kind = Outcome.MEMORY if exc.endswith("MemoryError") else Outcome.INTERNAL
        found[kind] = Classified(kind, exception=exc or "?",
                                 message=str(internal[0].get("message", ""))[:500],
                                 top_frame=top_frame_of_traceback(text), traceback=text)


def _detail(run: RunRecord) -> dict[str, Any]:
    result = run.result or {}
    return {
        "returncode": run.returncode,
        "signal": signal_name(-run.returncode) if run.returncode < 0 else None,
        "killed_by_parent": run.killed_by_parent,
        "seconds": round(run.seconds, 3),
        "max_rss_kb": run.max_rss_kb,
        "report_bytes": result.get("report_bytes"),
        "internal_failures": len(result.get("internal") or []),
        "digest_before": run.digest_before,
        "digest_after": run.digest_after,
    }


class HarnessError(RuntimeError):
    """The harness itself failed (not the code under test); the campaign stops."""


# -- tracebacks ------------------------------------------------------------------

_PY_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)', re.M)
_FH_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<func>\S+)', re.M)
_EXC_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::|$)")
_BLOCK_SPLIT = re.compile(r"\n(?=Traceback \(most recent call last\))")


def _package_roots() -> list[tuple[str, str]]:
    """``(name, folder + os.sep)`` of each package whose frames are ours: where this
    checkout's ``inspector`` and ``fuzz`` are (the children run the same checkout), as
    given and with symbolic links resolved."""
    dirs = {"fuzz": os.path.dirname(os.path.abspath(__file__))}
    spec = importlib.util.find_spec("inspector")
    if spec is not None and spec.origin is not None:
        dirs["inspector"] = os.path.dirname(os.path.abspath(spec.origin))
    return [(name, root + os.sep) for name, folder in dirs.items()
            for root in dict.fromkeys((folder, os.path.realpath(folder)))]


_PACKAGE_ROOTS = _package_roots()


def short_path(path: str) -> str:
    """``inspector/formats/x.py`` (or ``fuzz/x.py``) for a path inside this checkout's
    ``inspector`` or ``fuzz`` package; any other path as it is.

    Decided by the packages' own folders, not by a folder name in the path: a checkout
    (or a virtual environment) inside a folder called ``inspector`` is not the package.
    """
    for candidate in dict.fromkeys((path, os.path.realpath(path))):
        for name, root in _PACKAGE_ROOTS:
            if candidate.startswith(root):
                return f"{name}/{candidate[len(root):]}"
    return path


def _in_inspector(path: str) -> bool:
    return short_path(path).startswith("inspector/")


def top_frame_of_traceback(text: str) -> str:
    """The innermost ``inspector/`` frame of the last exception of a Python traceback.

    For a ``RecursionError`` the innermost frame is wherever the stack ran out,
    so the ``inspector/`` frame repeated most often (the recursion) is taken.
    """
    if not text:
        return ""
    block = _BLOCK_SPLIT.split(text.strip())[-1]
    counted = [(f, n) for f, n in _frames_with_counts(block) if _in_inspector(f[0])]
    if not counted:
        return ""
    (file, line, func), _n = counted[-1]
    if exception_of_traceback(text) == "RecursionError":
        tally: dict[tuple[str, str, str], int] = {}
        for frame, n in counted:
            tally[frame] = tally.get(frame, 0) + n
        (file, line, func) = max(reversed(list(tally)), key=lambda f: tally[f])
    return f"{short_path(file)}:{line} in {func}"


_REPEATED = re.compile(r"^\s*\[Previous line repeated (\d+) more times?\]", re.M)


def _frames_with_counts(block: str) -> list[tuple[tuple[str, str, str], int]]:
    """The frames of a traceback block, each with how often it occurs in a row."""
    out: list[tuple[tuple[str, str, str], int]] = []
    for line in block.split("\n"):
        m = _PY_FRAME.match(line)
        if m:
            out.append(((m["file"], m["line"], m["func"]), 1))
            continue
        rep = _REPEATED.match(line)
        if rep and out:
            frame, n = out[-1]
            out[-1] = (frame, n + int(rep.group(1)))
    return out


def exception_of_traceback(text: str) -> str:
    """The type name of the last exception of a Python traceback ("" when none is found)."""
    if not text:
        return ""
    block = _BLOCK_SPLIT.split(text.strip())[-1]
    frames = list(_PY_FRAME.finditer(block))
    rest = block[frames[-1].end():] if frames else block
    for line in rest.split("\n"):
        if not line.strip() or line.startswith((" ", "\t")) or line.startswith("Traceback"):
            continue
        m = _EXC_LINE.match(line)
        return m["type"].rsplit(".", 1)[-1] if m else ""
    return ""


def _exception_of_message(message: str) -> str:
    m = re.search(r"failed unexpectedly: ([A-Za-z_]\w*)", str(message))
    return m.group(1) if m else ""


def top_frame_of_dump(text: str) -> str:
    """The innermost ``inspector/`` frame of the main thread in a faulthandler dump.

    faulthandler lists each thread most recent call first; the main thread is
    the one whose stack contains the harness (``fuzz/child.py``).
    """
    if not text:
        return ""
    blocks = re.split(r"\n(?=(?:Current thread|Thread) 0x)", text)
    main = [b for b in blocks if "fuzz/child.py" in b or "fuzz/targets.py" in b]
    for block in main + blocks:
        for m in _FH_FRAME.finditer(block):
            if _in_inspector(m["file"]):
                return f"{short_path(m['file'])}:{m['line']} in {m['func']}"
    for block in main:
        first = _FH_FRAME.search(block)
        if first:
            return f"{short_path(first['file'])}:{first['line']} in {first['func']}"
    return ""
