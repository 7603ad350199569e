"""Benchmark: how long the GUI thread stalls while the window works (offscreen Qt).

A 5 ms ``QTimer`` probe runs on the GUI thread of the real main window; every
interval between two of its ticks is a *gap*.  A window that never freezes
has gaps of about 5 ms; a gap of 50 ms or more is a visible stall
(docs/architecture.md, "Contracts": the GUI thread never blocks for more than
50 ms).  Each scenario runs in a fresh interpreter with the window shown and
painted, and (except ``start_with_recording_1gb``) warmed up, before the
probe's record starts: the window imports its reader and view modules on its
preload thread once idle, as a window that is open before a file is dropped
on it has them:

* ``open_recording_1gb``: open a 1 GiB continuous VneuroTK recording (cold
  chunk summary: an empty cache folder) through to its exact plot;
* ``start_with_recording_1gb``: the same, opened as soon as the window is
  painted, before its warm-up: the cold imports (h5py, pandas, pyqtgraph) run
  on background threads while the file opens, as ``inspector FILE`` has them;
* ``open_archive_500mb``: open a 500 MB AUCX archive, verify every checksum
  and plot its scans;
* ``verify_archive_3000_members``: open the bundled sample archive with 3 000
  small members added (each listed in its checksum file), and verify every
  checksum: a check that streams thousands of progress reports;
* ``pan_zoom``: on the 1 GiB recording with its summary warm, a scripted
  sequence of zooms, pans and a drag (range changes every 16 ms), each
  waited for until the exact curve is drawn;
* ``rsa_tab``: a VneuroTK epochs recording (written by vneurotk 0.0.1) with one
  vision record of ``benchmarks/rsa.py``'s largest size (``--rsa-size``, default
  2 000 stimuli x 50 000 features, one trial per stimulus): open it, show the RSA
  tab until both matrices and the agreement are drawn, then hover every matrix
  cell of a diagonal, select a cell (the two stimuli and their trials), and order
  the stimuli clustered by the features, then by the responses;
* ``compare_recordings_1gb``: File > Compare With… on ``benchmarks/diff.py``'s
  largest pair (two 1 GiB recordings differing in one chunk): the Compare tab
  through to its report, then every difference selected in turn, each waited for
  until its detail (the differing values' curves) is shown;
* ``auc_many_scans``: open an AUC scan table of ``--auc-scans`` one-point scans (default
  1 000 000; a CSV as ``fuzz.hostile`` writes it, or with ``--auc-format aucx`` an AUCX
  archive) through to its plot, then the scripted zooms and pans of ``pan_zoom``, each
  waited for until drawn, then select one scan, another far away, 20 neighbours, and
  none, each waited for until drawn.  ``peak_rss_mb`` is the child's peak resident memory.
* ``compare_pair``: the same script on any two documents (``--pair A,B``: recordings,
  archives, an AUC source and an archive, HDF5 files with images).

The inputs are built once in a cache folder (``--cache``, default
``$INSPECTOR_BENCH_DIR`` or ``/tmp/inspector-bench-gui``): the recording as
``benchmarks/open_recording.py`` writes it, the archive with
:func:`inspector.formats.aucx.write_aucx`.  ``--recording-mb`` and
``--archive-mb`` choose smaller inputs while developing.

For ``open_recording_1gb`` the same recording is also opened without a
window, each in a fresh interpreter with a cold summary, through the format
layer alone (``open_document``, then the exact whole-range envelope of the
channels the window plots first, on a thread of its own as a job runs):
``format_layer_ms`` with the interpreter's defaults,
``format_layer_gui_switch_ms`` with the switch interval the app sets for every
thread (``inspector.runtime.interpreter_lock.GUI_SWITCH_INTERVAL_S``), and
``format_layer_app_ms`` with the app's runtime settings for a job (that switch
interval, and the priority :func:`inspector.runtime.threads.lower_thread_priority`
gives the job thread and the decoding threads it starts).
``window_vs_format_layer`` is the window's ``exact_curve_ms`` (from opening the
file to every plotted line exact) over ``format_layer_app_ms``;
``window_settled_vs_format_layer`` uses ``wall_ms`` instead (the window idle, its
tables built too); ``window_vs_format_layer_plain`` compares with the defaults.
``cpu_ms`` and ``format_layer*_cpu_ms`` are the CPU time of the whole process (all
threads) over the same spans, ``gui_thread_cpu_ms`` the GUI thread's own,
``thread_nice`` the nice values of the process's threads by name,
``thread_cpu_ms`` (and ``exact_curve_thread_cpu_ms``, up to the exact curve;
``format_layer_app_thread_cpu_ms`` for the format layer) the CPU of each thread by
name (numbers dropped: ``inspector-worker`` sums the decoding threads; ``Dummy``
are Qt's job threads; ``ended threads`` those that exited within the span), read
from ``/proc/self/task`` (Linux),
``progress_updates`` the distinct fractions the plot's progress bar showed;
``curve_paints``, ``curve_paint_cpu_ms`` and ``curve_paint_max_ms`` the number of plot
curve paints (pyqtgraph ``PlotCurveItem`` and subclasses: the neural lines) and the
GUI thread's CPU they took, in all and at most in one.
``INSPECTOR_BENCH_PROFILE=1`` prints a profile of the GUI thread to stderr.

Prints one JSON object: per scenario ``max_gap_ms``, ``p99_gap_ms``,
``gaps_over_50ms``, ``ticks`` and ``wall_ms`` (from the start of the
scenario to its end), plus ``steps_ms`` for ``pan_zoom`` (time from each
scripted range change to the exact curve).  On a shared machine a gap is
also the time the GUI thread waited for a CPU; ``max_gap_gui_cpu_ms`` and
``gaps_over_50ms_gui_cpu`` count only the CPU time the GUI thread itself
used within a gap (the work it did between two ticks).  ``--trace`` prints the GUI
thread's stack during every stall over 50 ms to stderr.

Usage: ``python benchmarks/gui_latency.py [--scenarios a,b] [--recording-mb N]
[--archive-mb N] [--rsa-size NxF] [--pair A,B] [--trace]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bytecode import compile_inspector

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ("open_recording_1gb", "start_with_recording_1gb", "open_archive_500mb",
             "verify_archive_3000_members", "pan_zoom", "rsa_tab", "compare_recordings_1gb",
             "auc_many_scans")
#: Samples per trial and channels of the ``rsa_tab`` recording.
RSA_SAMPLES, RSA_CHANNELS = 20, 8
#: Members added to the bundled sample archive for ``verify_archive_3000_members``.
MANY_MEMBERS = 3000
PROBE_MS = 5
STALL_MS = 50.0
#: How often an open scenario checks whether the window is done (ms): its checks run on
#: the GUI thread, which a shorter interval would busy at the decoding's expense.
OPEN_POLL_MS = 10
#: Most seconds one scenario may take before it is reported as timed out.
TIMEOUT_S = 600.0


# -- inputs ------------------------------------------------------------------------
def recording_path(cache: Path, mb: int) -> Path:
    """The cached continuous recording of ``mb`` MiB (written like open_recording.py)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from open_recording import write_recording

    path = cache / f"continuous_{mb}MiB.h5"
    if not path.exists():
        print(f"writing {path} ...", file=sys.stderr)
        write_recording(path, mb * 2**20)
    return path


