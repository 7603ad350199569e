"""The export drops its source before reading the written archive back: the experiment
handed to the writer (a :class:`Handoff`) is gone when the read-back starts, and the
archive is the one written from the experiment itself."""

from __future__ import annotations

import gc
import hashlib
import weakref
from pathlib import Path

import pytest

from inspector.formats.auc import export as export_mod
from inspector.formats.auc.model import Handoff
from inspector.formats.aucx import read_experiment, write_aucx
from inspector.formats.aucx import writer as writer_mod
from inspector.formats.delimited import load_delimited

FIX = Path(__file__).parent / "fixtures"
SOURCE = FIX / "auc-delimited" / "long_csv"
STAMP = "2026-01-02T03:04:05Z"


def _watch_read_back(monkeypatch, refs: list) -> list[bool]:
    """Record, at each read-back, whether the watched experiment is still alive."""
    alive: list[bool] = []
    verify = writer_mod._verify_written

    def watched(*args):
        gc.collect()
        alive.append(refs[0]() is not None)
        verify(*args)

    monkeypatch.setattr(writer_mod, "_verify_written", watched)
    return alive


def test_a_handed_off_experiment_is_dropped_before_the_read_back(tmp_path, monkeypatch):
    exp = load_delimited(SOURCE)
    plain = write_aucx(exp, tmp_path / "plain.aucx", exported_at=STAMP)
    refs = [weakref.ref(exp)]
    alive = _watch_read_back(monkeypatch, refs)
    handoff = Handoff(exp)
    del exp
    handed = write_aucx(handoff, tmp_path / "handed.aucx", exported_at=STAMP)
    assert alive == [False]
    assert hashlib.sha256(handed.read_bytes()).digest() == \
        hashlib.sha256(plain.read_bytes()).digest()
    with pytest.raises(RuntimeError):
        handoff.take()


def test_export_reads_back_without_its_source(tmp_path, monkeypatch):
    refs: list = []
    load = export_mod.load_source

    def loading(source):
        exp = load(source)
        refs.append(weakref.ref(exp))
        return exp

    monkeypatch.setattr(export_mod, "load_source", loading)
    alive = _watch_read_back(monkeypatch, refs)
    dest = export_mod.export_to_aucx(SOURCE, tmp_path / "out.aucx", exported_at=STAMP)
    assert alive == [False]
    assert read_experiment(dest).scan_ids == load_delimited(SOURCE).scan_ids


def test_no_collection_off_the_collecting_thread_when_automatic_collection_is_off(tmp_path):
    """The window turns automatic collection off and collects on its GUI thread alone
    (docs/runtime.md, gui-collector): an export on a job thread must not collect, since a
    collection there destroys the Qt wrappers it finds on that thread."""
    import threading

    exp = load_delimited(SOURCE)
    seen: list[tuple[int, str]] = []

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append((info["generation"], threading.current_thread().name))

    automatic = gc.isenabled()  # the suite's own setting (off, as in the window) is restored
    gc.callbacks.append(watch)
    gc.disable()
    try:
        job = threading.Thread(target=write_aucx, name="export-job",
                               args=(Handoff(exp), tmp_path / "job.aucx"),
                               kwargs={"exported_at": STAMP})
        job.start()
        job.join()
    finally:
        if automatic:
            gc.enable()
        gc.callbacks.remove(watch)
    assert (tmp_path / "job.aucx").is_file()
    assert [s for s in seen if s[1] == "export-job"] == []
