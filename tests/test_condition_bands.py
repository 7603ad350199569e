"""The condition plot's ±SEM bands (inspector.ui.trials.condition_plot), offscreen.

The band paths are built by the averaging job, off the GUI thread; they must
outline exactly what pyqtgraph's ``FillBetweenItem`` filled between two
``connect="finite"`` curves (the oracle here), and be buildable on a thread
that is not the GUI thread.
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pyqtgraph as pg

from inspector.ui.trials.condition_plot import (
    BandItem,
    band_edges,
    band_path,
    frame_grid,
    grid_bands,
    pooled_grid,
)


def _polygons(path) -> list[np.ndarray]:
    """The subpath polygons of ``path`` as ``(n, 2)`` float64 arrays."""
    return [np.array([(p.x(), p.y()) for p in poly]) for poly in path.toSubpathPolygons()]


def _distinct(poly: np.ndarray) -> np.ndarray:
    """``poly`` without repeats of the point before (pyqtgraph's finite-connected
    path repeats the last point before a gap; the area is the same)."""
    keep = np.ones(len(poly), dtype=bool)
    keep[1:] = np.any(poly[1:] != poly[:-1], axis=1)
    return poly[keep]


def _fill_between(x, lo, hi):
    """What pyqtgraph draws for the band: FillBetweenItem between two finite-connected curves."""
    return pg.FillBetweenItem(pg.PlotCurveItem(x, lo, connect="finite"),
                              pg.PlotCurveItem(x, hi, connect="finite")).path()


def _mean_sem():
    x = np.arange(12, dtype=np.float64) / 500.0
    mean = np.array([0.1, 0.3, np.nan, np.nan, 0.5, 0.4, 0.2, -0.1, np.nan, 0.7, 0.6, 0.5])
    sem = np.array([0.05, 0.02, np.nan, 0.1, np.nan, 0.03, 0.04, 0.01, 0.2, 0.05, np.nan, 0.1])
    return x, mean, sem


def test_band_edges_close_on_the_mean_where_one_trial_contributes(qapp):
    x, mean, sem = _mean_sem()
    lo, hi = band_edges(mean, sem)
    # sem undefined, mean defined (index 4, 10): both edges are the mean
    assert lo[4] == hi[4] == 0.5 and lo[10] == hi[10] == 0.6
    np.testing.assert_allclose(lo[[0, 1, 5]], [0.05, 0.28, 0.37])
    np.testing.assert_allclose(hi[[0, 1, 5]], [0.15, 0.32, 0.43])
    assert np.isnan(lo[[2, 3, 8]]).all() and np.isnan(hi[[2, 3, 8]]).all()


def test_band_path_outlines_what_fill_between_filled(qapp):
    x, mean, sem = _mean_sem()
    lo, hi = band_edges(mean, sem)
    mine, oracle = _polygons(band_path(x, lo, hi)), _polygons(_fill_between(x, lo, hi))
    assert len(mine) == len(oracle) == 3  # three runs of finite points
    for a, b in zip(mine, oracle, strict=True):
        np.testing.assert_allclose(a, _distinct(b))
    # the first run: along the lower edge, then back along the upper one
    np.testing.assert_allclose(mine[0], [[x[0], lo[0]], [x[1], lo[1]], [x[1], hi[1]],
                                         [x[0], hi[0]]])


def test_band_path_of_nothing_finite_is_empty(qapp):
    x = np.arange(4, dtype=np.float64)
    nan = np.full(4, np.nan)
    assert band_path(x, nan, nan).isEmpty()
    assert _polygons(band_path(x[:0], x[:0], x[:0])) == []


def test_band_paths_are_built_off_the_gui_thread(qapp):
    times = np.arange(5) / 100.0
    conditions = ["a", "b"]
    rows = [(g, ch, t, float(g + ch + i), 0.1 * (i + 1), 3)
            for g in range(2) for ch in (0, 4) for i, t in enumerate(times)]
    df = pd.DataFrame(rows, columns=["condition", "channel", "time", "mean", "sem", "n"])
    df.attrs["conditions"] = conditions
    out: dict = {}

    def work():
        grid = frame_grid(df)
        out["grid"], out["bands"] = grid, grid_bands(grid)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    x, chans, cube = out["grid"]
    assert chans == [0, 4] and cube["mean"].shape == (2, 2, 5)
    bands = out["bands"]
    assert [len(row) for row in bands] == [2, 2]
    for g in range(2):
        for c in range(2):
            lo, hi = band_edges(cube["mean"][g, c], cube["sem"][g, c])
            [poly] = _polygons(bands[g][c])
            np.testing.assert_allclose(poly[:5], np.column_stack([times, lo]))
            np.testing.assert_allclose(poly[5:], np.column_stack([times, hi])[::-1])
    # a pooled frame (one group, whatever its attrs say): one condition per channel
    pooled = df[df["condition"] == 0].drop(columns="condition").reset_index(drop=True)
    pooled.attrs["conditions"] = conditions
    px, pchans, pcube = pooled_grid(pooled)
    assert pchans == [0, 4] and pcube["mean"].shape == (1, 2, 5)
    np.testing.assert_array_equal(px, times)
    np.testing.assert_array_equal(pcube["mean"][0, 1], [4.0, 5.0, 6.0, 7.0, 8.0])


def test_band_item_is_a_fill_between_item_with_the_given_path(qapp):
    x, mean, sem = _mean_sem()
    path = band_path(x, *band_edges(mean, sem))
    item = BandItem(path, pg.mkBrush("#336699"))
    assert isinstance(item, pg.FillBetweenItem)
    assert item.brush().color().name() == "#336699"
    assert len(_polygons(item.path())) == 3
    assert item.boundingRect().contains(x[5], mean[5])
