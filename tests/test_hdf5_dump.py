"""``inspector dump FILE::/path``: CSV, JSON and .npy of every HDF5 type, against h5py.

The oracle reads each dataset or attribute with h5py and converts it the way the
views are documented to show it (inspector/formats/nodes/dump.py): compound fields
as dotted columns, enum labels, strings decoded with ``\\xNN`` escapes, references
as target paths, opaque bytes as hex.  One known h5py 3.16 defect is not copied:
it returns the numbers of a big-endian variable-length sequence byte-swapped, so
that oracle is the data written.
"""

from __future__ import annotations

import csv
import io
import json
import math

import h5py
import numpy as np
import pytest

from inspector.cli import main
from inspector.formats.nodes.dump import DUMP_MAX_VALUES
from tests.test_hdf5_data import NUMBERS, write_every_type

#: location -> the kind of each column, in order (label -> kind).
KINDS: dict[str, dict[str, str]] = {
    **{loc: {"value": "number"} for loc in NUMBERS},
    "/bitfield": {"value": "number"},
    "/bool": {"value": "bool"},
    "/complex/c8": {"value": "complex"},
    "/complex/c16be": {"value": "complex"},
    "/complex/native": {"value": "complex"},
    "/enum": {"value": "enum"},
    "/str/fixed_ascii": {"value": "text"},
    "/str/fixed_utf8": {"value": "text"},
    "/str/space_padded": {"value": "text"},
    "/str/vlen_utf8": {"value": "text"},
    "/str/vlen_ascii": {"value": "text"},
    "/str/scalar": {"value": "text"},
    "/compound/table": {"id": "number", "pos.x": "number", "pos.y": "number",
                        "arr[0]": "number", "arr[1]": "number", "arr[2]": "number",
                        "name": "text", "col": "enum", "flag": "bool", "z": "complex",
                        "wide": "sequence"},
    "/compound/matrix": {"x": "number", "y": "number"},
    "/vlen/ints": {"value": "sequence"},
    "/vlen/floats": {"value": "sequence"},
    "/opaque": {"value": "bytes"},
    "/time": {"value": "time"},
    "/array_of_array": {f"[{i}][{j}]": "number" for i in range(3) for j in range(2)},
    "/refs/objects": {"value": "reference"},
    "/refs/regions": {"value": "reference"},
    "/scalar": {"value": "number"},
    "/cube": {"value": "number"},
    "/image": {"value": "number"},
    "/empty": {"value": "number"},
    "/links/soft": {"value": "number"},
    "/compound@matrix": {"value": "number"},
    "/compound@text": {"value": "text"},
    "/compound@strings": {"value": "text"},
    "/compound@colour": {"value": "enum"},
    "/compound@point": {"x": "number", "y": "number"},
    "/compound@ref": {"value": "reference"},
    "/@root_scalar": {"value": "number"},
}
#: Region references as the views name them (their selection in numpy slices).
REGIONS = ["/num/f8be[0:2, 1:2]", "/num/i1[1:3]"]
#: What was written to the big-endian vlen dataset (h5py reads it byte-swapped).
VLEN_INTS = [[1, 2, 3], [], [-7]]


@pytest.fixture(scope="module")
def h5file(tmp_path_factory):
    return write_every_type(tmp_path_factory.mktemp("dump") / "types.h5")


def _raw(f: h5py.File, location: str):
    if "@" in location:
        path, _, name = location.rpartition("@")
        return f[path or "/"].attrs[name]
    return f[location][()]


def _field(raw, label: str):
    """The values of one column label (``pos.x``, ``arr[1]``, ``[2][0]``) of a raw array."""
    if label == "value":
        return raw
    head, _, rest = label.partition("[")
    a = raw
    for part in filter(None, head.split(".")):
        a = a[part]
    if rest:
        idx = tuple(int(i) for i in ("[" + rest).strip("[]").split("]["))
        a = np.asarray(a)[(Ellipsis, *idx)]
    return a


def _text(v) -> str:
    if isinstance(v, str):
        v = v.encode("utf-8", "surrogateescape")
    return bytes(v).decode("utf-8", "backslashreplace")


def _enum_labels(f: h5py.File, location: str, label: str) -> dict[int, str]:
    obj = f[location.rpartition("@")[0] or "/"] if "@" in location else f[location]
    dt = obj.attrs.get_id(location.rpartition("@")[2]).dtype if "@" in location else obj.dtype
    for part in filter(None, label.split(".")) if label != "value" else ():
        dt = dt.fields[part][0]
    return {v: k for k, v in h5py.check_enum_dtype(dt).items()}


