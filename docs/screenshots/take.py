"""Take the screenshots that ``inspector --screenshot`` cannot: a view mid-read, a finding
activated, a tab other than the first.

Usage (from the repository, offscreen)::

    QT_QPA_PLATFORM=offscreen python docs/screenshots/take.py MODE WxH THEME OUT.png [FILE ...]

MODE:

* ``trials``: FILE opened, its Trials tab shown once every view is drawn;
* ``reading``: FILE opened with an empty chunk-summary cache, the window saved 2.5 s
  after the plot's progress box appeared (a recording that takes more than a second to
  read: ``python benchmarks/gui_latency.py --scenarios open_recording_1gb`` writes one,
  ``continuous_1024MiB.h5``, in its cache folder);
* ``tab=TITLE``: FILE opened, the view tab whose title starts with TITLE shown once
  every view is drawn (``tab=Checksums``, ``tab=Provenance``);
* ``scan-finding``: no FILE: the long TSV fixture with a temperature for its first scan
  only, and its finding about the second scan activated (the scan selected);
* ``drop-compare``: FILE opened and a second file (FILE itself) dragged onto the window,
  over its Compare zone;
* ``compare-image``: no FILE: two HDF5 files holding a 600 x 800 image that differs in
  one patch, compared in a Compare tab, the image difference selected;
* ``compare=SECTION:PATH``: FILE and a second FILE compared in a Compare tab (the first
  opened), the difference at PATH of SECTION selected (``compare=arrays:neuro``).

THEME is ``light`` or ``dark``.  Prints the saved path (and, for ``reading``, the box's text).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import inspector  # noqa: F401 - before PySide6, as ``inspector`` starts (docs/runtime.md)

ROOT = Path(__file__).resolve().parents[2]
LONG_TSV = ROOT / "tests/fixtures/auc-delimited/long_tsv"


def lab_folder() -> Path:
    """The long TSV fixture with cell and temperature columns, no temperature for scan 2."""
    folder = Path(tempfile.mkdtemp()) / "lab_tsv"
    shutil.copytree(LONG_TSV, folder)
    data = folder / "scans.tsv"
    lines = data.read_text().splitlines()
    out = [lines[0] + "\tcell\ttemperature_c"]
    for line in lines[1:]:
        out.append(line + ("\t1\t20" if line.split("\t")[0] == "scan_001" else "\t2\t"))
    data.write_text("\n".join(out) + "\n")
    return folder


def image_files() -> list[str]:
    """Two HDF5 files with a 600 x 800 float32 image ``/image``; in B one patch is
    brighter and one darker."""
    import h5py
    import numpy as np

    y, x = np.mgrid[0:600, 0:800].astype(np.float32)
    a = (np.sin(x / 37.0) * np.cos(y / 23.0) + np.exp(-((x - 400) ** 2 + (y - 300) ** 2)
                                                     / 2e4)).astype(np.float32)
    b = a.copy()
    b[100:180, 520:640] += 0.6
    b[380:460, 150:230] -= 0.4
    folder = Path(tempfile.mkdtemp())
    out = []
    for name, values in (("image_a.h5", a), ("image_b.h5", b)):
        with h5py.File(folder / name, "w") as f:
            f.create_dataset("image", data=values, chunks=(100, 100), compression="gzip")
        out.append(str(folder / name))
    return out


def show_compare(win, until) -> None:  # type: ignore[no-untyped-def]
    """Open the Compare tab of the two files of ``compare-image`` and select the image."""
    from inspector.ui.compare.action import open_compare

    first = win.current_tab()
    tab = open_compare(win, first.path, first.path.parent / "image_b.h5")
    until(lambda: tab.is_ready)
    tab.tree.select_path("objects", "/image")
    until(tab.is_settled)


def show_difference(win, until, second: str, where: str) -> None:  # type: ignore[no-untyped-def]
    """Open the Compare tab of the current document and ``second``; select the difference
    ``where`` (``SECTION:PATH``)."""
    from inspector.ui.compare.action import open_compare

    tab = open_compare(win, win.current_tab().path, second)
    until(lambda: tab.is_ready)
    section, path = where.split(":", 1)
    if not tab.tree.select_path(section, path):
        raise SystemExit(f"no difference at {where}")
    until(tab.is_settled)


def drag_over_compare(win, path: str) -> None:  # type: ignore[no-untyped-def]
    """A drag of ``path`` entering the window and moving over its Compare zone."""
    from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent

    from inspector.ui.drop_zone import COMPARE

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(path)])
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier)
    win.dragEnterEvent(QDragEnterEvent(win.rect().center(), *args))
    at = win.drop_zones.rects()[COMPARE].center()
    win.dragMoveEvent(QDragMoveEvent(QPoint(int(at.x()), int(at.y())), *args))


def main() -> None:
    mode, size, theme, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    files = sys.argv[5:] or ([str(lab_folder())] if mode == "scan-finding" else [])
    second = files.pop() if mode.startswith("compare=") else ""
    if mode == "compare-image":
        files = image_files()[:1]
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()  # cold chunk summaries
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QTabWidget

    from inspector.runtime import start_gui  # (``inspector`` is imported: see the top)

    app, _ = start_gui([sys.argv[0]])  # the application as ``inspector`` makes it
    from inspector.formats.decoding.workers import worker_pool
    from inspector.ui.main_window import MainWindow
    from inspector.ui.theme import apply_theme

    apply_theme(theme)

    def wait(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def until(pred, seconds: float = 120.0) -> None:
        end = time.monotonic() + seconds
        while not pred() and time.monotonic() < end:
            wait(50)

    with worker_pool():
        win = MainWindow()
        win.keep_geometry = False
        win.resize(*(int(v) for v in size.split("x")))
        win.show()
        win.open_paths(files, remember=False)
        if mode == "reading":
            def box():
                tab = win.current_tab()
                view = getattr(getattr(tab, "plot", None), "view", None)
                return getattr(view, "read_progress", None)
            until(lambda: box() is not None and box().isVisible(), 60)
            wait(2500)
            print(box().bar.text())
        else:
            until(lambda: win.all_tabs_ready() and win.is_idle())
            wait(300)
            tab = win.current_tab()
            if mode == "trials" or mode.startswith("tab="):
                want = "Trials" if mode == "trials" else mode[4:]
                views = next(t for t in tab.findChildren(QTabWidget)
                             if t.objectName() == "documentViews")
                titles = [views.tabText(i) for i in range(views.count())]
                views.setCurrentIndex(next(i for i, t in enumerate(titles)
                                           if t.startswith(want)))
                if want == "RSA":  # its matrices are computed once the tab is shown
                    until(lambda: getattr(tab.representations, "arranged", None) is not None
                          and "ρ =" in tab.representations.status.text())
            elif mode == "scan-finding":
                finding = next(f for f in tab.doc.findings if ":scans[" in f.location)
                win._finding_activated(finding, tab)
            elif mode == "compare-image":
                show_compare(win, until)
            elif mode.startswith("compare="):
                show_difference(win, until, second, mode.removeprefix("compare="))
            elif mode == "drop-compare":
                drag_over_compare(win, files[0])
            until(lambda: win.is_idle())
            wait(500)
        win.grab().save(out)
        print(out)
        app.processEvents()
    os._exit(0)  # (no teardown: see CONTRIBUTING.md on the exit crash)


if __name__ == "__main__":
    main()
