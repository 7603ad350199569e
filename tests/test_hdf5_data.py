"""Generic HDF5 data access (ObjectData / NodeData): every HDF5 type decoded as the views
show it, checked against h5py as the oracle; type and storage descriptions; bounded,
paged reads; the chunk-aware image plan.

``write_every_type`` builds the file the dump tests use too.
"""

from __future__ import annotations

import math
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats import open_document
from inspector.formats.nodes.cell_text import cell_text
from inspector.formats.nodes.data import (
    MAX_READ_VALUES,
    ColumnKind,
    NodeReadError,
    SelectionTooLarge,
    normalize,
    pages,
    parse_selection,
    selected_shape,
)
from inspector.formats.nodes.image_plan import image_plan

INNER = np.dtype([("x", "<f4"), ("y", ">i2")])
COLOURS = {"RED": 0, "GREEN": 1, "BLUE": 7}
#: Big-endian and little-endian numbers of every width.
NUMBERS = {
    "/num/i1": np.array([-128, 0, 127], dtype="i1"),
    "/num/u2be": np.array([0, 1, 65535], dtype=">u2"),
    "/num/i4be": np.array([-2**31, 5, 2**31 - 1], dtype=">i4"),
    "/num/i8": np.array([-2**63, 1, 2**63 - 1], dtype="<i8"),
    "/num/u8be": np.array([0, 2**64 - 1, 3], dtype=">u8"),
    "/num/f2": np.array([0.5, -1.25, 65504.0], dtype="<f2"),
    "/num/f4be": np.array([0.1, np.nan, -np.inf, 3.4e38], dtype=">f4"),
    "/num/f8": np.array([0.1, 1e-300, np.inf, -0.0], dtype="<f8"),
    "/num/f8be": np.array([[1.5, 2.5], [np.pi, -np.e]], dtype=">f8"),
}


def _low_level(f: h5py.File, name: str, tid, shape: tuple[int, ...] | None, data=None):
    space = h5py.h5s.create(h5py.h5s.NULL) if shape is None else h5py.h5s.create_simple(shape)
    dsid = h5py.h5d.create(f.id, name.encode(), tid, space)
    if data is not None:
        dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=tid)
    return f[name]


def _strings(f: h5py.File) -> None:
    f.create_dataset("/str/fixed_ascii", data=np.array([b"ab", b"c\xff", b"hello"], dtype="S5"))
    utf8 = h5py.h5t.C_S1.copy()
    utf8.set_size(8)
    utf8.set_cset(h5py.h5t.CSET_UTF8)
    _low_level(f, "/str/fixed_utf8", utf8, (2,), np.array(["é".encode(), b"z"], dtype="S8"))
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(6)
    tid.set_strpad(h5py.h5t.STR_SPACEPAD)
    _low_level(f, "/str/space_padded", tid, (2,), np.array([b"ab    ", b"xyz   "], dtype="S6"))
    vlen = np.array([b"a", "é€".encode(), b"bad\xff\xfeend", b""], dtype=object)
    f.create_dataset("/str/vlen_utf8", data=vlen, dtype=h5py.string_dtype("utf-8"))
    f.create_dataset("/str/vlen_ascii", data=np.array([b"plain", b"x"], dtype=object),
                     dtype=h5py.string_dtype("ascii"))
    f.create_dataset("/str/scalar", data="only one", dtype=h5py.string_dtype())


