"""The AUCX and Beckman readers hold their scan records as columns (ScanRecords), equal
to what the reference reader (openauc 0.1.0a1) and the scan files say."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from inspector.formats.auc.scan_records import ScanRecords
from inspector.formats.aucx import open_archive
from inspector.formats.beckman import load_run
from tests.test_beckman_layout import data, header, write

openauc = pytest.importorskip("openauc")
CORPUS = Path(__file__).parent / "fixtures" / "aucx"
ARCHIVES = ("src_readiness_rich.aucx", "syn_mixed_optics_s4_6x60.aucx",
            "syn_per_scan_radius_s2_8x150.aucx", "src_long_csv.aucx")


@pytest.mark.parametrize("name", ARCHIVES)
def test_archive_scans_are_columns_equal_to_openauc(name):
    path = CORPUS / name
    doc = open_archive(path)
    try:
        doc.verify()
        exp = doc.auc.experiment
        assert isinstance(exp.scans, ScanRecords)
        reference = json.loads(json.dumps(openauc.load(path).to_dict()["scans"]))
        assert len(exp.scans) == len(reference) > 0
        assert [s["scan_id"] for s in exp.scans] == [s["scan_id"] for s in reference]
        assert json.loads(json.dumps(list(exp.scans))) == reference
    finally:
        doc.close()


def test_beckman_scans_are_columns_with_the_recorded_values(tmp_path):
    run = tmp_path / "run"
    for i in range(1, 41):
        write(run, f"{i:05d}.RA1", ["cell 1", header(seconds=60 * i, rpm="42000", temp="20.5"),
                                   *data(n=3 + i % 4, seed=i)])
    exp = load_run(run)
    assert isinstance(exp.scans, ScanRecords)
    assert len(exp.scans) == 40
    assert [s["scan_id"] for s in exp.scans] == [f"{i:05d}.RA1" for i in range(1, 41)]
    elapsed = np.array([s["elapsed_time"]["value"] for s in exp.scans])
    assert np.array_equal(elapsed, 60.0 * np.arange(1, 41))
    assert {s["rotor_speed"]["value"] for s in exp.scans} == {42000.0}
    assert exp.scans[7] == {
        "scan_id": "00008.RA1", "index": 7,
        "elapsed_time": {"value": 480.0, "unit": "s", "unit_label": None, "status": "present",
                         "provenance": "supplied"},
        "acquired_at": None, "cell": "1", "channel": None,
        "wavelength": {"value": 280.0, "unit": "nm", "unit_label": None, "status": "present",
                       "provenance": "supplied"},
        "optical_system": "absorbance",
        "rotor_speed": {"value": 42000.0, "unit": "rpm", "unit_label": None,
                        "status": "present", "provenance": "supplied"},
        "temperature": {"value": 20.5, "unit": "degC", "unit_label": None, "status": "present",
                        "provenance": "supplied"},
        "source_file": "00008.RA1",
        "annotations": ["omega2t_rad2_per_s=1.3160E10",
                        "count=1"],
    }


@pytest.mark.parametrize("name", ARCHIVES)
def test_scans_table_of_columns_equals_the_table_of_rows(name):
    from inspector.formats.aucx.model import scan_rows, scans_table
    from inspector.formats.table import table_of_rows

    doc = open_archive(CORPUS / name)
    try:
        records = doc.auc.experiment.scans
        rows = json.loads(json.dumps(list(records)))
    finally:
        doc.close()
    ours, theirs = scans_table(records), table_of_rows(scan_rows(rows))
    assert ours.plain and ours.facts() == theirs.facts()
    assert ours.frame().equals(theirs.frame())


def test_scans_table_of_uneven_records_is_the_frame_of_rows():
    from inspector.formats.aucx.model import scan_rows, scans_table
    from inspector.formats.table import table_of_rows

    rows = [{"scan_id": "a", "index": 0, "cell": "1"}, {"scan_id": "b", "index": 1},
            {"scan_id": "c", "index": 2, "cell": 3}]
    ours = scans_table(ScanRecords.of(rows))
    assert not ours.plain
    assert ours.frame().equals(table_of_rows(scan_rows(rows)).frame())
    mixed = [{"scan_id": "a", "index": 0, "cell": "1"}, {"scan_id": "b", "index": 1, "cell": 2}]
    assert not scans_table(ScanRecords.of(mixed)).plain
