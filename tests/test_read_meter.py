"""Chunks read of chunks needed (formats layer): what an envelope says it will read is
what it reports reading, on the plain path (blocks, sampled windows, raw ranges) and
through the chunk summary of an HDF5 dataset, where channels sharing a chunk count it once."""

from __future__ import annotations

import numpy as np

from inspector.formats.analysis import arrays as A
from inspector.formats.analysis.read_meter import ChunkMeter, chunk_read, metering
from inspector.formats.hdf5 import chunk_summary as cs
from tests.test_envelope import chunked  # noqa: F401 - the fixture


def _metered(ref, lines, start, stop, bins):
    """(needed identities, meter after reading every line, reports)."""
    needed = set()
    for idx in lines:
        needed |= ref.envelope_chunks(idx, start, stop, bins)
    reports = []
    meter = ChunkMeter(len(needed), lambda d, n: reports.append((d, n)))
    with metering(meter):
        for idx in lines:
            ref.envelope(idx, start, stop, bins)
    meter.flush()
    return needed, meter, reports


def test_outside_metering_a_report_does_nothing():
    chunk_read(("a", 1))  # no meter: nothing to count, nothing raised
    meter = ChunkMeter(2)
    with metering(meter):
        chunk_read("x")
        chunk_read("x")  # read twice, counted once
    chunk_read("y")  # after the block: not counted
    assert (meter.done, meter.needed) == (1, 2)


def test_plain_path_blocks_windows_and_raw_ranges(monkeypatch):
    monkeypatch.setattr(A, "READ_BLOCK_SAMPLES", 1000)
    monkeypatch.setattr(A, "MAX_VIEW_SAMPLES", 20_000)
    data = np.arange(30_000 * 2, dtype=np.float64).reshape(30_000, 2)
    ref = A.NumpyArrayRef("x", data)
    needed, meter, reports = _metered(ref, [(None, 0), (None, 1)], 500, 9_700, 50)
    assert len(needed) == 2 * 10  # blocks 0..9 of each channel
    assert meter.done == meter.needed == 20 and reports[-1] == (20, 20)
    assert [d for d, _ in reports] == sorted(d for d, _ in reports)
    needed, meter, _ = _metered(ref, [(None, 0)], 0, 30_000, 40)  # wider: sampled
    assert len(needed) == 40 and meter.done == 40
    needed, meter, _ = _metered(ref, [(None, 1)], 10, 60, 40)  # raw samples
    assert len(needed) == 1 and meter.done == 1


def test_summary_path_counts_each_stored_chunk_once(chunked):  # noqa: F811
    _a, make, _ = chunked  # (50 021, 5) in chunks of (1000, 3)
    ref = make()
    assert ref.chunk_summary() is not None
    lines = [(None, ch) for ch in range(5)]
    needed, meter, reports = _metered(ref, lines, 0, 50_021, 40)
    assert len(needed) == 51 * 2  # 51 chunks along time, 2 chunk columns of channels
    assert meter.done == meter.needed == 102 and reports[-1] == (102, 102)
    needed, meter, _ = _metered(ref, lines, 0, 50_021, 40)  # summarised: only the samples
    assert needed == {(50, 0), (50, 1)} and meter.done == 2  # of the partial last block
    needed, meter, _ = _metered(ref, [(None, 4)], 2_500, 4_100, 300)  # narrow: samples
    assert needed == {(2, 1), (3, 1), (4, 1)} and meter.done == 3
    assert cs.envelope_chunks(ref.chunk_summary(), (None, 0), 10, 10, 5) == set()


def test_trial_average_plans_and_reads_its_stored_chunks(tmp_path, monkeypatch):
    """A trial average inside a meter adds the stored chunks it plans and reads each:
    (18 trials, 20 samples, 6 channels) in chunks of (4, 20, 4): 5 chunk rows by 2 chunk
    columns of channels (the chosen channels 0 and 5 lie in both), 10 chunks."""
    from test_trial_average import opened, write

    from inspector.formats.analysis import trial_average as analysis
    from inspector.formats.analysis import trial_reads
    from inspector.formats.decoding.workers import worker_pool

    monkeypatch.setattr(trial_reads, "MAX_BLOCK_TRIALS", 4)
    n = 18
    arr = np.random.default_rng(9).standard_normal((n, 20, 6))
    path = tmp_path / "p.h5"
    write(path, arr, mode="epochs", onsets=np.full(n, 2, np.int64), ids=[1] * n,
          chunks=(4, 20, 4))
    reports = []
    with worker_pool():
        doc = opened(path)
        meter = ChunkMeter(0, lambda d, k: reports.append((d, k)))
        with metering(meter):
            plain = analysis.trial_average(doc, "stimulus", channels=[0, 5])
        assert (meter.done, meter.needed) == (10, 10) and reports[-1] == (10, 10)
        again = analysis.trial_average(doc, "stimulus", channels=[0, 5])  # no meter: the same
    assert plain.equals(again)