def _elapsed(i: int) -> dict:
    """Scan ``i``'s elapsed time (60 s apart): openauc's scan model requires one."""
    return {"value": float(60 * i), "unit": "s", "unit_label": None, "status": "present",
            "provenance": "supplied"}


def archive_path(cache: Path, mb: int) -> Path:
    """The cached shared-axis AUCX archive with ``mb`` MB of float64 signal (``write_aucx``)."""
    import numpy as np

    from inspector.formats.auc.model import AucExperiment
    from inspector.formats.aucx import write_aucx

    path = cache / f"archive_{mb}MB.aucx"
    if path.exists():
        return path
    print(f"writing {path} ...", file=sys.stderr)
    points = 125_000
    scans = max(1, mb * 10**6 // (8 * points))
    rng = np.random.default_rng(20260101)
    radius = np.linspace(5.9, 7.2, points)
    sig = np.lib.format.open_memmap(cache / "signal.tmp.npy", mode="w+", dtype=np.float64,
                                    shape=(scans, points))
    for s0 in range(0, scans, 10):
        s1 = min(scans, s0 + 10)
        boundary = 6.0 + 0.9 * np.arange(s0, s1)[:, None] / scans
        sig[s0:s1] = (0.1 + 0.9 / (1.0 + np.exp(-(radius[None, :] - boundary) / 0.02))
                      + rng.normal(0.0, 0.005, (s1 - s0, points)))
    ids = [f"scan_{i + 1:04d}" for i in range(scans)]
    exp = AucExperiment(
        metadata={"experiment_id": f"gui-latency-{mb}MB"}, instrument=None, samples=[],
        scans=[{"scan_id": s, "index": i, "elapsed_time": _elapsed(i)}
               for i, s in enumerate(ids)], provenance=None,
        mode="shared", radius_unit="cm", signal_unit="AU", scan_ids=ids, radius=radius,
        signal=sig, mask=np.ones((scans, points), dtype=bool))
    write_aucx(exp, path, exported_at="2026-01-01T00:00:00+00:00", overwrite=True)
    del sig
    (cache / "signal.tmp.npy").unlink()
    return path


def many_scans_path(cache: Path, scans: int, fmt: str) -> Path:
    """An AUC source of ``scans`` one-point scans: a folder holding ``scans.csv`` (as
    ``fuzz.hostile.tables`` writes it) or an AUCX archive (``fuzz.hostile.auc_scale``)."""
    sys.path.insert(0, str(ROOT))
    if fmt == "aucx":
        from fuzz.hostile.auc_scale import write_archive

        path = cache / f"scans_{scans}.aucx"
        if not path.exists():
            print(f"writing {path} ...", file=sys.stderr)
            write_archive(path, scans)
        return path
    from fuzz.hostile.auc_scale import write_scans_csv
    from fuzz.hostile.tables import _manifest

    folder = cache / f"scans_{scans}"
    if not (folder / "scans.csv").exists():
        print(f"writing {folder} ...", file=sys.stderr)
        folder.mkdir(parents=True, exist_ok=True)
        _manifest(folder)
        write_scans_csv(folder / "scans.csv.tmp", scans).rename(folder / "scans.csv")
    return folder / "scans.csv"


def many_members_path(cache: Path, members: int = MANY_MEMBERS) -> Path:
    """The bundled sample archive with ``members`` small extra members, each listed in its
    checksum file (so every one is verified, and reported as not named by the manifest)."""
    import hashlib
    import zipfile

    path = cache / f"archive_{members}_members.aucx"
    if path.exists():
        return path
    sample = ROOT / "resources" / "samples" / "src_demo_experiment.aucx"
    with zipfile.ZipFile(sample) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        lines = src.read("checksums.sha256").decode().splitlines()
        for name in src.namelist():
            if name != "checksums.sha256":
                z.writestr(name, src.read(name))
        for k in range(members):
            data = f"extra member {k}\n".encode() * 20
            name = f"extras/e{k:05d}.txt"
            z.writestr(name, data)
            lines.append(f"{hashlib.sha256(data).hexdigest()}  {name}")
        lines.sort(key=lambda line: line.split()[1])
        z.writestr("checksums.sha256", "\n".join(lines) + "\n")
    return path


def rsa_recording_path(cache: Path, size: str) -> Path:
    """An epochs recording written by vneurotk 0.0.1 with one vision record of ``size``
    (``"2000x50000"``: stimuli x features, float32, the writer's chunks and gzip), one
    trial per stimulus (built once, in a child process: the writer holds the array)."""
    path = cache / f"rsa_recording_{size}.h5"
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--child", "write_rsa", "--path", str(path),
                        "--rsa-size", size], check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return path


