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
from inspector.formats.analysis.arrays import MAX_VIEW_SAMPLES, NumpyArrayRef

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
        f.create_dataset(
            "neuro", shape=(2**40, 5), dtype="f4", chunks=(4096, 5), compression="gzip"
        )
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


@pytest.mark.slow
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
        "try:\n"
        "    r.envelope((0, None, 0), 0, 64, 10)\n"
        "except OSError as exc:\n"  # a missing source is never read (external_guard)
        "    print(type(exc).__name__, 'vds.missing-source' in {f.code for f in d.findings})\n"
        "ctypes.pythonapi.Py_IncRef(ctypes.py_object(r._ds.id.get_create_plist()))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ExternalRefused True"


@pytest.mark.slow
def test_png_decompression_bomb_is_a_finding(tmp_path):
    p = _copy(tmp_path, "epochs_dense_f64_strids.h5", "bomb.h5")

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 50000, 50000, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
        + chunk(b"IEND", b"")
    )
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
    assert (
        "NaN" in warns[0].message and warns[0].location == "/vision_store/0@extraction_provenance"
    )
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


@pytest.mark.parametrize(
    "mutate, code, loc",
    [
        (
            lambda f: f.attrs.__setitem__("neuro_dtype", "object"),
            "neuro.coo-dtype",
            "/@neuro_dtype",
        ),
        (
            lambda f: (
                f.__delitem__("neuro_data"),
                f.create_dataset(
                    "neuro_data",
                    data=np.array(["x"] * len(f["neuro_col"]), dtype=object),
                    dtype=h5py.string_dtype(),
                ),
            ),
            "neuro.coo-data-dtype",
            "/neuro_data",
        ),
        (
            lambda f: (
                f.__setitem__("rows_f", f["neuro_row"][:].astype("f8")),
                f.__delitem__("neuro_row"),
                f.move("rows_f", "neuro_row"),
            ),
            "neuro.coo-index-dtype",
            "/neuro_row",
        ),
    ],
)
def test_coo_bad_dtypes_found_at_open(tmp_path, mutate, code, loc):
    doc = open_document(_coo(tmp_path, "bad.h5", mutate))
    assert ("error", code, loc) in _codes(doc)
    doc.close()


def test_coo_huge_declared_shape_is_not_hashed(tmp_path):
    doc = open_document(
        _coo(tmp_path, "big.h5", lambda f: f.attrs.__setitem__("neuro_shape", [10**6] * 3)),
        hash_arrays=True,
    )
    assert any(f.code == "neuro.too-large-to-hash" for f in doc.findings)
    assert "sha256" not in doc.summary.get("neuro", {})
    doc.close()


@pytest.mark.parametrize(
    "dtype, severity",
    [
        (h5py.string_dtype(), "error"),
        (np.dtype([("a", "f4"), ("b", "i4")]), "error"),
        (np.dtype("V4"), "error"),
        (np.dtype("?"), "warning"),
        (np.dtype("c8"), "warning"),
    ],
)
@pytest.mark.slow
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
    assert (
        len(got) == 1 and got[0].severity == "warning" and got[0].location == "/neuro_info@ch_names"
    )
    doc.close()


# -- hostile structures built with h5py: each a finding at its location ------------------
def _rec(tmp_path, name="rec.h5", **kw) -> Path:
    from test_vneurotk_helpers import write_recording

    p = tmp_path / name
    write_recording(p, **kw)
    return p


def _all_text_encodable(doc) -> None:
    """No unencodable string (lone surrogate) reaches a view or the JSON line."""
    for node in doc.tree.walk():
        for text in (node.name, node.location, node.detail):
            text.encode("utf-8")
        values = node.value if isinstance(node.value, list) else [node.value]
        for v in values:
            if isinstance(v, str):
                v.encode("utf-8")
    json.dumps(doc.to_json(), ensure_ascii=False, allow_nan=False).encode("utf-8")


