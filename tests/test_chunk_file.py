"""Stored chunks read with pread outside h5py's lock (hdf5.chunks.ChunkFile).

The bytes must be exactly those of HDF5's ``read_direct_chunk``; the reader
must hold no file lock once the document is closed, and must fail cleanly on
unallocated chunks, closed files and files shorter than their index says.
"""

from __future__ import annotations

import itertools
import shutil

import h5py
import numpy as np
import pytest

from inspector.formats.hdf5.chunks import ChunkFile, allocated_chunks, read_raw_chunk
from inspector.formats.registry import open_document
from tests.conftest import FIXTURES

SMALL_CHUNKS = FIXTURES / "vneurotk" / "v1" / "continuous_small_chunks.h5"


def _offsets(ds: h5py.Dataset) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(0, n, c) for n, c in zip(ds.shape, ds.chunks,
                                                                      strict=True))))


def test_bytes_equal_read_direct_chunk_for_every_chunk():
    with h5py.File(SMALL_CHUNKS, "r") as f:
        ds = f["neuro"]
        reader = ChunkFile.open(ds)
        assert reader is not None and ds.chunks is not None
        offsets = _offsets(ds)
        assert len(offsets) == ds.id.get_num_chunks() > 1
        for off in offsets:
            assert reader.read(off) == read_raw_chunk(ds, off)
        reader.close()
        with pytest.raises(OSError, match="closed"):
            reader.read(offsets[0])


def test_unallocated_and_closed(tmp_path):
    path = tmp_path / "sparse.h5"
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", shape=(40, 4), chunks=(10, 4), dtype="f4",
                              compression="gzip", shuffle=True)
        ds[20:30] = np.arange(40, dtype="f4").reshape(10, 4)
    f = h5py.File(path, "r")
    reader = ChunkFile.open(f["x"])
    assert reader is not None
    mask, data = reader.read((20, 0))
    assert (mask, data) == read_raw_chunk(f["x"], (20, 0))
    with pytest.raises(OSError, match="not stored"):
        reader.read((0, 0))
    f.close()
    with pytest.raises(OSError):
        reader.read((20, 0))  # the index cannot be asked any more


def test_no_lock_is_held_after_the_document_closes(tmp_path):
    path = tmp_path / "copy.h5"
    shutil.copyfile(SMALL_CHUNKS, path)
    doc = open_document(path)
    ref = doc.arrays["neuro"]
    chunk = ref.read_raw_chunk((0, 0))
    with h5py.File(path, "r") as f:
        assert chunk == read_raw_chunk(f["neuro"], (0, 0))
    doc.close()
    with h5py.File(path, "r+") as f:  # a writer can take the file: no lock left behind
        f.attrs["touched"] = 1
    with pytest.raises(OSError):
        ref.read_raw_chunk((0, 0))  # the file changed (and was closed)


def test_file_shorter_than_its_index(tmp_path):
    path = tmp_path / "short.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=np.random.default_rng(0).random((4000, 4)), chunks=(1000, 4))
    f = h5py.File(path, "r")
    reader = ChunkFile.open(f["x"])
    assert reader is not None
    info = f["x"].id.get_chunk_info_by_coord((3000, 0))
    with open(path, "r+b") as raw:
        raw.truncate(info.byte_offset + 10)
    with pytest.raises(OSError, match="holds 10 of"):
        reader.read((3000, 0))
    f.close()


def test_other_drivers_and_systems_use_hdf5(monkeypatch):
    with h5py.File(SMALL_CHUNKS, "r", driver="core") as f:  # in memory: no file to pread
        assert ChunkFile.open(f["neuro"]) is None
    monkeypatch.delattr("os.pread")  # as on Windows
    with h5py.File(SMALL_CHUNKS, "r") as f:
        assert ChunkFile.open(f["neuro"]) is None
    monkeypatch.undo()
    doc = open_document(SMALL_CHUNKS)
    with h5py.File(SMALL_CHUNKS, "r") as f:
        assert doc.arrays["neuro"].read_raw_chunk((128, 0)) == read_raw_chunk(f["neuro"], (128, 0))
    doc.close()


