"""The one decoder (inspector.formats.decoding.inflate): the wheels against zlib, byte for byte,
HDF5 (through h5py) as the oracle of chunk decoding and of the Fletcher-32 check, and
the zlib fallback forced end to end (chunk summary, strided reads, AUCX verification)."""

from __future__ import annotations

import importlib.util
import tomllib
import zlib
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats.decoding import inflate
from inspector.formats.decoding.inflate import ChunkOverflow

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ("deflate", "isal")


@pytest.fixture(params=["wheels", "zlib"])
def backend(request, monkeypatch):
    """Each test runs with the installed wheels and again with the zlib fallback forced."""
    if request.param == "zlib":
        monkeypatch.setattr(inflate, "WHOLE", None)
        monkeypatch.setattr(inflate, "STREAM", zlib)
        monkeypatch.setattr(inflate, "STREAM_ERRORS", (zlib.error,))
    return request.param


def _payload(seed: int, n: int) -> bytes:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n // 4) * 10).astype("<f4").tobytes()


def test_every_install_gets_the_wheels():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for wheel in WHEELS:
        assert any(d.split(">")[0].split("=")[0].strip() == wheel for d in deps), wheel
        assert importlib.util.find_spec(wheel) is not None, f"{wheel} is not installed"
    assert inflate.WHOLE is not None and inflate.STREAM is not zlib
    assert "libdeflate" in inflate.DECODER and "ISA-L" in inflate.DECODER


def test_decoder_names_the_fallback(monkeypatch):
    monkeypatch.setattr(inflate, "WHOLE", None)
    monkeypatch.setattr(inflate, "STREAM", zlib)
    assert inflate.decoder() == (f"chunks: zlib {zlib.ZLIB_RUNTIME_VERSION}; "
                                 f"streams: zlib {zlib.ZLIB_RUNTIME_VERSION}")


@pytest.mark.parametrize("level", [1, 4, 9])
@pytest.mark.slow
def test_whole_chunks_match_zlib(backend, level):
    payload = _payload(level, 1 << 20)
    stream = zlib.compress(payload, level)
    out = inflate.inflate_exact(stream, len(payload))
    assert bytes(out) == payload == zlib.decompress(stream)


@pytest.mark.slow
def test_a_bomb_chunk_stops_at_its_declared_size(backend):
    good = np.arange(100, dtype="<f8").tobytes()
    with pytest.raises(ChunkOverflow, match="declared size of 800 bytes"):
        inflate.inflate_exact(zlib.compress(good + b"\0"), len(good))
    with pytest.raises(ChunkOverflow):  # 64 MiB of zeros declared as 1 KiB
        inflate.inflate_exact(zlib.compress(bytes(64 << 20), 9), 1024)
    with pytest.raises(OSError, match="holds 799 bytes"):
        inflate.inflate_exact(zlib.compress(good[:-1]), len(good))
    stream = zlib.compress(good)
    for bad in (b"\x78\x00" + stream[2:], stream[:-4] + b"\0\0\0\0"):  # header, Adler-32
        with pytest.raises(OSError) as caught:
            inflate.inflate_exact(bad, len(good))
        assert not isinstance(caught.value, ChunkOverflow)


def _hdf5_fletcher32(data: bytes) -> int:
    """``H5_checksum_fletcher32`` (H5checksum.c) step by step, as HDF5 runs it."""
    n, s1, s2, i = len(data) // 2, 0, 0, 0
    while n:
        t = min(n, 360)
        n -= t
        for _ in range(t):
            s1 += (data[i] << 8) | data[i + 1]
            i += 2
            s2 += s1
        s1, s2 = (s1 & 0xFFFF) + (s1 >> 16), (s2 & 0xFFFF) + (s2 >> 16)
    if len(data) % 2:
        s1 += data[i] << 8
        s2 += s1
        s1, s2 = (s1 & 0xFFFF) + (s1 >> 16), (s2 & 0xFFFF) + (s2 >> 16)
    s1, s2 = (s1 & 0xFFFF) + (s1 >> 16), (s2 & 0xFFFF) + (s2 >> 16)
    return (s2 << 16) | s1


@pytest.mark.parametrize("size", [0, 1, 2, 3, 719, 720, 721, 1441, 20_001])
def test_fletcher32_is_hdf5s(size):
    rng = np.random.default_rng(size)
    for data in (rng.integers(0, 256, size, dtype=np.uint8).tobytes(), bytes(size),
                 b"\xff" * size, bytes(max(size - 1, 0)) + b"\x01"[:size]):
        assert inflate.fletcher32(data) == _hdf5_fletcher32(data)


def _write(path: Path, data: np.ndarray, chunks: tuple[int, ...], **filters) -> None:
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=data, chunks=chunks, **filters)