def _compound(f: h5py.File) -> None:
    enum = h5py.enum_dtype({"A": 0, "B": 1}, basetype="u1")
    cdt = np.dtype([("id", "<i4"), ("pos", INNER), ("arr", "<f8", (3,)),
                    ("name", h5py.string_dtype()), ("col", enum), ("flag", "?"),
                    ("z", "<c8"), ("wide", ">i2", (100,))])
    ds = f.create_dataset("/compound/table", (3,), dtype=cdt)
    ds[0] = (1, (1.5, -2), [1, 2, 3], "hé", 1, True, 1 + 2j, np.arange(100))
    ds[1] = (2, (0.25, 300), [4, 5, 6], b"x\xff", 0, False,
             -1j, np.zeros(100))
    ds[2] = (-3, (np.nan, 7), [7, 8, 9], "", 1, True, 0, -np.arange(100))
    f.create_dataset("/compound/matrix", data=np.array([[(1.0, 2), (3.0, 4)],
                                                        [(5.0, 6), (7.0, 8)]], dtype=INNER))


def _special(f: h5py.File) -> None:
    f.create_dataset("/enum", data=np.array([0, 1, 7, 3], dtype="i1"),
                     dtype=h5py.enum_dtype(COLOURS, basetype="i1"))
    f["/bool"] = np.array([True, False, True])
    f["/complex/c8"] = np.array([1 + 2j, -0.5j, np.nan], dtype="<c8")
    f["/complex/c16be"] = np.array([3 - 4j, 1e300 + 0j], dtype=">c16")
    if hasattr(h5py.h5t, "COMPLEX_IEEE_F64BE"):  # HDF5 2.0's own complex class
        _low_level(f, "/complex/native", h5py.h5t.COMPLEX_IEEE_F64BE, (2,),
                   np.array([1 + 1j, -2j], dtype=">c16"))
    seq = f.create_dataset("/vlen/ints", (3,), dtype=h5py.vlen_dtype(np.dtype(">i4")))
    seq[0], seq[1], seq[2] = [1, 2, 3], [], [-7]
    fseq = f.create_dataset("/vlen/floats", (2,), dtype=h5py.vlen_dtype(np.dtype("<f4")))
    fseq[0], fseq[1] = [0.1, 0.2], [np.nan]
    f.create_dataset("/opaque", data=np.array([b"\x01\x02\x03", b"\xff\x00\x10"], dtype="V3"))
    f.create_dataset("/time", data=np.array(["2020-01-02T03:04:05", "NaT"], dtype="M8[s]")
                     .astype(h5py.opaque_dtype(np.dtype("M8[s]"))))
    aoa = h5py.h5t.array_create(h5py.h5t.array_create(h5py.h5t.STD_I32BE, (2,)), (3,))
    _low_level(f, "/array_of_array", aoa, (2,),
               np.arange(12, dtype=">i4").reshape(2, 3, 2))
    bits = h5py.h5t.STD_B16BE.copy()
    _low_level(f, "/bitfield", bits, (2,), np.array([1, 0x8001], dtype=">u2"))


def _references(f: h5py.File) -> None:
    refs = f.create_dataset("/refs/objects", (3,), dtype=h5py.ref_dtype)
    refs[0], refs[1] = f["/enum"].ref, f["/compound"].ref
    regions = f.create_dataset("/refs/regions", (2,), dtype=h5py.regionref_dtype)
    regions[0] = f["/num/f8be"].regionref[0:2, 1:2]
    regions[1] = f["/num/i1"].regionref[1:3]


def _shapes(f: h5py.File) -> None:
    f["/scalar"] = np.float64(2.5)
    f.create_dataset("/null", shape=None, dtype="<f4")
    f.create_dataset("/cube", data=np.arange(24, dtype="<i2").reshape(2, 3, 4))
    f.create_dataset("/image", data=np.arange(20, dtype="<f4").reshape(4, 5), chunks=(2, 2),
                     compression="gzip", shuffle=True, fillvalue=-1.0)
    f.create_dataset("/empty", shape=(0,), dtype="<i4")


