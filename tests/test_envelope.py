"""Envelope correctness against numpy and the chunk summary of HDF5 datasets."""

from __future__ import annotations

import os

import h5py
import numpy as np
import pytest

from inspector.formats.analysis.arrays import (
    ArrayRef,
    Envelope,
    EnvelopeCancelled,
    NumpyArrayRef,
    envelope_with_preview,
)
from inspector.formats.decoding import inflate
from inspector.formats.hdf5 import chunk_summary as cs
from inspector.formats.hdf5 import chunks
from inspector.formats.hdf5.arrays import H5DatasetRef
from inspector.formats.hdf5.chunks import ChunkLayout
from inspector.formats.hdf5.source import H5Source


def h5_ref(path, name, sources):
    """The recording reader's reference to dataset ``name`` of ``path`` (opened read-only)."""
    src = H5Source(path)
    sources.append(src)
    return H5DatasetRef(src, src.file[name], name)


def expected(line: np.ndarray, env: Envelope) -> tuple[np.ndarray, np.ndarray]:
    """numpy min/max over finite values of each bin of ``env`` (NaN when none)."""
    v = np.asarray(line, dtype=np.float64)
    e = env.edges().astype(np.int64)
    lo, hi = [], []
    for a, b in zip(e[:-1], e[1:], strict=True):
        seg = v[a:b]
        seg = seg[np.isfinite(seg)]
        lo.append(seg.min() if seg.size else np.nan)
        hi.append(seg.max() if seg.size else np.nan)
    return np.array(lo), np.array(hi)


def check(
    ref: ArrayRef, full: np.ndarray, index: tuple, start: int, stop: int, bins: int
) -> Envelope:
    env = ref.envelope(index, start, stop, bins)
    line = full[tuple(slice(None) if i is None else i for i in index)]
    assert env.start == max(0, start) and env.exact
    if env.raw:
        v = np.asarray(line[start:stop], dtype=np.float64)
        v[~np.isfinite(v)] = np.nan
        np.testing.assert_array_equal(env.lo, v)
        np.testing.assert_array_equal(env.x, np.arange(start, stop))
    else:
        assert env.edges()[0] == start and env.edges()[-1] == stop
        assert np.all(np.diff(env.edges()) > 0)
        lo, hi = expected(line, env)
        np.testing.assert_array_equal(env.lo, lo)
        np.testing.assert_array_equal(env.hi, hi)
    return env


@pytest.mark.parametrize("n", [1, 2, 7, 1001, 4099, 100_003])
@pytest.mark.parametrize("bins", [1, 3, 500])
def test_numpy_ref_random_odd_lengths(n, bins):
    rng = np.random.default_rng(n + bins)
    a = rng.standard_normal((n, 3))
    ref = NumpyArrayRef("x", a)
    for ch in range(3):
        check(ref, a, (None, ch), 0, n, bins)
    if n > 10:
        check(ref, a, (None, 1), 3, n - 4, bins)


def test_nan_and_inf_never_leak():
    a = np.arange(10_000, dtype=np.float64).reshape(-1, 1)
    a[100:300, 0] = np.nan
    a[5000, 0] = np.inf
    a[5001, 0] = -np.inf
    ref = NumpyArrayRef("x", a)
    env = check(ref, a, (None, 0), 0, 10_000, 100)
    assert np.isnan(env.lo[1]) and np.isnan(env.hi[2])  # bins 100..300 are all NaN
    assert np.all(np.isfinite(env.hi[~np.isnan(env.hi)]))
    raw = ref.envelope((None, 0), 4990, 5010, 100)
    assert raw.raw and np.isnan(raw.lo[10]) and np.isnan(raw.lo[11]) and raw.lo[9] == 4999


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64])
def test_integer_extremes_no_overflow(dtype):
    info = np.iinfo(dtype)
    a = np.zeros((9000, 1), dtype=dtype)
    a[::2, 0] = info.max
    a[1::2, 0] = info.min
    ref = NumpyArrayRef("x", a)
    env = check(ref, a, (None, 0), 0, 9000, 40)
    assert env.hi.max() == float(info.max) and env.lo.min() == float(info.min)
    assert env.lo.dtype == np.float64


