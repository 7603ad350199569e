"""Benchmark: opening a Beckman XL-A run folder of 1 000 scans of 700 points.

Builds (once, cached in ``/tmp/inspector-beckman-bench``) a run folder of
``--scans`` RA scan files (three interleaved wavelengths, cell 1, CRLF line
ends, radius/absorbance/standard deviation as UltraScan III's legacy exporter
writes them), then prints one JSON object::

    {"scans", "points", "files_mb", "plotted_s", "plotted_runs", "max_gui_gap_ms",
     "open_s", "open_cpu_s", "budget_s", "within_budget", "groups", "findings", "runs"}

``plotted_s`` is what the budget is about: the median, over ``--repeat``
fresh child processes, of the wall time from File > Open of the folder in
a shown 1280 x 800 window (offscreen, plots package already imported, as
after start-up) until the document is plotted: every scan's line on
screen and the window idle (``MainWindow.is_idle``, what ``--screenshot``
waits for); ``max_gui_gap_ms`` is the longest gap of a 5 ms ``QTimer``
probe on the GUI thread over that time (the worst of the runs).
``open_s`` is the median wall time of
``inspector.formats.registry.open_document(folder)`` alone over
``--repeat`` runs, ``open_cpu_s`` its process CPU time (the machine may be
shared); imports and the first build are not timed.  Usage::

    python benchmarks/beckman_open.py [--scans N] [--points N] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from decoder_info import decoder

CACHE = Path("/tmp/inspector-beckman-bench")
BUDGET_S = 2.0
_BUILD_VERSION = "1"


def build(n_scans: int, n_points: int) -> Path:
    """The cached run folder; written if absent (deterministic content)."""
    import numpy as np

    folder = CACHE / f"run_{n_scans}x{n_points}_v{_BUILD_VERSION}"
    if folder.is_dir() and len(list(folder.iterdir())) == n_scans:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2024)
    radius = np.round(np.linspace(5.90, 7.20, n_points), 4)
    for i in range(n_scans):
        wavelength = (280, 260, 230)[i % 3]
        seconds = 120 * (i // 3 + 1)
        boundary = 6.0 + 1.1 * (i // 3) / max(n_scans // 3, 1)
        value = 0.5 * (1 + np.tanh((radius - boundary) / 0.02)) + rng.normal(0, 0.01, n_points)
        sd = np.abs(rng.normal(0.005, 0.001, n_points))
        lines = ["benchmark run: synthetic boundary, cell 1",
                 f"R 1 20.0 50000 {seconds:07d} {seconds * 2.74e7:11.4E}".replace("E+", "E")
                 + f" {wavelength:4d} 3"]
        lines += [f"{r:9.4f} {v:12.5E} {s:13.5E}" for r, v, s in zip(radius, value, sd,
                                                                       strict=True)]
        (folder / f"{i + 1:05d}.RA1").write_bytes(("\r\n".join(lines) + "\r\n").encode("ascii"))
    return folder


def plotted(folder: Path) -> dict[str, Any]:
    """In this (fresh) process: open ``folder`` in a window, time it until plotted."""
    import inspector  # noqa: F401 - before PySide6: it switches lazy Qt classes off
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer

    from inspector.app import make_application
    from inspector.formats.decoding.workers import worker_pool

    def spin(cond: Any, timeout: float = 120.0) -> bool:
        loop, end, poll = QEventLoop(), time.perf_counter() + timeout, QTimer()
        poll.setInterval(2)
        poll.timeout.connect(lambda: loop.quit() if cond() or time.perf_counter() > end else None)
        poll.start()
        if not cond():
            loop.exec()
        poll.stop()
        return bool(cond())

    with worker_pool():
        app = make_application()
        from inspector.runtime import preload
        from inspector.ui.main_window import MainWindow

        win = MainWindow()
        win.resize(1280, 800)
        win.show()
        preload.preload([preload.PLOTS])
        spin(lambda: False, 0.3)
        spin(lambda: not preload.busy() and preload.loaded(preload.PLOTS) is not None)
        clock, ticks = QElapsedTimer(), []
        probe = QTimer()
        probe.setInterval(5)
        probe.timeout.connect(lambda: ticks.append(clock.elapsed()))

        def drawn() -> bool:
            tab = win.current_tab()
            view = tab.plot.view if tab is not None and tab.plot is not None else None
            return (view is not None and getattr(view, "drawn", 0) >= 1
                    and bool(getattr(view, "ready", False)) and win.is_idle())

        clock.start()
        probe.start()
        ticks.append(0)
        t0 = time.perf_counter()
        win.open_paths([str(folder)])
        ok = spin(drawn)
        wall = time.perf_counter() - t0
        probe.stop()
        ticks.append(clock.elapsed())
        gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
        tab = win.current_tab()
        scans = tab.plot.view.shape.scans if ok else 0
        win.close()
        app.processEvents()
    return {"plotted_s": round(wall, 3), "timed_out": not ok, "plotted_scans": scans,
            "max_gui_gap_ms": max(gaps) if gaps else 0}


def main() -> None:
    """Build the folder, time ``open_document`` on it and print the JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=1000)
    parser.add_argument("--points", type=int, default=700)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plotted", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.plotted:
        print(json.dumps(plotted(Path(args.plotted))))
        return

    from inspector.formats.registry import open_document

    folder = build(args.scans, args.points)
    gui = []
    for _ in range(args.repeat):
        child = subprocess.run([sys.executable, __file__, "--plotted", str(folder)],
                               capture_output=True, text=True, check=False)
        if child.returncode != 0:
            sys.stderr.write(child.stderr)
            raise SystemExit(child.returncode)
        gui.append(json.loads(child.stdout.strip().splitlines()[-1]))
    walls, cpus, doc = [], [], None
    for _ in range(args.repeat):
        w, c = time.perf_counter(), time.process_time()
        doc = open_document(folder)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    assert doc is not None
    size = sum(p.stat().st_size for p in folder.iterdir())
    plotted_s = statistics.median(g["plotted_s"] for g in gui)
    result = {
        "scans": args.scans, "points": args.points, "files_mb": round(size / 1e6, 2),
        "plotted_s": round(plotted_s, 3), "plotted_runs": [g["plotted_s"] for g in gui],
        "plotted_scans": gui[0]["plotted_scans"],
        "timed_out": any(g["timed_out"] for g in gui),
        "max_gui_gap_ms": max(g["max_gui_gap_ms"] for g in gui),
        "open_s": round(statistics.median(walls), 3),
        "open_cpu_s": round(statistics.median(cpus), 3), "budget_s": BUDGET_S,
        "within_budget": plotted_s < BUDGET_S and not any(g["timed_out"] for g in gui),
        "format": str(doc.format), "groups": len(doc.tables["groups"]),
        "findings": len(doc.findings), "runs": [round(w, 3) for w in walls],
    }
    result["decoder"] = decoder()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