def _chunks(path: Path):
    with h5py.File(path, "r") as f:
        ds = f["x"]
        for i in range(ds.id.get_num_chunks()):
            offset = ds.id.get_chunk_info(i).chunk_offset
            mask, raw = ds.id.read_direct_chunk(offset)
            box = tuple(slice(o, o + c) for o, c in zip(offset, ds.chunks, strict=True))
            yield mask, raw, ds[box], ds.chunks


PIPELINES = {
    "gzip": ({"compression": "gzip"}, ("gzip",)),
    "shuffle+gzip": ({"compression": "gzip", "shuffle": True}, ("shuffle", "gzip")),
    "shuffle+gzip+fletcher32": ({"compression": "gzip", "shuffle": True, "fletcher32": True},
                                ("shuffle", "gzip", "fletcher32")),
    "fletcher32": ({"fletcher32": True}, ("fletcher32",)),
}


@pytest.mark.parametrize("name", list(PIPELINES))
@pytest.mark.parametrize("dtype", ["<f4", ">i2", "<f8", "u1"])
def test_chunks_decode_as_hdf5_reads_them(tmp_path, backend, name, dtype):
    kw, filters = PIPELINES[name]
    data = (np.random.default_rng(3).standard_normal((50, 7)) * 100).astype(dtype)
    path = tmp_path / "f.h5"
    _write(path, data, (16, 4), **kw)
    itemsize = np.dtype(dtype).itemsize
    for mask, raw, oracle, chunks in _chunks(path):
        size = int(np.prod(chunks)) * itemsize
        arr, shuffled = inflate.undo_filters(raw, mask, filters, itemsize, size)
        assert not shuffled
        got = arr.view(dtype).reshape(chunks)[: oracle.shape[0], : oracle.shape[1]]
        np.testing.assert_array_equal(got, oracle)


def test_a_damaged_checksum_is_refused_as_hdf5_refuses_it(tmp_path, backend):
    path = tmp_path / "f.h5"
    _write(path, np.arange(400, dtype="<f4").reshape(100, 4), (50, 4), compression="gzip",
           shuffle=True, fletcher32=True)
    with h5py.File(path, "a") as f:
        mask, raw = f["x"].id.read_direct_chunk((50, 0))
        bad = bytearray(raw)
        bad[-1] ^= 0x10  # the stored checksum, not the deflate stream
        f["x"].id.write_direct_chunk((50, 0), bytes(bad), mask)
    with h5py.File(path, "r") as f, pytest.raises(OSError):
        f["x"][50:]  # the oracle: HDF5 refuses the chunk
    filters = ("shuffle", "gzip", "fletcher32")
    with pytest.raises(OSError, match="Fletcher-32"):
        inflate.undo_filters(bytes(bad), mask, filters, 4, 800)
    arr, _ = inflate.undo_filters(raw, mask, filters, 4, 800)
    np.testing.assert_array_equal(arr.view("<f4"), np.arange(200, 400, dtype="<f4"))


def test_the_pair_swapped_checksum_of_old_files_is_accepted():
    body = _payload(5, 4000)
    got = inflate.fletcher32(body)
    swapped = ((got & 0x00FF00FF) << 8) | ((got >> 8) & 0x00FF00FF)
    assert bytes(inflate.check_fletcher32(body + swapped.to_bytes(4, "little"))) == body
    assert bytes(inflate.check_fletcher32(body + got.to_bytes(4, "little"))) == body
    with pytest.raises(OSError):
        inflate.check_fletcher32(body + got.to_bytes(4, "big"))


def test_kept_shuffle_is_left_for_the_caller(backend):
    data = np.arange(64, dtype="<f4")
    shuffled = np.frombuffer(data.tobytes(), np.uint8).reshape(-1, 4).T.copy().tobytes()
    raw, still = inflate.undo_filters(zlib.compress(shuffled), 0, ("shuffle", "gzip"), 4, 256,
                                      keep_shuffled=True)
    assert still and bytes(raw) == shuffled
    raw, still = inflate.undo_filters(zlib.compress(shuffled), 0, ("shuffle", "gzip"), 4, 256)
    assert not still and bytes(raw) == data.tobytes()
    with pytest.raises(OSError, match="cannot be decoded here"):
        inflate.undo_filters(shuffled, 0, ("lzf",), 4, 256)


def _raw_deflate(data: bytes, level: int = 6) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


@pytest.mark.slow
def test_streams_match_zlib_in_bounded_blocks(backend):
    payload = _payload(7, 3 << 20) + bytes(2 << 20)
    stream = _raw_deflate(payload)
    d = inflate.stream_decompressor()
    parts, data, biggest = [], stream, 0
    while not d.eof:
        out = d.decompress(data, 65536)
        biggest = max(biggest, len(out))
        parts.append(out)
        data = d.unconsumed_tail
    assert b"".join(parts) == payload and biggest <= 65536
    assert inflate.crc32(payload) == zlib.crc32(payload)
    assert inflate.crc32(payload[10:], inflate.crc32(payload[:10])) == zlib.crc32(payload)
    with pytest.raises(inflate.STREAM_ERRORS):
        inflate.stream_decompressor().decompress(b"\xff" * 64)


