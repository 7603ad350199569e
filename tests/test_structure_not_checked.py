"""No structural verdict without the check: an AUC source whose experiment could not be
imported (a rejected CSV/TSV table, a Beckman run whose radial group has a malformed file)
says its structure was not checked (``structure_ok`` null, ``structure.not-checked``,
``verify`` exits 1), never ``structure_ok: true``."""

from __future__ import annotations

import json
import shutil

from inspector.cli import main
from inspector.formats.registry import open_document
from tests.conftest import FIXTURES
from tests.test_beckman_layout import data, header, write


def _report(capsys, path) -> tuple[int, dict]:
    status = main(["verify", "--json", str(path)])
    return status, json.loads(capsys.readouterr().out.splitlines()[0])


def test_a_rejected_table_is_not_checked(tmp_path, capsys):
    source = shutil.copytree(FIXTURES / "auc-delimited" / "malformed_missing_column",
                             tmp_path / "source")
    status, report = _report(capsys, source)
    codes = [f["code"] for f in report["findings"]]
    assert status == 1 and report["ok"] is False and report["structure_ok"] is None
    assert codes.count("structure.not-checked") == 1
    assert "structure" not in report["summary"]


def test_an_imported_table_is_checked(tmp_path, capsys):
    source = shutil.copytree(FIXTURES / "auc-delimited" / "demo_experiment", tmp_path / "s")
    status, report = _report(capsys, source)
    assert (status, report["ok"], report["structure_ok"]) == (0, True, True)
    assert "structure.not-checked" not in [f["code"] for f in report["findings"]]


def test_a_beckman_run_with_a_malformed_scan_is_not_checked(tmp_path, capsys):
    folder = tmp_path / "run"
    write(folder, "00001.RA1", ["d", header(), *data(3)])
    write(folder, "00002.RA1", ["d", header(seconds=240), *data(2), "5.91 0.5x"])
    with open_document(folder) as doc:
        assert doc.export is not None and doc.auc is None
        assert doc.structure_ok is None and doc.structure_unchecked
    status, report = _report(capsys, folder)
    codes = [f["code"] for f in report["findings"]]
    assert status == 1 and report["structure_ok"] is None
    assert "beckman.malformed-line" in codes and "structure.not-checked" in codes
