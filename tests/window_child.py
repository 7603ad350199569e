"""Run code in a child interpreter, for tests: a regression then hangs or crashes a child, not
the suite, and the window fuzzing target gets a QApplication of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run_python(code: str, *args: str, env: dict[str, str] | None = None,
               timeout: float = 300) -> str:
    """Run ``code`` with ``args`` in a fresh interpreter importing this checkout; its stdout.

    Asserts that the child exits with status 0 (its stderr's tail is the message).
    """
    child_env = {**os.environ, "PYTHONPATH": os.getcwd(), **(env or {})}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, timeout=timeout, env=child_env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def inspect_in_child(path: Path) -> dict:
    """``fuzz.window.inspect_window`` in a fresh interpreter: the verify-JSON line it returns."""
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from fuzz.window import inspect_window\n"
            "print(inspect_window(Path(sys.argv[1])).line)\n")
    env = {"QT_QPA_PLATFORM": "offscreen",
           "FUZZ_WINDOW_STALL_MS": "1e9",  # stalls and idle time are measured on a quiet
           "FUZZ_WINDOW_IDLE_S": "240"}    # machine, not here (the suite runs under load)
    out = run_python(code, str(path), env=env)
    return json.loads(out.strip().splitlines()[-1])
