"""AUCX corpus: verdicts, one finding per injected problem at its member, facts.

Every assertion is checked against ``tests/fixtures/aucx/expected.json``
(reference verdicts of openauc 0.1.0a1 and the corpus's injected problems).
"""

from __future__ import annotations

import pytest

from inspector.formats import open_document
from inspector.formats.aucx import open_archive
from tests.conftest import FIXTURES, load_expected

AUCX = FIXTURES / "aucx"
EXPECTED = load_expected("aucx")
BY_FILE = {e["file"]: e for e in EXPECTED}
QUIRKS = {e["file"] for e in EXPECTED if "REFERENCE-QUIRK" in e["notes"]}
FACT_KEYS = ("aucx_format_version", "radius_axis_mode", "n_scans", "n_points", "scan_ids",
             "radius_unit", "signal_unit", "experiment_id", "export")

#: Injected problems without a member argument: the member each concerns,
#: as named in that case's notes (checked against the notes below).
LINE_MEMBER = {
    ("bad_checksum_line_malformed.aucx", "checksum_line_malformed"): "experiment.json",
    ("multi_signal_flip_unlisted_member_bad_line.aucx", "checksum_line_malformed"):
        "provenance.json",
    ("bad_checksum_digest_63_chars.aucx", "checksum_digest_length"): "arrays/radius.npy",
}


def expected_finding(file: str, problem: str) -> tuple[str, str]:
    """``(finding code, location)`` our reader must report for one injected problem."""
    kind, _, arg = problem.partition(":")
    member_codes = {
        "checksum_mismatch": "checksums.mismatch",
        "checksum_duplicate_entry": "checksums.duplicate-entry",
        "listed_member_missing": "checksums.listed-missing",
        "unlisted_member": "checksums.unlisted",
        "member_not_in_parts": "manifest.member-not-in-parts",
        "zip_duplicate_member": "zip.duplicate-member",
        "unsafe_member_name": "zip.unsafe-name",
        "encrypted_flag": "zip.encrypted",
        "declared_size_over_limit": "zip.declared-size",
        "pickled_object_array": "array.pickled",
    }
    if kind in member_codes:
        return member_codes[kind], arg
    if kind in ("checksum_line_malformed", "checksum_digest_length"):
        code = "checksums.malformed-line" if kind == "checksum_line_malformed" else (
            "checksums.digest-length")
        return code, LINE_MEMBER[(file, kind)]
    fixed = {
        "checksums_missing": ("checksums.missing", "checksums.sha256"),
        "format_version_unsupported": ("manifest.version-unsupported", "manifest.json"),
        "format_version_missing": ("manifest.version-missing", "manifest.json"),
        "manifest_not_json": ("manifest.not-json", "manifest.json"),
        "manifest_not_object": ("manifest.not-object", "manifest.json"),
        "mask_dtype": ("array.dtype", "arrays/mask.npy"),
        "signal_ndim": ("array.ndim", "arrays/signal.npy"),
        "declared_shape_mismatch": ("array.shape-mismatch", f"arrays/{arg}.npy"),
        "scan_ids_count_mismatch": ("array.scan-count", "manifest.json"),
        "shared_mask_not_all_true": ("array.shared-mask-not-all-true", "arrays/mask.npy"),
        "not_a_zip": ("zip.not-a-zip", ""),
        "empty_zip": ("zip.empty", ""),
        "truncated": ("zip.truncated", ""),
    }
    return fixed[kind]


def verified(file: str):
    doc = open_archive(AUCX / file)
    doc.verify()
    return doc


@pytest.mark.parametrize("file", [e["file"] for e in EXPECTED if e["file"] not in QUIRKS])
@pytest.mark.slow
def test_verdict_matches_reference(file):
    """The one check of each archive's verdict: opened as the application opens it (the
    registry sniffs the format), fully verified, no finding from a reader that failed."""
    with open_document(AUCX / file) as doc:
        doc.verify()
        assert doc.format == "aucx" or not BY_FILE[file]["valid"]
        assert not [f for f in doc.findings if f.code.startswith("internal.")]
        assert doc.ok == BY_FILE[file]["valid"], [f.to_json() for f in doc.findings]


