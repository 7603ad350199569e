"""Representational similarity (inspector.formats.analysis.rsa) against rsatoolbox and scipy.

Recordings are written by the reference writer (PyPI ``vneurotk==0.0.1``,
``BaseData.save``: schema 0) with known neural arrays and vision records;
rsatoolbox 0.3.2 (``calc_rdm``, ``compare(method="spearman")``) and scipy
(``pdist``, ``spearmanr``) compute what every number must be from the arrays
the test wrote, never from what our reader read.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform
from scipy.stats import spearmanr

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.analysis.rsa import agreement as agreement_mod
from inspector.formats.analysis.rsa import features as features_mod
from inspector.formats.analysis.rsa.compute import RsaOptions, representational_similarity
from inspector.formats.analysis.rsa.features import feature_rdm, sub_condensed
from inspector.formats.analysis.rsa.matching import match_stimuli
from inspector.formats.analysis.trial_matrix import condition_of_value
from inspector.formats.decoding.workers import worker_pool
from inspector.formats.registry import open_document


def _rsatoolbox():
    """``(rsatoolbox.data, rsatoolbox.rdm)``, imported when a test first asks (about 4 CPU-s:
    an xdist worker that runs no test of this file does not pay it at collection)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import rsatoolbox.data as rsd
        import rsatoolbox.rdm as rsr
    return rsd, rsr

SFREQ = 100.0
FIXTURES = Path(__file__).parent / "fixtures" / "vneurotk" / "v1"


# -- the reference writer ----------------------------------------------------------------------


def write_recording(path: Path, neuro: np.ndarray, trial_ids: list, record_ids: list,
                    layers: dict[str, np.ndarray], onset: int = 5) -> Path:
    """An epochs recording written by vneurotk 0.0.1 with one record per layer.

    The records are stored as given (``VisionData._store_records``: the
    writer's ``add`` refuses a record missing a trial's ID, which some tests need).
    """
    from vneurotk import BaseData
    from vneurotk.vision.data import VisionData
    from vneurotk.vision.representation.visual_representations import (
        VisualRepresentation,
        VisualRepresentations,
    )

    n_ch = neuro.shape[-1]
    bd = BaseData.for_epochs(neuro, {"sfreq": SFREQ, "ch_names": [f"c{i}" for i in range(n_ch)]})
    bd.configure(trial_ids, vision_onsets=np.full(len(trial_ids), onset))
    vd = VisionData(bd.trial_stim_ids)
    reps = [VisualRepresentation("test/model", name, "Linear", record_ids, arr)
            for name, arr in layers.items()]
    vd._store_records(VisualRepresentations(reps), overwrite=False)
    bd._restore_vision_data(vd)
    bd.save(path)
    return path


def analyse(path: Path, **options) -> object:
    with worker_pool(), open_document(path) as doc:
        doc.verify()
        return representational_similarity(doc, RsaOptions(**options))


# -- oracles -----------------------------------------------------------------------------------


def trial_patterns(neuro: np.ndarray, onset: int) -> np.ndarray:
    """Per trial and channel: the epoch's mean after subtracting the recorded
    baseline ``[-onset, 0)`` (the writer records it), float64."""
    x = neuro.astype(np.float64)
    x = x - x[:, :onset, :].mean(axis=1, keepdims=True)
    return x.mean(axis=1)


def toolbox_rdm(patterns: np.ndarray, ids: list, order: list, method: str) -> np.ndarray:
    """rsatoolbox's RDM of the trials averaged by stimulus, in the stimulus order ``order``."""
    rsd, rsr = _rsatoolbox()
    labels = np.array([str(v) for v in ids])
    ds = rsd.Dataset(patterns, obs_descriptors={"stim": labels})
    rdm = rsr.calc_rdm(ds, method=method, descriptor="stim")
    names = list(rdm.pattern_descriptors["stim"])
    pick = [names.index(str(v)) for v in order]
    return rdm.get_matrices()[0][np.ix_(pick, pick)]


