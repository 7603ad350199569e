"""``inspector --version`` and ``inspector --help`` as a user runs them (a subprocess)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import inspector
from inspector.cli import SUBCOMMANDS


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True,
                          text=True, timeout=120, env=None)


def test_version_prints_the_package_version():
    proc = _run("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"inspector {inspector.__version__}"


def test_help_lists_each_subcommand_on_one_line():
    proc = _run("--help")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("usage: inspector")
    assert set(SUBCOMMANDS) == {"verify", "export", "dump", "diff", "install-desktop", "rsa"}
    for name, summary in SUBCOMMANDS.items():
        hits = [line for line in lines if line.split()[:1] == [name]]
        assert len(hits) == 1, f"{name} not listed once in --help"
        assert hits[0].split(None, 1)[1] == summary


@pytest.mark.slow
def test_subcommand_help_exits_zero():
    for name in SUBCOMMANDS:
        proc = _run(name, "--help")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith(f"usage: inspector {name}")


def test_unknown_option_is_a_usage_error():
    proc = _run("--no-such-option")
    assert proc.returncode == 2
    assert "error" in proc.stderr
