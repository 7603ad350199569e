"""A pytest plugin that records each test's CPU time, child processes included.

``python -m pytest -p tests.tools.cpu_profile --cpu-profile=OUT.jsonl`` writes one JSON
object per test phase-complete test: ``{"nodeid", "cpu", "self", "children", "wall"}`` in
seconds, where ``self`` is user+sys of the test process (all its threads) and ``children``
user+sys of the child processes it waited for (``RUSAGE_CHILDREN``).  Under xdist every
worker appends to OUT.jsonl.  ``python -m tests.tools.cpu_profile OUT.jsonl`` prints the
per-file and per-test totals.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-profile", default=None,
                     help="append one JSON line of CPU seconds per test to this file")


def _cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, ch.ru_utime + ch.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    out = item.config.getoption("--cpu-profile")
    if not out:
        yield
        return
    s0, c0 = _cpu()
    w0 = time.monotonic()
    yield
    s1, c1 = _cpu()
    rec = {"nodeid": item.nodeid, "self": round(s1 - s0, 3), "children": round(c1 - c0, 3),
           "cpu": round(s1 - s0 + c1 - c0, 3), "wall": round(time.monotonic() - w0, 3),
           "pid": os.getpid()}
    with open(out, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")


def _report(path: str, top: int = 40) -> None:
    by_file: dict[str, float] = defaultdict(float)
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    for r in rows:
        by_file[r["nodeid"].split("::")[0]] += r["cpu"]
    total = sum(r["cpu"] for r in rows)
    print(f"tests {len(rows)}  cpu {total:.1f} s")
    for f, c in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{c:8.1f}  {f}")
    print("-- tests")
    for r in sorted(rows, key=lambda r: -r["cpu"])[:top]:
        print(f"{r['cpu']:8.2f} {r['children']:7.2f} {r['wall']:7.2f}  {r['nodeid']}")


if __name__ == "__main__":
    _report(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40)
