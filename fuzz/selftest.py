"""Hand-made targets that misbehave on purpose, one per outcome class.

Used by tests/test_fuzz_smoke.py (and by ``--target fuzz.selftest:NAME``) to
check that :func:`fuzz.outcomes.classify` sorts each kind of child
correctly.  None of them touches Inspector except :func:`internal`, which
builds a real ``internal.reader-failed`` document through the registry.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from fuzz.targets import Inspection

_CLEAN = {"path": "", "format": "unknown", "ok": True, "findings": [], "summary": {}}


def clean(path: Path) -> Inspection:
    """Returns a valid, empty verify-JSON object."""
    return Inspection(json.dumps({**_CLEAN, "path": os.fspath(path)}))


def sleep(path: Path) -> Inspection:
    """Sleeps far past any time limit a test uses."""
    time.sleep(600)
    return clean(path)


def busy(path: Path) -> Inspection:
    """Spins in pure Python past the time limit."""
    while True:
        pass


def c_loop(path: Path) -> Inspection:
    """Spins inside C code that holds the GIL and never checks for signals."""
    import collections
    import itertools

    collections.deque(itertools.repeat(None, 10 ** 15), maxlen=0)
    return clean(path)


def raise_error(path: Path) -> Inspection:
    """Raises an ordinary exception."""
    raise KeyError("raised on purpose")


def allocate(path: Path) -> Inspection:
    """Allocates 64 GiB in one block (far beyond any ``--mem-limit-mb``)."""
    block = bytearray(64 << 30)
    return Inspection(str(len(block)))


def modify_input(path: Path) -> Inspection:
    """Appends a byte to its input (to the first file of a folder) and returns normally."""
    victim = path if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())[0]
    with open(victim, "ab") as fh:
        fh.write(b"\0")
    return clean(path)


def segfault(path: Path) -> Inspection:
    """Kills itself with SIGSEGV."""
    os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(5)
    return clean(path)


def oversized(path: Path) -> Inspection:
    """Returns a 3 MB verify-JSON line."""
    summary = {"x": "y" * 3_000_000}
    return Inspection(json.dumps({**_CLEAN, "path": os.fspath(path), "summary": summary}))


def invalid(path: Path) -> Inspection:
    """Returns a line that is not strict JSON."""
    return Inspection('{"path": NaN}')


def internal(path: Path) -> Inspection:
    """Returns the document the registry builds when a reader raises."""
    from inspector.cli import json_line
    from inspector.formats.registry import reader_failed

    try:
        raise ValueError("a reader bug, on purpose")
    except ValueError as exc:
        doc = reader_failed(path, "selftest", exc)
    return Inspection(json_line(doc.to_json()), [doc.traceback or ""])


def exit_quietly(path: Path) -> Inspection:
    """Leaves with ``os._exit(3)``, as a C library calling ``exit()`` would."""
    os._exit(3)