def test_line_member_table_matches_notes():
    for (file, _), member in LINE_MEMBER.items():
        assert member in BY_FILE[file]["notes"]


def test_uppercase_hex_quirk_is_rejected_following_the_seed():
    """REFERENCE-QUIRK decision: openauc lower-cases digests and accepts the
    archive; the seed's line format is ``<64 lowercase hex digits>  <name>``
    and malformed lines are rejected.  We follow the seed: every upper-case
    line is its own error finding at its member (status ``malformed-entry``),
    while the digests themselves still match case-insensitively (no mismatch
    finding), so the archive is reported invalid (reference says valid)."""
    file = "ok_checksum_uppercase_hex.aucx"
    assert file in QUIRKS and BY_FILE[file]["valid"] is True
    doc = verified(file)
    assert doc.ok is False
    errors = {(f.code, f.location) for f in doc.findings if f.severity == "error"}
    listed = sorted(n for n in BY_FILE[file]["member_sha256"] if n != "checksums.sha256")
    assert errors == {("checksums.digest-not-lowercase", n) for n in listed}
    rows = {m.name: m for m in doc.members}
    for name in listed:
        assert rows[name].status == "malformed-entry"
        assert rows[name].computed == BY_FILE[file]["member_sha256"][name]
        assert rows[name].recorded == rows[name].computed  # same digest, other case


@pytest.mark.parametrize("file", [e["file"] for e in EXPECTED if e["injected_problems"]])
def test_each_injected_problem_is_its_own_error_at_its_member(file):
    doc = verified(file)
    want = [expected_finding(file, p) for p in BY_FILE[file]["injected_problems"]]
    assert len(set(want)) == len(want)
    errors = [(f.code, f.location) for f in doc.findings if f.severity == "error"]
    assert sorted(errors) == sorted(want)


@pytest.mark.parametrize("file", [e["file"] for e in EXPECTED if e["member_sha256"]])
@pytest.mark.slow
def test_computed_digests_equal_corpus_member_digests(file):
    doc = verified(file)
    sha = BY_FILE[file]["member_sha256"]
    hashed = [m for m in doc.members if m.computed is not None]
    for m in hashed:
        assert m.computed == sha[m.name], m.name
    if BY_FILE[file]["valid"]:
        assert {m.name for m in hashed} == set(sha)


@pytest.mark.parametrize("file", [e["file"] for e in EXPECTED if e["info"]])
def test_summary_facts_equal_reference_info(file):
    doc = verified(file)
    info = BY_FILE[file]["info"]
    for key in FACT_KEYS:
        assert doc.summary[key] == info[key], key
    if BY_FILE[file]["valid"]:
        assert sorted(m["name"] for m in doc.summary["members"]) == info["members"]
    if BY_FILE[file]["valid"] and file not in QUIRKS:
        assert all(m["status"] == "ok" for m in doc.summary["members"])
        assert doc.summary["checksum_verified"] is True
        assert doc.verified is True


def test_byte_flip_row_shows_recorded_and_computed_digest():
    doc = verified("bad_signal_byte_flip.aucx")
    row = next(m for m in doc.members if m.name == "arrays/signal.npy")
    assert row.status == "mismatch"
    message = BY_FILE["bad_signal_byte_flip.aucx"]["reference_error"]["message"]
    assert f"recorded {row.recorded}" in message and f"computed {row.computed}" in message
    assert {m.status for m in doc.members if m.name != "arrays/signal.npy"} == {"ok"}
    # safe parts are still shown; the experiment model is withheld
    assert doc.summary["experiment_id"] == BY_FILE["src_readiness_rich.aucx"]["info"][
        "experiment_id"]
    assert len(doc.tables["scans"].frame()) == 3
    assert doc.auc is None or doc.auc.experiment is None
    assert doc.header.find("") is not None


