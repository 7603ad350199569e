"""Run hostile cases: each command in its own process, timed, its peak RSS measured.

A command runs either as a fresh ``python -m fuzz.hostile.measure`` process (the
default) or forked from a :class:`Zygotes` fork server (:mod:`fuzz.hostile.zygote`),
which spares each command the interpreter's and the libraries' start; both are judged
by the same bounds (see the zygote module for how its peak memory is counted)."""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fuzz.hostile.case import HostileCase, Scale

#: Address space a command may take before the kernel refuses it (protects the
#: machine; the case's own ``rss_limit_mb`` is what is judged).
ADDRESS_SPACE_CAP = 16 << 30
_POLL_S = 0.05
_TRACEBACK = b"Traceback (most recent call last)"
_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class CommandResult:
    """What one command did: its argument list, exit status (negative: the signal
    that ended it), wall time, peak resident set, and why it failed (empty: passed)."""

    argv: tuple[str, ...]
    status: int
    seconds: float
    peak_rss_mb: float
    timed_out: bool
    problems: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "status": self.status,
                "seconds": round(self.seconds, 3), "peak_rss_mb": round(self.peak_rss_mb, 1),
                "timed_out": self.timed_out, "problems": list(self.problems)}


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_CAP, ADDRESS_SPACE_CAP))
    os.setsid()


