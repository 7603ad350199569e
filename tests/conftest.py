"""Test configuration: Qt runs offscreen; fixtures locate the copied corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp/runtime-inspector-tests")

import pytest  # noqa: E402

import inspector  # noqa: E402, F401 - before pytest-qt imports PySide6 (see inspector/__init__.py)

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


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
def _worker_pool():
    """The shared worker pool, as the entry points open it (inspector.formats.workers)."""
    from inspector.formats.workers import worker_pool

    with worker_pool() as executor:
        yield executor


@pytest.fixture(scope="session", autouse=True)
def _collector_on_the_gui_thread(qapp):
    """As in the app (``make_application``): cyclic garbage is collected on the GUI thread
    only (inspector.ui.garbage; a Qt object collected on a job thread can deadlock with the
    GUI thread)."""
    from inspector.ui.garbage import install_gui_thread_collector

    collector = install_gui_thread_collector(qapp)
    yield collector
    collector.stop()


@pytest.fixture(autouse=True)
def _collect_after_each_test(_collector_on_the_gui_thread):
    """What became garbage in a test that never ran the event loop is collected after it; what
    a warmed-up window froze (``freeze_long_lived``) is given back, for later tests to free."""
    import gc

    yield
    if gc.get_freeze_count():
        gc.unfreeze()
    _collector_on_the_gui_thread.check()


# -- exit ---------------------------------------------------------------------------------
# About one full run in eight ended with SIGSEGV during interpreter finalisation, after every
# test had passed and the summary was printed (HDF5/Qt objects torn down in an order they do
# not survive; under investigation). The run's own status is what CI must see, so the process
# leaves with it before finalisation.
@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config._inspector_exitstatus = int(exitstatus)  # type: ignore[attr-defined]


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    status = getattr(config, "_inspector_exitstatus", None)
    if status is not None and os.environ.get("INSPECTOR_TEST_FINALIZE") != "1":
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
