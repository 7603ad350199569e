"""Values sized before they are read (issue 35, points 4-6): variable-length values by
their stored descriptors, compressed chunks inflated at most to their declared size.
h5py is the oracle for the values that are read."""

from __future__ import annotations

import zlib
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats.decoding.inflate import ChunkOverflow, zlib_inflate
from inspector.formats.hdf5 import chunk_guard
from inspector.formats.hdf5 import heap as hdf5_heap
from inspector.formats.hdf5.chunks import ChunkLayout, decode_chunk
from inspector.formats.hdf5.source import H5Source
from inspector.formats.values.report_bounds import MAX_REPORT_TEXT, bounded


def _bomb(path: Path, inflated: int) -> None:
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", shape=(40,), chunks=(20,), dtype="<f8", compression="gzip")
        ds[:] = np.arange(40.0)
        ds.id.write_direct_chunk((20,), zlib.compress(bytes(inflated), 9))


def test_zlib_inflate_stops_at_the_declared_size():
    good = np.arange(100, dtype="<f8").tobytes()
    assert zlib_inflate(zlib.compress(good), len(good)) == good
    with pytest.raises(ChunkOverflow, match="declared size of 800 bytes"):
        zlib_inflate(zlib.compress(good + b"\0"), len(good))
    with pytest.raises(OSError, match="holds 799 bytes"):
        zlib_inflate(zlib.compress(good[:-1]), len(good))


def test_decode_chunk_refuses_a_chunk_inflating_past_its_size():
    layout = ChunkLayout((20,), np.dtype("<f8"), ("gzip",))
    with pytest.raises(ChunkOverflow):
        decode_chunk(zlib.compress(bytes(161)), 0, layout)
    np.testing.assert_array_equal(decode_chunk(zlib.compress(bytes(160)), 0, layout),
                                  np.zeros(20))


def test_count_inflated_never_goes_past_declared_plus_one():
    raw = zlib.compress(bytes(50 << 20), 9)
    assert chunk_guard.count_inflated(raw, 1000) == 1001
    assert chunk_guard.count_inflated(zlib.compress(bytes(1000)), 1000) == 1000


@pytest.mark.slow
def test_a_bomb_chunk_is_refused_before_hdf5_reads_it(tmp_path):
    path = tmp_path / "bomb.h5"
    _bomb(path, 64 << 20)
    src = H5Source(path)
    try:
        ds = src.file["x"]
        with h5py.File(path) as oracle:
            np.testing.assert_array_equal(src.read(ds, slice(0, 20)), oracle["x"][0:20])
        with pytest.raises(ChunkOverflow) as caught:
            src.read(ds, slice(10, 30))
        assert caught.value.dataset == "/x" and caught.value.offset == (20,)
        assert "the chunk at [20] of /x" in str(caught.value)
        found = chunk_guard.stored_overflow(ds)
        assert found is not None and found.offset == (20,)
    finally:
        src.close()


@pytest.mark.slow
def test_the_dump_node_reports_the_overflowing_chunk(tmp_path):
    from inspector.formats import open_document
    from inspector.formats.nodes.data import NodeReadError

    path = tmp_path / "bomb.h5"
    _bomb(path, 64 << 20)
    with open_document(path) as doc:
        node = doc.object_data.node("/x")
        assert node.read(slice(0, 20)).columns[0].values.tolist() == list(np.arange(20.0))
        with pytest.raises(NodeReadError) as caught:
            node.read(slice(0, 40))
        assert caught.value.finding.code == "data.chunk-overflow"
        assert "[20]" in caught.value.finding.message


def _vlen(path: Path, sizes: list[int]) -> None:
    with h5py.File(path, "w") as f:
        f.create_dataset("s", data=["a" * n for n in sizes], dtype=h5py.string_dtype())
        f.attrs["big"] = "b" * (hdf5_heap.MAX_VALUE_BYTES + 1)
        f.attrs["small"] = "c" * 1000


def test_variable_length_sizes_come_from_the_descriptors(tmp_path):
    path = tmp_path / "v.h5"
    sizes = [3, 0, 70_000, hdf5_heap.MAX_VALUE_BYTES + 5, 12]
    _vlen(path, sizes)
    src = H5Source(path)
    try:
        ds = src.file["s"]
        assert hdf5_heap.dataset_sizes(ds).tolist() == sizes
        with h5py.File(path) as oracle:
            assert list(src.read(ds, slice(0, 3))) == list(oracle["s"][0:3])
        with pytest.raises(hdf5_heap.ValueTooLarge, match="element 1 of the read") as caught:
            src.read(ds, slice(2, 4))
        assert caught.value.largest == sizes[3]
        hdf5_heap.check_attribute(src.file, "small")
        with pytest.raises(hdf5_heap.ValueTooLarge):
            hdf5_heap.check_attribute(src.file, "big")
    finally:
        src.close()


