"""Verdicts and facts of the VneuroTK reader against the corpus expected.json."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from inspector.cli import format_report
from inspector.formats import open_document
from inspector.formats.findings import with_file
from inspector.formats.vneurotk import SUMMARY_KEYS, open_recording

ROOT = Path(__file__).parent / "fixtures" / "vneurotk"
EXPECTED = json.loads((ROOT / "expected.json").read_text(encoding="utf-8"))
BY_FILE = {e["file"]: e for e in EXPECTED}
VALID = [e["file"] for e in EXPECTED if e["valid"]]
INVALID = [e["file"] for e in EXPECTED if not e["valid"]]

#: invalid file -> (finding code, HDF5 location) of the rule broken.
RULE_BROKEN = {
    "edited/coo_missing_neuro_data.h5": ("neuro.coo-missing-dataset", "/neuro_data"),
    "edited/coo_shape_2d.h5": ("neuro.coo-shape", "/@neuro_shape"),
    "edited/dense_missing_neuro.h5": ("neuro.missing", "/neuro"),
    "edited/external_link_target.h5": ("neuro.missing", "/neuro"),
    "edited/hdr_only_format.h5": ("header.partial", "/@vneurotk_schema_version"),
    "edited/hdr_only_schema_version.h5": ("header.partial", "/@vneurotk_format"),
    "edited/hdr_version_2.h5": ("header.unsupported-version", "/@vneurotk_schema_version"),
    "edited/hdr_version_bool.h5": ("header.version-type", "/@vneurotk_schema_version"),
    "edited/hdr_version_minus1.h5": ("header.unsupported-version", "/@vneurotk_schema_version"),
    "edited/hdr_version_string.h5": ("header.version-type", "/@vneurotk_schema_version"),
    "edited/hdr_wrong_magic.h5": ("header.wrong-magic", "/@vneurotk_format"),
    "edited/neuro_format_csr.h5": ("neuro.format", "/@neuro_format"),
    "edited/neuro_info_shape_mismatch.h5": ("neuro-info.shape-mismatch", "/neuro_info@shape"),
    "edited/not_hdf5.h5": ("file.not-hdf5", ""),
    "edited/plain_unrelated.h5": ("neuro.missing", "/neuro"),
    "edited/stimuli_duplicate_id.h5": ("stimuli.duplicate-id", "/stimuli_db/1/id"),
    "edited/truncated_half.h5": ("file.truncated", ""),
    "edited/v1_data_mode_continues.h5": ("header.invalid-data-mode", "/@data_mode"),
    "edited/v1_data_mode_unknown.h5": ("header.invalid-data-mode", "/@data_mode"),
    "edited/v1_empty_data_mode.h5": ("header.empty-data-mode", "/@data_mode"),
    "edited/v1_missing_data_mode.h5": ("header.missing-data-mode", "/@data_mode"),
    "edited/v1_missing_writer_version.h5": ("header.missing-writer-version", "/@writer_version"),
    "historical/v0_path_image.png": ("file.not-hdf5", ""),
    "v1/writer_str_column_missing.h5": ("trial-meta.nonfinite", "/trial_meta/columns/0/values"),
}


def test_every_corpus_file_has_a_rule():
    assert sorted(RULE_BROKEN) == sorted(INVALID)
    assert len(VALID) == 13 and len(INVALID) == 24


@pytest.mark.parametrize("name", [e["file"] for e in EXPECTED])
@pytest.mark.slow
def test_verdict_and_header_facts(name):
    exp = BY_FILE[name]
    with open_recording(ROOT / name) as doc:
        assert doc.format == "vneurotk-recording"
        assert doc.ok == exp["valid"], [f.to_json() for f in doc.findings]
        assert doc.summary["header"] == exp["header"]
        assert doc.summary["schema_version"] == exp["schema_version"]
        assert doc.summary["writer_version"] == exp["writer_version"]
        json.dumps(doc.to_json(), allow_nan=False)
        if not exp["valid"]:
            code, location = RULE_BROKEN[name]
            errors = [f for f in doc.findings if f.severity == "error"]
            assert any(f.code == code and f.location == location for f in errors), [
                f.to_json() for f in errors
            ]
            report = format_report(doc)
            for f in errors:  # the text report names the file; messages never do
                assert Path(name).name not in f.message
                assert with_file(doc.name, f) in report
            assert all(f.rule for f in doc.findings)
        doc.verify()  # the verdict once every deferred check has run
        assert doc.ok == exp["valid"], [f.to_json() for f in doc.findings]
        assert not [f for f in doc.findings if f.code.startswith("internal.")]


@pytest.mark.parametrize("name", VALID)
@pytest.mark.slow
def test_summary_equals_expected_key_by_key(name):
    exp = BY_FILE[name]
    with open_recording(ROOT / name, hash_arrays=True) as doc:
        assert set(doc.summary) == set(SUMMARY_KEYS)
        for key in SUMMARY_KEYS:
            got, want = doc.summary[key], exp[key]
            if key == "neuro":
                assert got["sum"] == pytest.approx(want["sum"], rel=1e-12, abs=1e-9)
                got, want = dict(got), dict(want)
                got.pop("sum")
                want.pop("sum")
            assert got == want, key
        json.dumps(doc.summary, allow_nan=False)


@pytest.mark.parametrize("name", VALID)
@pytest.mark.slow
def test_summary_without_hashing_is_the_same_minus_hashes(name):
    exp = BY_FILE[name]
    with open_document(ROOT / name) as doc:  # as the application opens it: through the registry
        assert doc.format == "vneurotk-recording" and doc.ok
        assert doc.summary["stim_labels"] is None  # the label scan is deferred
        doc.verify()
        assert "sha256" not in doc.summary["neuro"] and "sum" not in doc.summary["neuro"]
        assert doc.summary["neuro"]["shape"] == exp["neuro"]["shape"]
        for key in (
            "stim_labels",
            "trial_stim_ids",
            "trial_meta",
            "neuro_info",
            "vision_info",
            "trial_info",
        ):
            assert doc.summary[key] == exp[key], key
        if exp["stimuli"] is not None:
            assert doc.summary["stimuli"]["ids"] == exp["stimuli"]["ids"]
            assert [i["kind"] for i in doc.summary["stimuli"]["images"]] == [
                i["kind"] for i in exp["stimuli"]["images"]
            ]
        if exp["vision_records"] is not None:
            for got, want in zip(doc.summary["vision_records"], exp["vision_records"], strict=True):
                assert "sha256" not in got["array"]
                assert got["aligned_shape"] == want["aligned_shape"]
                assert got["provenance_as_read"] == want["provenance_as_read"]


def test_trial_meta_is_a_typed_dataframe():
    with open_recording(ROOT / "v1/epochs_dense_f64_strids.h5") as doc:
        df = doc.tables["trial_meta"].frame()
        assert isinstance(df, pd.DataFrame)
        assert df.index.name == "trial/id"
        assert df.index[0] == "ep/00/\u03b1"
        assert isinstance(df["cond"].dtype, pd.CategoricalDtype) and df["cond"].dtype.ordered
        assert not df["session_day"].dtype.ordered
        assert str(df["session_day"].cat.categories.dtype) == "datetime64[us]"
        assert str(df["session_start"].cat.categories.dtype) == "datetime64[us, Asia/Tokyo]"
        assert str(df["t_aware"].dtype) == "datetime64[us, Europe/Paris]"
        assert str(df["n_int"].dtype) == "Int64"
        assert df["n_int"].isna().any() or df["n_int"].notna().all()
        assert [str(d) for d in df.dtypes] == BY_FILE["v1/epochs_dense_f64_strids.h5"][
            "trial_meta"
        ]["dtypes"]


def test_trial_meta_object_column_keeps_none():
    with open_recording(ROOT / "v1/continuous_typed_object_labels.h5") as doc:
        mixed = doc.tables["trial_meta"].frame()["mixed"]
        assert mixed.dtype == object
        assert any(v is None for v in mixed)


def test_writer_str_column_missing_table_still_shown():
    with open_recording(ROOT / "v1/writer_str_column_missing.h5") as doc:
        assert not doc.ok
        df = doc.tables["trial_meta"].frame()
        assert df.iloc[:, 0].isna().sum() == 1
        msg = next(f.message for f in doc.findings if f.code == "trial-meta.nonfinite")
        assert "NaN" in msg and "reference" in msg


def test_trial_stim_ids_keep_types():
    with open_recording(ROOT / "v1/continuous_typed_object_labels.h5") as doc:
        assert doc.trials.stim_ids_pending and doc.trials.trial_stim_ids is None
        doc.verify()
        assert not doc.trials.stim_ids_pending
        ids = list(doc.trials.trial_stim_ids)
        assert ids[:2] == [1, "1"] and type(ids[0]) is int and type(ids[1]) is str


def test_neural_array_attrs_and_trial_arrays():
    with open_recording(ROOT / "v1/epochs_coo_sparse_f32.h5") as doc:
        neuro = doc.arrays["neuro"]
        assert neuro.storage == "coo" and neuro.shape == (24, 40, 8) and neuro.sample_axis == 1
        assert neuro.attrs["sfreq"] == 1000.0 and neuro.attrs["data_mode"] == "epochs"
        assert neuro.attrs["ch_names"][0] == "u00"
        assert doc.trials.trial_starts.shape == (24,)
        assert doc.trials.trial.shape == (24, 40)
    with open_recording(ROOT / "v1/continuous_dense_f32_intids.h5") as doc:
        assert doc.arrays["neuro"].sample_axis == 0
        assert list(doc.arrays) == ["neuro", "vision_store/0", "vision_store/1"]


def test_trees_locations():
    with open_recording(ROOT / "v1/continuous_dense_f32_intids.h5") as doc:
        node = doc.tree.find("/neuro")
        assert (
            node.kind == "dataset" and "gzip(4)+shuffle" in node.detail and "float32" in node.detail
        )
        attr = doc.tree.find("/@vneurotk_format")
        assert attr.kind == "attribute" and attr.value == "recording"
        assert doc.tree.find("/vision_store/0@model").value == "dev/vit-tiny-patch16"
        prov = doc.provenance
        assert prov.children[0].value == "0.1.0"
        rec = prov.children[1]
        fields = {c.name: c.value for c in rec.children}
        assert fields["backend"] == "transformers" and fields["model_revision"] == "0123abcd"
        assert any(n.name == "dependency_versions" for n in rec.children)
    with open_recording(ROOT / "historical/v0_coo_epochs_vision.h5") as doc:
        rec = doc.provenance.children[1]
        fields = {c.name: c.value for c in rec.children}
        assert fields["backend"] == "unknown" and fields["model_id"] == "historical-model"


def test_external_link_is_reported_with_target():
    with open_recording(ROOT / "edited/external_link_neuro.h5", hash_arrays=True) as doc:
        warn = [f for f in doc.findings if f.code == "link.external"]
        assert len(warn) == 1 and "external_link_target.h5" in warn[0].message
        assert warn[0].location == "/neuro" and warn[0].severity == "warning"
        assert (
            doc.summary["neuro"]["sha256"]
            == BY_FILE["edited/external_link_neuro.h5"]["neuro"]["sha256"]
        )


def test_open_document_dispatch():
    doc = open_document(ROOT / "edited/not_hdf5.h5")
    assert doc.format == "unknown" and not doc.ok
    doc = open_document(ROOT / "v1/patterns_stim_index.h5")
    assert doc.format == "vneurotk-recording" and doc.ok
    doc.close()


def test_stimuli_decode_on_demand():
    exp = BY_FILE["v1/epochs_dense_f64_strids.h5"]["stimuli"]["images"]
    with open_recording(ROOT / "v1/epochs_dense_f64_strids.h5") as doc:
        assert [s.kind for s in doc.stimuli] == [i["kind"] for i in exp]
        import hashlib

        for s, want in zip(doc.stimuli, exp, strict=True):
            img = s.load()
            assert list(img.shape) == want["shape"]
            assert hashlib.sha256(np.ascontiguousarray(img).tobytes()).hexdigest() == want["sha256"]
        assert not doc.verified  # image_bytes decoding is deferred to verify()
        doc.verify()
        assert doc.verified and doc.ok


def test_capabilities_of_a_recording():
    with open_recording(ROOT / "v1/epochs_coo_sparse_f32.h5") as doc:
        assert doc.kind_label == "VneuroTK recording" and doc.tree_title == "HDF5 objects"
        assert not hasattr(doc, "extra") and not hasattr(doc, "verifier")
        t = doc.trials
        assert t.data_mode == "epochs" and t.sampling_rate_hz == 1000.0
        for name in ("trial_starts", "trial_ends", "vision_onsets"):
            a = getattr(t, name)
            assert a.dtype == np.int64 and a.shape == (24,)
        assert set(t.markers()) == {"trial_starts", "trial_ends", "vision_onsets"}
        assert t.stim_ids_pending and t.trial_stim_ids is None
        assert t.stim_labels.shape == (24, 40)
        assert doc.table_locations == {"trial_meta": "/trial_meta"}
        # the label scan (trial stimulus IDs) and the COO coordinate range check are deferred
        assert [c.title for c in doc.checks] == ["Stimulus labels", "Recording checks"]
        assert not doc.verified
        labels = doc.checks[0].run()
        assert labels.complete and labels.findings == ()
        assert isinstance(labels.trials.trial_stim_ids, tuple)
        assert len(labels.trials.trial_stim_ids) == 24
        assert labels.summary["trial_stim_ids"]["count"] == 24
        result = doc.checks[1].run()
        assert result.complete and result.findings == ()
        assert len(doc.checks) == 2  # running does not touch the document
        assert doc.trials is t and t.trial_stim_ids is None
        doc.verify()
        assert isinstance(doc.trials.trial_stim_ids, tuple) and len(doc.trials.trial_stim_ids) == 24
        assert doc.trials.trial_starts is t.trial_starts
        assert doc.verified and doc.ok
    with open_recording(ROOT / "edited/plain_unrelated.h5") as doc:
        assert not doc.ok and doc.kind_label == "HDF5 file (not a VneuroTK recording)"
        assert doc.trials is None