def _hwm_kb(pid: int) -> int:
    """``VmHWM`` of a running process, kB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _wait(proc: subprocess.Popen[bytes], limit_s: float,
          interrupt_s: float | None = None) -> tuple[int, int, bool]:
    """Wait for ``proc`` up to ``limit_s``; kill its process group past it; send it
    SIGINT (as Ctrl-C does) after ``interrupt_s``.  Returns (status, the highest VmHWM
    seen while polling in kB, timed_out)."""
    start = time.monotonic()
    deadline = start + limit_s
    interrupt_at = None if interrupt_s is None else start + interrupt_s
    peak = 0
    while True:
        peak = max(peak, _hwm_kb(proc.pid))
        pid, status = os.waitpid(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            return status, peak, False
        if interrupt_at is not None and time.monotonic() > interrupt_at:
            os.kill(proc.pid, signal.SIGINT)
            interrupt_at = None
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            _, status = os.waitpid(proc.pid, 0)
            return status, peak, True
        time.sleep(_POLL_S)


def _substitute(argv: tuple[str, ...], target: str, out: Path) -> tuple[str, ...]:
    return tuple(a.replace("{target}", target).replace("{out}", str(out)) for a in argv)


def _command_env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, (str(_ROOT), os.environ.get("PYTHONPATH"))))
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONFAULTHANDLER": "1",
            "PYTHONPATH": path}


class _Zygote:
    """One ``python -m fuzz.hostile.zygote`` process and its reply pipe."""

    def __init__(self, gui: bool) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fuzz.hostile.zygote", *(["--gui"] if gui else [])],
            cwd=_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=_command_env())
        self._buffer = b""
        if self.read_line(None) != "ready":
            raise RuntimeError("the hostile fork server did not start")

    def read_line(self, timeout_s: float | None) -> str | None:
        """The next reply line, or None when none came within ``timeout_s``."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], timeout_s)
            if not ready:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise RuntimeError("the hostile fork server ended")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def start(self, request: dict[str, Any]) -> tuple[int, int]:
        """Fork a child for ``request``: its pid and the kB the zygote shares with it
        uncounted (added to its peak)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        reply = self.read_line(None) or ""
        kind, pid, shared_kb = reply.split()
        assert kind == "pid", reply
        return int(pid), int(shared_kb)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(30)


class Zygotes:
    """The fork servers of a run (one headless, one with PySide6 for ``--screenshot``
    commands), started when first needed; use as a context manager."""

    def __init__(self) -> None:
        self._servers: dict[bool, _Zygote] = {}

    def for_argv(self, argv: tuple[str, ...]) -> _Zygote:
        gui = "--screenshot" in argv
        if gui not in self._servers:
            self._servers[gui] = _Zygote(gui)
        return self._servers[gui]

    def close(self) -> None:
        for server in self._servers.values():
            server.close()
        self._servers.clear()

    def __enter__(self) -> Zygotes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _wait_forked(server: _Zygote, pid: int, limit_s: float,
                 interrupt_s: float | None = None) -> tuple[int, int, bool]:
    """:func:`_wait` for a child of a fork server."""
    start = time.monotonic()
    deadline = start + limit_s
    interrupt_at = None if interrupt_s is None else start + interrupt_s
    peak, timed_out = 0, False
    while True:
        peak = max(peak, _hwm_kb(pid))
        reply = server.read_line(_POLL_S)
        if reply is not None:
            kind, who, status, _cpu = reply.split()
            assert kind == "exit" and int(who) == pid, reply
            return int(status), peak, timed_out
        if interrupt_at is not None and time.monotonic() > interrupt_at:
            os.kill(pid, signal.SIGINT)
            interrupt_at = None
        if not timed_out and time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)
            timed_out = True


def _run_forked(server: _Zygote, case: HostileCase, argv: tuple[str, ...], workdir: Path,
                hwm_file: Path) -> tuple[int, int, bool, bytes, bytes]:
    out, err = workdir / ".stdout", workdir / ".stderr"
    pid, shared_kb = server.start({"argv": list(argv), "env": _command_env(), "cwd": str(workdir),
                        "stdout": str(out), "stderr": str(err), "hwm_file": str(hwm_file),
                        "address_space": ADDRESS_SPACE_CAP})
    raw_status, polled_kb, timed_out = _wait_forked(server, pid, case.time_limit_s,
                                                     case.interrupt_after_s)
    stdout, stderr = out.read_bytes(), err.read_bytes()
    out.unlink()
    err.unlink()
    return raw_status, polled_kb + shared_kb, timed_out, stdout, stderr


def run_command(case: HostileCase, argv: tuple[str, ...], workdir: Path,
                zygotes: Zygotes | None = None) -> CommandResult:
    """Run ``inspector *argv`` (through :mod:`fuzz.hostile.measure`, which reports the
    command's own peak RSS, or forked from ``zygotes``) under the case's limits and
    judge it."""
    hwm_file = workdir / ".peak-kb"
    hwm_file.unlink(missing_ok=True)
    if zygotes is not None:
        start = time.monotonic()
        raw_status, polled_kb, timed_out, stdout, stderr = _run_forked(
            zygotes.for_argv(argv), case, argv, workdir, hwm_file)
        return _result(case, argv, raw_status, time.monotonic() - start, polled_kb,
                       timed_out, stdout, stderr, hwm_file)
    env = _command_env()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "fuzz.hostile.measure", str(hwm_file), *argv],
            cwd=workdir, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
            preexec_fn=_limit_address_space)
        raw_status, polled_kb, timed_out = _wait(proc, case.time_limit_s,
                                                  case.interrupt_after_s)
        seconds = time.monotonic() - start
        proc.returncode = 0  # reaped by waitpid above
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    return _result(case, argv, raw_status, seconds, polled_kb, timed_out, stdout, stderr,
                   hwm_file)


def _result(case: HostileCase, argv: tuple[str, ...], raw_status: int, seconds: float,
            polled_kb: int, timed_out: bool, stdout: bytes, stderr: bytes,
            hwm_file: Path) -> CommandResult:
    status = (-os.WTERMSIG(raw_status) if os.WIFSIGNALED(raw_status)
              else os.WEXITSTATUS(raw_status))
    written = hwm_file.read_text() if hwm_file.exists() else ""
    peak = max(polled_kb, int(written) if written.isdigit() else 0) / 1024.0
    problems = _judge(case, argv, status, peak, timed_out, stdout, stderr)
    return CommandResult(argv, status, seconds, peak, timed_out, tuple(problems))


def _judge(case: HostileCase, argv: tuple[str, ...], status: int, peak_mb: float,
           timed_out: bool, stdout: bytes, stderr: bytes) -> list[str]:
    problems: list[str] = []
    if timed_out:
        problems.append(f"hang: still running after {case.time_limit_s} s")
    elif status < 0:
        problems.append(f"crash: ended by signal {-status}")
    elif status not in case.exit_codes:
        problems.append(f"exit status {status} not in {sorted(case.exit_codes)}")
    if peak_mb > case.rss_limit_mb:
        problems.append(f"memory: peak RSS {peak_mb:.0f} MB over {case.rss_limit_mb:.0f} MB")
    if _TRACEBACK in stdout or _TRACEBACK in stderr:
        problems.append("a Python traceback was printed")
    longest = max((len(line) for line in stdout.splitlines()), default=0)
    if longest > case.max_line_bytes:
        problems.append(f"an output line of {longest} bytes (limit {case.max_line_bytes})")
    for secret in case.forbidden_output:
        if secret in stdout or secret in stderr:
            problems.append(f"forbidden bytes {secret[:40]!r} reached the output")
    if argv[:1] == ("verify",) and "--json" in argv and not timed_out and status >= 0:
        problems.extend(_missing_codes(case, stdout))
    return problems


def _missing_codes(case: HostileCase, stdout: bytes) -> list[str]:
    codes: set[str] = set()
    for line in stdout.splitlines():
        try:
            report = json.loads(line)
        except ValueError:
            return [f"verify --json printed a line that is not JSON: {line[:80]!r}"]
        codes.update(f.get("code", "") for f in report.get("findings", ())
                     if isinstance(f, dict))
    missing = sorted(case.expect_codes - codes)
    return [f"expected finding codes missing: {missing}"] if missing else []


def run_case(case: HostileCase, scale: Scale, folder: Path,
             zygotes: Zygotes | None = None) -> dict[str, Any]:
    """Build ``case`` at ``scale`` under ``folder`` and run each of its commands (each
    a fresh process, or forked from ``zygotes``)."""
    (folder / "input").mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with case.build(folder / "input", scale) as target:
        built_s = time.monotonic() - started
        results = [run_command(case, _substitute(argv, target, folder / f"out{i}"), folder,
                               zygotes)
                   for i, argv in enumerate(case.commands)]
    return {"name": case.name, "area": case.area, "build_seconds": round(built_s, 3),
            "passed": all(not r.problems for r in results),
            "commands": [r.to_json() for r in results]}


def repo_root() -> Path:
    """The repository root (the runner runs ``python -m inspector`` from the case folder
    with this root first on ``PYTHONPATH``, so this checkout's package is the one run)."""
    return _ROOT
