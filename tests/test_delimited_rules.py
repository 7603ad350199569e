"""Crafted delimited sources: each rejection rule, delimiter detection, statuses and units."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

import inspector
from inspector.formats import open_document
from inspector.formats.delimited import (
    AmbiguousSourceError,
    DataConflictError,
    DelimitedError,
    InvalidValueError,
    ManifestInvalidError,
    SourceParseError,
    UnsupportedLayoutError,
    load_delimited,
    open_delimited,
)
from inspector.formats.delimited.values import format_datetime, parse_timestamp
from inspector.formats.document import FORMAT_DELIMITED
from inspector.formats.registry import sniff

LONG = "scan,radius_cm,signal\ns1,5.90,0.10\ns1,5.91,0.20\ns2,5.90,0.30\ns2,5.91,0.40\n"


def manifest(**extra) -> dict:
    m = {"schema_version": "1.0", "format": "generic-long", "data_file": "scans.csv",
         "experiment": {"experiment_id": "exp-1"}}
    m.update(extra)
    return m


def make(folder: Path, table: str = LONG, man: dict | str | None = None, *,
         data_name: str = "scans.csv", manifest_name: str = "manifest.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / data_name).write_text(table, encoding="utf-8", newline="")
    m = manifest(data_file=data_name) if man is None else man
    if isinstance(m, dict):
        text = json.dumps(m) if manifest_name.endswith(".json") else yaml.safe_dump(m)
    else:
        text = m
    (folder / manifest_name).write_text(text, encoding="utf-8")
    return folder


def rejected(path: Path, cls: type[DelimitedError]) -> list:
    with pytest.raises(cls) as info:
        load_delimited(path)
    doc = open_delimited(path)
    assert not doc.ok
    errors = [f for f in doc.findings if f.severity == "error"]
    assert [f.to_json() for f in errors] == [f.to_json() for f in info.value.findings
                                             if f.severity == "error"]
    return errors


# -- source resolution -------------------------------------------------------

def test_folder_manifest_and_data_file_paths_give_the_same_model(tmp_path):
    src = make(tmp_path / "s")
    dicts = []
    for target in (src, src / "manifest.json", src / "scans.csv"):
        d = load_delimited(target).to_dict()
        d["provenance"].pop("imported_at")
        dicts.append(d)
    assert dicts[0] == dicts[1] == dicts[2]
    assert dicts[0]["provenance"]["source_path"] == str((src / "scans.csv").resolve())


def test_no_manifest_is_rejected(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "scans.csv").write_text(LONG)
    errs = rejected(tmp_path / "s", ManifestInvalidError)
    assert errs[0].location == "s" and errs[0].code == "source.no-manifest"
    errs = rejected(tmp_path / "s" / "scans.csv", ManifestInvalidError)
    assert errs[0].location == "scans.csv"


def test_yaml_and_yml_together_are_ambiguous(tmp_path):
    src = make(tmp_path / "s", manifest_name="manifest.yaml")
    (src / "manifest.yml").write_text(yaml.safe_dump(manifest()))
    errs = rejected(src, AmbiguousSourceError)
    assert "manifest.yaml" in errs[0].message and "manifest.yml" in errs[0].message
    assert load_delimited(src / "manifest.yml").experiment_id == "exp-1"


def test_data_file_that_is_not_the_declared_one_conflicts(tmp_path):
    src = make(tmp_path / "s")
    (src / "other.csv").write_text(LONG)
    errs = rejected(src / "other.csv", DataConflictError)
    assert errs[0].location == "manifest.json:data_file"


@pytest.mark.parametrize("data_file",
                         ["../scans.csv", "/etc/passwd", "C:scans.csv", "", "a/../../x"])
def test_unsafe_data_file_is_rejected(tmp_path, data_file):
    src = make(tmp_path / "s", man=manifest(data_file=data_file))
    errs = rejected(src, ManifestInvalidError)
    assert errs[0].location == "manifest.json:data_file"


def test_declared_data_file_missing(tmp_path):
    src = make(tmp_path / "s", man=manifest(data_file="absent.csv"))
    errs = rejected(src, SourceParseError)
    assert errs[0].location == "manifest.json:data_file"


def test_data_file_in_subfolder_and_symlink_outside(tmp_path):
    src = tmp_path / "s"
    make(src / "sub", data_name="scans.csv", man={"x": 1})
    (src / "sub" / "manifest.json").unlink()
    (src / "manifest.json").write_text(json.dumps(manifest(data_file="sub/scans.csv")))
    assert load_delimited(src).scans[0]["source_file"] == "scans.csv"
    outside = make(tmp_path / "o")
    (src / "link.csv").symlink_to(outside / "scans.csv")
    (src / "manifest.json").write_text(json.dumps(manifest(data_file="link.csv")))
    rejected(src, ManifestInvalidError)


def test_missing_path_never_raises(tmp_path):
    doc = open_delimited(tmp_path / "nope")
    assert not doc.ok and doc.format == FORMAT_DELIMITED
    with pytest.raises(SourceParseError):
        load_delimited(tmp_path / "nope")


# -- manifest schema -----------------------------------------------------------

@pytest.mark.parametrize("change, location", [
    ({"schema_version": "2.0"}, "manifest.json:schema_version"),
    ({"schema_version": 1.0}, "manifest.json:schema_version"),
    ({"bogus": 1}, "manifest.json:bogus"),
    ({"experiment": {"name": "x"}}, "manifest.json:experiment.experiment_id"),
    ({"experiment": {"experiment_id": "e", "acquired_at": "2024"}},
     "manifest.json:experiment.acquired_at"),
    ({"experiment": {"experiment_id": "e", "experiment_type": "SV"}},
     "manifest.json:experiment.experiment_type"),
    ({"defaults": {"cell": 1}}, "manifest.json:defaults.cell"),
    ({"defaults": {"wavelength_nm": "abc"}}, "manifest.json:defaults.wavelength_nm"),
    ({"defaults": {"optical_system": "ABSORBANCE"}}, "manifest.json:defaults.optical_system"),
    ({"defaults": None}, "manifest.json:defaults"),
    ({"samples": [{"density": 1.0}]}, "manifest.json:samples[0].sample_id"),
    ({"samples": {"sample_id": "x"}}, "manifest.json:samples"),
    ({"instrument": {"rotor": "x"}}, "manifest.json:instrument.rotor"),
    ({"delimiter": ";"}, "manifest.json:delimiter"),
    ({"extension": [1]}, "manifest.json:extension"),
])
def test_manifest_schema_violations(tmp_path, change, location):
    src = make(tmp_path / "s", man=manifest(**change))
    errs = rejected(src, ManifestInvalidError)
    assert location in [e.location for e in errs]


def test_manifest_reports_every_field_error(tmp_path):
    src = make(tmp_path / "s", man=manifest(bogus=1, defaults={"cell": 2, "channel": 3}))
    errs = rejected(src, ManifestInvalidError)
    assert {e.location for e in errs} == {"manifest.json:bogus", "manifest.json:defaults.cell",
                                          "manifest.json:defaults.channel"}


def test_yaml_unquoted_number_for_text_field_is_rejected(tmp_path):
    text = "schema_version: '1.0'\ndata_file: scans.csv\nexperiment:\n  experiment_id: e\n" \
           "defaults:\n  cell: 1\n"
    src = make(tmp_path / "s", man=text, manifest_name="manifest.yaml")
    errs = rejected(src, ManifestInvalidError)
    assert errs[0].location == "manifest.yaml:defaults.cell"


@pytest.mark.parametrize("text, location", [
    ('{"schema_version": "1.0",\n  "data_file": }', "manifest.json:2"),
    ("[1, 2]", "manifest.json"),
])
def test_unparseable_manifest(tmp_path, text, location):
    src = make(tmp_path / "s", man=text)
    errs = rejected(src, ManifestInvalidError)
    assert errs[0].location == location


def test_numeric_text_and_extension_are_accepted(tmp_path):
    m = manifest(defaults={"wavelength_nm": "280", "signal_unit": "fringe"},
                 extension={"lab": {"bench": 3}}, notes="free text", delimiter="Comma")
    exp = load_delimited(make(tmp_path / "s", man=m))
    assert exp.scans[0]["wavelength"] == {"value": 280.0, "unit": "nm", "unit_label": None,
                                          "status": "present", "provenance": "supplied"}
    assert exp.signal_unit == "fringe"
    assert exp.metadata["notes"] is None  # top-level notes are not experiment notes


# -- delimiter detection ---------------------------------------------------------

def test_tab_separated_table_in_csv_file_is_read_as_tab(tmp_path):
    exp = load_delimited(make(tmp_path / "s", LONG.replace(",", "\t")))
    assert exp.scan_ids == ["s1", "s2"]


def test_suffix_breaks_a_tie_between_consistent_delimiters(tmp_path):
    table = "scan,radius_cm\tsignal\ns1,5.9\t0.1\n"
    # comma: [scan, radius_cm\tsignal]; tab: [scan,radius_cm, signal] - both consistent
    src = make(tmp_path / "a", table, man=manifest(data_file="scans.tsv"), data_name="scans.tsv")
    errs = rejected(src, SourceParseError)  # tab wins -> column 'scan' is missing
    assert errs[0].location == "scans.tsv:scan"
    src = make(tmp_path / "b", table, man=manifest(data_file="scans.txt"), data_name="scans.txt")
    errs = rejected(src, AmbiguousSourceError)
    assert errs[0].code == "table.ambiguous-delimiter"


def test_declared_delimiter_must_be_consistent(tmp_path):
    errs = rejected(make(tmp_path / "s", man=manifest(delimiter="tab")), SourceParseError)
    assert errs[0].code == "table.declared-delimiter-inconsistent"
    exp = load_delimited(make(tmp_path / "t", LONG.replace(",", "\t"),
                              man=manifest(delimiter=" TAB ")))
    assert exp.n_scans == 2


def test_inconsistent_field_count_names_the_line(tmp_path):
    errs = rejected(make(tmp_path / "s", LONG + "s3,5.90\n"), SourceParseError)
    assert errs[0].location == "scans.csv:6"


def test_blank_lines_are_skipped_and_lines_keep_their_numbers(tmp_path):
    table = "scan,radius_cm,signal\r\n\r\ns1,5.9,0.1\r\n   \r\ns1,5.9,0.2\r\n"
    errs = rejected(make(tmp_path / "s", table), DataConflictError)
    assert errs[0].location == "scans.csv:5"


@pytest.mark.parametrize("table", ["", "\n \n"])
def test_empty_data_file(tmp_path, table):
    errs = rejected(make(tmp_path / "s", table), SourceParseError)
    assert errs[0].code == "table.empty"


def test_quotes_are_not_interpreted(tmp_path):
    exp = load_delimited(make(tmp_path / "s", 'scan,radius_cm,signal\n"s1",5.9,0.1\n'))
    assert exp.scan_ids == ['"s1"']


# -- long-format rules -------------------------------------------------------

@pytest.mark.parametrize("table, cls, location", [
    ("scan,radius_cm,signal\ns1,5.9,0.1\ns1,5.90,0.2\n", DataConflictError, "scans.csv:3"),
    ("scan,radius_cm\ns1,5.9\n", SourceParseError, "scans.csv:signal"),
    ("scan,signal,radius\ns1,0.1,5.9\n", SourceParseError, "scans.csv:radius_cm"),
    ("scan,radius_cm,signal\ns1,5.9,inf\n", SourceParseError, "scans.csv:2"),
    ("scan,radius_cm,signal\ns1,abc,0.1\n", SourceParseError, "scans.csv:2"),
    ("scan,radius_cm,signal\n ,5.9,0.1\n", SourceParseError, "scans.csv:2"),
    ("scan,radius_cm,signal\n", SourceParseError, "scans.csv:1"),
    ("scan,radius_cm,signal,cell\ns1,5.9,0.1,1\ns1,6.0,0.1,2\n", DataConflictError, "scans.csv:3"),
    ("scan,radius_cm,signal,elapsed_seconds\ns1,5.9,0.1,0\ns1,6.0,0.1,0.0\n", DataConflictError,
     "scans.csv:3"),
    ("scan,radius_cm,signal,optical_system\ns1,5.9,0.1,sonar\n", SourceParseError, "scans.csv:2"),
    ("scan,radius_cm,signal,acquisition_timestamp\ns1,5.9,0.1,yesterday\n", SourceParseError,
     "scans.csv:2"),
    ("scan,radius_cm,signal,elapsed_seconds\ns1,5.9,0.1,-1\n", InvalidValueError, "scans.csv:2"),
    ("scan,radius_cm,signal,wavelength_nm\ns1,5.9,0.1,-280\n", InvalidValueError, "scans.csv:2"),
    ("scan,radius_cm,signal,signal_unit\ns1,5.9,0.1,AU\ns2,5.9,0.1,fringe\n", DataConflictError,
     "scans.csv:signal_unit"),
])
def test_long_rejection_rules(tmp_path, table, cls, location):
    errs = rejected(make(tmp_path / "s", table), cls)
    assert errs[0].location == location


@pytest.mark.parametrize("defaults, table_col, value, location", [
    ({"cell": "1"}, "cell", "2", "manifest.json:defaults.cell"),
    ({"channel": "A"}, "channel", "B", "manifest.json:defaults.channel"),
    ({"wavelength_nm": 280}, "wavelength_nm", "260", "manifest.json:defaults.wavelength_nm"),
    ({"optical_system": "absorbance"}, "optical_system", "interference",
     "manifest.json:defaults.optical_system"),
    ({"signal_unit": "absorbance_unit"}, "signal_unit", "AU", "manifest.json:defaults.signal_unit"),
])
def test_default_conflicting_with_table_is_an_error(tmp_path, defaults, table_col, value, location):
    table = f"scan,radius_cm,signal,{table_col}\ns1,5.9,0.1,{value}\n"
    errs = rejected(make(tmp_path / "s", table, man=manifest(defaults=defaults)), DataConflictError)
    assert errs[0].location == location
    assert "in the data (line 2)" in errs[0].message and "scans.csv" not in errs[0].message


def test_equal_default_and_table_value_agree(tmp_path):
    table = "scan,radius_cm,signal,wavelength_nm,optical_system\ns1,5.9,0.1,280.0,ABSORBANCE\n"
    exp = load_delimited(make(tmp_path / "s", table, man=manifest(
        defaults={"wavelength_nm": 280, "optical_system": "absorbance"})))
    assert exp.scans[0]["wavelength"]["value"] == 280.0
    assert exp.scans[0]["optical_system"] == "absorbance"


def test_optional_columns_statuses_and_annotations(tmp_path):
    table = ("scan,radius_cm,signal,elapsed_seconds,acquisition_timestamp,source_scan_id,"
             "temperature_c\n"
             "s1,5.9,0.1,,2024-05-01T10:00:00+00:00,raw-7,20\n"
             "s1,6.0,0.2,30,,,\n"
             "s2,5.9,0.3,,2024-05-01T10:00:00.5+02:00,,\n")
    exp = load_delimited(make(tmp_path / "s", table))
    s1, s2 = exp.scans
    assert s1["elapsed_time"] == {"value": 30.0, "unit": "s", "unit_label": None,
                                  "status": "present", "provenance": "supplied"}
    assert s2["elapsed_time"] == {"value": None, "unit": "unknown", "unit_label": None,
                                  "status": "missing", "provenance": "supplied"}
    assert s1["acquired_at"] == "2024-05-01T10:00:00Z"
    assert s2["acquired_at"] == "2024-05-01T10:00:00.500000+02:00"
    assert s1["annotations"] == ["source_scan_id=raw-7"] and s2["annotations"] == []
    assert s1["temperature"]["unit"] == "degC" and s2["temperature"] is None
    assert s1["optical_system"] == s2["optical_system"] == "unknown"
    assert s1["cell"] is None and s1["wavelength"] is None and s1["rotor_speed"] is None
    assert exp.signal_unit == "unknown"
    table_df = open_delimited(tmp_path / "s").tables["scans"].frame()
    assert table_df["elapsed_status"].tolist() == ["present", "missing"]


@pytest.mark.parametrize("unit, expected", [
    ("AU", "AU"), ("absorbance_unit", "AU"), ("Fringe", "fringe"), ("fringe", "fringe"),
    ("au", "other"), ("counts", "other"), ("", "other"),
])
def test_signal_unit_is_retained_never_converted(tmp_path, unit, expected):
    exp = load_delimited(make(tmp_path / "s", man=manifest(defaults={"signal_unit": unit})))
    assert exp.signal_unit == expected
    assert f"signal unit resolved to {expected!r}" in exp.provenance["assumptions"]


def test_sample_quantities_keep_declared_units(tmp_path):
    m = manifest(samples=[{"sample_id": "a", "concentration_value": 0.5,
                           "concentration_unit": "mg/mL",
                           "density": "1.0"},
                          {"sample_id": "b", "concentration_value": 2, "concentration_unit": "nm"},
                          {"sample_id": "c", "concentration_value": 3}])
    a, b, c = load_delimited(make(tmp_path / "s", man=m)).samples
    assert a["concentration"] == {"value": 0.5, "unit": "other", "unit_label": "mg/mL",
                                  "status": "present", "provenance": "supplied"}
    assert a["density"]["unit"] == "unknown" and a["density"]["value"] == 1.0
    assert b["concentration"]["unit"] == "nm" and b["concentration"]["unit_label"] is None
    assert c["concentration"]["unit"] == "unknown" and c["viscosity"] is None


@pytest.mark.parametrize("change, location", [
    ({"instrument": {"nominal_speed_rpm": -1}}, "manifest.json:instrument.nominal_speed_rpm"),
    ({"instrument": {"temperature_c": "nan"}}, "manifest.json:instrument.temperature_c"),
    ({"samples": [{"sample_id": " "}]}, "manifest.json:samples[0].sample_id"),
    ({"experiment": {"experiment_id": ""}}, "manifest.json:experiment.experiment_id"),
    ({"defaults": {"rotor_speed_rpm": -5}}, "manifest.json:defaults.rotor_speed_rpm"),
    ({"defaults": {"temperature_c": "inf"}}, "manifest.json:defaults.temperature_c"),
])
def test_values_the_model_cannot_hold(tmp_path, change, location):
    errs = rejected(make(tmp_path / "s", man=manifest(**change)), InvalidValueError)
    assert errs[0].location == location


def test_per_scan_axes_are_padded_with_mask(tmp_path):
    table = "scan,radius_cm,signal\na,5.9,1\na,6.0,2\nb,5.9,3\n"
    exp = load_delimited(make(tmp_path / "s", table))
    assert exp.mode == "per_scan"
    np.testing.assert_array_equal(exp.mask, [[True, True], [True, False]])
    assert np.isnan(exp.radius[1, 1]) and np.isnan(exp.signal[1, 1])
    obs = exp.to_dict()["observations"]
    assert obs["radius"] == [[5.9, 6.0], [5.9, None]] and obs["signal"] == [[1.0, 2.0], [3.0, None]]


def test_rows_are_never_sorted(tmp_path):
    table = "scan,radius_cm,signal\nb,6.0,1\nb,5.9,2\na,6.0,3\na,5.9,4\n"
    exp = load_delimited(make(tmp_path / "s", table))
    assert exp.scan_ids == ["b", "a"] and exp.radius.tolist() == [6.0, 5.9]


# -- wide format and layout selection ---------------------------------------------

WIDE = "r,c1,c2\n5.9,0.1,0.2\n6.0,0.3,0.4\n"


def wide_manifest(scans=None, **extra) -> dict:
    scans = scans if scans is not None else [
        {"column": "c1", "scan_id": "A", "elapsed_seconds": 0},
        {"column": "c2", "scan_id": "B", "elapsed_seconds": 60}]
    return manifest(format="generic-wide", columns={"radius": "r", "scans": scans}, **extra)


def test_wide_table_with_custom_radius_column(tmp_path):
    exp = load_delimited(make(tmp_path / "s", WIDE, man=wide_manifest()))
    assert exp.scan_ids == ["A", "B"] and exp.mode == "shared"
    assert exp.signal.tolist() == [[0.1, 0.3], [0.2, 0.4]]
    assert exp.provenance["parser_name"] == "generic-wide"
    assert exp.provenance["assumptions"][0] == "radius column 'r' interpreted as centimetres"
    assert exp.scans[1]["elapsed_time"]["value"] == 60.0


@pytest.mark.parametrize("man, table, cls, location", [
    (wide_manifest(), "r,c1,c2\n5.9,0.1,0.2\n5.90,0.3,0.4\n", DataConflictError, "scans.csv:3"),
    (wide_manifest([{"column": "c9", "scan_id": "A"}]), WIDE, SourceParseError, "scans.csv:c9"),
    (wide_manifest([]), WIDE, InvalidValueError, "manifest.json:columns.scans"),
    (wide_manifest([{"column": "c1", "scan_id": "A"}, {"column": "c2", "scan_id": "A"}]), WIDE,
     InvalidValueError, "manifest.json:columns.scans[1]"),
    (wide_manifest([{"column": "c1", "scan_id": "A", "elapsed_seconds": -1}]), WIDE,
     InvalidValueError, "manifest.json:columns.scans[0].elapsed_seconds"),
    (manifest(format="generic-wide"), WIDE, ManifestInvalidError, "manifest.json:columns"),
    (manifest(format="beckman-xla"), WIDE, UnsupportedLayoutError, "manifest.json:format"),
    (manifest(format=None), WIDE, UnsupportedLayoutError, "scans.csv:1"),
])
def test_wide_and_selection_rejections(tmp_path, man, table, cls, location):
    errs = rejected(make(tmp_path / "s", table, man=man), cls)
    assert errs[0].location == location


def test_layout_detection(tmp_path):
    wide_cols = {"radius": "r", "scans": [{"column": "c1", "scan_id": "A"}]}
    exp = load_delimited(make(tmp_path / "w", WIDE, man=manifest(format=None, columns=wide_cols)))
    assert exp.provenance["parser_name"] == "generic-wide"
    exp = load_delimited(make(tmp_path / "l", LONG, man=manifest(format="")))
    assert exp.provenance["parser_name"] == "generic-long"
    tie = {"radius": "radius_cm", "scans": [{"column": "signal", "scan_id": "A"}]}
    errs = rejected(make(tmp_path / "t", LONG, man=manifest(format=None, columns=tie)),
                    AmbiguousSourceError)
    assert errs[0].code == "layout.ambiguous"


def test_wide_header_only_table_has_zero_points(tmp_path):
    doc = open_delimited(make(tmp_path / "s", "r,c1,c2\n", man=wide_manifest()))
    assert doc.ok
    assert doc.summary["n_points"] == 0 and doc.arrays["signal"].shape == (2, 0)


# -- provenance, document, sniffing ------------------------------------------------

def test_provenance_records_files_parser_and_assumptions(tmp_path):
    src = make(tmp_path / "s", man=manifest(defaults={"signal_unit": "absorbance_unit"}),
               manifest_name="manifest.yml")
    prov = load_delimited(src / "scans.csv").provenance
    assert prov["parser_name"] == "generic-long"
    assert prov["parser_version"] == inspector.__version__
    assert prov["warnings"] == [] and prov["transformations"] == []
    assert prov["assumptions"] == [
        "radius column 'radius_cm' interpreted as centimetres",
        "signal unit resolved to 'AU'",
        "radius axis: shared",
        "manifest: manifest.yml",
        "data_file: scans.csv",
    ]
    man_bytes = (src / "manifest.yml").read_bytes()
    assert prov["source_checksums"][0] == {
        "role": "manifest", "filename": "manifest.yml", "algorithm": "sha256",
        "value": hashlib.sha256(man_bytes).hexdigest(), "byte_size": len(man_bytes)}
    assert prov["sha256"] == prov["source_checksums"][1]["value"] == \
        hashlib.sha256(LONG.encode()).hexdigest()


def test_input_files_are_never_modified(tmp_path):
    src = make(tmp_path / "s")
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in src.iterdir()}
    open_delimited(src)
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in src.iterdir()} == before


def test_rejected_document_still_shows_resolved_files(tmp_path):
    src = make(tmp_path / "s", "scan,radius_cm\ns1,5.9\n")
    doc = open_delimited(src)
    names = [n.name for n in doc.tree.children]
    assert names == ["manifest.json", "scans.csv"]
    assert [f["role"] for f in doc.summary["source_files"]] == ["manifest", "data_file"]


def test_sniff_recognises_manifests_and_tables_by_content(tmp_path):
    src = make(tmp_path / "s", data_name="data.dat", man=manifest(data_file="data.dat"),
               manifest_name="experiment.yaml")
    assert sniff(src / "experiment.yaml") == FORMAT_DELIMITED
    (src / "manifest.json").write_text(json.dumps(manifest(data_file="data.dat")))
    assert sniff(src / "data.dat") == FORMAT_DELIMITED
    assert sniff(src / "manifest.json") == FORMAT_DELIMITED
    other = tmp_path / "notes.json"
    other.write_text('{"title": "not a manifest"}')
    assert sniff(other) == "unknown"
    doc = open_document(src / "experiment.yaml")
    assert doc.ok and doc.format == FORMAT_DELIMITED


@pytest.mark.parametrize("text, expected", [
    ("2024-01-01T10:00:00", "2024-01-01T10:00:00"),
    ("2024-01-01T10:00:00+00:00", "2024-01-01T10:00:00Z"),
    ("2024-01-01 10:00:00.120-05:30", "2024-01-01T10:00:00.120000-05:30"),
    ("2024-01-01", "2024-01-01T00:00:00"),
])
def test_timestamps_are_written_as_the_model_writes_them(text, expected):
    assert format_datetime(parse_timestamp(text)) == expected


# -- findings: rules, and messages without file names -------------------------------

ZZ_MANIFEST = {"schema_version": "1.0", "format": "generic-long", "data_file": "ZZdata.csv",
               "experiment": {"experiment_id": "e"}}


@pytest.mark.parametrize("table, change", [
    ("scan,radius_cm\ns1,5.9\n", {}),
    ("scan,radius_cm,signal,x,x\ns1,abc,inf,1,2\ns1,5.9,0.1,1,2\ns1,5.9,0.2,1,2\n", {}),
    ("scan,radius_cm,signal,cell,acquisition_timestamp,optical_system\n"
     "s1,5.9,0.1,1,never,sonar\ns1,6.0,0.1,2,,\n", {}),
    ("scan,radius_cm,signal,signal_unit\ns1,5.9,0.1,AU\ns2,5.9,0.1,fringe\n", {}),
    ("scan,radius_cm,signal,cell\ns1,5.9,0.1,2\n", {"defaults": {"cell": "1"}}),
    ("scan,radius_cm,signal\ns1,5.9,0.1\n", {"delimiter": "tab"}),
    ("a;b\n1;2\n", {}),
    ("", {}),
    ("scan,radius_cm,signal\ns1,5.9,0.1\n", {"data_file": "absent.csv"}),
    ("scan,radius_cm,signal\ns1,5.9,0.1\n", {"bogus": 1, "defaults": {"cell": 1}}),
    ("scan,radius_cm,signal\ns1,5.9,0.1\n", {"format": "beckman"}),
    ("r,c\n5.9,1\n", {"format": None}),
    ("r,c\n5.9,1\n5.9,2\n", {"format": "generic-wide", "columns": {
        "radius": "r", "scans": [{"column": "c", "scan_id": "A"}, {"column": "c", "scan_id": "A",
                                                                     "elapsed_seconds": -1}]}}),
    ("scan,radius_cm,signal,elapsed_seconds\n ,5.9,0.1,0\n", {}),
    ("scan,radius_cm,signal,elapsed_seconds\ns1,5.9,0.1,-1\n",
     {"experiment": {"experiment_id": " "}, "samples": [{"sample_id": ""}]}),
])
def test_messages_never_name_the_files_and_every_code_has_a_rule(tmp_path, table, change):
    from inspector.cli import format_report
    from inspector.formats.findings import RULES

    man = {**ZZ_MANIFEST, **change}
    src = make(tmp_path / "ZZdir", table, man={k: v for k, v in man.items() if v is not None},
               data_name="ZZdata.csv")
    doc = open_document(src)
    assert not doc.ok
    report = format_report(doc)
    for f in doc.findings:
        assert "ZZ" not in f.message and "manifest.json" not in f.message, f
        assert RULES[f.code].severity == f.severity and f.rule == RULES[f.code].source
        assert f"ZZdir: {f.message}" in report


#: What a rejected source adds: its structure was not checked.
NOT_CHECKED = "structure.not-checked"


def test_not_utf8_and_bad_manifests_never_name_the_files(tmp_path):
    src = make(tmp_path / "ZZdir", man=ZZ_MANIFEST, data_name="ZZdata.csv")
    (src / "ZZdata.csv").write_bytes(b"scan,radius_cm,signal\n\xff\n")
    for manifest_name, text in (("manifest.json", "{"), ("manifest.yaml", "a: [")):
        for old in src.glob("manifest.*"):
            old.unlink()
        (src / manifest_name).write_text(text)
        doc = open_document(src)
        assert [f.code for f in doc.findings] in (["manifest.invalid-json", NOT_CHECKED],
                                                  ["manifest.not-yaml", NOT_CHECKED])
        assert all("ZZ" not in f.message and "manifest" not in f.message for f in doc.findings)
    for old in src.glob("manifest.*"):
        old.unlink()
    (src / "manifest.json").write_text(json.dumps(ZZ_MANIFEST))
    doc = open_document(src)
    assert [(f.code, f.location) for f in doc.findings] == [("table.not-utf8", "ZZdata.csv"),
                                                            (NOT_CHECKED, "")]
    assert "ZZ" not in doc.findings[0].message
    (src / "manifest.json").unlink()
    doc = open_document(src)
    assert [(f.code, f.location) for f in doc.findings] == [("source.no-manifest", "ZZdir"),
                                                            (NOT_CHECKED, "")]
    assert "ZZ" not in doc.findings[0].message


def test_errors_beyond_the_stage_limit_are_counted_in_one_finding(tmp_path):
    from inspector.formats.delimited.stages import MAX_ERRORS_PER_STAGE

    rows = "".join(f"s{i},x,0.1\n" for i in range(MAX_ERRORS_PER_STAGE + 7))
    doc = open_delimited(make(tmp_path / "s", "scan,radius_cm,signal\n" + rows))
    codes = [f.code for f in doc.findings]
    assert codes == ["table.not-a-number"] * MAX_ERRORS_PER_STAGE + ["source.more-errors"]
    assert doc.findings[-1].message == "7 further error(s) of the same stage not listed"
    assert doc.findings[-1].severity == "error"
