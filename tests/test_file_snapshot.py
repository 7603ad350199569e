"""One snapshot per document: a read from a file replaced or rewritten after it was opened
is refused (``file.changed``), for archives as for recordings, and the window offers Reload.

The truth for each archive is ``np.load`` of the member's bytes (``zipfile``); the archives
are written by our writer from a corpus experiment, then rewritten with ``zipfile`` for the
stored layout (same member bytes, so the same digests).
"""

from __future__ import annotations

import io
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from inspector.formats.aucx import (
    ArchiveReadError,
    arrayrefs,
    open_archive,
    read_experiment,
    write_aucx,
)
from inspector.formats.decoding.workers import worker_pool
from inspector.formats.registry import open_document
from inspector.formats.sources.file_identity import (
    FILE_CHANGED,
    FileChangedError,
    SnapshotPath,
    snapshot_path,
)
from tests.conftest import FIXTURES

SOURCE = FIXTURES / "aucx" / "syn_moving_boundary_s42_20x300.aucx"
RECORDING = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
SIGNAL = "arrays/signal.npy"


@pytest.fixture(autouse=True)
def _pool():
    with worker_pool():
        yield


def _write(path: Path, shift: float, *, points: int | None = None, stored: bool) -> Path:
    """The corpus experiment with ``shift`` added to its signal (and cut to ``points``),
    as an archive at ``path``: deflated as our writer writes it, or stored."""
    exp = read_experiment(SOURCE)
    exp.signal = exp.signal + shift
    if points is not None:
        exp.radius, exp.signal, exp.mask = (exp.radius[..., :points], exp.signal[:, :points],
                                            exp.mask[:, :points])
    written = write_aucx(exp, path.with_suffix(".tmp.aucx"), exported_at="2026-06-01T12:00:00Z")
    if not stored:
        os.replace(written, path)
        return path
    with zipfile.ZipFile(written) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for info in src.infolist():
            out.writestr(info.filename, src.read(info.filename))
    written.unlink()
    return path


def _member(path: Path, name: str = SIGNAL) -> np.ndarray:
    with zipfile.ZipFile(path) as z:
        return np.load(io.BytesIO(z.read(name)), allow_pickle=False)


def _replace(path: Path, new: Path) -> None:
    os.replace(new, path)


def _rewrite(path: Path, new: Path) -> None:
    """The same file (inode) given the bytes of ``new``, as a program writing in place."""
    data = new.read_bytes()
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
    new.unlink()


def _rewrite_same_size(path: Path, new: Path) -> None:
    """In place, the same length: only the modification time tells (set one second on,
    as a later write would; the file system's clock may tick more coarsely than a test)."""
    before = os.stat(path)
    _rewrite(path, new)
    assert os.stat(path).st_size == before.st_size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))


CHANGES = {"replace": _replace, "rewrite": _rewrite, "rewrite-same-size": _rewrite_same_size}


#: (layout, change): a deflated member of other values has another length, so an in-place
#: rewrite of the same size is tried with stored members.
CASES = [("stored", "replace"), ("stored", "rewrite"), ("stored", "rewrite-same-size"),
         ("deflated", "replace"), ("deflated", "rewrite")]


@pytest.mark.parametrize(("layout", "change"), CASES, ids=["-".join(c) for c in CASES])
@pytest.mark.slow
def test_an_archive_refuses_reads_after_its_file_changed(tmp_path, monkeypatch, layout, change):
    stored = layout == "stored"
    # deflated members are read through the resumable inflater, not a whole cached copy
    monkeypatch.setattr(arrayrefs, "CACHE_LIMIT", 0)
    path = _write(tmp_path / "a.aucx", 0.0, stored=stored)
    cut = None if change == "rewrite-same-size" else 250  # another size, or the same
    new = _write(tmp_path / "b.aucx", 1.0, points=cut, stored=stored)
    old_truth, new_truth = _member(path), _member(new)
    doc = open_archive(path)
    try:
        assert isinstance(doc.checks[0].opened.path, SnapshotPath)
        ref = doc.arrays["signal"]
        assert np.array_equal(ref.read(0), old_truth[0])
        assert np.array_equal(ref.read((slice(2, 4), slice(10, 20))), old_truth[2:4, 10:20])
        CHANGES[change](path, new)
        for _ in range(2):  # refused each time, never the new file's values
            with pytest.raises(FileChangedError, match="changed on disk") as raised:
                ref.read(1)
            with pytest.raises(FileChangedError):
                ref.read((slice(2, 4), slice(10, 20)))
        finding = ref.unreadable_finding(raised.value, "plotting")
        assert finding is not None
        assert (finding.code, finding.severity.value, finding.location) == (
            "file.changed", "error", SIGNAL)
        assert doc.changed_on_disk() is not None
        doc.verify()
        errors = [f.code for f in doc.findings if f.severity.value == "error"]
        assert errors == ["file.changed"]
        assert not doc.ok and doc.summary["checksum_verified"] is False
        assert {m.status.value for m in doc.checksums.members} == {"cancelled"}
        with pytest.raises(ArchiveReadError, match=r"\[file\.changed\]"):
            doc.export.load()
    finally:
        doc.close()
    with open_archive(path) as again:  # reopening reads the new file
        assert np.array_equal(again.arrays["signal"].read(1), new_truth[1])
        again.verify()
        assert again.ok and again.summary["checksum_verified"] is True


