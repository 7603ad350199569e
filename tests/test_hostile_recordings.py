"""Hostile VneuroTK recordings: each becomes findings, never a hang, crash or traceback."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats import open_document
from inspector.formats.arrays import MAX_VIEW_SAMPLES, NumpyArrayRef

V1 = Path(__file__).parent / "fixtures" / "vneurotk" / "v1"


def _copy(tmp_path: Path, name: str, out: str) -> Path:
    p = tmp_path / out
    shutil.copy(V1 / name, p)
    os.chmod(p, 0o644)
    return p


def _codes(doc) -> set[tuple[str, str, str]]:
    return {(f.severity, f.code, f.location) for f in doc.findings}


def test_huge_declared_dense_envelope_is_bounded(tmp_path):
    p = _copy(tmp_path, "continuous_dense_f32_intids.h5", "huge.h5")
    with h5py.File(p, "r+") as f:
        del f["neuro"]
        f.create_dataset("neuro", shape=(2**40, 5), dtype="f4", chunks=(4096, 5), compression="gzip")
    doc = open_document(p)
    ref = doc.arrays["neuro"]
    reads = []
    real = ref.read

    def counting(sel):
        out = real(sel)
        reads.append(out.size)
        return out

    ref.read = counting
    env = ref.envelope((None, 0), 0, 2**40, 100)
    assert sum(reads) <= MAX_VIEW_SAMPLES and max(reads) <= MAX_VIEW_SAMPLES
    assert env.exact is False and len(env.lo) == 100
    assert np.all(env.lo == 0) and np.all(env.hi == 0)  # unwritten chunks read as the fill value
    doc.close()


def test_plain_envelope_exact_below_cap_and_bins_wider_than_a_read_block():
    a = np.arange(3 << 20, dtype=np.float32)
    env = NumpyArrayRef("x", a).envelope((None,), 0, a.size, 2)
    assert env.exact and env.lo.tolist() == [0.0, float(a.size // 2)]
    assert env.hi.tolist() == [float(a.size // 2 - 1), float(a.size - 1)]


def test_vds_with_missing_source_exits_cleanly(tmp_path):
    p = _copy(tmp_path, "epochs_dense_f64_strids.h5", "vds.h5")
    with h5py.File(p, "r+") as f:
        del f["neuro"]
        lay = h5py.VirtualLayout(shape=(10, 64, 5), dtype="f8")
        lay[...] = h5py.VirtualSource(str(tmp_path / "nonexistent.h5"), "data", shape=(10, 64, 5))
        f.create_virtual_dataset("neuro", lay, fillvalue=0)
    # a leaked reference to the VDS creation property list crashed HDF5 at exit
    code = (
        "import ctypes, sys\n"
        "from inspector.formats import open_document\n"
        f"d = open_document({str(p)!r})\n"
        "r = d.arrays['neuro']\n"
        "assert r.chunk_layout() is None\n"
        "print(float(r.envelope((0, None, 0), 0, 64, 10).hi.max()))\n"
        "ctypes.pythonapi.Py_IncRef(ctypes.py_object(r._ds.id.get_create_plist()))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "0.0"


def test_png_decompression_bomb_is_a_finding(tmp_path):
    p = _copy(tmp_path, "epochs_dense_f64_strids.h5", "bomb.h5")

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 50000, 50000, 8, 0, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b""))
    with h5py.File(p, "r+") as f:
        del f["stimuli_db/0/image"]
        f["stimuli_db/0/image"] = np.frombuffer(png, dtype="u1")
        f["stimuli_db/0/image"].attrs["kind"] = "image_bytes"
    doc = open_document(p)
    doc.verify()
    bad = [f for f in doc.findings if f.code == "stimuli.undecodable"]
    assert len(bad) == 1 and bad[0].location == "/stimuli_db/0/image" and "bomb" in bad[0].message
    stim = next(s for s in doc.stimuli if s.location == "/stimuli_db/0/image")
    with pytest.raises(OSError):
        stim.load()
    doc.close()


def test_provenance_nan_is_warned_and_kept_as_string(tmp_path):
    p = _copy(tmp_path, "epochs_dense_f64_strids.h5", "nan.h5")
    with h5py.File(p, "r+") as f:
        f["vision_store/0"].attrs["extraction_provenance"] = '{"backend": NaN, "device": Infinity}'
    doc = open_document(p)
    doc.verify()
    text = json.dumps(doc.summary, allow_nan=False)
    prov = doc.summary["vision_records"][0]["provenance"]
    assert prov["backend"] == "NaN" and prov["device"] == "Infinity"
    warns = [f for f in doc.findings if f.code == "vision.provenance-nonstandard-json"]
    assert [w.severity for w in warns] == ["warning", "warning"]
    assert "NaN" in warns[0].message and warns[0].location == "/vision_store/0@extraction_provenance"
    assert text
    doc.close()


def _coo(tmp_path, out, fn):
    p = _copy(tmp_path, "epochs_coo_sparse_f32.h5", out)
    with h5py.File(p, "r+") as f:
        fn(f)
    return p


def test_coo_out_of_range_coordinates_found_by_verify(tmp_path):
    def bad(f):
        f["neuro_row"][0] = -5
        f["neuro_col"][1] = -1
    doc = open_document(_coo(tmp_path, "oob.h5", bad))
    doc.verify()
    got = {(f.code, f.location) for f in doc.findings if f.severity == "error"}
    assert ("neuro.coo-out-of-range", "/neuro_row") in got
    assert ("neuro.coo-out-of-range", "/neuro_col") in got
    doc.close()


@pytest.mark.parametrize("mutate, code, loc", [
    (lambda f: f.attrs.__setitem__("neuro_dtype", "object"), "neuro.coo-dtype", "/@neuro_dtype"),
    (lambda f: (f.__delitem__("neuro_data"),
                f.create_dataset("neuro_data", data=np.array(["x"] * len(f["neuro_col"]), dtype=object),
                                 dtype=h5py.string_dtype())), "neuro.coo-data-dtype", "/neuro_data"),
    (lambda f: (f.__setitem__("rows_f", f["neuro_row"][:].astype("f8")), f.__delitem__("neuro_row"),
                f.move("rows_f", "neuro_row")), "neuro.coo-index-dtype", "/neuro_row"),
])
def test_coo_bad_dtypes_found_at_open(tmp_path, mutate, code, loc):
    doc = open_document(_coo(tmp_path, "bad.h5", mutate))
    assert ("error", code, loc) in _codes(doc)
    doc.close()


def test_coo_huge_declared_shape_is_not_hashed(tmp_path):
    doc = open_document(_coo(tmp_path, "big.h5", lambda f: f.attrs.__setitem__("neuro_shape", [10**6] * 3)),
                        hash_arrays=True)
    assert any(f.code == "neuro.too-large-to-hash" for f in doc.findings)
    assert "sha256" not in doc.summary.get("neuro", {})
    doc.close()


@pytest.mark.parametrize("dtype, severity", [
    (h5py.string_dtype(), "error"), (np.dtype([("a", "f4"), ("b", "i4")]), "error"),
    (np.dtype("V4"), "error"), (np.dtype("?"), "warning"), (np.dtype("c8"), "warning"),
])
def test_non_numeric_dense_neuro(tmp_path, dtype, severity):
    p = _copy(tmp_path, "epochs_dense_f64_strids.h5", "nn.h5")
    with h5py.File(p, "r+") as f:
        del f["neuro"]
        f.create_dataset("neuro", shape=(10, 64, 5), dtype=dtype)
    doc = open_document(p)
    code = "neuro.dtype" if severity == "error" else "neuro.dtype-unusual"
    assert (severity, code, "/neuro") in _codes(doc)
    doc.close()


def test_non_string_channel_names_warned(tmp_path):
    p = _copy(tmp_path, "epochs_dense_f64_strids.h5", "ch.h5")
    with h5py.File(p, "r+") as f:
        f["neuro_info"].attrs["ch_names"] = np.array([1.5, np.nan, 3, 4, 5])
    doc = open_document(p)
    got = [f for f in doc.findings if f.code == "neuro-info.ch-names-type"]
    assert len(got) == 1 and got[0].severity == "warning" and got[0].location == "/neuro_info@ch_names"
    doc.close()
