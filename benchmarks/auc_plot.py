"""Benchmark: time until an AUCX archive's scans are plotted, GUI stalls and memory.

Builds (in a temporary folder, removed afterwards unless ``--keep``) an AUCX
archive of ``--scans`` scans of ``--points`` points (default 50 x 125 000:
about 50 MB of float64 signal; ``--scans 500`` is about 500 MB) with
:func:`inspector.formats.aucx.write_aucx` (shared radius axis, members
deflated as the format's writers do; the signal is generated into a
memory-mapped file so building needs little memory).  ``--stored`` rewrites
the ``.npy`` members uncompressed (seekable) to separate the view's own cost
from inflating.  ``--per-scan`` writes a per-scan radius instead.

Then, in a fresh child process (so its peak RSS is the viewer's alone), it
opens the archive as the desktop app does, verifies it (``Document.verify``:
every member streamed through SHA-256, the full-range envelopes built from
the same bytes: ``overview``; ``--no-overview`` opens as the command line
does, and the view then reads everything itself), builds an offscreen
:class:`inspector.ui.plots.auc.AucView` from the lazy arrays, shows it at 1200 x 600 and measures:

* ``first_envelope_ms``: from constructing the view to the first complete
  envelope applied to every scan; ``first_image_ms``: to the lines of every
  scan on screen (the line layer's first complete image);
* ``first_image_cpu_ms``: the CPU time of the whole process (every thread)
  over ``first_image_ms`` (on a shared machine a wall time much longer than
  it waited for a core);
* ``first_paint_ms``: to the end of the first synchronous repaint after that;
* ``max_gui_gap_ms``: the longest interval between ticks of a 5 ms
  ``QTimer`` probe on the GUI thread over that time (construction included),
  and ``max_gap_starts_ms``, when it began (ms after construction began);
  ``gaps_ms_at_ms`` lists the four longest as ``[length, start, GUI-thread
  CPU ms in it]`` (a gap much longer than its CPU time was spent waiting
  for a core or the interpreter lock: other processes, the job threads);
* ``construct_ms`` (the constructor alone) and ``repaint_ms`` (one
  synchronous repaint of the plot once every scan is drawn);
* ``pan_*``: a drag of 60 steps of 1 % of the view, one every 16 ms, painted
  by the event loop (``pan_frames`` paint events, ``pan_frame_ms_max`` and
  ``_median`` their durations), until the
  envelopes and image of the last view are drawn (``pan_settled_ms``), with
  the probe's gaps over it (``pan_max_gui_gap_ms``...) and the images drawn
  so far (``pan_images``);
* ``highlight_ms`` and ``hide_ms``: from selecting one scan, and from
  unchecking another, to the result on screen (``styles_*``: the gaps);
* ``zoom_ms``: from a zoom to a tenth of the range to its envelopes drawn
  (and painted);
* ``peak_rss_mb`` (``ru_maxrss`` of the child), ``peak_rss_verified_mb``
  (the same once opened and verified, before any view), ``rss_before_view_mb``
  and ``rss_after_zoom_mb``.

Deflated ``.npy`` members larger than the reader's cache are inflated
incrementally (:mod:`inspector.formats.aucx.arrayrefs`): the envelopes'
ascending reads inflate each member once per request, so a deflated
archive costs about its inflating time more than ``--stored``.

Prints one JSON object.  Usage:
``python benchmarks/auc_plot.py [--scans N] [--points N] [--stored] [--per-scan] [--keep DIR]
[--switch-interval S] [--no-overview]``; ``--measure AUCX`` measures an archive kept before.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from decoder_info import decoder

SEED = 20260101
BLOCK_SCANS = 10


def _rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _signal_memmap(folder: Path, scans: int, points: int, radius: np.ndarray) -> np.ndarray:
    """Moving-boundary profiles plus noise, written block by block into a memory map."""
    rng = np.random.default_rng(SEED)
    sig = np.lib.format.open_memmap(folder / "signal.npy", mode="w+", dtype=np.float64,
                                    shape=(scans, points))
    for s0 in range(0, scans, BLOCK_SCANS):
        s1 = min(scans, s0 + BLOCK_SCANS)
        boundary = 6.0 + 0.9 * np.arange(s0, s1)[:, None] / max(scans, 1)
        block = 0.1 + 0.9 / (1.0 + np.exp(-(radius[None, :] - boundary) / 0.02))
        block += rng.normal(0.0, 0.005, block.shape)
        sig[s0:s1] = block
    sig.flush()
    return sig



def _elapsed(i: int) -> dict:
    """Scan ``i``'s elapsed time (60 s apart): openauc's scan model requires one."""
    return {"value": float(60 * i), "unit": "s", "unit_label": None, "status": "present",
            "provenance": "supplied"}


def build(folder: Path, scans: int, points: int, per_scan: bool, fast: bool = False) -> Path:
    """Write the benchmark archive with the product's writer; return its path.

    ``fast``: deflate at level 0 (the archive is only an intermediate that
    :func:`restore_stored` rewrites with stored members).
    """
    from inspector.formats.auc.model import AucExperiment
    from inspector.formats.aucx import write_aucx, zipwrite

    if fast:
        zipwrite.LEVEL = 0

    radius = np.linspace(5.9, 7.2, points)
    signal = _signal_memmap(folder, scans, points, radius)
    mode = "per_scan" if per_scan else "shared"
    ids = [f"scan_{i + 1:04d}" for i in range(scans)]
    exp = AucExperiment(
        metadata={"experiment_id": f"bench-{scans}x{points}", "name": "benchmark"},
        instrument=None, samples=[],
        scans=[{"scan_id": s, "index": i, "elapsed_time": _elapsed(i)}
               for i, s in enumerate(ids)],
        provenance=None, mode=mode, radius_unit="cm", signal_unit="AU", scan_ids=ids,
        radius=np.broadcast_to(radius, (scans, points)) if per_scan else radius,
        signal=signal, mask=np.ones((scans, points), dtype=bool))
    path = folder / f"bench_{scans}x{points}.aucx"
    write_aucx(exp, path, exported_at="2026-01-01T00:00:00Z")
    del exp, signal
    (folder / "signal.npy").unlink()
    return path


def restore_stored(path: Path) -> Path:
    """A copy of the archive whose ``.npy`` members are stored, not deflated."""
    out = path.with_name(path.stem + "_stored.aucx")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            new = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            new.external_attr = info.external_attr
            new.create_system = info.create_system
            stored = info.filename.endswith(".npy")
            new.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            with src.open(info) as fin, dst.open(new, "w") as fout:
                shutil.copyfileobj(fin, fout, 4 << 20)
    path.unlink()
    return out


def _wait(app: Any, cond: Callable[[], bool], timeout: float = 900.0) -> None:
    end = time.perf_counter() + timeout
    while not cond():
        if time.perf_counter() > end:
            raise TimeoutError("the view did not finish in time")
        app.processEvents()
        time.sleep(0.001)


def _open(path: Path, out: dict[str, Any], overview: bool = True) -> Any:
    """Open and verify as the desktop app does: the verification also builds the
    experiment's full-range envelopes (``overview``; False: as the command line)."""
    from inspector.formats import open_document
    from inspector.formats.analysis.scan_envelope import OVERVIEW_COLUMNS

    t = time.perf_counter()
    doc = open_document(path, auc_overview_columns=OVERVIEW_COLUMNS if overview else 0)
    out["open_ms"] = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    doc.verify()
    out["verify_ms"] = (time.perf_counter() - t) * 1e3
    out["peak_rss_verified_mb"] = _peak_rss_mb()
    out["findings"] = [f.code for f in doc.findings]
    out["overview"] = doc.auc is not None and doc.auc.overview is not None
    return doc


