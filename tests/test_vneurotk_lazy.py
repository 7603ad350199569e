"""Lazy reads: COO per trial vs dense, unsorted rows, envelopes, images."""

from __future__ import annotations

import io

import h5py
import numpy as np
import pytest
from PIL import Image
from test_vneurotk_helpers import write_recording, write_typed

from inspector.formats.analysis.arrays import envelope_of
from inspector.formats.vneurotk import coo as vta
from inspector.formats.vneurotk import open_recording


def _dense_truth(arr):
    return np.asarray(arr)


@pytest.fixture()
def coo_file(tmp_path):
    p = tmp_path / "coo.h5"
    arr = write_recording(p, mode="epochs", n_trials=9, n_time=20, n_ch=4, coo=True)
    return p, arr


def test_coo_per_trial_reads_match_dense(coo_file, monkeypatch):
    p, arr = coo_file
    monkeypatch.setattr(vta, "COO_BLOCK", 7)  # many blocks: exercises block search
    with open_recording(p) as doc:
        assert doc.ok, [f.to_json() for f in doc.findings]
        ref = doc.arrays["neuro"]
        assert ref.storage == "coo" and ref.rows_sorted is None  # nothing read at open
        for t in range(arr.shape[0]):
            np.testing.assert_array_equal(ref.read(t), arr[t])
        assert ref.rows_sorted is True
        np.testing.assert_array_equal(
            ref.read((slice(2, 7, 2), slice(3, 9), 1)), arr[2:7:2, 3:9, 1]
        )
        np.testing.assert_array_equal(ref.read((-1, Ellipsis)), arr[-1])
        np.testing.assert_array_equal(ref.read(), arr)
        np.testing.assert_array_equal(ref.read(slice(5, 5)), arr[5:5])


def test_coo_reads_only_the_trial_rows(coo_file, monkeypatch):
    p, arr = coo_file
    with open_recording(p) as doc:
        ref = doc.arrays["neuro"]
        ref.read(0)  # builds the row index
        seen = []
        real = ref._source.read

        def spy(ds, sel=Ellipsis):
            seen.append((ds.name, sel))
            return real(ds, sel)

        monkeypatch.setattr(ref._source, "read", spy)
        np.testing.assert_array_equal(ref.read(4), arr[4])
        data_reads = [s for n, s in seen if n == "/neuro_data"]
        assert len(data_reads) == 1
        sl = data_reads[0]
        assert sl.stop - sl.start == np.count_nonzero(arr[4])


def test_coo_unsorted_rows_fallback(tmp_path, monkeypatch):
    p = tmp_path / "unsorted.h5"
    arr = write_recording(p, mode="epochs", n_trials=6, n_time=10, n_ch=3, coo=True, chunks=False)
    with h5py.File(p, "r+") as f:
        perm = np.random.default_rng(1).permutation(f["neuro_row"].shape[0])
        for name in ("neuro_row", "neuro_col", "neuro_data"):
            v = f[name][()]
            f[name][...] = v[perm]
        # a duplicate coordinate adds up (spec section 2)
        r, c, d = f["neuro_row"][()], f["neuro_col"][()], f["neuro_data"][()]
        for name, v in (("neuro_row", r), ("neuro_col", c), ("neuro_data", d)):
            del f[name]
            f.create_dataset(name, data=np.concatenate([v, v[:1]]))
    expected = arr.copy().reshape(-1, 3)
    expected[r[0], c[0]] += d[0]
    expected = expected.reshape(arr.shape)
    monkeypatch.setattr(vta, "COO_BLOCK", 5)
    with open_recording(p) as doc:
        ref = doc.arrays["neuro"]
        for t in range(6):
            np.testing.assert_array_equal(ref.read(t), expected[t])
        assert ref.rows_sorted is False
        np.testing.assert_array_equal(ref.read(), expected)


def test_coo_out_of_bounds_column_raises_oserror(tmp_path):
    p = tmp_path / "oob.h5"
    write_recording(p, mode="epochs", n_trials=3, n_time=10, n_ch=3, coo=True, chunks=False)
    with h5py.File(p, "r+") as f:
        f["neuro_col"][0] = 7
    with open_recording(p) as doc:
        with pytest.raises(OSError, match="neuro_col"):
            doc.arrays["neuro"].read()
    doc = open_recording(p, hash_arrays=True)
    assert not doc.ok and any(f.code == "neuro.unreadable" for f in doc.findings)
    doc.close()


