"""Lazy reads of deflated ``.npy`` members: numpy is the oracle, the inflate cost is counted.

A deflated member larger than the reader's cache is read through an
:class:`~inspector.formats.aucx.stream.InflateCursor`: reads in ascending
order resume where the previous one ended (every byte inflated once), a read
before the current position restarts from the nearest checkpoint, never
from the member's start unless it lies before the first checkpoint.
"""

from __future__ import annotations

import dataclasses
import io
import threading
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from inspector.formats.aucx import arrayrefs
from inspector.formats.aucx import stream as st
from inspector.formats.aucx.arrayrefs import MaskedLineRef, NpyMemberRef
from inspector.formats.aucx.npyfmt import parse_header
from inspector.formats.aucx.stream import InflateCursor
from inspector.formats.aucx.zipscan import scan_zip

MEMBER = "arrays/signal.npy"


def npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def signal_like(scans: int, points: int, seed: int = 1) -> np.ndarray:
    """Smooth profiles with quantised noise: compressible like real scans, not trivially."""
    rng = np.random.default_rng(seed)
    x = np.linspace(0, 1, points)
    noise = np.round(rng.normal(0, 1, (scans, points)) * 8) / 8
    return np.sin(x * 6 + np.arange(scans)[:, None]) + noise


def archive(tmp_path: Path, data: bytes, name: str = "a.aucx", level: int = 1) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as zf:
        zf.writestr("mimetype", b"application/x-aucx", compress_type=zipfile.ZIP_STORED)
        zf.writestr(MEMBER, data)
    return path


