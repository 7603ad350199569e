"""Crash-proof AUCX export (AUCX 1.0 format document, "Atomic writes"):
``python -m inspector export`` killed with SIGKILL at any moment leaves the
destination absent (or as it was) or a complete archive that verifies, and
no temporary in the folder; the named-temporary fallback cleans up after a
crashed writer; a full disk is a clear error that leaves nothing."""

from __future__ import annotations

import errno
import fcntl
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import inspector
from inspector.formats.auc.model import AucExperiment
from inspector.formats.aucx import ArchiveWriteError, open_archive, read_experiment, write_aucx
from inspector.formats.aucx import writer as writer_mod
from inspector.formats.aucx.atomicfile import TEMP_PREFIX, TEMP_SUFFIX, remove_stale

WHEN = "2026-01-01T00:00:00Z"
WORKTREE = Path(inspector.__file__).resolve().parents[1]
#: A scan's elapsed time as openauc's ScanMetadata requires one.
ELAPSED = {"value": 0.0, "unit": "s", "status": "present"}


def _experiment(n_scans: int = 10, n_points: int = 20_000) -> AucExperiment:
    rng = np.random.default_rng(7)
    signal = rng.normal(0.5, 0.01, (n_scans, n_points))  # noise: deflate works for it
    return AucExperiment(
        metadata={"experiment_id": "crash"}, instrument=None, samples=[],
        scans=[{"scan_id": f"s{i}", "index": i, "elapsed_time": ELAPSED}
               for i in range(n_scans)], provenance=None,
        mode="shared", radius_unit="cm", signal_unit="AU",
        scan_ids=[f"s{i}" for i in range(n_scans)], radius=np.linspace(6, 7, n_points),
        signal=signal, mask=np.ones(signal.shape, bool))


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return write_aucx(_experiment(10, 10_000), tmp_path_factory.mktemp("src") / "src.aucx",
                      exported_at=WHEN)


def _export(src: Path, dest: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(WORKTREE), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "inspector", "export", str(src), str(dest),
         "--exported-at", WHEN, *extra],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _verifies(path: Path) -> bool:
    with open_archive(path) as doc:
        doc.verify()
        return doc.ok and doc.verified


def _temporaries(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith(TEMP_PREFIX))


def _kill_at(proc: subprocess.Popen[bytes], delay: float) -> bool:
    """SIGKILL ``proc`` after ``delay`` seconds; True when it was still running."""
    try:
        proc.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True


def _full_run_seconds(source: Path, folder: Path) -> float:
    dest = folder / "timing.aucx"
    start = time.monotonic()
    proc = _export(source, dest)
    assert proc.wait(timeout=300) == 0
    seconds = time.monotonic() - start
    assert _verifies(dest)
    dest.unlink()
    return seconds


