"""Paths and links that lead into named pipes, devices or back to themselves.

Opening a named pipe waits for a writer forever: each case runs ``inspector verify --json``
in a child process (the timeout only guards the test run against a hang; nothing is timed).
h5py is the oracle of what the rest of the recording holds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats.hdf5.elink_guard import special_target
from tests.conftest import FIXTURES
from tests.test_hostile_window import inspect_in_child

RECORDING = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def verify_json(path: Path) -> dict:
    done = subprocess.run([sys.executable, "-m", "inspector", "verify", "--json", str(path)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert done.returncode == 1, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[0])


def relinked(tmp_path: Path, name: str, target: str) -> Path:
    """The recording with ``/neuro`` replaced by an external link to ``target:/neuro``."""
    path = tmp_path / name
    shutil.copy(RECORDING, path)
    with h5py.File(path, "a") as f:
        del f["neuro"]
        f["neuro"] = h5py.ExternalLink(target, "/neuro")
    return path


def dangling(report: dict) -> str:
    found = [f for f in report["findings"] if f["code"] == "link.dangling"]
    assert [f["location"] for f in found] == ["/neuro"]
    assert "neuro.missing" in {f["code"] for f in report["findings"]}
    assert "internal.reader-failed" not in {f["code"] for f in report["findings"]}
    return found[0]["message"]


def test_a_named_pipe_given_as_the_file_is_refused_unopened(tmp_path):
    pipe = tmp_path / "recording.h5"
    os.mkfifo(pipe)
    report = verify_json(pipe)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [
        ("file.unreadable", "error")]
    assert "named pipe" in report["findings"][0]["message"]


def test_a_character_device_is_refused_unopened():
    report = verify_json(Path(os.devnull))
    assert [f["code"] for f in report["findings"]] == ["file.unreadable"]
    assert "character device" in report["findings"][0]["message"]


@pytest.mark.slow
def test_an_external_link_into_a_named_pipe_is_dangling_and_the_rest_is_read(tmp_path):
    os.mkfifo(tmp_path / "pipe.h5")
    path = relinked(tmp_path, "to_pipe.h5", "pipe.h5")
    assert special_target(str(path), "pipe.h5") and not special_target(str(path), path.name)
    report = verify_json(path)
    assert "named pipe, socket or device" in dangling(report)
    with h5py.File(RECORDING) as f:
        count = int(f["stim_labels"].shape[0])
    assert report["summary"]["stim_labels"]["count"] == count


@pytest.mark.slow
def test_an_external_link_to_itself_says_so(tmp_path):
    path = relinked(tmp_path, "self.h5", "self.h5")
    assert "leads back to itself" in dangling(verify_json(path))


@pytest.mark.slow
def test_an_external_link_to_a_device_is_never_opened(tmp_path):
    path = relinked(tmp_path, "to_device.h5", os.devnull)
    assert "named pipe, socket or device" in dangling(verify_json(path))


@pytest.mark.slow
def test_the_window_shows_a_recording_linking_into_a_pipe(tmp_path):
    os.mkfifo(tmp_path / "pipe.h5")
    report = inspect_in_child(relinked(tmp_path, "to_pipe.h5", "pipe.h5"))
    assert "named pipe, socket or device" in dangling(report)


@pytest.mark.slow
def test_a_regular_external_target_is_still_followed(tmp_path):
    shutil.copy(RECORDING, tmp_path / "other.h5")
    path = relinked(tmp_path, "to_other.h5", "other.h5")
    report = verify_json_any(path)
    codes = {f["code"] for f in report["findings"]}
    assert "link.dangling" not in codes and "neuro.missing" not in codes
    assert "link.external" in codes
    with h5py.File(RECORDING) as f:
        assert report["summary"]["neuro"]["shape"] == list(f["neuro"].shape)
        assert np.dtype(f["neuro"].dtype).name == report["summary"]["neuro"]["dtype"]


def verify_json_any(path: Path) -> dict:
    done = subprocess.run([sys.executable, "-m", "inspector", "verify", "--json", str(path)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    return json.loads(done.stdout.strip().splitlines()[0])


@pytest.mark.slow
def test_a_virtual_dataset_reading_from_a_named_pipe_is_never_read(tmp_path):
    """HDF5 opens a virtual source when the dataset is read (``inspector dump`` hung)."""
    with h5py.File(tmp_path / "source.h5", "w") as s:
        s["x"] = np.arange(10.0)
    path = tmp_path / "virtual.h5"
    shutil.copy(RECORDING, path)
    with h5py.File(path, "a") as f:
        layout = h5py.VirtualLayout(shape=(10,), dtype="f8")
        layout[:] = h5py.VirtualSource("source.h5", "x", shape=(10,))
        f.create_virtual_dataset("extra", layout, fillvalue=-1)
    with h5py.File(path) as f:  # the oracle: the mapping reads the source while it is a file
        np.testing.assert_array_equal(f["extra"][:], np.arange(10.0))
    (tmp_path / "source.h5").unlink()
    os.mkfifo(tmp_path / "source.h5")
    found = [f for f in verify_json(path)["findings"] if f["location"] == "/extra"]
    assert [f["code"] for f in found] == ["external.special-file"]
    assert "named pipe, socket, device" in found[0]["message"]
    assert str(tmp_path / "source.h5") in found[0]["message"]
    done = subprocess.run([sys.executable, "-m", "inspector", "dump", f"{path}::/extra"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert done.returncode != 0 and "external.special-file" in done.stdout + done.stderr
    assert "never read" in done.stdout + done.stderr