def _reference(f: h5py.File, location: str, ref, k: int):
    if not ref:
        return None
    return REGIONS[k] if location == "/refs/regions" else f[ref].name


def oracle(f: h5py.File, location: str) -> tuple[tuple[int, ...] | None, dict[str, list]]:
    """``(shape, {label: flat expected values})`` of a node, from h5py."""
    raw = _raw(f, location)
    if isinstance(raw, h5py.Empty):
        return None, {}
    raw = np.asarray(raw) if not isinstance(raw, np.ndarray) else raw
    shape = raw.shape[:raw.ndim - 2] if location == "/array_of_array" else raw.shape
    out = {}
    for label, kind in KINDS[location].items():
        a = np.asarray(_field(raw, label))
        flat = a.reshape((math.prod(shape),) + a.shape[len(shape):])
        if kind == "text":
            values = [_text(v) for v in flat]
        elif kind == "enum":
            names = _enum_labels(f, location, label)
            values = [names.get(int(v), str(int(v))) for v in flat]
        elif kind == "reference":
            values = [_reference(f, location, r, k) for k, r in enumerate(flat)]
        elif kind == "bytes":
            values = [bytes(v).hex() for v in flat]
        elif kind == "time":
            values = list(np.datetime_as_string(flat))
        elif kind == "sequence":
            values = VLEN_INTS if location == "/vlen/ints" else [np.asarray(v).tolist()
                                                                 for v in flat]
        else:
            values = list(flat)
        out[label] = values
    return shape, out


def _dump(tmp_path, h5file, location, fmt, *extra):
    out = tmp_path / f"out.{fmt}"
    code = main(["dump", f"{h5file}::{location}", "--format", fmt, "--out", str(out), *extra])
    assert code == 0
    return out


def _same_number(text_or_value, expected) -> bool:
    special = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
    if isinstance(text_or_value, str):
        text_or_value = special.get(text_or_value, text_or_value)
    got = np.asarray(expected).dtype.type(text_or_value)
    return bool(got == expected or (np.isnan(got) and np.isnan(expected)))


def _check(kind: str, got, expected) -> None:
    """One value from CSV text or JSON against the oracle value."""
    if kind == "number":
        assert _same_number(got, expected), (got, expected)
    elif kind == "bool":
        assert got in ("true", True) if expected else got in ("false", False)
    elif kind == "complex":
        c = complex(got) if isinstance(got, str) else complex(*[
            {"NaN": np.nan}.get(x, x) for x in got])
        assert _same_number(c.real, np.real(expected)) and _same_number(c.imag, np.imag(expected))
    elif kind == "sequence":
        got = json.loads(got) if isinstance(got, str) else got
        exp = [("NaN" if isinstance(x, float) and math.isnan(x) else x) for x in expected]
        assert got == exp or np.allclose(got, expected, equal_nan=True)
    elif expected is None:
        assert got in ("", None)
    else:
        assert got == expected, (got, expected)


LOCATIONS = sorted(KINDS)


def _present(h5file, location) -> None:
    with h5py.File(h5file) as f:
        path = location.rpartition("@")[0] or "/" if "@" in location else location
        if path not in f:
            pytest.skip(f"{location}: this HDF5 library cannot write it")


@pytest.mark.parametrize("location", LOCATIONS)
@pytest.mark.slow
def test_csv_is_what_h5py_reads(tmp_path, h5file, location):
    _present(h5file, location)
    with h5py.File(h5file) as f:
        shape, expected = oracle(f, location)
    rows = list(csv.reader(io.StringIO(_dump(tmp_path, h5file, location, "csv")
                                       .read_text(encoding="utf-8"))))
    kinds = KINDS[location]
    if shape is None:
        assert rows == [list(kinds)]
        return
    if len(shape) == 2 and len(kinds) == 1:  # the matrix, headed by column indices
        assert rows[0] == [str(i) for i in range(shape[1])]
        cells = {"value": [c for r in rows[1:] for c in r]}
    else:
        header = rows[0]
        lead = len(shape) if len(shape) >= 2 else 0
        assert header == [f"dim{i}" for i in range(lead)] + list(kinds)
        body = rows[1:]
        assert len(body) == math.prod(shape)
        if lead:
            assert [tuple(map(int, r[:lead])) for r in body] == list(np.ndindex(*shape))
        cells = {label: [r[lead + k] for r in body] for k, label in enumerate(kinds)}
    for label, kind in kinds.items():
        assert len(cells[label]) == len(expected[label])
        for got, exp in zip(cells[label], expected[label], strict=True):
            _check(kind, got, exp)