@pytest.mark.slow
def test_killed_export_leaves_nothing_or_a_verified_archive(source, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    total = _full_run_seconds(source, folder)
    rng = random.Random(20260101)
    dest = folder / "new.aucx"
    for i in range(20):
        # delays spread over the whole run (stratified), plus jitter
        delay = total * (i + rng.random()) / 20
        _kill_at(_export(source, dest), delay)
        names = sorted(os.listdir(folder))
        assert names in ([], ["new.aucx"]), (i, delay, names)
        if names:
            assert _verifies(dest), (i, delay)
            dest.unlink()


@pytest.mark.slow
def test_killed_overwrite_leaves_the_old_or_a_verified_archive(source, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    total = _full_run_seconds(source, folder)
    old = b"the previous archive"
    dest = folder / "kept.aucx"
    rng = random.Random(7)
    for i in range(8):
        dest.write_bytes(old)
        _kill_at(_export(source, dest, "--overwrite"), total * (i + rng.random()) / 8)
        assert dest.read_bytes() == old or _verifies(dest), i
        left = _temporaries(folder)
        # An overwrite links the finished, verified archive to a sibling name
        # and renames it onto the destination: a kill between those two calls
        # (microseconds) leaves that complete sibling, which the next export
        # removes.  Anything else is a failure.
        assert len(left) <= 1, left
        for name in left:
            assert _verifies(folder / name)
            assert remove_stale(folder) == [name]
        assert sorted(os.listdir(folder)) == ["kept.aucx"]


def test_export_refuses_a_destination_created_meanwhile(tmp_path, monkeypatch):
    """No overwrite: the archive is linked to the name only if it is still free."""
    dest = tmp_path / "x.aucx"
    verify = writer_mod._verify_written

    def racing(tmp, target):
        verify(tmp, target)
        target.write_bytes(b"someone else's")  # appears after the early check

    monkeypatch.setattr(writer_mod, "_verify_written", racing)
    with pytest.raises(FileExistsError):
        write_aucx(_experiment(2, 10), dest, exported_at=WHEN)
    assert dest.read_bytes() == b"someone else's"
    assert os.listdir(tmp_path) == ["x.aucx"]


def test_unnamed_temporary_is_invisible_until_placed(tmp_path, monkeypatch):
    verify = writer_mod._verify_written
    seen = []

    def watching(tmp, target):
        seen.append((os.listdir(tmp_path), os.stat(tmp).st_dev, os.stat(tmp_path).st_dev))
        verify(tmp, target)

    monkeypatch.setattr(writer_mod, "_verify_written", watching)
    write_aucx(_experiment(2, 10), tmp_path / "a.aucx", exported_at=WHEN)
    listing, tmp_dev, folder_dev = seen[0]
    assert listing == [] and tmp_dev == folder_dev  # same filesystem, no name
    assert os.listdir(tmp_path) == ["a.aucx"]


# -- the named fallback ---------------------------------------------------------------
def _stale(folder: Path, tag: str) -> Path:
    p = folder / f"{TEMP_PREFIX}{tag}{TEMP_SUFFIX}"
    p.write_bytes(b"left by a crashed export")
    return p


@pytest.mark.parametrize("how", ["no O_TMPFILE", "EOPNOTSUPP", "EISDIR", "EINVAL"])
def test_fallback_uses_a_named_sibling_and_removes_stale_ones(tmp_path, monkeypatch, how):
    if how == "no O_TMPFILE":
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    else:
        real_open = os.open
        code = getattr(errno, how)

        tmpfile_flag = os.O_TMPFILE

        def refusing(path, flags, *args, **kw):
            if (flags & tmpfile_flag) == tmpfile_flag:
                raise OSError(code, os.strerror(code), str(path))
            return real_open(path, flags, *args, **kw)

        monkeypatch.setattr(os, "open", refusing)
    stale = _stale(tmp_path, "deadbeef")
    live = _stale(tmp_path, "in-use")  # held locked by a writer still running
    held = open(live, "rb")
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    unrelated = tmp_path / ".other.tmp"
    unrelated.write_bytes(b"not ours")
    verify = writer_mod._verify_written
    during = []

    def watching(tmp, target):
        during.append(tmp)
        verify(tmp, target)

    monkeypatch.setattr(writer_mod, "_verify_written", watching)
    try:
        out = write_aucx(_experiment(2, 10), tmp_path / "f.aucx", exported_at=WHEN)
    finally:
        held.close()
    tmp = during[0]
    assert tmp.parent == tmp_path and tmp.name.startswith(TEMP_PREFIX)
    assert not tmp.exists() and not stale.exists()
    assert live.exists() and unrelated.exists()
    assert sorted(os.listdir(tmp_path)) == sorted(["f.aucx", live.name, ".other.tmp"])
    assert read_experiment(out).scan_ids == ["s0", "s1"]


def test_fallback_failure_and_no_clobber(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)

    def broken(tmp, target):
        assert tmp.exists()
        raise ArchiveWriteError("read-back failed")

    monkeypatch.setattr(writer_mod, "_verify_written", broken)
    with pytest.raises(ArchiveWriteError):
        write_aucx(_experiment(2, 10), tmp_path / "x.aucx", exported_at=WHEN)
    assert os.listdir(tmp_path) == []
    monkeypatch.undo()
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    verify = writer_mod._verify_written

    def racing(tmp, target):
        verify(tmp, target)
        target.write_bytes(b"theirs")

    monkeypatch.setattr(writer_mod, "_verify_written", racing)
    with pytest.raises(FileExistsError):
        write_aucx(_experiment(2, 10), tmp_path / "x.aucx", exported_at=WHEN)
    assert os.listdir(tmp_path) == ["x.aucx"] and (tmp_path / "x.aucx").read_bytes() == b"theirs"


# -- disk full ------------------------------------------------------------------------
@pytest.mark.parametrize("tmpfile", [True, False])
def test_disk_full_is_a_clear_error_and_leaves_nothing(tmp_path, monkeypatch, tmpfile):
    if not tmpfile:
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    real = writer_mod._write_zip

    def filling(fh, json_members, arrays):
        fh.write(b"\0" * 4096)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(writer_mod, "_write_zip", filling)
    dest = tmp_path / "full.aucx"
    with pytest.raises(ArchiveWriteError, match="no space left"):
        write_aucx(_experiment(2, 10), dest, exported_at=WHEN)
    assert os.listdir(tmp_path) == []
    dest.write_bytes(b"old")
    with pytest.raises(ArchiveWriteError, match="nothing was written"):
        write_aucx(_experiment(2, 10), dest, exported_at=WHEN, overwrite=True)
    assert os.listdir(tmp_path) == ["full.aucx"] and dest.read_bytes() == b"old"
    monkeypatch.setattr(writer_mod, "_write_zip", real)
    write_aucx(_experiment(2, 10), dest, exported_at=WHEN, overwrite=True)
    assert _verifies(dest)
