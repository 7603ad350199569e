"""Oracle: openauc 0.1.0a1 (test-only) loads our AUCX export of Beckman runs.

Every exported archive verifies in our own AUCX reader and loads in openauc
with each scan's radius and signal equal to Python's float() of the tokens in
the scan file, units and optical systems as openauc's model names them, the
per-scan speed, temperature, elapsed time and wavelength, and the import
provenance (one SHA-256 per source file) carried unchanged.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

import inspector
from inspector.cli import main as cli_main
from inspector.formats.auc.export import ExportError, export_to_aucx, open_group
from inspector.formats.beckman import load_run, open_run
from inspector.formats.registry import open_document
from tests.test_beckman_layout import data, header, mixed_run, tokens, write

openauc = pytest.importorskip("openauc")

STAMP = "2026-01-01T00:00:00Z"
IMPORTED = datetime(2026, 1, 1, tzinfo=UTC)
SAMPLE = Path(__file__).parent.parent / "resources" / "samples" / "beckman_run"

#: group -> (signal unit, optical system) as openauc 0.1.0a1's enums spell them
KINDS = {"RA1-230": ("AU", "absorbance"), "RA2-280": ("AU", "absorbance"),
         "RI3-230": ("instrument_unit", "intensity"), "IP2-660": ("fringe", "interference"),
         "FI4A-488": ("instrument_unit", "fluorescence")}


def _check_against_source(aucx: Path, run: Path, group: str) -> None:
    """The archive loads in openauc and holds exactly what the scan files say."""
    assert openauc.validate_aucx(aucx).is_valid
    exp = openauc.load(aucx)
    unit, system = KINDS[group]
    assert exp.observations.mode.value == "per_scan"
    assert exp.observations.signal_unit.value == unit
    assert exp.observations.radius_unit.value == "cm"
    for scan in exp.scans:
        src = run / scan.scan_id
        oracle = np.asarray(tokens(src))
        r, s = exp.observations.scan_vectors(scan.scan_id)
        assert np.array_equal(r, oracle[:, 0]) and np.array_equal(s, oracle[:, 1])
        fields = src.read_bytes().splitlines()[1].split()
        assert scan.temperature.value == float(fields[2]) and scan.temperature.unit.value == "degC"
        assert scan.rotor_speed.value == float(fields[3]) and scan.rotor_speed.unit.value == "rpm"
        assert scan.elapsed_time.value == float(fields[4]) and scan.elapsed_time.unit.value == "s"
        assert scan.wavelength.value == float(fields[6]) and scan.wavelength.unit.value == "nm"
        assert scan.optical_system.value == system and scan.source_file == scan.scan_id
        assert f"omega2t_rad2_per_s={fields[5].decode()}" in scan.annotations
    prov = exp.provenance
    assert prov.parser_name == "beckman-xl" and prov.parser_version == inspector.__version__
    assert [c.filename for c in prov.source_checksums] == [s.scan_id for s in exp.scans]
    for c in prov.source_checksums:
        assert c.role == "scan_file" and c.algorithm == "sha256"
        assert c.value == hashlib.sha256((run / c.filename).read_bytes()).hexdigest()
        assert c.byte_size == (run / c.filename).stat().st_size
    assert any("third data column" in a for a in prov.assumptions)
    assert any("omega^2t" in a for a in prov.assumptions)


@pytest.mark.parametrize("group", list(KINDS))
def test_every_radial_type_exports_and_loads_in_the_reference(tmp_path, group):
    run = mixed_run(tmp_path)
    doc = open_run(run, group, imported_at=IMPORTED)
    dest = tmp_path / f"{group}.aucx"
    export_to_aucx(doc, dest, exported_at=STAMP)
    _check_against_source(dest, run, group)
    with open_document(dest) as back:
        back.verify()
        assert back.format == "aucx" and back.ok, list(back.findings)
        assert back.auc.scan_ids == doc.auc.scan_ids


def test_export_of_a_folder_path_takes_the_default_group(tmp_path):
    run = tmp_path / "clean"
    for n in range(1, 5):
        write(run, f"{n:05d}.RA1", ["clean run", header(seconds=60 * n,
                                                         wl="280" if n % 2 else "230"),
                                    *data(7 + n, seed=n)], eol=b"\r\n")
    dest = tmp_path / "out.aucx"
    export_to_aucx(run, dest, exported_at=STAMP)
    exp = openauc.load(dest)
    assert [s.scan_id for s in exp.scans] == ["00002.RA1", "00004.RA1"]
    assert exp.metadata.experiment_id == "clean-RA1-230"
    assert exp.metadata.description == "clean run"
    d = exp.to_dict()
    assert d["provenance"]["inferred_values"] == ["metadata.experiment_id", "metadata.name"]
    assert d["provenance"]["sha256"] is None
    # the same experiment and time give the same archive, byte for byte
    exp1 = load_run(run, imported_at=IMPORTED)
    a, b = tmp_path / "a.aucx", tmp_path / "b.aucx"
    export_to_aucx(exp1, a, exported_at=STAMP)
    export_to_aucx(load_run(run, imported_at=IMPORTED), b, exported_at=STAMP)
    assert a.read_bytes() == b.read_bytes()


def test_differing_description_lines_go_to_the_scans(tmp_path):
    run = tmp_path / "desc"
    write(run, "00001.RA1", ["first text", header(seconds=60), *data(4)])
    write(run, "00002.RA1", ["second text", header(seconds=120), *data(4)])
    dest = tmp_path / "d.aucx"
    export_to_aucx(run, dest, exported_at=STAMP)
    exp = openauc.load(dest)
    assert exp.metadata.description is None
    assert [a for s in exp.scans for a in s.annotations if a.startswith("description=")] == [
        "description=first text", "description=second text"]


def test_a_run_with_an_error_is_refused_and_leaves_nothing(tmp_path):
    run = mixed_run(tmp_path)
    write(run, "00009.RA3", ["d", header(cell=3), "5.9 0.1", "5.91"])
    dest = tmp_path / "refused.aucx"
    with pytest.raises(ExportError) as info:
        export_to_aucx(run, dest, exported_at=STAMP)
    assert "00009.RA3:4" in str(info.value) and "beckman.malformed-line" in {
        f.code for f in info.value.findings}
    assert not dest.exists() and not list(tmp_path.glob(".refused*"))


def test_wavelength_group_is_not_exportable(tmp_path):
    run = mixed_run(tmp_path)
    with pytest.raises(ExportError, match="not an AUC source"):
        export_to_aucx(open_run(run, "WA1-6.5"), tmp_path / "w.aucx", exported_at=STAMP)


def test_the_shipped_sample_exports_from_the_command_line(tmp_path, capsys):
    size = sum(p.stat().st_size for p in SAMPLE.iterdir())
    assert size < 50_000 and len(list(SAMPLE.iterdir())) >= 4
    with open_document(SAMPLE) as doc:
        assert doc.format == "beckman-xl" and doc.ok, list(doc.findings)
        groups = doc.tables["groups"].frame()["group"].tolist()
    assert len(groups) >= 2
    dest = tmp_path / "sample.aucx"
    assert cli_main(["export", str(SAMPLE), str(dest), "--exported-at", STAMP]) == 0
    exp = openauc.load(dest)
    assert exp.observations.n_scans == int(doc.tables["groups"].frame()["scans"][0])
    for scan in exp.scans:
        oracle = np.asarray(tokens(SAMPLE / scan.scan_id))
        r, s = exp.observations.scan_vectors(scan.scan_id)
        assert np.array_equal(r, oracle[:, 0]) and np.array_equal(s, oracle[:, 1])
    capsys.readouterr()
    assert cli_main(["verify", "--json", str(SAMPLE)]) == 0
    entry = json.loads(capsys.readouterr().out)
    assert entry["format"] == "beckman-xl" and entry["summary"]["group"] == groups[0]


def test_export_group_chooses_another_experiment_of_the_run(tmp_path, capsys):
    with open_document(SAMPLE) as doc:
        assert doc.groups is not None and doc.groups.selected == doc.groups.keys[0]
        second = doc.groups.keys[1]
    dest = tmp_path / "second.aucx"
    assert cli_main(["export", str(SAMPLE), str(dest), "--group", second,
                     "--exported-at", STAMP]) == 0
    with open_document(SAMPLE) as doc, doc.groups.open(second) as chosen:
        assert chosen.groups.selected == second and chosen.ok
        ids = list(chosen.auc.scan_ids)
    exp = openauc.load(dest)
    assert [s.scan_id for s in exp.scans] == ids
    for scan in exp.scans:  # values exact, from the files themselves
        oracle = np.asarray(tokens(SAMPLE / scan.scan_id))
        r, s = exp.observations.scan_vectors(scan.scan_id)
        assert np.array_equal(r, oracle[:, 0]) and np.array_equal(s, oracle[:, 1])
    capsys.readouterr()
    assert cli_main(["export", str(SAMPLE), str(tmp_path / "x.aucx"), "--group", "ZZ9-1"]) == 1
    err = capsys.readouterr().err
    assert "no group 'ZZ9-1'" in err and second in err and not (tmp_path / "x.aucx").exists()
    demo = Path(__file__).parent / "fixtures" / "auc-delimited" / "demo_experiment"
    with pytest.raises(ExportError, match="single experiment"):
        open_group(demo, "RA1-280")