def _attributes(f: h5py.File) -> None:
    g = f["/compound"]
    g.attrs["matrix"] = np.arange(6, dtype=">i4").reshape(2, 3)
    g.attrs["text"] = "héllo"
    g.attrs.create("null", h5py.Empty("f4"))
    g.attrs["strings"] = np.array(["a", "bc"], dtype=h5py.string_dtype())
    g.attrs.create("colour", np.array([7, 0], dtype="i1"), dtype=h5py.enum_dtype(COLOURS, "i1"))
    g.attrs.create("point", np.array([(1.0, 2)], dtype=INNER))
    g.attrs.create("ref", f["/enum"].ref, dtype=h5py.ref_dtype)
    f.attrs["root_scalar"] = np.int64(42)


def write_every_type(path: Path) -> Path:
    """An HDF5 file holding every type the data views decode (see the module docstring)."""
    with h5py.File(path, "w") as f:
        for name, data in NUMBERS.items():
            f.create_dataset(name, data=data)
        _strings(f)
        _compound(f)
        _special(f)
        _references(f)
        _shapes(f)
        _attributes(f)
        f["/links/soft"] = h5py.SoftLink("/num/i1")
    return path


@pytest.fixture(scope="module")
def every_type(tmp_path_factory) -> Path:
    return write_every_type(tmp_path_factory.mktemp("h5") / "every_type.h5")


@pytest.fixture
def objects(every_type):
    with open_document(every_type) as doc:
        assert doc.object_data is not None
        yield doc.object_data


def _col(objects, location: str, name: str = "", selection=Ellipsis):
    return objects.node(location).read(selection).column(name)


# -- numbers -------------------------------------------------------------------------
@pytest.mark.parametrize("location", sorted(NUMBERS))
@pytest.mark.slow
def test_numbers_of_every_width_and_byte_order_decode_as_h5py_reads_them(objects, every_type,
                                                                        location):
    col = _col(objects, location)
    with h5py.File(every_type) as f:
        oracle = f[location][()]
    assert col.kind == ColumnKind.NUMBER
    assert col.values.dtype.isnative and col.values.dtype.itemsize == oracle.dtype.itemsize
    np.testing.assert_array_equal(col.values, oracle)
    node = objects.node(location)
    order = "big-endian" if oracle.dtype.byteorder == ">" else "little-endian"
    assert node.type.byte_order == order and order in node.type.text
    # the shortest text reads back as the same number
    for text, v in zip((cell_text(col.kind, x) for x in col.values.reshape(-1)),
                       oracle.reshape(-1), strict=True):
        back = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}.get(text)
        got = oracle.dtype.type(back if back is not None else text)
        assert got == v or (np.isnan(got) and np.isnan(v))


def test_float32_text_is_shortest_round_trip(objects):
    col = _col(objects, "/num/f4be")
    assert cell_text(col.kind, col.values[0]) == "0.1"
    assert [cell_text(col.kind, v) for v in col.values[1:3]] == ["NaN", "-Infinity"]


def test_bitfield_and_bool(objects):
    bits = _col(objects, "/bitfield")
    assert bits.kind == ColumnKind.NUMBER and bits.values.tolist() == [1, 0x8001]
    assert objects.node("/bitfield").type.type_class == "bitfield"
    flag = _col(objects, "/bool")
    assert flag.kind == ColumnKind.BOOL and flag.values.tolist() == [True, False, True]
    node = objects.node("/bool")
    assert node.type.type_class == "boolean"
    assert node.type.members == (("FALSE", 0), ("TRUE", 1))


@pytest.mark.parametrize("location", ["/complex/c8", "/complex/c16be", "/complex/native"])
def test_complex_numbers(objects, every_type, location):
    with h5py.File(every_type) as f:
        if location not in f:
            pytest.skip("this HDF5 library has no complex class of its own")
        oracle = f[location][()]
    col = _col(objects, location)
    assert col.kind == ColumnKind.COMPLEX
    np.testing.assert_array_equal(col.values, oracle)
    assert objects.node(location).type.type_class == "complex"
    assert cell_text(col.kind, np.complex64(1 + 2j)) == "1+2j"
    assert complex(cell_text(col.kind, np.complex128(3 - 4j))) == 3 - 4j


