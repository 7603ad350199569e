"""AUCX against the reference library openauc 0.1.0a1 (test-only oracle).

* archives our writer produces load in openauc with ``to_dict()`` equal to
  the source experiment;
* ``openauc.validate_aucx`` gives, on every corpus file not marked REFERENCE-QUIRK, the
  verdict and facts recorded in ``expected.json``, against which ``test_aucx_corpus.py``
  checks our verifier (and decides the quirk);
* archives openauc writes in this test verify in our reader.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from inspector.formats.aucx import open_archive, read_experiment, write_aucx
from tests.conftest import FIXTURES, load_expected

openauc = pytest.importorskip("openauc")

AUCX = FIXTURES / "aucx"
EXPECTED = load_expected("aucx")
QUIRKS = {e["file"] for e in EXPECTED if "REFERENCE-QUIRK" in e["notes"]}
BY_FILE = {e["file"]: e for e in EXPECTED}
VALID = [e["file"] for e in EXPECTED if e["valid"] and e["file"] not in QUIRKS]
FACT_KEYS = ("aucx_format_version", "radius_axis_mode", "n_scans", "n_points", "scan_ids",
             "radius_unit", "signal_unit", "experiment_id", "export")


@pytest.mark.parametrize("file", VALID)
@pytest.mark.slow
def test_our_archives_load_in_openauc_with_equal_to_dict(tmp_path, file):
    exp = read_experiment(AUCX / file)
    out = write_aucx(exp, tmp_path / "ours.aucx", exported_at="2026-06-01T12:00:00Z")
    restored = openauc.load(out)
    assert restored.to_dict() == exp.to_dict()
    assert restored.to_dict() == openauc.load(AUCX / file).to_dict()
    info = openauc.inspect_aucx(out)
    assert (info.export.software, info.export.software_version) == ("Inspector",
                                                                    exp_version())


def exp_version() -> str:
    import inspector

    return inspector.__version__


@pytest.mark.parametrize("file", [e["file"] for e in EXPECTED if e["file"] not in QUIRKS])
def test_validate_aucx_gives_the_recorded_verdict_and_facts(file, monkeypatch):
    """The corpus's ``expected.json`` is what the installed reference says today, so that
    ``test_aucx_corpus`` (our verdict and facts against ``expected.json``, once per file)
    compares our reader with the reference itself."""
    monkeypatch.chdir(AUCX)
    report = openauc.validate_aucx(file)
    recorded = BY_FILE[file]
    assert report.is_valid == recorded["valid"]
    if report.info is not None:
        info = report.info.to_dict()
        assert recorded["info"], file
        for key in FACT_KEYS:
            assert recorded["info"][key] == info[key], key


@pytest.mark.parametrize("config", [
    {"scenario": "moving-boundary", "n_scans": 5, "n_points": 40, "seed": 7},
    {"scenario": "per-scan-radius", "n_scans": 4, "n_points": 30, "seed": 3,
     "noise_level": 0.01},
    {"scenario": "sparse-metadata", "n_scans": 3, "n_points": 20, "seed": 1},
])
def test_archives_written_by_openauc_verify_in_ours(tmp_path, config):
    from openauc.synthetic import SyntheticExperimentConfig, generate_experiment

    source = generate_experiment(SyntheticExperimentConfig(**config))
    path = source.export(tmp_path / "ref.aucx",
                         exported_at=datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC))
    doc = open_archive(path)
    doc.verify()
    assert doc.ok and doc.verified, [f.to_json() for f in doc.findings]
    info = openauc.inspect_aucx(path).to_dict()
    for key in FACT_KEYS:
        assert doc.summary[key] == info[key], key
    assert read_experiment(path).to_dict() == source.to_dict()
    # and our re-export of it is byte-identical to openauc's own re-export
    mine = write_aucx(read_experiment(path), tmp_path / "mine.aucx",
                      exported_at="2026-06-01T12:00:00+00:00",
                      creator=("openauc", openauc.__version__))
    theirs = openauc.load(path).export(tmp_path / "theirs.aucx",
                                       exported_at=datetime(2026, 6, 1, 12, tzinfo=UTC))
    assert mine.read_bytes() == theirs.read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["mine.aucx", "ref.aucx", "theirs.aucx"]
