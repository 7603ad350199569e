"""Benchmark: replacing the findings the dock lists, alone and beside a busy Python thread.

The window's findings dock (:class:`~inspector.ui.findings_dock.FindingsDock`,
shown at 1280x800) is given ``--findings`` findings of three severities, then
the same number of other findings, as a tab's check does when it ends.  Each
replacement is timed in two parts on the GUI thread: ``set_rows`` (the model
reset and the sort by severity) and the events after it (layout and the paint
of the rows in view).  Both are timed alone and beside one thread counting in
Python at the GUI's switch interval
(:data:`inspector.runtime.interpreter_lock.GUI_SWITCH_INTERVAL_S`):
every call into Python that a sort or a paint makes waits there for the
interpreter lock (``benchmarks/gil_convoy.py``).

Prints one JSON object: ``findings`` and, for ``alone`` and ``busy``, the
medians over ``--repeats`` replacements of ``set_rows_ms``, ``events_ms``
and ``total_ms``.

Usage: ``python benchmarks/findings_reset.py [--findings 106] [--repeats 9]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from decoder_info import decoder  # noqa: E402 - a sibling script
from gil_convoy import BusyThread  # noqa: E402 - a sibling script, found through sys.path


def _findings(n: int, variant: int) -> list[Any]:
    from inspector.formats.findings import Finding, Severity

    severities = [Severity.WARNING, Severity.ERROR, Severity.INFO]
    return [Finding(severities[i % 3], f"checksums.code-{i % 9}",
                    f"member extras/e{i:05d}.txt is listed in the checksum file but not "
                    f"named by the manifest ({variant})", f"extras/e{i:05d}.txt",
                    "AUCX 1.0 §4.2") for i in range(n)]


def _replace(app: Any, dock: Any, rows: list[Any]) -> tuple[float, float]:
    t0 = time.perf_counter()
    dock.set_rows(rows, all_files=False)
    t1 = time.perf_counter()
    for _ in range(3):
        app.processEvents()
    return (t1 - t0) * 1000, (time.perf_counter() - t1) * 1000


def measure(app: Any, dock: Any, n: int, repeats: int) -> dict[str, float]:
    owner = object()
    parts = [_replace(app, dock, [("x.aucx", f, owner) for f in _findings(n, i)])
             for i in range(repeats)]
    set_rows = statistics.median(p[0] for p in parts)
    events = statistics.median(p[1] for p in parts)
    total = statistics.median(p[0] + p[1] for p in parts)
    return {"set_rows_ms": round(set_rows, 1), "events_ms": round(events, 1),
            "total_ms": round(total, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--findings", type=int, default=106)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    import inspector  # noqa: F401 - before PySide6: it switches lazy Qt classes off
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMainWindow

    from inspector.app import make_application
    from inspector.runtime.interpreter_lock import GUI_SWITCH_INTERVAL_S
    from inspector.ui.findings_dock import FindingsDock

    app = make_application()
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    win = QMainWindow()
    dock = FindingsDock(win)
    win.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    win.resize(1280, 800)
    win.show()
    _replace(app, dock, [("x.aucx", f, None) for f in _findings(args.findings, -1)])
    alone = measure(app, dock, args.findings, args.repeats)
    with BusyThread():
        busy = measure(app, dock, args.findings, args.repeats)
    print(json.dumps({"decoder": decoder(), "findings": args.findings, "alone": alone,
                      "busy": busy}))


if __name__ == "__main__":
    main()