def test_verify_reports_a_value_too_large_and_the_report_stays_short(tmp_path):
    from inspector.formats import open_document

    path = tmp_path / "v.h5"
    _vlen(path, [1, 2])
    with h5py.File(path, "r+") as f:
        f.attrs["medium"] = "m" * (hdf5_heap.MAX_VALUE_BYTES - 10)
    with open_document(path) as doc:
        doc.verify()
        found = [f for f in doc.findings if f.code == "data.value-too-large"]
        assert [f.location for f in found] == ["/@big"]
        assert f"{hdf5_heap.MAX_VALUE_BYTES + 1:,} bytes" in found[0].message


def test_bounded_shortens_texts_and_says_how_long_they_were():
    long = "x" * (MAX_REPORT_TEXT + 10)
    out = bounded({"a": [long, 1, None], long: "y"})
    assert out["a"][0].startswith("x" * MAX_REPORT_TEXT)
    assert f"({MAX_REPORT_TEXT + 10:,} characters in all" in out["a"][0]
    assert out["a"][1:] == [1, None] and len(out) == 2
    assert bounded({"k": "short"}) == {"k": "short"}


def test_a_vlen_dataset_is_read_in_pages_sized_by_its_largest_value(tmp_path):
    from inspector.formats import open_document

    path = tmp_path / "v.h5"
    _vlen(path, [100_000] * 1000)
    with open_document(path) as doc:
        node = doc.object_data.node("/s")
        assert node.read_cap == hdf5_heap.MAX_READ_BYTES // 100_000


WIDE = hdf5_heap.MAX_VALUE_BYTES + 1


def _wide_elements(path: Path) -> None:
    """Fixed-size elements one byte over the per-value limit: a never-written string
    scalar (late allocation), opaque, array-typed and compound datasets, an attribute;
    beside them a string just under the limit, which is read."""
    with h5py.File(path, "w", libver="latest") as f:
        t = h5py.h5t.C_S1.copy()
        t.set_size(WIDE)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_LATE)
        h5py.h5d.create(f.id, b"s", t, h5py.h5s.create(h5py.h5s.SCALAR), dcpl=dcpl)
        f.create_dataset("opaque", shape=(2,), dtype=np.dtype(f"V{WIDE}"))
        f.create_dataset("arr", shape=(3,), dtype=np.dtype(("u1", (WIDE,))))
        f.create_dataset("cmp", shape=(2,), dtype=np.dtype([("a", "i4"), ("b", f"S{WIDE}")]))
        f.attrs.create("wide", np.bytes_(b"x" * WIDE))
        f.create_dataset("fits", data=np.bytes_(b"y" * (WIDE - 1)))


def test_fixed_size_elements_over_the_limit_are_refused_unread(tmp_path, capsys):
    from inspector.cli import main
    from inspector.formats import open_document
    from inspector.formats.nodes.data import NodeReadError

    path = tmp_path / "wide.h5"
    _wide_elements(path)
    with open_document(str(path)) as doc:
        assert doc.object_data is not None
        for location in ("/s", "/opaque", "/arr", "/cmp", "/@wide"):
            node = doc.object_data.node(location)
            assert node is not None and node.type.size >= WIDE
            with pytest.raises(NodeReadError) as err:
                node.read(())
            assert err.value.finding.code == "data.value-too-large"
            assert f"{node.type.size:,} bytes" in err.value.finding.message
        s = doc.object_data.node("/s")
        assert s is not None and s.storage.fill_value == f"(not read: {WIDE:,} bytes)"
        fits = doc.object_data.node("/fits")
        assert fits is not None
        assert fits.read(()).columns[0].values[()] == "y" * (WIDE - 1)
    assert main(["dump", f"{path}::/s"]) == 1
    err = capsys.readouterr().err
    assert "data.value-too-large" in err and f"{WIDE:,} bytes" in err and "h5dump -d" in err
    assert main(["verify", "--json", str(path)]) in (0, 1)
