"""Odd inputs handled by the shared layers: symbolic-link loops, alias-bomb and
non-standard JSON manifests, and JSON output that must always be printable."""

from __future__ import annotations

import json
import shutil

from inspector.cli import json_line, json_safe, main
from inspector.formats import open_document
from tests.conftest import FIXTURES

CSV = "scan,radius_cm,signal,elapsed_seconds\ns1,5.9,0.1,0\ns1,5.91,0.2,0\n"


def _source(tmp_path, manifest_name: str, manifest_text: str):
    d = tmp_path / "src"
    d.mkdir()
    (d / manifest_name).write_text(manifest_text, encoding="utf-8")
    (d / "scans.csv").write_text(CSV, encoding="utf-8")
    return d


def test_symlink_loop_is_a_finding_not_a_crash(tmp_path):
    a, b = tmp_path / "a.h5", tmp_path / "b.h5"
    a.symlink_to(b)
    b.symlink_to(a)
    doc = open_document(a)
    assert [f.code for f in doc.findings] == ["file.bad-link"]
    assert "symbolic link" in doc.findings[0].message


def test_yaml_alias_bomb_is_refused_quickly(tmp_path):
    text = ("schema_version: '1.0'\nformat: generic-long\ndata_file: scans.csv\n"
            "experiment: {experiment_id: x}\na: &a [l,l,l,l,l,l,l,l,l]\n")
    for i in range(9):
        p, c = chr(97 + i), chr(98 + i)
        text += f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]\n"
    doc = open_document(_source(tmp_path, "manifest.yaml", text))
    codes = [f.code for f in doc.findings]
    assert "manifest.too-large" in codes and not doc.ok
    assert json.loads(json_line(doc.to_json()))["ok"] is False


def test_yaml_python_tags_are_never_executed(tmp_path):
    marker = tmp_path / "executed"
    text = (f"schema_version: '1.0'\nformat: generic-long\ndata_file: scans.csv\n"
            f"experiment: !!python/object/apply:os.system ['touch {marker}']\n")
    doc = open_document(_source(tmp_path, "manifest.yaml", text))
    assert not doc.ok
    assert not marker.exists()


def test_nan_in_a_json_manifest_is_an_error(tmp_path):
    text = ('{"schema_version": "1.0", "format": "generic-long", "data_file": "scans.csv", '
            '"experiment": {"experiment_id": "x"}, "defaults": {"temperature": NaN}}')
    doc = open_document(_source(tmp_path, "manifest.json", text))
    bad = [f for f in doc.findings if f.code == "manifest.bad-value"]
    assert bad and "NaN is not a JSON value" in bad[0].message


def test_oversize_manifest_is_refused_unparsed(tmp_path):
    from inspector.formats.delimited.manifest import MAX_MANIFEST_BYTES

    d = tmp_path / "src"
    d.mkdir()
    (d / "manifest.json").write_bytes(b" " * (MAX_MANIFEST_BYTES + 1))
    (d / "scans.csv").write_text(CSV)
    doc = open_document(d)
    assert "manifest.too-large" in [f.code for f in doc.findings]


def test_json_safe_writes_non_finite_floats_and_surrogates_printably():
    obj = {"a": float("nan"), "b": [float("inf"), -float("inf")], "c": "x\ud800y"}
    assert json_safe(obj) == {"a": "NaN", "b": ["Infinity", "-Infinity"], "c": "x\\ud800y"}
    line = json_line(obj)
    assert json.loads(line)["c"] == "x\\ud800y"
    line.encode("utf-8")


def test_verify_json_lines_parse_for_every_archive(capsys, tmp_path):
    files = sorted(str(p) for p in (FIXTURES / "aucx").glob("*.aucx"))
    main(["verify", "--json", *files])
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["path"] for line in lines] == files


def test_input_files_are_never_modified(tmp_path):
    import hashlib

    src = FIXTURES / "vneurotk/v1/continuous_dense_f32_intids.h5"
    copy = tmp_path / "rec.h5"
    shutil.copy(src, copy)
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    stat = copy.stat()
    with open_document(copy, hash_arrays=True) as doc:
        doc.verify()
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    assert copy.stat().st_mtime_ns == stat.st_mtime_ns
