"""HDF5 files of other kinds (NWB, MATLAB 7.3, AnnData, NeXus, PyTables) open as HDF5 files.

Each fixture is written here with h5py, mimicking the layout its own library
writes (root attributes, groups, the MATLAB user block); none is a VneuroTK
recording by the format document's rules (seed 000, "Format header" and
"Compatibility policy": a header attribute, or a schema-0 recording's neural
data and the attributes written with it).  The boundary cases between a
historical (schema 0) recording, which has no header at all, and any other
HDF5 file are checked one by one, with vneurotk 0.0.1's own reader as the
oracle where it can load a file.
"""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.findings import Severity
from inspector.formats.hdf5 import READER as HDF5_READER
from inspector.formats.registry import open_filters
from inspector.formats.vneurotk import READER as RECORDING_READER
from tests.conftest import FIXTURES

CORPUS = FIXTURES / "vneurotk"
MATLAB_HEADER = (b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Sun Dec  6 10:00:00 "
                 b"2026 HDF5 schema 1.00 .")


def write_nwb(path: Path) -> Path:
    """The layout pynwb writes: root attributes naming the NWB version and type, the
    top-level groups, and an ElectricalSeries-like time series under /acquisition."""
    with h5py.File(path, "w") as f:
        f.attrs.update({"nwb_version": "2.7.0", "namespace": "core",
                        "neurodata_type": "NWBFile", "object_id": "0b5e0c1e-0000"})
        for name in ("analysis", "general", "processing", "stimulus/presentation",
                     "stimulus/templates", "specifications/core/2.7.0"):
            f.create_group(name)
        for name, value in (("identifier", "abc"), ("session_description", "test"),
                            ("session_start_time", "2026-12-06T10:00:00+00:00"),
                            ("timestamps_reference_time", "2026-12-06T10:00:00+00:00")):
            f[name] = value
        f["file_create_date"] = np.array(["2026-12-06T10:00:00+00:00"],
                                         dtype=h5py.string_dtype())
        ts = f.create_group("acquisition/ElectricalSeries")
        ts.attrs.update({"neurodata_type": "ElectricalSeries", "namespace": "core"})
        data = ts.create_dataset("data", data=np.sin(np.arange(200.0) / 10).reshape(100, 2),
                                 chunks=(50, 2), compression="gzip")
        data.attrs.update({"unit": "volts", "conversion": 1.0})
        ts["timestamps"] = np.arange(100) / 1000.0
    return path


def write_matlab(path: Path) -> Path:
    """A MATLAB 7.3 MAT-file: a 512-byte user block holding MATLAB's 128-byte text header,
    then HDF5 with a MATLAB_class attribute on every variable."""
    with h5py.File(path, "w", userblock_size=512) as f:
        x = f.create_dataset("x", data=np.arange(12.0).reshape(3, 4))
        x.attrs["MATLAB_class"] = np.bytes_("double")
        s = f.create_group("s")
        s.attrs["MATLAB_class"] = np.bytes_("struct")
        s.create_dataset("n", data=np.array([[7]], dtype="<u1")).attrs["MATLAB_class"] = \
            np.bytes_("uint8")
    header = MATLAB_HEADER.ljust(116, b" ") + b"\0" * 8 + b"\x00\x02" + b"IM"
    with open(path, "r+b") as fh:
        fh.write(header)
    return path


def write_anndata(path: Path) -> Path:
    """The layout of anndata's .h5ad: encoding-type attributes on the root and each part."""
    with h5py.File(path, "w") as f:
        f.attrs.update({"encoding-type": "anndata", "encoding-version": "0.1.0"})
        f.create_dataset("X", data=np.arange(20.0, dtype="<f4").reshape(5, 4))
        for part, n in (("obs", 5), ("var", 4)):
            g = f.create_group(part)
            g.attrs.update({"encoding-type": "dataframe", "encoding-version": "0.2.0",
                            "_index": "_index", "column-order": np.array([], dtype="S")})
            g["_index"] = np.array([f"{part}{i}" for i in range(n)], dtype=h5py.string_dtype())
        for part in ("layers", "obsm", "obsp", "varm", "varp", "uns"):
            f.create_group(part).attrs.update({"encoding-type": "dict",
                                               "encoding-version": "0.1.0"})
    return path


