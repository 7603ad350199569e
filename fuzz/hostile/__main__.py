"""``python -m fuzz.hostile``: build and run the hostile corpus, print one JSON object.

    python -m fuzz.hostile [--scale small|full] [--only NAME ...] [--area AREA]
                           [--out DIR] [--list] [--fork-server]

Exit status: 0 when every command of every case passed, 1 otherwise, 2 for bad
arguments.  See fuzz/README.md, "The hostile corpus".
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from fuzz.hostile import all_cases
from fuzz.hostile.runner import Zygotes, run_case


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m fuzz.hostile")
    p.add_argument("--scale", choices=("small", "full"), default="small")
    p.add_argument("--only", nargs="*", default=None, help="case names to run")
    p.add_argument("--area", default=None, help="run only the cases of this area")
    p.add_argument("--out", type=Path, default=None, help="folder for the built inputs")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--fork-server", action="store_true",
                   help="fork each command from a process that has imported Inspector "
                        "(fuzz/hostile/zygote.py) instead of starting it afresh")
    args = p.parse_args(argv)
    cases = [c for c in all_cases()
             if args.scale in c.only_scales
             and (args.only is None or c.name in args.only)
             and (args.area is None or c.area == args.area)]
    if args.list:
        for c in cases:
            print(f"{c.area:10} {c.name:40} {c.description}")
        return 0
    out = args.out or Path(tempfile.mkdtemp(prefix="hostile-"))
    start = time.monotonic()
    with Zygotes() as zygotes:
        server = zygotes if args.fork_server else None
        reports = [run_case(c, args.scale, out / c.name, server) for c in cases]
    summary = {"scale": args.scale, "cases": len(reports),
               "passed": sum(r["passed"] for r in reports),
               "failed": [r["name"] for r in reports if not r["passed"]],
               "seconds": round(time.monotonic() - start, 1), "out": str(out),
               "results": reports}
    print(json.dumps(summary))
    return 0 if not summary["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())