# -- text ----------------------------------------------------------------------------
def test_fixed_and_variable_strings_are_decoded_and_invalid_utf8_is_escaped(objects):
    fixed = _col(objects, "/str/fixed_ascii")
    assert fixed.values.tolist() == ["ab", "c\\xff", "hello"]
    assert fixed.escaped.tolist() == [False, True, False]
    vlen = _col(objects, "/str/vlen_utf8")
    assert vlen.values.tolist() == ["a", "é€", "bad\\xff\\xfeend", ""]
    assert vlen.escaped.tolist() == [False, False, True, False]
    for text in vlen.values.tolist() + fixed.values.tolist():
        text.encode("utf-8")  # never a lone surrogate
    assert objects.node("/str/vlen_utf8").read().escaped_count == 1
    assert _col(objects, "/str/fixed_utf8").values.tolist() == ["é", "z"]
    assert _col(objects, "/str/vlen_ascii").values.tolist() == ["plain", "x"]
    assert _col(objects, "/str/scalar").values[()] == "only one"


def test_string_storage_is_described(objects):
    fixed = objects.node("/str/fixed_ascii").type.string
    assert (fixed.storage, fixed.charset, fixed.padding, fixed.length) == (
        "fixed", "ascii", "null-padded", 5)
    spaced = objects.node("/str/space_padded")
    assert spaced.type.string.padding == "space-padded"
    assert _col(objects, "/str/space_padded").values.tolist() == ["ab", "xyz"]
    vlen = objects.node("/str/vlen_utf8").type
    assert (vlen.string.storage, vlen.string.charset, vlen.variable_length) == (
        "variable", "utf-8", True)


# -- compound, enum, references --------------------------------------------------------
def test_compound_fields_become_columns_with_dotted_names(objects, every_type):
    node = objects.node("/compound/table")
    labels = [c.label for c in node.columns]
    assert labels == ["id", "pos.x", "pos.y", "arr[0]", "arr[1]", "arr[2]", "name", "col",
                      "flag", "z", "wide"]
    values = node.read()
    with h5py.File(every_type) as f:
        oracle = f["/compound/table"][()]
    np.testing.assert_array_equal(values.column("id").values, oracle["id"])
    np.testing.assert_array_equal(values.column("pos.x").values, oracle["pos"]["x"])
    np.testing.assert_array_equal(values.column("pos.y").values, oracle["pos"]["y"])
    assert values.column("pos.y").values.dtype.isnative
    np.testing.assert_array_equal(values.column("arr[2]").values, oracle["arr"][:, 2])
    assert values.column("name").values.tolist() == ["hé", "x\\xff", ""]
    assert values.column("col").values.tolist() == ["B", "A", "B"]
    assert values.column("flag").kind == ColumnKind.BOOL
    np.testing.assert_array_equal(values.column("z").values, oracle["z"])
    wide = values.column("wide")  # 100 elements: one column of lists
    assert wide.kind == ColumnKind.SEQUENCE and wide.values[0] == list(range(100))
    fields = [f.name for f in node.type.fields]
    assert fields == list(oracle.dtype.names)
    assert node.type.fields[1].type.fields[1].type.byte_order == "big-endian"
    assert [f.offset for f in node.type.fields] == [oracle.dtype.fields[n][1] for n in fields]


def test_enum_labels_and_mapping(objects):
    node = objects.node("/enum")
    assert dict(node.type.members) == COLOURS
    col = node.read().column("")
    assert col.kind == ColumnKind.ENUM
    assert col.values.tolist() == ["RED", "GREEN", "BLUE", "3"]  # 3 has no label


def test_references_become_target_paths(objects, every_type):
    col = _col(objects, "/refs/objects")
    assert col.values.tolist() == ["/enum", "/compound", None]
    regions = _col(objects, "/refs/regions")
    assert regions.values.tolist() == ["/num/f8be[0:2, 1:2]", "/num/i1[1:3]"]
    with h5py.File(every_type) as f:
        for ref, text in zip(f["/refs/regions"][()], regions.values.tolist(), strict=True):
            assert text.startswith(f[ref].name)
        assert f[f["/refs/objects"][0]].name == col.values[0]
    assert objects.node("/refs/regions").type.reference == "region"


