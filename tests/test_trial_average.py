"""Trial averages (inspector.formats.analysis.trial_average) against a naive numpy/pandas oracle.

Recordings are written with h5py into tmp_path (schema 1, VneuroTK on-disk
notes §2, §3, §5), opened with the real reader, and every number of
``trial_average`` is compared with the naive way: materialise the neural
array, cut each trial sample by sample, ``pandas`` groupby mean/sem/count.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pandas as pd
import pytest
from test_vneurotk_helpers import write_typed

from inspector.formats.analysis import trial_reads
from inspector.formats.analysis.trial_average import Cancelled, trial_average
from inspector.formats.analysis.trial_conditions import MISSING, Condition, condition_of_trials
from inspector.formats.capabilities import Progress
from inspector.formats.registry import open_document

# -- writer --------------------------------------------------------------------------------


@dataclasses.dataclass
class Col:
    """One trial_meta column as written (pandas_v1 series group, notes §5)."""

    kind: str  # numpy, nullable, object_scalars, categorical
    dtype: str
    values: list
    categories: list | None = None
    ordered: bool = False


def _series(group: h5py.Group, name: str, col: Col) -> None:
    g = group.create_group(name)
    g.attrs["kind"] = col.kind
    g.attrs["dtype"] = col.dtype
    if col.kind == "numpy":
        g.create_dataset("values", data=np.asarray(col.values, dtype=col.dtype))
    elif col.kind in ("nullable", "object_scalars"):
        write_typed(g, "values", col.values)
    elif col.kind == "categorical":
        cats = col.categories or []
        codes = [-1 if v is None else cats.index(v) for v in col.values]
        g.attrs["ordered"] = col.ordered
        g.create_dataset("codes", data=np.asarray(codes, dtype=np.int64))
        _series(g, "category_values", Col("nullable", "str", cats))
    else:
        raise AssertionError(col.kind)


def _trial_meta(f: h5py.File, meta: dict[str, Col], n: int) -> None:
    tm = f.create_group("trial_meta")
    tm.attrs["encoding"] = "pandas_v1"
    ci = tm.create_group("column_index")
    ci.attrs.update({"kind": "values", "name_present": False})
    _series(ci, "data", Col("nullable", "str", list(meta)))
    idx = tm.create_group("index")
    idx.attrs.update({"kind": "range", "name_present": False, "start": 0, "stop": n, "step": 1})
    cols = tm.create_group("columns")
    for pos, col in enumerate(meta.values()):
        _series(cols, str(pos), col)


def _neuro(f: h5py.File, arr: np.ndarray, coo: bool, chunks: tuple | None,
           filters: dict[str, Any] | None = None) -> None:
    kw: dict[str, Any] = ({"chunks": chunks, "compression": "gzip", "compression_opts": 4,
                           "shuffle": True} if chunks else {})
    kw.update(filters or {})
    if coo:
        flat = arr.reshape(-1, arr.shape[-1])
        r, c = np.nonzero(flat)
        ck = {"chunks": (16,), "compression": "gzip", "shuffle": True} if chunks else {}
        f.create_dataset("neuro_row", data=r.astype(np.int64), **ck)
        f.create_dataset("neuro_col", data=c.astype(np.int32), **ck)
        f.create_dataset("neuro_data", data=flat[r, c], **ck)
        f.attrs.update({"neuro_format": "coo", "neuro_shape": list(arr.shape),
                        "neuro_dtype": str(arr.dtype)})
    else:
        f.create_dataset("neuro", data=arr, **kw)
        f.attrs["neuro_format"] = "dense"


def _labels(f: h5py.File, shape: tuple[int, ...], flat_onsets: np.ndarray, ids: list) -> None:
    count = int(np.prod(shape))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in ids
                  if v is not None)
    if numeric:
        labels = np.full(count, np.nan)
        labels[flat_onsets] = [np.nan if v is None else v for v in ids]
        f.create_dataset("stim_labels", data=labels)
        f.attrs["stim_labels_encoding"] = "native"
    else:
        values: list = [None] * count
        for p, v in zip(flat_onsets.tolist(), ids, strict=True):
            values[p] = v
        write_typed(f, "stim_labels", values)
        f.attrs["stim_labels_encoding"] = "typed_scalars"
    f.attrs["stim_labels_is_str"] = False
    f.attrs["stim_labels_shape"] = list(shape)


def write(path: Path, arr: np.ndarray, *, mode: str, onsets: np.ndarray, ids: list,
          starts: np.ndarray | None = None, ends: np.ndarray | None = None,
          meta: dict[str, Col] | None = None, coo: bool = False, chunks: tuple | None = None,
          sfreq: float | None = 100.0, trial_window=(-2, 10), baseline=(-2, 0),
          filters: dict[str, Any] | None = None) -> None:
    """Write a valid schema-1 recording of the logical array ``arr``."""
    n = len(onsets)
    epochs = mode == "epochs"
    n_time = arr.shape[1] if epochs else arr.shape[0]
    if starts is None:
        starts = np.zeros(n, np.int64) if epochs else np.asarray(onsets) + trial_window[0]
        ends = np.full(n, n_time, np.int64) if epochs else np.asarray(onsets) + trial_window[1]
    with h5py.File(path, "w") as f:
        f.attrs.update({"vneurotk_format": "recording", "vneurotk_schema_version": 1,
                        "writer_version": "0.1.0", "data_mode": mode})
        _neuro(f, arr, coo, chunks, filters)
        if epochs:
            flat = np.arange(n) * n_time + onsets
            _labels(f, (n, n_time), flat, ids)
            trial = np.repeat(np.arange(n, dtype=float)[:, None], n_time, axis=1)
        else:
            _labels(f, (n_time,), np.asarray(onsets), ids)
            trial = np.full(n_time, np.nan)
            for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
                trial[s:e] = i
        for name, v in (("trial", trial), ("trial_starts", starts), ("trial_ends", ends),
                        ("vision_onsets", np.asarray(onsets, np.int64))):
            f.create_dataset(name, data=np.asarray(v))
        ni = f.create_group("neuro_info")
        if sfreq is not None:
            ni.attrs["sfreq"] = sfreq
        ni.attrs["ch_names"] = np.array([f"c{i}" for i in range(arr.shape[-1])],
                                        dtype=h5py.string_dtype())
        ni.attrs["shape"] = list(arr.shape)
        vi = f.create_group("vision_info")
        uniq = sorted({(type(v).__name__, v) for v in ids if v is not None}, key=repr)
        vi.attrs["n_stim"] = len(uniq)
        write_typed(vi, "stim_ids", [v for _, v in uniq])
        ti = f.create_group("trial_info")
        ti.attrs["baseline"] = np.array(baseline)
        ti.attrs["trial_window"] = np.array(trial_window)
        if meta:
            _trial_meta(f, meta, n)


def opened(path: Path):
    """The document at ``path``, opened and verified (its deferred checks run: the
    trial stimulus IDs come from the label scan)."""
    doc = open_document(path)
    doc.verify()
    assert doc.ok, [f.message for f in doc.findings]
    return doc


# -- oracle --------------------------------------------------------------------------------


def key_of(value: Any) -> str:
    """The oracle's typed group key of a raw value (missing: one group)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "missing"
    return f"{type(value).__name__}:{value!r}"


