"""Benchmark: the GUI thread's CPU time to show a Compare tab's tree of differences of a
large report (offscreen Qt, no files): reports of N changed HDF5 objects (and N / 10
findings), each shown in a fresh :class:`~inspector.ui.compare.tree.DiffTree` of 800 x 600
pixels.

Per N: ``groups_ms`` (:func:`~inspector.ui.compare.tree.groups_of`, made on the
comparison's job), ``show_ms`` (``show_report`` on the GUI thread), ``paint_ms`` (the
events that follow: the first paint), ``expand_ms`` (expanding the largest section, which
the tree leaves collapsed past ``EXPANDED_ROWS`` rows) and ``select_ms`` (selecting its
last listed row).  Times are the GUI thread's own CPU time (``time.thread_time``), the
best of ``--repeat`` runs.

Usage: ``QT_QPA_PLATFORM=offscreen python benchmarks/compare_tree.py [--sizes 1000,5000]
[--repeat 3]``; prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's inspector


def _cpu_ms(fn: Callable[[], Any]) -> float:
    t = time.thread_time()
    fn()
    return (time.thread_time() - t) * 1000


def one(app: Any, n: int) -> dict[str, float]:
    """The times of one report of ``n`` differences."""
    from inspector.formats.compare.model import Difference, DiffOptions, DiffReport, Side
    from inspector.ui.compare.tree import MAX_ROWS, DiffTree, groups_of

    found = [{"severity": "warning", "code": "x.y", "message": f"finding {i}"}
             for i in range(n // 10)]
    diffs = [Difference("objects", "changed", f"/group/dataset_{i}", a=i, b=i + 1)
             for i in range(n)]
    report = DiffReport(Side("a.h5", "hdf5", "HDF5 file", True, found),
                        Side("b.h5", "hdf5", "HDF5 file", True, []), DiffOptions(), diffs)
    tree = DiffTree()
    tree.resize(800, 600)
    tree.show()
    app.processEvents()
    out: dict[str, float] = {}
    groups: list[Any] = []
    out["groups_ms"] = _cpu_ms(lambda: groups.extend(groups_of(report)))
    out["show_ms"] = _cpu_ms(lambda: tree.show_report(report, groups))
    out["paint_ms"] = _cpu_ms(app.processEvents)
    model = tree.model()
    top = model.index(model.rowCount() - 1, 0)
    out["expand_ms"] = _cpu_ms(lambda: (tree.expand(top), app.processEvents()))
    last = f"/group/dataset_{min(n, MAX_ROWS) - 1}"
    out["select_ms"] = _cpu_ms(lambda: (tree.select_path("objects", last),
                                        app.processEvents()))
    tree.deleteLater()
    app.processEvents()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000,20000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    load = os.getloadavg()[0]
    out: dict[str, Any] = {}
    for n in (int(s) for s in args.sizes.split(",")):
        runs = [one(app, n) for _ in range(args.repeat)]
        out[str(n)] = {k: round(min(r[k] for r in runs), 1) for k in runs[0]}
    out.update({"repeat": args.repeat, "load_1min_before": round(load, 2),
                "load_1min_after": round(os.getloadavg()[0], 2)})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