def test_prefetched_chunks_read_the_same_bytes(tmp_path):
    """A chunk looked up and hinted ahead (``prefetch``) reads exactly the bytes HDF5
    gives; a chunk that is not stored is no error for the hint, and still one for the
    read."""
    path = tmp_path / "sparse.h5"
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", shape=(40, 4), chunks=(10, 4), dtype="f4",
                              compression="gzip", shuffle=True)
        ds[10:40] = np.arange(120, dtype="f4").reshape(30, 4)
    with h5py.File(path, "r") as f:
        reader = ChunkFile.open(f["x"])
        assert reader is not None
        reader.warm = False  # as if its pages were on disk only
        for off in ((10, 0), (20, 0), (30, 0)):
            reader.prefetch(off)
        reader.prefetch((0, 0))  # not stored: the hint says nothing
        assert sorted(reader._where) == [(10, 0), (20, 0), (30, 0)]
        for off in ((30, 0), (10, 0), (20, 0)):
            assert reader.read(off) == read_raw_chunk(f["x"], off)
        assert reader._where == {}  # each location is used once
        with pytest.raises(OSError, match="not stored"):
            reader.read((0, 0))
        reader.close()
        reader.prefetch((10, 0))  # closed: still no error


def test_a_summary_prefetches_the_chunks_ahead_in_its_order(tmp_path, monkeypatch):
    """The chunk summary asks for each stored chunk's bytes ``PREFETCH_AHEAD`` chunks
    before it submits it, in its own (interleaved) order, and never for a chunk
    already summarised; the envelope is numpy's."""
    from inspector.formats.analysis.arrays import minmax_bins
    from inspector.formats.decoding.workers import worker_pool
    from inspector.formats.hdf5 import chunk_summary as cs
    from inspector.formats.hdf5.arrays import H5DatasetRef

    monkeypatch.setattr(cs, "SUMMARY_MIN_BYTES", 0)
    monkeypatch.setattr(cs, "PREFETCH_AHEAD", 3)
    a = np.random.default_rng(3).standard_normal((40_000, 4)).astype("<f4")
    path = tmp_path / "c.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("neuro", data=a, chunks=(1000, 4), compression="gzip", shuffle=True)
    hinted: list[tuple[int, ...]] = []
    real = H5DatasetRef.prefetch_chunk
    monkeypatch.setattr(H5DatasetRef, "prefetch_chunk",
                        lambda self, off: (hinted.append(off), real(self, off))[1])
    from inspector.formats.hdf5.source import H5Source

    src = H5Source(path)
    ref = H5DatasetRef(src, src.file["neuro"], "neuro")
    with worker_pool():
        s = ref.chunk_summary()
        order = [int(i) for i in cs.interleaved_order(40)]
        env = ref.envelope((None, 1), 0, 40_000, 100)
        assert hinted == [(order[i] * 1000, 0) for i in range(3, 40)]
        lo, hi = minmax_bins(a[:, 1], env.edges().astype(np.int64))
        assert np.array_equal(lo, env.lo) and np.array_equal(hi, env.hi)
        hinted.clear()
        cs.summarise_all(s)  # everything is summarised: nothing to ask for
        assert hinted == []
    src.close()


def test_hints_stop_while_reads_come_from_memory(tmp_path, monkeypatch):
    """A chunk read without a hint as fast as memory gives it (``warm``) stops the hints
    (each would walk pages the system holds); one as slow as a disk starts them again."""
    import inspector.formats.hdf5.chunks as chunks_module

    path = tmp_path / "c.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=np.arange(4000, dtype="f4").reshape(1000, 4),
                         chunks=(100, 4), compression="gzip")
    # (t0, t1) of each read: opening reads the first chunk at once (memory), then a
    # read as slow as a disk, a hinted one, and one at once again
    clock = iter([0.0, 0.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0])
    monkeypatch.setattr(chunks_module.time, "perf_counter", lambda: next(clock))
    with h5py.File(path, "r") as f:
        reader = ChunkFile.open(f["x"])
        assert reader is not None and reader.warm
        reader.prefetch((100, 0))
        assert reader._where == {}  # no hint while warm
        assert reader.read((0, 0)) == read_raw_chunk(f["x"], (0, 0))  # 1 s: a disk
        assert not reader.warm
        reader.prefetch((100, 0))
        assert list(reader._where) == [(100, 0)]
        reader.read((100, 0))  # hinted: its speed is the hint's, the state stays
        assert not reader.warm
        reader.read((200, 0))  # no hint, no time: memory
        assert reader.warm
        reader.prefetch((300, 0))
        assert reader._where == {}
        reader.close()