@pytest.mark.slow
def test_many_attributes_are_capped(tmp_path):
    from inspector.formats.hdf5.attributes import MAX_ATTRIBUTES

    p = _rec(tmp_path, libver="latest")  # dense attribute storage: 100 000 attributes fit
    with h5py.File(p, "r+", libver="latest") as f:
        sid, tid = h5py.h5s.create(h5py.h5s.SCALAR), h5py.h5t.NATIVE_INT32
        for i in range(100_000):
            h5py.h5a.create(f.id, f"x{i:06d}".encode(), tid, sid)
        f["neuro_info"].attrs.create("big", np.zeros(300_000, np.float64))  # 2.4 MB
    with open_document(p) as doc:
        assert doc.ok, [x.to_json() for x in doc.findings if x.severity == "error"]
        capped = [x for x in doc.findings if x.code == "tree.attributes-capped"]
        assert len(capped) == 1 and capped[0].location == "/" and capped[0].severity == "warning"
        n_root_attrs = 100_000 + 8
        assert f"{n_root_attrs - MAX_ATTRIBUTES} are left out" in capped[0].message
        attrs = [c for c in doc.tree.children if c.kind == "attribute"]
        assert len(attrs) == MAX_ATTRIBUTES
        big = doc.tree.find("/neuro_info@big")
        assert big.value is None and "not read" in big.detail
        info = doc.summary["neuro_info"]  # a value over the per-value limit is never read
        assert info["sfreq"] == 100.0 and "big" not in info
        too_large = [x for x in doc.findings if x.code == "data.value-too-large"]
        assert [x.location for x in too_large] == ["/neuro_info@big"]


def test_vision_info_as_a_huge_dataset_is_not_iterated(tmp_path):
    p = _rec(tmp_path)
    with h5py.File(p, "r+") as f:
        del f["vision_info"]
        f.create_dataset("vision_info", shape=(2**40,), dtype="i1", chunks=(1 << 16,))
    with open_document(p) as doc:
        assert ("error", "vision-info.not-group", "/vision_info") in _codes(doc)
        assert ("error", "trials.missing", "/vision_info") in _codes(doc)
        assert doc.trials is not None and doc.trials.trial_starts is not None


def test_huge_declared_metadata_is_not_read(tmp_path):
    from test_vneurotk_helpers import write_typed

    p = _rec(tmp_path)
    with h5py.File(p, "r+") as f:
        del f["trial_starts"]
        f.create_dataset(
            "trial_starts", shape=(300_000_000,), dtype="i8", chunks=(1 << 20,), compression="gzip"
        )
        tm = f.create_group("trial_meta")
        tm.create_dataset("rt", shape=(300_000_000,), dtype="f8", chunks=(1 << 20,))
        vs = f.create_group("vision_store/0")
        vs.attrs.update({"model": "m", "module_name": "a", "module_type": "t"})
        ids = write_typed(vs, "stim_ids", [10, 20])
        del ids["types"], ids["values"]
        ids.create_dataset("types", shape=(300_000_000,), dtype="u1", chunks=(1 << 20,))
        ids.create_dataset(
            "values", shape=(300_000_000,), dtype=h5py.string_dtype(), chunks=(1 << 16,)
        )
        vs.create_dataset("array", data=np.zeros((2, 3)))
    assert p.stat().st_size < 1 << 20  # declared gigabytes, stored in kilobytes
    with open_document(p) as doc:
        codes = _codes(doc)
        assert ("error", "trials.too-large", "/trial_starts") in codes
        assert ("error", "trial-meta.too-large", "/trial_meta/rt") in codes
        assert ("error", "scalar.too-large", "/vision_store/0/stim_ids") in codes
        assert not any(c == "trials.missing" for _, c, _ in codes)  # present, not missing
        assert doc.trials.trial_starts is None and doc.trials.trial_ends is not None
        assert doc.header.find("/trial_starts") is None
        prov = doc.provenance.children[1]
        assert "rejected: scalar.too-large" in prov.detail


