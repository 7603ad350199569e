"""Test configuration: Qt runs offscreen; fixtures locate the copied corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp/runtime-inspector-tests")

import pytest  # noqa: E402

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
