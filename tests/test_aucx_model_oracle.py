"""AUCX JSON members judged as openauc 0.1.0a1 judges them, proven by a generator.

:mod:`fuzz.aucx_model_edits` makes random single-value edits of the corpus archives
both readers accept (every leaf and container of ``manifest.json``,
``experiment.json`` and ``provenance.json``: wrong types, null, empty and very long
text, unknown keys, dropped keys, enumeration values, dates, numbers of every kind
and ``NaN``/``Infinity`` tokens), recomputes ``checksums.sha256``, and holds our
``ok`` (open + verify) to openauc's verdict (``validate_aucx`` valid and ``load``
succeeding).  The same edits are exported: an accepted source gives an archive
openauc loads, a rejected one is refused with nothing written.

CI runs a fixed seed and a small count; run the large count with::

    AUCX_MODEL_EDITS=1000 QT_QPA_PLATFORM=offscreen pytest tests/test_aucx_model_oracle.py
    python -m fuzz.aucx_model_edits --count 1000 --seed 20260601 --export

(the second prints the counts as one JSON object).
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from fuzz.aucx_model_edits import inspector_ok, openauc_ok, read_members, run, write_archive
from inspector.formats.auc.export import ExportError, export_to_aucx
from inspector.formats.aucx import open_archive
from tests.conftest import FIXTURES

pytest.importorskip("openauc")

SEED = 20260601
COUNT = int(os.environ.get("AUCX_MODEL_EDITS", "120"))
BASE = FIXTURES / "aucx" / "syn_equilibrium_s1_6x200.aucx"


@pytest.mark.slow
def test_random_edits_agree_with_openauc_and_export_only_what_openauc_loads(tmp_path):
    result = run(COUNT, SEED, tmp_path, export=True)
    assert result["disagreements"] == []
    assert result["edits"] == result["agree"] == result["exports_checked"] == COUNT
    # both verdicts occur often: the edits reach accepted and rejected places alike
    assert result["both_accept"] > COUNT // 5 and result["both_reject"] > COUNT // 5
    assert list(tmp_path.iterdir()) == []


def _edited(tmp_path: Path, member: str, edit) -> Path:
    members = read_members(BASE)
    i = next(k for k, (name, _) in enumerate(members) if name == member)
    payload = json.loads(members[i][1])
    edit(payload)
    members[i] = (member, json.dumps(payload).encode())
    path = tmp_path / "edited.aucx"
    write_archive(path, members)
    return path


def _scan(key, value):
    return lambda j: j["scans"][2].__setitem__(key, value)


def _quantity(key, value):
    return lambda j: j["scans"][1]["elapsed_time"].__setitem__(key, value)


# The cases of the issue: (member, edit, openauc accepts, our error location or None).
CASES = {
    "cell-int": ("experiment.json", _scan("cell", 1), False,
                 "experiment.json:scans[2].cell"),
    "optical-system-laser": ("experiment.json", _scan("optical_system", "laser"), False,
                             "experiment.json:scans[2].optical_system"),
    "scan-extra-key": ("experiment.json", _scan("bogus", 1), False,
                       "experiment.json:scans[2].bogus"),
    "instrument-extra-key": ("experiment.json",
                             lambda j: j["instrument"].__setitem__("bogus", None), False,
                             "experiment.json:instrument.bogus"),
    "quantity-extra-key": ("experiment.json", _quantity("bogus", 1), False,
                           "experiment.json:scans[1].elapsed_time.bogus"),
    "elapsed-time-text": ("experiment.json", _scan("elapsed_time", "60 s"), False,
                          "experiment.json:scans[2].elapsed_time"),
    "quantity-value-number-text": ("experiment.json", _quantity("value", "60.5"), True, None),
    "rotor-speed-number": ("experiment.json", _scan("rotor_speed", 3.0), False,
                           "experiment.json:scans[2].rotor_speed"),
    "index-text": ("experiment.json", _scan("index", "2"), True, None),
    "samples-empty-object": ("experiment.json", lambda j: j.__setitem__("samples", {}), True,
                             None),
    "scans-null": ("experiment.json", lambda j: j.__setitem__("scans", None), False,
                   "experiment.json:scans"),
    "metadata-missing": ("experiment.json", lambda j: j.pop("metadata"), False,
                         "experiment.json:metadata"),
    "imported-at-not-a-date": ("provenance.json",
                               lambda j: j["import"].__setitem__("imported_at", "yesterday"),
                               False, "provenance.json:import.imported_at"),
    "source-checksums-text": ("provenance.json",
                              lambda j: j["import"].__setitem__("source_checksums", "abc"),
                              False, "provenance.json:import.source_checksums"),
    "export-record-bogus": ("provenance.json", lambda j: j.__setitem__("export", {"bogus": 1}),
                            False, "provenance.json:export.bogus"),
    "member-count-text": ("provenance.json",
                          lambda j: j["export"].__setitem__("member_count", "6"), True, None),
    "software-null": ("provenance.json", lambda j: j["export"].__setitem__("software", None),
                      False, "provenance.json:export.software"),
    "scan-ids-numbers": ("manifest.json", lambda j: j["observations"].__setitem__(
        "scan_ids", list(range(6))), True, None),
    "scan-ids-repeat-once-text": ("manifest.json", lambda j: j["observations"].__setitem__(
        "scan_ids", [1, "1", 2, 3, 4, 5]), False, "manifest.json:observations.scan_ids"),
    "mode-missing": ("manifest.json", lambda j: j["observations"].pop("mode"), False,
                     "manifest.json:observations.mode"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.slow
def test_the_cases_of_the_issue(tmp_path, case):
    member, edit, accepted, where = CASES[case]
    path = _edited(tmp_path, member, edit)
    assert openauc_ok(path) == accepted
    assert inspector_ok(path) == accepted
    doc = open_archive(path)
    doc.verify()
    errors = [f for f in doc.findings if f.severity == "error" and f.scope == "integrity"]
    assert [f.location for f in errors] == ([] if accepted else [where])
    doc.close()


def test_every_violation_is_reported_not_only_the_first(tmp_path):
    def edit(j):
        for i in range(6):
            j["scans"][i]["cell"] = i
        j["metadata"]["experiment_type"] = "centrifuge"
        j["instrument"]["optical_system"] = "laser"

    doc = open_archive(_edited(tmp_path, "experiment.json", edit))
    doc.verify()
    got = [(f.code, f.location) for f in doc.findings if f.severity == "error"]
    assert got == [("json.model-invalid", "experiment.json:metadata.experiment_type"),
                   *[("json.model-invalid", f"experiment.json:scans[{i}].cell")
                     for i in range(6)],
                   ("json.model-invalid", "experiment.json:instrument.optical_system")]
    first = next(f for f in doc.findings if f.code == "json.model-invalid")
    assert first.message == (
        "metadata.experiment_type breaks openauc's ExperimentMetadata: Input should be "
        "'sedimentation_velocity', 'sedimentation_equilibrium', 'other' or 'unknown'; "
        'found "centrifuge"')
    assert "openauc 0.1.0a1 metadata models" in first.rule
    doc.close()


def test_a_long_value_is_shortened_in_the_message(tmp_path):
    doc = open_archive(_edited(tmp_path, "experiment.json", _scan("cell", ["x" * 5000])))
    doc.verify()
    [finding] = [f for f in doc.findings if f.code == "json.model-invalid"]
    found = finding.message.split("; found ")[1]
    assert found == '["' + "x" * 55 + "..." and len(found) == 60
    doc.close()


def test_export_of_a_rejected_source_names_why_and_writes_nothing(tmp_path):
    source = _edited(tmp_path, "experiment.json", _scan("cell", 1))
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(ExportError) as caught:
        export_to_aucx(source, out / "copy.aucx")
    assert "experiment.json:scans[2].cell: scans[2].cell breaks openauc's ScanMetadata" in str(
        caught.value)
    assert list(out.iterdir()) == []


def test_an_accepted_lax_source_exports_to_an_archive_openauc_loads(tmp_path):
    def edit(j):
        j["scans"][0]["index"] = "0"
        j["samples"] = {}
        j["scans"][1]["elapsed_time"]["value"] = "60.5"

    source = _edited(tmp_path, "experiment.json", edit)
    dest = export_to_aucx(source, tmp_path / "copy.aucx", exported_at="2026-06-01T12:00:00Z")
    assert openauc_ok(dest) and inspector_ok(dest)
    with zipfile.ZipFile(dest) as zf:
        written = json.loads(zf.read("experiment.json"))
    assert written["samples"] == [] and written["scans"][0]["index"] == "0"


@pytest.mark.parametrize(("member", "code"), [
    ("manifest.json", "manifest.not-object"), ("experiment.json", "json.not-object"),
    ("provenance.json", "json.not-object")])
def test_a_member_that_is_json_null_is_not_an_object(tmp_path, member, code):
    members = read_members(BASE)
    i = next(k for k, (name, _) in enumerate(members) if name == member)
    members[i] = (member, b"null\n")
    path = tmp_path / "null.aucx"
    write_archive(path, members)
    assert not openauc_ok(path)
    doc = open_archive(path)
    doc.verify()
    found = [f for f in doc.findings if f.code == code]
    assert [(f.location, f.message) for f in found] == [
        (member, f"{member} must contain a JSON object, got null")]
    doc.close()
