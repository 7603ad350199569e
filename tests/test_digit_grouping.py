"""Counts shown to the user are grouped by thousands with commas, as everywhere in the
app ("12,924 bytes"): the AUC plot's status, the progress boxes, the checksum verdict and
its progress bar, the trial metadata summary, the ZIP tree's sizes (pytest-qt, offscreen)."""

from __future__ import annotations

import numpy as np

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.capabilities import AucScans, MemberCheck
from inspector.ui.checksum_panel import ChecksumPanel, verdict_text
from inspector.ui.read_progress import ReadProgress


def test_the_auc_status_groups_its_measured_points(qtbot, jobs):
    from inspector.ui.plots.auc import AucView

    scans, points = 3, 2500
    rng = np.random.default_rng(1)
    arrays = {"radius": NumpyArrayRef("radius", np.linspace(5.9, 7.2, points)),
              "signal": NumpyArrayRef("signal", rng.standard_normal((scans, points))),
              "mask": NumpyArrayRef("mask", np.ones((scans, points), bool))}
    view = AucView(AucScans(scan_ids=("a", "b", "c"), radius_unit="cm", signal_unit="AU"),
                   arrays, jobs)
    qtbot.addWidget(view)
    view.resize(800, 400)
    view.show()
    qtbot.waitUntil(lambda: view.drawn >= 1, timeout=10000)
    assert view.status.text().startswith("3 scans, 7,500 measured points")


def test_a_progress_box_groups_its_counts(qtbot):
    from PySide6.QtWidgets import QWidget

    host = QWidget()
    qtbot.addWidget(host)
    box = ReadProgress(host, "chunks")
    box.start(4096)
    assert box.bar.text() == "0 of 4,096 chunks (0%)"
    box.update_progress(1012, 4096)
    assert box.bar.text() == "1,012 of 4,096 chunks (24%)"
    assert box.bar.minimumWidth() >= box.bar.fontMetrics().horizontalAdvance(
        "1,000,000 of 1,000,000 chunks (100%)")


def test_the_checksum_verdict_and_bar_group_their_counts(qtbot):
    members = [MemberCheck(f"arrays/part_{i:05d}.npy", "a" * 64, "a" * 64, "ok")
               for i in range(1500)]
    assert verdict_text(members, "done") == ("ok", "All 1,500 members verified")
    members[7] = MemberCheck(members[7].name, "a" * 64, "b" * 64, "mismatch")
    assert verdict_text(members, "done")[1].startswith("1 of 1,500 members failed")
    panel = ChecksumPanel(members)
    qtbot.addWidget(panel)
    panel.start()
    panel.on_progress(1234, 1500, None)
    assert panel.progress.text() == "1,234 / 1,500"
    assert panel.verdict.startswith("Verifying… ")


def test_zip_sizes_in_the_archive_tree_are_grouped():
    from pathlib import Path

    from inspector.formats.registry import open_document

    path = Path(__file__).parent / "fixtures/aucx/syn_moving_boundary_large_s123_10x3000.aucx"
    with open_document(path) as doc:
        size = path.stat().st_size
        assert size >= 1000
        details = [n.detail for n in _walk(doc.tree)]
        assert any(f"{size:,} bytes" in d for d in details), details[:3]
        assert not any(f" {size} bytes" in d for d in details)


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)