def write_nexus(path: Path) -> Path:
    """A NeXus file: NX_class attributes (NXroot, NXentry, NXdata with its signal)."""
    with h5py.File(path, "w") as f:
        f.attrs.update({"NX_class": "NXroot", "file_name": path.name,
                        "HDF5_Version": h5py.version.hdf5_version})
        entry = f.create_group("entry")
        entry.attrs["NX_class"] = "NXentry"
        entry["title"] = "scan"
        data = entry.create_group("data")
        data.attrs.update({"NX_class": "NXdata", "signal": "counts", "axes": "x"})
        data["counts"] = np.arange(10, dtype="<i4") ** 2
        data["x"] = np.linspace(0, 1, 10)
    return path


def write_pytables(path: Path) -> Path:
    """PyTables' layout: CLASS/TITLE/VERSION attributes on the root, a table and an array."""
    with h5py.File(path, "w") as f:
        f.attrs.update({"CLASS": np.bytes_("GROUP"), "TITLE": np.bytes_(""),
                        "VERSION": np.bytes_("1.0"), "PYTABLES_FORMAT_VERSION": np.bytes_("2.1")})
        rows = np.zeros(4, dtype=[("t", "<f8"), ("v", "<i4")])
        rows["t"], rows["v"] = np.arange(4) / 10, np.arange(4)
        table = f.create_dataset("readout", data=rows, chunks=(4,))
        table.attrs.update({"CLASS": np.bytes_("TABLE"), "VERSION": np.bytes_("2.7"),
                            "TITLE": np.bytes_("readout"), "FIELD_0_NAME": np.bytes_("t"),
                            "FIELD_1_NAME": np.bytes_("v"), "NROWS": np.int64(4)})
        arr = f.create_dataset("gain", data=np.arange(6.0))
        arr.attrs.update({"CLASS": np.bytes_("ARRAY"), "VERSION": np.bytes_("2.4"),
                          "TITLE": np.bytes_("")})
    return path


KINDS = {"nwb": (write_nwb, "session.nwb"), "matlab": (write_matlab, "vars.mat"),
         "anndata": (write_anndata, "cells.h5ad"), "nexus": (write_nexus, "scan.nxs"),
         "pytables": (write_pytables, "table.h5")}


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kinds")
    return {k: write(folder / name) for k, (write, name) in KINDS.items()}


def _objects(path: Path) -> tuple[int, int]:
    with h5py.File(path, "r") as f:
        found: list[object] = []
        f.visititems(lambda _n, o: found.append(o))
        groups = sum(isinstance(o, h5py.Group) for o in found)
        return groups, len(found) - groups


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_opens_as_an_hdf5_file_with_a_note(kinds, kind):
    path = kinds[kind]
    assert not RECORDING_READER.sniff(path) and HDF5_READER.sniff(path)
    with open_document(path) as doc:
        assert (doc.format, doc.kind_label, doc.ok) == ("hdf5", "HDF5 file", True)
        assert doc.mismatch is None and doc.trials is None and doc.arrays == {}
        assert [(f.code, f.severity, f.location) for f in doc.findings] == [
            ("format.container-only", Severity.INFO, "/")]
        note = doc.findings.as_list()[0].message
        assert note.startswith("read as HDF5 file: not a VneuroTK recording: no VneuroTK "
                               "header (root attribute vneurotk_format")
        groups, datasets = _objects(path)
        assert (doc.summary["groups"], doc.summary["datasets"]) == (groups, datasets)
        with h5py.File(path, "r") as f:
            assert doc.summary["root_attributes"] == len(f.attrs)
            assert doc.summary.get("userblock_bytes", 0) == f.userblock_size
        with h5py.File(path, "r") as f:
            names: list[str] = []
            f.visititems(lambda n, o: names.append("/" + n) if isinstance(o, h5py.Dataset)
                         else None)
        assert {n.location for n in doc.tree.walk() if n.kind == "dataset"} == set(names)


