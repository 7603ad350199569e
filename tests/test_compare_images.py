"""The Compare tab's images: a differing 2-D array or stimulus image shown in A and B on
one colour scale, and A − B on a scale centred on 0 (h5py and numpy as the oracles)."""

from __future__ import annotations

import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
from conftest import open_window

from inspector.ui.compare import action
from inspector.ui.compare.tab import CompareTab

V1 = Path(__file__).parent / "fixtures" / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"


def _image_pair(tmp_path: Path, shape: tuple[int, int]) -> tuple[Path, Path]:
    data = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    other = data.copy()
    other[10:30, 40:90] += np.float32(2.5)
    other[5, 7] = np.float32(-4.0)
    paths = tmp_path / "a.h5", tmp_path / "b.h5"
    for path, values in zip(paths, (data, other), strict=True):
        with h5py.File(path, "w") as f:
            f.create_dataset("img", data=values, chunks=(64, 64), compression="gzip")
    return paths


def _compare(qtbot, a: Path, b: Path) -> CompareTab:
    win = open_window(qtbot, a)
    tab = action.open_compare(win, a, b)
    qtbot.waitUntil(lambda: tab.is_ready, timeout=60_000)
    return tab


def _shown(tab: CompareTab) -> dict[str, np.ndarray]:
    assert tab.detail.currentWidget() is tab.detail.images_page
    return {k: np.asarray(item.image) for k, item in tab.detail.images_page.items.items()}


def _check_scales(tab: CompareTab, a: np.ndarray, b: np.ndarray, diff: np.ndarray) -> None:
    lo, hi = float(min(a.min(), b.min())), float(max(a.max(), b.max()))
    items, limit = tab.detail.images_page.items, float(np.abs(diff).max())
    assert tuple(items["a"].getLevels()) == tuple(items["b"].getLevels()) == (lo, hi)
    assert tuple(items["diff"].getLevels()) == (-limit, limit)  # centred on 0
    assert tab.detail.images_page.diff_bar.levels() == (-limit, limit)


def test_a_differing_2d_array_is_shown_as_images(qtbot, tmp_path: Path) -> None:
    a, b = _image_pair(tmp_path, (120, 150))
    tab = _compare(qtbot, a, b)
    assert tab.tree.select_path("objects", "/img")
    qtbot.waitUntil(tab.is_settled, timeout=60_000)
    shown = _shown(tab)
    with h5py.File(a) as fa, h5py.File(b) as fb:
        va, vb = fa["img"][...].astype(np.float64), fb["img"][...].astype(np.float64)
    assert np.array_equal(shown["a"], va) and np.array_equal(shown["b"], vb)
    assert np.array_equal(shown["diff"], va - vb)
    _check_scales(tab, va, vb, va - vb)
    assert tab.detail.images_page.scale_bar.levels() == (float(min(va.min(), vb.min())),
                                             float(max(va.max(), vb.max())))


@pytest.mark.slow
def test_a_large_array_is_read_strided(qtbot, tmp_path: Path) -> None:
    a, b = _image_pair(tmp_path, (2100, 1600))
    tab = _compare(qtbot, a, b)
    assert tab.tree.select_path("objects", "/img")
    qtbot.waitUntil(tab.is_settled, timeout=60_000)
    shown = _shown(tab)
    rows, cols = 5, 4  # ceil(2100 / 512), ceil(1600 / 512): samples from each cell's middle
    with h5py.File(a) as fa, h5py.File(b) as fb:
        va = fa["img"][rows // 2::rows, cols // 2::cols].astype(np.float64)
        vb = fb["img"][rows // 2::rows, cols // 2::cols].astype(np.float64)
    assert shown["a"].shape == (420, 400)
    assert np.array_equal(shown["a"], va) and np.array_equal(shown["b"], vb)
    assert np.array_equal(shown["diff"], va - vb)
    _check_scales(tab, va, vb, va - vb)
    assert "one sample every 5 rows and 4 columns" in tab.detail.images_page.title.text()


@pytest.mark.slow
def test_a_differing_stimulus_image(qtbot, tmp_path: Path) -> None:
    a, b = tmp_path / "a.h5", tmp_path / "b.h5"
    shutil.copyfile(V1, a)
    shutil.copyfile(V1, b)
    with h5py.File(b, "a") as f:
        pixels = f["stimuli_db/0/image"][...]
        pixels[2:5, 1:6] = 255 - pixels[2:5, 1:6]
        f["stimuli_db/0/image"][...] = pixels
    tab = _compare(qtbot, a, b)
    assert tab.comparison is not None
    d = next(d for d in tab.comparison.report.differences if d.section == "stimuli")
    assert tab.tree.select_path("stimuli", d.path)
    qtbot.waitUntil(tab.is_settled, timeout=60_000)
    shown = _shown(tab)
    with h5py.File(a) as fa, h5py.File(b) as fb:
        va = fa["stimuli_db/0/image"][...].astype(np.float64)
        vb = fb["stimuli_db/0/image"][...].astype(np.float64)
    assert np.array_equal(shown["a"], va) and np.array_equal(shown["b"], vb)
    diff = (va - vb).mean(axis=2)  # a colour image: the mean over its channels
    assert np.array_equal(shown["diff"], diff)
    assert np.count_nonzero(shown["diff"]) == np.count_nonzero(diff) > 0
    _check_scales(tab, va, vb, diff)
