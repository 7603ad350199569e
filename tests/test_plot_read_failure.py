"""A plotted array whose stored values cannot be read back is a finding, not only a
message under the plot.

A new user flipped bytes inside the gzip chunk of ``/neuro``: the plot said "cannot read
neuro: ..." while the findings dock said "no findings".
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import h5py
import pytest

from inspector.formats.decoding.workers import worker_pool
from inspector.formats.registry import open_document

FIXTURES = Path(__file__).parent / "fixtures"
RECORDING = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"


def _corrupt_first_chunk(source: Path, target: Path, dataset: str) -> None:
    """Copy ``source`` to ``target`` with 16 bytes inside the first stored chunk of
    ``dataset`` inverted (its filter pipeline then fails to decode it)."""
    shutil.copy(source, target)
    with h5py.File(target, "r") as f:
        ds = f[dataset]
        assert ds.compression == "gzip"
        info = ds.id.get_chunk_info(0)
    offset = info.byte_offset + info.size // 2
    with open(target, "r+b") as fh:
        fh.seek(offset)
        block = fh.read(16)
        fh.seek(offset)
        fh.write(bytes(b ^ 0xFF for b in block))


@pytest.fixture()
def damaged(tmp_path: Path) -> Path:
    path = tmp_path / "damaged_neuro.h5"
    _corrupt_first_chunk(RECORDING, path, "neuro")
    return path


def test_the_neural_array_names_its_rule_when_its_values_cannot_be_read(damaged: Path) -> None:
    with worker_pool():
        doc = open_document(damaged)
        try:
            ref = doc.arrays["neuro"]
            rule = ref.unreadable_rule
            assert rule is not None and rule.code == "neuro.unreadable"
            with pytest.raises(OSError) as raised:
                ref.envelope((None, 0), 0, ref.shape[0], 100)
            finding = ref.unreadable_finding(raised.value, "plotting")
        finally:
            doc.close()
    assert finding is not None
    assert (finding.code, finding.location, finding.severity.value) == (
        "neuro.unreadable", "/neuro", "error")
    assert finding.message.startswith("the stored values cannot be read back while plotting: ")
    # the chunk is decoded by Inspector's bounded inflater, which names it
    assert "the chunk at [0, 0] of /neuro" in finding.message


def test_other_datasets_break_the_generic_rule() -> None:
    from inspector.formats.hdf5.arrays import H5DatasetRef
    from inspector.formats.hdf5.source import H5Source

    src = H5Source(RECORDING)
    try:
        ref = H5DatasetRef(src, src.file["neuro"], "any", location="/neuro")
        finding = ref.unreadable_finding(OSError("Can't read data"), "plotting")
    finally:
        src.close()
    assert finding is not None and (finding.code, finding.location) == ("data.unreadable",
                                                                         "/neuro")


@pytest.mark.slow
def test_the_window_lists_the_plot_read_failure_as_a_finding(qtbot, damaged: Path) -> None:
    from inspector.ui.main_window import MainWindow

    before = hashlib.sha256(damaged.read_bytes()).hexdigest()
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    [tab] = win.open_paths([str(damaged)])
    qtbot.waitUntil(lambda: tab.doc is not None and any(
        f.code == "neuro.unreadable" for f in tab.doc.findings),
                    timeout=30000)
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=30000)
    assert "cannot read neuro" in tab.plot.view.status.text()
    [finding] = [f for f in tab.doc.findings if f.code == "neuro.unreadable"]
    assert finding.location == "/neuro"
    listed = [win.findings.model.finding(r)[1] for r in range(win.findings.model.rowCount())]
    assert finding in listed  # the dock shows it, not "no findings"
    assert "1 error" in tab.status_text and "no findings" not in tab.status_text
    i = win.tabs.indexOf(tab)
    assert not win.tabs.tabIcon(i).isNull() and "errors, see Findings" in win.tabs.tabToolTip(i)
    # a zoom reads again and fails again: still one finding
    vb = tab.plot.view.plot_item.vb
    (x0, x1), _ = vb.viewRange()
    vb.setXRange(x0, (x0 + x1) / 2, padding=0)
    qtbot.waitUntil(lambda: tab.plot.view.is_idle() and tab.plot.view.submitted > 1,
                    timeout=30000)
    assert sum(f.code == "neuro.unreadable" for f in tab.doc.findings) == 1
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() == before  # never modified


@pytest.mark.slow
def test_an_intact_recording_gains_no_such_finding(qtbot) -> None:
    from inspector.ui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    [tab] = win.open_paths([str(RECORDING)])
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=30000)
    view = tab.plot.view
    assert all(line.exact for line in view.lines)
    assert not [f for f in tab.doc.findings if f.code.endswith(".unreadable")]


@pytest.mark.slow
def test_a_sampled_plot_says_so_and_does_not_promise_exact_values(qtbot) -> None:
    """A line too costly to read whole is drawn from sampled windows, for good: the status
    said "exact values follow", and none did until the user zoomed in."""
    from inspector.ui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    [tab] = win.open_paths([str(FIXTURES / "fuzz" / "billions_of_unallocated_chunks.h5")])
    qtbot.waitUntil(lambda: tab.plot is not None and tab.plot.view is not None
                    and win.all_tabs_ready() and win.is_idle(), timeout=30000)
    view = tab.plot.view
    assert view.lines and not any(line.exact for line in view.lines)
    text = view.status.text()
    assert "sampled" in text and "zoom in for exact values" in text
    assert "exact values follow" not in text