def test_big_endian_equals_native():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5001, 2)).astype("<f4")
    b = a.astype(">f4")
    e1 = NumpyArrayRef("a", a).envelope((None, 1), 0, 5001, 77)
    e2 = NumpyArrayRef("b", b).envelope((None, 1), 0, 5001, 77)
    np.testing.assert_array_equal(e1.lo, e2.lo)
    np.testing.assert_array_equal(e1.hi, e2.hi)
    r = NumpyArrayRef("b", b).envelope((None, 1), 10, 20, 77)
    np.testing.assert_array_equal(r.lo, a[10:20, 1].astype(np.float64))


def test_empty_and_single_sample():
    empty = NumpyArrayRef("e", np.zeros((0, 3)))
    env = empty.envelope((None, 0), 0, 10, 100)
    assert len(env) == 0 and env.raw
    one = NumpyArrayRef("o", np.array([[2.5, 3.5]]))
    env = one.envelope((None, 1), 0, 1, 100)
    assert env.raw and list(env.lo) == [3.5] and list(env.x) == [0.0]


class CooLike(ArrayRef):
    """An epochs array read per trial only (like the COO reader); counts reads."""

    def __init__(self, dense: np.ndarray) -> None:
        super().__init__()
        self.name, self.shape, self.dtype = "coo", dense.shape, dense.dtype
        self.storage, self.sample_axis = "coo", 1
        self._dense = dense
        self.reads: list = []

    def read(self, selection=Ellipsis):
        self.reads.append(selection)
        t = selection[0]
        assert isinstance(t, int), "a per-trial reader never reads several trials"
        return self._dense[t][selection[1:]]


def test_coo_like_per_trial():
    rng = np.random.default_rng(3)
    dense = np.where(rng.random((6, 3001, 4)) > 0.9, rng.standard_normal((6, 3001, 4)), 0.0)
    ref = CooLike(dense)
    for t in (0, 5):
        check(ref, dense, (t, None, 2), 0, 3001, 50)
        check(ref, dense, (t, None, 3), 100, 170, 50)
    assert all(isinstance(s[0], int) for s in ref.reads)


def test_masked_values_as_nan():
    """A masked scan line (NaN where mask is false) gives gaps, not zeros."""
    sig = np.linspace(0, 1, 3000)
    mask = np.ones(3000, bool)
    mask[1000:2000] = False
    line = np.where(mask, sig, np.nan).reshape(-1, 1)
    env = check(NumpyArrayRef("s", line), line, (None, 0), 0, 3000, 30)
    assert np.isnan(env.lo[10:20]).all() and not np.isnan(env.lo[:10]).any()


def test_preview_and_cancel_on_base_path(monkeypatch):
    import inspector.formats.analysis.arrays as arrays_mod

    a = np.random.default_rng(0).standard_normal((3_000_000, 1))
    ref = NumpyArrayRef("x", a)
    clock = iter(np.arange(0.0, 1000.0, 1.0))
    monkeypatch.setattr(arrays_mod.time, "monotonic", lambda: next(clock))
    previews: list[Envelope] = []
    env = envelope_with_preview(ref, (None, 0), 0, 3_000_000, 100, previews.append, None)
    assert previews and not previews[0].exact and env.exact
    assert np.isnan(previews[0].lo[-1])  # later bins not computed yet
    with pytest.raises(EnvelopeCancelled):
        ref.envelope((None, 0), 0, 3_000_000, 100, cancelled=lambda: True)


class RecordingRef(NumpyArrayRef):
    """A subclass overriding envelope with the full signature (what ArrayRef requires)."""

    def envelope(self, index, start, stop, bins, *, preview=None, cancelled=None):
        self.got = (preview, cancelled)
        return super().envelope(index, start, stop, bins, preview=preview, cancelled=cancelled)


def test_envelope_with_preview_passes_preview_and_cancel():
    ref = RecordingRef("x", np.arange(100.0).reshape(-1, 1))
    show, stop = (lambda e: None), (lambda: False)
    env = envelope_with_preview(ref, (None, 0), 0, 100, 10, show, stop)
    assert env.hi[-1] == 99.0 and ref.got == (show, stop)


