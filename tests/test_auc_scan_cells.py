"""The AUC view's scan cells are read from the ScanRecords column, without building a
record per scan (a million scans would cost over a minute of GUI-thread time)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from inspector.formats.auc.scan_records import ScanRecords
from inspector.ui.plots.auc_scans import scan_cells

RECORDS = [{"scan_id": "a", "cell": "1"}, {"scan_id": "b"}, {"scan_id": "c", "cell": 2},
           {"scan_id": "d", "cell": None}, {"scan_id": "e", "cell": "1"},
           {"scan_id": "f", "cell": "B"}]


def _auc(scans):
    return SimpleNamespace(experiment=SimpleNamespace(scans=scans))


def test_cells_of_columns_equal_the_cells_of_the_records(monkeypatch):
    expected = scan_cells(_auc(RECORDS), 6)
    assert expected == ["1", "", "2", "", "1", "B"]
    records = ScanRecords.of(RECORDS)

    def no_record(*_):
        raise AssertionError("a scan record was built")

    monkeypatch.setattr(ScanRecords, "__getitem__", no_record)
    monkeypatch.setattr(ScanRecords, "__iter__", no_record)
    assert scan_cells(_auc(records), 6) == expected
    assert scan_cells(_auc(records), 4) == expected[:4]


@pytest.mark.parametrize("n", [7, 100])
def test_more_scans_than_records_are_one_group(n):
    assert scan_cells(_auc(ScanRecords.of(RECORDS)), n) == [""] * n