@pytest.mark.parametrize("file,statuses", [
    ("bad_listed_member_missing.aucx", {"arrays/mask.npy": "missing-member"}),
    ("bad_extra_member_unlisted.aucx", {"extras/unlisted.txt": "unlisted"}),
    ("bad_checksum_line_malformed.aucx", {"experiment.json": "malformed-entry"}),
    ("bad_checksum_member_listed_twice.aucx", {"experiment.json": "duplicate-entry"}),
    ("bad_zip_duplicate_member.aucx", {"arrays/signal.npy": "duplicate-entry"}),
    ("bad_member_encrypted_flag.aucx", {"arrays/signal.npy": "refused"}),
    ("bad_zip_bomb_declared_size.aucx", {"arrays/signal.npy": "refused"}),
])
def test_member_statuses(file, statuses):
    doc = verified(file)
    rows = {m.name: m.status for m in doc.members}
    for name, status in statuses.items():
        assert rows[name] == status
    assert all(s == "ok" for n, s in rows.items() if n not in statuses)
    assert doc.summary["members"] == [m.to_json() for m in doc.members]


def test_refused_member_is_never_decompressed():
    doc = verified("bad_zip_bomb_declared_size.aucx")
    row = next(m for m in doc.members if m.name == "arrays/signal.npy")
    assert row.computed is None
    assert "signal" not in doc.arrays


def test_members_pending_before_verification():
    doc = open_archive(AUCX / "src_demo_experiment.aucx")
    assert doc.verified is False
    assert [m.status for m in doc.members] == ["pending"] * 7
    assert all(m.computed is None for m in doc.members)
    assert doc.summary["checksum_verified"] is False
    assert doc.header.children[-1].value == "pending verification"
    doc.verify()
    assert doc.verified is True and doc.header.children[-1].value == "verified"


def test_progress_is_reported_after_each_member():
    doc = open_archive(AUCX / "src_per_scan.aucx")
    calls = []
    doc.verify(progress=lambda p: calls.append((p.done, p.total, p.member.name, p.member.status)))
    assert [c[0] for c in calls] == list(range(1, 8))
    assert {c[1] for c in calls} == {7}
    assert sorted(c[2] for c in calls) == sorted(m.name for m in doc.members)
    assert all(c[3] == "ok" for c in calls)


def test_cancelled_verification_then_complete():
    """Cancelled before the first member: deterministic, whatever the load."""
    doc = open_archive(AUCX / "syn_moving_boundary_large_s123_10x3000.aucx")
    check = doc.checks[0]
    result = check.run(None, lambda: True)
    assert result.complete is False
    assert {m.status for m in result.checksums.members} == {"cancelled"}
    doc.apply(check, result)
    assert doc.verified is False and doc.checks == [check]
    assert all(m.status in ("cancelled", "ok") for m in doc.members)
    assert any(m.status == "cancelled" for m in doc.members)
    # the container's findings (the experiment's structure is judged apart)
    codes = [(f.severity, f.code) for f in doc.findings if f.scope == "integrity"]
    assert codes == [("warning", "verify.cancelled")]
    assert doc.summary["checksum_verified"] is False
    assert doc.header.children[-1].value == "cancelled"
    full = check.run()  # a later full run starts afresh ...
    assert full.complete and full.findings == ()
    doc.apply(check, full)
    assert doc.verified is True and doc.checks == []
    assert {m.status for m in doc.members} == {"ok"}
    # ... and replaces what the cancelled run reported: nothing is left over
    assert [f for f in doc.findings if f.scope == "integrity"] == []
    assert doc.summary["checksum_verified"] is True


