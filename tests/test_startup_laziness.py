"""Start-up imports nothing heavy; heavy modules are imported off the GUI thread.

Each check runs in a fresh interpreter, where nothing is imported yet.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from inspector.runtime import preload
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "pandas", "h5py", "yaml", "pyqtgraph")


def _run(code: str) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]  # (what failed in the child)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_shown_window_has_imported_nothing_heavy():
    got = _run(f"""
        import json, sys
        from inspector.app import make_application
        app = make_application()
        from inspector.ui.main_window import MainWindow
        win = MainWindow()
        win._warmed = True  # no warm-up: this is the window as first shown
        win.show()
        app.processEvents()
        print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
    """)
    assert got == []


def test_the_readers_are_found_without_their_libraries():
    got = _run(f"""
        import json, sys
        from inspector.formats import registry
        names = [r.display_name for r in registry.readers()]
        print(json.dumps([names, sorted(m for m in {HEAVY!r} if m in sys.modules)]))
    """)
    names, heavy = got
    assert len(names) >= 3 and heavy == []


def test_values_are_shown_without_importing_numpy_or_pandas():
    got = _run("""
        import json, sys
        from inspector.models.value_text import is_missing, value_text, value_type_name
        texts = [value_text(1), value_text("1"), value_text(1.5), value_text(None),
                 value_type_name(2), is_missing(float("nan"))]
        print(json.dumps([texts, "numpy" in sys.modules, "pandas" in sys.modules]))
    """)
    assert got == [["1", '"1"', "1.5", "None", "int", True], False, False]


@pytest.mark.slow
def test_opening_imports_on_the_job_and_the_plots_on_the_import_thread():
    """The recording's readers are imported by the open job, pyqtgraph (and pandas, for
    the trial table's DataFrame) by the preload thread: never by the GUI thread (an
    import hook records the thread of each)."""
    rec = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
    got = _run(f"""
        import builtins, json, sys, threading, time
        first = {{}}
        real = builtins.__import__

        def hook(name, *args, **kwargs):
            top = name.split(".")[0]
            if top in {HEAVY!r} and top not in sys.modules and top not in first:
                first[top] = threading.current_thread().name
            return real(name, *args, **kwargs)

        builtins.__import__ = hook

        class Finder:  # sees importlib.import_module too (the preload thread's imports)
            def find_spec(self, name, path=None, target=None):
                if name in {HEAVY!r} and name not in first:
                    first[name] = threading.current_thread().name

        sys.meta_path.insert(0, Finder())
        from inspector.app import make_application
        from inspector.formats.decoding.workers import worker_pool
        with worker_pool():
            app = make_application()
            from inspector.ui.main_window import MainWindow
            win = MainWindow()
            win.show()
            win.open_paths([{str(rec)!r}])
            while not (win.all_tabs_ready() and win.is_idle()):
                app.processEvents()
                time.sleep(0.005)  # (a wait, not a spin: jobs and timers run meanwhile)
            tab = win.current_tab()
            while not tab.frames.built:  # (built once the tab has stayed idle)
                app.processEvents()
                time.sleep(0.005)
            print(json.dumps([first, type(tab.plot.view).__name__]))
    """)
    first, view = got
    assert view == "NeuralView"
    assert {"numpy", "h5py", "pandas", "pyqtgraph"} <= set(first)
    assert "MainThread" not in first.values(), first


def test_when_imported_calls_back_on_the_gui_thread(qtbot, tmp_path, monkeypatch):
    (tmp_path / "gs_probe_module.py").write_text(
        "import threading\nTHREAD = threading.current_thread().name\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gs_probe_module", raising=False)
    got = []
    preload.when_imported("gs_probe_module", lambda m: got.append(m.THREAD))
    assert got == []  # not at once: it is imported in the background
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)
    assert got != ["MainThread"]
    again = []
    preload.when_imported("gs_probe_module", lambda m: again.append(m.THREAD))
    assert again == got  # already imported: called at once


def test_a_failed_import_is_reported(qtbot, tmp_path, monkeypatch):
    (tmp_path / "gs_broken_module.py").write_text("raise ValueError('broken on purpose')\n",
                                                  encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    errors = []
    preload.when_imported("gs_broken_module", lambda m: None, errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=10_000)
    assert errors == ["ValueError: broken on purpose"]


@functools.cache
def _pandas_closure() -> frozenset[str]:
    """The modules that importing pandas adds once every reader module is imported (one
    fresh interpreter per test process)."""
    return frozenset(_run("""
        import importlib, json, sys
        from inspector.formats.registry import reader_modules
        for name in reader_modules():
            importlib.import_module(name)
        before = set(sys.modules)
        import pandas
        print(json.dumps(sorted(set(sys.modules) - before)))
    """))


@pytest.mark.parametrize("name", ["continuous_small_chunks.h5", "continuous_dense_f32_intids.h5"])
@pytest.mark.slow
def test_a_warmed_up_window_imports_nothing_while_it_opens_a_recording(name):
    # the warm-up imported every reader and view (the trial views and the data
    # views included): opening a file then imports nothing, on no thread, but
    # pandas (and what it imports) when a DataFrame is built: a trial_meta frame, a
    # trial average (docs/architecture.md, "Flows", "Open")
    path = FIXTURES / "vneurotk" / "v1" / name
    got = _run(f"""
        import json, sys, time
        from inspector.app import make_application
        from inspector.formats.decoding.workers import worker_pool

        def spin(cond):
            end = time.monotonic() + 60
            while not cond() and time.monotonic() < end:
                app.processEvents()
                time.sleep(0.005)

        with worker_pool():
            app = make_application()
            from inspector.runtime import preload
            from inspector.ui.main_window import MainWindow
            win = MainWindow()
            win.resize(1280, 800)
            win.show()
            win.warm_up()
            spin(lambda: not preload.busy())
            before = set(sys.modules)
            win.open_paths([{str(path)!r}])
            spin(lambda: win.document_tabs() and win.all_tabs_ready()
                 and win.current_tab().is_settled())
            opened = sorted(set(sys.modules) - before)
            tab = win.current_tab()
            titles = [tab.views.tabText(i) for i in range(tab.views.count())]
            tab.views.setCurrentIndex(titles.index("Trials"))  # built when first shown
            spin(lambda: tab.trials_panel is not None and tab.is_settled())
            print(json.dumps([tab.trials_panel is not None, opened,
                              sorted(set(sys.modules) - before)]))
    """)
    assert got[0] is True
    if name == "continuous_small_chunks.h5":  # no trial_meta: the open imports nothing
        assert got[1] == []
    else:  # plain trial_meta: shown without pandas, its frame built once the tab is idle
        assert set(got[1]) <= _pandas_closure()
    # the Trials tab's condition average is a DataFrame (analysis.trial_average)
    assert set(got[2]) <= _pandas_closure()


@pytest.mark.slow
def test_the_window_warms_up_only_once_it_has_been_idle_a_while():
    """Warm-up imports hold the interpreter lock in long steps: they wait until every tab
    is ready and every view drawn, for several looks in a row (MainWindow.warm_up)."""
    got = _run(f"""
        import json, sys, time
        from inspector.app import make_application
        from inspector.formats.decoding.workers import worker_pool
        from inspector.runtime import preload
        from inspector.ui import main_window as mw

        def spin(cond, limit=60):
            end = time.monotonic() + limit
            while not cond() and time.monotonic() < end:
                app.processEvents()
                time.sleep(0.005)

        with worker_pool():
            app = make_application()
            win = mw.MainWindow()
            win.resize(1280, 800)
            win.show()
            win.open_paths([{str(FIXTURES / "vneurotk/v1/continuous_small_chunks.h5")!r}])
            warmed_while_busy = []
            spin(lambda: (warmed_while_busy.append(win._warmed) if not win.is_idle() else None)
                 or win.is_idle())
            spin(lambda: win._warmed)
            spin(lambda: not preload.busy())
            print(json.dumps([any(warmed_while_busy), win._idle_looks, mw.WARM_UP_IDLE_LOOKS,
                              mw.TRIALS in sys.modules]))
    """)
    warmed_while_busy, looks, wanted, trials_imported = got
    assert not warmed_while_busy
    assert looks == wanted > 1  # several looks in a row found the window idle
    assert trials_imported  # the warm-up ran through to the last view module


def test_the_import_thread_and_reader_discovery_import_under_one_lock(qtbot, tmp_path,
                                                                      monkeypatch):
    """Two threads importing one package's modules in different orders can be handed a
    module still being initialised (registry.IMPORT_LOCK): the window's import thread and
    the discovery of the readers (on a job, or wherever first asked) never overlap."""
    import importlib
    import types

    from inspector.formats import registry

    (tmp_path / "gs_lock_probe.py").write_text(
        "from inspector.formats.registry import IMPORT_LOCK\nHELD = IMPORT_LOCK._is_owned()\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gs_lock_probe", raising=False)
    got = []
    preload.when_imported("gs_lock_probe", lambda m: got.append(m.HELD))
    qtbot.waitUntil(lambda: bool(got), timeout=10_000)
    assert got == [True]

    held = []

    def import_module(name: str):
        held.append((name, registry.IMPORT_LOCK._is_owned()))
        return importlib.import_module(name)

    monkeypatch.setattr(registry, "importlib", types.SimpleNamespace(import_module=import_module))
    monkeypatch.setattr(registry, "_DISCOVERED", False)
    registry._discover()
    assert {name.rsplit(".", 1)[-1] for name, _ in held} >= {"aucx", "beckman", "delimited",
                                                                     "vneurotk"}
    assert all(owned for _, owned in held)
    assert not registry.IMPORT_LOCK._is_owned()
