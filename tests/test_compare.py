"""``inspector diff``: hand-made pairs for every kind of difference (numpy and h5py as
the oracles), the semantic equalities of the reference writers, and hostile pairs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.cli import main
from inspector.formats.compare.engine import compare_paths
from inspector.formats.compare.model import DiffOptions, DiffReport
from inspector.formats.compare.values import compare_block

FIX = Path(__file__).parent / "fixtures"
CMP = FIX / "compare"
V0 = FIX / "vneurotk" / "v0" / "v001_continuous_dense_f32_intids.h5"
V1 = FIX / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"


def _diffs(report: DiffReport, section: str | None = None) -> list[dict]:
    return [d.to_json() for d in report.differences if section in (None, d.section)]


def _one(report: DiffReport, section: str, path: str) -> dict:
    found = [d for d in _diffs(report, section) if d["path"] == path]
    assert len(found) == 1, _diffs(report)
    return found[0]


# -- plain HDF5: arrays -------------------------------------------------------------------
def _h5(path: Path, data: np.ndarray, chunks: tuple[int, ...] | None = (100, 8),
        **attrs: object) -> Path:
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("x", data=data, chunks=chunks,
                              compression="gzip" if chunks else None,
                              shuffle=bool(chunks))
        for k, v in attrs.items():
            ds.attrs[k] = v
    return path


@pytest.fixture()
def base() -> np.ndarray:
    return np.random.default_rng(1).standard_normal((1000, 8)).astype(np.float32)


def test_identical_files_are_identical(tmp_path: Path, base: np.ndarray) -> None:
    a, b = _h5(tmp_path / "a.h5", base), _h5(tmp_path / "b.h5", base)
    report = compare_paths(str(a), str(b))
    assert report.identical and report.equal and report.differences == []


def test_values_in_one_chunk_differ_as_numpy_says(tmp_path: Path, base: np.ndarray) -> None:
    other = base.copy()
    other[250:260, 3] += np.linspace(0.5, 2.0, 10, dtype=np.float32)
    other[299, 7] = -other[299, 7] * 3
    a, b = _h5(tmp_path / "a.h5", base), _h5(tmp_path / "b.h5", other)
    for jobs in (1, 2):
        report = compare_paths(str(a), str(b), DiffOptions(jobs=jobs))
        d = _one(report, "objects", "/x")
        assert d["kind"] == "values" and d["content"]
        differ = base != other
        diff = np.abs(base.astype(np.float64) - other.astype(np.float64))
        assert d["detail"]["differing"] == int(differ.sum())
        assert d["detail"]["compared"] == base.size
        assert d["detail"]["max_abs"] == pytest.approx(float(diff.max()))
        rel = diff[differ] / np.abs(other[differ].astype(np.float64))
        assert d["detail"]["max_rel"] == pytest.approx(float(rel.max()))
        assert d["detail"]["first_index"] == [int(i) for i in np.argwhere(differ)[0]]
        assert not report.equal


def test_tolerance_follows_numpy_isclose(tmp_path: Path, base: np.ndarray) -> None:
    other = base.copy()
    other[10:20] *= np.float32(1 + 3e-6)
    a, b = _h5(tmp_path / "a.h5", base), _h5(tmp_path / "b.h5", other)
    oracle = ~np.isclose(base, other, rtol=1e-7, atol=0)
    strict = compare_paths(str(a), str(b), DiffOptions(rtol=1e-7))
    assert _one(strict, "objects", "/x")["detail"]["differing"] == int(oracle.sum()) > 0
    loose = compare_paths(str(a), str(b), DiffOptions(rtol=1e-5))
    assert loose.equal and not np.array_equal(base, other)


def test_exact_tells_signed_zeros_and_nan_payloads_apart(tmp_path: Path) -> None:
    x = np.zeros((200, 8), np.float32)
    y = x.copy()
    y[5, 1] = -0.0
    x[7, 2] = y[7, 2] = np.nan
    a, b = _h5(tmp_path / "a.h5", x), _h5(tmp_path / "b.h5", y)
    assert compare_paths(str(a), str(b)).equal  # -0.0 == 0.0, NaN equals NaN
    exact = compare_paths(str(a), str(b), DiffOptions(exact=True))
    assert _one(exact, "objects", "/x")["detail"]["first_index"] == [5, 1]


def test_chunking_and_compression_are_representation(tmp_path: Path, base: np.ndarray) -> None:
    a = _h5(tmp_path / "a.h5", base, chunks=(100, 8))
    b = _h5(tmp_path / "b.h5", base, chunks=None)
    report = compare_paths(str(a), str(b))
    d = _one(report, "objects", "/x")
    assert d["kind"] == "storage" and not d["content"]
    assert d["a"]["filters"] == ["shuffle", "gzip"] and d["b"]["filters"] == []
    assert report.equal and not report.identical


def test_dtype_and_shape_differences(tmp_path: Path, base: np.ndarray) -> None:
    a = _h5(tmp_path / "a.h5", base)
    wider = compare_paths(str(a), str(_h5(tmp_path / "b.h5", base.astype(np.float64))))
    assert _one(wider, "objects", "/x")["kind"] == "dtype"
    assert [d["kind"] for d in _diffs(wider, "objects")] == ["dtype"]  # values: equal
    assert not wider.equal
    shorter = compare_paths(str(a), str(_h5(tmp_path / "c.h5", base[:900])))
    d = _one(shorter, "objects", "/x")
    assert (d["kind"], d["a"], d["b"]) == ("shape", [1000, 8], [900, 8])


def test_objects_and_attributes_added_removed_changed(tmp_path: Path, base: np.ndarray) -> None:
    a = _h5(tmp_path / "a.h5", base, units="uV", gain=2.0)
    b = _h5(tmp_path / "b.h5", base, units="mV", offset=1)
    with h5py.File(a, "a") as f:
        f.create_group("only_a")
        f["names"] = np.array(["x", "y", "z"], dtype=h5py.string_dtype())
    with h5py.File(b, "a") as f:
        f.create_dataset("only_a", data=[1, 2])  # the same name, another kind of object
        f["names"] = np.array(["x", "Y", "z"], dtype=h5py.string_dtype())
    report = compare_paths(str(a), str(b))
    got = {(d["path"], d["kind"]) for d in _diffs(report, "objects")}
    assert {("/x@units", "values"), ("/x@gain", "removed"), ("/x@offset", "added"),
            ("/only_a", "kind"), ("/names", "values")} <= got
    names = _one(report, "objects", "/names")
    assert names["detail"]["differing"] == 1 and names["detail"]["first_index"] == [1]


def test_first_stops_at_the_first_differing_chunk(tmp_path: Path, base: np.ndarray) -> None:
    other = base.copy()
    other[150, 0] += 1
    other[950, 0] += 1
    a, b = _h5(tmp_path / "a.h5", base), _h5(tmp_path / "b.h5", other)
    full = _one(compare_paths(str(a), str(b)), "objects", "/x")
    assert full["detail"]["differing"] == 2
    report = compare_paths(str(a), str(b), DiffOptions(first=True, jobs=1))
    assert report.stopped and not report.equal
    d = _one(report, "objects", "/x")
    assert d["detail"]["differing"] == 1 and d["detail"]["first_index"] == [150, 0]


def test_compare_block_against_numpy() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((50, 7))
    b = a + rng.choice([0.0, 1e-9, 1e-3], size=a.shape)
    for rtol, atol in ((0, 0), (1e-6, 0), (0, 1e-6), (1e-4, 1e-8)):
        stats = compare_block(a, b, (), rtol, atol)
        oracle = ~np.isclose(a, b, rtol=rtol, atol=atol)
        assert stats.differing == int(oracle.sum())
        if oracle.any():
            assert stats.max_abs == pytest.approx(float(np.abs(a - b)[oracle].max()))
            assert list(stats.first_index or ()) == [int(i) for i in np.argwhere(oracle)[0]]


# -- recordings ----------------------------------------------------------------------------
@pytest.mark.parametrize(("schema0", "rewrite"), [
    (V0, CMP / "v001_continuous_dense_f32_intids_schema1.h5"),
    (FIX / "vneurotk" / "historical" / "v0_dense_numeric.h5",
     CMP / "v0_dense_numeric_schema1.h5"),
])
def test_schema0_and_its_schema1_rewrite_are_equal_in_content(schema0: Path,
                                                              rewrite: Path) -> None:
    with h5py.File(schema0) as f0, h5py.File(rewrite) as f1:  # the oracle: the same data
        assert np.array_equal(f0["neuro"][...], f1["neuro"][...])
        assert "vneurotk_schema_version" not in f0.attrs
        assert int(f1.attrs["vneurotk_schema_version"]) == 1
    report = compare_paths(str(schema0), str(rewrite))
    assert report.equal and report.complete, _diffs(report)
    schema = [d for d in _diffs(report) if "schema" in d["path"]]
    assert schema == [{"section": "format", "kind": "changed", "path": "schema_version",
                       "content": False, "a": 0, "b": 1}]
    assert [f["code"] for f in report.a.findings] == ["schema.historical"]


@pytest.fixture()
def recording(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.h5", tmp_path / "b.h5"
    shutil.copyfile(V1, a)
    shutil.copyfile(V1, b)
    return a, b


def test_recording_header_trials_and_arrays(recording: tuple[Path, Path]) -> None:
    a, b = recording
    with h5py.File(b, "a") as f:
        f["neuro_info"].attrs["sfreq"] = 500.0
        f["vision_onsets"][2] += 1
        neuro = f["neuro"][...]
        neuro[100, 4] += 0.25
        f["neuro"][...] = neuro
        f.create_dataset("notes", data=np.arange(3))
        labels = f["stim_labels"][...]
        at = int(np.flatnonzero(np.isnan(labels))[7])
        f["stim_labels"][at] = 99.0
    with h5py.File(a) as f:
        original = f["neuro"][...]
    report = compare_paths(str(a), str(b))
    sfreq = _one(report, "header", "neuro_info.sfreq")
    assert (sfreq["a"], sfreq["b"]) == (250.0, 500.0)
    onsets = _one(report, "trials", "vision_onsets")
    assert onsets["detail"]["differing"] == 1 and onsets["detail"]["first_index"] == [2]
    label = _one(report, "trials", "stim_labels")
    assert label["detail"]["differing"] == 1 and label["detail"]["first_index"] == [at]
    neuro = _one(report, "arrays", "neuro")
    assert neuro["detail"]["differing"] == int((original != neuro_after(b)).sum()) == 1
    assert neuro["detail"]["first_index"] == [100, 4]
    assert _one(report, "objects", "/notes")["kind"] == "added"
    sections = [d.section for d in report.differences]
    assert sections == sorted(sections, key=["format", "header", "trials", "stimuli", "scans",
                                             "arrays", "members", "objects",
                                             "provenance"].index)


def neuro_after(path: Path) -> np.ndarray:
    with h5py.File(path) as f:
        return f["neuro"][...]


def test_recording_trial_meta_cell_by_key(recording: tuple[Path, Path]) -> None:
    a, b = recording
    with h5py.File(b, "a") as f:
        cols = f["trial_meta/columns"]
        rt = next(k for k in cols if cols[k].attrs.get("dtype") == "float64")
        values = cols[rt]["values"]
        old = float(values[3])
        values[3] = old + 1.0
        trial_no = [int(v) for v in cols[next(k for k in cols if cols[k].attrs.get("dtype")
                                              == "int64")]["values"][...]]
    report = compare_paths(str(a), str(b))
    d = _one(report, "trials", f"trial_meta[trial_no={trial_no[3]}].rt")
    assert (d["a"], d["b"]) == (old, old + 1.0)


def test_recording_stimuli_by_typed_id(recording: tuple[Path, Path]) -> None:
    a, b = recording
    with h5py.File(b, "a") as f:
        image = f["stimuli_db/0/image"]
        pixels = image[...]
        pixels[0, 0] = 255 - pixels[0, 0]
        image[...] = pixels
        ids = f["stimuli_db/3/id/values"]
        ids[0] = "16"  # stimulus 15 becomes 16 (typed int)
    report = compare_paths(str(a), str(b))
    changed = _one(report, "stimuli", "stimulus 3")
    assert changed["kind"] == "values" and changed["detail"]["first_index"][:2] == [0, 0]
    assert _one(report, "stimuli", "stimulus 15")["kind"] == "removed"
    assert _one(report, "stimuli", "stimulus 16")["b"] == {"type": "int", "value": 16}


# -- AUC -----------------------------------------------------------------------------------
def test_long_and_wide_tables_of_the_same_scans_are_equal() -> None:
    report = compare_paths(str(CMP / "long"), str(CMP / "wide"))
    assert report.equal and report.complete, _diffs(report)
    assert _one(report, "format", "parser")["content"] is False


def test_two_exports_of_one_source_are_equal_in_content() -> None:
    report = compare_paths(str(CMP / "export_1.aucx"), str(CMP / "export_2.aucx"))
    assert report.equal and report.complete, _diffs(report)
    members = {d["path"] for d in _diffs(report, "members")}
    assert members == {"manifest.json", "provenance.json", "checksums.sha256"}
    export = _one(report, "provenance", "provenance.export.exported_at")
    assert export["a"] != export["b"] and not export["content"]


def test_inspector_exports_at_two_times_are_equal(tmp_path: Path) -> None:
    from inspector.formats.auc.export import export_to_aucx

    a, b = tmp_path / "a.aucx", tmp_path / "b.aucx"
    export_to_aucx(str(CMP / "wide"), str(a), exported_at="2026-01-01T00:00:00Z")
    export_to_aucx(str(CMP / "wide"), str(b), exported_at="2026-06-01T12:00:00Z")
    report = compare_paths(str(a), str(b))
    assert report.equal, _diffs(report)
    assert "provenance.export.exported_at" in {d["path"] for d in _diffs(report, "provenance")}


def test_scan_metadata_values_and_ids(tmp_path: Path) -> None:
    import dataclasses

    from inspector.formats.aucx import write_aucx
    from inspector.formats.registry import open_document

    with open_document(CMP / "export_1.aucx") as doc:
        exp = doc.auc.experiment
    scans = [dict(s) for s in exp.scans]
    scans[1]["temperature"] = {"value": 21.5, "unit": "degC", "unit_label": None,
                               "status": "present", "provenance": "supplied"}
    signal = exp.signal.copy()
    signal[1, 4] += 0.125
    changed = dataclasses.replace(exp, scans=scans, signal=signal)
    fewer = dataclasses.replace(exp, scans=scans[:3], scan_ids=list(exp.scan_ids[:3]),
                                signal=exp.signal[:3], mask=exp.mask[:3])
    write_aucx(exp, tmp_path / "a.aucx", exported_at="2026-01-01T00:00:00Z")
    write_aucx(changed, tmp_path / "b.aucx", exported_at="2026-01-01T00:00:00Z")
    write_aucx(fewer, tmp_path / "c.aucx", exported_at="2026-01-01T00:00:00Z")
    report = compare_paths(str(tmp_path / "a.aucx"), str(tmp_path / "b.aucx"))
    sid = exp.scan_ids[1]
    temp = [d for d in _diffs(report, "scans") if d["path"].startswith(f"{sid}.temperature")]
    assert temp and all(d["content"] for d in temp)
    values = _one(report, "scans", f"{sid}.signal")
    assert values["detail"]["differing"] == 1
    assert values["detail"]["max_abs"] == pytest.approx(0.125)
    assert values["detail"]["first_index"] == [int(np.flatnonzero(exp.mask[1])
                                                   .tolist().index(4))]
    assert _one(report, "members", "arrays/signal.npy")["content"] is False
    dropped = compare_paths(str(tmp_path / "a.aucx"), str(tmp_path / "c.aucx"))
    assert _one(dropped, "scans", exp.scan_ids[3])["kind"] == "removed"


# -- hostile pairs -------------------------------------------------------------------------
def test_truncated_file_gives_findings_not_a_crash(tmp_path: Path) -> None:
    cut = tmp_path / "cut.h5"
    data = V1.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    report = compare_paths(str(cut), str(V1))
    assert not report.equal
    assert any(f["severity"] == "error" for f in report.a.findings)
    assert report.not_compared  # its content was not compared, never called equal


def test_different_formats(tmp_path: Path) -> None:
    report = compare_paths(str(V1), str(CMP / "export_1.aucx"))
    d = _one(report, "format", "format")
    assert (d["a"], d["b"], d["content"]) == ("vneurotk-recording", "aucx", True)
    assert not report.equal and report.not_compared


def test_a_url_that_fails(tmp_path: Path) -> None:
    from range_server import RangeServer

    with RangeServer() as srv:
        srv.add("gone.h5", V1, fault="404")
        srv.add("same.h5", V1)
        report = compare_paths(srv.url("gone.h5"), str(V1))
        served = compare_paths(srv.url("same.h5"), str(V1))
    assert served.equal and served.complete, _diffs(served)
    assert any(f["code"].startswith("remote.") for f in report.a.findings)
    assert not report.equal and report.not_compared


# -- the command ---------------------------------------------------------------------------
def test_cli_exit_status_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                  base: np.ndarray) -> None:
    a, b = _h5(tmp_path / "a.h5", base), _h5(tmp_path / "b.h5", base + 1)
    assert main(["diff", str(a), str(a)]) == 0
    assert capsys.readouterr().out.strip().endswith("verdict: identical")
    assert main(["diff", "--json", str(a), str(b)]) == 1
    obj = json.loads(capsys.readouterr().out)
    assert obj["diff_schema"] == 2 and obj["equal"] is False
    assert obj["counts"] == {"objects": {"content": 1, "representation": 0}}
    assert main(["diff", "--tolerance", "0,1.5", str(a), str(b)]) == 0
    capsys.readouterr()
    for bad in (["diff", str(a)], ["diff", "--tolerance", "x", str(a), str(b)],
                ["diff", "--tolerance", "-1", str(a), str(b)]):
        with pytest.raises(SystemExit) as exc:
            main(bad)
        assert exc.value.code == 2


def test_an_array_declaring_billions_of_chunks_is_not_compared() -> None:
    hostile = FIX / "fuzz" / "billions_of_unallocated_chunks.h5"
    report = compare_paths(str(hostile), str(hostile))
    assert [(n.section, n.path) for n in report.not_compared] == [("arrays", "neuro")]
    assert "51539607552 chunks" in report.not_compared[0].reason
    assert not report.equal


@pytest.mark.parametrize("name", ["heap_free_list_cycle_root.h5", "heap_loop_stimuli_db.h5"])
def test_damaged_files_give_findings(name: str) -> None:
    damaged = FIX / "fuzz" / name
    report = compare_paths(str(damaged), str(V1))
    assert any(f["severity"] == "error" for f in report.a.findings)
    assert not report.equal


def test_json_values_are_strict_json(tmp_path: Path, base: np.ndarray) -> None:
    a = _h5(tmp_path / "a.h5", base, limit=np.inf, gap=np.nan)
    b = _h5(tmp_path / "b.h5", base, limit=-np.inf, gap=1.0)
    obj = compare_paths(str(a), str(b)).to_json()
    text = json.dumps(obj, allow_nan=False)  # raises on NaN or Infinity numbers
    got = {d["path"]: (d["a"], d["b"]) for d in json.loads(text)["differences"]}
    assert set(got) == {"/x@limit", "/x@gap"}


def test_an_archive_whose_member_fails_its_checksum() -> None:
    good, bad = FIX / "aucx" / "src_readiness_rich.aucx", FIX / "aucx" / "bad_signal_byte_flip.aucx"
    report = compare_paths(str(good), str(bad), DiffOptions(verify=True))
    assert "checksums.mismatch" in {f["code"] for f in report.b.findings}
    signal = _one(report, "arrays", "signal")  # the flipped byte: the first float's lowest
    assert signal["detail"]["differing"] == 1 and signal["detail"]["first_index"] == [0, 0]
    assert [(n.section, n.path) for n in report.not_compared] == [("members", "")]
    assert not report.equal


@pytest.mark.slow
def test_attributes_beyond_the_first_page_are_compared(tmp_path: Path, base: np.ndarray) -> None:
    from inspector.formats.hdf5.attributes import MAX_ATTRIBUTES

    n = MAX_ATTRIBUTES + 500
    a, b = _h5(tmp_path / "a.h5", base), _h5(tmp_path / "b.h5", base)
    for path, changed in ((a, None), (b, n - 3)):
        with h5py.File(path, "a") as f:
            for i in range(n):
                f["x"].attrs[f"a{i:05d}"] = i + (1 if i == changed else 0)
    report = compare_paths(str(a), str(b))
    d = _one(report, "objects", f"/x@a{n - 3:05d}")
    assert d["detail"]["max_abs"] == 1.0
    assert [x["path"] for x in _diffs(report)] == [f"/x@a{n - 3:05d}"]