def toolbox_spearman(a: np.ndarray, b: np.ndarray) -> float:
    _, rsr = _rsatoolbox()
    return float(rsr.compare(rsr.RDMs(squareform(a, checks=False)[None, :]),
                             rsr.RDMs(squareform(b, checks=False)[None, :]),
                             method="spearman")[0, 0])


def brute_p_value(neural: np.ndarray, features: np.ndarray, permutations: int, seed: int) -> float:
    """The permutation p-value the slow way: permute the square matrix, scipy's spearmanr."""
    rho = spearmanr(squareform(neural, checks=False), squareform(features, checks=False))[0]
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(permutations):
        p = rng.permutation(neural.shape[0])
        r = spearmanr(squareform(neural[np.ix_(p, p)], checks=False),
                      squareform(features, checks=False))[0]
        hits += r >= rho - 1e-12
    return (1 + hits) / (1 + permutations)


# -- feature matrices --------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [1 << 30, 600])
@pytest.mark.slow
def test_feature_rdm_of_a_3d_array_equals_rsatoolbox_and_scipy(budget, monkeypatch):
    """A (stimuli, 3, 4) array flattened in C order; a budget of 600 bytes forces panels."""
    monkeypatch.setattr(features_mod, "TILE_ROWS", 8)
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((40, 3, 4)) * 5 + 2).astype(np.float32)
    flat = x.reshape(40, -1).astype(np.float64)
    ref = NumpyArrayRef("features", x)
    got = {m: feature_rdm(ref, m, memory_budget=budget) for m in features_mod.METRICS}
    assert (got["correlation"].passes > 1) == (budget == 600)
    rsd, rsr = _rsatoolbox()
    ds = rsd.Dataset(flat)
    corr = rsr.calc_rdm(ds, method="correlation").get_vectors()[0]
    np.testing.assert_allclose(got["correlation"].condensed, corr, rtol=0, atol=1e-12)
    sq_euclid = rsr.calc_rdm(ds, method="euclidean").get_vectors()[0] * flat.shape[1]
    np.testing.assert_allclose(got["euclidean"].condensed, np.sqrt(sq_euclid), rtol=1e-10)
    np.testing.assert_allclose(got["cosine"].condensed, pdist(flat, "cosine"), atol=1e-12)
    assert not any(r.undefined.any() for r in got.values())


def test_undefined_rows_are_nan_and_flagged():
    x = np.random.default_rng(0).standard_normal((6, 5))
    x[1] = 4.0  # constant: correlation undefined
    x[4] = 0.0  # zero: cosine undefined too
    x[2, 3] = np.nan
    ref = NumpyArrayRef("features", x)
    corr = feature_rdm(ref, "correlation")
    assert corr.undefined.tolist() == [False, True, True, False, True, False]
    square = corr.square()
    assert np.isnan(square[1, 0]) and np.isnan(square[0, 2])
    assert square[0, 3] == pytest.approx(pdist(x[[0, 3]], "correlation")[0], abs=1e-12)
    assert feature_rdm(ref, "euclidean").undefined.tolist() == [False, False, True, False,
                                                                 False, False]


def test_sub_condensed_picks_the_rows_of_the_square_matrix():
    x = np.random.default_rng(1).standard_normal((9, 4))
    full = pdist(x, "correlation")
    rows = np.array([0, 2, 3, 7, 8])
    np.testing.assert_array_equal(sub_condensed(full, 9, rows),
                                  squareform(squareform(full)[np.ix_(rows, rows)]))


# -- agreement ---------------------------------------------------------------------------------