def test_cancel_between_batches_stops_after_exactly_the_finished_members(monkeypatch):
    from inspector.formats.aucx import verify as verify_mod

    monkeypatch.setattr(verify_mod, "BATCH_MEMBERS", 1)
    monkeypatch.setattr(verify_mod, "IN_FLIGHT", 1)
    doc = open_archive(AUCX / "src_per_scan.aucx")
    events = []
    result = doc.checks[0].run(events.append, lambda: len(events) >= 3)
    assert not result.complete and [e.done for e in events] == [1, 2, 3]
    statuses = [m.status for m in result.checksums.members]
    assert statuses.count("ok") == 3 and statuses.count("cancelled") == 4
    assert {e.member.name for e in events} == {
        m.name for m in result.checksums.members if m.status == "ok"}
    assert "3 of 7" in result.findings[0].message


def test_trees_and_scans_table():
    file = "src_per_scan.aucx"
    doc = verified(file)
    sha = BY_FILE[file]["member_sha256"]
    members = [n for n in doc.tree.children if n.kind == "member"]
    assert [n.location for n in members] == list(sha)
    assert all("deflate" in n.detail for n in members)
    h = {n.name: n for n in doc.header.children}
    assert h["aucx_format_version"].value == "1.0"
    assert {c.name: c.value for c in h["created_by"].children} == {
        "software": "openauc", "version": "0.1.0a1"}
    assert h["radius_axis_mode"].value == "per_scan"
    arrays = {c.name: {g.name: g.value for g in c.children} for c in h["arrays"].children}
    assert arrays["mask"]["dtype"] == "bool" and arrays["signal"]["shape"] == [2, 3]
    imp, exp = doc.provenance.children
    assert (imp.name, exp.name) == ("import", "export")
    files = next(c for c in imp.children if c.name == "source_files")
    labels = [c.name for c in files.children]
    assert labels == ["manifest: manifest.json", "data_file: scans.csv"]
    digest = {g.name: g.value for g in files.children[1].children}["value"]
    assert digest == {c.name: c.value for c in imp.children}["sha256"]
    assert {c.name: c.value for c in exp.children}["exported_at"] == "2026-01-01T00:00:00Z"
    assert not any(c.name == "software" for c in imp.children)
    table = doc.tables["scans"].frame()
    assert list(table["scan_id"]) == ["scan_001", "scan_002"]
    assert list(table["index"]) == [0, 1]
    assert list(table["elapsed_time_status"]) == ["missing", "missing"]


def test_lazy_arrays_match_experiment_and_envelope_honours_mask():
    doc = verified("syn_per_scan_radius_s2_8x150.aucx")
    exp = doc.auc.experiment
    assert exp.scan_ids == BY_FILE["syn_per_scan_radius_s2_8x150.aucx"]["info"]["scan_ids"]
    sig, mask = doc.arrays["signal"], doc.arrays["mask"]
    assert sig.shape == (8, 150) and str(sig.dtype) == "float64"
    full_mask = mask.read()
    short = [i for i in range(8) if not full_mask[i].all()]
    assert short  # 147-150 points per scan
    i = short[0]
    n_real = int(full_mask[i].sum())
    env = sig.envelope((i, None), 0, 150, 1000)  # raw samples
    assert env.raw
    assert (~(env.lo[n_real:] == env.lo[n_real:])).all()  # padding is NaN, never plotted
    assert (env.lo[:n_real] == exp.signal[i, :n_real]).all()
    assert (sig.read((slice(2, 5), slice(0, 3))) == exp.signal[2:5, :3]).all()
    assert (doc.arrays["radius"].read(i)[:n_real] == exp.scan_radius(i)).all()
    binned = sig.envelope((i, None), 0, 150, 10)
    assert not binned.raw and len(binned) == 10


def test_unverified_experiment_metadata_is_withheld():
    """experiment.json's checksum line is malformed, so its content is unverified."""
    opened_only = open_archive(AUCX / "bad_checksum_line_malformed.aucx")
    assert "scans" in opened_only.tables  # shown while pending ...
    doc = verified("bad_checksum_line_malformed.aucx")
    assert "scans" not in doc.tables  # ... withheld once it failed
    assert doc.summary["experiment_id"] is None
    assert doc.summary["n_scans"] == 3  # manifest.json verified: still shown
    assert doc.provenance.detail == ""
