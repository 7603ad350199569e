"""The Qt-free helpers of the trial views (inspector.formats.analysis.trial_average) against numpy.

Averages of a subset of trials are compared with the naive oracle of
test_trial_average (materialise, cut sample by sample, pandas groupby);
trial images with numpy reshapes of the materialised array.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from test_trial_average import compare, key_of, naive, opened, write

from inspector.formats.analysis import trial_average as analysis
from inspector.formats.analysis import trial_reads
from inspector.formats.analysis.trial_average import Cancelled, trial_average
from inspector.formats.analysis.trial_conditions import MISSING, Condition, condition_of_trials
from inspector.formats.analysis.trial_matrix import (
    condition_of_value,
    trial_axis,
    trial_matrix,
    trial_order,
)
from inspector.formats.capabilities import Progress
from inspector.formats.registry import open_document
from tests.conftest import load_expected

V1 = "vneurotk/v1"


@pytest.fixture(params=[1000, 3], ids=["one-block", "blocks-of-3"])
def block_trials(request, monkeypatch):
    monkeypatch.setattr(trial_reads, "MAX_BLOCK_TRIALS", request.param)
    return request.param


def _nanmean(a: np.ndarray, axis: int | tuple[int, ...]) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(a, axis=axis)


# -- trial_average(trials=...) ------------------------------------------------------------


def test_subset_of_epochs_matches_oracle(tmp_path, block_trials):
    rng = np.random.default_rng(21)
    n, t, c = 25, 30, 3
    arr = rng.standard_normal((n, t, c))
    arr[rng.random(arr.shape) < 0.05] = np.nan
    ids: list = [["a", "b", 7][i % 3] for i in range(n)]
    onsets = np.full(n, 8, np.int64)
    path = tmp_path / "s.h5"
    write(path, arr, mode="epochs", onsets=onsets, ids=ids, chunks=(4, 8, 2),
          trial_window=(-8, 22))
    doc = opened(path)
    chosen = [24, 0, 3, 4, 5, 17, 11]  # unsorted, sparse, across chunk rows
    seen: list[Progress] = []
    df = trial_average(doc, "stimulus", trials=chosen, progress=seen.append)
    picked = sorted(chosen)
    expected = naive(arr[picked], epochs=True, anchors=onsets[picked], window=(-8, 22),
                     keys=[key_of(ids[i]) for i in picked], channels=list(range(c)))
    compare(df, expected, 100.0)
    assert seen[-1] == Progress(len(chosen), len(chosen))
    # the same result from a boolean mask
    mask = np.zeros(n, bool)
    mask[chosen] = True
    pd.testing.assert_frame_equal(trial_average(doc, "stimulus", trials=mask), df)


def test_subset_lists_only_its_conditions_with_full_labels(tmp_path):
    rng = np.random.default_rng(22)
    n = 12
    arr = rng.standard_normal((n, 10, 2))
    ids: list = [[1, "1", 2][i % 3] for i in range(n)]
    path = tmp_path / "c.h5"
    write(path, arr, mode="epochs", onsets=np.full(n, 2, np.int64), ids=ids)
    doc = opened(path)
    df = trial_average(doc, "stimulus", trials=[0, 1, 3])  # IDs 1, "1", 1
    labels = [c.label for c in df.attrs["conditions"]]
    assert labels == ["1 (int)", "1 (str)"]  # qualified as among all trials
    n_per = df.groupby(df["condition"].map(str))["n"].max().to_dict()
    assert n_per == {"1 (int)": 2, "1 (str)": 1}


def test_subset_of_continuous_matches_oracle(fixtures, block_trials):
    doc = opened(fixtures / V1 / "continuous_dense_f32_intids.h5")
    arr = doc.arrays["neuro"].read()
    onsets = doc.trials.vision_onsets
    ids = list(doc.trials.trial_stim_ids)
    df = trial_average(doc, "hand", channels=[3, 1], trials=[5, 1, 2])
    hand = doc.tables["trial_meta"].frame()["hand"].tolist()
    window = df.attrs["window_samples"]
    # the recorded windows are each trial's own [start, stop): the oracle applies them too
    valid = np.stack([doc.trials.trial_starts - onsets, doc.trials.trial_ends - onsets], 1)
    picked = [1, 2, 5]
    expected = naive(arr, epochs=False, anchors=onsets[picked], window=window,
                     valid=valid[picked], keys=[key_of(hand[i]) for i in picked],
                     channels=[3, 1])
    compare(df, expected, 250.0)
    assert ids[1] == 7 and {str(c) for c in df.attrs["conditions"]} == {"left", "right"}


def test_subset_errors(fixtures):
    doc = opened(fixtures / V1 / "epochs_dense_f64_strids.h5")
    with pytest.raises(ValueError, match="no trial chosen"):
        trial_average(doc, "stimulus", trials=[])
    with pytest.raises(ValueError, match="within 0..9"):
        trial_average(doc, "stimulus", trials=[10])
    with pytest.raises(ValueError, match="mask"):
        trial_average(doc, "stimulus", trials=np.ones(3, bool))
    with pytest.raises(ValueError, match="indices"):
        trial_average(doc, "stimulus", trials=[0.5])


# -- trial_axis, condition_of_value ---------------------------------------------------------


@pytest.mark.slow
def test_trial_axis_of_the_corpus(fixtures):
    ep = trial_axis(opened(fixtures / V1 / "epochs_dense_f64_strids.h5"))
    assert (ep.trials, ep.channels, ep.window_samples, ep.sampling_rate_hz) == (10, 5, (-16, 48),
                                                                                500.0)
    assert ep.channel_names == ["E1", "E2", "E3", "E4", "E5"]
    assert ep.time_unit == "s" and ep.to_time(-16) == -0.032
    # trial_info: trial_window [-16, 48] and baseline [-16, 0] (corpus expected.json)
    assert not ep.per_trial and ep.has_recorded_baseline and ep.baseline_samples == (-16, 0)
    co = trial_axis(opened(fixtures / V1 / "continuous_dense_f32_intids.h5"))
    # continuous: trial_starts - onset = -10, trial_ends - onset = 40 for every trial
    assert (co.trials, co.window_samples, co.sampling_rate_hz) == (6, (-10, 40), 250.0)
    with pytest.raises(ValueError, match="no time axis"):
        trial_axis(opened(fixtures / V1 / "patterns_stim_index.h5"))


@pytest.mark.parametrize("entry", [e for e in load_expected("vneurotk") if e["trial_info"]
                                   and e["data_mode"] in ("epochs", "continuous")],
                         ids=lambda e: e["file"])
@pytest.mark.slow
def test_recorded_trial_window_and_baseline_of_the_corpus(fixtures, entry):
    doc = open_document(fixtures / "vneurotk" / entry["file"])
    expected = entry["trial_info"]
    assert doc.trials.trial_window.dtype == np.int64 == doc.trials.baseline.dtype
    assert doc.trials.trial_window.tolist() == expected["trial_window"]
    assert doc.trials.baseline.tolist() == expected["baseline"]
    axis = trial_axis(doc)
    assert axis.has_recorded_baseline
    assert axis.baseline_samples == tuple(expected["baseline"])
    # the default window is the recorded one (epochs: their own extent agrees with it)
    assert axis.window_samples == tuple(expected["trial_window"])


def test_epochs_time_runs_from_the_window_start_with_onset_at_zero(fixtures):
    doc = opened(fixtures / V1 / "epochs_dense_f64_strids.h5")
    df = trial_average(doc, "stimulus", channels=[0])
    one = df[df["condition"] == df.attrs["conditions"][0]]
    # trial_window [-16, 48] at 500 Hz: -32 ms to 94 ms, onset (sample 16 of each epoch) at 0
    assert one["time"].iloc[0] == -0.032 and one["time"].iloc[-1] == 0.094
    assert one["time"].iloc[16] == 0.0 and len(one) == 64
    assert df.attrs["time_unit"] == "s" and df.attrs["window_samples"] == (-16, 48)
    # the recorded baseline is the window [-32 ms, 0) given by hand
    rec = trial_average(doc, "stimulus", channels=[0], baseline="recorded")
    pd.testing.assert_frame_equal(
        rec, trial_average(doc, "stimulus", channels=[0], baseline=(-0.032, 0.0)),
        check_like=False, obj="recorded baseline")
    assert rec.attrs["baseline_samples"][0] == [-16, 0]


def test_continuous_default_window_from_trial_window(fixtures, block_trials):
    doc = opened(fixtures / V1 / "continuous_small_chunks.h5")
    df = trial_average(doc, "stimulus", channels=[2])
    # trial_info/trial_window [-32, 200] at 256 Hz, around each of the 5 onsets
    assert df.attrs["window_samples"] == (-32, 200)
    assert df["time"].min() == -0.125 and df["time"].max() == 199 / 256
    arr = np.asarray(doc.arrays["neuro"].read((slice(None), slice(None))))
    onsets = doc.trials.vision_onsets
    keys = [key_of(v) for v in doc.trials.trial_stim_ids]
    expected = naive(arr, epochs=False, anchors=onsets, window=(-32, 200),
                     baseline=np.tile([-32, 0], (len(onsets), 1)), keys=keys, channels=[2])
    compare(trial_average(doc, "stimulus", channels=[2], baseline="recorded"), expected, 256.0)


@pytest.mark.parametrize("by", ["stimulus", "hand"])
def test_pooled_selection_matches_numpy(fixtures, by):
    doc = opened(fixtures / V1 / "continuous_dense_f32_intids.h5")
    chosen = [0, 1, 3, 4]
    df = trial_average(doc, by, channels=[2, 0], trials=chosen, baseline="recorded")
    pool = analysis.pooled(df)
    arr = np.asarray(doc.arrays["neuro"].read((slice(None), slice(None))), np.float64)
    onsets = doc.trials.vision_onsets
    x = np.stack([arr[onsets[i] - 10:onsets[i] + 40] for i in chosen])  # (trials, 50, ch)
    x = x - x[:, :10].mean(axis=1, keepdims=True)  # recorded baseline [-10, 0)
    assert list(pool.columns) == ["channel", "time", "mean", "sem", "n"]
    for k, ch in enumerate([2, 0]):
        part = pool.iloc[k * 50:(k + 1) * 50]
        assert (part["channel"] == ch).all() and (part["n"] == len(chosen)).all()
        np.testing.assert_allclose(part["mean"], x[:, :, ch].mean(axis=0), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(part["sem"], x[:, :, ch].std(axis=0, ddof=1) / 2.0,
                                   rtol=1e-9)
    np.testing.assert_array_equal(pool["time"].to_numpy()[:50], np.arange(-10, 40) / 250.0)


def test_days_are_labelled_as_dates(fixtures):
    doc = opened(fixtures / V1 / "epochs_dense_f64_strids.h5")
    _labels, conds = condition_of_trials(doc, "session_day")
    assert [c.label for c in conds] == ["2024-03-01", "2024-03-02"]
    assert conds[0].value == pd.Timestamp("2024-03-01") and conds[0].kind == "Timestamp"
    _labels, conds = condition_of_trials(doc, "session_start")  # times keep their time
    assert [c.label for c in conds] == ["2024-03-01 18:00:00+09:00", "2024-03-02 23:30:00+09:00"]


def test_condition_of_value_is_typed():
    assert condition_of_value(np.int64(3)) == Condition(3, "int")
    assert condition_of_value("3") != condition_of_value(3) != condition_of_value(True)
    assert condition_of_value(float("nan")) is MISSING and condition_of_value(None) is MISSING


# -- trial_order --------------------------------------------------------------------------


def test_order_by_categorical_and_missing(fixtures):
    doc = opened(fixtures / V1 / "epochs_dense_f64_strids.h5")
    labels, conditions = condition_of_trials(doc, "n_bool")
    got = trial_order(doc, "n_bool")
    assert got.conditions == conditions
    by_cond = [[i for i, c in enumerate(labels) if c == cond] for cond in conditions]
    assert got.order.tolist() == [i for group in by_cond for i in group]
    assert got.starts.tolist() == np.cumsum([0] + [len(g) for g in by_cond]).tolist()
    assert conditions[-1].missing
    plain = trial_order(doc, None)
    assert plain.order.tolist() == list(range(10)) and plain.starts.tolist() == [0, 10]


def test_order_within_float_bins_is_by_value(fixtures):
    doc = opened(fixtures / V1 / "epochs_coo_sparse_f32.h5")
    rt = doc.tables["trial_meta"].frame()["rt_ms"].to_numpy(np.float64)
    got = trial_order(doc, "rt_ms")
    assert [c.kind for c in got.conditions] == ["bin"] * 4
    # no missing value: sorting by bin then value is sorting by value
    assert got.order.tolist() == np.argsort(rt, kind="stable").tolist()
    assert got.starts[-1] == 24


# -- trial_matrix -------------------------------------------------------------------------


def test_matrix_is_the_cut_array(fixtures, block_trials):
    doc = opened(fixtures / V1 / "epochs_dense_f64_strids.h5")
    arr = doc.arrays["neuro"].read()
    order = trial_order(doc, "cond").order
    m = trial_matrix(doc, "E3", order=order)
    assert m.channel == 2 and m.trials_per_row == 1 and m.bin_samples == 1
    np.testing.assert_array_equal(m.values, arr[order][:, :, 2])
    np.testing.assert_array_equal(m.edges, np.arange(-16, 49) / 500.0)
    assert m.trials_of_row(3).tolist() == [order[3]]
    assert m.rows_of_trials([order[7], order[2], 99]).tolist() == [2, 7]


def test_matrix_bins_time_and_rows(fixtures, block_trials):
    doc = opened(fixtures / V1 / "epochs_coo_sparse_f32.h5")
    arr = doc.arrays["neuro"].read().astype(np.float64)
    x = arr[:, :, 5]  # window [-10, 30) is the whole epoch
    m = trial_matrix(doc, 5, max_bins=7, max_values=7 * 5)
    # 40 samples in bins of 6 (the last holds 4); 24 trials in rows of 5 (the last holds 4)
    assert (m.bin_samples, m.values.shape, m.trials_per_row) == (6, (5, 7), 5)
    padded = np.full((25, 42), np.nan)
    padded[:24, :40] = x
    expected = _nanmean(padded.reshape(5, 5, 7, 6).transpose(0, 2, 1, 3), axis=(2, 3))
    np.testing.assert_allclose(m.values, expected, rtol=1e-12)
    np.testing.assert_allclose(m.edges, np.r_[np.arange(-10, 30, 6), 30] / 1000.0)
    assert m.trials_of_row(4).tolist() == [20, 21, 22, 23]
    assert m.rows_of_trials([4, 5, 23]).tolist() == [0, 1, 4]


def test_matrix_of_continuous_subset_with_baseline(fixtures, block_trials):
    doc = opened(fixtures / V1 / "continuous_dense_f32_intids.h5")
    arr = doc.arrays["neuro"].read().astype(np.float64)
    on = doc.trials.vision_onsets
    m = trial_matrix(doc, 0, order=[4, 1], window=(-0.02, 0.1), baseline=(-0.04, 0.0))
    assert m.window_samples == (-5, 25)
    rows = []
    for i in (4, 1):
        seg = arr[on[i] - 5:on[i] + 25, 0]
        rows.append(seg - arr[on[i] - 10:on[i], 0].mean())
    np.testing.assert_allclose(m.values, np.array(rows), rtol=1e-12, atol=1e-12)


def test_matrix_progress_cancel_and_errors(fixtures, monkeypatch):
    monkeypatch.setattr(trial_reads, "MAX_BLOCK_TRIALS", 4)
    doc = opened(fixtures / V1 / "epochs_coo_sparse_f32.h5")
    seen: list[Progress] = []
    trial_matrix(doc, 0, progress=seen.append)
    assert [p.done for p in seen] == [4, 8, 12, 16, 20, 24]
    with pytest.raises(Cancelled):
        trial_matrix(doc, 0, cancelled=lambda: True)
    with pytest.raises(ValueError, match="repeats"):
        trial_matrix(doc, 0, order=[1, 1])
    with pytest.raises(ValueError, match="channel"):
        trial_matrix(doc, 8)