def write_rsa_recording(path: Path, size: str) -> None:
    """Write :func:`rsa_recording_path`'s file (``VisionData._store_records``, as the
    reference tests store records)."""
    import numpy as np
    from vneurotk import BaseData
    from vneurotk.vision.data import VisionData
    from vneurotk.vision.representation.visual_representations import (
        VisualRepresentation,
        VisualRepresentations,
    )

    n, f = (int(v) for v in size.split("x"))
    rng = np.random.default_rng(38)
    neuro = rng.standard_normal((n, RSA_SAMPLES, RSA_CHANNELS)).astype(np.float32)
    ids = list(range(n))
    bd = BaseData.for_epochs(neuro, {"sfreq": 100.0,
                                     "ch_names": [f"c{i}" for i in range(RSA_CHANNELS)]})
    bd.configure(ids, vision_onsets=np.full(n, 5))
    vd = VisionData(bd.trial_stim_ids)
    features = rng.standard_normal((n, f)).astype(np.float32)
    rep = VisualRepresentation("bench/model", "blocks.11", "Linear", ids, features)
    vd._store_records(VisualRepresentations([rep]), overwrite=False)
    bd._restore_vision_data(vd)
    tmp = path.with_suffix(".tmp")
    bd.save(tmp)
    os.replace(tmp, path)


