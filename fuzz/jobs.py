"""Starting, watching and reaping children (fork server or fresh interpreters).

:func:`start` forks a child from this process (which has already imported
Inspector, see :func:`fuzz.targets.warm_up`) or, with ``subprocess=True``,
starts ``python -m fuzz.child``.  Each child runs in its own process group.
:func:`wait_some` waits on the children's pidfds (or polls where pidfds are
missing), kills any child that overruns its deadline, and returns the ones
that ended; :func:`finish` reads what a child left and classifies it.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz.child import ChildSpec, redirect_output, run_child
from fuzz.hashing import tree_digest
from fuzz.outcomes import EXIT_SETUP, Classified, RunRecord, classify
from fuzz.targets import Target, resolve

REPO_ROOT = Path(__file__).resolve().parents[1]
STDERR_TAIL = 64 << 10


@dataclass
class Limits:
    """The limits and mode of every child of a campaign.

    Attributes:
        time_limit: wall-time limit per mutant, seconds.
        mem_limit_mb: address space a child may add to its size at start, MiB.
        max_report_bytes: bound on the verify-JSON line.
        subprocess: start a fresh interpreter per mutant instead of forking.
        target: ``"module:function"`` run on each mutant.
        rss_budget_mb: how far a child's resident set may grow while the target runs
            (MiB; 0: no budget); a child over it counts as a memory failure and keeps
            a reproducer.  400 MiB on top of the ~90 MB an interpreter with
            Inspector loaded takes keeps ``verify`` under 500 MB.
        grace: seconds past the limit after which the parent SIGKILLs a child
            that its own timer did not stop (plus interpreter start-up time in
            subprocess mode).
    """

    time_limit: float = 10.0
    mem_limit_mb: int = 1024
    max_report_bytes: int = 2_000_000
    subprocess: bool = False
    target: str = "fuzz.targets:inspect"
    grace: float = 3.0
    rss_budget_mb: int = 400

    @property
    def deadline_after(self) -> float:
        return self.time_limit + self.grace + (30.0 if self.subprocess else 0.0)


@dataclass
class Job:
    """One running child."""

    spec: ChildSpec
    pid: int
    started: float
    deadline: float
    digest_before: str
    payload: Any = None
    popen: subprocess.Popen[bytes] | None = None
    pidfd: int | None = None
    killed: bool = False
    status: tuple[int, int | None] | None = field(default=None, repr=False)

    def poll(self) -> bool:
        """True once the child has ended (then ``status`` is (returncode, max RSS KiB))."""
        if self.status is not None:
            return True
        try:
            pid, wstatus, usage = os.wait4(self.pid, os.WNOHANG)
        except ChildProcessError:
            self.status = (-signal.SIGKILL, None)
            return True
        if pid == 0:
            return False
        self.status = (os.waitstatus_to_exitcode(wstatus), int(usage.ru_maxrss))
        if self.popen is not None:
            self.popen.returncode = self.status[0]
        return True

    def kill(self) -> None:
        """SIGKILL the child's process group (the watchdog)."""
        self.killed = True
        for fn in (os.killpg, os.kill):
            try:
                fn(self.pid, signal.SIGKILL)
                return
            except (ProcessLookupError, PermissionError):
                continue

    def close(self) -> None:
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


def start(spec: ChildSpec, limits: Limits, payload: Any = None, target: Target | None = None
          ) -> Job:
    """Start one child for ``spec``; ``target`` (fork mode) saves resolving it in the child."""
    slot = Path(spec.slot)
    slot.mkdir(parents=True, exist_ok=True)
    before = tree_digest(Path(spec.case))
    popen: subprocess.Popen[bytes] | None = None
    if limits.subprocess:
        popen = _spawn(spec, slot)
        pid = popen.pid
    else:
        pid = _fork(spec, target or resolve(spec.target))
    now = time.monotonic()
    job = Job(spec, pid, now, now + limits.deadline_after, before, payload, popen)
    try:
        job.pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        job.pidfd = None
    return job


def _fork(spec: ChildSpec, target: Target) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = EXIT_SETUP
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        redirect_output(Path(spec.slot))
        code = run_child(spec, target)
    except BaseException:  # noqa: BLE001 - a harness failure in the child
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    return -1  # not reached


def _spawn(spec: ChildSpec, slot: Path) -> subprocess.Popen[bytes]:
    (slot / "spec.json").write_text(json.dumps(spec.to_json()), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (os.fspath(REPO_ROOT),
                                                    env.get("PYTHONPATH", "")) if p)
    with open(slot / "stdout.txt", "wb") as out, open(slot / "stderr.txt", "wb") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "fuzz.child", os.fspath(slot / "spec.json")],
            stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=REPO_ROOT, env=env,
            start_new_session=True)


def wait_some(jobs: list[Job], timeout: float = 1.0) -> list[Job]:
    """Wait up to ``timeout`` s for children to end; kill the overdue; return the ended ones."""
    if not jobs:
        return []
    now = time.monotonic()
    wait = max(0.0, min(timeout, min(j.deadline for j in jobs) - now))
    fds = [j.pidfd for j in jobs if j.pidfd is not None]
    if len(fds) == len(jobs):
        select.select(fds, [], [], wait)
    else:
        end = now + wait
        while time.monotonic() < end and not any(j.poll() for j in jobs):
            time.sleep(0.005)
    done = [j for j in jobs if j.poll()]
    now = time.monotonic()
    for j in jobs:
        if j not in done and now > j.deadline and not j.killed:
            j.kill()
    return done


def finish(job: Job, limits: Limits) -> tuple[Classified, RunRecord]:
    """Read what an ended child left in its slot and classify the run."""
    job.close()
    slot, case = Path(job.spec.slot), Path(job.spec.case)
    rc, rss = job.status if job.status is not None else (-signal.SIGKILL, None)
    result = _read_json(slot / "result.json")
    try:
        after = tree_digest(case)
    except OSError as exc:
        after = f"unreadable: {exc}"
    record = RunRecord(returncode=rc, killed_by_parent=job.killed, result=result,
                       stderr_tail=_tail(slot / "stderr.txt"), digest_before=job.digest_before,
                       digest_after=after, max_report_bytes=limits.max_report_bytes,
                       rss_budget_kb=limits.rss_budget_mb * 1024,
                       seconds=time.monotonic() - job.started, max_rss_kb=rss)
    return classify(record), record


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="ascii"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - STDERR_TAIL))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def run_one(input_path: Path, case: Path, slot: Path, limits: Limits,
            target: Target | None = None) -> tuple[Classified, RunRecord]:
    """Run one child to its end and classify it (replay, tests)."""
    spec = ChildSpec(os.fspath(input_path), os.fspath(case), os.fspath(slot), limits.time_limit,
                     limits.mem_limit_mb, limits.max_report_bytes, limits.target)
    job = start(spec, limits, target=target)
    while not wait_some([job], timeout=1.0):
        pass
    return finish(job, limits)