def _flatten(values, shape):
    if not shape:
        return [values]
    out = []
    for v in values:
        out.extend(_flatten(v, shape[1:]) if len(shape) > 1 else [v])
    return out


@pytest.mark.parametrize("location", LOCATIONS)
@pytest.mark.slow
def test_json_is_what_h5py_reads(tmp_path, h5file, location):
    _present(h5file, location)
    with h5py.File(h5file) as f:
        shape, expected = oracle(f, location)
    doc = json.loads(_dump(tmp_path, h5file, location, "json").read_text(encoding="utf-8"))
    kinds = KINDS[location]
    assert doc["location"] == location and doc["columns"] == list(kinds)
    assert doc["kinds"] == list(kinds.values())
    if shape is None:
        assert doc["shape"] is None and doc["values"] is None
        return
    assert doc["shape"] == list(shape)
    flat = _flatten(doc["values"], shape)
    for label, kind in kinds.items():
        got = flat if len(kinds) == 1 else [row[label] for row in flat]
        for g, e in zip(got, expected[label], strict=True):
            _check(kind, g, e)


@pytest.mark.parametrize("location", [loc for loc in LOCATIONS
                                      if "sequence" not in KINDS[loc].values()])
@pytest.mark.slow
def test_npy_is_what_h5py_reads(tmp_path, h5file, location):
    _present(h5file, location)
    with h5py.File(h5file) as f:
        shape, expected = oracle(f, location)
    arr = np.load(_dump(tmp_path, h5file, location, "npy"), allow_pickle=False)
    kinds = KINDS[location]
    if shape is None:
        assert arr.shape == (0,)
        return
    assert arr.shape == shape
    for label, kind in kinds.items():
        col = arr if len(kinds) == 1 else arr[label]
        flat = col.reshape(-1)
        if kind in ("number", "bool", "complex"):
            exp = np.asarray(expected[label])
            assert flat.dtype.isnative and (flat.dtype.kind == exp.dtype.kind or not exp.size)
            np.testing.assert_array_equal(flat, exp)
        else:
            assert flat.dtype.kind == "U"
            assert flat.tolist() == ["" if e is None else e for e in expected[label]]


