"""A file swapped for a named pipe after the guard checked it never blocks a read.

The external-storage file of ``/x`` is a regular file inside the document's folder
when the document opens (so :mod:`external_guard` allows it), and is replaced by a
named pipe before the values are read.  Judged again right before the read, the
pipe is ``external.special-file``; swapped inside that last window (simulated by
making the re-check see the old regular file), HDF5 blocks opening the pipe and the
watchdog of :mod:`read_watch` releases it at the time limit (lowered here so the
test is quick): ``data.read-timeout``, no values shown, no hang.  The outcomes are
asserted, never the times.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.hdf5 import external_guard, read_watch
from inspector.formats.nodes.data import NodeReadError
from inspector.formats.sources.folder_bounds import REGULAR

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

VALUES = np.arange(8, dtype="<i8")


@pytest.fixture(autouse=True)
def _quick_limit(monkeypatch):
    monkeypatch.setattr(read_watch, "READ_TIMEOUT_S", 0.3)
    monkeypatch.setattr(read_watch, "RETRY_S", 0.05)


def _stored(folder: Path) -> tuple[Path, Path]:
    """``folder/doc.h5`` whose ``/x`` (8 int64) is stored in ``folder/raw.bin``."""
    folder.mkdir(parents=True, exist_ok=True)
    raw = folder / "raw.bin"
    raw.write_bytes(VALUES.tobytes())
    path = folder / "doc.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", (8,), "<i8", external=[("raw.bin", 0, VALUES.nbytes)])
    return path, raw


def _swap_for_pipe(raw: Path) -> None:
    raw.unlink()
    os.mkfifo(raw)


def _read_in_thread(read) -> dict:
    """Run ``read()`` on a thread; a hang fails the test instead of freezing it."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = read()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the read did not end"
    return out


def test_a_regular_file_is_read_under_the_watchdog(tmp_path, monkeypatch):
    monkeypatch.setattr(read_watch, "READ_TIMEOUT_S", 0.0)  # past the limit at once: no pipe
    path, _raw = _stored(tmp_path / "doc")
    monkeypatch.chdir(path.parent)  # HDF5 resolves raw.bin from the working folder
    with h5py.File(path) as f:  # the oracle
        expected = f["x"][()]
    with open_document(path) as doc:
        values = doc.object_data.node("/x").read().columns[0].values
    assert values.tolist() == expected.tolist() == VALUES.tolist()


def test_a_file_swapped_for_a_pipe_before_the_read_is_refused(tmp_path, capsys, monkeypatch):
    path, raw = _stored(tmp_path / "doc")
    monkeypatch.chdir(path.parent)
    with open_document(path) as doc:
        assert "external.storage" in [f.code for f in doc.findings if f.location == "/x"]
        _swap_for_pipe(raw)
        node = doc.object_data.node("/x")
        out = _read_in_thread(node.read)
    assert isinstance(out.get("error"), NodeReadError)
    assert out["error"].finding.code == "external.special-file"
    assert str(raw) in out["error"].finding.message


def test_a_pipe_swapped_in_after_the_last_check_is_released(tmp_path, capsys, monkeypatch):
    path, raw = _stored(tmp_path / "doc")
    monkeypatch.chdir(path.parent)
    with open_document(path) as doc:
        node = doc.object_data.node("/x")
        _swap_for_pipe(raw)
        # the swap lands between the guard's last look and HDF5's open(2)
        monkeypatch.setattr(external_guard, "file_kind", lambda _path: REGULAR)
        out = _read_in_thread(node.read)
    assert isinstance(out.get("error"), NodeReadError), out
    finding = out["error"].finding
    assert finding.code == "data.read-timeout" and finding.location == "/x"
    assert str(raw) in finding.message and "named pipe" in finding.message
    assert not read_watch._reads  # nothing left watched
    status = _read_in_thread(lambda: main(["dump", f"{path}::/x"]))["value"]
    err = capsys.readouterr().err
    assert status == 1 and "data.read-timeout" in err


def test_release_opens_only_pipes(tmp_path):
    regular = tmp_path / "regular.bin"
    regular.write_bytes(b"kept")
    before = os.stat(regular)
    assert read_watch.release(str(regular)) is False
    assert regular.read_bytes() == b"kept" and os.stat(regular).st_mtime_ns == before.st_mtime_ns
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert read_watch.release(str(pipe)) is False  # no reader waiting: nothing to release
    assert read_watch.release(str(tmp_path / "missing")) is False


def test_a_blocking_target_that_cannot_be_released_is_interrupted(tmp_path, capsys,
                                                                  monkeypatch):
    """What no writer end releases (a device whose open(2) waits, stood for here by a
    pipe whose release is taken away) ends too: the reading thread is interrupted."""
    path, raw = _stored(tmp_path / "doc")
    monkeypatch.chdir(path.parent)
    monkeypatch.setattr(read_watch, "release", lambda _path: False)
    with open_document(path) as doc:
        node = doc.object_data.node("/x")
        _swap_for_pipe(raw)
        monkeypatch.setattr(external_guard, "file_kind", lambda _path: REGULAR)
        out = _read_in_thread(node.read)
        assert isinstance(out.get("error"), NodeReadError), out
        finding = out["error"].finding
        assert finding.code == "data.read-timeout" and finding.location == "/x"
        assert f"{raw} is now a named pipe" in finding.message
    assert not read_watch._reads
    status = _read_in_thread(lambda: main(["dump", f"{path}::/x"]))["value"]
    err = capsys.readouterr().err
    assert status == 1 and "data.read-timeout" in err and str(raw) in err


_DUMP_CHILD = """
import sys
from inspector.cli import main
from inspector.formats.hdf5 import external_guard, read_watch
from inspector.formats.sources.folder_bounds import REGULAR
read_watch.READ_TIMEOUT_S = 0.3
read_watch.RETRY_S = 0.05
read_watch.release = lambda _path: False  # nothing to release: only the interrupt ends it
external_guard.file_kind = lambda _path: REGULAR  # the swap lands after the last check
sys.exit(main(sys.argv[1:]))
"""


def test_dump_exits_with_the_finding_when_the_read_blocks(tmp_path):
    """``dump`` of a dataset whose external file blocks, read on the main thread of its
    own process, exits with the finding, and the interpreter exits too (no thread left
    blocked).  (``verify`` reads no external values of a plain HDF5 file.)"""
    import subprocess
    import sys

    path, raw = _stored(tmp_path / "doc")
    _swap_for_pipe(raw)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run([sys.executable, "-c", _DUMP_CHILD, "dump", f"{path}::/x"],
                          cwd=path.parent, env=env, capture_output=True, text=True,
                          timeout=120)
    out = done.stdout + done.stderr
    assert "data.read-timeout: doc.h5: /x: reading its values did not end" in out, out
    assert f"{raw} is now a named pipe" in out and done.returncode == 1, out