def test_opaque_time_vlen_and_array_of_array(objects, every_type):
    assert _col(objects, "/opaque").values.tolist() == ["010203", "ff0010"]
    assert _col(objects, "/time").values.tolist() == ["2020-01-02T03:04:05", "NaT"]
    ints = _col(objects, "/vlen/ints")
    assert ints.kind == ColumnKind.SEQUENCE and ints.values.tolist() == [[1, 2, 3], [], [-7]]
    floats = _col(objects, "/vlen/floats")
    assert cell_text(floats.kind, floats.values[1]) == '["NaN"]'
    node = objects.node("/array_of_array")
    assert node.type.dims == (3,) and node.type.base.dims == (2,)
    assert [c.label for c in node.columns] == [f"[{i}][{j}]" for i in range(3) for j in range(2)]
    with h5py.File(every_type) as f:
        oracle = f["/array_of_array"][()]
    values = node.read()
    for c in values.columns:
        i, j = (int(x) for x in c.name.strip("[]").split("]["))
        np.testing.assert_array_equal(c.values, oracle[:, i, j])


# -- shapes, attributes, locations ------------------------------------------------------
def test_scalar_and_null_dataspaces(objects):
    scalar = objects.node("/scalar")
    assert scalar.shape == () and scalar.read().shape == ()
    assert scalar.read().column("").values[()] == 2.5
    null = objects.node("/null")
    assert null.is_null and null.read().shape is None and null.read().size == 0
    assert objects.node("/compound@null").is_null
    assert objects.node("/empty").read().column("").values.shape == (0,)


def test_attributes_are_nodes_too(objects, every_type):
    m = objects.node("/compound@matrix")
    assert m.kind == "attribute" and m.shape == (2, 3) and m.type.byte_order == "big-endian"
    np.testing.assert_array_equal(m.read((slice(None), 1)).column("").values, [1, 4])
    assert m.storage.layout == "attribute"
    assert objects.node("/compound@text").read().column("").values[()] == "héllo"
    assert objects.node("/compound@strings").read().column("").values.tolist() == ["a", "bc"]
    assert objects.node("/compound@colour").read().column("").values.tolist() == ["BLUE", "RED"]
    point = objects.node("/compound@point").read()
    assert [c.name for c in point.columns] == ["x", "y"] and point.column("y").values[0] == 2
    assert objects.node("/compound@ref").read().column("").values[()] == "/enum"
    assert objects.node("/@root_scalar").read().column("").values[()] == 42
    assert objects.node("@root_scalar") is not None


def test_missing_locations_and_groups_are_none(objects):
    for location in ("/nope", "/compound", "/", "/compound@nope", "/nope@x", ""):
        assert objects.node(location) is None, location


def test_links_are_described(objects):
    node = objects.node("/links/soft")
    assert node.storage.link.kind == "soft" and node.storage.link.target == "/num/i1"
    assert node.read().column("").values.tolist() == [-128, 0, 127]
    assert objects.node("/num/i1").storage.link.kind == "hard"


def test_storage_layout_chunks_filters_and_fill_value(objects):
    img = objects.node("/image")
    s = img.storage
    assert (s.layout, s.chunks) == ("chunked", (2, 2))
    assert [f.name for f in s.filters] == ["shuffle", "gzip"] and all(f.available
                                                                     for f in s.filters)
    assert s.filters[1].params == (4,)
    assert s.fill_value.startswith("-1.0")
    assert objects.node("/cube").storage.layout == "contiguous"
    assert objects.node("/scalar").storage.layout in ("contiguous", "compact")


