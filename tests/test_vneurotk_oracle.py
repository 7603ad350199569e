"""Cross-check with the real schema-0 writer and reader (PyPI ``vneurotk==0.0.1``).

The library is a test-only oracle (install: ``pip install --no-deps
vneurotk==0.0.1 loguru pooch tqdm rich scipy``); these tests are skipped
without it.  Each case writes a schema-0 recording with ``BaseData.save`` in
``tmp_path``, reads it back with ``vneurotk.read`` and checks that our
reader agrees.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

vneurotk = pytest.importorskip("vneurotk")

from inspector.formats.vneurotk import open_recording  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet():
    from loguru import logger

    logger.disable("vneurotk")
    yield
    logger.enable("vneurotk")


def _continuous(tmp_path, dtype, ids, with_images):
    rng = np.random.default_rng(1)
    neuro = (rng.standard_normal((400, 5)) * 100).astype(dtype)
    bd = vneurotk.BaseData.for_continuous(
        neuro, {"sfreq": 200.0, "ch_names": list("abcde"), "lowpass": 40.0}
    )
    onsets = np.array([20, 120, 220, 320])
    db = (
        {i: rng.integers(0, 255, (3, 4, 3), dtype=np.uint8) for i in dict.fromkeys(ids)}
        if with_images
        else None
    )
    bd.configure(stim_ids=ids, trial_window=[-10, 60], vision_onsets=onsets, vision_db=db)
    bd.trial_meta = pd.DataFrame(
        {
            "cond": ["x", "y", "x", "z"],
            "rt": [0.1, 0.2, 0.3, 0.4],
            "ok": [True, False, True, True],
            "n": [1, 2, 3, 4],
        }
    )
    p = tmp_path / "cont.h5"
    bd.save(p)
    return p


def _epochs(tmp_path, sparse, ids, with_images):
    rng = np.random.default_rng(2)
    shape = (6, 25, 3)
    if sparse:
        neuro = rng.poisson(0.2, shape).astype(np.float32)
    else:
        neuro = rng.standard_normal(shape)
    bd = vneurotk.BaseData.for_epochs(neuro, {"sfreq": 1000.0, "ch_names": ["u0", "u1", "u2"]})
    db = (
        {i: rng.integers(0, 255, (2, 2, 3), dtype=np.uint8) for i in dict.fromkeys(ids)}
        if with_images
        else None
    )
    bd.configure(stim_ids=ids, vision_onsets=np.full(6, 5), vision_db=db)
    bd.trial_meta = pd.DataFrame({"block": [1, 1, 2, 2, 3, 3]})
    p = tmp_path / "ep.h5"
    bd.save(p)
    return p


CASES = {
    "continuous-f32-int-ids-images": lambda t: _continuous(t, np.float32, [4, 8, 15, 8], True),
    "continuous-i16-str-ids": lambda t: _continuous(
        t, np.int16, ["face", "house", "face", "tool"], False
    ),
    "epochs-coo-str-ids-images": lambda t: _epochs(t, True, ["a", "b", "c", "a", "b", "c"], True),
    "epochs-dense-f64-int-ids": lambda t: _epochs(t, False, [1, 2, 3, 1, 2, 3], False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_reader_agrees_with_reference(tmp_path, case):
    path = CASES[case](tmp_path)
    ref = vneurotk.read(path)
    with open_recording(path, hash_arrays=True) as doc:
        assert doc.ok, [f.to_json() for f in doc.findings]
        assert doc.summary["schema_version"] == 0
        assert doc.summary["data_mode"] == ref.data_mode
        want = np.asarray(ref.neuro.data)
        neuro = doc.arrays["neuro"]
        assert neuro.shape == want.shape and neuro.dtype == want.dtype
        assert neuro.storage == ("coo" if case.startswith("epochs-coo") else "dense")
        np.testing.assert_array_equal(neuro.read(), want)
        np.testing.assert_array_equal(neuro.read(2), want[2])
        assert doc.summary["neuro"]["sum"] == pytest.approx(float(want.astype(np.float64).sum()))
        # labels and per-trial stimulus IDs
        labels = doc.trials.stim_labels.read()
        ref_labels = np.asarray(ref.stim_labels)
        assert labels.shape == ref_labels.shape
        for a, b in zip(labels.ravel(), ref_labels.ravel(), strict=True):
            assert (pd.isna(a) and pd.isna(b)) or a == b
        assert list(doc.trials.trial_stim_ids) == list(ref.trial_stim_ids)
        np.testing.assert_array_equal(doc.trials.trial_starts, ref.trial_starts)
        np.testing.assert_array_equal(doc.trials.vision_onsets, ref.vision_onsets)
        np.testing.assert_array_equal(doc.trials.trial.read(), ref.trial)
        # metadata
        pd.testing.assert_frame_equal(doc.tables["trial_meta"].frame(), ref.trial_meta)
        assert doc.summary["neuro_info"]["ch_names"] == list(ref.neuro_info["ch_names"])
        assert doc.summary["neuro_info"]["sfreq"] == ref.neuro_info["sfreq"]
        assert doc.summary["trial_info"] == {
            k: np.asarray(v).tolist() for k, v in ref.trial_info.items()
        }
        # stimulus images
        if "images" in case:
            db = ref.vision.db
            assert [s.stim_id for s in doc.stimuli] == list(db)
            for s in doc.stimuli:
                np.testing.assert_array_equal(s.load(), db[s.stim_id])
        else:
            assert doc.stimuli == []
