"""Issue 2: the skeleton opens real files in a window and headless."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli import format_report, main
from inspector.formats import open_document, sniff
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_formats_layer_imports_no_qt():
    code = (
        "import sys, pkgutil, importlib, inspector.formats as f\n"
        "for m in pkgutil.walk_packages(f.__path__, 'inspector.formats.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules\n"
        "       if m.startswith(('PySide6', 'PyQt', 'shiboken', 'pyqtgraph'))]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    assert out.stdout.strip() == ""


def test_ui_never_touches_h5py_or_zipfile():
    for path in (ROOT / "inspector" / "ui").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for mod in ("h5py", "zipfile"):
            assert f"import {mod}" not in text, f"{path} imports {mod}"


def test_sniff_by_content_not_extension(tmp_path):
    h5 = FIXTURES / "vneurotk/v1/continuous_dense_f32_intids.h5"
    renamed = tmp_path / "recording.dat"
    renamed.write_bytes(h5.read_bytes())
    assert sniff(renamed) == "vneurotk-recording"
    aucx = FIXTURES / "aucx/src_demo_experiment.aucx"
    renamed2 = tmp_path / "archive.bin"
    renamed2.write_bytes(aucx.read_bytes())
    assert sniff(renamed2) == "aucx"
    assert sniff(FIXTURES / "vneurotk/edited/not_hdf5.h5") == "unknown"


def test_unrecognised_file_gets_a_clear_finding(tmp_path):
    p = tmp_path / "notes.aucx"
    p.write_text("hello")
    doc = open_document(p)
    assert doc.format == "unknown"
    assert not doc.ok
    assert [f.code for f in doc.findings] == ["format.unrecognised"]
    assert "unrecognised format" in doc.findings[0].message
    # the file is named once, by the report, not in every message
    assert "notes.aucx" not in doc.findings[0].message
    assert "notes.aucx: unrecognised format" in format_report(doc)


def test_plain_zip_without_manifest_is_unknown(tmp_path):
    import zipfile

    p = tmp_path / "x.aucx"
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("a.txt", "hi")
    assert open_document(p).format == "unknown"


def test_missing_file_is_a_finding(tmp_path):
    doc = open_document(tmp_path / "nope.h5")
    assert not doc.ok and doc.findings[0].code == "file.not-found"
    # the message never names the file; the text report adds the name once
    assert doc.findings[0].message == "no such file or folder"
    assert "nope.h5" not in doc.findings[0].message
    from inspector.cli import format_report
    report = format_report(doc)
    assert "file.not-found: nope.h5: no such file or folder" in report
    assert report.count("nope.h5") == 2  # the report's first line (the path) and the finding


def test_verify_json_contract_and_exit_codes(capsys, tmp_path):
    bad = tmp_path / "bad.h5"
    bad.write_text("not a recording")
    assert main(["verify", "--json", str(bad)]) == 1
    obj = json.loads(capsys.readouterr().out.strip())
    assert set(obj) == {"path", "format", "ok", "structure_ok", "findings", "summary"}
    assert obj["format"] == "unknown" and obj["ok"] is False
    assert set(obj["findings"][0]) == {"severity", "code", "message", "location", "rule", "scope"}
    assert obj["findings"][0]["rule"]  # every finding names the source of its rule
    with pytest.raises(SystemExit) as e:
        main(["verify"])
    assert e.value.code == 2


def test_verify_text_report(capsys, tmp_path):
    bad = tmp_path / "bad.h5"
    bad.write_text("x")
    main(["verify", str(bad)])
    out = capsys.readouterr().out
    assert "NOT OK" in out and "format.unrecognised" in out


def test_version_and_help():
    out = subprocess.run([sys.executable, "-m", "inspector", "--version"], capture_output=True,
                         text=True, check=True).stdout
    from inspector import __version__

    assert __version__ in out


def _sources(*parts: str) -> list[Path]:
    out: list[Path] = []
    for part in parts:
        p = ROOT / "inspector" / part
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return out


def test_views_never_name_formats():
    """Beyond tests/test_architecture.py: no format id strings or format comparisons either."""
    import re

    names = re.compile(r"\bFORMAT_(AUCX|RECORDING|DELIMITED|UNKNOWN)\b|\bFormatId\b|"
                       r"[\"'](aucx|vneurotk-recording|auc-delimited)[\"']|\.extra\b|"
                       r"\.verifier\b|doc\.summary\b|\.format ==")
    for path in _sources("ui", "models", "app.py"):
        hits = names.findall(path.read_text(encoding="utf-8"))
        assert not hits, f"{path} picks by format name: {hits}"


def test_entry_points_own_the_worker_pool():
    code = (
        "import inspector.app as app, inspector.cli as cli\n"
        "import inspector.formats.decoding.workers as w\n"
        "seen = []\n"
        "def record(*a, **k):\n"
        "    seen.append(w.pool())\n"
        "    return 0\n"
        "cli.cmd_verify = cli.cmd_export = cli.cmd_install_desktop = record\n"
        "app._run_window = record\n"
        "for argv in (['verify', 'x'], ['export', 'a', 'b'], ['install-desktop'], ['x.h5']):\n"
        "    assert cli.main(argv) == 0 and w._current is None\n"
        "assert len(seen) == 4 and all(e._shutdown for e in seen)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("rel", ["aucx/multi_signal_flip_unlisted_member_bad_line.aucx",
                                 "vneurotk/edited/hdr_version_2.h5"])
def test_verify_json_findings_carry_their_rule_and_the_report_names_the_file_once(capsys, rel):
    path = FIXTURES / rel
    assert main(["verify", "--json", str(path)]) == 1
    obj = json.loads(capsys.readouterr().out.strip())
    assert obj["findings"]
    for f in obj["findings"]:
        assert f["rule"], f  # every finding names the source of its rule
        assert path.name not in f["message"], f
    main(["verify", str(path)])
    report = capsys.readouterr().out
    for f in obj["findings"]:
        assert report.count(f"{path.name}: {f['message']}") >= 1