def test_names_with_invalid_utf8_are_found_by_their_escaped_location(tmp_path):
    path = tmp_path / "names.h5"
    with h5py.File(path, "w") as f:
        gid = f.id
        space = h5py.h5s.create_simple((2,))
        h5py.h5d.create(gid, b"bad\xffname", h5py.h5t.STD_I32LE, space)
    with open_document(path) as doc:
        node = doc.object_data.node("/bad\\xffname")
        assert node is not None and node.read().column("").values.tolist() == [0, 0]


def test_external_link_and_virtual_dataset(tmp_path):
    src = tmp_path / "src.h5"
    with h5py.File(src, "w") as f:
        f["data"] = np.arange(5, dtype="<i4")
    main = tmp_path / "main.h5"
    with h5py.File(main, "w") as f:
        f["ext"] = h5py.ExternalLink(src.name, "/data")
        layout = h5py.VirtualLayout((5,), dtype="<i4")
        layout[:] = h5py.VirtualSource(src.name, "data", shape=(5,))
        f.create_virtual_dataset("vds", layout)
    with open_document(main) as doc:
        ext = doc.object_data.node("/ext")
        assert ext.storage.link.kind == "external"
        assert ext.storage.link.target == "src.h5:/data"
        assert ext.read().column("").values.tolist() == [0, 1, 2, 3, 4]
        vds = doc.object_data.node("/vds")
        assert vds.storage.layout == "virtual"
        assert vds.storage.virtual_sources == ("src.h5:data",)


def test_unreadable_values_are_a_finding(tmp_path):
    path = tmp_path / "ext.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("raw", (10,), dtype="<i4", external=[("missing.bin", 0, 40)])
    with open_document(path) as doc:
        node = doc.object_data.node("/raw")
        assert node.storage.external == (("missing.bin", 0, 40),)
        with pytest.raises(NodeReadError) as err:
            node.read()
        assert err.value.finding.code == "external.missing"  # never asked of HDF5
        assert err.value.finding.location == "/raw"
        assert path.name not in err.value.finding.message


# -- bounded reads ------------------------------------------------------------------------
def test_reads_are_bounded_and_paged(tmp_path):
    path = tmp_path / "big.h5"
    n = MAX_READ_VALUES + 10
    with h5py.File(path, "w") as f:
        f.create_dataset("big", shape=(n,), dtype="<u1", chunks=(1 << 16,))
    with open_document(path) as doc:
        node = doc.object_data.node("/big")
        with pytest.raises(SelectionTooLarge):
            node.read()
        assert node.read(slice(n - 3, None)).column("").values.tolist() == [0, 0, 0]
        norm = normalize(Ellipsis, node.shape)
        parts = list(pages(norm, node.read_cap))
        assert len(parts) == 2 and sum(math.prod(selected_shape(p)) for p in parts) == n


def test_pages_cover_the_selection_in_c_order():
    norm = normalize((slice(None), slice(1, None, 2), 3), (5, 7, 4))
    got = [selected_shape(p) for p in pages(norm, 6)]
    assert sum(math.prod(s) for s in got) == 5 * 3
    assert all(math.prod(s) <= 6 for s in got)
    tiny = list(pages(norm, 2))  # rows of 3 do not fit: one page per index of axis 0
    assert all(math.prod(selected_shape(p)) <= 2 for p in tiny)


def test_selection_text_parsing():
    assert parse_selection("0:10, ::2, 5, ...") == (slice(0, 10), slice(None, None, 2), 5,
                                                    Ellipsis)
    assert parse_selection("[3,]") == (3,) and parse_selection("") == ()
    with pytest.raises(ValueError):
        parse_selection("__import__('os')")
    assert normalize(parse_selection("-1"), (4,)) == (3,)
    with pytest.raises(IndexError):
        normalize((4,), (4,))