def _auc(doc: Any) -> Any:
    """The document's AUC capability (built from the reader's facts until it sets ``doc.auc``)."""
    from inspector.formats.capabilities import AucScans

    if doc.auc is not None:
        return doc.auc
    s = doc.summary
    return AucScans(scan_ids=tuple(s["scan_ids"]), radius_unit=s["radius_unit"],
                    signal_unit=s["signal_unit"], experiment_id=s["experiment_id"])


class _Probe:
    """A 5 ms ``QTimer`` on the GUI thread: the gaps between its ticks are the GUI's stalls."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, QTimer

        self.clock = QElapsedTimer()
        self.ticks: list[int] = []
        self.cpu: list[float] = []  # the GUI thread's CPU time at each tick (ms)
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.clock.start()
        self.timer.start()

    def _tick(self) -> None:
        self.ticks.append(self.clock.elapsed())
        self.cpu.append(time.thread_time() * 1e3)

    def mark(self) -> int:
        """Start a phase: returns its start (ms) and forgets earlier ticks."""
        self.ticks, self.cpu = [], []
        self._tick()
        return self.ticks[0]

    def gaps(self, out: dict[str, Any], prefix: str, since: int) -> None:
        """The phase's longest gap, when it began (ms after ``since``) and the four longest
        as ``[length, start, GUI thread CPU ms during it]`` (a gap much longer than its CPU
        time waited for a core or for the interpreter lock)."""
        self._tick()
        gaps = np.diff(self.ticks)
        cpu = np.diff(self.cpu)
        worst = int(gaps.argmax())
        out[f"{prefix}max_gui_gap_ms"] = float(gaps[worst])
        out[f"{prefix}max_gap_starts_ms"] = float(self.ticks[worst] - since)
        top = np.argsort(gaps)[::-1][:4]
        out[f"{prefix}gaps_ms_at_ms"] = [[int(gaps[i]), int(self.ticks[i] - since),
                                          round(float(cpu[i]))] for i in sorted(top)]


def _show(app: Any, view_of: Callable[[], Any], probe: _Probe, out: dict[str, Any]) -> Any:
    """Construct and show the view; time its first envelopes, first image and a repaint."""
    c0 = probe.mark()
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    view = view_of()
    out["construct_ms"] = (time.perf_counter() - t0) * 1e3
    view.resize(1200, 600)
    view.show()
    _wait(app, lambda: view.drawn >= 1)
    out["first_envelope_ms"] = (time.perf_counter() - t0) * 1e3
    _wait(app, lambda: view.ready)
    out["first_image_ms"] = (time.perf_counter() - t0) * 1e3
    out["first_image_cpu_ms"] = (time.process_time() - cpu0) * 1e3
    t = time.perf_counter()
    view.plot_widget.viewport().repaint()
    out["repaint_ms"] = (time.perf_counter() - t) * 1e3
    app.processEvents()
    out["first_paint_ms"] = (time.perf_counter() - t0) * 1e3
    probe.gaps(out, "", c0)
    out["columns"] = view.envelopes.columns if view.envelopes is not None else 0
    out["status"] = view.status.text()
    return view


def _time_paints(view: Any) -> list[float]:
    """Record the duration (ms) of every paint event of the plot from now on."""
    frames: list[float] = []
    widget = view.plot_widget
    paint = widget.paintEvent

    def timed(event: Any) -> None:
        t = time.perf_counter()
        paint(event)
        frames.append((time.perf_counter() - t) * 1e3)

    widget.paintEvent = timed
    return frames


def _pan(app: Any, view: Any, probe: _Probe, out: dict[str, Any]) -> None:
    """A drag: 60 steps of 1 % of the visible range, one every 16 ms (painted by the event
    loop as a mouse drag is); then until the envelopes and images of the last view are drawn."""
    _wait(app, lambda: not view.busy and view.ready)
    vb = view.plot_item.vb
    (x0, x1), _ = vb.viewRange()
    step = 0.01 * (x1 - x0)
    frames = _time_paints(view)
    c0 = probe.mark()
    t0 = time.perf_counter()
    for k in range(1, 61):
        vb.setXRange(x0 + k * step, x1 + k * step, padding=0)
        end = t0 + k * 0.016
        app.processEvents()  # at least once: a step late by a slow frame still lets the GUI run
        while time.perf_counter() < end:
            time.sleep(0.001)
            app.processEvents()
    _wait(app, lambda: not view.busy and view.ready)
    out["pan_settled_ms"] = (time.perf_counter() - t0) * 1e3
    out["pan_frames"] = len(frames)
    out["pan_frame_ms_max"] = round(max(frames), 1) if frames else None
    out["pan_frame_ms_median"] = round(float(np.median(frames)), 1) if frames else None
    out["pan_images"] = view.lines.rendered if hasattr(view, "lines") else None
    probe.gaps(out, "pan_", c0)


def _styles(app: Any, view: Any, probe: _Probe, out: dict[str, Any]) -> None:
    """Highlight one scan, then hide another: until each is on screen."""
    c0 = probe.mark()
    t = time.perf_counter()
    view.highlight(view.shape.scans // 2)
    view.plot_widget.viewport().repaint()
    _wait(app, lambda: view.ready)
    out["highlight_ms"] = (time.perf_counter() - t) * 1e3
    view.highlight(None)
    _wait(app, lambda: view.ready)
    t = time.perf_counter()
    view.set_visible(1, False)
    _wait(app, lambda: view.ready)
    view.plot_widget.viewport().repaint()
    out["hide_ms"] = (time.perf_counter() - t) * 1e3
    probe.gaps(out, "styles_", c0)


def _zoom(app: Any, view: Any, out: dict[str, Any]) -> None:
    """From a zoom to a tenth of the range to its envelopes and image drawn (and painted)."""
    _wait(app, lambda: not view.busy and view.ready)
    (x0, x1), _ = view.plot_item.vb.viewRange()
    drawn, submitted = view.drawn, view.submitted
    t = time.perf_counter()
    view.plot_item.vb.setXRange(x0 + 0.45 * (x1 - x0), x0 + 0.55 * (x1 - x0), padding=0)
    if view.submitted > submitted:  # else the points drawn already serve the zoom
        _wait(app, lambda: view.drawn > drawn and not view.busy)
    _wait(app, lambda: view.ready)
    view.plot_widget.viewport().repaint()
    out["zoom_ms"] = (time.perf_counter() - t) * 1e3


def _plot(app: Any, doc: Any, out: dict[str, Any]) -> None:
    from inspector.jobs import JobRunner
    from inspector.ui.plots.auc import AucView

    jobs = JobRunner()
    auc = _auc(doc)
    out["rss_before_view_mb"] = _rss_mb()
    probe = _Probe()
    _wait(app, lambda: len(probe.ticks) >= 3)  # the probe runs before the view exists
    view = _show(app, lambda: AucView(auc, doc.arrays, jobs), probe, out)
    _pan(app, view, probe, out)
    _styles(app, view, probe, out)
    _zoom(app, view, out)
    out["rss_after_zoom_mb"] = _rss_mb()
    view.close()
    jobs.wait(10_000)


def measure(path: Path, switch_interval: float | None = None,
            overview: bool = True) -> dict[str, Any]:
    """Open, verify and plot ``path`` offscreen (run in the child process).

    The application is made as the desktop app makes it
    (:func:`inspector.app.make_application`); ``switch_interval`` (seconds)
    then overrides the interpreter's thread switch interval; ``overview``
    False opens as the command line does (no overview: the view reads it all).
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from inspector.app import make_application
    from inspector.formats.decoding.workers import worker_pool

    app = make_application()
    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    out: dict[str, Any] = {"switch_interval_ms": sys.getswitchinterval() * 1e3}
    with worker_pool():
        doc = _open(path, out, overview)
        try:
            _plot(app, doc, out)
        finally:
            doc.close()
    out["peak_rss_mb"] = _peak_rss_mb()
    return {k: round(v, 1) if isinstance(v, float) else v for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--scans", type=int, default=50)
    ap.add_argument("--points", type=int, default=125_000)
    ap.add_argument("--stored", action="store_true", help="store the .npy members uncompressed")
    ap.add_argument("--per-scan", action="store_true", help="per-scan radius axis")
    ap.add_argument("--keep", metavar="DIR", help="build in DIR and keep the archive there")
    ap.add_argument("--switch-interval", type=float, metavar="S",
                    help="the interpreter's thread switch interval (default: as the app sets it)")
    ap.add_argument("--measure", metavar="AUCX",
                    help="measure an archive built before (with --keep) instead of building one")
    ap.add_argument("--no-overview", action="store_true",
                    help="open as the command line does: verification builds no overview")
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure), args.switch_interval,
                                 not args.no_overview)))
        return
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="inspector-auc-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        path = build(folder, args.scans, args.points, args.per_scan, fast=args.stored)
        if args.stored:
            path = restore_stored(path)
        build_s = time.perf_counter() - t
        extra = [] if args.switch_interval is None else ["--switch-interval",
                                                          str(args.switch_interval)]
        extra += ["--no-overview"] if args.no_overview else []
        child = subprocess.run([sys.executable, __file__, "--measure", str(path), *extra],
                               capture_output=True, text=True, check=False)
        if child.returncode != 0:
            sys.stderr.write(child.stderr)
            raise SystemExit(child.returncode)
        result = {"scans": args.scans, "points": args.points,
                  "radius": "per_scan" if args.per_scan else "shared",
                  "members": "stored" if args.stored else "deflated",
                  "archive_mb": round(path.stat().st_size / 2**20, 1),
                  "build_s": round(build_s, 1),
                  **json.loads(child.stdout.strip().splitlines()[-1])}
        result["decoder"] = decoder()
        print(json.dumps(result))
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
