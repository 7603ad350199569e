"""The child: run one target on one mutant under limits, and write what happened.

In fork mode :func:`run_child` runs in a child forked from the fork server;
with ``--subprocess`` ``python -m fuzz.child SPEC.json`` starts a fresh
interpreter, imports Inspector and calls it.  Either way the child

1. sends stdout/stderr to files in its slot folder, enables faulthandler
   (fatal signals dump every thread's stack to stderr) and arms the
   wall-time watchdog so a hang leaves a stack dump too (:func:`arm_watchdog`);
2. limits its address space (RLIMIT_AS) to its current size plus
   ``mem_limit_mb`` (the fork server's own mappings are not counted against
   the mutant), disables core files and bounds written files;
3. digests the case folder, arms a wall-time timer (SIGALRM kills it at
   ``time_limit`` seconds), runs the target, disarms the timer, digests the
   case folder again;
4. checks the verify-JSON line (size bound, strict JSON, the verify keys) and
   collects its ``internal.reader-failed`` findings;
5. writes ``result.json`` and the head of the report, and exits with a code
   of :mod:`fuzz.outcomes`.
"""

from __future__ import annotations

import faulthandler
import json
import os
import resource
import signal
import sys
import threading
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from fuzz.hashing import tree_digest
from fuzz.outcomes import (
    EXIT_DONE,
    EXIT_ESCAPED,
    EXIT_MEMORY,
    EXIT_SETUP,
    READER_FAILED,
    REPORT_KEYS,
)
from fuzz.targets import Inspection, Target, resolve

REPORT_HEAD_BYTES = 64 << 10
FILE_SIZE_LIMIT = 512 << 20


@dataclass
class ChildSpec:
    """One run: what to open, what must stay unchanged, where to write, which limits.

    Attributes:
        input: the path given to the target (a file or a folder).
        case: the folder whose digest must be the same after the run.
        slot: the folder for ``result.json``, ``stdout.txt``, ``stderr.txt``.
        time_limit: wall-time limit of the target, in seconds.
        mem_limit_mb: address space the child may add to its size at start, MiB.
        max_report_bytes: bound on the verify-JSON line, in bytes (UTF-8).
        target: ``"module:function"`` of the target.
    """

    input: str
    case: str
    slot: str
    time_limit: float
    mem_limit_mb: int
    max_report_bytes: int
    target: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def redirect_output(slot: Path) -> None:
    """stdin from /dev/null; stdout and stderr to files in ``slot`` (file descriptors 0-2)."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        out = os.open(slot / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, fd)
        os.close(out)
    # A fork of a process that captured its output (pytest) still has wrappers around
    # other files in sys.stdout/sys.stderr: point them at the descriptors again.
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)


def forget_inherited_pool() -> None:
    """A forked child cannot use its parent's worker threads: forget the parent's pool.

    Only matters when the fork server itself runs inside
    ``inspector.formats.decoding.workers.worker_pool()`` (the test session does).
    """
    workers = sys.modules.get("inspector.formats.decoding.workers")
    if workers is not None and getattr(workers, "_current", None) is not None:
        workers._current = None  # type: ignore[attr-defined]


def _vm_size() -> int:
    """The process's current address-space size in bytes (VmSize)."""
    return _status_kb("VmSize") * 1024


