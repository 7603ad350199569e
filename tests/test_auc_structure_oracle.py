"""AUC structure, validation, readiness and summary against openauc 0.1.0a1.

For every corpus archive and CSV/TSV source the reference loads, and for
experiments built here to reach every reference check, our findings (code,
severity, place), readiness and summary equal what ``openauc`` reports
(``validate_structure()``, ``validate()``, ``assess_readiness()``,
``summary_data().to_dict()``: the content of ``openauc validate --readiness
--json`` and ``openauc inspect --json``), with one documented exception where
the reference contradicts its own documents (test at the end): ``empty_scan``
is reported in shared mode too (docs/concepts/validation-tiers.md).  Every
corpus input ``openauc inspect --json`` reads gives, opened as a document,
``summary.structure`` equal to that command's output key for key.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from inspector.formats.auc import structure as S
from inspector.formats.auc.model import AucExperiment
from inspector.formats.auc.structure_rules import AUC_RULES, DelimitedLocator
from inspector.formats.aucx import read_experiment, write_aucx
from inspector.formats.delimited import load_delimited
from inspector.formats.findings import RULES, Scope
from tests.conftest import FIXTURES, load_expected

AUCX = FIXTURES / "aucx"
DELIMITED = FIXTURES / "auc-delimited"
ARCHIVES = [e["file"] for e in load_expected("aucx") if e["valid"]]
SOURCES = [e["file"] for e in load_expected("auc-delimited") if e["valid"]]
TOLERATE = ("checksums.digest-not-lowercase",)  # ok_checksum_uppercase_hex.aucx


@pytest.fixture(scope="module")
def openauc() -> Any:
    return pytest.importorskip("openauc")


# -- helpers -----------------------------------------------------------------

def _reference_model(d: dict[str, Any]) -> Any:
    from openauc.api import AUCExperiment

    return AUCExperiment.from_dict(d)


def ours_from_dict(d: dict[str, Any]) -> AucExperiment:
    """Our model from the reference ``to_dict()`` form (padding None -> NaN)."""
    obs = d["observations"]
    n = len(obs["scan_ids"])
    radius = np.array(obs["radius"], dtype=np.float64)
    if obs["mode"] == "shared":
        signal = np.array(obs["signal"], dtype=np.float64).reshape(n, radius.shape[0])
        mask = np.ones(signal.shape, dtype=bool)
    else:
        width = max((len(row) for row in obs["mask"]), default=0)
        radius = radius.reshape(n, width)
        signal = np.array(obs["signal"], dtype=np.float64).reshape(n, width)
        mask = np.array(obs["mask"], dtype=bool).reshape(n, width)
    return AucExperiment(
        metadata=copy.deepcopy(d["metadata"]), instrument=copy.deepcopy(d["instrument"]),
        samples=copy.deepcopy(d["samples"]), scans=copy.deepcopy(d["scans"]),
        provenance=copy.deepcopy(d["provenance"]), mode=obs["mode"],
        radius_unit=obs["radius_unit"], signal_unit=obs["signal_unit"],
        scan_ids=list(obs["scan_ids"]), radius=radius, signal=signal, mask=mask)


def reference_place(issue: Any, ref: Any) -> str:
    """The model path our vocabulary (auc_structure_rules) gives one reference issue,
    from its code, component and single subject (``location``)."""
    scans = [s.scan_id for s in ref.scans]
    samples = [s.sample_id for s in ref.samples]
    code, one = issue.code, issue.location
    if code in ("duplicate_scan_id", "duplicate_sample_id"):  # at the first repeat
        kind, ids = ("scans", scans) if code == "duplicate_scan_id" else ("samples", samples)
        second = [i for i, x in enumerate(ids) if x == one][1]
        return f"{kind}[{second}].{issue.component}"
    if code == "scan_id_mismatch":  # at the first scan that differs
        first = next(i for i, (a, b) in enumerate(zip(scans, ref.observations.scan_ids,
                                                      strict=True)) if a != b)
        return f"scans[{first}].scan_id"
    if code in ("radius_not_monotonic", "duplicate_radius_within_scan"):  # a radius row
        return f"observations.radius[{scans.index(one)}]" if one else "observations.radius"
    if code == "empty_scan":  # the scan itself
        return f"scans[{scans.index(one)}]" if one else "scans[*]"
    if code in ("mixed_optical_systems", "mixed_declared_units"):  # no single subject
        return "scans[*]." + issue.component.partition(".")[2]
    comp = "scan.optical_system" if code == "optical_signal_unit_conflict" else issue.component
    record, _, field = comp.partition(".")
    if record in ("scan", "sample"):
        kind, ids = ("scans", scans) if record == "scan" else ("samples", samples)
        return f"{kind}[{ids.index(one)}].{field}" if one else f"{kind}[*].{field}"
    return comp


def triples(findings: list[Any]) -> list[tuple[str, str, str]]:
    return [(S.reference_code(f.code), str(f.severity), f.location) for f in findings]


def reference_triples(issues: Any, ref: Any) -> list[tuple[str, str, str]]:
    return [(i.code, i.severity.value, reference_place(i, ref)) for i in issues]


def assert_matches(ours: AucExperiment, ref: Any) -> set[str]:
    """Everything equal to the reference; returns the reference codes seen."""
    result = S.examine(ours)
    issues = ref.validate().issues
    assert triples(list(result.findings)) == reference_triples(issues, ref)
    assert triples(S.validation_findings(ours)) == reference_triples(issues, ref)
    structural = ref.validate_structure()
    assert triples(S.structure_findings(ours)) == reference_triples(structural.issues, ref)
    assert result.structurally_valid == structural.is_valid
    for finding, issue in zip(result.findings, issues, strict=True):
        if 0 < len(issue.scan_ids) <= 5:  # our message names the scans concerned
            assert all(repr(x) in finding.message for x in issue.scan_ids), finding.message
    for mine, theirs in zip(result.readiness, ref.assess_readiness().entries, strict=True):
        assert (mine.analysis, mine.status, mine.note) == (
            theirs.analysis.value, theirs.status.value, theirs.note)
        assert triples(list(mine.blocking_issues)) == reference_triples(theirs.blocking_issues,
                                                                        ref)
        assert triples(list(mine.advisory_issues)) == reference_triples(theirs.advisory_issues,
                                                                        ref)
    assert S.assess_readiness(ours) == list(result.readiness)
    expected = ref.summary_data().to_dict()
    assert result.summary == expected
    assert S.structure_summary(ours) == expected
    json.dumps(result.summary, allow_nan=False)  # JSON-ready
    return {i.code for i in issues}


# -- the corpus --------------------------------------------------------------

@pytest.mark.parametrize("file", ARCHIVES)
@pytest.mark.slow
def test_corpus_archives_match_openauc(openauc, file):
    assert_matches(read_experiment(AUCX / file, tolerate=TOLERATE), openauc.load(AUCX / file))


@pytest.mark.parametrize("file", SOURCES)
def test_corpus_sources_match_openauc(openauc, file):
    assert_matches(load_delimited(DELIMITED / file), openauc.load(DELIMITED / file))


def _inspect_json(path: Any) -> Any:
    """What ``openauc inspect --json PATH`` prints (parsed), or None when it fails."""
    from openauc.cli import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["inspect", "--json", str(path)])
    return json.loads(result.stdout) if result.exit_code == 0 else None


ALL_INPUTS = sorted(p.name for p in AUCX.glob("*.aucx")) + sorted(
    str(p.relative_to(FIXTURES)) for p in [*DELIMITED.iterdir(), *DELIMITED.glob("*/*")]
    if p.is_dir() or p.parent != DELIMITED)


@pytest.mark.slow
def test_every_corpus_input_summary_equals_openauc_inspect_json(openauc):
    """``summary.structure`` of every corpus input openauc reads (opened and verified
    as a document) equals ``openauc inspect --json`` key for key."""
    from inspector.formats import open_document

    compared = []
    for name in ALL_INPUTS:
        path = FIXTURES / name if name.startswith("auc-delimited/") else AUCX / name
        expected = _inspect_json(path)
        if expected is None:
            continue
        with open_document(path) as doc:
            doc.verify()
            ours = json.loads(json.dumps(doc.summary.get("structure")))
        assert ours is not None, name
        assert sorted(ours) == sorted(expected), name
        assert {k: v for k, v in ours.items() if v != expected[k]} == {}, name
        compared.append(name)
    # every valid archive and source of the corpus, and the uppercase-hex one openauc reads
    assert set(compared) >= set(ARCHIVES) | {f"auc-delimited/{s}" for s in SOURCES}


def test_corpus_facts_without_the_reference():
    """Known corpus facts (aucx/expected.json notes, auc-delimited README)."""
    mixed = S.examine(read_experiment(AUCX / "syn_mixed_optics_s4_6x60.aucx"),
                      locate=S.aucx_location)
    assert [f.code for f in mixed.structure] == ["structure.mixed_optical_systems"]
    assert mixed.structure[0].location == "experiment.json:scans[*].optical_system"
    assert mixed.summary["optical_systems"] == ["absorbance", "fluorescence", "interference",
                                                "unknown"]  # the instrument states none
    assert mixed.summary["signal_unit_declared"] is False
    demo = S.examine(load_delimited(DELIMITED / "demo_experiment"))
    assert demo.findings == ()
    assert [(e.analysis, e.status) for e in demo.readiness] == [
        ("sedimentation_velocity", "potentially_ready"),
        ("sedimentation_equilibrium", "not_applicable"),
        ("scientific_suitability", "not_assessed")]
    assert demo.summary["points_per_scan"] == [12, 12, 12, 12]
    assert (demo.summary["radius"]["minimum"], demo.summary["radius"]["maximum"]) == (5.9, 6.12)
    assert demo.summary["elapsed_time"]["maximum"] == 2700.0


# -- built experiments reaching every reference check ------------------------

def _base(openauc: Any, scenario: str = "moving-boundary", **config: Any) -> dict[str, Any]:
    from openauc.synthetic import SyntheticExperimentConfig, generate_experiment

    cfg = {"n_scans": 4, "n_points": 8, "seed": 3, **config}
    return generate_experiment(SyntheticExperimentConfig(scenario=scenario, **cfg)).to_dict()


def _set(d: dict[str, Any], where: str, value: Any) -> None:
    """``_set(d, "scans[2].cell", None)``: assign one value by model path."""
    keys = [int(k) if k.isdigit() else k for k in re.findall(r"\w+", where)]
    node = d
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = value


def _q(value: float | None, unit: str, status: str = "present") -> dict[str, Any]:
    return {"value": value, "unit": unit, "unit_label": None, "status": status,
            "provenance": "supplied"}


def _per_scan_rows(d: dict[str, Any], rows: list[list[float]]) -> None:
    width = max((len(r) for r in rows), default=0)
    obs = d["observations"]
    obs["mask"] = [[k < len(r) for k in range(width)] for r in rows]
    obs["radius"] = [[*r, *[None] * (width - len(r))] for r in rows]
    obs["signal"] = [[0.5 if v is not None else None for v in r] for r in obs["radius"]]


def _empty_everything(d: dict[str, Any]) -> None:
    d["scans"] = []
    d["observations"].update(mode="per_scan", scan_ids=[], radius=[], signal=[], mask=[])


def _strip_readiness(d: dict[str, Any]) -> None:
    d["instrument"] = None
    for i in range(len(d["scans"])):
        for field in ("rotor_speed", "temperature", "wavelength"):
            _set(d, f"scans[{i}].{field}", None)
        _set(d, f"scans[{i}].elapsed_time", _q(None, "unknown", "missing"))
        _set(d, f"scans[{i}].optical_system", "unknown")
        _set(d, f"scans[{i}].cell", None)
    d["metadata"]["experiment_type"] = "unknown"
    d["observations"]["signal_unit"] = "unknown"
    d["samples"], d["provenance"] = [], None


def _conflicts(d: dict[str, Any]) -> None:
    d["observations"]["signal_unit"] = "fringe"
    _set(d, "scans[0].optical_system", "interference")
    _set(d, "scans[1].optical_system", "fluorescence")


def _samples(d: dict[str, Any]) -> None:
    extra = copy.deepcopy(d["samples"][0]) | {"sample_id": "s2", "buffer_description": "  ",
                                               "density": _q(1.0, "unknown")}
    d["samples"].append(extra)
    d["samples"].append(copy.deepcopy(extra))


SCENARIOS: dict[str, tuple[dict[str, Any], Callable[[dict[str, Any]], None]]] = {
    "duplicate-scan-id": ({"scenario": "invalid-structure"}, lambda d: None),
    "samples": ({}, _samples),
    "scan-count": ({}, lambda d: d["scans"].append(
        copy.deepcopy(d["scans"][0]) | {"scan_id": "extra", "index": 4})),
    "scan-order": ({}, lambda d: d["scans"].reverse()),
    "scans-but-no-observations": ({}, lambda d: d.update(scans=[])),
    "no-scans-at-all": ({}, _empty_everything),
    "zero-radius": ({}, lambda d: _set(d, "observations.radius[0]", 0.0)),
    "negative-radius-per-scan": ({"scenario": "per-scan-radius"},
                                 lambda d: _set(d, "observations.radius[2][1]", -1.5)),
    "unit-conflicts": ({}, _conflicts),
    "empty-scans": ({"scenario": "empty-scans", "n_scans": 6}, lambda d: None),
    "one-empty-scan": ({"scenario": "per-scan-radius"}, lambda d: _per_scan_rows(
        d, [[6.0, 6.1], [], [6.0, 6.2, 6.3], [6.1]])),
    "all-empty-per-scan": ({"scenario": "per-scan-radius"},
                           lambda d: _per_scan_rows(d, [[], [], [], []])),
    "shared-axis-reverses": ({}, lambda d: _set(d, "observations.radius[2]", 5.0)),
    "shared-axis-repeats": ({}, lambda d: _set(d, "observations.radius[3]",
                                               d["observations"]["radius"][2])),
    "shared-axis-descending": ({}, lambda d: d["observations"]["radius"].reverse()),
    "per-scan-rows": ({"scenario": "per-scan-radius"}, lambda d: _per_scan_rows(
        d, [[6.0, 6.1, 6.05], [6.3, 6.2, 6.1], [6.0, 6.0, 6.1], [6.0, 6.2, 6.1, 6.1]])),
    "one-row-reverses": ({"scenario": "per-scan-radius"}, lambda d: _per_scan_rows(
        d, [[6.0, 6.1], [6.3, 6.2, 6.25], [6.0], []])),
    "elapsed-order": ({}, lambda d: (
        _set(d, "scans[1].elapsed_time", _q(None, "s", "unknown")),
        _set(d, "scans[2].elapsed_time", _q(700.0, "unknown")),
        _set(d, "scans[3].elapsed_time", _q(650.0, "s")))),
    "cell-on-instrument": ({}, lambda d: (_set(d, "instrument.cell", "2"),
                                          _set(d, "scans[0].cell", None),
                                          _set(d, "scans[3].channel", None))),
    "sparse": ({}, _strip_readiness),
    "sparse-declared-instrument": ({}, lambda d: (
        _strip_readiness(d), d.update(instrument={"optical_system": "interference"}))),
    "one-scan": ({"n_scans": 1}, lambda d: d["metadata"].update(experiment_type="other")),
    "equilibrium": ({"scenario": "equilibrium-profile"}, lambda d: _set(
        d, "metadata.experiment_type", "sedimentation_equilibrium")),
    "absorbance-wavelength": ({}, lambda d: (_set(d, "scans[1].wavelength", None),
                                             _set(d, "scans[2].optical_system", "unknown"))),
    "sparse-metadata": ({"scenario": "sparse-metadata", "n_scans": 7}, lambda d: None),
    "mixed-optics": ({"scenario": "mixed-optics"}, lambda d: None),
    "source-checksum": ({}, lambda d: d["provenance"].update(sha256="ab" * 32)),
}


@pytest.fixture(scope="module")
def built(openauc) -> dict[str, tuple[AucExperiment, Any]]:
    out = {}
    for name, (config, mutate) in SCENARIOS.items():
        d = _base(openauc, **config)
        mutate(d)
        out[name] = (ours_from_dict(d), _reference_model(d))
    return out


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.slow
def test_built_experiments_match_openauc(built, name):
    ours, ref = built[name]
    if name == "all-empty-per-scan":
        assert [f.location for f in S.structure_findings(ours)] == ["scans[*]", "observations"]
    assert_matches(ours, ref)


@pytest.mark.slow
def test_every_reference_code_is_reached(built):
    seen = set().union(*(assert_matches(ours, ref) for ours, ref in built.values()))
    assert seen == {spec.reference for spec in AUC_RULES.values()}


def test_archives_written_and_read_back_match_openauc(openauc, built, tmp_path):
    """The same checks through our writer and reader, against openauc reading that file."""
    for name in ("duplicate-scan-id", "one-row-reverses", "sparse", "samples"):
        path = write_aucx(built[name][0], tmp_path / f"{name}.aucx",
                          exported_at="2026-06-01T12:00:00Z")
        assert_matches(read_experiment(path), openauc.load(path))


# -- rules and locations -----------------------------------------------------

def test_rules_are_declared_with_scope_and_source():
    assert len(AUC_RULES) == 31
    for code, spec in AUC_RULES.items():
        assert RULES[code] is spec.rule
        assert code == f"{spec.rule.scope}.{spec.reference}"
        assert spec.rule.scope in (Scope.STRUCTURE, Scope.VALIDATION)
        assert spec.rule.source.startswith("openauc 0.1.0a1 docs/")
        assert spec.tiers and set(spec.blocks) <= {"archival", "structural", "sv_readiness",
                                                   "se_readiness"}


def _resolve(d: dict[str, Any], path: str) -> Any:
    node: Any = d
    for key in re.findall(r"\w+", path.partition(":")[2]):
        node = node[int(key)] if key.isdigit() else node[key]
    return node


def test_aucx_locations_name_real_places(built, tmp_path):
    ours = built["duplicate-scan-id"][0]
    path = write_aucx(ours, tmp_path / "dup.aucx", exported_at="2026-06-01T12:00:00Z")
    found = S.structure_findings(read_experiment(path), locate=S.aucx_location)
    assert [(f.code, f.location) for f in found] == [
        ("structure.duplicate_scan_id", "experiment.json:scans[1].scan_id"),
        ("structure.scan_id_mismatch", "experiment.json:scans[1].scan_id")]
    assert _resolve(ours.to_dict(), found[0].location) == "scan_001"
    assert all(f.scope is Scope.STRUCTURE and f.rule for f in found)
    rows = S.structure_findings(built["one-row-reverses"][0], locate=S.aucx_location)
    assert [f.location for f in rows] == ["experiment.json:scans[3]", "arrays/radius.npy[1]"]
    sparse = S.validation_findings(built["sparse"][0], locate=S.aucx_location)
    assert {f.location for f in sparse} >= {
        "experiment.json:scans[*].rotor_speed", "manifest.json:observations.signal_unit",
        "experiment.json:metadata.experiment_type", "experiment.json:samples",
        "provenance.json:import"}
    plain = S.validation_findings(_with_provenance(built["sparse"][0]), locate=S.aucx_location)
    assert plain[-1].location == "provenance.json:import.sha256"


def _with_provenance(exp: AucExperiment) -> AucExperiment:
    exp = copy.copy(exp)
    exp.provenance = {"parser_name": "hand", "sha256": None}
    return exp


def test_delimited_locator():
    locate = DelimitedLocator("manifest.json", "scans.csv", ("scans.csv:2", "scans.csv:14"))
    assert locate("scans[1].rotor_speed") == "scans.csv:scans[1].rotor_speed"
    assert locate("scans[7].cell") == "scans.csv"
    assert locate("scans[*].cell") == "scans.csv"
    assert locate("metadata.experiment_type") == "manifest.json:experiment.experiment_type"
    assert locate("instrument.nominal_speed") == "manifest.json:instrument.nominal_speed_rpm"
    assert locate("samples[1].concentration") == "manifest.json:samples[1].concentration_value"
    assert locate("samples[*].density") == "manifest.json:samples"
    assert locate("observations.signal_unit") == "scans.csv"
    assert locate("provenance.sha256") == ""


def test_readiness_json_and_reuse_of_findings(built):
    ours = built["sparse"][0]
    findings = S.validation_findings(ours, locate=S.aucx_location)
    entries = S.assess_readiness(ours, findings=findings)
    blocking = entries[0].blocking_issues
    assert entries[0].is_blocked and all(f in findings for f in blocking)
    assert entries[0].to_json()["blocking_issues"] == [f.to_json() for f in blocking]
    assert json.loads(json.dumps([e.to_json() for e in entries]))[2]["status"] == "not_assessed"
    assert S.structure_summary(ours, findings=findings)["validation"] == {
        "error": 0, "warning": 7, "info": 2}
    assert S.structure_summary(ours, checksum_available=True)["checksum_available"] is True
    block = json.loads(json.dumps(S.examine(ours).to_json(), allow_nan=False))
    assert block["structurally_valid"] is True
    assert block["structure_counts"] == {"error": 0, "warning": 0, "info": 0}
    assert block["counts"] == block["summary"]["validation"]
    assert [e["status"] for e in block["readiness"]] == ["blocked", "blocked", "not_assessed"]


# -- where openauc contradicts its documents ---------------------------------

def test_optical_systems_include_the_instruments(openauc):
    """openauc 0.1.0a1's ``optical_systems()`` adds the instrument's system, its
    unstated ``unknown`` included (examples/data/demo_experiment, byte-identical
    to our fixture); ``inspect --json`` prints that, and so do we."""
    ref = openauc.load(DELIMITED / "demo_experiment")
    assert ref.summary_data().to_dict()["optical_systems"] == ["absorbance", "unknown"]
    ours = S.structure_summary(load_delimited(DELIMITED / "demo_experiment"))
    assert ours["optical_systems"] == ["absorbance", "unknown"]


def test_empty_scans_on_a_shared_axis_follow_the_documents(openauc):
    """docs/concepts/validation-tiers.md lists ``empty_scan`` for "a scan may
    legitimately carry no points"; openauc 0.1.0a1 checks per-scan mode only,
    so a shared axis of zero points (which it accepts) leaves every scan empty
    without the warning.  We report it."""
    d = _base(openauc, n_scans=3)
    d["observations"].update(radius=[], signal=[[], [], []])
    ref = _reference_model(d)
    assert "empty_scan" not in ref.validate().codes()
    assert ref.observations.points_per_scan() == (0, 0, 0)
    ours = ours_from_dict(d)
    found = [f for f in S.structure_findings(ours) if f.code == "structure.empty_scan"]
    assert [(f.severity, f.location) for f in found] == [("warning", "scans[*]")]
    assert S.structure_summary(ours)["validation"]["warning"] == \
        ref.summary_data().validation.warning + 1


def test_duplicate_sample_ids_do_not_block_readiness(built):
    """docs/concepts/analysis-readiness.md says "any archival keying error"
    blocks both workflows, but also that blocking "is derived directly from
    each finding's blocks metadata" of the validation-tiers tables, which give
    ``duplicate_sample_id`` blocks A, B only.  openauc and we follow the table."""
    ours, _ = built["samples"]
    entries = S.assess_readiness(ours)
    assert "structure.duplicate_sample_id" in [f.code for f in S.structure_findings(ours)]
    assert entries[0].status == "potentially_ready"


def test_malformed_descriptions_never_raise():
    """Entries that are not objects count as empty records; odd arrays give no rows."""
    exp = AucExperiment(
        metadata={}, instrument="not an object", samples=[None, {"sample_id": "s"}],
        scans=[1, {"scan_id": "b", "elapsed_time": {"value": "12", "status": "present"},
                   "rotor_speed": {"value": float("inf"), "unit": "rpm"}, "cell": 3}],
        provenance=[], mode="per_scan", radius_unit="cm", signal_unit="AU",
        scan_ids=["a"], radius=np.zeros(3), signal=np.zeros((2, 3)), mask=np.ones(3, bool))
    result = S.examine(exp, locate=S.aucx_location)
    codes = [S.reference_code(f.code) for f in result.findings]
    assert codes[:3] == ["scan_id_mismatch", "empty_scan", "no_observations"]
    assert {"elapsed_time_absent", "rotor_speed_absent", "provenance_absent"} <= set(codes)
    assert result.findings[0].location == "experiment.json:scans[0].scan_id"
    assert result.summary["cells"] == ["3"] and result.summary["points_per_scan"] == [0, 0]
    assert result.summary["rotor_speed"]["n_present"] == 0
    json.dumps(result.summary, allow_nan=False)


def test_masks_with_holes_read_like_compacted_rows(built):
    """Padding may sit anywhere in a row (the mask is authoritative,
    docs/concepts/data-model.md); real points keep their order."""
    ours, _ = built["per-scan-rows"]
    n, width = ours.mask.shape
    spread = np.zeros((n, 2 * width + 1), dtype=bool)
    spread[:, 1::2] = ours.mask  # a padding column before every real one
    radius = np.full(spread.shape, -7.0)  # junk under padding must not count
    radius[spread] = ours.radius[ours.mask]
    holes = copy.copy(ours)
    holes.radius, holes.mask = radius, spread
    holes.signal = np.where(spread, 0.5, np.nan)
    assert S.examine(holes) == S.examine(ours)
    assert [f.code for f in S.structure_findings(holes)] == [
        "structure.radius_not_monotonic", "structure.duplicate_radius_within_scan"]


def test_verify_keeps_integrity_and_structure_verdicts_apart(built, tmp_path, capsys):
    """An archive whose members all verify but whose experiment repeats a scan ID."""
    from inspector.cli import main

    path = write_aucx(built["duplicate-scan-id"][0], tmp_path / "dup.aucx",
                      exported_at="2026-06-01T12:00:00Z")
    assert main(["verify", "--json", str(path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["structure_ok"] is False
    scopes = {(f["code"], f["scope"]) for f in report["findings"] if f["severity"] == "error"}
    assert scopes == {("structure.duplicate_scan_id", "structure"),
                      ("structure.scan_id_mismatch", "structure")}
    assert all(m["status"] == "ok" for m in report["summary"]["members"])
    assert report["summary"]["structure"]["n_scans"] == len(built["duplicate-scan-id"][0].scans)
    assert {e["analysis"] for e in report["summary"]["readiness"]} >= {"sedimentation_velocity"}
    assert main(["verify", "--json", "--integrity-only", str(path)]) == 0


@pytest.mark.slow
def test_window_shows_both_verdicts(built, tmp_path, qtbot):
    from inspector.ui.main_window import MainWindow

    path = write_aucx(built["duplicate-scan-id"][0], tmp_path / "dup.aucx",
                      exported_at="2026-06-01T12:00:00Z")
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_paths([str(path)])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=20000)
    banner = win.current_tab().checksums.banner.text()
    n = len(win.current_tab().doc.members)
    assert f"All {n} members verified" in banner and "structure: 2 errors" in banner