def result_key(c: Condition) -> str:
    if c.missing:
        return "missing"
    if c.kind == "bin":
        return f"bin:{c.value.left!r}"
    return f"{type(c.value).__name__}:{c.value!r}"


def naive(arr: np.ndarray, *, epochs: bool, anchors: np.ndarray, window: tuple[int, int],
          keys: list[str], channels: list[int], valid: np.ndarray | None = None,
          baseline: np.ndarray | None = None) -> pd.DataFrame:
    """Materialise, cut every trial sample by sample, pandas groupby."""
    data = np.asarray(arr, dtype=np.float64)
    length = data.shape[1] if epochs else data.shape[0]

    def sample(i: int, t: int) -> np.ndarray:
        p = int(anchors[i]) + t
        if not 0 <= p < length:
            return np.full(data.shape[-1], np.nan)
        return data[i, p] if epochs else data[p]

    rows = []
    for i in range(len(anchors)):
        x = np.array([sample(i, t) for t in range(*window)])[:, channels]
        if valid is not None:
            rel = np.arange(*window)
            x[(rel < valid[i, 0]) | (rel >= valid[i, 1])] = np.nan
        if baseline is not None:
            b = np.array([sample(i, t) for t in range(baseline[i, 0], baseline[i, 1])])[:, channels]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                x = x - np.nanmean(b, axis=0)
        for j, t in enumerate(range(*window)):
            for k, ch in enumerate(channels):
                rows.append((keys[i], ch, t, x[j, k]))
    df = pd.DataFrame(rows, columns=["key", "channel", "offset", "value"])
    agg = df.groupby(["key", "channel", "offset"])["value"].agg(["mean", "sem", "count"])
    return agg.reset_index()