def test_scalar_trial_starts_and_odd_stim_ids(tmp_path):
    p = _rec(tmp_path)
    with h5py.File(p, "r+") as f:
        del f["trial_starts"]
        f["trial_starts"] = np.int64(0)
        del f["vision_info/stim_ids"]
        f["vision_info"].create_dataset("stim_ids", data=np.int64(10))
    with open_document(p) as doc:
        codes = _codes(doc)
        assert ("error", "trials.not-1d", "/trial_starts") in codes
        assert doc.header.find("/trial_starts").value == "scalar int64"
        assert doc.trials.trial_starts is None
        assert doc.summary["vision_info"]["stim_ids"] == {"type": "int", "value": 10}
    with h5py.File(p, "r+") as f:
        del f["trial_starts"]
        f["trial_starts"] = np.arange(4, dtype=np.int64) * 50
        del f["vision_info/stim_ids"]
        f["vision_info"].create_dataset("stim_ids", data=h5py.Empty("i8"))
        vs = f.create_group("vision_store/0")
        vs.attrs.update({"model": "m", "module_name": "a", "module_type": "t"})
        vs.create_dataset("stim_ids", data=h5py.Empty("i8"))
        vs.create_dataset("array", data=np.zeros((3, 2)))
    with open_document(p) as doc:
        codes = _codes(doc)
        assert ("error", "trials.vision-ids", "/vision_info/stim_ids") in codes
        assert ("error", "vision.ids-length", "/vision_store/0/stim_ids") in codes
        assert doc.summary["vision_info"]["stim_ids"]["type"] == "empty"
        json.dumps(doc.to_json(), allow_nan=False)


def test_invalid_utf8_names_and_unsupported_float_type(tmp_path):
    p = _rec(tmp_path)
    with h5py.File(p, "r+") as f:
        f.create_group(b"bad\xffname")
        tid = h5py.h5t.IEEE_F64LE.copy()
        tid.set_size(16)
        tid.set_precision(128)
        tid.set_fields(127, 112, 15, 0, 112)  # IEEE binary128: wider than any numpy float
        tid.set_ebias(16383)
        h5py.h5d.create(f.id, b"quad", tid, h5py.h5s.create_simple((3,)))
        h5py.h5a.create(f["neuro_info"].id, b"quad", tid, h5py.h5s.create(h5py.h5s.SCALAR))
    with open_document(p) as doc:
        codes = _codes(doc)
        assert ("warning", "text.invalid-utf8", "/bad\\xffname") in codes
        assert doc.tree.find("/bad\\xffname").kind == "group"
        assert ("warning", "tree.unsupported-type", "/quad") in codes
        assert "unsupported HDF5 type" in doc.tree.find("/quad").detail
        assert ("warning", "tree.attribute-unreadable", "/neuro_info@quad") in codes
        _all_text_encodable(doc)


def test_odd_label_attributes(tmp_path):
    p = _rec(tmp_path)
    with h5py.File(p, "r+") as f:
        f.attrs["stim_labels_is_str"] = np.zeros(0)
    with open_document(p) as doc:
        assert ("error", "labels.bad-is-str", "/@stim_labels_is_str") in _codes(doc)
    with h5py.File(p, "r+") as f:
        f.attrs["stim_labels_is_str"] = False
        f.attrs["stim_labels_shape"] = np.array([2**62, 2**62], dtype=np.int64)
    with open_document(p) as doc:
        assert ("error", "labels.shape-mismatch", "/@stim_labels_shape") in _codes(doc)
    with h5py.File(p, "r+") as f:
        f.attrs["stim_labels_shape"] = "two hundred"
    with open_document(p) as doc:
        assert ("error", "labels.bad-shape", "/@stim_labels_shape") in _codes(doc)