# -- chunk summary ------------------------------------------------------------------


@pytest.fixture()
def chunked(tmp_path, monkeypatch):
    """A chunked, gzip+shuffle, big-endian HDF5 array with NaN/inf, and its ref factory."""
    monkeypatch.setattr(cs, "SUMMARY_MIN_BYTES", 0)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((50_021, 5)).astype(">f4")
    a[700:1500, 2] = np.nan
    a[20_000, 3] = np.inf
    path = tmp_path / "c.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset(
            "neuro", data=a, chunks=(1000, 3), compression="gzip", compression_opts=4, shuffle=True
        )
    sources: list[H5Source] = []

    def make():
        return h5_ref(path, "neuro", sources)

    yield a, make, path
    for src in sources:
        src.close()


def test_chunk_layout_and_decode(chunked):
    a, make, _ = chunked
    ref = make()
    lay = ref.chunk_layout()
    assert lay == ChunkLayout((1000, 3), np.dtype(">f4"), ("shuffle", "gzip"), lay.identity, 0.0)
    assert lay.decodable and lay.identity[-1] == "/neuro"
    mask, raw = ref.read_raw_chunk((3000, 3))
    chunk = chunks.decode_chunk(raw, mask, lay)
    np.testing.assert_array_equal(chunk[:, :2], a[3000:4000, 3:5])


def test_chunked_envelope_matches_numpy(chunked):
    a, make, _ = chunked
    ref = make()
    assert cs.worth_summarising(ref.shape, ref.sample_axis, ref.chunk_layout())
    for ch in range(5):
        for start, stop, bins in [
            (0, 50_021, 40),
            (13, 49_999, 37),
            (0, 50_021, 2000),
            (5, 2000, 300),
            (100, 130, 50),
            (0, 1500, 5),
            (999, 1001, 1),
        ]:
            check(ref, a, (None, ch), start, stop, bins)
    s = ref.chunk_summary()
    assert s.complete and s.block == 200


def test_summary_equals_numpy_blocks(chunked):
    a, make, _ = chunked
    ref = make()
    s = cs.summarise_all(ref.chunk_summary())
    v = a.astype(np.float64)
    for b in (0, 3, 4, 100, s.n_blocks - 1):
        seg = v[b * s.block : (b + 1) * s.block]
        for ch in range(5):
            col = seg[:, ch][np.isfinite(seg[:, ch])]
            lo = col.min() if col.size else np.nan
            hi = col.max() if col.size else np.nan
            np.testing.assert_array_equal(
                [s.lo[b, ch], s.hi[b, ch]], np.array([lo, hi], dtype=s.lo.dtype)
            )


def test_summary_cache_in_user_cache_folder(chunked, tmp_path):
    a, make, path = chunked
    ref = make()
    cs.summarise_all(ref.chunk_summary())
    cache = ref.chunk_summary().cache_path()
    assert cache.is_file()
    assert cache.is_relative_to(cs.cache_dir())
    assert str(cs.cache_dir()).startswith(os.environ["XDG_CACHE_HOME"])
    assert sorted(p.name for p in path.parent.iterdir()) == ["c.h5"]  # nothing next to the data
    ref2 = make()
    s2 = ref2.chunk_summary()
    assert s2.complete  # loaded from disk: no chunk decoded
    np.testing.assert_array_equal(s2.lo, ref.chunk_summary().lo)
    # a modified file (different mtime/size) does not reuse the cache
    ref._source.close()
    ref2._source.close()
    with h5py.File(path, "a") as f:
        f["neuro"][0, 0] = 123.0
    ref3 = make()
    assert not ref3.chunk_summary().complete
    env = ref3.envelope((None, 0), 0, 50_021, 10)
    assert env.hi[0] == 123.0