def test_big_endian_matrix_slice_and_text(tmp_path, h5file, capsys):
    assert main(["dump", f"{h5file}::/num/f8be", "--slice", "1, ::-1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "value"
    assert [float(x) for x in out[1:]] == [-np.e, np.pi]
    assert main(["dump", f"{h5file}::/compound/table", "--slice", "1:2"]) == 0
    text = capsys.readouterr().out
    assert "x\\xff" in text and text.splitlines()[1].startswith("2,0.25,300,4.0,")


def test_sequences_are_refused_as_npy_and_nothing_is_written(tmp_path, h5file, capsys):
    out = tmp_path / "seq.npy"
    assert main(["dump", f"{h5file}::/vlen/ints", "--format", "npy", "--out", str(out)]) == 2
    assert "json" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "seq.npy.part").exists()


def test_missing_node_and_unreadable_values_exit_1_with_a_finding(tmp_path, h5file, capsys):
    assert main(["dump", f"{h5file}::/nope"]) == 1
    err = capsys.readouterr().err
    assert "warning node.not-found" in err and "/nope" in err
    # a group is written as the list of its members (and refused as .npy: no array)
    assert main(["dump", f"{h5file}::/compound"]) == 0
    with h5py.File(h5file, "r") as f:
        rows = capsys.readouterr().out.splitlines()
        assert rows[0] == "name,kind,location,detail,value"
        g = f["compound"]
        assert sorted(r.split(",")[0] for r in rows[1:]) == sorted([*g, *g.attrs])
    assert main(["dump", f"{h5file}::/compound", "--format", "npy", "--out",
                 str(tmp_path / "g.npy")]) == 2
    assert "is a group" in capsys.readouterr().err and not (tmp_path / "g.npy").exists()
    ext = tmp_path / "ext.h5"
    with h5py.File(ext, "w") as f:
        f.create_dataset("raw", (4,), dtype="<i4", external=[("gone.bin", 0, 16)])
    assert main(["dump", f"{ext}::/raw"]) == 1
    captured = capsys.readouterr()
    err = captured.err
    assert "error external.missing" in err and err.count("ext.h5") == 1
    assert captured.out == ""  # not even the CSV header of values never read
    matrix = tmp_path / "matrix.h5"  # the one-row-per-row layout: the same
    with h5py.File(matrix, "w") as f:
        f.create_dataset("raw", (2, 2), dtype="<i4", external=[("gone.bin", 0, 16)])
    assert main(["dump", f"{matrix}::/raw"]) == 1
    captured = capsys.readouterr()
    assert "error external.missing" in captured.err and captured.out == ""
    assert main(["dump", f"{tmp_path / 'absent.h5'}::/x"]) == 1
    assert "file.not-found" in capsys.readouterr().err


def test_usage_errors_exit_2(h5file, capsys):
    assert main(["dump", str(h5file)]) == 2
    assert main(["dump", f"{h5file}::/num/i1", "--slice", "os.system('x')"]) == 2
    assert main(["dump", f"{h5file}::/num/i1", "--slice", "7"]) == 2
    with pytest.raises(SystemExit) as exc:  # argparse's own usage errors
        main(["dump", f"{h5file}::/num/i1", "--format", "xml"])
    assert exc.value.code == 2
    capsys.readouterr()


@pytest.mark.slow
def test_more_than_a_million_values_need_all_and_are_paged(tmp_path, capsys):
    path = tmp_path / "big.h5"
    n = DUMP_MAX_VALUES + 5
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("big", (n,), dtype=">i4", chunks=(1 << 16,))
        ds[-5:] = np.arange(5)
        ds2 = f.create_dataset("wide", (2, n), dtype="<u1", chunks=(1, 1 << 16))
        ds2[1, -1] = 9
    assert main(["dump", f"{path}::/big"]) == 2
    assert "--all" in capsys.readouterr().err
    assert main(["dump", f"{path}::/big", "--slice=-3:"]) == 0
    assert capsys.readouterr().out.split() == ["value", "2", "3", "4"]
    out = tmp_path / "big.npy"
    assert main(["dump", f"{path}::/big", "--all", "--format", "npy", "--out", str(out)]) == 0
    arr = np.load(out)
    assert arr.shape == (n,) and arr[-5:].tolist() == [0, 1, 2, 3, 4] and arr[0] == 0
    js = tmp_path / "wide.json"
    assert main(["dump", f"{path}::/wide", "--all", "--format", "json", "--out", str(js)]) == 0
    doc = json.loads(js.read_text())
    assert doc["shape"] == [2, n] and doc["values"][1][-1] == 9 and len(doc["values"][0]) == n
    cs = tmp_path / "wide.csv"
    assert main(["dump", f"{path}::/wide", "--all", "--out", str(cs)]) == 0
    lines = cs.read_text().splitlines()
    assert len(lines) == 3 and lines[2].endswith(",0,9") and lines[1].count(",") == n - 1


def test_dump_prints_to_stdout_and_never_names_the_file_in_findings(h5file, capsys):
    assert main(["dump", f"{h5file}::/enum", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["values"] == ["RED", "GREEN", "BLUE", "3"]
    assert main(["dump", f"{h5file}::/compound@colour"]) == 0
    assert capsys.readouterr().out.split() == ["value", "BLUE", "RED"]


def test_scalar_enums_dump_their_label_or_their_number(tmp_path, capsys):
    path = tmp_path / "enum_scalar.h5"
    e = h5py.enum_dtype({"A": 0, "B": 1}, basetype="i1")
    with h5py.File(path, "w") as f:
        f.attrs.create("in_range", np.int8(1), dtype=e)
        f.attrs.create("out_of_range", np.int8(7), dtype=e)
        f.create_dataset("scalar_enum", data=np.int8(1), dtype=e)
        f.create_dataset("grid", data=np.array([[0, 7], [1, 1]], "i1"), dtype=e)
    expected = {"/@in_range": "B", "/@out_of_range": "7", "/scalar_enum": "B"}
    for location, label in expected.items():
        assert main(["dump", f"{path}::{location}", "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["shape"] == [] and doc["values"] == label, location
    assert main(["dump", f"{path}::/grid", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [["A", "7"], ["B", "B"]]
