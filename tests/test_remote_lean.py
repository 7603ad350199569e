"""Opening a recording reads its metadata only; the label scan is a deferred check.

The per-sample stimulus labels are as long as the recording; their scan (the
``stim_labels`` facts, each trial's stimulus ID and the vision alignment) runs
as a deferred check, so that ``verify --json`` gives the same report as when
it ran while opening: ``tests/golden/recording_reports.json`` holds the
reports of every fixture recording written by the reader that scanned at open.
Servers are started here on 127.0.0.1 (tests/range_server.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from range_server import RangeServer
from test_vneurotk_helpers import write_recording

from inspector.cli import json_line
from inspector.formats.capabilities import Progress
from inspector.formats.registry import open_document
from inspector.formats.vneurotk.label_check import LabelCheck

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = json.loads((Path(__file__).parent / "golden" / "recording_reports.json")
                    .read_text(encoding="utf-8"))


def verify_json(target) -> dict:
    """The ``verify --json`` object of ``target`` without its path; the fixtures folder in
    messages (an external link's target) reads ``<fixtures>``, as in the golden file."""
    with open_document(target) as doc:
        doc.verify()
        line = json_line(doc.to_json()).replace(str(FIXTURES.resolve()), "<fixtures>")
    out = json.loads(line)
    out.pop("path")
    return out


def test_golden_reports_cover_every_fixture_recording():
    assert sorted(GOLDEN) == sorted(p.relative_to(FIXTURES).as_posix()
                                    for p in FIXTURES.rglob("*.h5"))


@pytest.mark.parametrize("rel", sorted(GOLDEN))
@pytest.mark.slow
def test_verify_json_is_the_report_of_the_scan_at_open(rel):
    assert verify_json(FIXTURES / rel) == GOLDEN[rel]


def test_open_leaves_the_labels_to_the_check():
    with open_document(FIXTURES / "vneurotk/v1/continuous_dense_f32_intids.h5") as doc:
        assert doc.summary["stim_labels"] is None and doc.summary["trial_stim_ids"] is None
        assert doc.trials.stim_ids_pending and doc.trials.trial_stim_ids is None
        check = doc.checks[0]
        assert isinstance(check, LabelCheck) and check.title == "Stimulus labels"
        assert not check.run(cancelled=lambda: True).complete
        events: list[Progress] = []
        result = check.run(progress=events.append)
        assert result.complete and events and events[-1].done == events[-1].total
        assert doc.summary["stim_labels"] is None  # running never touches the document
        doc.apply(check, result)
        assert doc.trials is result.trials and not doc.trials.stim_ids_pending
        want = GOLDEN["vneurotk/v1/continuous_dense_f32_intids.h5"]["summary"]
        assert doc.summary["stim_labels"] == want["stim_labels"]
        assert doc.summary["trial_stim_ids"] == want["trial_stim_ids"]
        assert len(doc.trials.trial_stim_ids) == want["trial_stim_ids"]["count"]


@pytest.fixture(scope="module")
def long_recording(tmp_path_factory) -> Path:
    """A recording with 500 000 samples: 4 MB of float64 labels."""
    path = tmp_path_factory.mktemp("lean") / "long.h5"
    write_recording(path, n_trials=100, n_time=5000, n_ch=1)
    return path


@pytest.mark.slow
def test_open_over_http_reads_no_per_sample_array(long_recording):
    with RangeServer() as srv:
        url = srv.add("long.h5", long_recording)
        srv.reset_counts()
        with open_document(url) as doc:
            opened = (srv.requests, srv.bytes)
            assert doc.ok and "neuro" in doc.arrays and doc.trials is not None
            doc.verify()
            labels = doc.summary["stim_labels"]
        local = verify_json(long_recording)
        assert verify_json(url) == local
    assert opened[0] < 10 and opened[1] < 1_000_000, opened
    assert labels["count"] == 500_000 and labels["non_missing_count"] == 100
    assert local["summary"]["trial_stim_ids"]["count"] == 100
