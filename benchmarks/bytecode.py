"""Compile Inspector's modules to byte code before a benchmark starts processes.

``bootstrap.sh`` compiles them once after installing (an editable install does
not, and a Python run with ``PYTHONDONTWRITEBYTECODE`` would otherwise compile
every module from source at every start).  A benchmark that times fresh
processes measures the installed app, so it compiles them the same way first.
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "inspector"


def compile_inspector() -> bool:
    """Write the byte code of every module of the ``inspector`` package (as
    ``python -m compileall -q inspector`` does); True when every module compiled."""
    return bool(compileall.compile_dir(PACKAGE, quiet=1))