def test_chunked_previews_then_exact(chunked, monkeypatch):
    a, make, _ = chunked
    ref = make()
    monkeypatch.setattr(cs, "FIRST_PREVIEW_CHUNKS", 2)
    monkeypatch.setattr(cs, "FIRST_PREVIEW_S", 0.0)
    previews: list[Envelope] = []
    env = ref.envelope((None, 1), 0, 50_021, 100, preview=previews.append)
    assert previews and all(not p.exact for p in previews) and env.exact
    assert np.isfinite(previews[0].lo).all()  # gaps filled from the nearest decoded chunk
    check(ref, a, (None, 1), 0, 50_021, 100)


def test_other_filters_fall_back_to_hdf5(tmp_path, monkeypatch):
    monkeypatch.setattr(cs, "SUMMARY_MIN_BYTES", 0)
    a = np.arange(40_000, dtype=np.int16).reshape(-1, 2)
    with h5py.File(tmp_path / "l.h5", "w") as f:
        f.create_dataset("d", data=a, chunks=(512, 2), compression="lzf")
    sources: list[H5Source] = []
    ref = h5_ref(tmp_path / "l.h5", "d", sources)
    assert ref.chunk_layout().filters == ("other",) and not ref.chunk_layout().decodable
    check(ref, a, (None, 1), 0, 20_000, 64)
    check(ref, a, (None, 0), 1, 19_999, 1000)
    assert ref.chunk_summary() is not None  # through the summary, chunks decoded by HDF5
    sources[0].close()


def test_interleaved_order_is_a_permutation_spread_early():
    order = cs.interleaved_order(1000)
    assert sorted(order.tolist()) == list(range(1000))
    first = np.sort(order[:16])
    assert first[0] == 0 and first[-1] > 900


def test_unshuffle_roundtrip():
    x = np.arange(1001, dtype="<f8")
    b = x.view(np.uint8).reshape(-1, 8).T.copy().ravel()  # HDF5 shuffle
    np.testing.assert_array_equal(inflate.unshuffle(b.tobytes() + b"\x01", 8)[:-1].view("<f8"), x)


def test_sparse_dataset_unallocated_chunks_are_not_read(tmp_path, monkeypatch):
    """A mostly unallocated chunked dataset: the summary uses the fill value for the
    chunks that are not stored and reads only the stored ones; the envelope equals
    numpy's on the materialised array."""
    monkeypatch.setattr(cs, "SUMMARY_MIN_BYTES", 0)
    path = tmp_path / "sparse.h5"
    with h5py.File(path, "w") as f:
        d = f.create_dataset(
            "neuro",
            shape=(400_000, 4),
            dtype="<f4",
            chunks=(1000, 4),
            compression="gzip",
            shuffle=True,
            fillvalue=-2.5,
        )
        d[5000:6000] = np.linspace(-10, 10, 4000, dtype="<f4").reshape(1000, 4)
        d[123_456:123_460, 2] = 99.0
        d[399_500:] = np.nan
        d[399_900, 1] = 7.0
    with h5py.File(path, "r") as f:
        full = f["neuro"][...]  # what HDF5 returns, fill values included
        stored = f["neuro"].id.get_num_chunks()
    assert stored == 3
    sources: list[H5Source] = []
    ref = h5_ref(path, "neuro", sources)
    reads: list[tuple[int, ...]] = []
    real = ref.read_raw_chunk
    monkeypatch.setattr(ref, "read_raw_chunk", lambda off: (reads.append(off), real(off))[1])
    monkeypatch.setattr(ref, "read", lambda sel=Ellipsis: pytest.fail(f"HDF5 read {sel}"))
    for ch in range(4):
        check(ref, full, (None, ch), 0, 400_000, 500)
        check(ref, full, (None, ch), 4_000, 130_000, 77)
    assert sorted(set(reads)) == [(5000, 0), (123_000, 0), (399_000, 0)]
    s = ref.chunk_summary()
    assert s.complete and s.done.size == 400
    window = ref.envelope((None, 2), 123_400, 123_500, 500)  # raw samples, fill around the spike
    np.testing.assert_array_equal(window.lo, full[123_400:123_500, 2].astype(np.float64))
    sources[0].close()