def compare(result: pd.DataFrame, expected: pd.DataFrame, sfreq: float | None) -> None:
    got = result.copy()
    got["key"] = [result_key(c) for c in got["condition"]]
    if sfreq is not None:
        got["offset"] = np.rint(got["time"].to_numpy() * sfreq).astype(np.int64)
        np.testing.assert_array_equal(got["time"].to_numpy(), got["offset"].to_numpy() / sfreq)
    else:
        assert got["time"].dtype == np.int64
        got["offset"] = got["time"]
    assert len(got) == len(expected)
    merged = expected.merge(got, on=["key", "channel", "offset"], how="left", validate="1:1")
    assert merged["n"].notna().all()
    np.testing.assert_array_equal(merged["n"].to_numpy(), merged["count"].to_numpy())
    np.testing.assert_allclose(merged["mean_y"], merged["mean_x"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(merged["sem_y"], merged["sem_x"], rtol=1e-9, atol=1e-12)
    assert merged["mean_y"].notna().any()


@pytest.fixture(params=[1000, 3], ids=["one-block", "blocks-of-3"])
def block_trials(request, monkeypatch):
    """Run each comparison in one block, and in many blocks folded one channel at a
    time (exercises the merge of moments and the channel slabs)."""
    monkeypatch.setattr(trial_reads, "MAX_BLOCK_TRIALS", request.param)
    if request.param < 1000:
        monkeypatch.setattr(trial_reads, "SLAB_BYTES", 1)
    return request.param


def _with_nan(arr: np.ndarray, rng: np.random.Generator, fraction: float = 0.05) -> np.ndarray:
    out = arr.copy()
    out[rng.random(arr.shape) < fraction] = np.nan
    return out


# -- epochs ---------------------------------------------------------------------------------


def test_epochs_by_typed_stimulus_nan_dense_chunks(tmp_path, block_trials):
    rng = np.random.default_rng(1)
    n, t, c = 23, 37, 5
    arr = _with_nan(rng.standard_normal((n, t, c)).astype(np.float32), rng)
    arr[4, :, 2] = np.nan  # one trial without any value on one channel
    ids: list = [[1, "1", 2, "2", True][i % 5] for i in range(n)]
    ids[7] = None
    onsets = np.full(n, 9, np.int64)
    path = tmp_path / "e.h5"
    write(path, arr, mode="epochs", onsets=onsets, ids=ids, chunks=(4, 8, 2),
          trial_window=(-9, 28))
    doc = opened(path)
    assert doc.arrays["neuro"].chunk_layout() is not None  # the parallel chunk path
    df = trial_average(doc, "stimulus")
    assert list(df.columns) == ["condition", "channel", "time", "mean", "sem", "n"]
    assert [str(d) for d in df.dtypes] == ["object", "int64", "float64", "float64", "float64",
                                           "int64"]
    assert df.attrs["time_unit"] == "s"
    assert df.attrs["window_samples"] == (-9, 28)
    expected = naive(arr, epochs=True, anchors=onsets, window=(-9, 28),
                     keys=[key_of(v) for v in ids], channels=list(range(c)))
    compare(df, expected, 100.0)
    labels = [cond.label for cond in df.attrs["conditions"]]
    assert labels == ["True", "1 (int)", "2 (int)", "1 (str)", "2 (str)", "missing"]


def test_epochs_integer_dtype_contiguous_varying_onsets(tmp_path, block_trials):
    rng = np.random.default_rng(2)
    n, t, c = 19, 31, 3
    arr = rng.integers(-30000, 30000, (n, t, c)).astype(np.int16)
    onsets = rng.integers(3, 20, n).astype(np.int64)
    cond = [int(v) for v in rng.integers(0, 4, n)]
    meta = {"block": Col("numpy", "int64", cond)}
    path = tmp_path / "i.h5"
    write(path, arr, mode="epochs", onsets=onsets, ids=[5] * n, meta=meta, chunks=None)
    doc = opened(path)
    assert doc.arrays["neuro"].chunk_layout() is None  # contiguous: the plain path
    df = trial_average(doc, "block", channels=[2, 0])
    # default window: each epoch around its own onset, the union as time axis
    valid = np.stack([-onsets, t - onsets], axis=1)
    window = (int(valid[:, 0].min()), int(valid[:, 1].max()))
    assert df.attrs["window_samples"] == window
    expected = naive(arr, epochs=True, anchors=onsets, window=window, valid=valid,
                     keys=[key_of(v) for v in cond], channels=[2, 0])
    compare(df, expected, 100.0)
    assert list(pd.unique(df["channel"])) == [2, 0]


def test_epochs_coo_categorical_missing_baseline(tmp_path, block_trials):
    rng = np.random.default_rng(3)
    n, t, c = 21, 29, 4
    arr = rng.poisson(0.4, (n, t, c)).astype(np.float32)
    cats = ["low", "mid", "high", "unused"]
    values: list = [["high", "low", "mid"][i % 3] for i in range(n)]
    values[2] = values[11] = None
    meta = {"level": Col("categorical", "category", values, categories=cats, ordered=True)}
    onsets = np.full(n, 6, np.int64)
    path = tmp_path / "coo.h5"
    write(path, arr, mode="epochs", onsets=onsets, ids=list(range(n)), meta=meta, coo=True,
          chunks=(1,))
    doc = opened(path)
    assert doc.arrays["neuro"].storage == "coo"
    df = trial_average(doc, "level", window=(-0.05, 0.2), baseline=(-0.06, -0.01))
    assert df.attrs["window_samples"] == (-5, 20)
    bl = np.tile([-6, -1], (n, 1))
    expected = naive(arr, epochs=True, anchors=onsets, window=(-5, 20), baseline=bl,
                     keys=[key_of(v) for v in values], channels=list(range(c)))
    compare(df, expected, 100.0)
    # categories keep their order; the unused one is not a condition; missing is last
    assert [cond.label for cond in df.attrs["conditions"]] == ["low", "mid", "high", "missing"]


def test_epochs_onset_from_trial_window_and_recorded_baseline(tmp_path, block_trials):
    rng = np.random.default_rng(4)
    n, t, c = 13, 64, 2
    arr = _with_nan(rng.standard_normal((n, t, c)), rng)
    path = tmp_path / "tw.h5"
    write(path, arr, mode="epochs", onsets=np.full(n, 16, np.int64), ids=[1, 2] * 6 + [1],
          chunks=(5, 16, 1), trial_window=(-16, 48), baseline=(-16, 0))
    doc = opened(path)
    # what the reader will offer: trial_info/trial_window and baseline on TrialStructure;
    # without vision_onsets the onset is -trial_window[0]
    doc.trials = dataclasses.replace(doc.trials, vision_onsets=None,
                                     trial_window=np.array([-16, 48]),
                                     baseline=np.array([-16, 0]))
    df = trial_average(doc, "stimulus", baseline="recorded")
    anchors = np.full(n, 16)
    expected = naive(arr, epochs=True, anchors=anchors, window=(-16, 48),
                     baseline=np.tile([-16, 0], (n, 1)),
                     keys=[key_of(v) for v in [1, 2] * 6 + [1]], channels=[0, 1])
    compare(df, expected, 100.0)
    assert df["time"].iloc[16] == 0.0  # onset at sample 16 of each epoch


# -- continuous ---------------------------------------------------------------------------


def _continuous_onsets(rng: np.random.Generator, n: int, spacing: int, first: int) -> np.ndarray:
    onsets = first + np.arange(n) * spacing + rng.integers(0, spacing // 3, n)
    return rng.permutation(onsets).astype(np.int64)  # not in time order


def test_continuous_float_bins_window_outside_recording(tmp_path, block_trials):
    rng = np.random.default_rng(5)
    n, c = 29, 6
    onsets = _continuous_onsets(rng, n, 30, 3)
    total = int(onsets.max()) + 7
    arr = _with_nan(rng.standard_normal((total, c)), rng)
    rt = rng.uniform(0.2, 0.9, n).round(3).tolist()
    rt[5] = float("nan")
    meta = {"rt": Col("numpy", "float64", rt)}
    path = tmp_path / "c.h5"
    write(path, arr, mode="continuous", onsets=onsets, ids=[7] * n, meta=meta,
          chunks=(17, 4), trial_window=(-2, 6))
    doc = opened(path)
    df = trial_average(doc, "rt", channels=["c5", 1, 3], window=(-0.08, 0.13),
                       baseline=(-0.05, 0.0))
    finite = np.array([v for v in rt if not np.isnan(v)])
    edges = np.quantile(finite, np.linspace(0, 1, 5))

    def bin_key(v: float) -> str:
        if np.isnan(v):
            return "missing"
        k = min(int(np.sum(v >= edges[1:-1])), 3)
        return f"bin:{float(edges[k])!r}"

    expected = naive(arr, epochs=False, anchors=onsets, window=(-8, 13),
                     baseline=np.tile([-5, 0], (n, 1)), keys=[bin_key(v) for v in rt],
                     channels=[5, 1, 3])
    compare(df, expected, 100.0)
    conds = df.attrs["conditions"]
    assert [cond.kind for cond in conds] == ["bin"] * 4 + ["missing"]
    assert conds[0].value.closed == "left" and conds[-2].value.closed == "both"


def test_continuous_default_window_nullable_bool_prestimulus(tmp_path, block_trials):
    rng = np.random.default_rng(6)
    n, c = 17, 3
    onsets = _continuous_onsets(rng, n, 25, 10)
    total = int(onsets.max()) + 20
    arr = rng.standard_normal((total, c)).astype(np.float32)
    pre = rng.integers(2, 8, n)
    post = rng.integers(5, 15, n)
    starts, ends = onsets - pre, onsets + post
    flags: list = [bool(v) for v in rng.integers(0, 2, n)]
    flags[0] = flags[9] = None
    meta = {"correct": Col("nullable", "boolean", flags)}
    path = tmp_path / "b.h5"
    # a per-trial trial_info/trial_window (trials, 2), as trial_starts/trial_ends give
    write(path, arr, mode="continuous", onsets=onsets, ids=list(range(n)), meta=meta,
          starts=starts, ends=ends, chunks=(64, 3), trial_window=np.stack([-pre, post], axis=1))
    doc = opened(path)
    assert doc.trials.trial_window.tolist() == np.stack([-pre, post], axis=1).tolist()
    df = trial_average(doc, "correct", baseline="prestimulus")
    valid = np.stack([-pre, post], axis=1)
    window = (int(-pre.max()), int(post.max()))
    expected = naive(arr, epochs=False, anchors=onsets, window=window, valid=valid,
                     baseline=np.stack([-pre, np.zeros(n, int)], axis=1),
                     keys=[key_of(v) for v in flags], channels=[0, 1, 2])
    compare(df, expected, 100.0)
    assert [cond.label for cond in df.attrs["conditions"]] == ["False", "True", "missing"]


def test_continuous_without_rate_is_in_samples(tmp_path, block_trials):
    rng = np.random.default_rng(7)
    n, c = 11, 2
    onsets = _continuous_onsets(rng, n, 20, 4)
    total = int(onsets.max()) + 9
    arr = rng.integers(0, 255, (total, c)).astype(np.uint8)
    words: list = [["a", "b", "1"][i % 3] for i in range(n)]
    words[3] = None
    mixed: list = [[1, "1", 2.5, "x"][i % 4] for i in range(n)]
    meta = {"word": Col("nullable", "string", words),
            "mixed": Col("object_scalars", "object", mixed)}
    path = tmp_path / "s.h5"
    write(path, arr, mode="continuous", onsets=onsets, ids=[1] * n, meta=meta, sfreq=None,
          chunks=None, trial_window=(-3, 8))
    doc = opened(path)
    assert doc.trials.sampling_rate_hz is None
    for by, values in (("word", words), ("mixed", mixed)):
        df = trial_average(doc, by, window=(-4, 9))
        assert df.attrs["time_unit"] == "samples"
        expected = naive(arr, epochs=False, anchors=onsets, window=(-4, 9),
                         keys=[key_of(v) for v in values], channels=[0, 1])
        compare(df, expected, None)
    _, conds = condition_of_trials(doc, "mixed")
    assert [cond.label for cond in conds] == ["1 (int)", "2.5", "1 (str)", "x"]
    with pytest.raises(ValueError, match="in samples"):
        trial_average(doc, "word", window=(-0.5, 2))


def test_float_levels_and_int_ids_of_the_float_labels(tmp_path, block_trials):
    rng = np.random.default_rng(8)
    n, c = 16, 2
    onsets = _continuous_onsets(rng, n, 22, 5)
    arr = rng.standard_normal((int(onsets.max()) + 12, c))
    contrast = [[0.1, 0.5, 1.0][i % 3] for i in range(n)]
    ids = [[10, 20][i % 2] for i in range(n)]
    meta = {"contrast": Col("nullable", "Float64", contrast)}
    path = tmp_path / "lv.h5"
    write(path, arr, mode="continuous", onsets=onsets, ids=ids, meta=meta, chunks=(8, 1))
    doc = opened(path)
    df = trial_average(doc, "contrast")
    expected = naive(arr, epochs=False, anchors=onsets, window=(-2, 10),
                     keys=[key_of(v) for v in contrast], channels=[0, 1])
    compare(df, expected, 100.0)
    labels, conds = condition_of_trials(doc, "contrast")
    assert [cond.value for cond in conds] == [0.1, 0.5, 1.0]
    labels, conds = condition_of_trials(doc, "stimulus")
    assert [(cond.kind, cond.value) for cond in conds] == [("int", 10), ("int", 20)]
    assert [cond.value for cond in labels] == ids


# -- grouping, hooks and errors --------------------------------------------------------------


def test_large_offset_and_infinite_samples_stay_accurate(tmp_path, block_trials):
    """Moments merged block by block keep the precision of numpy's two-pass std
    on values with a large common offset, and NaN/inf behave as in numpy."""
    rng = np.random.default_rng(12)
    n, t, c = 40, 9, 2
    # a naive sum-of-squares variance would lose every digit here (1e14 against 1e-2)
    arr = 1e7 + rng.standard_normal((n, t, c)) * 0.1
    arr[3, 2, 0] = np.nan
    arr[5, 4, 1] = np.inf
    groups = [i % 3 for i in range(n)]
    path = tmp_path / "offset.h5"
    write(path, arr, mode="epochs", onsets=np.full(n, 2, np.int64), ids=groups,
          chunks=(7, 4, 1), trial_window=(-2, 7), baseline=(-2, 0))
    df = trial_average(opened(path), "stimulus")
    for g in range(3):
        x = arr[np.asarray(groups) == g]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(x, axis=0)
            sem = np.nanstd(x, axis=0, ddof=1) / np.sqrt((~np.isnan(x)).sum(axis=0))
        rows = df[df["condition"] == Condition(g, "int")]
        got_mean = rows["mean"].to_numpy().reshape(c, t).T
        got_sem = rows["sem"].to_numpy().reshape(c, t).T
        finite = np.isfinite(mean)
        np.testing.assert_allclose(got_mean[finite], mean[finite], rtol=1e-15)
        np.testing.assert_allclose(got_sem[finite], sem[finite], rtol=1e-6)
        assert np.array_equal(np.isfinite(got_mean), finite)
        assert np.array_equal(np.isnan(got_sem), np.isnan(sem))
    # trial 5 is condition 2, its sample 4 is offset +2: non-finite (the module notes)
    assert not np.isfinite(df.loc[(df["condition"] == Condition(2, "int"))
                                  & (df["channel"] == 1), "mean"].iloc[4])


def test_condition_equality_is_typed():
    assert Condition(1, "int") != Condition("1", "str") != Condition(True, "bool")
    assert Condition(1, "int", "a") == Condition(1, "int", "b")
    assert len({Condition(1, "int"), Condition(True, "bool"), Condition(1.0, "float")}) == 3
    assert MISSING.missing and str(MISSING) == "missing"


def test_progress_and_cancel(tmp_path, monkeypatch):
    monkeypatch.setattr(trial_reads, "MAX_BLOCK_TRIALS", 4)
    rng = np.random.default_rng(9)
    n = 18
    arr = rng.standard_normal((n, 20, 2))
    path = tmp_path / "p.h5"
    write(path, arr, mode="epochs", onsets=np.full(n, 2, np.int64), ids=[1] * n, chunks=(4, 20, 2))
    doc = opened(path)
    seen: list[Progress] = []
    trial_average(doc, "stimulus", progress=seen.append)
    assert [p.done for p in seen] == [4, 8, 12, 16, 18]
    assert all(p.total == n for p in seen)
    calls = []

    def cancel_after_two() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(Cancelled):
        trial_average(doc, "stimulus", cancelled=cancel_after_two)


def test_errors(tmp_path, fixtures):
    rng = np.random.default_rng(10)
    arr = rng.standard_normal((6, 10, 2))
    path = tmp_path / "err.h5"
    write(path, arr, mode="epochs", onsets=np.full(6, 2, np.int64), ids=[1] * 6,
          meta={"x": Col("numpy", "int64", [1] * 6)})
    doc = opened(path)
    assert doc.trials.baseline.tolist() == [-2, 0]  # trial_info/baseline as written
    doc.trials = dataclasses.replace(doc.trials, baseline=None)  # a recording without one
    with pytest.raises(ValueError, match="no trial_meta column"):
        trial_average(doc, "nope")
    with pytest.raises(ValueError, match="holds no sample"):
        trial_average(doc, "x", window=(0.05, 0.05))
    with pytest.raises(ValueError, match="channel"):
        trial_average(doc, "x", channels=[2])
    with pytest.raises(ValueError, match="channel"):
        trial_average(doc, "x", channels=["c9"])
    with pytest.raises(ValueError, match="recorded baseline"):
        trial_average(doc, "x", baseline="recorded")
    with pytest.raises(ValueError, match="rows"):
        trial_average(doc, "x", window=(-1e6, 1e6))
    patterns = open_document(fixtures / "vneurotk" / "v1" / "patterns_stim_index.h5")
    with pytest.raises(ValueError, match="no time axis"):
        trial_average(patterns, "stimulus")


def test_corpus_sample_matches_oracle(fixtures):
    """The bundled epochs sample (string IDs, onset 16 of 64 samples, 500 Hz)."""
    doc = opened(fixtures / "vneurotk" / "v1" / "epochs_dense_f64_strids.h5")
    arr = doc.arrays["neuro"].read()
    df = trial_average(doc, "stimulus", channels=[1])
    ids = list(doc.trials.trial_stim_ids)
    expected = naive(arr, epochs=True, anchors=np.full(arr.shape[0], 16), window=(-16, 48),
                     keys=[key_of(v) for v in ids], channels=[1])
    compare(df, expected, 500.0)


@pytest.mark.parametrize("dtype, filters, decoded_here", [
    ("<f4", {"shuffle": False}, True),  # deflate only
    ("<f8", {"fletcher32": True}, True),  # shuffle + deflate + checksum, checked here
    (">i4", {}, True),  # big-endian integers
    ("u1", {}, True),  # one-byte samples (shuffle is a no-op)
    ("<f4", {"compression": "lzf"}, False),  # a filter only HDF5 can undo
], ids=["gzip", "fletcher32", "big-endian", "uint8", "lzf"])
@pytest.mark.slow
def test_chunk_pipelines(tmp_path, dtype, filters, decoded_here):
    rng = np.random.default_rng(11)
    n, t, c = 9, 26, 3
    arr = (rng.standard_normal((n, t, c)) * 50).astype(dtype)
    onsets = np.full(n, 5, np.int64)
    ids = [1, 2, 3] * 3
    path = tmp_path / "f.h5"
    kw = dict(filters)
    if kw.get("compression") == "lzf":
        kw["compression_opts"] = None
    write(path, arr, mode="epochs", onsets=onsets, ids=ids, chunks=(2, 7, 2), filters=kw)
    doc = opened(path)
    source = trial_reads.source_for(doc.arrays["neuro"], np.array([1, 2]))
    assert source.decodes_chunks is decoded_here
    # the window reaches beyond both ends of every epoch: those samples are missing
    df = trial_average(doc, "stimulus", channels=[1, 2], window=(-0.08, 0.3))
    expected = naive(arr, epochs=True, anchors=onsets, window=(-8, 30),
                     keys=[key_of(v) for v in ids], channels=[1, 2])
    assert (df["n"] == 0).any()
    compare(df, expected, 100.0)


def test_unallocated_chunks_read_as_fill_value(tmp_path):
    rng = np.random.default_rng(15)
    n, t, c = 8, 12, 2
    arr = np.zeros((n, t, c), np.float32)
    arr[:4] = rng.standard_normal((4, t, c))
    path = tmp_path / "u.h5"
    write(path, arr, mode="epochs", onsets=np.full(n, 3, np.int64), ids=[1, 2] * 4,
          chunks=(2, 6, 2))
    with h5py.File(path, "a") as f:  # rewrite neuro leaving trials 4.. unwritten
        del f["neuro"]
        ds = f.create_dataset("neuro", shape=arr.shape, dtype=np.float32, chunks=(2, 6, 2),
                              compression="gzip", shuffle=True)
        ds[:4] = arr[:4]
    doc = opened(path)
    df = trial_average(doc, "stimulus")
    expected = naive(arr, epochs=True, anchors=np.full(n, 3), window=(-3, 9),
                     keys=[key_of(v) for v in [1, 2] * 4], channels=[0, 1])
    compare(df, expected, 100.0)


def test_zlib_fallback(tmp_path, monkeypatch):
    """Without the decoder wheels (zlib does their part) the averages are the same."""
    import zlib

    from inspector.formats.decoding import inflate

    monkeypatch.setattr(inflate, "WHOLE", None)
    monkeypatch.setattr(inflate, "STREAM", zlib)
    rng = np.random.default_rng(12)
    n, t, c = 8, 30, 2
    arr = rng.standard_normal((n, t, c)).astype(np.float32)
    path = tmp_path / "z.h5"
    write(path, arr, mode="epochs", onsets=np.full(n, 4, np.int64), ids=[1, 2] * 4,
          chunks=(3, 8, 1))
    df = trial_average(opened(path), "stimulus")
    expected = naive(arr, epochs=True, anchors=np.full(n, 4), window=(-4, 26),
                     keys=[key_of(v) for v in [1, 2] * 4], channels=[0, 1])
    compare(df, expected, 100.0)


def test_runs_on_a_saturated_pool(tmp_path, _worker_pool):
    """Called from every worker of the shared pool at once, it still finishes: pieces
    the pool has not started are decoded by the waiting thread itself."""
    rng = np.random.default_rng(14)
    n, t, c = 12, 40, 2
    arr = rng.standard_normal((n, t, c)).astype(np.float32)
    path = tmp_path / "sat.h5"
    write(path, arr, mode="epochs", onsets=np.full(n, 4, np.int64), ids=[1, 2] * 6,
          chunks=(2, 5, 1))
    doc = opened(path)
    jobs = [_worker_pool.submit(trial_average, doc, "stimulus")
            for _ in range(_worker_pool._max_workers)]
    frames = [job.result(timeout=120) for job in jobs]
    expected = naive(arr, epochs=True, anchors=np.full(n, 4), window=(-4, 36),
                     keys=[key_of(v) for v in [1, 2] * 6], channels=[0, 1])
    for df in frames:
        compare(df, expected, 100.0)
