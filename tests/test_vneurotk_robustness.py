"""Safety of the VneuroTK reader: read-only, links, VDS, replacement, bad bytes, text, locks."""

from __future__ import annotations

import fcntl
import hashlib
import os
import stat

import h5py
import numpy as np
import pytest
from test_vneurotk_helpers import write_recording

from inspector.formats.vneurotk import open_recording


def _digest(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _codes(doc, severity=None):
    return [f.code for f in doc.findings if severity is None or f.severity == severity]


def test_opened_read_only_and_never_modified(tmp_path):
    p = tmp_path / "rec.h5"
    arr = write_recording(p, mode="epochs", coo=True)
    p.chmod(stat.S_IRUSR | stat.S_IRGRP)
    before = (_digest(p), p.stat().st_mtime_ns)
    with open_recording(p, hash_arrays=True) as doc:
        assert doc.ok, [f.to_json() for f in doc.findings]
        np.testing.assert_array_equal(doc.arrays["neuro"].read(1), arr[1])
        assert doc.arrays["neuro"]._source.file.mode == "r"
    assert (_digest(p), p.stat().st_mtime_ns) == before


def test_external_link_followed_with_warning_and_dangling_is_error(tmp_path):
    target = tmp_path / "target.h5"
    p = tmp_path / "rec.h5"
    arr = write_recording(p)
    with h5py.File(target, "w") as t:
        t.create_dataset("payload/neuro", data=arr)
    with h5py.File(p, "r+") as f:
        del f["neuro"]
        f["neuro"] = h5py.ExternalLink("target.h5", "/payload/neuro")
    with open_recording(p) as doc:
        assert doc.ok
        w = [f for f in doc.findings if f.code == "link.external"]
        assert w and w[0].severity == "warning" and "target.h5" in w[0].message
        np.testing.assert_array_equal(doc.arrays["neuro"].read(), arr)
    target.unlink()
    with open_recording(p) as doc:
        assert not doc.ok
        assert "link.dangling" in _codes(doc, "error")
        assert "neuro.missing" in _codes(doc, "error")


def test_dangling_soft_link_is_error(tmp_path):
    p = tmp_path / "rec.h5"
    write_recording(p)
    with h5py.File(p, "r+") as f:
        f["extra"] = h5py.SoftLink("/nowhere")
    with open_recording(p) as doc:
        assert not doc.ok
        err = [f for f in doc.findings if f.code == "link.dangling"]
        assert err[0].location == "/extra" and "/nowhere" in err[0].message


def test_virtual_dataset_reported_and_missing_source_is_error(tmp_path):
    src = tmp_path / "src.h5"
    p = tmp_path / "rec.h5"
    arr = write_recording(p, n_trials=2, n_time=10)
    with h5py.File(src, "w") as s:
        s.create_dataset("data", data=arr)
    with h5py.File(p, "r+") as f:
        del f["neuro"]
        layout = h5py.VirtualLayout(shape=arr.shape, dtype=arr.dtype)
        layout[...] = h5py.VirtualSource(str(src.name), "data", shape=arr.shape)
        f.create_virtual_dataset("neuro", layout)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with open_recording(p) as doc:
            w = [f for f in doc.findings if f.code == "vds.external"]
            assert w and "src.h5" in w[0].message and w[0].location == "/neuro"
            assert doc.ok
            assert "virtual" in doc.tree.find("/neuro").detail
        src.unlink()
        with open_recording(p) as doc:
            assert not doc.ok
            assert "vds.missing-source" in _codes(doc, "error")
    finally:
        os.chdir(cwd)


def test_atomic_replacement_is_reported_on_next_read(tmp_path):
    p = tmp_path / "rec.h5"
    write_recording(p, mode="epochs", coo=True)
    other = tmp_path / "other.h5"
    write_recording(other, mode="epochs", coo=True, n_trials=5)
    doc = open_recording(p)
    ref = doc.arrays["neuro"]
    ref.read(0)
    os.replace(other, p)
    with pytest.raises(OSError, match="changed on disk"):
        ref.read(1)
    with pytest.raises(OSError, match="changed"):
        doc.trials.stim_labels.read(slice(0, 3))
    doc.close()
    doc = open_recording(p)  # reopening shows the new file
    assert doc.arrays["neuro"].shape[0] == 5
    doc.close()


def test_truncated_and_non_hdf5_files_give_findings(tmp_path):
    p = tmp_path / "rec.h5"
    write_recording(p)
    data = p.read_bytes()
    cut = tmp_path / "cut.h5"
    cut.write_bytes(data[: len(data) // 2])
    doc = open_recording(cut)
    assert not doc.ok and _codes(doc) == ["file.truncated"]
    text = tmp_path / "text.h5"
    text.write_text("time,value\n0,1\n")
    doc = open_recording(text)
    assert not doc.ok and _codes(doc) == ["file.not-hdf5"]
    empty = tmp_path / "empty.h5"
    empty.write_bytes(b"")
    assert not open_recording(empty).ok
    assert not open_recording(tmp_path / "absent.h5").ok


def test_unrelated_hdf5_is_invalid(tmp_path):
    p = tmp_path / "weather.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("temperature", data=np.arange(10.0))
        f.attrs["station"] = "X"
    with open_recording(p) as doc:
        assert not doc.ok and "neuro.missing" in _codes(doc, "error")
        assert doc.summary["schema_version"] == 0


@pytest.mark.parametrize("store", ["vlen", "fixed", "bytes", "array"])
def test_text_attributes_read_the_same_however_stored(tmp_path, store):
    p = tmp_path / "rec.h5"
    write_recording(p, mode="epochs")
    with h5py.File(p, "r+") as f:
        for name, text in (
            ("vneurotk_format", "recording"),
            ("data_mode", "epochs"),
            ("writer_version", "0.1.0"),
        ):
            del f.attrs[name]
            if store == "vlen":
                f.attrs[name] = text
            elif store == "fixed":
                f.attrs.create(
                    name, np.bytes_(text.encode()), dtype=h5py.string_dtype("ascii", len(text))
                )
            elif store == "bytes":
                f.attrs[name] = np.bytes_(text.encode())
            else:
                f.attrs[name] = np.array([text], dtype=h5py.string_dtype())
    with open_recording(p) as doc:
        assert doc.ok, [f.to_json() for f in doc.findings]
        assert doc.summary["data_mode"] == "epochs"
        assert doc.summary["writer_version"] == "0.1.0"


def test_invalid_utf8_attribute_is_escaped_and_flagged(tmp_path):
    p = tmp_path / "rec.h5"
    write_recording(p)
    with h5py.File(p, "r+") as f:
        tid = h5py.h5t.C_S1.copy()
        tid.set_size(h5py.h5t.VARIABLE)
        tid.set_cset(h5py.h5t.CSET_UTF8)
        aid = h5py.h5a.create(f["neuro_info"].id, b"device", tid, h5py.h5s.create(h5py.h5s.SCALAR))
        aid.write(np.array(b"amp\xff1", dtype=h5py.string_dtype("ascii")))
        f["neuro_info"].attrs["label"] = np.bytes_(b"bad\xfe")
    with open_recording(p) as doc:
        assert doc.ok
        w = [f for f in doc.findings if f.code == "text.invalid-utf8"]
        assert {f.location for f in w} == {"/neuro_info@device", "/neuro_info@label"}
        assert all(f.severity == "warning" for f in w)
        assert doc.tree.find("/neuro_info@device").value == "amp\\xff1"
        assert doc.summary["neuro_info"]["device"] == "amp\\xff1"
        import json

        json.dumps(doc.summary, allow_nan=False)


def test_null_dataspace_and_scalar_objects_shown_for_what_they_are(tmp_path):
    p = tmp_path / "rec.h5"
    write_recording(p)
    with h5py.File(p, "r+") as f:
        f.attrs["nothing"] = h5py.Empty("f8")
        f.create_dataset("empty_ds", data=h5py.Empty("i4"))
        f.create_dataset("scalar_ds", data=3.5)
    with open_recording(p) as doc:
        assert doc.ok
        assert "null dataspace" in doc.tree.find("/@nothing").detail
        assert doc.tree.find("/empty_ds").detail.startswith("null dataspace")
        assert doc.tree.find("/scalar_ds").detail.startswith("scalar float64")
    with h5py.File(p, "r+") as f:
        del f["neuro"]
        f.create_dataset("neuro", data=h5py.Empty("f4"))
    with open_recording(p) as doc:
        assert "neuro.empty" in _codes(doc, "error")


def test_locked_file_opens_read_only_with_warning(tmp_path, monkeypatch):
    monkeypatch.delenv("HDF5_USE_FILE_LOCKING", raising=False)
    p = tmp_path / "rec.h5"
    arr = write_recording(p)
    fd = os.open(p, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with open_recording(p) as doc:
            assert doc.ok
            # one code, one severity: the bypassed lock is its own warning
            w = [f for f in doc.findings if f.code == "file.lock-bypassed"]
            assert len(w) == 1 and w[0].severity == "warning"
            np.testing.assert_array_equal(doc.arrays["neuro"].read(slice(0, 5)), arr[:5])
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def test_lock_that_cannot_be_bypassed_is_a_clear_error(tmp_path, monkeypatch):
    p = tmp_path / "rec.h5"
    write_recording(p)

    def refuse(*a, **kw):
        raise OSError("Unable to synchronously open file (unable to lock file, errno = 11)")

    monkeypatch.setattr(h5py, "File", refuse)
    doc = open_recording(p)
    assert not doc.ok
    f = doc.findings[0]
    assert f.code == "file.locked" and f.severity == "error" and "locked" in f.message


def test_partial_and_schema0_rules_not_guessed(tmp_path):
    p = tmp_path / "rec.h5"
    write_recording(p)
    with h5py.File(p, "r+") as f:
        del f.attrs["vneurotk_schema_version"]
        del f.attrs["vneurotk_format"]
        f.attrs["data_mode"] = "continues"
    with open_recording(p) as doc:  # schema 0: the typo is normalised
        assert (
            doc.ok
            and doc.summary["data_mode"] == "continuous"
            and doc.summary["schema_version"] == 0
        )
    with h5py.File(p, "r+") as f:
        f.attrs["vneurotk_schema_version"] = np.array([1])
        f.attrs["vneurotk_format"] = "recording"
    with open_recording(p) as doc:
        assert "header.version-type" in _codes(doc, "error")


def test_schema1_trial_structure_checked(tmp_path):
    p = tmp_path / "rec.h5"
    write_recording(p, mode="epochs", n_trials=4, n_time=20)
    with h5py.File(p, "r+") as f:
        f["vision_onsets"][1] = 25
        del f["trial"]
    with open_recording(p) as doc:
        errs = [f for f in doc.findings if f.severity == "error"]
        assert [f.code for f in errs] == ["trials.missing"] and errs[0].location == "/trial"
    with h5py.File(p, "r+") as f:
        f.create_dataset("trial", data=np.zeros((4, 20)))
    with open_recording(p) as doc:
        errs = [f for f in doc.findings if f.severity == "error"]
        assert [f.code for f in errs] == ["trials.onsets"] and errs[0].location == "/vision_onsets"


@pytest.mark.slow
def test_damaged_bytes_never_raise(tmp_path):
    import random
    from pathlib import Path

    src = Path(__file__).parent / "fixtures" / "vneurotk" / "v1" / "epochs_dense_f64_strids.h5"
    data = src.read_bytes()
    rng = random.Random(7)
    p = tmp_path / "damaged.h5"
    outcomes = set()
    for _ in range(12):
        d = bytearray(data)
        for _ in range(4):
            d[rng.randrange(len(d))] = rng.randrange(256)
        p.write_bytes(bytes(d))
        doc = open_recording(p, hash_arrays=True)  # must not raise
        assert not any(f.code == "internal.reader-failed" for f in doc.findings), doc.traceback
        outcomes.add(doc.ok)
        json_ok = __import__("json").dumps(doc.to_json(), allow_nan=False)
        assert json_ok
        doc.close()
    assert False in outcomes
