"""Benchmark: repainting a recording's header and raw trees, Python model against Qt items.

The header panel of a continuous VneuroTK recording (its header tree and its
HDF5 object tree, as ``benchmarks/open_recording.py`` writes it: 80 and 418
nodes) is shown twice, side by side in one process: once through the lazily
filled Python model (:class:`~inspector.models.node_tree_model.NodeTreeModel`
behind :class:`~inspector.models.node_filter_model.NodeFilterProxy`), once
through Qt's own items (:class:`~inspector.models.node_item_model.NodeItemModel`
behind :class:`~inspector.models.node_filter_model.ItemFilterProxy`), with
every row expanded.  Each is repainted alone and beside one thread counting
in Python, at the GUI's switch interval
(:data:`inspector.runtime.interpreter_lock.GUI_SWITCH_INTERVAL_S`):
beside a busy thread a paint waits for the interpreter lock once per call
into Python (``benchmarks/gil_convoy.py``).

Also timed: making the rows of both trees as items (:func:`~inspector.models.node_rows.tree_rows`,
what the window does on a job) and adding them to a model (on the GUI thread).

Prints one JSON object: per model ``idle_paint_ms``, ``busy_paint_ms`` and
``busy_paint_cpu_ms`` (medians of ``--repeats`` repaints of both trees'
viewports; CPU time of the GUI thread), plus ``rows_made_ms`` and
``rows_added_ms``.

Usage: ``python benchmarks/tree_paint.py [--repeats 21] [--cache DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RECORDING_MB = 16

sys.path.insert(0, str(ROOT / "benchmarks"))
from decoder_info import decoder  # noqa: E402 - a sibling script
from gil_convoy import BusyThread  # noqa: E402 - a sibling script, found through sys.path


def _recording(cache: Path) -> Path:
    from open_recording import write_recording

    path = cache / f"continuous_{RECORDING_MB}MiB.h5"
    if not path.exists():
        write_recording(path, RECORDING_MB * 2**20)
    return path


def _views(trees: list[Any], items: bool) -> list[Any]:
    from PySide6.QtWidgets import QTreeView

    from inspector.models.node_filter_model import filter_proxy_for
    from inspector.models.node_item_model import NodeItemModel
    from inspector.models.node_tree_model import NodeTreeModel

    views = []
    for tree in trees:
        model = NodeItemModel(tree) if items else NodeTreeModel(tree)
        view = QTreeView()
        view.setUniformRowHeights(True)
        view.setModel(filter_proxy_for(model, view))
        view.resize(560, 700)
        view.show()
        view.expandAll()
        views.append(view)
    return views


def _repaint(views: list[Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    for view in views:
        view.viewport().repaint()
    return (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000


def _measure(views: list[Any], repeats: int) -> dict[str, float]:
    _repaint(views)  # (the first paint lays out and caches glyphs)
    idle = [_repaint(views) for _ in range(repeats)]
    with BusyThread():
        busy = [_repaint(views) for _ in range(repeats)]
    return {"idle_paint_ms": round(statistics.median(w for w, _c in idle), 1),
            "busy_paint_ms": round(statistics.median(w for w, _c in busy), 1),
            "busy_paint_cpu_ms": round(statistics.median(c for _w, c in busy), 1)}


def _rows_ms(trees: list[Any]) -> tuple[float, float]:
    from inspector.models.node_item_model import NodeItemModel
    from inspector.models.node_rows import RowStyle, tree_rows

    style = RowStyle.current()
    t = time.perf_counter()
    rows = [tree_rows(tree, style) for tree in trees]
    made = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    models = [NodeItemModel(tree, rows=r) for tree, r in zip(trees, rows, strict=True)]
    added = (time.perf_counter() - t) * 1000
    del models
    return made, added


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "INSPECTOR_BENCH_DIR", Path(tempfile.gettempdir()) / "inspector-bench-gui")))
    args = ap.parse_args(argv)
    import inspector  # noqa: F401 - before PySide6: it switches lazy Qt classes off
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    args.cache.mkdir(parents=True, exist_ok=True)
    from PySide6.QtWidgets import QApplication

    from inspector.formats.decoding.workers import worker_pool
    from inspector.formats.registry import open_document
    from inspector.runtime.interpreter_lock import GUI_SWITCH_INTERVAL_S

    app = QApplication.instance() or QApplication([])
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    with worker_pool():
        doc = open_document(_recording(args.cache))
    trees = [doc.header, doc.tree]
    python_views, item_views = _views(trees, items=False), _views(trees, items=True)
    app.processEvents()
    made, added = _rows_ms(trees)
    out = {
        "nodes": [sum(1 for _ in t.walk()) - 1 for t in trees],
        "switch_interval_s": GUI_SWITCH_INTERVAL_S,
        "python_model": _measure(python_views, args.repeats),
        "qt_items": _measure(item_views, args.repeats),
        "rows_made_ms": round(made, 1),
        "rows_added_ms": round(added, 1),
    }
    out["decoder"] = decoder()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
