"""An AUC experiment of many scans: the view draws every k-th scan and the selected ones.

The rows chosen, the rows read (numpy's fancy indexing as the oracle, reads
bounded), the envelopes of those rows (the brute-force oracle of
test_auc_plot_lazy), the colours computed on demand (the per-scan functions
they replace as the oracle), and the view: what it draws, what it says, what a
selection adds, and its list holding a row per scan.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_auc_plot_lazy import RecordingRef, brute, make_view, settle

from inspector.formats.analysis import scan_rows as sr
from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.analysis.scan_envelope import scan_envelopes
from inspector.formats.analysis.scan_rows import ScanRows, drawn_rows, envelope_rows


def test_drawn_rows_are_every_kth_scan_and_the_first_selected_ones():
    np.testing.assert_array_equal(drawn_rows(7, {3}, cap=7, extra=2), np.arange(7))
    np.testing.assert_array_equal(drawn_rows(20, (), cap=5, extra=2), [0, 4, 8, 12, 16])
    got = drawn_rows(20, {19, 4, 3, 1, -1, 25}, cap=5, extra=2)
    np.testing.assert_array_equal(got, [0, 1, 3, 4, 8, 12, 16])  # 4 drawn anyway; 19 beyond
    assert drawn_rows(1_000_000, (), cap=1000, extra=5).size == 1000


@pytest.mark.parametrize("span", [1, 7, 64, 1 << 21])
def test_scan_rows_read_the_rows_numpy_takes_in_bounded_reads(monkeypatch, span):
    monkeypatch.setattr(sr, "SPAN_ELEMENTS", span)
    rng = np.random.default_rng(span)
    a = rng.standard_normal((300, 9))
    ref = RecordingRef("signal", a)
    for _ in range(20):
        rows = np.flatnonzero(rng.random(300) < rng.uniform(0.01, 0.6))
        src = ScanRows(ref, rows)
        assert src.shape == (rows.size, 9) and src.dtype == a.dtype
        r0, r1 = sorted(rng.integers(0, rows.size + 1, 2))
        q0, q1 = sorted(rng.integers(0, 10, 2))
        np.testing.assert_array_equal(src[r0:r1, q0:q1], a[rows][r0:r1, q0:q1])
        np.testing.assert_array_equal(ScanRows(a, rows)[:, :], a[rows])  # numpy source too
    assert max(size for _sel, size in ref.reads) <= max(span, 9)  # one row at least


def test_scan_rows_refuse_rows_out_of_order_or_outside():
    a = np.zeros((5, 2))
    for rows in ([1, 1], [3, 2], [0, 5], [-1]):
        with pytest.raises(ValueError):
            ScanRows(a, np.array(rows))
    with pytest.raises(ValueError):
        ScanRows(np.zeros(5), np.array([1]))


@pytest.mark.parametrize("per_scan", [False, True])
def test_envelopes_of_rows_equal_brute_force_of_those_scans(per_scan):
    rng = np.random.default_rng(3 + per_scan)
    scans, points, w = 40, 50, 17
    radius = (np.sort(rng.uniform(0, 10, (scans, points)), axis=1) if per_scan
              else np.linspace(0, 10, points))
    signal = rng.standard_normal((scans, points))
    signal[rng.random(signal.shape) < 0.1] = np.nan
    mask = rng.random(signal.shape) < 0.85
    rows = drawn_rows(scans, {5, 22}, cap=8, extra=4)
    r_src = ScanRows(NumpyArrayRef("radius", radius), rows) if per_scan else radius
    env = scan_envelopes(r_src, ScanRows(NumpyArrayRef("signal", signal), rows),
                         ScanRows(NumpyArrayRef("mask", mask), rows), 0.0, 10.0, w, max_exact=0)
    lo, hi, counts = brute(radius[rows] if per_scan else radius, signal[rows], mask[rows],
                           0.0, 10.0, w)
    np.testing.assert_array_equal(env.lo, lo)
    np.testing.assert_array_equal(env.hi, hi)
    np.testing.assert_array_equal(env.counts, counts)
    full = scan_envelopes(radius, signal, mask, 0.0, 10.0, w, max_exact=0)
    part = envelope_rows(full, rows)  # the rows of envelopes already made: the same
    np.testing.assert_array_equal(part.lo, env.lo)
    np.testing.assert_array_equal(part.counts, env.counts)


@pytest.mark.parametrize("dark", [False, True])
def test_colours_on_demand_equal_the_per_scan_colours(qtbot, dark):
    import pyqtgraph as pg

    from inspector.ui.plots.auc_colors import ScanColors
    from inspector.ui.plots.auc_scans import cell_colors

    rng = np.random.default_rng(int(dark))
    cells = [str(c) for c in rng.integers(0, 13, 500)]  # more cells than hues
    codes = np.array([int(c) * 7 for c in cells])  # any codes: equal code, equal cell
    colors = ScanColors(codes, dark, pg.colormap.get("viridis"))
    want = cell_colors(cells, dark)
    assert len(colors) == 500
    assert [c.rgb() for c in colors.take(np.arange(500))] == [c.rgb() for c in want]
    assert colors[17] == want[17] and colors[-1] == want[-1]
    cmap = pg.colormap.get("viridis")
    one = ScanColors(np.zeros(9, dtype=int), dark, cmap)
    first = 0.3 if dark else 0.0
    assert list(one) == list(cmap.map(first + (0.9 - first) * np.arange(9) / 8, mode="qcolor"))


def test_the_view_of_many_scans_draws_every_kth_and_a_selected_one(qtbot, jobs, monkeypatch):
    from inspector.ui.plots import auc_drawing

    monkeypatch.setattr(auc_drawing, "MAX_DRAWN_SCANS", 10)
    rng = np.random.default_rng(9)
    scans, points = 47, 400
    radius = np.linspace(5.9, 7.2, points)
    signal = np.cumsum(rng.standard_normal((scans, points)), axis=1)
    mask = np.ones(signal.shape, bool)
    view, arrays = make_view(qtbot, jobs, radius, signal, mask)
    np.testing.assert_array_equal(view._rows, np.arange(0, scans, 5))
    assert view.scan_list.model_.rowCount() == scans  # the list: a row per scan
    assert "showing every 5th scan of 47" in view.status.text()
    # the points counted are those of the 10 scans drawn, and the status says so
    assert view.status.text().startswith("47 scans, 4,000 measured points of the scans drawn")
    env = view.envelopes
    assert env.lo.shape[0] == 10  # only the drawn scans' envelopes are held
    lo, hi, _ = brute(radius, signal[::5], mask[::5], env.r0, env.r1, env.columns)
    np.testing.assert_array_equal(env.lo, lo)
    np.testing.assert_array_equal(env.hi, hi)
    for i in range(scans):
        drawn = view.curve(i)[0].size > 0
        assert drawn == (i % 5 == 0)
    assert len(view.lines.order) == 10
    read_rows = max(sel[0].stop - sel[0].start for sel, _ in arrays["signal"].reads)
    assert read_rows <= scans
    view.select_scans({23})
    settle(qtbot, view, drawn=2)
    assert 23 in view._rows.tolist() and view.curve(23)[0].size > 0
    lo23, hi23, _ = brute(radius, signal[[23]], mask[[23]], view.envelopes.r0,
                          view.envelopes.r1, view.envelopes.columns)
    j = view._rows.tolist().index(23)
    np.testing.assert_array_equal(view.envelopes.lo[j], lo23[0])
    np.testing.assert_array_equal(view.envelopes.hi[j], hi23[0])
    assert view.highlights.order == [j]
    assert view.pen(23).width() == 3 and view.pen(24).width() == 1
    assert view.scan_ids[23] == "s23"


def test_the_list_of_a_million_scans_is_one_model_row_each(qtbot):
    """A million IDs: the list holds them as given (no copy, no item per row), its row
    count is the scan count, and a row deep in it answers its ID and colour."""
    import pyqtgraph as pg
    from PySide6.QtCore import Qt

    from inspector.ui.plots.auc_colors import ScanColors
    from inspector.ui.plots.scan_list import ScanList

    ids = [f"s{i:07d}" for i in range(1_000_000)]
    colors = ScanColors(np.zeros(len(ids), dtype=np.int32), False, pg.colormap.get("viridis"))
    view = ScanList(ids, colors)
    qtbot.addWidget(view)
    model = view.model_
    assert model.ids is ids and model.rowCount() == 1_000_000
    index = model.index(765_432)
    assert model.data(index, Qt.ItemDataRole.DisplayRole) == "s0765432"
    swatch = model.data(index, Qt.ItemDataRole.DecorationRole).pixmap(12, 12).toImage()
    assert swatch.pixelColor(6, 6).rgb() == colors[765_432].rgb()
    view.select_rows({765_432, 3})
    assert view.selected_rows() == {3, 765_432}


def test_runs_of_counts_equal_the_runs_made_one_value_at_a_time():
    """The Summary tree's runs of equal neighbours (one ``points_per_scan`` count per scan)
    are found with numpy for a list of ints: the same rows as the loop over values."""
    import random

    from inspector.formats.auc import structure as st

    def loop(items):
        rows, start = [], 0
        for i in range(1, len(items) + 1):
            if i == len(items) or type(items[i]) is not type(items[start]) \
                    or items[i] != items[start]:
                rows.append((str(start) if i - start == 1 else f"{start}–{i - 1}", items[start]))
                start = i
        return rows

    rng = random.Random(7)
    fast = 0
    for trial in range(400):
        items = [rng.choice([1, 2, 2, 3]) for _ in range(rng.randint(0, 60))]
        for every, odd in ((3, 2.0), (5, True), (7, 2**70)):
            if trial % every == 0 and items:
                items[rng.randrange(len(items))] = odd
        got = st._runs(items)
        assert got == loop(items)
        assert [type(v) for _k, v in got] == [type(v) for _k, v in loop(items)]
        fast += set(map(type, items)) == {int} and st._int_runs(items) is not None
    assert fast > 100  # the numpy path was taken, and agreed