def test_a_file_removed_after_opening_is_refused_too(tmp_path):
    path = _write(tmp_path / "a.aucx", 0.0, stored=True)
    with open_archive(path) as doc:
        path.unlink()
        with pytest.raises(OSError):
            doc.arrays["signal"].read(0)
        assert "removed" in (doc.changed_on_disk() or "")
        doc.verify()
        assert [f.code for f in doc.findings if f.severity.value == "error"] == ["file.changed"]


def test_an_unchanged_archive_verifies_as_before(tmp_path):
    path = _write(tmp_path / "a.aucx", 0.0, stored=True)
    os.utime(path)  # touching the file after opening is a change; before it is not
    with open_archive(path) as doc:
        assert doc.changed_on_disk() is None
        doc.verify()
        assert doc.ok and doc.summary["checksum_verified"] is True
        assert np.array_equal(doc.arrays["signal"].read(), _member(path))


def test_a_recording_reports_file_changed_the_same_way(tmp_path):
    path = tmp_path / "rec.h5"
    shutil.copy(RECORDING, path)
    with open_document(path) as doc:
        ref = doc.arrays["neuro"]
        first = ref.read(0)
        new = tmp_path / "new.h5"
        shutil.copy(RECORDING, new)
        os.replace(new, path)
        with pytest.raises(FileChangedError, match="changed on disk") as raised:
            ref.read(0)
        assert ref.unreadable_finding(raised.value, "plotting").code == "file.changed"
        assert doc.changed_on_disk() is not None
        from inspector.formats.nodes.data import NodeReadError

        with pytest.raises(NodeReadError) as node_error:
            doc.object_data.node("/neuro")
        assert node_error.value.finding.code == "file.changed"
        assert first.shape == ref.shape[1:]  # the read before the change was served


def test_a_snapshot_path_notes_the_first_file_it_opens(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"one")
    p = snapshot_path(path)
    assert p.identity is None and snapshot_path(p) is p
    with p.open("rb") as fh:
        assert fh.read() == b"one"
    assert p.identity == (os.stat(path).st_dev, os.stat(path).st_ino, 3,
                          os.stat(path).st_mtime_ns)
    (tmp_path / "g.bin").write_bytes(b"two!")
    os.replace(tmp_path / "g.bin", path)
    with pytest.raises(FileChangedError):
        p.open("rb")
    assert p.changed
    assert FILE_CHANGED.code == "file.changed"
    assert not isinstance(p.parent, SnapshotPath) or p.parent.identity is None


# -- the window -----------------------------------------------------------------------

@pytest.mark.slow
def test_the_window_offers_reload_and_reload_shows_the_new_file(qtbot, tmp_path):
    from inspector.ui.main_window import MainWindow

    path = _write(tmp_path / "a.aucx", 0.0, stored=False)
    new = _write(tmp_path / "b.aucx", 1.0, points=250, stored=False)
    new_points = _member(new).shape[1]
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_paths([str(path)])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=20000)
    tab = win.current_tab()
    assert tab.reload_bar is None and tab.doc.ok
    assert tab.doc.arrays["signal"].shape[1] == 300
    win.check_files_on_disk()  # nothing changed: nothing offered
    qtbot.wait(200)
    assert tab.reload_bar is None
    _replace(path, new)
    win.check_files_on_disk()  # what the window does when it becomes active again
    qtbot.waitUntil(lambda: tab.reload_bar is not None, timeout=10000)
    assert tab.reload_bar.isVisibleTo(tab)
    assert "changed on disk" in tab.reload_bar.label.text()
    rows = [win.findings.model.finding(r) for r in range(win.findings.model.rowCount())]
    assert [f.code for _, f, _ in rows if f.code == "file.changed"] == ["file.changed"]
    tab.reload_bar.button.click()
    qtbot.waitUntil(lambda: win.current_tab() is not tab and win.all_tabs_ready(),
                    timeout=20000)
    fresh = win.current_tab()
    assert win.tabs.count() == 1 and fresh.path == path
    assert fresh.reload_bar is None and fresh.doc.ok
    assert fresh.doc.arrays["signal"].shape[1] == new_points == 250
    assert np.array_equal(fresh.doc.arrays["signal"].read(0), _member(path)[0])


@pytest.mark.slow
def test_a_plot_read_of_a_changed_file_is_the_finding_that_offers_reload(qtbot, tmp_path):
    from inspector.ui.main_window import MainWindow

    path = tmp_path / "rec.h5"
    shutil.copy(RECORDING, path)
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_paths([str(path)])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=20000)
    tab = win.current_tab()
    new = tmp_path / "new.h5"
    shutil.copy(RECORDING, new)
    os.replace(new, path)
    with pytest.raises(FileChangedError) as raised:
        tab.doc.arrays["neuro"].read(0)
    # what a plot view emits for the failed read (ui/plots/base.ReadFailed)
    tab._view_finding(tab.doc.arrays["neuro"].unreadable_finding(raised.value, "plotting"))
    qtbot.waitUntil(lambda: tab.reload_bar is not None, timeout=5000)
    with qtbot.waitSignal(win.all_ready, timeout=20000):
        tab.reload_bar.reload_requested.emit()
    assert win.current_tab().reload_bar is None and win.current_tab().doc.ok
