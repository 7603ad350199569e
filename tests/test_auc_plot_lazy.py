"""AUC scans plotted lazily: per-column envelopes (numpy as the oracle) and the view.

The envelopes of :mod:`inspector.formats.analysis.scan_envelope` are compared with a
brute-force per-column min/max (``np.fmin.at``) on random data with odd
sizes, NaN and infinite values, masked points, per-scan radii of different
lengths, descending and unsorted radii, every block size and both reduction
methods.  The view is checked for what it reads (never on the GUI thread,
nothing at construction, nothing to hide or highlight), for coalesced
requests, symbols when zoomed in, the untrusted-data note and the palette.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from inspector.formats.analysis import scan_envelope as se
from inspector.formats.analysis.arrays import EnvelopeCancelled, NumpyArrayRef
from inspector.formats.analysis.read_meter import ChunkMeter, metering
from inspector.formats.analysis.scan_envelope import scan_envelopes, scan_extent, scan_shape
from inspector.formats.auc.model import AucExperiment
from inspector.formats.capabilities import AucScans
from inspector.formats.decoding.workers import pool


# -- the oracle ---------------------------------------------------------------------
def brute(radius, signal, mask, r0, r1, w):
    """Per-scan min/max per column, one point at a time (``ufunc.at``), and counts."""
    scans, points = signal.shape
    lo = np.full((scans, w), np.inf)
    hi = np.full((scans, w), -np.inf)
    counts = np.zeros(scans, dtype=np.int64)
    for i in range(scans):
        r = np.asarray(radius if radius.ndim == 1 else radius[i], dtype=np.float64)
        m = np.ones(points, bool) if mask is None else mask[i]
        real = m & np.isfinite(r) & np.isfinite(signal[i]) & (r >= r0) & (r <= r1)
        cols = np.minimum(np.floor((r[real] - r0) * (w / (r1 - r0))).astype(int), w - 1)
        np.fmin.at(lo[i], cols, signal[i][real])
        np.fmax.at(hi[i], cols, signal[i][real])
        counts[i] = real.sum()
    lo[np.isinf(lo)] = np.nan
    hi[np.isinf(hi)] = np.nan
    return lo, hi, counts


def random_case(rng, *, scans, points, per_scan, order):
    if per_scan:
        radius = np.sort(rng.uniform(0, 10, (scans, points)), axis=1)
        lengths = rng.integers(0, points + 1, scans)  # per-scan radii of different lengths
        for i, n in enumerate(lengths):
            radius[i, n:] = np.nan
    else:
        radius = np.sort(rng.uniform(0, 10, points))
        if rng.random() < 0.3:
            radius = np.round(radius)  # many points per column, ties
    if order == "descending":
        radius = radius[..., ::-1].copy()
    elif order == "unsorted":
        radius = rng.permutation(radius.T).T.copy() if per_scan else rng.permutation(radius)
    signal = rng.standard_normal((scans, points)) * 10
    signal[rng.random(signal.shape) < 0.1] = np.nan
    signal[rng.random(signal.shape) < 0.02] = np.inf
    mask = rng.random(signal.shape) < 0.85
    if per_scan:
        mask &= np.isfinite(radius)
    return radius, signal, mask


def refs(radius, signal, mask):
    return (NumpyArrayRef("radius", radius), NumpyArrayRef("signal", signal),
            None if mask is None else NumpyArrayRef("mask", mask))


def check_points(env, radius, signal, mask, max_exact):
    """Exact points: every real point in the range, at its own position, plus neighbours."""
    for i, pts in enumerate(env.points):
        if pts is None:
            assert env.counts[i] == 0 or env.counts[i] > max_exact  # envelope only
            continue
        assert env.counts[i] <= max_exact
        r = radius if radius.ndim == 1 else radius[i]
        m = np.ones(signal.shape[1], bool) if mask is None else mask[i]
        real = m & np.isfinite(r) & np.isfinite(signal[i])
        inside = real & (r >= env.r0) & (r <= env.r1)
        drawn = np.isfinite(pts.y)
        assert np.isfinite(pts.x[drawn]).all()
        got = set(zip(pts.x[drawn].tolist(), pts.y[drawn].tolist(), strict=True))
        want = set(zip(r[inside].tolist(), signal[i][inside].tolist(), strict=True))
        assert want <= got and len(got) <= len(want) + 2
        if not pts.collapsed:
            at = pts.start + np.flatnonzero(drawn)
            assert real[at].all()
            np.testing.assert_array_equal(pts.x[drawn], r[at])
            np.testing.assert_array_equal(pts.y[drawn], signal[i][at])


@pytest.mark.parametrize("row_method", [1, 10**9])
@pytest.mark.parametrize("per_scan", [False, True])
@pytest.mark.parametrize("order", ["ascending", "descending", "unsorted"])
@pytest.mark.slow
def test_envelopes_match_brute_force(monkeypatch, row_method, per_scan, order):
    monkeypatch.setattr(se, "ROW_METHOD_POINTS", row_method)
    rng = np.random.default_rng(hash((row_method, per_scan, order)) % 2**32)
    for _ in range(40):
        scans, points, w = (int(rng.integers(1, n)) for n in (8, 70, 29))
        radius, signal, mask = random_case(rng, scans=scans, points=points, per_scan=per_scan,
                                           order=order)
        if rng.random() < 0.2:
            mask = None
        r0, r1 = sorted(rng.uniform(-1, 11, 2))
        if r1 - r0 < 1e-6:
            continue
        block = int(rng.choice([1, 2, 7, 33, 1 << 18]))
        args = refs(radius, signal, mask) if rng.random() < 0.5 else (radius, signal, mask)
        max_exact = int(rng.integers(0, 50))
        threads = int(rng.choice([1, 2, 3]))  # scans shared among threads of the worker pool
        env = scan_envelopes(*args, r0, r1, w, block_points=block, max_exact=max_exact,
                             executor=pool() if threads > 1 else None, parallel=threads)
        lo, hi, counts = brute(radius, signal, mask, r0, r1, w)
        assert env.lo.shape == env.hi.shape == (scans, w) and env.lo.dtype == np.float64
        np.testing.assert_array_equal(env.lo, lo)
        np.testing.assert_array_equal(env.hi, hi)
        np.testing.assert_array_equal(env.counts, counts)
        check_points(env, radius, signal, mask, max_exact)


def test_large_blocks_split_scans_and_both_methods_agree(monkeypatch):
    rng = np.random.default_rng(7)
    radius, signal, mask = random_case(rng, scans=9, points=5001, per_scan=True, order="ascending")
    want = brute(radius, signal, mask, 2.5, 7.25, 333)
    for row_method in (1, 10**9):
        monkeypatch.setattr(se, "ROW_METHOD_POINTS", row_method)
        for block in (1000, 5001, 1 << 18):  # pieces of scans, one scan, several scans per block
            env = scan_envelopes(*refs(radius, signal, mask), 2.5, 7.25, 333, block_points=block,
                                 executor=pool(), parallel=2)
            np.testing.assert_array_equal(env.lo, want[0])
            np.testing.assert_array_equal(env.hi, want[1])
            np.testing.assert_array_equal(env.counts, want[2])
            check_points(env, radius, signal, mask, 2 * 333)


def test_every_point_lies_in_its_column():
    rng = np.random.default_rng(3)
    radius = np.sort(rng.uniform(5.9, 7.2, 997))
    signal = rng.standard_normal((3, 997))
    env = scan_envelopes(radius, signal, None, 5.9, 7.2, 101, max_exact=0)
    edges = env.edges()
    assert edges[0] == 5.9 and edges[-1] == pytest.approx(7.2) and len(env.centers()) == 101
    for c in range(101):
        inside = (radius >= edges[c]) & (radius < edges[c + 1]) if c < 100 else (radius >= edges[c])
        if inside.any():
            assert env.lo[0, c] == signal[0, inside].min()
            assert env.hi[0, c] == signal[0, inside].max()
        else:
            assert np.isnan(env.lo[0, c]) and np.isnan(env.hi[0, c])


def test_curve_is_a_zigzag_broken_at_empty_columns():
    radius = np.array([0.5, 0.6, 2.5, 2.6, 3.5])
    signal = np.array([[1.0, 3.0, -1.0, 5.0, 7.0]])
    env = scan_envelopes(radius, signal, None, 0.0, 4.0, 4, max_exact=0)
    x, y = env.curve(0)
    # columns 0 (two points), 2 and 3; column 1 is empty: a break after column 0
    np.testing.assert_array_equal(x, [0.5, 0.5, np.nan, 2.5, 2.5, 3.5, 3.5])
    np.testing.assert_array_equal(y, [1.0, 3.0, np.nan, -1.0, 5.0, 7.0, 7.0])
    assert env.points == (None,)


def test_exact_points_keep_masked_breaks_and_reach_past_the_range():
    radius = np.arange(10.0)
    signal = np.arange(10.0)[None, :] * 2
    mask = np.ones((1, 10), bool)
    mask[0, 5] = False
    env = scan_envelopes(radius, signal, mask, 3.5, 6.5, 50)
    pts = env.points[0]
    # real points 4 and 6 in range, neighbours 3 and 7 outside, position 5 masked: a break
    assert pts.start == 3 and not pts.collapsed
    np.testing.assert_array_equal(pts.x, [3.0, 4.0, np.nan, 6.0, 7.0])
    np.testing.assert_array_equal(pts.y, [6.0, 8.0, np.nan, 12.0, 14.0])
    assert env.counts[0] == 2 and pts.count == 4


def test_exact_points_collapse_long_padding():
    radius = np.full((1, 5000), np.nan)
    radius[0, :3] = [1.0, 2.0, 3.0]
    radius[0, 4000] = 4.0
    signal = np.where(np.isfinite(radius), 1.0, np.nan)
    mask = np.isfinite(radius)
    env = scan_envelopes(radius, signal, mask, 0.0, 10.0, 2)
    pts = env.points[0]
    assert pts.collapsed and len(pts.x) == 5
    np.testing.assert_array_equal(pts.x, [1.0, 2.0, 3.0, np.nan, 4.0])


def test_scan_without_real_point_has_nothing():
    radius = np.linspace(0, 1, 20)
    signal = np.ones((3, 20))
    mask = np.ones((3, 20), bool)
    mask[1] = False
    signal[2] = np.nan
    env = scan_envelopes(radius, signal, mask, 0.0, 1.0, 10)
    assert list(env.counts) == [20, 0, 0]
    for i in (1, 2):
        x, y = env.curve(i)
        assert x.size == y.size == 0 and env.points[i] is None


def test_extent():
    radius = np.array([[np.nan, 2.0, 3.0], [1.5, 9.0, np.nan]])
    mask = np.array([[False, True, True], [True, False, False]])  # 9.0 is not a real point
    assert scan_extent(radius, np.zeros((2, 3)), mask) == (1.5, 3.0)
    assert scan_extent(np.array([3.0, np.nan, -1.0]), np.zeros((4, 3)), None) == (-1.0, 3.0)
    assert scan_extent(np.full(3, np.nan), np.zeros((1, 3)), None) is None
    ext = scan_extent(*refs(radius, np.zeros((2, 3)), mask), block_points=1)
    assert ext == (1.5, 3.0)


@pytest.mark.parametrize(("radius", "signal", "mask", "text"), [
    (np.zeros(4), np.zeros((2, 5)), None, "radius shape (4,)"),
    (np.zeros(5), np.zeros((2, 5, 1)), None, "2-D"),
    (np.zeros(5), np.zeros((2, 5)), np.ones((2, 4), bool), "mask shape"),
    (np.zeros(5), np.zeros((2, 5)), np.ones((2, 5), np.int8), "not bool"),
    (np.zeros(5), np.zeros((2, 5), complex), None, "real number"),
])
def test_shapes_that_do_not_fit(radius, signal, mask, text):
    with pytest.raises(ValueError, match=text.replace("(", r"\(").replace(")", r"\)")):
        scan_shape(radius, signal, mask)
    with pytest.raises(ValueError):
        scan_envelopes(radius, signal, mask, 0.0, 1.0, 10)


def test_range_and_columns_checked_and_cancel():
    r, s = np.arange(4.0), np.zeros((2, 4))
    for r0, r1, w in ((1.0, 1.0, 5), (2.0, 1.0, 5), (0.0, np.inf, 5), (0.0, 1.0, 0)):
        with pytest.raises(ValueError):
            scan_envelopes(r, s, None, r0, r1, w)
    with pytest.raises(EnvelopeCancelled):
        scan_envelopes(r, s, None, 0.0, 3.0, 5, cancelled=lambda: True)
    with pytest.raises(EnvelopeCancelled):
        scan_envelopes(r, s, None, 0.0, 3.0, 5, cancelled=lambda: True, executor=pool())
    seen: list[tuple[int, int]] = []
    meter = ChunkMeter(0, lambda d, t: seen.append((d, t)))
    with metering(meter):  # two blocks of one scan each, reported as each is read
        scan_envelopes(r, s, None, 0.0, 3.0, 5, block_points=4)
        scan_envelopes(r, s, None, 0.0, 3.0, 5, block_points=4)  # the same blocks again
    assert sorted(set(seen)) == [(0, 2), (1, 2), (2, 2)] and (meter.done, meter.needed) == (2, 2)


class RecordingRef(NumpyArrayRef):
    """Records every read (selection, element count, thread); may block on a gate."""

    def __init__(self, name, a, gate=None):
        super().__init__(name, a)
        self.reads = []
        self.threads = set()
        self.gate = gate

    def read(self, selection=Ellipsis):
        if self.gate is not None:
            self.gate.wait(5)
        out = super().read(selection)
        self.reads.append((selection, out.size))
        self.threads.add(threading.get_ident())
        return out


def test_reads_are_bounded_blocks_in_scan_order():
    rng = np.random.default_rng(5)
    signal = RecordingRef("signal", rng.standard_normal((64, 3000)))
    mask = RecordingRef("mask", np.ones((64, 3000), bool))
    radius = RecordingRef("radius", np.linspace(0, 1, 3000))
    env = scan_envelopes(radius, signal, mask, 0.0, 1.0, 200, block_points=8000)
    assert max(n for _, n in signal.reads) <= 8000 and max(n for _, n in mask.reads) <= 8000
    starts = [sel[0].start for sel, _ in signal.reads]
    assert starts == sorted(starts) and sum(n for _, n in signal.reads) == 64 * 3000  # each once
    want = brute(radius.read(), signal.read(), mask.read(), 0.0, 1.0, 200)
    np.testing.assert_array_equal(env.hi, want[1])
    # a zoomed range reads only the window of a sorted shared axis (plus one point each side)
    signal.reads.clear()
    scan_envelopes(radius, signal, mask, 0.5, 0.51, 200, block_points=8000)
    assert all(sel[1].stop - sel[1].start <= 32 for sel, _ in signal.reads)


# -- the view -----------------------------------------------------------------------

def make_view(qtbot, jobs, radius, signal, mask, *, ids=None, untrusted=(), gate=None, show=True,
              parent=None):
    from inspector.ui.plots.auc import AucView

    arrays = {"radius": RecordingRef("radius", radius, gate),
              "signal": RecordingRef("signal", signal, gate)}
    if mask is not None:
        arrays["mask"] = RecordingRef("mask", mask, gate)
    n = signal.shape[0]
    auc = AucScans(scan_ids=tuple(ids or [f"s{i}" for i in range(n)]), radius_unit="cm",
                   signal_unit="AU", untrusted_arrays=frozenset(untrusted))
    view = AucView(auc, arrays, jobs, parent)
    if parent is None:
        qtbot.addWidget(view)
    view.resize(900, 450)
    if show:
        view.show()
        settle(qtbot, view)
    return view, arrays


def settle(qtbot, view, drawn=1):
    qtbot.waitUntil(lambda: view.drawn >= drawn and not view.busy and view.ready, timeout=10_000)
    qtbot.wait(20)
    qtbot.waitUntil(lambda: not view.busy, timeout=10_000)


def big_case(scans=12, points=6000):
    rng = np.random.default_rng(11)
    radius = np.linspace(5.9, 7.2, points)
    signal = np.cumsum(rng.standard_normal((scans, points)), axis=1)
    mask = np.ones((scans, points), bool)
    return radius, signal, mask


def test_view_reads_nothing_at_construction_and_nothing_on_the_gui_thread(qtbot, jobs):
    radius, signal, mask = big_case()
    view, arrays = make_view(qtbot, jobs, radius, signal, mask, show=False)
    assert all(not ref.reads for ref in arrays.values())  # constructing reads nothing
    view.show()
    settle(qtbot, view)
    assert arrays["signal"].reads
    gui = threading.main_thread().ident
    assert all(gui not in ref.threads for ref in arrays.values())


def test_view_draws_the_envelope_of_every_scan(qtbot, jobs):
    radius, signal, mask = big_case()
    view, _ = make_view(qtbot, jobs, radius, signal, mask)
    env = view.envelopes
    assert env.columns >= 100 and env.r0 <= 5.9 and env.r1 >= 7.2  # the whole data
    lo, hi, counts = brute(radius, signal, mask, env.r0, env.r1, env.columns)
    np.testing.assert_array_equal(env.lo, lo)
    np.testing.assert_array_equal(env.hi, hi)
    assert counts.sum() == signal.size
    curves = view.curves()
    assert [c[0] for c in curves] == [f"s{i}" for i in range(12)]
    for i, (_, x, y) in enumerate(curves):
        ex, ey = env.curve(i)
        np.testing.assert_array_equal(x, ex)
        np.testing.assert_array_equal(y, ey)
        assert len(y) <= 2 * env.columns + env.columns  # a few points per pixel, whatever the scan
        assert np.nanmin(y) == signal[i].min() and np.nanmax(y) == signal[i].max()
    import pyqtgraph as pg  # the line painted is the one the job built: same path as pyqtgraph's

    x, y = view.curve(5)
    assert view.path(5) == pg.arrayToQPath(x, y, connect="finite")
    assert not view.symbols_shown  # no symbols on 6000 points per scan
    assert view.plot_item.legend is None  # the list is the legend: nothing covers the data
    assert view.scan_list.count() == 12 and not view.scan_list.item(0).icon().isNull()


def test_zoom_shows_real_points_with_symbols(qtbot, jobs):
    radius, signal, mask = big_case()
    mask[3, 2000:2010] = False
    view, _ = make_view(qtbot, jobs, radius, signal, mask)
    before = view.submitted
    r0, r1 = radius[1995], radius[2030]
    view.plot_item.vb.setXRange(r0, r1, padding=0)
    settle(qtbot, view, view.drawn + 1)
    assert view.submitted == before + 1
    env = view.envelopes
    assert env.r0 <= r0 and env.r1 >= r1 and all(p is not None for p in env.points)
    assert view.symbols_shown
    sx, sy = view.symbols.getData()
    assert len(sx) == sum(int(np.isfinite(y).sum()) for _, _, y in view.curves())  # one per point
    _, x, y = view.curves()[3]
    drawn = np.isfinite(y)
    real = (radius >= env.r0) & (radius <= env.r1) & mask[3]
    assert set(x[drawn]) >= set(radius[real]) and not (set(x[drawn]) & set(radius[2000:2010]))
    np.testing.assert_array_equal(y[drawn], signal[3][np.isin(radius, x[drawn])])
    # the y axis fits what is visible (auto-range follows the zoom)
    def y_span():
        (_, (y0, y1)) = view.plot_item.vb.viewRange()
        return y1 - y0

    qtbot.waitUntil(lambda: y_span() < 0.5 * (signal.max() - signal.min()), timeout=5000)
    (x0, x1), (y0, y1) = view.plot_item.vb.viewRange()
    seen = signal[:, (radius >= x0) & (radius <= x1)]
    assert y0 <= seen.min() and y1 >= seen.max()
    # zooming out again returns to envelopes without symbols
    view.plot_item.vb.setXRange(5.9, 7.2, padding=0)
    settle(qtbot, view, view.drawn + 1)
    assert not view.symbols_shown and len(view.symbols.getData()[0]) == 0


def test_requests_are_coalesced_one_in_flight_plus_the_latest(qtbot, jobs):
    radius, signal, mask = big_case()
    gate = threading.Event()
    gate.set()
    view, arrays = make_view(qtbot, jobs, radius, signal, mask, gate=gate)
    before, drawn = view.submitted, view.drawn
    gate.clear()  # the next job blocks in its first read
    vb = view.plot_item.vb
    vb.setXRange(6.0, 7.0, padding=0)
    assert view.submitted == before + 1 and view.busy
    for k in range(10):  # a burst of zoom steps while it runs
        vb.setXRange(6.0 + k * 0.01, 6.5 - k * 0.01, padding=0)
    assert view.submitted == before + 1  # nothing more submitted during the burst
    gate.set()
    settle(qtbot, view, drawn + 2)
    assert view.submitted == before + 2  # then exactly one: the latest view
    env = view.envelopes
    assert env.r0 <= 6.09 and env.r1 >= 6.41


def test_hide_and_highlight_read_nothing(qtbot, jobs):
    radius, signal, mask = big_case()
    view, arrays = make_view(qtbot, jobs, radius, signal, mask)
    reads, submitted = len(arrays["signal"].reads), view.submitted
    view.set_visible(1, False)
    assert len(view.curves()) == 11 and not view.is_shown(1)
    view.highlight(2)
    assert view.pen(2).width() == 3
    assert view.pen(0).color().alpha() == 50
    view.highlight(None)
    assert view.pen(2).widthF() == 1
    qtbot.wait(50)
    assert len(arrays["signal"].reads) == reads and view.submitted == submitted


def test_untrusted_arrays_are_noted_on_the_plot(qtbot, jobs):
    radius, signal, mask = big_case(3, 50)
    view, _ = make_view(qtbot, jobs, radius, signal, mask, untrusted={"signal"})
    assert view.note == "signal.npy failed its checksum: values shown are not verified"
    assert view.note in view.plot_item.titleLabel.text
    view2, arrays = make_view(qtbot, jobs, radius, signal, mask)
    assert view2.note == "" and not view2.plot_item.titleLabel.text
    reads = len(arrays["signal"].reads)
    view2.set_untrusted({"mask"})  # a verification that ends after the plot is shown
    assert view2.note == "mask.npy failed its checksum: values shown are not verified"
    assert view2.note in view2.plot_item.titleLabel.text and len(arrays["signal"].reads) == reads
    view2.set_untrusted(())
    assert view2.note == "" and not view2.plot_item.titleLabel.isVisible()
    from inspector.ui.plots.auc_scans import untrusted_note

    two = AucScans(scan_ids=("a",), untrusted_arrays=frozenset({"signal", "radius"}))
    assert untrusted_note(two, {}) == ("radius.npy and signal.npy failed their checksums: "
                                       "values shown are not verified")


def test_scans_without_a_real_point_draw_nothing(qtbot, jobs):
    radius, signal, mask = big_case(4, 300)
    mask[1] = False
    signal[2] = np.nan
    view, _ = make_view(qtbot, jobs, radius, signal, mask)
    assert [name for name, _, _ in view.curves()] == ["s0", "s3"]  # nothing drawn for s1, s2
    for i in (1, 2):
        x, _ = view.curve(i)
        assert len(x) == 0 and view.path(i).isEmpty()  # not an all-NaN curve either
    assert all(np.isfinite(y).sum() == 300 for _, _, y in view.curves())  # every real point


def test_palette_dark_skips_viridis_darkest_end(qtbot, jobs):
    import pyqtgraph as pg
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QWidget

    radius, signal, mask = big_case(3, 50)
    cmap = pg.colormap.get("viridis")
    light, _ = make_view(qtbot, jobs, radius, signal, mask, show=False)
    dark_parent = QWidget()
    qtbot.addWidget(dark_parent)
    pal = dark_parent.palette()
    pal.setColor(QPalette.ColorRole.Base, QColor("#202020"))
    dark_parent.setPalette(pal)
    dark, _ = make_view(qtbot, jobs, radius, signal, mask, show=False, parent=dark_parent)
    base = light.palette().color(QPalette.ColorRole.Base).lightness()
    first_light = 0.3 if base < 128 else 0.0
    assert light.colors[0] == cmap.map(first_light, mode="qcolor")
    assert dark.colors[0] == cmap.map(0.3, mode="qcolor")
    assert dark.colors[-1] == cmap.map(0.9, mode="qcolor")


def test_loaded_experiment_needs_no_arrays(qtbot, jobs):
    from inspector.ui.plots.auc import AucView

    radius = np.array([[1.0, 2.0, 3.0, np.nan], [1.5, 2.5, np.nan, np.nan]])
    signal = np.array([[1.0, 2.0, 3.0, np.nan], [4.0, 5.0, np.nan, np.nan]])
    mask = np.isfinite(radius)
    exp = AucExperiment({"experiment_id": "e"}, None, [], [], None, "per_scan", "cm", "AU",
                        ["a", "b"], radius, signal, mask)
    view = AucView(AucScans(scan_ids=("a", "b"), radius_unit="cm", experiment=exp), {}, jobs)
    qtbot.addWidget(view)
    view.show()
    settle(qtbot, view)
    (_, x0, y0), (_, x1, y1) = view.curves()
    np.testing.assert_array_equal(x0[np.isfinite(y0)], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(y1[np.isfinite(y1)], [4.0, 5.0])
    assert view.symbols_shown and len(view.symbols.getData()[0]) == 5


def test_missing_or_damaged_arrays_raise(qtbot, jobs):
    from inspector.ui.plots.auc import AucView

    with pytest.raises(ValueError, match="'signal'"):
        AucView(AucScans(scan_ids=()), {"radius": NumpyArrayRef("radius", np.zeros(3))}, jobs)
    bad = {"radius": NumpyArrayRef("radius", np.zeros(3)),
           "signal": NumpyArrayRef("signal", np.zeros((2, 4)))}
    with pytest.raises(ValueError, match="radius shape"):
        AucView(AucScans(scan_ids=("a", "b")), bad, jobs)


def test_no_scans_placeholder(qtbot, jobs):
    view, _ = make_view(qtbot, jobs, np.zeros(0), np.zeros((0, 0)), None, show=False)
    assert view.placeholder_text() == "No scans to plot."


class BrokenRef(NumpyArrayRef):
    def read(self, selection=Ellipsis):
        raise OSError("arrays/signal.npy: array data is shorter than its header says")


class FailsLate(NumpyArrayRef):
    """Reads fail from the scan ``bad`` on: the other threads stop, the error is raised."""

    def __init__(self, name, a, bad):
        super().__init__(name, a)
        self.bad = bad

    def read(self, selection=Ellipsis):
        if selection[0].start >= self.bad:
            raise OSError("member changed since it was opened")
        return super().read(selection)


def test_a_read_error_in_one_thread_is_raised():
    sig = FailsLate("signal", np.zeros((40, 100)), bad=30)
    with pytest.raises(OSError, match="changed"):
        scan_envelopes(np.arange(100.0), sig, None, 0.0, 99.0, 10, block_points=100,
                       executor=pool(), parallel=3)


def test_unreadable_arrays_say_why(qtbot, jobs):
    from inspector.ui.plots.auc import AucView

    arrays = {"radius": NumpyArrayRef("radius", np.arange(5.0)),
              "signal": BrokenRef("signal", np.zeros((2, 5)))}
    view = AucView(AucScans(scan_ids=("a", "b")), arrays, jobs)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.placeholder_text() is not None, timeout=10_000)
    assert "shorter than its header" in view.placeholder_text() and view.curves() == []


def test_one_dimensional_signal_is_one_scan():
    env = scan_envelopes(np.array([[1.0, 2.0, 3.0]]), np.array([4.0, 5.0, 6.0]), None, 0.0, 4.0, 4)
    np.testing.assert_array_equal(env.lo, [[np.nan, 4.0, 5.0, 6.0]])
    env = scan_envelopes(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]), None, 0.0, 4.0, 4)
    np.testing.assert_array_equal(env.hi, [[np.nan, 4.0, 5.0, 6.0]])


def test_value_range_is_what_is_drawn_in_the_range():
    rng = np.random.default_rng(9)
    radius, signal, mask = random_case(rng, scans=6, points=400, per_scan=True, order="ascending")
    env = scan_envelopes(radius, signal, mask, 0.0, 10.0, 50, max_exact=150)
    assert any(p is not None for p in env.points) and any(p is None for p in env.points)
    shown = np.array([True, False, True, True, False, True])
    for x0, x1 in ((0.0, 10.0), (2.0, 3.3), (9.99, 10.0)):
        ys = [y[(x >= x0) & (x <= x1) & np.isfinite(y)]
              for i, (x, y) in enumerate(env.curve(i) for i in range(6)) if shown[i]]
        ys = np.concatenate(ys)
        want = (ys.min(), ys.max()) if ys.size else None
        assert env.value_range(x0, x1, shown) == want
    assert env.value_range(20.0, 30.0) is None


def test_delimited_and_aucx_demo_plot_the_same_points(qtbot, jobs):
    """The demo experiment as a CSV scan table and as its AUCX export: the same curves."""
    from inspector.formats import open_document
    from inspector.ui.plots.auc import AucView
    from tests.conftest import FIXTURES

    drawn = []
    for path in (FIXTURES / "auc-delimited" / "demo_experiment" / "scans.csv",
                 FIXTURES / "aucx" / "src_demo_experiment.aucx"):
        doc = open_document(path)
        assert doc.auc is not None  # both readers offer the experiment
        view = AucView(doc.auc, doc.arrays, jobs)
        qtbot.addWidget(view)
        view.show()
        settle(qtbot, view)
        drawn.append(view.curves())
        doc.close()
    ids = [f"scan_00{i}" for i in (1, 2, 3, 4)]
    assert [c[0] for c in drawn[0]] == [c[0] for c in drawn[1]] == ids
    for (_, x0, y0), (_, x1, y1) in zip(*drawn, strict=True):
        assert np.isfinite(y0).sum() == 12
        np.testing.assert_array_equal(x0, x1)
        np.testing.assert_array_equal(y0, y1)
