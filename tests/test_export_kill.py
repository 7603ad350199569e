"""Killed (SIGKILL) at any step of an export, no temporary stays visible once
``inspector`` has started again, and the destination is the old file or the new one,
whole.  The writer stops at a step through the test hook ``INSPECTOR_TEST_PAUSE_AT``
(:mod:`inspector.formats.aucx.atomicfile`); each export that is killed runs in its own
process.  The old destination is exported once, in this process, and copied; the next
start is ``inspector.cli.main`` called here (what a start runs first)."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.formats.aucx import open_archive
from inspector.formats.sources.partials import TEMP_PREFIX
from tests.conftest import FIXTURES

SOURCE = FIXTURES / "aucx" / "src_readiness_rich.aucx"
ROOT = Path(__file__).resolve().parent.parent
#: The child: ``inspector export``, optionally without O_TMPFILE (a named temporary).
CHILD = """
import sys
from inspector.formats.aucx import atomicfile
if sys.argv[1] == "named":
    init = atomicfile.AtomicFile.__init__
    atomicfile.AtomicFile.__init__ = lambda self, folder, tmpfile=True: init(
        self, folder, tmpfile=False)
from inspector.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _env(tmp_path: Path, step: str | None = None) -> dict[str, str]:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"),
           "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    env.pop("INSPECTOR_TEST_PAUSE_AT", None)
    if step is not None:
        env["INSPECTOR_TEST_PAUSE_AT"] = step
    return env


def _export(tmp_path: Path, dest: Path, when: str, mode: str,
            step: str | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", CHILD, mode, "export", str(SOURCE),
                             str(dest), "--exported-at", when, "--overwrite"],
                            env=_env(tmp_path, step), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=tmp_path)


def _wait_for_pause(proc: subprocess.Popen[bytes], step: str) -> None:
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    seen = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            seen += chunk
            if f"paused at {step}".encode() in seen:
                return
            if not chunk:
                break
    proc.kill()
    raise AssertionError(f"the writer never paused at {step}: {seen[-2000:]!r}")


def _temporaries(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith(TEMP_PREFIX))


def _verified(path: Path) -> None:
    doc = open_archive(path)
    doc.verify()
    assert doc.ok and doc.verified, [f.message for f in doc.findings]


#: (step, temporary): a named temporary is renamed in one step, with no link step.
STEPS = [("written", "unnamed"), ("linked", "unnamed"), ("replaced", "unnamed"),
         ("written", "named"), ("replaced", "named")]


@pytest.fixture(scope="module")
def old_export(tmp_path_factory) -> Path:
    """The archive exported at 2024-01-01 (the destination before each killed export)."""
    from inspector.cli import main

    folder = tmp_path_factory.mktemp("old")
    dest = folder / "old.aucx"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_STATE_HOME", str(folder / "state"))
        assert main(["export", str(SOURCE), str(dest), "--exported-at",
                     "2024-01-01T00:00:00Z"]) == 0
    return dest


def _next_start(tmp_path: Path, monkeypatch, dest: Path) -> None:
    """The next start of inspector (any command: ``verify``), in this process."""
    from inspector.cli import main

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert main(["verify", str(dest)]) == 0


@pytest.mark.parametrize(("step", "mode"), STEPS, ids=[f"{s}-{m}" for s, m in STEPS])
@pytest.mark.slow
def test_a_kill_at_any_step_leaves_no_temporary_after_the_next_start(
        tmp_path, monkeypatch, capsys, old_export, step, mode):
    out = tmp_path / "out"
    out.mkdir()
    dest = out / "dest.aucx"
    shutil.copyfile(old_export, dest)
    old = dest.read_bytes()
    proc = _export(tmp_path, dest, "2025-06-01T00:00:00Z", mode, step)
    _wait_for_pause(proc, step)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(30) == -signal.SIGKILL
    new = dest.read_bytes()
    assert new == old if step in ("written", "linked") else new != old
    _verified(dest)  # whole either way
    # the next start of inspector (any command) removes what the killed writer left
    _next_start(tmp_path, monkeypatch, dest)
    assert _temporaries(out) == []
    journal = tmp_path / "state" / "inspector" / "partial"
    assert not journal.exists() or os.listdir(journal) == []
    assert dest.read_bytes() == new


def test_a_kill_between_link_and_rename_leaves_the_temporary_until_the_next_start(
        tmp_path, monkeypatch, old_export):
    """The one moment a name is visible: the link before the rename (no call links onto
    an existing name).  It is journalled, and only the next start removes it."""
    out = tmp_path / "out"
    out.mkdir()
    dest = out / "dest.aucx"
    shutil.copyfile(old_export, dest)
    proc = _export(tmp_path, dest, "2025-06-01T00:00:00Z", "unnamed", "linked")
    _wait_for_pause(proc, "linked")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    left = _temporaries(out)
    assert len(left) == 1 and left[0].startswith(f"{TEMP_PREFIX}{proc.pid}-")
    entries = os.listdir(tmp_path / "state" / "inspector" / "partial")
    assert len(entries) == 1 and entries[0].startswith(f"{proc.pid}-")
    from inspector.formats.sources.partials import clean_left_over

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert clean_left_over() == [str(out / left[0])]
    assert _temporaries(out) == []
    assert os.listdir(tmp_path / "state" / "inspector" / "partial") == []
