"""Exit-crash reproducer: graphics items left to PySide's exit handler, then a normal exit.

The scenario of the shutdown crash (SIGSEGV at interpreter exit, after every test had
passed): PySide's exit handler (``QtCore.__moduleShutdown`` -> ``destroyQCoreApplication``)
deletes every ``QObject`` Python still owns, in no set order; a core of a crashed test
process showed the crash there (gdb: ``destructionVisitor`` ->
``QGraphicsWidget::~QGraphicsWidget``), and a census of what was left pointed to graphics
items in no scene that nothing else owned.  Such items came from a
bare plot widget's parts (``ui.plots.base.plot_widget_in_steps``) whose drive
(``ui.turns.run_in_turns``) lost its owner between two event-loop turns: PySide kept the
``QTimer.singleShot`` callable whose context object had died, and with it the steps and the
parts they had made, until the application's end.

This script, in one fresh process, does what the test processes did:

1. ``--drives N`` drives of ``plot_widget_in_steps`` whose owner (a ``QWidget``) is
   deleted after 0-3 turns, by ``deleteLater`` or ``Shiboken.delete`` (seeded);
2. ``--windows W`` main windows opened on the sample files and closed at a random moment
   of their build (0-1.5 s; seeded), as a test that closes its window early does;

then counts the graphics items still alive in no scene (Python's view: ``gc``), prints one
JSON object (``{"stray_items": {...}, "stray_total": n, ...}``) and leaves the way a test
process does: the interpreter finalises, PySide's exit handler runs.  A crash there is the
process's exit status (-11, or 139 from a shell); faulthandler prints the stacks.

Run once (from the repository, ``QT_QPA_PLATFORM=offscreen``)::

    python -X faulthandler tests/reproducers/exit_crash.py --seed 1 --drives 60 --windows 2

Run the loop (each run a fresh process; two loops in parallel load both cores)::

    for i in $(seq 1 30); do
      QT_QPA_PLATFORM=offscreen python -X faulthandler tests/reproducers/exit_crash.py \\
          --seed $i --drives 60 --windows 2 > /dev/null 2> run$i.err
      echo "$i $?" >> statuses.txt
    done
    awk '{print $2}' statuses.txt | sort | uniq -c

``tests/test_exit_crash.py`` runs the scenario once and asserts a clean exit and no stray
item.  Clean exits do not prove the crash gone (it was intermittent, and this scenario did not
crash in 32 runs of the code before the fix either);
the stray count is what the fix changed (0 with the fix; 334-488 in 32 runs of the defaults
on 97364a0^, the commit before it).
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import random
import sys
from collections import Counter

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
faulthandler.enable(all_threads=True)

import inspector  # noqa: E402, F401 - before PySide6 (lazy class creation off)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drives", type=int, default=60,
                        help="plot-widget drives whose owner is deleted between turns")
    parser.add_argument("--windows", type=int, default=2,
                        help="windows on the sample files closed during their build")
    return parser.parse_args(argv)


def _spin(ms: int) -> None:
    """Run the event loop for ``ms`` milliseconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def _drives(app, count: int, rnd: random.Random) -> None:
    """Bare plot widgets built over turns whose owner is deleted 0-3 turns in."""
    from PySide6.QtWidgets import QWidget
    from shiboken6 import Shiboken

    from inspector.ui.plots.base import plot_widget_in_steps
    from inspector.ui.turns import run_in_turns

    for _ in range(count):
        owner = QWidget()
        run_in_turns(owner, plot_widget_in_steps(), on_result=lambda _widget: None)
        for _turn in range(rnd.randint(0, 3)):
            app.processEvents()
        if rnd.random() < 0.5:
            Shiboken.delete(owner)
        else:
            owner.deleteLater()
        del owner
        _spin(1)


def _windows(count: int, rnd: random.Random) -> None:
    """Main windows on the sample files, closed at a random moment of their build."""
    from inspector.app import _drain
    from inspector.resources_access import sample_files
    from inspector.ui.main_window import MainWindow

    for _ in range(count):
        win = MainWindow()
        win.resize(1024, 640)
        win.show()
        win.open_paths([str(p) for p in sample_files()], remember=False)
        _spin(rnd.randint(0, 1500))
        win.close()
        _drain(win)
        win.deleteLater()
        _spin(5)


def stray_items() -> Counter[str]:
    """Graphics items alive, valid and in no scene, by type (what the exit handler would
    delete in no set order)."""
    import gc

    from PySide6.QtWidgets import QGraphicsItem
    from shiboken6 import Shiboken

    gc.collect()
    out: Counter[str] = Counter()
    for obj in gc.get_objects():
        if isinstance(obj, QGraphicsItem) and Shiboken.isValid(obj) and obj.scene() is None:
            out[type(obj).__name__] += 1
    return out


def _worker_pool():
    try:
        from inspector.formats.decoding.workers import worker_pool
    except ImportError:  # (the module's place before the formats/ grouping)
        from inspector.formats.workers import worker_pool  # type: ignore[no-redef]
    return worker_pool()


def main(argv: list[str] | None = None) -> None:
    args = _arguments(argv)
    from inspector.app import make_application

    app = make_application(["exit_crash"])
    rnd = random.Random(args.seed)
    with _worker_pool():
        _windows(args.windows, rnd)
        _drives(app, args.drives, rnd)
        _spin(20)
    strays = stray_items()
    print(json.dumps({"seed": args.seed, "drives": args.drives, "windows": args.windows,
                      "stray_items": dict(sorted(strays.items())),
                      "stray_total": sum(strays.values())}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