def test_matlab_keeps_its_header_in_the_user_block(kinds):
    with open(kinds["matlab"], "rb") as fh:
        assert fh.read(19) == b"MATLAB 7.3 MAT-file"
    with open_document(kinds["matlab"]) as doc:
        assert doc.summary["userblock_bytes"] == 512
        x = doc.object_data.node("/x")
        with h5py.File(kinds["matlab"], "r") as f:
            np.testing.assert_array_equal(x.read().columns[0].values, f["x"][()])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_verify_json_says_hdf5_ok_and_why_it_is_no_recording(kinds, kind, capsys):
    assert main(["verify", "--json", str(kinds[kind])]) == 0
    got = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (got["format"], got["ok"]) == ("hdf5", True)
    assert [(f["code"], f["severity"]) for f in got["findings"]] == [
        ("format.container-only", "info")]
    assert "not a VneuroTK recording" in got["findings"][0]["message"]


def test_dumping_a_group_lists_its_members_and_attributes(kinds, capsys):
    capsys.readouterr()
    target = f"{kinds['nwb']}::/acquisition/ElectricalSeries"
    assert main(["dump", "--format", "json", target]) == 0
    got = json.loads(capsys.readouterr().out)
    with h5py.File(kinds["nwb"], "r") as f:
        g = f["acquisition/ElectricalSeries"]
        assert got["location"] == "/acquisition/ElectricalSeries" and got["kind"] == "group"
        members = {m["name"]: m for m in got["members"]}
        assert set(members) == set(g) | set(g.attrs)
        assert {n: members[n]["value"] for n in g.attrs} == {
            n: g.attrs[n] for n in g.attrs}
        assert members["data"]["kind"] == "dataset" and members["data"]["location"] == \
            "/acquisition/ElectricalSeries/data"
    assert main(["dump", f"{kinds['nwb']}::/"]) == 0  # the root, as CSV rows
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "name,kind,location,detail,value"
    with h5py.File(kinds["nwb"], "r") as f:
        assert len(lines) - 1 == len(f) + len(f.attrs)
    assert main(["dump", "--format", "npy", "--out", "/dev/null",
                 f"{kinds['nwb']}::/acquisition"]) == 2  # a group has no array


# -- the boundary between a historical (schema 0) recording and any HDF5 file -----------
def _write(path: Path, attrs: dict, datasets: dict) -> Path:
    with h5py.File(path, "w") as f:
        f.attrs.update(attrs)
        for name, value in datasets.items():
            f[name] = value
    return path


NEURO = np.arange(24.0, dtype="<f4").reshape(12, 2)
BOUNDARY = {
    # (root attributes, root datasets) -> format, ok, the error code when not ok
    "neuro_alone": ({}, {"neuro": NEURO}, "vneurotk-recording", True, None),
    "neuro_format_without_neuro": ({"neuro_format": "dense"}, {"x": NEURO},
                                   "vneurotk-recording", False, "neuro.missing"),
    "data_mode_with_trials": ({"data_mode": "continuous"},
                              {"trial": np.zeros(12, dtype="<i8")}, "vneurotk-recording",
                              False, "neuro.missing"),
    "data_mode_alone": ({"data_mode": "continuous"}, {"x": NEURO}, "hdf5", True, None),
    "coo_rows": ({}, {"neuro_row": np.arange(3)}, "vneurotk-recording", False, None),
    "wrong_magic": ({"vneurotk_format": "recordings", "vneurotk_schema_version": 1},
                    {"x": NEURO}, "vneurotk-recording", False, "header.wrong-magic"),
    "version_only": ({"vneurotk_schema_version": 1}, {"neuro": NEURO}, "vneurotk-recording",
                     False, "header.partial"),
    "unrelated_names": ({"format": "recording", "schema_version": 1},
                        {"neural": NEURO, "trials": np.arange(3)}, "hdf5", True, None),
}


@pytest.mark.parametrize("case", sorted(BOUNDARY))
def test_what_makes_an_hdf5_file_a_recording(tmp_path, case):
    attrs, datasets, fmt, ok, code = BOUNDARY[case]
    path = _write(tmp_path / f"{case}.h5", attrs, datasets)
    with open_document(path) as doc:
        assert (doc.format, doc.ok) == (fmt, ok), [f.to_json() for f in doc.findings]
        errors = {f.code for f in doc.findings if f.severity is Severity.ERROR}
        if code is not None:
            assert code in errors
        if fmt == "hdf5":
            assert [f.code for f in doc.findings] == ["format.container-only"]
        else:
            assert "format.container-only" not in {f.code for f in doc.findings}


