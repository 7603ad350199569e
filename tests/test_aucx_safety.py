"""AUCX safety: crafted archives (names, duplicates, encryption flag, declared
sizes, overlapping entries, oversize inflation, pickled/object arrays) and
bounded memory while streaming (seed 002 "Safety")."""

from __future__ import annotations

import hashlib
import io
import json
import pathlib
import struct
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

from inspector.formats.auc.model import AucExperiment
from inspector.formats.aucx import open_archive, read_experiment, write_aucx
from inspector.formats.aucx.stream import MemberStream
from inspector.formats.aucx.zipscan import scan_zip
from tests.conftest import FIXTURES

BASE = FIXTURES / "aucx" / "src_readiness_rich.aucx"
_CDIR = struct.Struct("<4s4B4HL2L5H2L")
_LOCAL = struct.Struct("<4s2B4HL2L2H")
#: A scan's elapsed time as openauc's ScanMetadata requires one.
ELAPSED = {"value": 0.0, "unit": "s", "status": "present"}


def base_members() -> dict[str, bytes]:
    with zipfile.ZipFile(BASE) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def local_header(name: bytes, data: bytes, comp: bytes, method: int, flags: int = 0) -> bytes:
    return _LOCAL.pack(b"PK\x03\x04", 20, 0, flags, method, 0, 33, zlib.crc32(data),
                       len(comp), len(data), len(name), 0) + name


def raw_zip(entries: list[tuple[str, bytes]], method: int = 8) -> bytes:
    """A ZIP of ``entries`` in order (any names, duplicates allowed)."""
    out = bytearray()
    central = []
    for name, data in entries:
        nb = name.encode("utf-8")
        if method == 8:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            comp = c.compress(data) + c.flush()
        else:
            comp = data
        off = len(out)
        out += local_header(nb, data, comp, method) + comp
        central.append(_CDIR.pack(b"PK\x01\x02", 20, 0, 20, 0, 0, method, 0, 33,
                                  zlib.crc32(data), len(comp), len(data), len(nb), 0, 0, 0, 0,
                                  0o644 << 16, off) + nb)
    return finish(out, central)


def finish(out: bytearray, central: list[bytes]) -> bytes:
    start = len(out)
    cd = b"".join(central)
    out += cd + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(central), len(central),
                            len(cd), start, 0)
    return bytes(out)


def with_checksums(members: dict[str, bytes], extra_parts=()) -> list[tuple[str, bytes]]:
    """Members + manifest parts + a correct checksums.sha256 (only the crafted fault remains)."""
    members = dict(members)
    members.pop("checksums.sha256", None)
    if extra_parts:
        manifest = json.loads(members["manifest.json"])
        manifest["parts"] += list(extra_parts)
        members["manifest.json"] = json.dumps(manifest).encode()
    lines = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in sorted(members.items()))
    return [*members.items(), ("checksums.sha256", lines.encode())]


def patch(raw: bytes, name: str, *, flags: int = 0, file_size: int | None = None) -> bytes:
    """OR ``flags`` into, and/or set the uncompressed size of, ``name``'s central and
    local headers."""
    buf = bytearray(raw)
    eocd = buf.rfind(b"PK\x05\x06")
    cd_size, cd_off = struct.unpack_from("<2L", buf, eocd + 12)
    pos = cd_off
    while pos < cd_off + cd_size:
        f = list(_CDIR.unpack_from(buf, pos))
        nlen, xlen, clen, off = f[12], f[13], f[14], f[18]
        if buf[pos + 46 : pos + 46 + nlen].decode() == name:
            f[5] |= flags
            if file_size is not None:
                f[11] = file_size
            _CDIR.pack_into(buf, pos, *f)
            lf = list(_LOCAL.unpack_from(buf, off))
            lf[3] |= flags
            if file_size is not None:
                lf[9] = file_size
            _LOCAL.pack_into(buf, off, *lf)
        pos += 46 + nlen + xlen + clen
    return bytes(buf)


