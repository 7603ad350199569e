"""Run the window fuzzing target in a child interpreter, for tests (it owns the QApplication)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def inspect_in_child(path: Path) -> dict:
    """``fuzz.window.inspect_window`` in a fresh interpreter: the verify-JSON line it returns."""
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from fuzz.window import inspect_window\n"
            "print(inspect_window(Path(sys.argv[1])).line)\n")
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "QT_QPA_PLATFORM": "offscreen",
           "FUZZ_WINDOW_STALL_MS": "1e9",  # stalls and idle time are measured on a quiet
           "FUZZ_WINDOW_IDLE_S": "240"}    # machine, not here (the suite runs under load)
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