def test_the_reference_reader_loads_a_bare_neuro_file_as_schema_0(tmp_path):
    """Oracle: vneurotk 0.0.1 reads a file holding /neuro alone (schema 0 defaults), and
    refuses one without it, which is why the second is no recording but an HDF5 file."""
    vneurotk = pytest.importorskip("vneurotk")
    bare = _write(tmp_path / "bare.h5", {}, {"neuro": NEURO})
    data = vneurotk.read(bare)
    assert tuple(data.neuro.shape) == NEURO.shape
    plain = _write(tmp_path / "plain.h5", {"data_mode": "continuous"}, {"x": NEURO})
    with pytest.raises(KeyError):
        vneurotk.read(plain)


@pytest.mark.slow
def test_corpus_through_the_registry():
    """Every corpus file keeps its verdict; the two files that are no recording at all
    (plain_unrelated, external_link_target) are HDF5 files, ok; a truncated file is an
    HDF5 file that cannot be opened."""
    expected = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
    plain = {"edited/plain_unrelated.h5", "edited/external_link_target.h5"}
    for e in expected:
        with open_document(CORPUS / e["file"]) as doc:
            if e["file"] in plain:
                assert (doc.format, doc.ok) == ("hdf5", True), e["file"]
            elif e["file"].endswith(("not_hdf5.h5", ".png")):
                assert (doc.format, doc.ok) == ("unknown", False), e["file"]
            elif e["file"].endswith("truncated_half.h5"):
                assert (doc.format, doc.ok) == ("hdf5", False)
                assert [f.code for f in doc.findings] == ["file.truncated"]
            else:
                assert (doc.format, doc.ok) == ("vneurotk-recording", e["valid"]), e["file"]


# -- filters and links a plain file may need -------------------------------------------
def test_a_dataset_needing_an_uninstalled_filter_is_a_warning_naming_it(tmp_path, capsys):
    path = tmp_path / "blosc.h5"
    with h5py.File(path, "w") as f:
        d = f.create_dataset("x", shape=(4,), dtype="<f4", chunks=(4,), compression=32001,
                             allow_unknown_filter=True)
        d.id.write_direct_chunk((0,), np.arange(4, dtype="<f4").tobytes())
        f["y"] = np.arange(3)
    if h5py.h5z.filter_avail(32001):
        pytest.skip("a blosc filter is installed here")  # the check needs it missing
    with open_document(path) as doc:
        assert (doc.format, doc.ok) == ("hdf5", True)
        warn = [f for f in doc.findings if f.severity is Severity.WARNING]
        assert [(f.code, f.location) for f in warn] == [("data.filter-unavailable", "/x")]
        assert "blosc (HDF5 filter 32001)" in warn[0].message
        np.testing.assert_array_equal(doc.object_data.node("/y").read().columns[0].values,
                                      np.arange(3))
        with pytest.raises(OSError, match=r"blosc \(HDF5 filter 32001\)"):  # a plot's read
            doc.object_data.node("/x").array_ref().read()
    capsys.readouterr()
    assert main(["dump", f"{path}::/x"]) == 1
    err = capsys.readouterr().err
    assert "data.unreadable" in err and "blosc (HDF5 filter 32001)" in err
    assert "plugin" not in err.replace("hdf5plugin", "")  # not HDF5's plugin-path message


def test_an_external_link_that_cannot_be_followed_is_a_warning(tmp_path):
    path = tmp_path / "linked.nxs"
    write_nexus(path)
    with h5py.File(path, "a") as f:
        f["entry/detector"] = h5py.ExternalLink("detector_000001.h5", "/entry/data")
    with open_document(path) as doc:
        assert (doc.format, doc.ok) == ("hdf5", True)
        warn = [f for f in doc.findings if f.severity is Severity.WARNING]
        assert [(f.code, f.location) for f in warn] == [
            ("link.external-unresolved", "/entry/detector")]
        assert "detector_000001.h5" in warn[0].message


