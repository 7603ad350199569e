"""Odd inputs handled by the shared layers: symbolic-link loops, alias-bomb and
non-standard JSON manifests, and JSON output that must always be printable."""

from __future__ import annotations

import json
import shutil

import pytest

from inspector.cli import json_line, json_safe, main
from inspector.formats import open_document
from tests.conftest import FIXTURES

CSV = "scan,radius_cm,signal,elapsed_seconds\ns1,5.9,0.1,0\ns1,5.91,0.2,0\n"


def _source(tmp_path, manifest_name: str, manifest_text: str):
    d = tmp_path / "src"
    d.mkdir(parents=True)
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


@pytest.mark.slow
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


# -- hostile delimited sources: each a specific finding, never a reader failure -------

MANIFEST_YAML = "schema_version: '1.0'\nformat: generic-long\ndata_file: scans.csv\n"


def _no_reader_failure(doc) -> list:
    """The integrity finding codes (the experiment's structure is judged apart)."""
    assert "internal.reader-failed" not in [f.code for f in doc.findings], doc.traceback
    return [f.code for f in doc.findings if f.scope == "integrity"]


def test_self_referencing_yaml_anchor_in_a_typed_field_is_a_schema_error(tmp_path):
    for field, where in (("experiment", "experiment"), ("extension", "extension"),
                         ("samples", "samples[0]")):
        text = MANIFEST_YAML + ("experiment: {experiment_id: x}\n" if field != "experiment"
                                else "") + f"{field}: &a [*a]\n"
        src = _source(tmp_path / field, "manifest.yaml", text)
        doc = open_document(src)
        codes = _no_reader_failure(doc)
        assert not doc.ok and codes[0] == "manifest.invalid-field"
        assert doc.findings[0].location == f"manifest.yaml:{where}"
        assert ("manifest.cyclic-alias", f"manifest.yaml:{field}[0]") in \
            [(f.code, f.location) for f in doc.findings]
        assert json.loads(json_line(doc.to_json()))["ok"] is False


def test_self_referencing_yaml_anchor_in_extension_is_kept_and_shown_once(tmp_path):
    text = MANIFEST_YAML + "experiment: {experiment_id: x}\nextension: &a {x: *a, y: 1}\n"
    doc = open_document(_source(tmp_path, "manifest.yaml", text))
    assert _no_reader_failure(doc) == ["manifest.cyclic-alias"]
    assert doc.ok and doc.findings[0].severity == "info"
    assert doc.findings[0].location == "manifest.yaml:extension.x"
    alias = doc.tree.find("manifest.yaml:extension.x")
    assert alias is not None and alias.kind == "alias" and not alias.children
    assert doc.tree.find("manifest.yaml:extension.y").value == 1


def test_deeply_nested_manifest_value_is_shown_without_recursion(tmp_path):
    depth = 900
    extension = "[" * depth + "]" * depth
    text = ('{"schema_version": "1.0", "format": "generic-long", "data_file": "scans.csv", '
            f'"experiment": {{"experiment_id": "x"}}, "extension": {{"deep": {extension}}}}}')
    doc = open_document(_source(tmp_path, "manifest.json", text))
    assert _no_reader_failure(doc) == [] and doc.ok
    assert doc.tree.find("manifest.json:extension.deep" + "[0]" * (depth - 2)) is not None


def test_manifest_content_tree_is_bounded(tmp_path):
    from inspector.formats.delimited.view import MAX_TREE_NODES

    values = ",".join(["1"] * (3 * MAX_TREE_NODES))
    text = ('{"schema_version": "1.0", "format": "generic-long", "data_file": "scans.csv", '
            f'"experiment": {{"experiment_id": "x"}}, "extension": {{"many": [{values}]}}}}')
    doc = open_document(_source(tmp_path, "manifest.json", text))
    assert doc.ok
    content = next(n for n in doc.tree.walk() if n.name == "content")
    assert sum(1 for _ in content.walk()) <= MAX_TREE_NODES + 2
    notes = [n for n in content.walk() if n.kind == "note"]
    assert len(notes) == 1 and "more value(s) not shown" in notes[0].value


#: What every rejected AUC source adds: its structure was not checked (no verdict without it).
NOT_CHECKED = ("structure.not-checked", "")


def test_nul_in_data_file_is_a_manifest_field_error(tmp_path):
    text = json.dumps({"schema_version": "1.0", "data_file": "scans\u0000.csv",
                       "experiment": {"experiment_id": "x"}})
    doc = open_document(_source(tmp_path, "manifest.json", text))
    _no_reader_failure(doc)
    assert [(f.code, f.location) for f in doc.findings] == [
        ("manifest.invalid-field", "manifest.json:data_file"), NOT_CHECKED]
    assert "NUL" in doc.findings[0].message


def test_unresolvable_data_file_is_a_finding(tmp_path):
    text = json.dumps({"schema_version": "1.0", "data_file": "x" * 5000,
                       "experiment": {"experiment_id": "x"}})
    doc = open_document(_source(tmp_path, "manifest.json", text))
    _no_reader_failure(doc)
    assert [(f.code, f.location) for f in doc.findings] == [
        ("source.data-file-missing", "manifest.json:data_file"), NOT_CHECKED]
    assert len(doc.findings[0].message) < 300


