"""The full-range AUC envelopes built while an archive is verified, against the lazy pass.

:class:`~inspector.formats.analysis.scan_envelope.EnvelopeBuilder` (pieces handed in
by a streaming reader) and the envelopes the AUCX verification builds from
the bytes it hashes (``AucScans.overview``) must equal
:func:`~inspector.formats.analysis.scan_envelope.scan_envelopes` over the same data,
bit for bit (which itself is checked against a brute-force numpy oracle in
``test_auc_plot_lazy.py``; here numpy's ``fmin.at`` is the oracle too): shared
and per-scan radius, masked points, NaN and infinite values, descending and
unsorted radii, several block sizes.  Power-of-two rebinning must equal the
lazy pass at the coarser resolution.  A member failing its checksum is
marked; a member whose stream is damaged gives no overview (the plot then
reads it itself); the command line's open builds none.
"""

from __future__ import annotations

import hashlib
import io
import threading
import zipfile

import numpy as np
import pytest
from test_auc_plot_lazy import brute  # the oracle: one point at a time (ufunc.at)

from inspector.formats import open_document
from inspector.formats.analysis import scan_envelope as se
from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.analysis.scan_envelope import (
    OVERVIEW_COLUMNS,
    EnvelopeBuilder,
    framed_range,
    rebinned,
    scan_envelopes,
    scan_extent,
    scan_pieces,
    scan_shape,
)
from inspector.formats.auc.model import AucExperiment
from inspector.formats.aucx import overview as ov
from inspector.formats.aucx import reader as aucx_reader
from inspector.formats.aucx import write_aucx
from inspector.formats.capabilities import AucScans


# -- oracle and comparison ------------------------------------------------------------
def assert_same(got, want):
    """Two ScanEnvelopes equal bit for bit, exact points included."""
    assert (got.r0, got.r1, got.columns) == (want.r0, want.r1, want.columns)
    np.testing.assert_array_equal(got.lo, want.lo)
    np.testing.assert_array_equal(got.hi, want.hi)
    np.testing.assert_array_equal(got.counts, want.counts)
    assert len(got.points) == len(want.points)
    for p, q in zip(got.points, want.points, strict=True):
        assert (p is None) == (q is None)
        if p is not None:
            assert (p.start, p.collapsed) == (q.start, q.collapsed)
            np.testing.assert_array_equal(p.x, q.x)
            np.testing.assert_array_equal(p.y, q.y)
#: A scan's elapsed time as openauc's ScanMetadata requires one.
ELAPSED = {"value": 0.0, "unit": "s", "status": "present"}


def assert_oracle(env, radius, signal, mask):
    lo, hi, counts = brute(radius, signal, mask, env.r0, env.r1, env.columns)
    np.testing.assert_array_equal(env.lo, lo)
    np.testing.assert_array_equal(env.hi, hi)
    np.testing.assert_array_equal(env.counts, counts)


def random_case(rng, *, scans, points, per_scan, order):
    if per_scan:
        radius = np.sort(rng.uniform(0, 10, (scans, points)), axis=1)
        for i, n in enumerate(rng.integers(0, points + 1, scans)):  # rows of different lengths
            radius[i, n:] = np.nan
    else:
        radius = np.sort(rng.uniform(0, 10, points))
    if order == "descending":
        radius = radius[..., ::-1].copy()
    elif order == "unsorted":
        radius = rng.permutation(radius.T).T.copy() if per_scan else rng.permutation(radius)
    signal = rng.standard_normal((scans, points)) * 10
    signal[rng.random(signal.shape) < 0.1] = np.nan
    signal[rng.random(signal.shape) < 0.02] = -np.inf
    mask = rng.random(signal.shape) < 0.85
    if per_scan:
        mask &= np.isfinite(radius)
    return radius, signal, mask


