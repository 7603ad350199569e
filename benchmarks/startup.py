"""Benchmark: cold start to a populated window, against a bare PySide6 window.

Each run is a fresh Python process (offscreen Qt).  The time is measured by
this parent from spawning the child to the child's "ready" line on stdout:

* ``recording``: Inspector's main window with a small corpus recording open,
  ready when every tab has its views filled (``MainWindow.all_ready``: plots
  drawn, checks done); ``recording_content`` is the same run's time to its
  first content (header, trees and tables shown: ``DocumentTab.views_ready``),
  the state a tree-only viewer such as hdf5view reaches;
* ``archive``: the same with a small AUCX archive (verification included);
* ``bare``: a QMainWindow showing a QTreeView over a 3-row model, ready after
  it is shown and one round of events has run: the floor any Qt tool pays;
* ``bare_h5py``: the same window, ready once it has also imported h5py (and so
  numpy) and listed the recording's root group into its model: the floor of any
  Python HDF5 viewer (``ratio_bare_h5py_to_bare``);
* ``bare_readers``: ``bare_h5py`` that also imports pandas, which reading a
  recording's trial structure and trial metadata needs (as the reference reader
  does): the floor of a VneuroTK viewer in Python (``ratio_content_to_bare_readers``
  is what Inspector's own code adds to it).

Inspector's modules are compiled to byte code first, as ``bootstrap.sh`` leaves
them (:mod:`bytecode`).

``--peers PYTHON`` also times the peers installed in that interpreter's
environment (``pip install PySide6 silx hdf5view matplotlib qtawesome PyOpenGL``: the
last three are imported by silx view and hdf5view but not declared), in the same rounds and
with the same criterion as ``bare``: ``silx view FILE`` and ``hdf5view -f FILE``
are ready once their window is shown and one round of events has run after
their event loop started (both load the file before starting it).

Prints one JSON object: the median seconds of each over ``--runs`` paired
runs, and ``ratio_recording_to_bare`` / ``ratio_archive_to_bare`` /
``ratio_content_to_bare``, ``ratio_bare_h5py_to_bare``,
``ratio_content_to_bare_h5py``, ``ratio_bare_readers_to_bare`` and
``ratio_content_to_bare_readers`` (with ``--peers``, ``ratio_recording_to_silx``
and ``ratio_recording_to_hdf5view`` too).

Usage: ``python benchmarks/startup.py [--runs 7] [--peers PYTHON]``
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

from bytecode import compile_inspector
from decoder_info import decoder

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
RECORDING = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
ARCHIVE = ROOT / "resources" / "samples" / "src_demo_experiment.aucx"

BARE = """
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QMainWindow, QTreeView
from PySide6.QtCore import QTimer
app = QApplication([])
win = QMainWindow(); view = QTreeView(); model = QStandardItemModel()
for name in ("a", "b", "c"):
    model.appendRow([QStandardItem(name), QStandardItem("value")])
view.setModel(model); win.setCentralWidget(view); win.resize(1280, 800); win.show()
def ready():
    print("ready", flush=True); app.quit()
QTimer.singleShot(0, ready)
app.exec()
"""

BARE_H5PY = BARE.replace("def ready():", """import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    for name in f:
        model.appendRow([QStandardItem(name), QStandardItem(str(f[name]))])
def ready():""")

BARE_READERS = BARE_H5PY.replace("import sys, h5py", "import sys, h5py, pandas")

PEER = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
exec_loop = QApplication.exec
def exec_ready(*_):
    def ready():
        print("ready", flush=True); QApplication.instance().quit()
    QTimer.singleShot(0, ready)
    return exec_loop()
QApplication.exec = QApplication.exec_ = exec_ready
name, sys.argv = sys.argv[1], sys.argv[1:]
if name == "silx":
    from silx.__main__ import main
else:
    from hdf5view.main import main
try:
    main()
except SystemExit:
    pass
"""
#: The peers' command lines after the program name (``--peers``).
PEER_ARGS = {"silx": ["view"], "hdf5view": ["-f"]}

INSPECTOR = """
import sys
from inspector.app import make_application  # (before PySide6: see inspector/__init__.py)
from PySide6.QtCore import Qt
from inspector.formats.decoding.workers import worker_pool
with worker_pool():
    app = make_application()
    from inspector.ui.main_window import MainWindow
    win = MainWindow(); win.resize(1280, 800); win.show()
    def ready():
        print("ready", flush=True); app.quit()
    win.all_ready.connect(ready)
    for tab in win.open_paths([sys.argv[1]]):
        tab.views_ready.connect(lambda: print("content", flush=True),
                                Qt.ConnectionType.SingleShotConnection)
    app.exec()
"""


def _time_child(code: str, *args: str, python: str = sys.executable) -> dict[str, float]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), QT_API="pyside6")
    t0 = time.perf_counter()
    proc = subprocess.Popen([python, "-c", code, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    assert proc.stdout is not None
    marks: dict[str, float] = {}
    for line in proc.stdout:
        marks.setdefault(line.strip(), time.perf_counter() - t0)
        if line.strip() == "ready":
            break
    else:
        raise RuntimeError(f"child never became ready (exit {proc.wait()})")
    proc.wait(timeout=60)
    return marks


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--peers", metavar="PYTHON",
                        help="a Python whose environment has silx and hdf5view")
    args = parser.parse_args()
    compile_inspector()  # the byte code bootstrap.sh leaves
    _time_child(BARE)  # warm the page cache once for every case
    _time_child(INSPECTOR, str(RECORDING))
    times: dict[str, list[float]] = {"recording": [], "recording_content": [], "archive": [],
                                     "bare": [], "bare_h5py": [], "bare_readers": []}
    peers = list(PEER_ARGS) if args.peers else []
    times.update({peer: [] for peer in peers})
    for _ in range(args.runs):  # paired: one of each per round
        times["bare"].append(_time_child(BARE)["ready"])
        times["bare_h5py"].append(_time_child(BARE_H5PY, str(RECORDING))["ready"])
        times["bare_readers"].append(_time_child(BARE_READERS, str(RECORDING))["ready"])
        recording = _time_child(INSPECTOR, str(RECORDING))
        times["recording"].append(recording["ready"])
        times["recording_content"].append(recording.get("content", recording["ready"]))
        times["archive"].append(_time_child(INSPECTOR, str(ARCHIVE))["ready"])
        for peer in peers:
            times[peer].append(_time_child(PEER, peer, *PEER_ARGS[peer], str(RECORDING),
                                           python=args.peers)["ready"])
    med = {k: round(statistics.median(v), 3) for k, v in times.items()}
    ratios = {f"ratio_recording_to_{peer}": round(med["recording"] / med[peer], 2)
              for peer in peers}
    print(json.dumps({"decoder": decoder(),
        "runs": args.runs,
        "median_s": med,
        "ratio_recording_to_bare": round(med["recording"] / med["bare"], 2),
        "ratio_content_to_bare": round(med["recording_content"] / med["bare"], 2),
        "ratio_archive_to_bare": round(med["archive"] / med["bare"], 2),
        "ratio_bare_h5py_to_bare": round(med["bare_h5py"] / med["bare"], 2),
        "ratio_content_to_bare_h5py": round(med["recording_content"] / med["bare_h5py"], 2),
        "ratio_bare_readers_to_bare": round(med["bare_readers"] / med["bare"], 2),
        "ratio_content_to_bare_readers": round(med["recording_content"] / med["bare_readers"],
                                               2),
        **ratios,
    }))


if __name__ == "__main__":
    main()