def opened(tmp_path, raw: bytes, name: str = "crafted.aucx"):
    path = tmp_path / name
    path.write_bytes(raw)
    doc = open_archive(path)
    doc.verify()
    return doc


def errors(doc) -> set[tuple[str, str]]:
    return {(f.code, f.location) for f in doc.findings if f.severity == "error"}


@pytest.mark.parametrize("bad", ["/abs", "C:/evil", "a/../../x", "back\\slash", "dir/", ""])
def test_unsafe_name_is_reported_and_never_decompressed(tmp_path, bad):
    members = base_members()
    members[bad] = b"payload"
    doc = opened(tmp_path, raw_zip(with_checksums(members, [bad])))
    assert ("zip.unsafe-name", bad) in errors(doc)
    row = next(m for m in doc.members if m.name == bad)
    assert row.status == "refused" and row.computed is None
    # the rest of the archive is still verified and shown
    assert all(m.status == "ok" for m in doc.members if m.name != bad)
    assert doc.summary["experiment_id"]


def test_duplicate_names(tmp_path):
    entries = with_checksums(base_members())
    entries.insert(3, ("provenance.json", b"{}"))
    doc = opened(tmp_path, raw_zip(entries))
    assert errors(doc) == {("zip.duplicate-member", "provenance.json")}
    assert [m.name for m in doc.members].count("provenance.json") == 1
    assert next(m for m in doc.members if m.name == "provenance.json").status == "duplicate-entry"


def test_encrypted_flag_in_headers(tmp_path):
    raw = patch(raw_zip(with_checksums(base_members())), "experiment.json", flags=0x1)
    doc = opened(tmp_path, raw)
    assert errors(doc) == {("zip.encrypted", "experiment.json")}
    assert "scans" not in doc.tables  # never decompressed, so never shown


def test_declared_size_per_member_and_total(tmp_path):
    raw = raw_zip(with_checksums(base_members()))
    one = patch(raw, "arrays/signal.npy", file_size=600 << 20)
    assert ("zip.declared-size", "arrays/signal.npy") in errors(opened(tmp_path, one, "a.aucx"))
    total = raw
    for name in ("manifest.json", "experiment.json", "provenance.json", "arrays/radius.npy",
                 "arrays/mask.npy"):
        total = patch(total, name, file_size=500 << 20)
    doc = opened(tmp_path, total, "b.aucx")
    assert ("zip.total-size", "") in errors(doc)
    assert all(m.computed is None for m in doc.members)  # nothing decompressed


def test_overlapping_entries(tmp_path):
    """Entry B's local header and data lie inside entry A's stored data."""
    b_data = b"hidden payload"
    b_local = local_header(b"B", b_data, b_data, 0) + b_data
    a_local = local_header(b"A", b_local, b_local, 0)
    out = bytearray(a_local + b_local)
    central = [
        _CDIR.pack(b"PK\x01\x02", 20, 0, 20, 0, 0, 0, 0, 33, zlib.crc32(b_local), len(b_local),
                   len(b_local), 1, 0, 0, 0, 0, 0o644 << 16, 0) + b"A",
        _CDIR.pack(b"PK\x01\x02", 20, 0, 20, 0, 0, 0, 0, 33, zlib.crc32(b_data), len(b_data),
                   len(b_data), 1, 0, 0, 0, 0, 0o644 << 16, len(a_local)) + b"B",
    ]
    doc = opened(tmp_path, finish(out, central))
    assert ("zip.overlap", "B") in errors(doc)
    assert next(m for m in doc.members if m.name == "B").status == "refused"


def test_inflating_past_the_declared_size_stops_at_the_limit(tmp_path):
    raw = patch(raw_zip(with_checksums(base_members())), "experiment.json", file_size=100)
    path = tmp_path / "x.aucx"
    path.write_bytes(raw)
    entry = scan_zip(path).first("experiment.json")
    stream = MemberStream(path, entry, out_block=64)
    assert len(b"".join(stream)) == 100
    assert stream.result.problem.code == "zip.size-exceeded"
    assert stream.result.problem.location == "experiment.json"
    doc = open_archive(path)
    doc.verify()
    assert ("zip.size-exceeded", "experiment.json") in errors(doc)
    assert ("checksums.mismatch", "experiment.json") in errors(doc)