# -- the builder ------------------------------------------------------------------------
@pytest.mark.parametrize("per_scan", [False, True])
@pytest.mark.parametrize("order", ["ascending", "descending", "unsorted"])
@pytest.mark.slow
def test_builder_equals_the_lazy_pass_and_numpy(per_scan, order):
    rng = np.random.default_rng(hash((per_scan, order)) % 2**32)
    done = 0
    for _ in range(60):
        scans, points = int(rng.integers(1, 9)), int(rng.integers(1, 70))
        radius, signal, mask = random_case(rng, scans=scans, points=points, per_scan=per_scan,
                                           order=order)
        if rng.random() < 0.2:
            mask = None
        shape = scan_shape(radius, signal, mask)
        ext = scan_extent(radius, signal, mask)
        if ext is None:
            continue
        r0, r1 = framed_range(ext)
        w = int(rng.choice([8, 16, 64]))
        b = EnvelopeBuilder(shape, r0, r1, w, shared_radius=None if per_scan else radius)
        for rows, q0, q1 in scan_pieces(shape, int(rng.choice([1, 5, 17, 1 << 18]))):
            b.add(rows.start, q0, signal[rows, q0:q1],
                  None if mask is None else mask[rows, q0:q1],
                  radius[rows, q0:q1] if per_scan else None)
        env = b.result()
        assert_same(env, scan_envelopes(radius, signal, mask, r0, r1, w))
        assert_oracle(env, radius, signal, mask)
        for k in (2, 4, 8):  # power-of-two rebinning is the lazy pass at w // k columns
            assert_same(rebinned(env, k), scan_envelopes(radius, signal, mask, r0, r1, w // k))
        for i, (x, y) in enumerate(env.curves()):  # built together, as one by one
            np.testing.assert_array_equal(x, env.curve(i)[0])
            np.testing.assert_array_equal(y, env.curve(i)[1])
        done += 1
    assert done > 30


def test_rebinning_rules_and_pixel_choice():
    radius = np.linspace(0.0, 1.0, 5000)
    signal = np.sin(np.arange(5000.0))[None, :].repeat(3, axis=0)
    env = scan_envelopes(radius, signal, None, *framed_range((0.0, 1.0)), 2048)
    with pytest.raises(ValueError, match="does not divide"):
        rebinned(env, 3)
    assert rebinned(env, 1) is env
    curves = env.curves()  # every column with a point is one run: one shared x array
    assert curves[0][0] is curves[2][0]
    for i, (x, y) in enumerate(curves):
        np.testing.assert_array_equal(x, env.curve(i)[0])
        np.testing.assert_array_equal(y, env.curve(i)[1])
    overview = se.ScanOverview((0.0, 1.0), env)
    assert overview.at_pixels(1200).columns == 1024  # 1.17 px a column, at most 1.25
    assert overview.at_pixels(1300).columns == 2048  # 1024 would be 1.27 px
    assert overview.at_pixels(700).columns == 1024
    assert overview.at_pixels(600).columns == 512
    assert overview.at_pixels(4000).columns == 2048  # wider than the overview: as it is
    assert se.ScanOverview(None, None).at_pixels(800) is None
    assert framed_range((2.0, 2.0)) == pytest.approx((2.0 - 0.001 - 0.02 * 0.002,
                                                      2.0 + 0.001 + 0.02 * 0.002))


def test_builder_needs_the_shared_axis():
    shape = scan_shape(np.arange(4.0), np.zeros((2, 4)), None)
    with pytest.raises(ValueError, match="shared radius"):
        EnvelopeBuilder(shape, 0.0, 1.0, 4)


# -- archives -----------------------------------------------------------------------------
def _base(scans, points, per_scan):
    radius = np.linspace(1.0, 2.0, points)
    ids = [f"s{i}" for i in range(scans)]
    return AucExperiment(
        metadata={"experiment_id": "overview-test", "name": "t"}, instrument=None, samples=[],
        scans=[{"scan_id": s, "index": i, "elapsed_time": ELAPSED}
               for i, s in enumerate(ids)], provenance=None,
        mode="per_scan" if per_scan else "shared", radius_unit="cm", signal_unit="AU",
        scan_ids=ids, radius=np.tile(radius, (scans, 1)) if per_scan else radius,
        signal=np.zeros((scans, points)), mask=np.ones((scans, points), bool))


def _npy(a):
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def archive(tmp_path, radius, signal, mask, *, stale=(), stored=False, name="a.aucx"):
    """An AUCX archive holding these arrays (written by the product's writer, then its
    array members replaced and their digests recorded again, except for the members in
    ``stale``, whose old digest is kept: they fail their checksum)."""
    scans, points = signal.shape
    base = tmp_path / f"base-{name}"
    write_aucx(_base(scans, points, radius.ndim == 2), base,
               exported_at="2026-01-01T00:00:00Z", overwrite=True)
    new = {"arrays/radius.npy": _npy(radius), "arrays/signal.npy": _npy(signal),
           "arrays/mask.npy": _npy(mask)}
    out = tmp_path / name
    with zipfile.ZipFile(base) as zin, zipfile.ZipFile(out, "w") as zout:
        lines = zin.read("checksums.sha256").decode().splitlines()
        digests = {ln.split("  ", 1)[1]: ln.split("  ", 1)[0] for ln in lines}
        for member, data in new.items():
            if member not in stale:
                digests[member] = hashlib.sha256(data).hexdigest()
        for info in zin.infolist():
            data = new.get(info.filename, zin.read(info))
            if info.filename == "checksums.sha256":
                data = "".join(f"{d}  {m}\n" for m, d in sorted(digests.items())).encode()
            if stored and info.filename in new:
                info.compress_type = zipfile.ZIP_STORED
            zout.writestr(info, data)
    return out


@pytest.fixture()
def lazy(monkeypatch):
    """Every archive's arrays stay lazy (none is loaded whole at open)."""
    monkeypatch.setattr(aucx_reader, "EXPERIMENT_LOAD_LIMIT", 0)


def verified(path, columns=OVERVIEW_COLUMNS):
    doc = open_document(path, auc_overview_columns=columns)
    assert doc.auc is not None and doc.auc.overview_pending == (columns > 0)
    doc.verify()
    assert not doc.auc.overview_pending
    return doc


def lazy_overview(doc):
    """What the plot computes without an overview: the lazy pass over the framed extent."""
    arrays = (doc.arrays["radius"], doc.arrays["signal"], doc.arrays.get("mask"))
    ext = scan_extent(*arrays)
    return ext, scan_envelopes(*arrays, *framed_range(ext), OVERVIEW_COLUMNS)


def _cases():
    rng = np.random.default_rng(7)
    scans, points = 6, 1500
    shared = np.sort(rng.uniform(5.9, 7.2, points))
    sig = np.cumsum(rng.standard_normal((scans, points)), axis=1)
    holes = sig.copy()
    holes[rng.random(sig.shape) < 0.05] = np.nan
    holes[0, 3] = np.inf
    ones = np.ones((scans, points), bool)
    masked = rng.random(sig.shape) < 0.9
    per = np.tile(shared, (scans, 1))
    for i in range(scans):
        per[i] += 0.01 * i
        per[i, points - 97 * i:] = np.nan  # rows of different lengths, NaN-padded
    per_mask = np.isfinite(per) & (rng.random(sig.shape) < 0.95)  # finite but masked out too
    return {
        "shared": (shared, sig, ones),
        "shared-nan-and-masked": (shared, holes, masked),
        "shared-descending": (shared[::-1].copy(), holes, masked),
        "per-scan": (per, holes, per_mask),
        "per-scan-descending": (per[:, ::-1].copy(), holes[:, ::-1].copy(),
                                per_mask[:, ::-1].copy()),
        "per-scan-float32-signal": (per, holes.astype(np.float32), per_mask),
    }


CASES = _cases()


@pytest.mark.parametrize("blocks", [(1 << 20, 1 << 18), (1000, 700), (7, 1499)])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.slow
def test_verification_overview_equals_the_lazy_pass(tmp_path, lazy, monkeypatch, case, blocks):
    # odd inflate blocks (elements split across blocks) and pieces splitting scans
    monkeypatch.setattr(ov, "BLOCK_BYTES", blocks[0])
    monkeypatch.setattr(ov, "PIECE_POINTS", blocks[1])
    if blocks[0] == 1000:  # every member inflated on one thread and hashed on another
        monkeypatch.setattr(ov, "PIPELINE_BYTES", 0)
    radius, signal, mask = CASES[case]
    stored = blocks[0] == 7
    with verified(archive(tmp_path, radius, signal, mask, stored=stored)) as doc:
        got = doc.auc.overview
        assert got is not None and got.untrusted == frozenset()
        assert doc.checksums.verified and all(m.status == "ok" for m in doc.checksums.members)
        ext, want = lazy_overview(doc)
        assert got.extent == ext
        assert_same(got.envelopes, want)
    assert_oracle(got.envelopes, radius, signal.astype(np.float64), mask)
    finite = np.isfinite(radius) & (mask if radius.ndim == 2 else True)
    assert ext == (radius[finite].min(), radius[finite].max())


def test_findings_and_digests_are_those_of_the_plain_pass(tmp_path, lazy):
    radius, signal, mask = CASES["shared-nan-and-masked"]
    path = archive(tmp_path, radius, signal, mask)
    with verified(path) as with_overview, verified(path, columns=0) as plain:
        assert plain.auc.overview is None
        assert [f.to_json() for f in with_overview.findings] == [
            f.to_json() for f in plain.findings]
        assert {f.code for f in plain.findings} >= {"array.shared-mask-not-all-true",
                                                     "array.non-finite"}
        assert with_overview.checksums == plain.checksums
        assert with_overview.summary == plain.summary


def test_command_line_open_builds_no_overview(tmp_path, lazy):
    radius, signal, mask = CASES["shared"]
    with open_document(archive(tmp_path, radius, signal, mask)) as doc:
        assert doc.checks[0].overview is None and not doc.auc.overview_pending
        doc.verify()
        assert doc.auc.overview is None


def test_loaded_experiment_gets_no_overview(tmp_path):
    radius, signal, mask = CASES["shared"]  # small: loaded whole at open, a plot reads memory
    with open_document(archive(tmp_path, radius, signal, mask),
                       auc_overview_columns=OVERVIEW_COLUMNS) as doc:
        assert doc.auc.experiment is not None and not doc.auc.overview_pending
        doc.verify()
        assert doc.auc.overview is None


def test_overview_memory_follows_the_scans_not_a_fixed_width(tmp_path, lazy, monkeypatch):
    radius, signal, mask = CASES["per-scan"]  # 6 scans
    path = archive(tmp_path, radius, signal, mask)
    monkeypatch.setattr(ov, "OVERVIEW_BYTES", 16 * 6 * 300)  # room for 256 columns, not 512
    with verified(path) as doc:
        got = doc.auc.overview
        assert got.envelopes.columns == 256
        ext, _ = lazy_overview(doc)
        arrays = (doc.arrays["radius"], doc.arrays["signal"], doc.arrays["mask"])
        assert_same(got.envelopes, scan_envelopes(*arrays, *framed_range(ext), 256))
    monkeypatch.setattr(ov, "OVERVIEW_BYTES", 16 * 6 * 63)  # under MIN_COLUMNS: none at all
    doc = open_document(path, auc_overview_columns=OVERVIEW_COLUMNS)
    with doc:
        assert not doc.auc.overview_pending and doc.checks[0].overview is None


def test_header_announcing_more_than_the_member_holds_gets_no_overview(tmp_path, lazy):
    radius, signal, mask = CASES["shared"]
    path = archive(tmp_path, radius, signal, mask)
    with zipfile.ZipFile(path) as zin:
        members = {i.filename: (i, zin.read(i)) for i in zin.infolist()}
    info, data = members["arrays/signal.npy"]
    out = tmp_path / "short.aucx"
    with zipfile.ZipFile(out, "w") as zout:
        for name, (i, d) in members.items():
            zout.writestr(i, d[:len(d) // 2] if name == "arrays/signal.npy" else d)
    doc = open_document(out, auc_overview_columns=OVERVIEW_COLUMNS)
    with doc:
        assert doc.auc is None or not doc.auc.overview_pending
        doc.verify()
        assert doc.auc is None or doc.auc.overview is None


@pytest.mark.parametrize("member,key", [("arrays/signal.npy", "signal"),
                                        ("arrays/radius.npy", "radius")])
def test_member_failing_its_checksum_is_marked(tmp_path, lazy, member, key):
    radius, signal, mask = CASES["per-scan"]
    with verified(archive(tmp_path, radius, signal, mask, stale=(member,))) as doc:
        got = doc.auc.overview
        assert doc.auc.untrusted_arrays == frozenset({key}) == got.untrusted
        assert {f.code for f in doc.findings} >= {"checksums.mismatch"}
        assert_same(got.envelopes, lazy_overview(doc)[1])  # the bytes as read, marked


def test_damaged_stream_gives_no_overview_but_every_digest(tmp_path, lazy):
    radius, signal, mask = CASES["shared"]
    path = archive(tmp_path, radius, signal, mask, stored=True)
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("arrays/signal.npy")
    at = info.header_offset + 30 + len(info.filename) + len(info.extra) + 500
    raw[at] ^= 0xFF  # one data byte of the stored signal: its CRC-32 no longer matches
    path.write_bytes(bytes(raw))
    with verified(path) as doc, verified(path, columns=0) as plain:
        assert doc.auc.overview is None
        assert doc.checksums == plain.checksums
        assert {"zip.crc-mismatch", "checksums.mismatch"} <= {f.code for f in doc.findings}
        assert doc.auc.untrusted_arrays == frozenset({"signal"})


def test_cancelled_verification_clears_the_pending_overview(tmp_path, lazy):
    radius, signal, mask = CASES["per-scan"]
    doc = open_document(archive(tmp_path, radius, signal, mask),
                        auc_overview_columns=OVERVIEW_COLUMNS)
    with doc:
        check = doc.checks[0]
        result = check.run(cancelled=lambda: True)
        assert not result.complete and result.auc is not None
        assert not result.auc.overview_pending and result.auc.overview is None
        doc.apply(check, result)
        assert not doc.auc.overview_pending and doc.checks == [check]
        doc.verify()  # a later run starts afresh and builds it
        assert doc.auc.overview is not None


def test_cancel_while_streaming_stops_every_thread(tmp_path, lazy, monkeypatch):
    monkeypatch.setattr(ov, "BLOCK_BYTES", 512)
    radius, signal, mask = CASES["per-scan"]
    doc = open_document(archive(tmp_path, radius, signal, mask),
                        auc_overview_columns=OVERVIEW_COLUMNS)
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 2

    with doc:
        before = threading.active_count()
        result = doc.checks[0].run(cancelled=cancelled)
        assert not result.complete and result.auc.overview is None
        assert threading.active_count() <= before


# -- the view -------------------------------------------------------------------------------

class CountingRef(NumpyArrayRef):
    """An array that counts its reads (the view must not read what the overview holds)."""

    def __init__(self, name, values):
        super().__init__(name, values)
        self.reads = 0

    def read(self, selection=Ellipsis):
        self.reads += 1
        return super().read(selection)


def _view(qtbot, jobs, auc, arrays):
    from inspector.ui.plots.auc import AucView

    view = AucView(auc, arrays, jobs)
    qtbot.addWidget(view)
    view.resize(900, 450)
    view.show()
    return view


def _settle(qtbot, view):
    qtbot.waitUntil(lambda: view.drawn >= 1 and not view.busy and view.ready, timeout=10_000)


def _overview_case(untrusted=frozenset()):
    rng = np.random.default_rng(3)
    radius = np.tile(np.linspace(5.9, 7.2, 12_000), (4, 1))  # more points than 2 a column
    radius[1, 9000:] = np.nan
    signal = np.cumsum(rng.standard_normal(radius.shape), axis=1)
    mask = np.isfinite(radius) & (rng.random(radius.shape) < 0.9)
    arrays = {"radius": CountingRef("radius", radius), "signal": CountingRef("signal", signal),
              "mask": CountingRef("mask", mask)}
    ext = scan_extent(radius, signal, mask)
    env = scan_envelopes(radius, signal, mask, *framed_range(ext), OVERVIEW_COLUMNS)
    auc = AucScans(scan_ids=tuple(f"s{i}" for i in range(signal.shape[0])), radius_unit="cm",
                   overview=se.ScanOverview(ext, env, untrusted), untrusted_arrays=untrusted)
    return (radius, signal, mask), arrays, auc


@pytest.mark.slow
def test_view_draws_the_overview_without_reading(qtbot, jobs):
    (radius, signal, mask), arrays, auc = _overview_case()
    view = _view(qtbot, jobs, auc, arrays)
    _settle(qtbot, view)
    assert all(ref.reads == 0 for ref in arrays.values())
    env = view.envelopes
    assert env.columns < OVERVIEW_COLUMNS and OVERVIEW_COLUMNS % env.columns == 0
    assert_same(env, scan_envelopes(radius, signal, mask, env.r0, env.r1, env.columns))
    assert view.extent == auc.overview.extent
    # a zoom asks the lazy pass for its range
    (x0, x1), _ = view.plot_item.vb.viewRange()
    view.plot_item.vb.setXRange(x0 + 0.45 * (x1 - x0), x0 + 0.5 * (x1 - x0), padding=0)
    qtbot.waitUntil(lambda: view.drawn >= 2 and not view.busy, timeout=10_000)
    assert arrays["signal"].reads > 0


def test_view_waits_for_a_pending_overview(qtbot, jobs):
    (_r, _s, _m), arrays, auc = _overview_case()
    from dataclasses import replace

    waiting = replace(auc, overview=None, overview_pending=True)
    view = _view(qtbot, jobs, waiting, arrays)
    qtbot.wait(200)
    assert view.submitted == 0 and view.status.text().endswith("verifying…")
    assert not view.is_idle()
    view.checks_over()  # the check ended without one: the view reads itself
    _settle(qtbot, view)
    assert arrays["signal"].reads > 0 and view.is_idle()


def test_overview_of_an_untrusted_member_is_noted(qtbot, jobs):
    _, arrays, auc = _overview_case(untrusted=frozenset({"signal"}))
    view = _view(qtbot, jobs, auc, arrays)
    _settle(qtbot, view)
    assert view.note == "signal.npy failed its checksum: values shown are not verified"
    marked_only = AucScans(scan_ids=auc.scan_ids, overview=auc.overview)  # the overview says so
    view2 = _view(qtbot, jobs, marked_only, arrays)
    _settle(qtbot, view2)
    assert view2.note == view.note


def test_window_plots_the_overview_its_verification_built(qtbot, tmp_path, lazy):
    from inspector.ui.main_window import MainWindow
    from inspector.ui.plots.auc import AucView

    radius, signal, mask = CASES["shared-descending"]
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1024, 640)
    win.open_paths([str(archive(tmp_path, radius, signal, mask))])
    qtbot.waitUntil(lambda: win.document_tabs() and win.document_tabs()[0].plot is not None
                    and win.document_tabs()[0].plot.view is not None, timeout=20_000)
    tab = win.document_tabs()[0]
    first = tab.plot.view
    qtbot.waitUntil(lambda: win.all_tabs_ready(), timeout=20_000)
    qtbot.waitUntil(lambda: tab.plots_idle(), timeout=20_000)
    view = tab.plot.view
    if first.auc.overview is None:  # built while the check ran: the same view takes it
        assert view is first
    assert isinstance(view, AucView) and tab.doc.auc.overview is not None
    assert view.auc.overview is tab.doc.auc.overview and view.submitted == 1  # nothing read
    env = view.envelopes
    assert OVERVIEW_COLUMNS % env.columns == 0
    assert_same(env, scan_envelopes(radius, signal, mask, env.r0, env.r1, env.columns))


def test_extent_from_the_envelopes_is_that_of_the_drawn_points():
    from inspector.ui.plots.auc_scans import drawn_extent, limits

    rng = np.random.default_rng(5)
    for _ in range(40):
        radius, signal, mask = random_case(rng, scans=int(rng.integers(1, 7)),
                                           points=int(rng.integers(1, 300)),
                                           per_scan=bool(rng.random() < 0.5),
                                           order="ascending")
        ext = scan_extent(radius, signal, mask)
        if ext is None:
            continue
        env = scan_envelopes(radius, signal, mask, *framed_range(ext), int(rng.choice([4, 32])),
                             max_exact=int(rng.choice([0, 20, 10_000])))
        curves = env.curves()
        lo_x, hi_x, lo_y, hi_y = limits(curves)
        box = drawn_extent(env, curves)
        if lo_x > hi_x:
            assert box.isNull()
            continue
        assert (box.left(), box.top()) == (lo_x, lo_y)
        assert box.right() == pytest.approx(hi_x) and box.bottom() == pytest.approx(hi_y)