def diff_pair(cache: Path) -> tuple[Path, Path]:
    """``benchmarks/diff.py``'s largest recording pair (built there once if missing)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from diff import _recordings

    rec = _recordings()
    return rec["a"], rec["one"]


# -- the probe (child process) -------------------------------------------------------
class Probe:
    """Ticks of a 5 ms QTimer on the GUI thread; optionally samples the GUI stack in stalls."""

    def __init__(self, trace: bool) -> None:
        from PySide6.QtCore import QTimer

        self.ticks: list[float] = []
        self.cpu: list[float] = []  # the GUI thread's CPU time at each tick
        self.last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(PROBE_MS)
        self.timer.timeout.connect(self._tick)
        self.stacks: list[tuple[float, str]] = []
        self._trace = trace
        self._main = threading.get_ident()
        self._stop = threading.Event()

    def _tick(self) -> None:
        self.last = time.perf_counter()
        self.ticks.append(self.last)
        self.cpu.append(time.thread_time())

    def start(self) -> None:
        self.timer.start()
        if self._trace:
            threading.Thread(target=self._watch, daemon=True).start()

    def reset(self) -> None:
        self.ticks = [time.perf_counter()]
        self.cpu = [time.thread_time()]
        self.stacks = []

    def _watch(self) -> None:
        """Sample the GUI thread's stack every 10 ms while its last tick is over 40 ms old."""
        while not self._stop.wait(0.01):
            late = (time.perf_counter() - self.last) * 1000
            if late > 40:
                frames = sys._current_frames()
                frame = frames.get(self._main)
                if frame is not None:
                    stack = "".join(traceback.format_stack(frame, limit=14))
                    names = {t.ident: t.name for t in threading.enumerate()}
                    for ident, other in frames.items():  # who else runs Python meanwhile
                        if ident not in (self._main, threading.get_ident()):
                            top = traceback.format_stack(other, limit=3)
                            stack += f"  [{names.get(ident, ident)}] " + "".join(top)
                    self.stacks.append((self.last, stack))

    def result(self) -> dict[str, Any]:
        self._stop.set()
        gaps = sorted((b - a) * 1000 for a, b in zip(self.ticks, self.ticks[1:], strict=False))
        if not gaps:
            return {"max_gap_ms": None, "p99_gap_ms": None, "gaps_over_50ms": 0, "ticks": 0}
        p99 = gaps[min(len(gaps) - 1, int(round(0.99 * (len(gaps) - 1))))]
        cpu = [(b - a) * 1000 for a, b in zip(self.cpu, self.cpu[1:], strict=False)]
        return {"max_gap_ms": round(gaps[-1], 1), "p99_gap_ms": round(p99, 1),
                "gaps_over_50ms": sum(g > STALL_MS for g in gaps), "ticks": len(gaps),
                "max_gap_gui_cpu_ms": round(max(cpu), 1),
                "gaps_over_50ms_gui_cpu": sum(c > STALL_MS for c in cpu)}

    def report_stalls(self) -> None:
        """Print the stacks sampled during stalls (the most frequent first) to stderr."""
        by_stall: dict[float, list[str]] = {}
        for last, stack in self.stacks:
            by_stall.setdefault(last, []).append(stack)
        for last, stacks in by_stall.items():
            k = next((i for i, t in enumerate(self.ticks) if t > last), None)
            dur = (self.ticks[k] - last) * 1000 if k is not None else float("nan")
            cpu = (self.cpu[k] - self.cpu[k - 1]) * 1000 if k else float("nan")
            if dur < STALL_MS:
                continue
            top, n = Counter(stacks).most_common(1)[0]
            print(f"--- stall of {dur:.0f} ms, {cpu:.0f} ms of GUI-thread CPU "
                  f"({n}/{len(stacks)} samples):\n{top}", file=sys.stderr)