class _Evil:
    def __init__(self, target: pathlib.Path) -> None:
        self.target = target

    def __reduce__(self):
        return (pathlib.Path.touch, (self.target,))


def test_pickled_object_array_is_never_unpickled(tmp_path):
    target = tmp_path / "pwned"
    buf = io.BytesIO()
    np.save(buf, np.array([_Evil(target)], dtype=object), allow_pickle=True)
    members = base_members()
    members["arrays/signal.npy"] = buf.getvalue()
    doc = opened(tmp_path, raw_zip(with_checksums(members)))
    assert ("array.pickled", "arrays/signal.npy") in errors(doc)
    assert "signal" not in doc.arrays
    assert not target.exists()


@pytest.mark.parametrize("member,array,code", [
    ("arrays/signal.npy", np.ones((3, 3), dtype=np.int64), "array.dtype"),
    ("arrays/radius.npy", np.ones((3, 3)), "array.ndim"),
    ("arrays/mask.npy", np.ones((3, 3), dtype=np.uint8), "array.dtype"),
])
def test_wrong_dtype_or_ndim(tmp_path, member, array, code):
    members = base_members()
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    members[member] = buf.getvalue()
    manifest = json.loads(members["manifest.json"])
    key = member.split("/")[1][:-4]
    manifest["observations"]["arrays"][key].update(shape=list(array.shape),
                                                   dtype=str(array.dtype))
    members["manifest.json"] = json.dumps(manifest).encode()
    doc = opened(tmp_path, raw_zip(with_checksums(members)))
    assert errors(doc) == {(code, member)}


def test_stored_members_verify_and_read_by_seeking(tmp_path):
    doc = opened(tmp_path, raw_zip(list(base_members().items()), method=0))
    assert doc.ok and doc.verified
    ref = open_archive(BASE)
    sig = doc.arrays["signal"]
    assert sig.storage == "npy-stored"
    assert (sig.read(1) == ref.arrays["signal"].read(1)).all()
    assert (sig.read((slice(None, None, -1), 2)) == ref.arrays["signal"].read()[::-1, 2]).all()


def big_archive(tmp_path) -> pathlib.Path:
    n_scans, n_points = 50, 125_000  # signal member: 50 MB
    signal = np.full((n_scans, n_points), 0.5)  # compressible: quick to build
    signal[:, -1] = 1.0
    exp = AucExperiment(
        metadata={"experiment_id": "big"}, instrument=None, samples=[],
        scans=[{"scan_id": f"s{i}", "index": i, "elapsed_time": ELAPSED}
               for i in range(n_scans)], provenance=None,
        mode="shared", radius_unit="cm", signal_unit="AU",
        scan_ids=[f"s{i}" for i in range(n_scans)], radius=np.linspace(6, 7, n_points),
        signal=signal, mask=np.ones(signal.shape, bool))
    return write_aucx(exp, tmp_path / "big.aucx", exported_at="2026-01-01T00:00:00Z")