def test_null_writer_version_is_a_finding_and_reading_goes_on(tmp_path):
    p = _rec(tmp_path)
    with h5py.File(p, "r+") as f:
        del f.attrs["writer_version"]
        f.attrs["writer_version"] = h5py.Empty("S1")
    with open_document(p) as doc:
        errors = [x for x in doc.findings if x.severity == "error"]
        assert [(x.code, x.location) for x in errors] == [
            ("header.writer-version-empty", "/@writer_version")
        ]
        assert "null dataspace" in errors[0].message and "Empty(" not in errors[0].message
        assert doc.summary["writer_version"] is None
        assert doc.trials.trial_starts.tolist() == [0, 50, 100, 150]
        doc.verify()
        assert doc.summary["trial_stim_ids"]["count"] == 4


def test_lone_surrogate_text_is_escaped_and_flagged(tmp_path):
    p = _rec(tmp_path)
    with h5py.File(p, "r+") as f:
        tid = h5py.h5t.C_S1.copy()
        tid.set_size(h5py.h5t.VARIABLE)
        tid.set_cset(h5py.h5t.CSET_UTF8)
        names = np.array([b"c0", b"Cz\x92ref", b"c2"], dtype=object)
        del f["neuro_info"].attrs["ch_names"]
        aid = h5py.h5a.create(f["neuro_info"].id, b"ch_names", tid, h5py.h5s.create_simple((3,)))
        aid.write(names)
        ref = h5py.h5a.create(f.id, b"ref", tid, h5py.h5s.create(h5py.h5s.SCALAR))
        ref.write(np.array(b"Cz\x92ref", dtype=object))  # h5py reads it back as "Cz\udc92ref"
    with open_document(p) as doc:
        flagged = {x.location for x in doc.findings if x.code == "text.invalid-utf8"}
        assert {"/neuro_info@ch_names", "/@ref"} <= flagged
        assert doc.tree.find("/neuro_info@ch_names").value == ["c0", "Cz\\x92ref", "c2"]
        assert doc.tree.find("/@ref").value == "Cz\\x92ref"
        assert doc.summary["neuro_info"]["ch_names"][1] == "Cz\\x92ref"
        assert doc.arrays["neuro"].attrs["ch_names"][1] == "Cz\\x92ref"
        _all_text_encodable(doc)


def test_rejected_vision_record_keeps_its_provenance(tmp_path):
    p = _copy(tmp_path, "epochs_dense_f64_strids.h5", "rej.h5")
    with h5py.File(p, "r+") as f:
        rows = f["vision_store/0/array"].shape[0]
        del f["vision_store/0/array"]
        f["vision_store/0"].create_dataset("array", data=np.zeros((rows + 1, 2)))
    with open_document(p) as doc:
        assert ("error", "vision.ids-length", "/vision_store/0/stim_ids") in _codes(doc)
        assert "vision_store/0" not in doc.arrays
        node = next(n for n in doc.provenance.children if n.location == "/vision_store/0")
        assert "rejected: vision.ids-length" in node.detail
        fields = {c.name: c.value for c in node.children}
        assert fields["backend"] not in (None, "unknown") and "model_id" in fields


@pytest.mark.slow
def test_deep_group_chain_opens(tmp_path):
    p = _rec(tmp_path)
    depth = 10_000
    with h5py.File(p, "r+") as f:
        g = f.create_group("deep")
        for _ in range(depth - 1):
            g = g.create_group("g")
        g.attrs["bottom"] = 1
    with open_document(p) as doc:
        assert doc.ok, [x.to_json() for x in doc.findings if x.severity == "error"]
        node, levels = doc.tree.find("/deep"), 1
        while node.children and node.children[0].kind == "group":
            node, levels = node.children[0], levels + 1
        assert levels == depth and node.children[0].name == "bottom"


@pytest.mark.slow
def test_categories_nested_without_end_are_bounded(tmp_path):
    from inspector.formats.hdf5.source import RuleError
    from inspector.formats.vneurotk import trial_meta

    with h5py.File(tmp_path / "nest.h5", "w") as f:
        g = f.create_group("s")
        for _ in range(5000):  # categories of categories of ...: deeper than any real table
            g.attrs.update({"kind": "categorical", "dtype": "category"})
            g.create_dataset("codes", data=np.zeros(1, np.int64))
            g = g.create_group("category_values")
        with pytest.raises(RuleError) as err:
            trial_meta.read_series(f["s"], "/trial_meta/columns/0", lambda e: None)
    assert err.value.code == "trial-meta.bad-series" and "nested" in err.value.message