def _status_kb(field: str) -> int:
    """One ``/proc/self/status`` figure (kB): VmSize, VmRSS, VmHWM..."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    raise OSError(f"no {field} in /proc/self/status")


def _rss_growth_kb(start_kb: int) -> int | None:
    """How far the peak resident set rose above ``start_kb`` while the target ran
    (what the mutant cost; the pages shared with the fork server are not counted)."""
    try:
        return max(0, _status_kb("VmHWM") - start_kb)
    except OSError:
        return None


def set_limits(mem_limit_mb: int) -> int:
    """Limit the address space to its current size + ``mem_limit_mb`` MiB; return the limit."""
    limit = _vm_size() + (mem_limit_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    return limit


def arm_watchdog(time_limit: float) -> None:
    """At ``time_limit`` s dump every thread's stack to stderr and die of SIGALRM.

    The dump is written by a Python signal handler (the whole stack, so a
    deep recursion still shows its ``inspector/`` frames).  Code that holds
    the GIL in C never lets that handler run: faulthandler's own thread
    dumps the stacks half a second later (at most 100 frames each) and the
    parent's watchdog kills the child.  Fatal signals (SIGSEGV, SIGABRT...)
    dump the stacks through faulthandler too.
    """
    faulthandler.enable(file=2, all_threads=True)
    signal.signal(signal.SIGALRM, _on_alarm)
    faulthandler.dump_traceback_later(time_limit + 0.5, exit=False, file=2)
    signal.setitimer(signal.ITIMER_REAL, max(0.001, time_limit))


def disarm_watchdog() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
    faulthandler.cancel_dump_traceback_later()


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    try:
        os.write(2, python_stacks(frame).encode("utf-8", "backslashreplace"))
    finally:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGALRM)


def python_stacks(current: FrameType | None = None, max_frames: int = 5000) -> str:
    """Every thread's stack in faulthandler's layout (most recent call first), unabridged.

    ``current`` replaces this thread's own stack (a signal handler passes the
    frame it interrupted, so the handler's frames are left out).
    """
    me = threading.get_ident()
    out = []
    for ident, top in sys._current_frames().items():
        title = "Current thread" if ident == me else "Thread"
        out.append(f"{title} 0x{ident:016x} (most recent call first):")
        f: FrameType | None = current if ident == me and current is not None else top
        n = 0
        while f is not None and n < max_frames:
            out.append(f'  File "{f.f_code.co_filename}", line {f.f_lineno} in {f.f_code.co_name}')
            f, n = f.f_back, n + 1
        if f is not None:
            out.append("  ...")
        out.append("")
    return "\n".join(out) + "\n"


def run_child(spec: ChildSpec, target: Target | None = None) -> int:
    """Run ``spec`` in this (child) process and return its exit code; see the module doc."""
    slot, case = Path(spec.slot), Path(spec.case)
    fn = target or resolve(spec.target)
    forget_inherited_pool()
    limit = set_limits(spec.mem_limit_mb)
    result: dict[str, Any] = {"mem_limit_bytes": limit, "digest_before": tree_digest(case)}
    rss_start = _status_kb("VmRSS")
    started = time.monotonic()
    arm_watchdog(spec.time_limit)
    try:
        inspection = fn(Path(spec.input))
    except BaseException as exc:  # noqa: BLE001 - every escape is an outcome to record
        disarm_watchdog()
        return _escaped(slot, result, exc, started)
    disarm_watchdog()
    result["seconds"] = round(time.monotonic() - started, 4)
    result["rss_growth_kb"] = _rss_growth_kb(rss_start)
    result["digest_after"] = tree_digest(case)
    result.update(check_report(inspection, spec.max_report_bytes, slot))
    _write_result(slot, result)
    return EXIT_DONE


def _escaped(slot: Path, result: dict[str, Any], exc: BaseException, started: float) -> int:
    code = EXIT_MEMORY if isinstance(exc, MemoryError) else EXIT_ESCAPED
    try:
        text = "".join(traceback.format_exception(exc))
        try:
            message = str(exc)[:2000]
        except Exception:  # noqa: BLE001 - a __str__ that raises
            message = "(str() of the exception raised)"
        del exc
        result["exception"] = {"type": _type_name(text), "message": message,
                               "traceback": text[-200_000:]}
        result["seconds"] = round(time.monotonic() - started, 4)
        _write_result(slot, result)
    except BaseException:  # noqa: BLE001 - out of memory while reporting: the code says enough
        pass
    return code


def _type_name(text: str) -> str:
    from fuzz.outcomes import exception_of_traceback

    return exception_of_traceback(text) or "?"


def check_report(inspection: Inspection, max_bytes: int, slot: Path) -> dict[str, Any]:
    """Size, validity and ``internal.reader-failed`` findings of the verify-JSON line."""
    line = inspection.line
    out: dict[str, Any] = {"report_problem": None, "internal": [], "codes": []}
    if not isinstance(line, str):
        out["report_bytes"] = 0
        out["report_problem"] = f"the target returned {type(line).__name__}, not a str line"
        return out
    try:
        data = line.encode("utf-8")
    except UnicodeEncodeError as exc:
        data = line.encode("utf-8", "surrogatepass")
        out["report_problem"] = f"not encodable as UTF-8: {exc}"
    out["report_bytes"] = len(data)
    (slot / "report.head.json").write_bytes(data[:REPORT_HEAD_BYTES])
    if len(data) > max_bytes:
        return out
    problem, obj = _parse_report(line)
    out["report_problem"] = out["report_problem"] or problem
    if isinstance(obj, dict) and isinstance(obj.get("findings"), list):
        findings = [f for f in obj["findings"] if isinstance(f, dict)]
        out["codes"] = sorted({str(f.get("code")) for f in findings})
        bugs = [f for f in findings if f.get("code") == READER_FAILED]
        tbs = list(inspection.tracebacks)
        out["internal"] = [{"message": str(f.get("message", ""))[:2000],
                            "traceback": tbs[i] if i < len(tbs) else ""}
                           for i, f in enumerate(bugs)]
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not strict JSON")


def _parse_report(line: str) -> tuple[str | None, Any]:
    """(problem or None, parsed object) of a verify-JSON line (RFC 8259, one line)."""
    if "\n" in line or "\r" in line:
        return "the report spans more than one line", None
    try:
        obj = json.loads(line, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        return f"not strict JSON: {exc}"[:300], None
    if not isinstance(obj, dict):
        return f"a JSON {type(obj).__name__}, not an object", None
    missing = [k for k in REPORT_KEYS if k not in obj]
    if missing:
        return f"keys missing: {', '.join(missing)}", obj
    return None, obj


def _write_result(slot: Path, result: dict[str, Any]) -> None:
    text = json.dumps(result, ensure_ascii=True, default=str)
    with open(slot / "result.json", "w", encoding="ascii") as fh:
        fh.write(text)


def main(argv: list[str] | None = None) -> int:
    """``python -m fuzz.child SPEC.json`` (the ``--subprocess`` mode)."""
    args = sys.argv[1:] if argv is None else argv
    spec = ChildSpec(**json.loads(Path(args[0]).read_text(encoding="utf-8")))
    from fuzz.targets import warm_up

    warm_up()
    target = resolve(spec.target)
    code = run_child(spec, target)
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    try:
        _code = main()
    except BaseException:  # noqa: BLE001 - the child could not start: a harness problem
        traceback.print_exc()
        sys.stderr.flush()
        _code = EXIT_SETUP
    os._exit(_code)