@pytest.mark.slow
def test_memory_stays_bounded_on_a_50mb_member(tmp_path):
    path = big_archive(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    tracemalloc.start()
    try:
        doc = open_archive(path)
        doc.verify()
        row = doc.arrays["signal"].read(40)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert doc.ok and doc.verified
    assert next(m for m in doc.members if m.name == "arrays/signal.npy").computed is not None
    assert row.shape == (125_000,) and row[-1] == 1.0
    assert peak < 20 * 2**20, peak  # the signal member alone is 50 MB
    assert doc.auc is None or doc.auc.experiment is None  # too large to load whole at open
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing extracted
    assert read_experiment(path).signal.shape == (50, 125_000)


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def test_masked_in_nan_is_reported_per_scan(tmp_path):
    with zipfile.ZipFile(FIXTURES / "aucx" / "src_per_scan.aucx") as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
        signal = np.load(io.BytesIO(members["arrays/signal.npy"]))
        mask = np.load(io.BytesIO(members["arrays/mask.npy"]))
    assert not mask.all()  # NaN padding behind False is fine ...
    signal[mask.nonzero()[0][0], mask.nonzero()[1][0]] = np.nan  # ... a masked-in NaN is not
    members["arrays/signal.npy"] = _npy(signal)
    doc = opened(tmp_path, raw_zip(with_checksums(members)))
    assert errors(doc) == {("array.masked-in-non-finite", "arrays/signal.npy")}
    assert doc.auc is None or doc.auc.experiment is None


def test_non_finite_value_on_shared_axis(tmp_path):
    members = base_members()
    radius = np.load(io.BytesIO(members["arrays/radius.npy"]))
    radius[0] = np.inf
    members["arrays/radius.npy"] = _npy(radius)
    doc = opened(tmp_path, raw_zip(with_checksums(members)))
    assert errors(doc) == {("array.non-finite", "arrays/radius.npy")}


def test_member_vanishing_during_verification_is_a_finding(tmp_path):
    path = tmp_path / "gone.aucx"
    path.write_bytes(BASE.read_bytes())
    doc = open_archive(path)
    path.unlink()
    doc.verify()
    assert doc.verified and not doc.ok
    # the file opened is gone: one finding says so, and nothing is called verified
    assert [(f.code, "removed" in f.message) for f in doc.findings] == [("file.changed", True)]
    assert doc.summary["checksum_verified"] is False


class _Unseekable(io.RawIOBase):
    def __init__(self) -> None:
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        self.data += b
        return len(b)


@pytest.mark.parametrize("variant", ["zip64-extra", "data-descriptor"])
def test_other_valid_zip_layouts_verify(tmp_path, variant):
    """ZIP64 extra fields and data descriptors (APPNOTE 4.3.9, 4.5.3) are legal."""
    members = base_members()
    sink = _Unseekable() if variant == "data-descriptor" else tmp_path / "v.aucx"
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            with zf.open(name, "w", force_zip64=variant == "zip64-extra") as fh:
                fh.write(data)
    if variant == "data-descriptor":
        (tmp_path / "v.aucx").write_bytes(bytes(sink.data))
        assert all(i.flag_bits & 0x8 for i in zipfile.ZipFile(tmp_path / "v.aucx").infolist())
    doc = open_archive(tmp_path / "v.aucx")
    doc.verify()
    assert doc.ok and doc.verified, [f.to_json() for f in doc.findings]


@pytest.mark.parametrize("offset", [(1 << 64) - 2, 1 << 63, 10**12])
def test_zip64_extra_field_with_a_huge_local_header_offset(tmp_path, offset):
    """A ZIP64 extra field (APPNOTE 4.5.3) may give any 64-bit offset: one past the
    central directory is refused at its member, never sought."""
    buf = bytearray(raw_zip(with_checksums(base_members())))
    eocd = buf.rfind(b"PK\x05\x06")
    cd_size, cd_off = struct.unpack_from("<2L", buf, eocd + 12)
    f = list(_CDIR.unpack_from(buf, cd_off))
    name = bytes(buf[cd_off + 46 : cd_off + 46 + f[12]]).decode()
    extra = struct.pack("<HHQ", 0x0001, 8, offset)
    f[13], f[18] = len(extra), 0xFFFFFFFF
    _CDIR.pack_into(buf, cd_off, *f)
    buf[cd_off + 46 + f[12] : cd_off + 46 + f[12]] = extra
    struct.pack_into("<L", buf, eocd + len(extra) + 12, cd_size + len(extra))
    doc = opened(tmp_path, bytes(buf))
    assert ("zip.data-out-of-bounds", name) in errors(doc)
    assert next(m for m in doc.members if m.name == name).status == "refused"
    assert not any(f.code.startswith("internal.") for f in doc.findings)
