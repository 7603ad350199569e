"""Test configuration: Qt runs offscreen; fixtures locate the copied corpus."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp/runtime-inspector-tests")

# Bytecode caches are written even when the shell says not to (PYTHONDONTWRITEBYTECODE,
# ``python -B``): without them every test process (each xdist worker) rewrites the asserts
# of every test module and compiles the package from source (about 18 of its 26 CPU-s of
# collection), and every ``python -m inspector`` a test starts compiles the package again.
# Set here, before the package and the test modules are imported; the environment carries it
# to the workers and to the commands the tests start.  ``__pycache__`` is in .gitignore.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import pytest  # noqa: E402

import inspector  # noqa: E402, F401 - before pytest-qt imports PySide6 (see inspector/__init__.py)

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture()
def jobs(qtbot):
    """A :class:`~inspector.jobs.JobRunner` for one test; afterwards its jobs are cancelled
    and waited for (at most 5 s)."""
    from inspector.jobs import JobRunner

    runner = JobRunner()
    yield runner
    runner.cancel_all()
    runner.wait(5000)


def open_window(qtbot, *paths, size: tuple[int, int] = (1024, 640), show: bool = False,
                remember: bool = True, idle: bool = False, timeout: int = 20_000):
    """A ``MainWindow`` for one test (closed and deleted by ``qtbot`` after it), sized
    ``size``, with ``paths`` open, each in its tab; it returns once every tab is ready (and,
    with ``idle``, the window idle: plots built, no job running).

    ``show``: shown and exposed first; ``remember``: the paths join File > Open Recent.
    """
    from inspector.ui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(*size)
    if show:
        win.show()
        qtbot.waitExposed(win)
    if paths:
        win.open_paths([str(p) for p in paths], remember=remember)
        if idle:
            qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=timeout)
        else:
            qtbot.waitUntil(lambda: bool(win.document_tabs()) and win.all_tabs_ready(),
                            timeout=timeout)
    return win


def load_expected(folder: str) -> list[dict]:
    """The ``expected.json`` list of a corpus folder copied into ``tests/fixtures``."""
    return json.loads((FIXTURES / folder / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """QSettings and XDG folders go to a temporary home, never the user's."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    yield


@pytest.fixture(scope="session", autouse=True)
def _application(qapp):
    """The application's life in a test process, as in the app (``inspector.app``): the
    shared worker pool is open (``inspector.formats.decoding.workers``) and cyclic garbage is
    collected on the GUI thread only (``inspector.runtime.garbage``: a Qt object collected on a
    job thread can deadlock with the GUI thread)."""
    from inspector.formats.decoding.workers import worker_pool
    from inspector.runtime.garbage import install_gui_thread_collector

    with worker_pool():
        collector = install_gui_thread_collector(qapp)
        yield collector
        collector.stop()


@pytest.fixture(scope="session")
def _collector_on_the_gui_thread(_application):
    """The process's ``GuiThreadCollector`` (``inspector.runtime.garbage``)."""
    return _application


@pytest.fixture(scope="session")
def _worker_pool(_application):
    """The shared worker pool (``inspector.formats.decoding.workers.pool``)."""
    from inspector.formats.decoding.workers import pool

    return pool()


@pytest.fixture(autouse=True)
def _collect_after_each_test(_application):
    """What became garbage in a test that never ran the event loop is collected after it; what
    a warmed-up window froze (``freeze_long_lived``) is given back, for later tests to free."""
    import gc

    yield
    if gc.get_freeze_count():
        gc.unfreeze()
    _application.check()


# -- exit -----------------------------------------------------------------------------------
# A test process finalises as the application does (no early exit).  faulthandler stays on to
# the end, so that a crash while the interpreter finalises prints its stacks; an xdist worker
# that dies then fails the run (``_fail_on_unclean_workers``, below).
@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _fail_on_unclean_workers(session)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    import faulthandler
    import sys

    # (pytest's faulthandler plugin turned it off in its own pytest_unconfigure)
    faulthandler.enable(file=sys.__stderr__, all_threads=True)


_WORKER_GATEWAYS: list = []


def pytest_configure(config: pytest.Config) -> None:
    """The xdist controller waits up to a minute for a worker to finish exiting (xdist's
    own wait is 10 s, then SIGKILL): a test process's interpreter finalisation took longer
    than that on a loaded 2-core machine, and a killed worker fails the run (below)."""
    try:
        from xdist.workermanage import NodeManager
    except ImportError:
        return
    NodeManager.EXIT_TIMEOUT = max(NodeManager.EXIT_TIMEOUT, 60)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_newgateway(gateway) -> None:
    _WORKER_GATEWAYS.append(gateway)


def _fail_on_unclean_workers(session: pytest.Session) -> None:
    """In the xdist controller, after the workers were shut down (``DSession``'s
    ``pytest_sessionfinish``): a worker that died of a signal or left with an error while
    finalising fails the run, with its exit status on the terminal."""
    bad = []
    for gateway in _WORKER_GATEWAYS:
        popen = getattr(getattr(gateway, "_io", None), "popen", None)
        code = popen.poll() if popen is not None else None
        if code not in (0, None):
            bad.append(f"{gateway.id}: exit status {code}")
    if bad:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"test worker(s) did not exit cleanly: {', '.join(bad)}",
                                red=True)
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