def test_a_summary_queues_fewer_chunks_the_larger_they_are(tmp_path, monkeypatch):
    """Up to 8 chunks per worker are queued for summaries, as many as 8 MB hold (a chunk
    may be decoded whole), never fewer than 2; 2 when the samples are wanted."""
    from inspector.formats.hdf5 import chunk_summary as cs
    from inspector.formats.hdf5.arrays import H5DatasetRef
    from inspector.formats.hdf5.source import H5Source

    monkeypatch.setattr(cs, "SUMMARY_MIN_BYTES", 0)
    path = tmp_path / "c.h5"
    with h5py.File(path, "w") as f:
        for name, chunk_rows in (("small", 1000), ("mid", 1 << 17), ("big", 1 << 20)):
            f.create_dataset(name, shape=(1 << 21, 4), dtype="f4", chunks=(chunk_rows, 4))
    src = H5Source(path)
    got = {}
    for name in ("small", "mid", "big"):  # 16 KB, 2 MB, 16 MB chunks
        s = H5DatasetRef(src, src.file[name], name).chunk_summary()
        got[name] = (s._in_flight(False), s._in_flight(True))
    src.close()
    assert got == {"small": (8, 2), "mid": (4, 2), "big": (2, 2)}


class _CountingId:
    """An h5py ``DatasetID`` that counts HDF5's chunk lookups by offset."""

    def __init__(self, dsid):
        self._dsid, self.by_coord = dsid, 0

    def get_chunk_info_by_coord(self, offset):
        self.by_coord += 1
        return self._dsid.get_chunk_info_by_coord(offset)

    def __getattr__(self, name):
        return getattr(self._dsid, name)


def test_the_chunk_index_answers_as_hdf5_does(tmp_path):
    """Every stored chunk's place, size and filter mask listed in one pass equal HDF5's
    answer by offset (the oracle), in 1, 2 and 3 dimensions, sparse, with a chunk whose
    filter was skipped; an offset inside a chunk or past the grid is left to HDF5; a
    dataset holding more chunks than the limit is not listed."""
    from inspector.formats.hdf5.chunk_index import ChunkIndex

    path = tmp_path / "idx.h5"
    rng = np.random.default_rng(5)
    with h5py.File(path, "w") as f:
        f.create_dataset("a", data=rng.random(1000), chunks=(64,), compression="gzip")
        b = f.create_dataset("b", shape=(90, 70), chunks=(16, 32), dtype="i2",
                             compression="gzip", shuffle=True)
        b[20:60, 40:70] = 7
        c = f.create_dataset("c", data=rng.integers(0, 9, (9, 10, 11)), chunks=(4, 3, 5),
                             compression="gzip")
        c.id.write_direct_chunk((4, 3, 5), b"\x00" * (4 * 3 * 5 * 8), filter_mask=1)
    with h5py.File(path, "r") as f:
        for name in ("a", "b", "c"):
            ds = f[name]
            index = ChunkIndex.build(ds.id, ds.shape, ds.chunks)
            assert index is not None
            stored = 0
            for off in _offsets(ds):
                info = ds.id.get_chunk_info_by_coord(off)
                key = index.key(off)
                assert key is not None
                if info.byte_offset is None:
                    assert index.locate(key) is None
                else:
                    stored += 1
                    assert index.locate(key) == (info.byte_offset, info.size, info.filter_mask)
            assert stored == len(index) == ds.id.get_num_chunks() > 0
            assert index.offsets() == allocated_chunks(ds)
        assert index.locate(index.key((4, 3, 5)))[2] == 1
        assert index.key((1, 0, 0)) is None and index.key((12, 0, 0)) is None
        assert ChunkIndex.build(f["a"].id, f["a"].shape, f["a"].chunks, limit=15) is None
        assert ChunkIndex.build(f["a"].id, (), ()) is None


def test_many_chunks_are_located_from_one_listing(tmp_path):
    """After a few lookups HDF5 is not asked where each chunk lies any more (its lookup
    walks the index from the start); the bytes stay HDF5's, an unallocated chunk is
    still an error, and so is a read once the file is closed."""
    import inspector.formats.hdf5.chunks as chunks_module

    path = tmp_path / "many.h5"
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", shape=(4000, 4), chunks=(50, 4), dtype="f4",
                              compression="gzip", shuffle=True)
        ds[100:] = np.random.default_rng(2).random((3900, 4))
    f = h5py.File(path, "r")
    reader = ChunkFile.open(f["x"])
    assert reader is not None
    counting = reader._dsid = _CountingId(reader._dsid)
    offsets = _offsets(f["x"])
    for off in offsets[2:]:
        assert reader.read(off) == read_raw_chunk(f["x"], off)
    asked = chunks_module.LOOKUPS_BEFORE_INDEX - 1  # (opening asked for the first chunk)
    assert len(offsets) == 80 and counting.by_coord == asked
    with pytest.raises(OSError, match="not stored"):
        reader.read((50, 0))
    assert counting.by_coord == asked
    f.close()
    with pytest.raises(OSError, match="closed"):
        reader.read((200, 0))
    reader.close()