@pytest.mark.slow
def test_counting_and_prefixes_match_zlib(backend):
    raw = zlib.compress(bytes(50 << 20), 9)
    assert inflate.count_inflated(raw, 1000) == 1001
    assert inflate.count_inflated(zlib.compress(bytes(1000)), 1000) == 1000
    payload = _payload(9, 100_000)
    assert inflate.inflate_prefix(zlib.compress(payload), 1234) == payload[:1234]
    with pytest.raises(OSError):
        inflate.count_inflated(b"\x78\x9c\xff\xff\xff\xff", 10)


def test_the_copyable_decompressor_resumes_from_a_copy():
    payload = _payload(11, 200_000)
    d = inflate.copyable_decompressor()
    head = d.decompress(_raw_deflate(payload), 50_000)
    tail = d.unconsumed_tail
    saved = d.copy()
    assert head + d.decompress(tail) == payload
    assert head + saved.decompress(tail) == payload


def test_summary_and_strided_reads_agree_with_h5py_on_the_fallback(tmp_path, backend,
                                                                    _worker_pool):
    from inspector.formats.hdf5 import strided as hdf5_strided
    from inspector.formats.hdf5.chunks import chunk_layout, decode_chunk

    data = (np.random.default_rng(13).standard_normal((3000, 6)) * 40).astype("<f4")
    path = tmp_path / "f.h5"
    _write(path, data, (256, 6), compression="gzip", shuffle=True, fletcher32=True)
    with h5py.File(path, "r") as f:
        ds = f["x"]
        layout = hdf5_strided.fast_layout(ds)
        assert layout is not None
        got = hdf5_strided.parallel_read(ds, layout, (slice(3, 2990, 7), slice(0, 6, 2)), None)
        np.testing.assert_array_equal(got, data[3:2990:7, 0:6:2])
        layout = chunk_layout(ds)
        assert layout is not None
        for i in range(ds.id.get_num_chunks()):
            offset = ds.id.get_chunk_info(i).chunk_offset
            mask, raw = ds.id.read_direct_chunk(offset)
            dec = decode_chunk(raw, mask, layout)
            rows = min(256, 3000 - offset[0])
            np.testing.assert_array_equal(dec[:rows], data[offset[0]: offset[0] + rows])


def _verdict(path: Path) -> tuple:
    from inspector.formats.aucx import open_archive

    doc = open_archive(path)
    doc.verify()
    return (doc.ok, sorted(f.code for f in doc.findings),
            [(m.name, m.status, m.computed) for m in doc.members])


@pytest.mark.slow
def test_archive_verification_is_the_same_on_the_fallback(monkeypatch):
    """Every corpus archive (damaged ones included): the same digests, statuses and
    findings from ISA-L as from zlib."""
    files = sorted((ROOT / "tests" / "fixtures" / "aucx").glob("*.aucx"))
    assert len(files) > 20
    wheels = {f.name: _verdict(f) for f in files}
    monkeypatch.setattr(inflate, "STREAM", zlib)
    monkeypatch.setattr(inflate, "STREAM_ERRORS", (zlib.error,))
    fallback = {f.name: _verdict(f) for f in files}
    assert fallback == wheels
    assert sum(1 for v in wheels.values() if any(m[2] for m in v[2])) > 10


@pytest.mark.parametrize("dtype", ["<f4", ">f8", "<i2", "u1"])
@pytest.mark.parametrize("name", ["shuffle+gzip", "gzip", "shuffle+gzip+fletcher32"])
def test_stored_block_minmax_is_numpys(tmp_path, backend, monkeypatch, dtype, name):
    """Slab by slab (a tiny slab forces several) it gives numpy's block min/max of the
    chunk HDF5 decodes; a block holding NaN is left to the caller (None)."""
    from inspector.formats.hdf5 import chunk_minmax

    monkeypatch.setattr(chunk_minmax, "SLAB_BYTES", 64)
    kw, filters = PIPELINES[name]
    data = (np.random.default_rng(17).standard_normal((96, 5)) * 90).astype(dtype)
    path = tmp_path / "f.h5"
    _write(path, data, (48, 5), **kw)
    for mask, raw, oracle, chunks in _chunks(path):
        got = chunk_minmax.stored_block_minmax(raw, mask, filters, np.dtype(dtype), chunks, 8)
        assert got is not None
        blocks = oracle.reshape(6, 8, 5)
        np.testing.assert_array_equal(got[0], blocks.min(axis=1))
        np.testing.assert_array_equal(got[1], blocks.max(axis=1))
    if np.dtype(dtype).kind == "f":
        data[50, 2] = np.nan
        _write(path, data, (48, 5), **kw)
        mask, raw, _oracle, chunks = list(_chunks(path))[1]
        assert chunk_minmax.stored_block_minmax(raw, mask, filters, np.dtype(dtype), chunks,
                                                8) is None
