"""Benchmark: how long a repaint takes beside a busy Python thread, per switch interval.

A paint asks for the interpreter lock once per call into Python (here a
2 000 x 6 ``QAbstractTableModel`` whose ``data`` is Python, as the
inspector's item models are), and each time waits for a thread running
Python to let go of it, up to the interpreter's switch interval.  This is
what :data:`inspector.runtime.interpreter_lock.GUI_SWITCH_INTERVAL_S` is chosen by.

For each interval: the median repaint of the table's viewport alone and
beside one thread counting in Python, and that thread's throughput while
the table repaints without pause, as a fraction of its throughput alone.

Prints one JSON object: ``{"intervals": {"<seconds>": {"idle_paint_ms",
"busy_paint_ms", "busy_thread_share"}}}``.

Usage: ``python benchmarks/gil_convoy.py [--repeats 7]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from typing import Any

from decoder_info import decoder

INTERVALS = (0.005, 0.0005, 0.0001, 0.00005)
ROWS, COLUMNS = 2000, 6


def _table() -> Any:
    from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
    from PySide6.QtWidgets import QTableView

    class Model(QAbstractTableModel):
        def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
            return 0 if parent.isValid() else ROWS

        def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
            return 0 if parent.isValid() else COLUMNS

        def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
            return f"{index.row()},{index.column()}" if role == Qt.ItemDataRole.DisplayRole \
                else None

    view = QTableView()
    view.setModel(Model(view))
    view.resize(1200, 800)
    view.show()
    return view


def _paint_ms(view: Any) -> float:
    t = time.perf_counter()
    view.viewport().repaint()
    return (time.perf_counter() - t) * 1000


class BusyThread:
    """A thread counting in Python until stopped (the busy job); ``count``: how far it got."""

    def __init__(self) -> None:
        self.count = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        n = 0
        while not self._stop:
            n += 1
        self.count = n

    def __enter__(self) -> BusyThread:
        self._thread.start()
        time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop = True
        self._thread.join()


def measure(view: Any, interval: float, repeats: int) -> dict[str, float]:
    sys.setswitchinterval(interval)
    idle = statistics.median(_paint_ms(view) for _ in range(repeats))
    with BusyThread():
        busy = statistics.median(_paint_ms(view) for _ in range(repeats))
    with BusyThread() as alone:
        time.sleep(0.5)
    with BusyThread() as beside:
        t = time.perf_counter()
        while time.perf_counter() - t < 0.5:
            view.viewport().repaint()
    return {"idle_paint_ms": round(idle, 1), "busy_paint_ms": round(busy, 1),
            "busy_thread_share": round(beside.count / max(1, alone.count), 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    view = _table()
    app.processEvents()
    _paint_ms(view)  # the first paint lays out and caches glyphs
    out = {f"{i:g}": measure(view, i, args.repeats) for i in INTERVALS}
    print(json.dumps({"decoder": decoder(), "rows": ROWS, "columns": COLUMNS, "intervals": out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