def test_overlong_scan_id_cell_is_refused_at_its_line(tmp_path):
    from inspector.formats.delimited.values import MAX_CELL_CHARS

    d = _source(tmp_path, "manifest.yaml", MANIFEST_YAML + "experiment: {experiment_id: x}\n")
    big = "s" * (MAX_CELL_CHARS + 1)
    (d / "scans.csv").write_text(f"scan,radius_cm,signal\ns1,5.9,0.1\n{big},5.9,0.1\n")
    doc = open_document(d)
    _no_reader_failure(doc)
    assert [(f.code, f.location) for f in doc.findings] == [("table.cell-too-long", "scans.csv:3"),
                                                            NOT_CHECKED]
    assert f"{MAX_CELL_CHARS + 1:,} characters" in doc.findings[0].message
    line = json_line(doc.to_json())
    assert big not in line and len(line) < 2000
    (d / "scans.csv").write_text(f"scan,radius_cm,signal\n{big[:-1]},5.9,0.1\n")
    assert open_document(d).ok  # the limit itself is accepted


def test_overlong_column_name_and_too_many_columns(tmp_path):
    from inspector.formats.delimited.table import MAX_COLUMNS
    from inspector.formats.delimited.values import MAX_CELL_CHARS

    d = _source(tmp_path, "manifest.yaml", MANIFEST_YAML + "experiment: {experiment_id: x}\n")
    (d / "scans.csv").write_text("scan,radius_cm,signal," + "c" * (MAX_CELL_CHARS + 1) + "\n")
    doc = open_document(d)
    assert [(f.code, f.location) for f in doc.findings] == [("table.cell-too-long", "scans.csv:1"),
                                                            NOT_CHECKED]
    assert "column name" in doc.findings[0].message
    header = ",".join(["c"] * (MAX_COLUMNS + 1))
    (d / "scans.csv").write_text(f"{header}\n{header}\n")
    doc = open_document(d)
    assert [(f.code, f.location) for f in doc.findings] == [
        ("table.too-many-columns", "scans.csv:1"), NOT_CHECKED]


def test_overlong_identifier_in_the_manifest_is_a_field_error(tmp_path):
    from inspector.formats.delimited.values import MAX_CELL_CHARS

    big = "e" * (MAX_CELL_CHARS + 1)
    text = json.dumps({"schema_version": "1.0", "format": "generic-long",
                       "data_file": "scans.csv", "experiment": {"experiment_id": big},
                       "defaults": {"cell": big}, big: 1})
    doc = open_document(_source(tmp_path, "manifest.json", text))
    found = [(f.code, f.location) for f in doc.findings]
    assert ("manifest.invalid-field", "manifest.json:experiment.experiment_id") in found
    assert ("manifest.invalid-field", "manifest.json:defaults.cell") in found
    assert all(len(f.message) < 300 and len(f.location) < 120 for f in doc.findings)
    assert big not in json_line(doc.to_json())


def _peak_open(path) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        doc = open_document(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not doc.ok
    return peak


def test_one_enormous_line_costs_a_small_multiple_of_the_file(tmp_path):
    from inspector.formats.delimited.lines import CHUNK

    size = 2 * CHUNK + CHUNK // 2  # every line (each header line too) spans blocks read
    shapes = {
        "many_fields": "scan,radius_cm,signal\n" + "ab," * (size // 3) + "x\n",
        "one_cell": "scan,radius_cm,signal\n" + "a" * size + ",5.9,0.1\n",
        "wide_header": ("," * (size // 2) + "\n") * 2,
        "no_delimiter": "x" * size + "\n",
    }
    for name, table in shapes.items():
        d = _source(tmp_path / name, "manifest.yaml",
                    MANIFEST_YAML + "experiment: {experiment_id: x}\n")
        (d / "scans.csv").write_text(table)
        # A block of whole lines is classified with byte-wide NumPy arrays (its class per
        # byte, one mask at a time) beside the bytes themselves and the partial line being
        # joined: a few bytes per byte of the longest line (capped by MAX_LINE_BYTES), never
        # an object per field or per line.
        assert _peak_open(d) < 8 * len(table), name


@pytest.mark.parametrize("window", [1, 3, 7, 1 << 16])
def test_the_longest_field_is_the_longest_of_the_split_line(window, monkeypatch):
    """``_longest_field`` (delimiters located a window at a time) against ``str.split``:
    random lines of short, empty and non-ASCII fields (a lone surrogate too), both
    delimiters, the first of equal lengths."""
    import random

    from inspector.formats.delimited import table

    monkeypatch.setattr(table, "FIELD_WINDOW", window)
    rng = random.Random(window)
    for _ in range(400):
        alphabet = rng.choice([",", ",a", ",\t", "ab,\udcff\u00e9,", "x", "\t\t,"])
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for delimiter in ",\t":
            lengths = [len(part) for part in line.split(delimiter)]
            expected = (lengths.index(max(lengths)), max(lengths))
            assert table._longest_field(line, delimiter) == expected, (line, delimiter)


@pytest.mark.slow
def test_big_yaml_manifest_is_parsed_by_libyaml_with_the_safe_rules(tmp_path):
    """A manifest padded to 2 MB took 9 s in the pure-Python parser (a fuzzing hang at
    the 10 s limit); libyaml parses it with the same safe constructor."""
    import yaml

    from inspector.formats.delimited import manifest

    if yaml.__with_libyaml__:  # PyYAML's wheels ship it
        assert manifest.SAFE_LOADER is yaml.CSafeLoader
    padding = "".join(f"# {'x' * 70}\n" for _ in range(28_000))
    text = MANIFEST_YAML + "experiment: {experiment_id: x}\n" + padding + "extension: {k: [1, 2]}\n"
    assert manifest.load_yaml_bounded(text) == yaml.safe_load(text)
    doc = open_document(_source(tmp_path, "manifest.yaml", text))
    assert _no_reader_failure(doc) == [] and doc.ok