def member_ref(path: Path, cls=NpyMemberRef, **kw) -> NpyMemberRef:
    entry = next(e for e in scan_zip(path).entries if e.name == MEMBER)
    with zipfile.ZipFile(path) as zf:
        head = zf.open(MEMBER).read(4096)
    return cls("signal", path, entry, parse_header(head), **kw)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A 24 MB float64 (48, 62 500) array as a deflated member (above the 16 MB cache)."""
    a = signal_like(48, 62_500)
    raw = npy(a)
    path = archive(tmp_path_factory.mktemp("big"), raw)
    return path, a, raw


@pytest.mark.slow
def test_the_fixture_member_is_deflated_and_above_the_cache(big):
    path, a, _ = big
    ref = member_ref(path)
    assert ref.storage == "npy-deflated" and ref.header.nbytes == a.nbytes > arrayrefs.CACHE_LIMIT
    assert ref.entry.compressed_size < ref.entry.file_size  # really compressed
    assert ref.cursor is not None


@pytest.mark.slow
def test_random_selections_equal_numpy(big):
    path, a, raw = big
    oracle = np.load(io.BytesIO(raw))
    np.testing.assert_array_equal(oracle, a)
    ref = member_ref(path)
    rng = np.random.default_rng(4)
    n = a.shape[0]
    for _ in range(40):
        kind = rng.integers(0, 4)
        if kind == 0:
            sel = int(rng.integers(-n, n))
        elif kind == 1:
            i, j = sorted(rng.integers(0, n + 1, 2))
            sel = (slice(int(i), int(j)), slice(int(rng.integers(0, 100)), None, 7))
        elif kind == 2:
            i, j = sorted(rng.integers(0, n, 2))
            sel = slice(int(j), int(i) - 1 if i else None, -int(rng.integers(1, 4)))
        else:
            sel = (int(rng.integers(0, n)), int(rng.integers(0, a.shape[1])))
        got = ref.read(sel)
        np.testing.assert_array_equal(got, oracle[sel])
        assert got.dtype == oracle.dtype
    assert ref.cursor.checkpoints  # random reads left checkpoints behind
    assert len(ref.cursor.checkpoints) <= st.MAX_CHECKPOINTS


@pytest.mark.slow
def test_ascending_blocks_inflate_each_byte_once(big):
    path, a, raw = big
    ref = member_ref(path)
    for r in range(0, a.shape[0], 2):  # as the scan envelopes read: two scans a block
        np.testing.assert_array_equal(ref.read((slice(r, r + 2), slice(None))), a[r:r + 2])
    # linear: the member once (header included), not once per block (~ 24 x the member)
    assert ref.cursor.inflated == len(raw) == ref.entry.file_size
    assert ref.cursor.crc_ok is True  # the pass reached the end: its CRC-32 was checked
    # the same scan again starts over once (the first checkpoint is past row 0) and stays linear
    before = ref.cursor.inflated
    for r in range(a.shape[0]):
        np.testing.assert_array_equal(ref.read(r), a[r])
    assert ref.cursor.inflated - before == len(raw)


@pytest.mark.slow
def test_a_backward_read_restarts_from_the_nearest_checkpoint(big):
    path, a, raw = big
    ref = member_ref(path)
    cur = ref.cursor
    np.testing.assert_array_equal(ref.read(a.shape[0] - 1), a[-1])  # to the end
    spacing = cur.spacing
    assert spacing == st.CHECKPOINT_SPACING
    assert len(cur.checkpoints) == len(raw) // spacing  # one per spacing mark passed
    row_bytes = a.shape[1] * 8
    off = ref.header.data_offset
    for row in (40, 25, 3):  # backwards
        before = cur.inflated
        np.testing.assert_array_equal(ref.read(row), a[row])
        start = off + row * row_bytes
        nearest = max([c for c in cur.checkpoints if c <= start], default=0)
        assert cur.resumed_at == nearest
        assert cur.inflated - before == start + row_bytes - nearest <= spacing + row_bytes
    assert cur.resumed_at == 0  # row 3 lies before the first checkpoint: the member's start
    # forwards again from row 3 to row 45 resumes at the checkpoint nearest to row 45
    np.testing.assert_array_equal(ref.read(45), a[45])
    assert cur.resumed_at > off + 40 * row_bytes - spacing


def test_checkpoints_are_bounded_and_spaced(tmp_path):
    a = signal_like(4, 20_000, seed=2)
    raw = npy(a)
    entry = next(e for e in scan_zip(archive(tmp_path, raw)).entries if e.name == MEMBER)
    cur = InflateCursor(tmp_path / "a.aucx", entry, spacing=50_000, out_block=4096)
    assert cur.read(0, len(raw)) == raw and cur.crc_ok is True
    marks = [c // 50_000 for c in cur.checkpoints]
    assert marks == list(range(1, len(raw) // 50_000 + 1))  # one per mark, in order
    assert all(c - m * 50_000 < 4096 for c, m in zip(cur.checkpoints, marks, strict=True))
    assert cur.read(120_000, 120_010) == raw[120_000:120_010]
    assert cur.resumed_at == cur.checkpoints[1]  # the one at 100 000 (+ < one block)
    assert InflateCursor(tmp_path / "a.aucx", entry).spacing == st.CHECKPOINT_SPACING
    # a large member: never more than MAX_CHECKPOINTS, spread evenly
    huge = dataclasses.replace(entry, file_size=512 << 20)
    assert InflateCursor(tmp_path / "a.aucx", huge).spacing == (512 << 20) // st.MAX_CHECKPOINTS


def test_every_small_read_pattern_matches(tmp_path):
    raw = npy(signal_like(3, 7_001, seed=3))
    entry = next(e for e in scan_zip(archive(tmp_path, raw, level=6)).entries if e.name == MEMBER)
    cur = InflateCursor(tmp_path / "a.aucx", entry, spacing=10_000, read_block=777,
                        out_block=1000)
    rng = np.random.default_rng(8)
    for _ in range(300):
        i, j = sorted(int(v) for v in rng.integers(0, len(raw) + 50, 2))
        assert cur.read(i, j) == raw[i:j]  # past the end: what there is
    assert cur.read(len(raw), len(raw) + 10) == b"" and cur.read(5, 5) == b""
    with pytest.raises(ValueError):
        cur.read(5, 4)


def test_crc_is_carried_and_checked_not_raised(tmp_path):
    raw = npy(signal_like(2, 3000, seed=5))
    entry = next(e for e in scan_zip(archive(tmp_path, raw)).entries if e.name == MEMBER)
    assert entry.crc == zlib.crc32(raw)
    cur = InflateCursor(tmp_path / "a.aucx", entry, spacing=4096)
    cur.read(20_000, 30_000)
    assert cur.crc_ok is None  # not at the end yet
    cur.read(10, 20)  # back to a checkpoint: its CRC covers the bytes before it
    cur.read(len(raw) - 10, len(raw))
    assert cur.crc_ok is True
    wrong = InflateCursor(tmp_path / "a.aucx", dataclasses.replace(entry, crc=entry.crc ^ 1))
    assert wrong.read(0, len(raw)) == raw and wrong.crc_ok is False  # data as stored


def test_damaged_members_raise(tmp_path):
    raw = npy(signal_like(2, 50_000, seed=6))
    path = archive(tmp_path, raw)
    entry = next(e for e in scan_zip(path).entries if e.name == MEMBER)
    blob = bytearray(path.read_bytes())
    blob[entry.data_offset] = 0xFF  # the first block's type is 3: reserved, invalid
    bad = tmp_path / "bad.aucx"
    bad.write_bytes(bytes(blob))
    with pytest.raises(OSError, match="deflate data is corrupt"):
        InflateCursor(bad, entry).read(0, len(raw))
    with pytest.raises(OSError, match="deflate data is corrupt"):
        member_ref_from(bad, entry, raw).read(1)
    cut = tmp_path / "cut.aucx"
    cut.write_bytes(path.read_bytes()[:entry.data_offset + entry.compressed_size // 3])
    assert len(InflateCursor(cut, entry).read(0, len(raw))) < len(raw)
    with pytest.raises(OSError, match="shorter than its header"):
        member_ref_from(cut, entry, raw).read(1)
    with pytest.raises(ValueError, match="deflated"):
        InflateCursor(path, dataclasses.replace(entry, method=0))


def member_ref_from(path: Path, entry, raw: bytes) -> NpyMemberRef:
    return NpyMemberRef("signal", path, entry, parse_header(raw[:4096]))


@pytest.mark.slow
def test_concurrent_readers_of_one_member(big, monkeypatch):
    path, a, _ = big
    ref = member_ref(path)
    errors: list[BaseException] = []

    def reader(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(12):
                r = int(rng.integers(0, a.shape[0]))
                np.testing.assert_array_equal(ref.read((slice(r, r + 1), slice(None, None, 5))),
                                              a[r:r + 1, ::5])
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=reader, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors


def test_masked_line_envelope_reads_through_the_cursor(tmp_path, monkeypatch):
    monkeypatch.setattr(arrayrefs, "CACHE_LIMIT", 0)  # every member read lazily
    a = signal_like(5, 4_000, seed=7)
    path = archive(tmp_path, npy(a))
    ref = member_ref(path, MaskedLineRef)
    env = ref.envelope((2, None), 100, 3_100, 30)
    block = a[2, 100:3_100].reshape(30, 100)
    np.testing.assert_array_equal(env.lo, block.min(axis=1))
    np.testing.assert_array_equal(env.hi, block.max(axis=1))
    assert ref.cursor.inflated < ref.entry.file_size  # only up to the rows needed


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_column_windows_read_only_their_bytes(tmp_path, monkeypatch, method):
    monkeypatch.setattr(arrayrefs, "CACHE_LIMIT", 0)  # every member read lazily
    a = signal_like(30, 5_000, seed=9).astype(">f8")  # big-endian: converted to native
    path = tmp_path / "w.aucx"
    with zipfile.ZipFile(path, "w", method) as zf:
        zf.writestr(MEMBER, npy(a))
    ref = member_ref(path)
    rng = np.random.default_rng(10)
    for _ in range(30):
        r0, r1 = sorted(int(v) for v in rng.integers(0, 31, 2))
        c0 = int(rng.integers(-5_000, 5_000))
        sel = (slice(r0, r1), slice(c0, c0 + int(rng.integers(1, 2_400))))
        got = ref.read(sel)
        np.testing.assert_array_equal(got, a[sel])
        assert got.dtype == np.dtype("<f8")
    if method == zipfile.ZIP_DEFLATED:  # ascending windows of every row: inflated once
        ref.read((slice(0, 1), slice(0, 1)))  # back to the start
        before = ref.cursor.inflated
        for r in range(0, 30, 3):
            np.testing.assert_array_equal(ref.read((slice(r, r + 3), slice(2_000, 2_100))),
                                          a[r:r + 3, 2_000:2_100])
        assert ref.cursor.inflated - before <= ref.entry.file_size