def test_dense_envelope_matches_numpy(tmp_path):
    p = tmp_path / "dense.h5"
    arr = write_recording(p, n_trials=40, n_time=250, n_ch=3)
    with open_recording(p) as doc:
        ref = doc.arrays["neuro"]
        for start, stop, bins in ((0, 10_000, 100), (123, 9_876, 37), (10, 30, 100)):
            env = ref.envelope((None, 1), start, stop, bins)
            want = envelope_of(arr[start:stop, 1], start, stop, bins)
            np.testing.assert_array_equal(env.x, want.x)
            np.testing.assert_array_equal(env.lo, want.lo)
            np.testing.assert_array_equal(env.hi, want.hi)
            assert env.raw == want.raw
        np.testing.assert_array_equal(ref.read((slice(None, None, -3), 2)), arr[::-3, 2])


def test_coo_envelope_of_one_trial(coo_file):
    p, arr = coo_file
    with open_recording(p) as doc:
        env = doc.arrays["neuro"].envelope((3, None, 2), 0, 20, 4)
        want = envelope_of(arr[3, :, 2], 0, 20, 4)
        np.testing.assert_array_equal(env.lo, want.lo)
        np.testing.assert_array_equal(env.hi, want.hi)


def test_labels_are_not_read_whole_at_open(tmp_path, monkeypatch):
    from inspector.formats.vneurotk import labels as lab

    p = tmp_path / "labels.h5"
    write_recording(p, n_trials=30, n_time=100)
    monkeypatch.setattr(lab, "LABEL_BLOCK", 256)
    reads = []
    real_get = h5py.Dataset.__getitem__
    real_direct = h5py.Dataset.read_direct

    def spy_get(self, sel):
        if self.name == "/stim_labels":
            reads.append(sel)
        return real_get(self, sel)

    def spy_direct(self, dest, source_sel=None, dest_sel=None):
        if self.name == "/stim_labels":
            reads.append(source_sel)
        return real_direct(self, dest, source_sel, dest_sel)

    monkeypatch.setattr(h5py.Dataset, "__getitem__", spy_get)
    monkeypatch.setattr(h5py.Dataset, "read_direct", spy_direct)
    with open_recording(p) as doc:
        assert reads == []  # opening reads none of them: the scan is a deferred check
        doc.verify()
        assert doc.summary["stim_labels"]["non_missing_count"] == 30
        assert doc.trials.trial_stim_ids == (10, 20, 30) * 10
    assert len(reads) == -(-3000 // 256)
    assert all(isinstance(s, slice) and s.stop - s.start <= 256 for s in reads)


def _add_stimuli(p, entries):
    with h5py.File(p, "r+") as f:
        db = f.create_group("stimuli_db")
        db.attrs["encoding"] = "ordered_entries_v1"
        for i, (sid, kind, data) in enumerate(entries):
            e = db.create_group(str(i))
            write_typed(e, "id", [sid])
            e.create_dataset("image", data=data)
            e["image"].attrs["kind"] = kind


def _png(rgb):
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def test_images_decode_on_demand(tmp_path):
    p = tmp_path / "img.h5"
    write_recording(p, n_trials=3)
    rgb = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    _add_stimuli(
        p,
        [
            (10, "image_bytes", _png(rgb)),
            (20, "array", rgb[:, :, 0]),
            (30, "image_bytes", np.frombuffer(b"not a png", np.uint8)),
        ],
    )
    with open_recording(p) as doc:
        assert doc.ok  # undecodable bytes are found by verify(), not at open
        assert [s.stim_id for s in doc.stimuli] == [10, 20, 30]
        np.testing.assert_array_equal(doc.stimuli[0].load(), rgb)
        np.testing.assert_array_equal(doc.stimuli[1].load(), rgb[:, :, 0])
        with pytest.raises(OSError):
            doc.stimuli[2].load()
        doc.verify()
        assert not doc.ok
        assert any(
            f.code == "stimuli.undecodable" and f.location == "/stimuli_db/2/image"
            for f in doc.findings
        )
    doc = open_recording(p, hash_arrays=True)
    assert not doc.ok
    doc.close()


def test_legacy_path_image_missing_is_a_finding(tmp_path):
    p = tmp_path / "legacy.h5"
    write_recording(p, n_trials=3)
    rgb = np.zeros((2, 2, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(tmp_path / "present.png")
    with h5py.File(p, "r+") as f:
        db = f.create_group("stimuli_db")
        for sid, path in (("10", "present.png"), ("20", "absent.png")):
            ds = db.create_dataset(sid, data=path)
            ds.attrs["kind"] = "path"
            ds.attrs["key_type"] = "int"
        db.create_dataset("30", data=rgb).attrs["kind"] = "array"
        db["30"].attrs["key_type"] = "int"
    with open_recording(p) as doc:
        assert not doc.ok
        errs = [f for f in doc.findings if f.code == "stimuli.path-missing"]
        assert (
            len(errs) == 1
            and "absent.png" in errs[0].message
            and errs[0].location == "/stimuli_db/20"
        )
        np.testing.assert_array_equal(doc.stimuli[0].load(), rgb)
        with pytest.raises(OSError):
            doc.stimuli[1].load()
