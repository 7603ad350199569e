"""A delimited data file changed between the import's passes is ``file.changed``, never a
mix of two versions (the digest, the line statistics and the rows are read in turn)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from inspector.formats.delimited import loader, open_delimited
from inspector.formats.delimited.loader import run_import

LONG = "scan,radius_cm,signal\ns1,5.90,0.10\ns1,5.91,0.20\ns2,5.90,0.30\n"
OTHER = "scan,radius_cm,signal\ns9,5.90,0.90\ns9,5.91,0.80\ns9,5.92,0.70\n"


def _source(folder: Path) -> Path:
    folder.mkdir()
    (folder / "scans.csv").write_text(LONG, encoding="ascii")
    (folder / "manifest.json").write_text(json.dumps(
        {"schema_version": "1.0", "format": "generic-long", "data_file": "scans.csv",
         "experiment": {"experiment_id": "exp-1"}}), encoding="utf-8")
    return folder


def _rewrite(path: Path, *, replace: bool) -> None:
    """Give ``path`` other contents: a new file renamed over it, or rewritten in place
    (same inode; a later mtime so the change shows even within one clock tick)."""
    if replace:
        tmp = path.with_name("new.csv")
        tmp.write_text(OTHER, encoding="ascii")
        os.replace(tmp, path)
    else:
        before = path.stat().st_mtime_ns
        path.write_text(OTHER, encoding="ascii")
        os.utime(path, ns=(before + 10**9, before + 10**9))


def _after(name: str, folder: Path, monkeypatch: pytest.MonkeyPatch, *, replace: bool) -> None:
    """Change the data file right after the loader's stage function ``name`` returns."""
    original = getattr(loader, name)

    def wrapped(*args, **kwargs):
        out = original(*args, **kwargs)
        _rewrite(folder / "scans.csv", replace=replace)
        return out

    monkeypatch.setattr(loader, name, wrapped)


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("stage", ["digest_file", "read_lines", "parse_long"])
def test_a_change_between_passes_is_file_changed(tmp_path, monkeypatch, stage, replace):
    src = _source(tmp_path / "s")
    _after(stage, src, monkeypatch, replace=replace)
    result = run_import(src)
    assert result.experiment is None
    codes = [f.code for f in result.findings]
    assert codes == ["file.changed"]
    assert result.findings[0].location == "scans.csv"
    assert "s9" not in json.dumps([f.to_json() for f in result.findings])


def test_an_unchanged_file_imports_and_the_document_says_changed_when_it_did(tmp_path,
                                                                              monkeypatch):
    src = _source(tmp_path / "s")
    assert run_import(src).experiment is not None
    _after("read_lines", src, monkeypatch, replace=True)
    doc = open_delimited(src)
    assert not doc.ok
    assert [f.code for f in doc.findings if f.severity == "error"] == ["file.changed"]
