"""The ``verify --json`` summary of an AUC source lists scans and the model up to a
documented limit and summarises them with counts above it (a report line stays short)."""

from __future__ import annotations

import json

import pytest

from inspector.cli import render_document
from inspector.formats.auc.model import (
    SUMMARY_ENDS,
    SUMMARY_MAX_LISTED,
    SUMMARY_MAX_VALUES,
    summary_list,
)
from inspector.formats.delimited import open_delimited

MANIFEST = {"schema_version": "1.0", "format": "generic-long", "data_file": "scans.csv",
            "experiment": {"experiment_id": "many", "name": "many"},
            "defaults": {"signal_unit": "absorbance_unit"}}


def _table(folder, scans: int, points: int):
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps(MANIFEST))
    rows = "".join(f"s{i},{6 + k / 100},{(i + k) % 7}\n"
                   for i in range(scans) for k in range(points))
    (folder / "scans.csv").write_text("scan,radius_cm,signal\n" + rows)
    return open_delimited(folder)


def test_summary_list_keeps_short_lists_and_counts_long_ones():
    assert summary_list([1, 2, 3], limit=3) == [1, 2, 3]
    long = list(range(10))
    assert summary_list(long, limit=9) == {"summarised": True, "count": 10,
                                           "first": long[:SUMMARY_ENDS],
                                           "last": long[-SUMMARY_ENDS:]}


@pytest.mark.slow
def test_a_table_of_many_scans_is_summarised_with_counts(tmp_path):
    n = SUMMARY_MAX_LISTED + 1
    doc = _table(tmp_path / "t", n, 1)
    assert doc.ok, [f.message for f in doc.findings if f.severity == "error"]
    s = doc.summary
    assert s["n_scans"] == n
    assert s["scan_ids"] == {"summarised": True, "count": n,
                             "first": [f"s{i}" for i in range(SUMMARY_ENDS)],
                             "last": [f"s{i}" for i in range(n - SUMMARY_ENDS, n)]}
    model = s["model"]
    assert model["summarised"] is True and model["n_scans"] == n and model["n_values"] == n
    assert model["metadata"]["experiment_id"] == "many"
    assert s["structure"]["points_per_scan"]["count"] == n
    line = render_document(doc, as_json=True)
    assert len(line) < 20_000


@pytest.mark.slow
def test_a_table_at_the_limits_keeps_the_reference_keys(tmp_path):
    points = SUMMARY_MAX_VALUES // 2000
    doc = _table(tmp_path / "t", 2000, points)
    assert doc.ok
    s = doc.summary
    assert s["scan_ids"] == [f"s{i}" for i in range(2000)]
    exp = doc.auc.experiment
    assert s["model"] == exp.to_dict()
    assert len(s["model"]["observations"]["signal"]) == 2000


def test_a_long_table_past_the_scan_limit_is_refused_at_the_row_starting_one_more(
        tmp_path, monkeypatch):
    from inspector.formats.delimited import layouts

    monkeypatch.setattr(layouts, "MAX_SCANS", 3)
    doc = _table(tmp_path / "t", 5, 2)  # rows: header line 1, scan k at lines 2k+2, 2k+3
    errors = [(f.code, f.location) for f in doc.findings if f.severity == "error"]
    assert errors == [("table.too-many-scans", "scans.csv:8")]
    assert doc.auc is None and not doc.ok
    exactly = _table(tmp_path / "u", 3, 2)
    assert exactly.ok and exactly.summary["n_scans"] == 3