def _spin(app: Any, cond: Callable[[], bool], timeout: float, poll_ms: int = 2) -> bool:
    """Run the event loop until ``cond()`` (polled every ``poll_ms``) or ``timeout`` seconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    end = time.perf_counter() + timeout
    poll = QTimer()
    poll.setInterval(poll_ms)

    def check() -> None:
        if cond() or time.perf_counter() > end:
            loop.quit()

    poll.timeout.connect(check)
    poll.start()
    if not cond():
        loop.exec()
    poll.stop()
    return cond()


def _settled(win: Any) -> bool:
    """A tab is open, the window idle (``MainWindow.is_idle``, what --screenshot waits for)
    and every table's DataFrame built (``DocumentTab.frames``: pandas is imported once the
    tab has stayed idle, and that import is measured too)."""
    tabs = win.document_tabs()
    return (bool(tabs) and win.is_idle()
            and all(t.frames is None or t.frames.built for t in tabs))


def _exact(win: Any) -> bool:
    """Every line of every neural plot shows exact envelopes (not a preview)."""
    for tab in win.document_tabs():
        view = tab.plot.view if tab.plot is not None else None
        lines = getattr(view, "lines", None)
        if isinstance(lines, list) and any(not ln.exact for ln in lines):
            return False  # (an AUC view's lines are one layer: is_idle covers it)
    return True


def _plotted_exact(win: Any) -> bool:
    """A neural plot is shown and every one of its lines is exact."""
    view = _view(win)
    lines = getattr(view, "lines", None)
    return isinstance(lines, list) and bool(lines) and all(ln.exact for ln in lines)


def _view(win: Any) -> Any:
    tab = win.current_tab()
    return tab.plot.view if tab is not None and tab.plot is not None else None


def pan_zoom_ranges(x0: float, x1: float) -> list[tuple[float, float]]:
    """The scripted x ranges from a full view ``[x0, x1]``: four 4x zooms in around the
    centre, pans by whole and partial widths, then three 4x zooms out."""
    steps: list[tuple[float, float]] = []
    c, w = (x0 + x1) / 2, x1 - x0
    for _ in range(4):
        w /= 4
        steps.append((c - w / 2, c + w / 2))
    for k in (1, -2, 3, -1):
        c += k * w * 0.9
        steps.append((c - w / 2, c + w / 2))
    for _ in range(3):
        w *= 4
        steps.append((c - w / 2, c + w / 2))
    return steps


def time_steps(app: Any, view: Any, done: Callable[[], bool]) -> list[float]:
    """Ms from each scripted range change of ``view`` until ``done()`` and one repaint."""
    vb = view.plot_item.vb
    (x0, x1), _ = vb.viewRange()
    out = []
    for a, b in pan_zoom_ranges(x0, x1):
        t0 = time.perf_counter()
        vb.setXRange(a, b, padding=0)
        if not _spin(app, done, TIMEOUT_S):
            raise TimeoutError("a pan/zoom step did not settle")
        view.plot_widget.viewport().repaint()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _pan_zoom_script(app: Any, win: Any) -> list[float]:
    """The scripted steps, then a drag: 20 range changes 16 ms apart, waited for at the end."""
    view = _view(win)

    def done() -> bool:
        return _settled(win) and _exact(win)

    out = time_steps(app, view, done)
    vb = view.plot_item.vb
    (x0, x1), _ = vb.viewRange()
    w = x1 - x0
    for i in range(20):
        vb.setXRange(x0 + i * 0.04 * w, x1 + i * 0.04 * w, padding=0)
        _spin(app, lambda: False, 0.016)
    t0 = time.perf_counter()
    _spin(app, done, TIMEOUT_S)
    out.append((time.perf_counter() - t0) * 1000)
    return out


def _rsa_script(app: Any, win: Any, path: Path) -> dict[str, Any]:
    """Open the recording, show its RSA tab until drawn, hover, select, reorder twice."""
    from inspector.ui.representations import TITLE

    win.open_paths([str(path)])
    _spin(app, lambda: _settled(win), TIMEOUT_S)
    tab = win.current_tab()
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    t0 = time.perf_counter()
    tab.views.setCurrentIndex(titles.index(TITLE))

    def drawn() -> bool:
        panel = tab.representations
        return (panel is not None and getattr(panel, "arranged", None) is not None
                and panel.is_idle() and "ρ =" in panel.status.text() and win.is_idle())

    ok = _spin(app, drawn, TIMEOUT_S)
    out: dict[str, Any] = {"shown_ms": round((time.perf_counter() - t0) * 1000, 1),
                           "timed_out": not ok}
    panel = tab.representations
    m = panel.arranged.features.shape[0] if ok else 0
    out["stimuli"] = m
    widget = panel.features_plot
    for k in range(0, m, max(1, m // 50)):  # hover along the diagonal
        scene = widget.getViewBox().mapViewToScene(pg_point(k + 0.5, k + 0.5))
        panel._hover(widget, scene)
        _spin(app, lambda: False, 0.005)
    if m > 1:
        panel.select_cell(0, 1)
        _spin(app, lambda: win.is_idle(), TIMEOUT_S)
    for how in ("features", "neural"):
        arranged = panel.arranged
        panel.order.setCurrentIndex(panel.order.findData(how))
        _spin(app, lambda a=arranged: panel.arranged is not a and win.is_idle(), TIMEOUT_S)
    return out


def pg_point(x: float, y: float) -> Any:
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def _compare_script(app: Any, win: Any, a: Path, b: Path) -> dict[str, Any]:
    """Compare ``a`` with ``b`` (File > Compare With…), then select every difference."""
    from inspector.ui.compare.action import open_compare

    t0 = time.perf_counter()
    tab = open_compare(win, a, b)
    ok = _spin(app, tab.is_settled, TIMEOUT_S)
    out: dict[str, Any] = {"report_ms": round((time.perf_counter() - t0) * 1000, 1),
                           "timed_out": not ok}
    items = tab.tree.rows()  # each section, then its rows
    for it in items:
        tab.tree.setCurrentIndex(it)
        _spin(app, tab.is_settled, TIMEOUT_S)
        _spin(app, lambda: False, 0.02)
    out["differences_selected"] = len(items)
    tab.close_comparison()
    return out


def _auc_script(app: Any, win: Any, path: Path) -> dict[str, Any]:
    """Open the AUC source, then zoom and pan (``pan_zoom_ranges``), then select scans."""
    t0 = time.perf_counter()
    win.open_paths([str(path)])

    def idle() -> bool:
        return _settled(win) and getattr(_view(win), "is_idle", lambda: False)()

    ok = _spin(app, idle, TIMEOUT_S, OPEN_POLL_MS)
    out: dict[str, Any] = {"open_ms": round((time.perf_counter() - t0) * 1000, 1),
                           "timed_out": not ok}
    view = _view(win)
    if not ok or not hasattr(view, "select_scans"):
        out["view"] = type(view).__name__
        return out
    steps = time_steps(app, view, idle)
    out["median_step_ms"] = round(statistics.median(steps), 1)
    n = view.shape.scans
    picks: list[set[int]] = [{0}, {n // 2}, set(range(n // 3, min(n, n // 3 + 20))), set()]
    select_ms = []
    for chosen in picks:
        t1 = time.perf_counter()
        view.select_scans(chosen)
        _spin(app, idle, TIMEOUT_S)
        view.plot_widget.viewport().repaint()
        select_ms.append(round((time.perf_counter() - t1) * 1000, 1))
    out["select_ms"] = select_ms
    out["scans"] = n
    out["status"] = view.status.text()
    return out


def _peak_rss_mb() -> float:
    """This process's peak resident memory, MB."""
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def format_layer(path: Path, runtime: str) -> dict[str, Any]:
    """Open the recording and compute the exact whole-range envelope of the channels a
    neural plot shows first, without a window (this fresh process).

    ``runtime``: ``"plain"`` (the interpreter's defaults),
    ``"gui_switch"`` (the app's switch interval), or ``"app"`` (the app's runtime
    settings for a job: the switch interval, and the work on a thread that lowers its
    priority as :mod:`inspector.jobs` does, so the decoding threads it starts inherit it).
    """
    from inspector.formats import open_document
    from inspector.formats.decoding.workers import worker_pool

    if runtime in ("gui_switch", "app"):
        from inspector.runtime.interpreter_lock import GUI_SWITCH_INTERVAL_S

        sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    from inspector.ui.plots.neural import DEFAULT_CHANNELS

    job_cpu: list[float] = []

    def work() -> None:
        if runtime == "app":
            from inspector.runtime.threads import lower_thread_priority

            lower_thread_priority()
        doc = open_document(path)
        ref = doc.arrays["neuro"]
        n = int(ref.shape[0])
        for ch in range(min(DEFAULT_CHANNELS, int(ref.shape[1]))):
            env = ref.envelope((None, ch), 0, n, 2000)
            assert env.exact
        doc.close()
        job_cpu.append(time.thread_time())

    with worker_pool():
        t0, c0, threads0 = time.perf_counter(), _cpu_s(), _thread_cpu()
        job = threading.Thread(target=work, name="format-layer-job")
        job.start()
        job.join()
        ms, cpu_ms = (time.perf_counter() - t0) * 1000, (_cpu_s() - c0) * 1000
        nice = _thread_nice()
        threads = _thread_cpu_ms(threads0, cpu_ms, {"format-layer-job": job_cpu[0] * 1000},
                                 skip={job.native_id or 0})
    from inspector.formats.decoding.inflate import DECODER

    return {"ms": round(ms, 1), "cpu_ms": round(cpu_ms, 1), "thread_cpu_ms": threads,
            "switch_interval_s": sys.getswitchinterval(), "thread_nice": nice,
            "decoder": DECODER}