def test_trial_meta_columns_as_a_scalar_dataset_is_a_finding(tmp_path):
    """Fuzzing (seed 71): a scalar dataset where trial_meta/columns, a group, belongs."""
    p = tmp_path / "columns_scalar.h5"
    shutil.copy(Path(__file__).parent / "fixtures/vneurotk/v1/writer_str_column_missing.h5", p)
    with h5py.File(p, "r+") as f:
        del f["trial_meta/columns"]
        f["trial_meta/columns"] = np.int64(5)
    doc = open_document(p)
    codes = [(f.code, f.location) for f in doc.findings]
    assert "internal.reader-failed" not in [c for c, _ in codes], doc.traceback
    assert ("trial-meta.not-group", "/trial_meta/columns") in codes
    doc.close()


def test_scalar_neuro_in_an_epochs_recording_with_a_trial_window(tmp_path):
    """Fuzzing (seed 84): /neuro a scalar dataset in an epochs recording whose trial_info
    has a trial_window; the trial offsets asked for the scalar's first dimension."""
    p = tmp_path / "neuro_scalar.h5"
    shutil.copy(V1 / "epochs_dense_f64_strids.h5", p)
    os.chmod(p, 0o644)
    with h5py.File(p, "r+") as f:
        assert list(f["trial_info"].attrs["trial_window"]) == [-16, 48]
        del f["neuro"]
        f["neuro"] = np.int64(5)
    doc = open_document(p)
    codes = [f.code for f in doc.findings]
    assert "internal.reader-failed" not in codes, doc.traceback
    assert doc.trials is None or doc.trials.trial_window is None \
        or doc.trials.trial_window.tolist() == [-16, 48]
    doc.close()


def test_trial_meta_range_index_longer_than_any_table_is_a_finding(tmp_path):
    """Fuzzing seed 86: a range index stopping at 2**64 - 1 made pandas raise OverflowError
    when the table took it (internal.reader-failed)."""
    p = _copy(tmp_path, "continuous_dense_f32_intids.h5", "range.h5")
    with h5py.File(p, "r+") as f:
        f["trial_meta/index"].attrs["stop"] = np.uint64(2**64 - 1)
    with open_document(p) as doc:
        codes = _codes(doc)
        assert ("error", "trial-meta.bad-range", "/trial_meta/index") in codes
        assert not any(code.startswith("internal.") for _, code, _ in codes)
        message = next(f.message for f in doc.findings if f.code == "trial-meta.bad-range")
        assert "18446744073709551615" in message and "more rows" in message
        assert doc.header is not None and doc.arrays  # the rest is still shown


def test_bytes_that_are_no_image_are_a_finding_without_an_object_address(tmp_path):
    """Pillow's message names the stream it was given ("<_io.BytesIO object at 0x...>"):
    the finding leaves it out, and says once that the image cannot be decoded."""
    p = _copy(tmp_path, "epochs_dense_f64_strids.h5", "noimage.h5")
    with h5py.File(p, "r+") as f:
        del f["stimuli_db/0/image"]
        f["stimuli_db/0/image"] = np.frombuffer(b"not an image at all", dtype="u1")
        f["stimuli_db/0/image"].attrs["kind"] = "image_bytes"
    doc = open_document(p)
    doc.verify()
    bad = [f for f in doc.findings if f.code == "stimuli.undecodable"]
    assert [b.location for b in bad] == ["/stimuli_db/0/image"]
    assert bad[0].message == ("stimulus image cannot be decoded: stimulus 'faces/f01': "
                              "image_bytes at /stimuli_db/0/image: cannot identify image file")
    doc.close()
