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


def _rewrite(src, dst, member: str, edit) -> None:
    """Copy the archive ``src`` to ``dst`` with ``member``'s bytes edited (the checksum
    list left as it was, so the edit is a mismatch the verification finds)."""
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, edit(data) if info.filename == member else data)


def test_a_structure_judged_at_open_is_withdrawn_when_the_archive_fails_verification(tmp_path):
    """A small archive is examined at open; when its verification then finds a member that
    does not verify, the structure judged on it is taken back (not checked, no Summary)."""
    path = tmp_path / "flipped.aucx"
    _rewrite(FIXTURES / "aucx" / "src_long_csv.aucx", path, "arrays/signal.npy",
             lambda b: b[:-8] + bytes(8))
    with open_document(path) as doc:
        assert doc.structure is not None and doc.structure_ok is True  # judged at open
        doc.verify()
        codes = [f.code for f in doc.findings]
        assert "checksums.mismatch" in codes
        assert doc.structure is None and doc.structure_ok is None
        assert codes.count("structure.not-checked") == 1
        assert not any(f.scope in ("structure", "validation") and f.code != "structure.not-checked"
                       for f in doc.findings)
        assert "structure" not in doc.summary and "readiness" not in doc.summary


def test_a_verified_archive_keeps_the_structure_judged_at_open(tmp_path):
    with open_document(FIXTURES / "aucx" / "src_long_csv.aucx") as doc:
        before = doc.summary["structure"]
        doc.verify()
        assert doc.ok and doc.structure_ok is True and doc.summary["structure"] == before


def test_a_file_read_as_no_format_has_no_structural_verdict(tmp_path, capsys):
    noise = tmp_path / "noise.h5"
    noise.write_bytes(bytes(range(256)) * 16)
    (tmp_path / "empty.aucx").write_bytes(b"")
    for path in (tmp_path / "missing.aucx", tmp_path / "empty.aucx", noise):
        status, report = _report(capsys, path)
        assert (status, report["format"], report["ok"], report["structure_ok"]) == (
            1, "unknown", False, None), path