def test_negative_steps_read_backwards(objects):
    assert _col(objects, "/num/i1", selection=slice(None, None, -1)).values.tolist() == [
        127, 0, -128]
    cube = objects.node("/cube").read((1, slice(None, None, -2), slice(3, 0, -1)))
    np.testing.assert_array_equal(cube.column("").values,
                                  np.arange(24).reshape(2, 3, 4)[1, ::-2, 3:0:-1])


# -- image sampling -----------------------------------------------------------------------
def test_image_plan_uses_screen_steps_when_cheap():
    plan = image_plan(range(1000), range(2000), (500, 500), (100, 100), (0, 1), 4)
    assert plan.cell == (2, 4) and not plan.coarse
    assert len(plan.rows) == 500 and len(plan.cols) == 500


def test_image_plan_skips_chunks_beyond_its_budget():
    n = 20_000
    plan = image_plan(range(n), range(n), (800, 1000), (500, 500), (0, 1), 4,
                      budget=64 << 20)
    assert plan.coarse and plan.touched_bytes <= 64 << 20
    assert plan.rows.step % 500 == 0 and plan.cols.step % 500 == 0
    whole = n * n * 4
    assert plan.touched_bytes < whole / 4
    plan = image_plan(range(n), range(n), (800, 1000), None, (0, 1), 4)
    assert not plan.coarse and plan.touched_bytes <= 800 * 1000 * 4


# -- chunks decoded in parallel ------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["<f4", ">i2", "<u8"])
@pytest.mark.parametrize("shuffle", [True, False])
def test_parallel_chunk_reads_equal_hdf5(tmp_path, dtype, shuffle):
    from inspector.formats.hdf5.strided import (
        existing_chunks,
        fast_layout,
        parallel_read,
    )

    path = tmp_path / "tiles.h5"
    data = (np.arange(120 * 90).reshape(120, 90) % 251).astype(dtype)
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("a", (120, 90), dtype=dtype, chunks=(16, 20), compression="gzip",
                              shuffle=shuffle, fillvalue=7)
        ds[:64] = data[:64]  # the chunks below row 64 stay unallocated (fill value 7)
        f.create_dataset("plain", data=data, chunks=(16, 20))
        f.create_dataset("lzf", data=data, chunks=(16, 20), compression="lzf")
    with h5py.File(path) as f:
        ds = f["a"]
        layout = fast_layout(ds)
        assert layout is not None and fast_layout(f["plain"]) is not None
        assert fast_layout(f["lzf"]) is None  # another filter: HDF5 decodes it
        box = (slice(3, 117, 5), slice(1, 89, 3))
        got = parallel_read(ds, layout, box, existing_chunks(ds, layout))
        np.testing.assert_array_equal(got, ds[box])
        assert got.dtype == np.dtype(dtype) and (got[-1] == 7).all()
        assert existing_chunks(f["plain"], fast_layout(f["plain"])) is None  # all stored
        np.testing.assert_array_equal(parallel_read(ds, layout, (slice(0, 120), slice(0, 90)),
                                                    None), ds[()])
        assert parallel_read(ds, layout, (slice(0, 10), slice(0, 10)), None) is None  # 1 chunk


def test_node_reads_take_the_parallel_path_and_match_h5py(tmp_path, monkeypatch):
    from inspector.formats.hdf5 import strided as hdf5_strided

    path = tmp_path / "img.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("img", data=np.random.default_rng(3).normal(size=(300, 400))
                         .astype(">f8"), chunks=(32, 32), compression="gzip", shuffle=True)
    calls = []
    real = hdf5_strided.parallel_read
    monkeypatch.setattr("inspector.formats.hdf5.data.parallel_read",
                        lambda *a: calls.append(a[2]) or real(*a))
    with open_document(path) as doc, h5py.File(path) as f:
        node = doc.object_data.node("/img")
        values = node.read((slice(5, None, 7), slice(None, None, -9))).column("").values
        np.testing.assert_array_equal(values, f["img"][()][5::7, ::-9])
        assert values.dtype.isnative and calls