def test_spearman_with_ties_equals_rsatoolbox_and_scipy():
    """Integer-valued dissimilarities with many ties share their average ranks."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 45).astype(float)
    b = (a + rng.integers(0, 3, 45)).astype(float)
    rho = agreement_mod.spearman(a, b)
    assert rho == pytest.approx(spearmanr(a, b)[0], abs=1e-12)
    assert rho == pytest.approx(toolbox_spearman(a, b), abs=1e-12)


@pytest.mark.parametrize("m", [4, 12, 70])
def test_permutation_p_value_equals_the_slow_permutation_test(m):
    rng = np.random.default_rng(m)
    x = rng.standard_normal((m, 6))
    a = pdist(x, "correlation")
    b = pdist(x + rng.standard_normal((m, 6)), "correlation")
    got = agreement_mod.agreement(a, b, m, permutations=200, seed=9)
    assert got.rho == pytest.approx(spearmanr(a, b)[0], abs=1e-12)
    assert got.p_value == pytest.approx(brute_p_value(squareform(a), squareform(b), 200, 9))
    assert (got.permutations, got.seed, got.stimuli) == (200, 9, m)


# -- matching ----------------------------------------------------------------------------------


def test_matching_is_by_typed_id_never_by_position():
    groups = [condition_of_value(v) for v in (1, "1", 2.0, True, None)]
    match = match_stimuli(["1", 2, 7, 1], groups)
    assert match.rows.tolist() == [0, 1, 3]
    assert [groups[g].value for g in match.groups] == ["1", 2.0, 1]
    assert match.features_only == (7,)
    assert [c.value for c in match.trials_only] == [True]


# -- whole recordings (reference writer) -------------------------------------------------------


def _recording(tmp_path: Path, record_ids: list, layers: dict[str, np.ndarray],
               name: str = "rec.h5") -> tuple[Path, np.ndarray, list]:
    rng = np.random.default_rng(11)
    trial_ids = [3, 7, 11, 15, 19, 23, 3, 7, 11, 15, 19, 23, 3, 7]
    neuro = rng.standard_normal((len(trial_ids), 20, 5)).astype(np.float32)
    neuro += np.repeat(np.arange(5, dtype=np.float32)[None, None, :], 20, axis=1)
    path = write_recording(tmp_path / name, neuro, trial_ids, record_ids, layers)
    return path, neuro, trial_ids


def _features(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    return {"early": rng.standard_normal((n, 8)).astype(np.float32),
            "late": rng.standard_normal((n, 2, 3)).astype(np.float32)}


@pytest.mark.parametrize("metric", ["correlation", "euclidean"])
def test_recording_agreement_per_layer_equals_rsatoolbox(tmp_path, metric):
    ids = [23, 3, 19, 7, 15, 11]  # stored out of trial order: matched by ID
    layers = _features(np.random.default_rng(2), len(ids))
    path, neuro, trial_ids = _recording(tmp_path, ids, layers)
    result = analyse(path, metric=metric, permutations=300, seed=4)
    neural = toolbox_rdm(trial_patterns(neuro, 5), trial_ids, ids, metric)
    assert [layer.module_name for layer in result.layers] == ["early", "late"]
    for layer, arr in zip(result.layers, layers.values(), strict=True):
        flat = arr.reshape(len(ids), -1).astype(np.float64)
        feat = toolbox_rdm(flat, ids, ids, metric)
        if metric == "euclidean":  # rsatoolbox: squared and divided by the features
            feat, want_neural = np.sqrt(feat * flat.shape[1]), np.sqrt(neural * 5)
        else:
            want_neural = neural
        np.testing.assert_allclose(layer.feature_rdm.square(), feat, atol=1e-9)
        np.testing.assert_allclose(squareform(result.neural_rdms[layer.name]), want_neural,
                                   atol=1e-6)
        assert layer.compared_ids() == ids
        assert layer.agreement.rho == pytest.approx(
            toolbox_spearman(squareform(want_neural), squareform(feat)), abs=1e-9)
        assert layer.agreement.p_value == pytest.approx(
            brute_p_value(want_neural, feat, 300, 4))
        assert layer.findings == ()


def test_permuted_record_rows_give_the_same_agreement(tmp_path):
    ids = [3, 7, 11, 15, 19, 23]
    layers = _features(np.random.default_rng(8), len(ids))
    order = [4, 0, 5, 2, 1, 3]
    shuffled = {k: v[order] for k, v in layers.items()}
    a, _, _ = _recording(tmp_path, ids, layers, "a.h5")
    b, _, _ = _recording(tmp_path, [ids[i] for i in order], shuffled, "b.h5")
    ra, rb = analyse(a, permutations=100), analyse(b, permutations=100)
    for la, lb in zip(ra.layers, rb.layers, strict=True):
        assert lb.agreement.rho == pytest.approx(la.agreement.rho, abs=1e-12)
        back = np.argsort(order)
        np.testing.assert_allclose(lb.feature_rdm.square()[np.ix_(back, back)],
                                   la.feature_rdm.square(), atol=1e-12)


def test_ids_on_one_side_only_are_listed_and_left_out(tmp_path):
    ids = [3, 7, 11, 15, 99, 100]  # 19 and 23 have no features; 99 and 100 no trials
    layers = _features(np.random.default_rng(6), len(ids))
    path, neuro, trial_ids = _recording(tmp_path, ids, layers)
    result = analyse(path, permutations=50)
    layer = result.layers[0]
    assert layer.match.features_only == (99, 100)
    assert [c.value for c in layer.match.trials_only] == [19, 23]
    assert layer.compared_ids() == [3, 7, 11, 15]
    assert layer.feature_rdm.n == 6  # the record's matrix covers all its stimuli
    neural = toolbox_rdm(trial_patterns(neuro, 5), trial_ids, [3, 7, 11, 15], "correlation")
    feat = squareform(pdist(layers["early"][:4].astype(np.float64), "correlation"))
    assert layer.agreement.rho == pytest.approx(
        toolbox_spearman(squareform(neural), squareform(feat)), abs=1e-9)
    assert layer.agreement.stimuli == 4


def test_a_record_matching_no_trial_is_a_finding(tmp_path):
    ids = ["3", "7", "11", "15", "19", "23"]  # text IDs: the trials show ints
    path, _, _ = _recording(tmp_path, ids, _features(np.random.default_rng(7), len(ids)))
    result = analyse(path)
    codes = [f.code for f in result.findings]
    assert codes == ["rsa.no-shared-stimuli", "rsa.no-shared-stimuli"]
    assert result.findings[0].location == "/vision_store/0/stim_ids"
    assert all(layer.agreement is None and layer.used.size == 0 for layer in result.layers)
    assert result.neural is None
    assert result.layers[0].feature_rdm.n == 6


@pytest.mark.slow
def test_tied_features_rank_alike(tmp_path):
    """Repeated feature rows: the known matrix repeats the 3-stimulus one exactly (zeros
    and equal values tied), ranked as rsatoolbox ranks it, rounding notwithstanding."""
    ids = [3, 7, 11, 15, 19, 23]
    base = np.random.default_rng(9).standard_normal((3, 8)).astype(np.float32)
    picks = {"early": [0, 1, 2, 0, 1, 2], "late": [0, 0, 1, 1, 2, 2]}
    path, neuro, trial_ids = _recording(tmp_path, ids, {k: base[v] for k, v in picks.items()})
    result = analyse(path, permutations=100)
    neural = toolbox_rdm(trial_patterns(neuro, 5), trial_ids, ids, "correlation")
    small = squareform(pdist(base.astype(np.float64), "correlation"))
    for layer, pick in zip(result.layers, picks.values(), strict=True):
        known = small[np.ix_(pick, pick)]
        assert np.unique(squareform(known)).size == 4  # 15 pairs, 4 values: ties
        np.testing.assert_allclose(layer.feature_rdm.square(), known, atol=1e-12)
        assert layer.agreement.rho == pytest.approx(
            toolbox_spearman(squareform(neural), squareform(known)), abs=1e-9)


# -- the command -------------------------------------------------------------------------------


def test_cli_json_and_npy_files(tmp_path, capsys):
    from inspector.rsa_cli import cmd_rsa

    ids = [23, 3, 19, 7, 15, 11]
    path, _, _ = _recording(tmp_path, ids, _features(np.random.default_rng(2), len(ids)))
    out = tmp_path / "out"
    with worker_pool():
        assert cmd_rsa([str(path), "--json", "--out", str(out), "--permutations", "100",
                        "--record", "1"]) == 0
    got = json.loads(capsys.readouterr().out)
    api = analyse(path, permutations=100).layers[1]
    (layer,) = got["layers"]
    assert layer["record"] == "vision_store/1" and layer["shape"] == [6, 2, 3]
    assert layer["rho"] == pytest.approx(api.agreement.rho, abs=1e-12)
    assert layer["p_value"] == pytest.approx(api.agreement.p_value)
    assert layer["stimuli"] == 6 and got["neural"]["trials"] == 14
    np.testing.assert_array_equal(np.load(out / "vision_store_1_features.npy"),
                                  api.feature_rdm.square())
    order = json.loads((out / "stimuli.json").read_text(encoding="utf-8"))
    assert order["vision_store/1"]["compared"] == [{"type": "int", "value": v} for v in ids]


def test_cli_exit_status_for_a_file_without_records_and_for_usage(tmp_path, capsys):
    from inspector.rsa_cli import cmd_rsa

    plain = FIXTURES / "continuous_uncompressed_i16.h5"
    with worker_pool():
        assert cmd_rsa([str(plain)]) == 1
    assert "no vision record" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cmd_rsa([str(plain), "--metric", "manhattan"])
    assert exc.value.code == 2


def test_corpus_recording_with_two_layers():
    """The corpus file with two records (one of them 3-D): each compared over its 4 stimuli."""
    path = FIXTURES / "continuous_dense_f32_intids.h5"
    result = analyse(path, permutations=23)
    assert [(layer.module_name, layer.shape) for layer in result.layers] == [
        ("blocks.0", (4, 16)), ("blocks.3", (4, 2, 8))]
    for layer in result.layers:
        assert layer.compared_ids() == [3, 7, 11, 15]
        assert layer.agreement.stimuli == 4
        assert layer.agreement.rho == pytest.approx(spearmanr(
            result.neural_rdms[layer.name], layer.feature_rdm.condensed)[0], abs=1e-12)


def test_clustered_order_follows_the_average_linkage_merges():
    from scipy.cluster.hierarchy import fcluster, linkage

    from inspector.formats.analysis.rsa.order import clustered_order, order_by_values

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal((7, 3)) + k * 6 for k in range(3)])[rng.permutation(21)]
    d = pdist(x)
    order = clustered_order(squareform(d))
    assert sorted(order.tolist()) == list(range(21))
    labels = fcluster(linkage(d, "average"), 3, "maxclust")[order]
    assert (np.diff(labels) != 0).sum() == 2  # each of scipy's 3 clusters is contiguous
    assert order_by_values([3, None, "b", 1.5, "a"]).tolist() == [3, 0, 4, 2, 1]


def test_patterns_recording_averages_the_rows_of_each_stimulus():
    """Patterns mode: each stimulus's pattern is the mean of its rows (trial_meta stim_index)."""
    import h5py

    path = FIXTURES / "patterns_stim_index.h5"
    with h5py.File(path, "r") as f:
        rows = f["neuro"][()].astype(np.float64)
    result = analyse(path, permutations=50)
    with worker_pool(), open_document(path) as doc:
        doc.verify()
        ids = list(doc.trials.trial_stim_ids)
    layer = result.layers[0]
    want = np.stack([rows[[i for i, s in enumerate(ids) if s == v]].mean(axis=0)
                     for v in layer.compared_ids()])
    np.testing.assert_allclose(result.neural.values, want, rtol=1e-12)
    assert result.neural.trials.tolist() == [ids.count(v) for v in layer.compared_ids()]
    np.testing.assert_allclose(result.neural_rdms[layer.name], pdist(want, "correlation"),
                               atol=1e-12)


def test_timecourse_pattern_keeps_every_sample_of_the_window(tmp_path):
    ids = [3, 7, 11, 15, 19, 23]
    path, neuro, trial_ids = _recording(tmp_path, ids, _features(np.random.default_rng(4), 6))
    result = analyse(path, permutations=10, pattern="timecourse", baseline=None)
    x = neuro.astype(np.float64)  # (trials, 20 samples, 5 channels); no baseline
    want = np.stack([x[[t for t, s in enumerate(trial_ids) if s == v]].mean(axis=0).T.ravel()
                     for v in ids])
    np.testing.assert_allclose(result.neural.values, want, atol=1e-12)
    assert result.neural.values.shape == (6, 100)
