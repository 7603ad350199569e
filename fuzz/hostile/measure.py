"""``python -m fuzz.hostile.measure HWM_FILE ARG...``: run ``inspector ARG...`` in this
process and write its peak resident set (``VmHWM``, kB) to ``HWM_FILE`` at exit.

``wait4``'s ``ru_maxrss`` cannot be used for a child of a large process: the kernel
keeps the high-water mark of the image the child was forked from (a pytest run of
700 MB) across ``exec``.  ``VmHWM`` belongs to the address space, which ``exec``
replaces, so it counts only what the command itself made resident.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def peak_kb() -> int:
    """This process's ``VmHWM`` in kB (0 where /proc is not there)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def main() -> None:
    hwm_file, *args = sys.argv[1:]
    sys.argv = ["inspector", *args]
    try:
        runpy.run_module("inspector", run_name="__main__", alter_sys=True)
    finally:
        Path(hwm_file).write_text(str(peak_kb()))


if __name__ == "__main__":
    main()