def test_unallocated_chunks_are_those_whose_offsets_the_file_does_not_list():
    """Offsets outside the grid (a hostile file's, up to 2**64 - 1) are ignored; the rest
    mark their chunks stored, as a loop over the offsets would (the oracle)."""
    from types import SimpleNamespace

    shape, chunks = (10_000, 6, 5), (1000, 4, 5)
    grid = (10, 2, 1)
    rng = np.random.default_rng(3)
    allocated = {(int(a) * 1000, int(b) * 4, 0) for a, b in rng.integers(0, (10, 2), (9, 2))}
    allocated |= {(12_000, 0, 0), (0, 8, 0), (2**64 - 1, 0, 0), (2**63 + 5, 4, 0), (999, 3, 4)}
    ref = SimpleNamespace(sample_axis=0, shape=shape)
    layout = ChunkLayout(chunks, np.dtype("<f4"), fill=-1.5)
    s = cs.ChunkSummary(ref, layout, allocated)
    stored = np.zeros(grid, dtype=bool)
    for offset in allocated:
        coord = tuple(o // c for o, c in zip(offset, chunks, strict=True))
        if all(x < g for x, g in zip(coord, grid, strict=True)):
            stored[coord] = True
    assert stored.sum() >= 2 and not stored.all()
    np.testing.assert_array_equal(s.done, ~stored)
    assert np.all(s.lo == -1.5) and np.all(s.hi == -1.5)
    empty = cs.ChunkSummary(ref, layout, set())
    assert empty.done.all() and empty.complete


def _billions_of_chunks(tmp_path):
    """A dataset declaring 2**33 x 6 int16 samples in one-sample chunks, none stored (a
    fuzzing mutant's: too many chunks for a chunk summary)."""
    path = tmp_path / "huge.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("neuro", shape=(2**33, 6), chunks=(1, 1), dtype="<i2", fillvalue=7)
    return path


@pytest.mark.slow
def test_a_sampled_envelope_reads_a_bounded_number_of_chunks(tmp_path, monkeypatch):
    """The whole-range view of billions of one-sample chunks reads at most
    MAX_SAMPLED_CHUNKS of them (HDF5 looks each up), not 16 million samples."""
    from inspector.formats.hdf5.arrays import MAX_SAMPLED_CHUNKS

    sources: list[H5Source] = []
    ref = h5_ref(_billions_of_chunks(tmp_path), "neuro", sources)
    assert ref.chunk_summary() is None  # (too many chunks: the sampled path)
    assert ref.sampled_read_limit((None, 2)) == MAX_SAMPLED_CHUNKS
    read: list[int] = []
    real = ref.read
    monkeypatch.setattr(ref, "read", lambda sel=Ellipsis: (
        read.append(sel[0].stop - sel[0].start), real(sel))[1])
    env = ref.envelope((None, 2), 0, 2**33, 1000)
    assert not env.exact and len(env.lo) == 1000
    assert 1000 <= sum(read) <= MAX_SAMPLED_CHUNKS  # (one chunk a sample here)
    np.testing.assert_array_equal(env.lo, np.full(1000, 7.0))  # the fill value, as HDF5 reads
    np.testing.assert_array_equal(env.hi, np.full(1000, 7.0))
    sources[0].close()


@pytest.mark.slow
def test_a_line_of_one_sample_chunks_is_sampled_below_the_sample_limit(tmp_path, monkeypatch):
    """1 048 576 one-sample chunks along the line are fewer samples than MAX_VIEW_SAMPLES,
    but read exactly they were a million HDF5 chunk lookups: the plot said "reading..."
    for minutes (window fuzzing, seed 41 case 74).  They are sampled, as a wider range is."""
    from inspector.formats.analysis.arrays import MAX_VIEW_SAMPLES
    from inspector.formats.hdf5.arrays import MAX_SAMPLED_CHUNKS

    path = tmp_path / "one_sample_chunks.h5"
    n = 1 << 20
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("neuro", shape=(n, 3), chunks=(1, 3), dtype="<f4", fillvalue=2.5)
        ds[1000] = [-4.0, 9.0, 1.0]  # one stored chunk
    assert n < MAX_VIEW_SAMPLES
    sources: list[H5Source] = []
    ref = h5_ref(path, "neuro", sources)
    read: list[int] = []
    real = ref.read
    monkeypatch.setattr(ref, "read", lambda sel=Ellipsis: (
        read.append(sel[0].stop - sel[0].start), real(sel))[1])
    env = ref.envelope((None, 1), 0, n, 800)
    assert not env.exact and len(env.lo) == 800
    assert sum(read) <= MAX_SAMPLED_CHUNKS
    assert np.all((env.lo == 2.5) | (env.lo == 9.0)) and np.all((env.hi == 2.5) | (env.hi == 9.0))
    read.clear()
    zoomed = ref.envelope((None, 1), 990, 1010, 800)  # few samples: read exactly, as stored
    assert zoomed.exact and sum(read) == 20
    assert np.nanmax(zoomed.hi) == 9.0 and np.nanmin(zoomed.lo) == 2.5
    sources[0].close()


def test_contiguous_and_long_chunked_lines_keep_the_sample_limit(tmp_path):
    from inspector.formats.analysis.arrays import MAX_VIEW_SAMPLES

    path = tmp_path / "plain.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("flat", data=np.zeros((100, 3), dtype="<f4"))
        f.create_dataset("long", shape=(2**30, 3), chunks=(2**16, 3), dtype="<f4")
    sources: list[H5Source] = []
    assert h5_ref(path, "flat", sources).sampled_read_limit((None, 0)) == MAX_VIEW_SAMPLES
    assert h5_ref(path, "long", sources).sampled_read_limit((None, 1)) == MAX_VIEW_SAMPLES
    for src in sources:
        src.close()


def test_a_chunk_that_cannot_be_allocated_is_a_chunk_that_cannot_be_read(tmp_path):
    """h5py raises MemoryError for an unallocated chunk of billions; the reader reports it
    as a chunk it cannot read (OSError), and the trial views then ask HDF5 (fill values)."""
    from types import SimpleNamespace

    with h5py.File(_billions_of_chunks(tmp_path), "r") as f:
        with pytest.raises(OSError, match="cannot read chunk"):
            chunks.read_raw_chunk(f["neuro"], (5, 0))

    def no_memory(_offset):
        raise MemoryError()

    fake = SimpleNamespace(id=SimpleNamespace(read_direct_chunk=no_memory), name="/neuro")
    with pytest.raises(OSError, match="stored size cannot be allocated"):
        chunks.read_raw_chunk(fake, (0, 0))


@pytest.mark.slow
def test_the_fuzzed_recording_of_billions_of_chunks_gives_its_trials_and_its_plot(tmp_path):
    """The window fuzz's reproducer: the trial matrix is the fill value HDF5 reads, and the
    whole-range envelope of each channel reads a bounded number of chunks."""
    from pathlib import Path

    from inspector.formats import open_document
    from inspector.formats.analysis.trial_matrix import trial_matrix, trial_order
    from inspector.formats.decoding.workers import worker_pool
    from inspector.formats.hdf5.arrays import MAX_SAMPLED_CHUNKS

    path = Path(__file__).parent / "fixtures" / "fuzz" / "billions_of_unallocated_chunks.h5"
    with h5py.File(path, "r") as f:
        fill = float(f["neuro"].fillvalue)
        assert f["neuro"].shape == (2**33, 6) and f["neuro"].id.get_num_chunks() == 0
    with worker_pool(), open_document(path) as doc:
        doc.verify()
        order = trial_order(doc, None)
        matrix = trial_matrix(doc, 0, order=order.order, window=None, baseline=None,
                              max_bins=800)
        assert matrix.values.size and np.all(matrix.values[np.isfinite(matrix.values)] == fill)
        ref = doc.arrays["neuro"]
        read: list[int] = []
        real = ref.read
        ref.read = lambda sel=Ellipsis: (read.append(sel[0].stop - sel[0].start), real(sel))[1]
        env = ref.envelope((None, 0), 0, 2**33, 800)
        assert sum(read) <= MAX_SAMPLED_CHUNKS and np.all(env.lo == fill)
