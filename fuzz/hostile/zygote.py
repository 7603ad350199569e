"""A fork server for hostile commands: ``python -m fuzz.hostile.zygote [--gui]``.

Starting ``python -m inspector`` costs about 0.4 CPU-s before a command does anything
(the interpreter, NumPy, h5py) and about 1.5 CPU-s for a window (PySide6 too).  The
zygote imports those once and forks one child per command; the child becomes the
command exactly as :mod:`fuzz.hostile.measure` runs it in a fresh process (its own
session, the address-space cap, the case folder as working directory, stdin from
``/dev/null``, stdout and stderr to the given files, ``runpy`` of ``inspector``, a
normal interpreter exit so that a crash at exit is still seen) and writes its peak
resident set to the given file when it leaves.

Peak memory: a forked child's ``VmHWM`` starts from what it shares with the zygote.
Its anonymous memory (the imported modules' objects) is counted from the start, as in
a fresh process; file pages (library code) are counted only once the child touches
them, while a fresh process would have touched the import-time ones itself.  So the
child reports its ``VmHWM`` plus the zygote's whole file-backed resident set at the
fork (``RssFile``): at least what the same command measures in a fresh process, never
less.  With ``--gui`` PySide6's QtCore, QtGui and QtWidgets are imported too (no
QApplication: the command creates its own); a headless command run from it counts
them as well.

Protocol (one command at a time), on the zygote's stdin and stdout: a request is one
JSON line ``{"argv", "env", "cwd", "stdout", "stderr", "hwm_file", "address_space"}``; the
zygote answers ``pid PID SHARED_KB`` once the child runs (``SHARED_KB``: the
``RssFile`` added to the child's peak) and ``exit PID STATUS CPU`` (the raw ``wait``
status, the child's user+system CPU seconds) when it has ended; an empty line ends
the zygote.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import runpy
import sys
import threading
from pathlib import Path

from fuzz.hostile.measure import peak_kb


def rss_file_kb() -> int:
    """This process's file-backed resident set (``RssFile``, kB; 0 without /proc)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("RssFile:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


#: Modules a headless command imports in any case (``python -X importtime -m inspector
#: verify``): imported once in the zygote.
HEADLESS = ("numpy", "h5py", "yaml", "inspector.cli", "inspector.formats.sources.discovery",
            "inspector.formats.hdf5.source", "inspector.formats.hdf5.data",
            "inspector.formats.vneurotk.identify")
#: And those of a window (no QApplication: the command creates its own).
GUI = (*HEADLESS, "PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets",
       "inspector.ui.main_window")


def _preload(gui: bool) -> None:
    # ``inspector.cli.main`` sets this before anything loads HDF5, which reads it once,
    # when h5py loads it: so must the zygote, before it imports h5py.
    os.environ.setdefault("HDF5_EXTFILE_PREFIX", "${ORIGIN}")
    for name in GUI if gui else HEADLESS:
        importlib.import_module(name)
    if threading.active_count() != 1:  # a fork copies only the forking thread
        raise RuntimeError(f"a preloaded module started a thread: {threading.enumerate()}")


def _become_command(request: dict, shared_kb: int) -> None:
    """In the forked child: set up as a fresh ``python -m inspector ARGV`` would be and
    run it; never returns (``SystemExit`` or the command's own exception unwinds the
    zygote's stack, and the interpreter exits as the command's would)."""
    os.setsid()
    cap = int(request["address_space"])
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd, target in ((null, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
        os.close(fd)
    sys.path[0] = request["cwd"]  # ``python -m`` puts the working directory first
    sys.argv = ["inspector", *request["argv"]]
    hwm_file = Path(request["hwm_file"])
    try:
        runpy.run_module("inspector", run_name="__main__", alter_sys=True)
    finally:
        hwm_file.write_text(str(peak_kb() + shared_kb))


def _say(text: str) -> None:
    os.write(1, (text + "\n").encode())


def serve(gui: bool) -> None:
    """Preload, then run requests read from stdin until an empty line or EOF."""
    _preload(gui)
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    _say("ready")
    for line in requests:
        if not line.strip():
            return
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        shared_kb = rss_file_kb()
        pid = os.fork()
        if pid == 0:
            requests.close()
            _become_command(request, shared_kb)
            raise SystemExit(0)  # not reached: the command ends with SystemExit
        _say(f"pid {pid} {shared_kb}")
        _, status, usage = os.wait4(pid, 0)
        _say(f"exit {pid} {status} {usage.ru_utime + usage.ru_stime:.3f}")


if __name__ == "__main__":
    serve("--gui" in sys.argv[1:])