# -- the Open dialog ----------------------------------------------------------------------
def test_the_open_filter_lists_every_hdf5_kind_from_the_registry():
    from inspector.ui.main_window import file_filter

    entries = file_filter().split(";;")
    assert ("HDF5 files", HDF5_READER.file_patterns) in open_filters()
    for pattern in ("*.h5", "*.hdf5", "*.he5", "*.nwb", "*.nxs", "*.h5ad", "*.mat"):
        assert pattern in HDF5_READER.file_patterns
        assert pattern in entries[0].split("(", 1)[1]  # "Inspector files (...)" first
    assert f"HDF5 files ({' '.join(HDF5_READER.file_patterns)})" in entries
    ui = Path(__file__).parents[1] / "inspector" / "ui"
    hard_coded = [p for p in ui.rglob("*.py") if "*.nwb" in p.read_text(encoding="utf-8")]
    assert hard_coded == []


# -- the window -----------------------------------------------------------------------------
def test_the_window_shows_an_nwb_file_as_an_hdf5_file(qtbot, kinds):
    from inspector.ui.data.curve import CurveView
    from inspector.ui.data.image import ImageView
    from inspector.ui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    win.open_paths([str(kinds["nwb"])])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=30000)
    tab = win.current_tab()
    qtbot.waitUntil(lambda: tab.viewer is not None, timeout=30000)
    i = win.tabs.indexOf(tab)
    assert tab.failure is None and win.tabs.tabIcon(i).isNull()
    assert tab.status_text.startswith("HDF5 file") and "error" not in tab.status_text
    codes = [win.findings.model.finding(r)[1].code for r in range(win.findings.model.rowCount())]
    assert codes == ["format.container-only"]  # no recording findings
    assert tab.header_panel.select_location("/acquisition/ElectricalSeries/timestamps",
                                            prefer_raw=True)
    panel = tab.viewer.data
    qtbot.waitUntil(lambda: panel.node is not None and isinstance(panel.view, CurveView)
                    and panel.node.location == "/acquisition/ElectricalSeries/timestamps",
                    timeout=20000)
    assert tab.header_panel.select_location("/acquisition/ElectricalSeries/data",
                                            prefer_raw=True)
    qtbot.waitUntil(lambda: panel.node is not None
                    and panel.node.location == "/acquisition/ElectricalSeries/data"
                    and isinstance(panel.view, (CurveView, ImageView)), timeout=20000)


# -- files written by other programs -----------------------------------------------------
@pytest.mark.parametrize(("name", "userblock"), [("testhdf5_7.4_GLNX86.mat", 512),
                                                 ("vlen_string_dset.h5", 0)])
def test_files_written_by_other_programs_are_hdf5_files(name, userblock):
    path = FIXTURES / "hdf5" / name
    with open_document(path) as doc, h5py.File(path, "r") as f:
        assert (doc.format, doc.ok) == ("hdf5", True)
        assert [f.code for f in doc.findings] == ["format.container-only"]
        assert doc.summary.get("userblock_bytes", 0) == f.userblock_size == userblock
        (name_, ds), = f.items()
        values = doc.object_data.node(f"/{name_}").read().columns[0].values
        assert values.shape == ds.shape
        if ds.dtype.kind == "f":
            np.testing.assert_array_equal(values, ds[()])
        else:
            assert list(values.ravel()) == [v.decode() for v in ds[()].ravel()]


def test_a_file_open_twice_keeps_its_guards_until_both_close(tmp_path):
    """HDF5 opens a file already open in the process as the same file: closing one
    document of it (or the recording reader's look at its root) must not end the other's
    guards (here: variable-length values read in pages sized from their descriptors)."""
    from inspector.formats.hdf5 import heap

    path = tmp_path / "v.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("s", data=["a" * 100_000] * 20, dtype=h5py.string_dtype())
    sized = heap.MAX_READ_BYTES // 100_000
    with open_document(path) as first:
        with open_document(path) as second:
            assert second.object_data.node("/s").read_cap == sized
        assert first.object_data.node("/s").read_cap == sized
        assert RECORDING_READER.sniff(path) is False
        assert first.object_data.node("/s").read_cap == sized