def _thread_label(name: str) -> str:
    """A thread's name without its number (``inspector-worker_1`` -> ``inspector-worker``)."""
    return name.split("_")[0].rstrip("-0123456789 ") or name


def _thread_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds of every live thread of this process by native id, with its name
    (Python's, else the kernel's ``comm``), from ``/proc/self/task`` (Linux; else {})."""
    names = {t.native_id: t.name for t in threading.enumerate() if t.native_id}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    out: dict[int, tuple[str, float]] = {}
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                stat = f.read()
            with open(f"/proc/self/task/{tid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        out[int(tid)] = (names.get(int(tid), comm), cpu)
    return out


def _thread_cpu_ms(before: dict[int, tuple[str, float]], total_ms: float,
                   ended: dict[str, float] | None = None,
                   skip: set[int] | None = None) -> dict[str, float]:
    """CPU ms per thread name (numbers dropped) since ``before``, with ``ended`` (CPU ms of
    threads that exited, by name; ``skip``: their native ids, which the kernel may still
    list); ``ended threads`` is the rest of ``total_ms`` (the process's CPU over the span):
    other threads that exited meanwhile."""
    out: dict[str, float] = dict(ended or {})
    for tid, (name, cpu) in _thread_cpu().items():
        if tid in (skip or set()):
            continue
        used = (cpu - before.get(tid, (name, 0.0))[1]) * 1000
        key = _thread_label(name)
        out[key] = out.get(key, 0.0) + used
    out["ended threads"] = total_ms - sum(out.values())
    return {k: round(v) for k, v in sorted(out.items(), key=lambda kv: -kv[1])}


def _thread_nice() -> dict[str, list[int]]:
    """The nice value of this process's live threads, by name prefix (Linux; else {})."""
    out: dict[str, list[int]] = {}
    for t in threading.enumerate():
        try:
            nice = os.getpriority(os.PRIO_PROCESS, t.native_id or 0)
        except (AttributeError, OSError):
            continue
        out.setdefault(_thread_label(t.name), []).append(nice)
    return {k: sorted(set(v)) for k, v in out.items()}


def _gui_profile() -> Any:
    """A running ``cProfile`` of the GUI thread when ``INSPECTOR_BENCH_PROFILE`` is set
    (its 30 costliest functions go to stderr at the end of the scenario), else None."""
    if not os.environ.get("INSPECTOR_BENCH_PROFILE"):
        return None
    import cProfile

    profile = cProfile.Profile(time.thread_time)
    profile.enable()
    return profile


def _cpu_s() -> float:
    """CPU seconds of this process, all threads (on a shared machine wall time also
    counts waiting for a core)."""
    t = os.times()
    return t.user + t.system


class CurvePaints:
    """GUI-thread CPU of every paint of a plot curve (pyqtgraph's ``PlotCurveItem`` and
    its subclasses, the neural lines among them), counted once per paint."""

    def __init__(self) -> None:
        import pyqtgraph as pg

        self.cpu_ms: list[float] = []
        self._depth = 0
        classes = {pg.PlotCurveItem}
        try:
            from inspector.ui.plots.envelope_curve import EnvelopeCurve

            classes.add(EnvelopeCurve)
        except ImportError:  # a tree without it
            pass
        for cls in classes:
            if "paint" in vars(cls):
                cls.paint = self._wrap(vars(cls)["paint"])

    def _wrap(self, paint: Callable[..., Any]) -> Callable[..., Any]:
        def timed(item: Any, *args: Any) -> Any:
            self._depth += 1
            c0 = time.thread_time()
            try:
                return paint(item, *args)
            finally:
                self._depth -= 1
                if not self._depth:
                    self.cpu_ms.append((time.thread_time() - c0) * 1000)
        return timed

    def reset(self) -> None:
        self.cpu_ms = []

    def result(self) -> dict[str, Any]:
        c = self.cpu_ms
        return {"curve_paints": len(c), "curve_paint_cpu_ms": round(sum(c), 1),
                "curve_paint_max_ms": round(max(c), 1) if c else None}


def child(scenario: str, path: Path, trace: bool, path_b: Path | None = None) -> dict[str, Any]:
    """Run one scenario in this (fresh) process; returns its measurements."""
    from inspector.app import make_application
    from inspector.formats.decoding.workers import worker_pool

    curves = CurvePaints()
    with worker_pool():
        app = make_application()
        from inspector.ui.main_window import MainWindow

        win = MainWindow()
        win.resize(1280, 800)
        win.show()
        probe = Probe(trace)
        probe.start()

        _spin(app, lambda: False, 0.3)  # the window is painted
        if scenario != "start_with_recording_1gb":
            _spin(app, lambda: win.warmed_up, TIMEOUT_S)  # and has warmed up, idle
        out: dict[str, Any] = {}
        if scenario == "pan_zoom":  # warm: open, summarise, then measure the script only
            win.open_paths([str(path)])
            _spin(app, lambda: _settled(win) and _exact(win), TIMEOUT_S)
            _spin(app, lambda: False, 0.3)
        probe.reset()
        curves.reset()
        profile = _gui_profile()
        t0, c0, g0 = time.perf_counter(), _cpu_s(), time.thread_time()
        threads0 = _thread_cpu()
        if scenario == "pan_zoom":
            steps = _pan_zoom_script(app, win)
            out["steps_ms"] = [round(s, 1) for s in steps]
            out["median_step_ms"] = round(statistics.median(steps), 1)
        elif scenario == "rsa_tab":
            out.update(_rsa_script(app, win, path))
        elif scenario == "auc_many_scans":
            out.update(_auc_script(app, win, path))
        elif scenario in ("compare_recordings_1gb", "compare_pair"):
            assert path_b is not None
            out.update(_compare_script(app, win, path, path_b))
        else:
            win.open_paths([str(path)])
            seen: dict[str, float] = {}

            shown: set[tuple[int, int]] = set()

            def done() -> bool:
                if "exact" not in seen and _plotted_exact(win):
                    seen["exact"] = time.perf_counter()
                    cpu = (_cpu_s() - c0) * 1000
                    out["exact_curve_cpu_ms"] = round(cpu)
                    out["exact_curve_thread_cpu_ms"] = _thread_cpu_ms(threads0, cpu)
                bar = getattr(getattr(_view(win), "read_progress", None), "bar", None)
                if bar is not None and bar.isVisible():
                    shown.add((bar.value(), bar.maximum()))
                return _settled(win) and _exact(win)

            ok = _spin(app, done, TIMEOUT_S, OPEN_POLL_MS)
            out["timed_out"] = not ok
            if "exact" in seen:
                out["exact_curve_ms"] = round((seen["exact"] - t0) * 1000, 1)
            out["progress_updates"] = len(shown)
        out["wall_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        out["cpu_ms"] = round((_cpu_s() - c0) * 1000, 1)
        out["gui_thread_cpu_ms"] = round((time.thread_time() - g0) * 1000, 1)
        out["thread_nice"] = _thread_nice()
        out["peak_rss_mb"] = _peak_rss_mb()
        out["thread_cpu_ms"] = _thread_cpu_ms(threads0, out["cpu_ms"])
        out.update(curves.result())
        if profile is not None:
            import pstats

            profile.disable()
            pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(30)
        res = probe.result()
        if trace:
            probe.report_stalls()
        win.close()
        app.processEvents()
    from inspector.formats.decoding.inflate import DECODER

    return {**res, **out, "decoder": DECODER}


def _run_child(scenario: str, path: Path, cache: Path | None, trace: bool,
               path_b: Path | None = None) -> dict[str, Any]:
    """One scenario in a fresh interpreter (a cold summary cache unless ``cache``)."""
    with tempfile.TemporaryDirectory(prefix="inspector-gui-latency-") as cold:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
                   XDG_CACHE_HOME=str(cache or cold), PYTHONPATH=str(ROOT))
        proc = subprocess.run(
            [sys.executable, __file__, "--child", scenario, "--path", str(path)]
            + (["--trace"] if trace else [])
            + (["--path-b", str(path_b)] if path_b is not None else []),
            capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if trace or proc.returncode:
        sys.stderr.write(proc.stderr)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else {"error": proc.returncode}


def _compare_format_layer(result: dict[str, Any], path: Path) -> None:
    """Add the format layer's figures for the same recording to ``result``: with the
    interpreter's defaults, the app's switch interval, and the app's runtime settings
    for a job (switch interval and lowered thread priority)."""
    runs = {mode: _run_child(f"format_layer_{mode}", path, None, False)
            for mode in ("plain", "gui_switch", "app")}
    for mode, run in runs.items():
        run.pop("decoder", None)
        tag = "" if mode == "plain" else f"_{mode}"
        result[f"format_layer{tag}_ms"] = run.get("ms")
        result[f"format_layer{tag}_cpu_ms"] = run.get("cpu_ms")
    result["format_layer_app_thread_nice"] = runs["app"].get("thread_nice")
    result["format_layer_app_thread_cpu_ms"] = runs["app"].get("thread_cpu_ms")
    window = result.get("exact_curve_ms") or result["wall_ms"]
    if runs["app"].get("ms"):
        result["window_vs_format_layer"] = round(window / runs["app"]["ms"], 2)
        result["window_settled_vs_format_layer"] = round(result["wall_ms"] / runs["app"]["ms"],
                                                         2)
    if runs["plain"].get("ms"):
        result["window_vs_format_layer_plain"] = round(window / runs["plain"]["ms"], 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--recording-mb", type=int, default=1024)
    ap.add_argument("--archive-mb", type=int, default=500)
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "INSPECTOR_BENCH_DIR", "/tmp/inspector-bench-gui")))
    ap.add_argument("--rsa-size", default="2000x50000")
    ap.add_argument("--auc-scans", type=int, default=1_000_000)
    ap.add_argument("--auc-format", choices=("csv", "aucx"), default="csv")
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--pair", help="A,B: the two documents of compare_pair")
    ap.add_argument("--path-b", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child and args.child.startswith("format_layer_"):
        print(json.dumps(format_layer(args.path, args.child.removeprefix("format_layer_"))),
              flush=True)
        return 0
    if args.child == "write_rsa":
        write_rsa_recording(args.path, args.rsa_size)
        return 0
    if args.child:
        print(json.dumps(child(args.child, args.path, args.trace, args.path_b)), flush=True)
        return 0
    args.cache.mkdir(parents=True, exist_ok=True)
    compile_inspector()  # the byte code bootstrap.sh leaves: no module compiles in a child
    load = os.getloadavg()[0]
    out: dict[str, Any] = {}
    warm = args.cache / "summary-cache"
    for scenario in args.scenarios.split(","):
        path_b = None
        if scenario == "rsa_tab":
            path = rsa_recording_path(args.cache, args.rsa_size)
        elif scenario == "compare_recordings_1gb":
            path, path_b = diff_pair(args.cache)
        elif scenario == "compare_pair":
            if not args.pair or args.pair.count(",") != 1:
                ap.error("compare_pair needs --pair A,B")
            path, path_b = (Path(p).resolve() for p in args.pair.split(","))
        elif scenario == "open_archive_500mb":
            path = archive_path(args.cache, args.archive_mb)
        elif scenario == "verify_archive_3000_members":
            path = many_members_path(args.cache)
        elif scenario == "auc_many_scans":
            path = many_scans_path(args.cache, args.auc_scans, args.auc_format)
        else:
            path = recording_path(args.cache, args.recording_mb)
        out[scenario] = _run_child(scenario, path, warm if scenario == "pan_zoom" else None,
                                   args.trace, path_b)
        out[scenario]["input_mb"] = round(path.stat().st_size / 1e6, 1)
        if scenario == "open_recording_1gb" and "wall_ms" in out[scenario]:
            _compare_format_layer(out[scenario], path)
    decoders = {r.pop("decoder", None) for r in out.values()} - {None}
    out.update({"decoder": " / ".join(sorted(decoders)), "load_1min_before": round(load, 2),
                "load_1min_after": round(os.getloadavg()[0], 2)})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
