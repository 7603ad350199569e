"""Data an HDF5 file names in other files are read only inside the document's bounds.

External storage (H5Pset_external), virtual-dataset sources and external links: from
a URL nothing else is read; locally only regular files inside the document's folder
tree, or inside a folder allowed with ``--allow-external`` / the window's action.
Pipes, devices, sockets, missing files, the document itself and recursive virtual
datasets are findings and never reach HDF5.  Every secret written outside the
document's folder holds :data:`MARKER`, which must reach no report, view or dump.
h5py reading the same files directly is the oracle of the values that are allowed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.cli import main
from inspector.formats import open_document
from inspector.formats.hdf5 import external_guard
from inspector.formats.nodes.data import NodeReadError
from inspector.formats.sources.folder_bounds import allow_hint, allowable_folder, forget_allowed
from tests.range_server import RangeServer

MARKER = b"EXTERNAL-TEST-SECRET-31d5"
WIDTH = 32

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


@pytest.fixture(autouse=True)
def _no_allowance():
    forget_allowed()
    yield
    forget_allowed()


@pytest.fixture
def secret(tmp_path) -> Path:
    """A secret outside the document folder (``tmp_path/doc``)."""
    path = tmp_path / "elsewhere" / "secret.bin"
    path.parent.mkdir()
    path.write_bytes(MARKER.ljust(WIDTH, b".") * 8)
    return path


def stored_in(path: Path, target: str, count: int = 8, dtype: str = f"S{WIDTH}") -> Path:
    """An HDF5 file at ``path`` whose ``/x`` is stored (H5Pset_external) in ``target``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    size = count * np.dtype(dtype).itemsize
    with h5py.File(path, "w") as f:
        f.create_dataset("x", (count,), dtype, external=[(target, 0, size)])
        f["plain"] = np.arange(4)
    return path


def codes_at(doc, location: str) -> list[str]:
    return [f.code for f in doc.findings if f.location == location]


def leaked(*texts: str | bytes) -> bool:
    return any(MARKER in (t if isinstance(t, bytes) else t.encode()) for t in texts)


def dump(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["dump", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


# -- point 1: outside the folder ---------------------------------------------------------
def test_external_storage_outside_the_folder_is_refused_everywhere(tmp_path, secret, capsys):
    path = stored_in(tmp_path / "doc" / "leak.h5", str(secret))
    with open_document(path) as doc:
        doc.verify()
        assert codes_at(doc, "/x") == ["external.outside"]
        finding = next(f for f in doc.findings if f.location == "/x")
        assert str(secret) in finding.message and allowable_folder(finding.message) == str(
            secret.parent)
        node = doc.tree.find("/x")
        assert "values not read" in node.detail and str(secret) in node.detail
        with pytest.raises(NodeReadError) as err:
            doc.object_data.node("/x").read()
        assert err.value.finding.code == "external.outside"
        assert not leaked(json.dumps(doc.to_json(), default=str), err.value.finding.message)
        assert doc.object_data.node("/plain").read().columns[0].values.tolist() == [0, 1, 2, 3]
    status, out, err = dump(capsys, f"{path}::/x")
    assert status == 1 and "external.outside" in err and not leaked(out, err)


def test_allowing_the_folder_reads_it_and_says_where_values_come_from(tmp_path, secret, capsys):
    path = stored_in(tmp_path / "doc" / "leak.h5", str(secret))
    status, out, err = dump(capsys, "--allow-external", str(secret.parent), f"{path}::/x")
    assert status == 0 and leaked(out)  # named explicitly: read
    assert f"read from another file: {secret}" in err
    with h5py.File(path) as f:  # the oracle
        expected = f["x"][()]
    with open_document(path) as doc:  # the process now allows it (--allow-external)
        values = doc.object_data.node("/x").read().columns[0].values
        assert [v.encode() if isinstance(v, str) else v for v in values] == list(expected)
        assert "external.outside" not in codes_at(doc, "/x")
        assert "external.storage" in codes_at(doc, "/x")
        assert f"values from another file: {secret}" in doc.tree.find("/x").detail
        assert str(secret) in doc.object_data.node("/x").storage.other_files


@pytest.mark.parametrize("how", ["dotdot", "symlink"])
def test_a_way_out_of_the_folder_is_outside(tmp_path, secret, how):
    doc_dir = tmp_path / "doc"
    doc_dir.mkdir()
    if how == "symlink":
        (doc_dir / "inside.bin").symlink_to(secret)
        target = str(doc_dir / "inside.bin")
    else:
        target = str(doc_dir / ".." / "elsewhere" / "secret.bin")
    with open_document(stored_in(doc_dir / "f.h5", target)) as doc:
        assert codes_at(doc, "/x") == ["external.outside"]


def test_storage_inside_the_folder_is_read_and_named(tmp_path, capsys):
    doc_dir = tmp_path / "doc"
    (doc_dir / "raw").mkdir(parents=True)
    data = np.arange(8, dtype="<i4")
    (doc_dir / "raw" / "x.bin").write_bytes(data.tobytes())
    path = stored_in(doc_dir / "f.h5", str(doc_dir / "raw" / "x.bin"), dtype="<i4")
    with open_document(path) as doc:
        assert codes_at(doc, "/x") == ["external.storage"]
        assert doc.object_data.node("/x").read().columns[0].values.tolist() == data.tolist()
    status, out, err = dump(capsys, f"{path}::/x")
    assert status == 0 and out.split()[1:] == [str(v) for v in data]
    assert "read from another file" in err and "x.bin" in err


# -- point 3: what never reaches HDF5 ----------------------------------------------------
def _special(kind: str, folder: Path) -> str:
    if kind == "fifo":
        os.mkfifo(folder / "pipe")
        return str(folder / "pipe")
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(folder / "sock"))
        return str(folder / "sock")
    if kind == "device":
        return os.devnull
    return str(folder)  # a folder


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "folder"])
def test_a_special_file_is_never_read_even_allowed(tmp_path, kind, capsys):
    doc_dir = tmp_path / "doc"
    doc_dir.mkdir()
    target = _special(kind, doc_dir)
    path = stored_in(doc_dir / "f.h5", target, dtype="u1")
    from inspector.formats.sources.folder_bounds import allow_folder

    allow_folder(os.path.dirname(target))
    with open_document(path) as doc:
        doc.verify()
        assert codes_at(doc, "/x") == ["external.special-file"]
    status, _out, err = dump(capsys, f"{path}::/x")
    assert status == 1 and "external.special-file" in err and target in err


def test_missing_storage_and_the_document_itself(tmp_path):
    doc_dir = tmp_path / "doc"
    missing = stored_in(doc_dir / "m.h5", str(doc_dir / "gone.bin"))
    with open_document(missing) as doc:
        assert codes_at(doc, "/x") == ["external.missing"]
    itself = doc_dir / "self.h5"
    stored_in(itself, str(itself))
    with open_document(itself) as doc:
        assert codes_at(doc, "/x") == ["external.self"]


def _virtual(f: h5py.File, name: str, file_name: str, source: str) -> None:
    layout = h5py.VirtualLayout(shape=(4,), dtype="f8")
    layout[:] = h5py.VirtualSource(file_name, source, shape=(4,))
    f.create_virtual_dataset(name, layout, fillvalue=-1)


def test_recursive_virtual_datasets_never_reach_hdf5(tmp_path, capsys):
    with h5py.File(tmp_path / "self.h5", "w") as f:
        _virtual(f, "dot", ".", "/dot")
        _virtual(f, "named", "self.h5", "/named")
        _virtual(f, "a", ".", "/b")
        _virtual(f, "b", ".", "/a")
    for i in range(4):  # a ring of four files
        with h5py.File(tmp_path / f"r{i}.h5", "w") as f:
            _virtual(f, "v", f"r{(i + 1) % 4}.h5", "/v")
    with open_document(tmp_path / "self.h5") as doc:
        for loc in ("/dot", "/named", "/a", "/b"):
            assert "vds.recursive" in codes_at(doc, loc), loc
    with open_document(tmp_path / "r0.h5") as doc:
        found = [f for f in doc.findings if f.code == "vds.recursive"]
        assert found and "r1.h5" in found[0].message
    for loc in ("/dot", "/a"):
        status, _out, err = dump(capsys, f"{tmp_path / 'self.h5'}::{loc}")
        assert status == 1 and "vds.recursive" in err


def test_a_chain_of_virtual_datasets_is_read(tmp_path):
    with h5py.File(tmp_path / "c3.h5", "w") as f:
        f["data"] = np.arange(4.0)
    for i in (2, 1, 0):
        with h5py.File(tmp_path / f"c{i}.h5", "w") as f:
            _virtual(f, "data", f"c{i + 1}.h5", "/data")
    with h5py.File(tmp_path / "c0.h5") as f:  # the oracle
        expected = f["data"][()]
    with open_document(tmp_path / "c0.h5") as doc:
        assert "vds.recursive" not in codes_at(doc, "/data")
        assert doc.object_data.node("/data").read().columns[0].values.tolist() == \
            expected.tolist()


def test_an_external_link_outside_the_folder_is_not_followed(tmp_path):
    outside = tmp_path / "elsewhere" / "secret.h5"
    outside.parent.mkdir()
    with h5py.File(outside, "w") as s:
        s["leak"] = np.array([MARKER] * 2)
        s["leak"].attrs["note"] = MARKER
    doc_dir = tmp_path / "doc"
    doc_dir.mkdir()
    with h5py.File(doc_dir / "f.h5", "w") as f:
        f["leak"] = h5py.ExternalLink(str(outside), "/leak")
    with open_document(doc_dir / "f.h5") as doc:
        doc.verify()
        assert codes_at(doc, "/leak") == ["external.outside"]
        assert doc.object_data.node("/leak") is None
        assert not leaked(json.dumps(doc.to_json(), default=str))


# -- from a URL --------------------------------------------------------------------------
@pytest.mark.slow
def test_a_remote_document_reads_no_local_file(tmp_path, secret):
    path = stored_in(tmp_path / "doc" / "leak.h5", str(secret))
    with h5py.File(path, "a") as f:
        _virtual(f, "v", ".", "/v")
    with RangeServer() as server:
        url = server.add("leak.h5", path)
        with open_document(url) as doc:
            doc.verify()
            assert codes_at(doc, "/x") == ["external.remote"]
            assert "vds.recursive" in codes_at(doc, "/v")
            with pytest.raises(NodeReadError):
                doc.object_data.node("/x").read()
            assert not leaked(json.dumps(doc.to_json(), default=str))
        for argv in (["verify", "--json", url], ["dump", f"{url}::/x"],
                     ["dump", "--allow-external", str(secret.parent), f"{url}::/x"]):
            done = subprocess.run([sys.executable, "-m", "inspector", *argv],
                                  capture_output=True, timeout=120,
                                  env={**os.environ, "PYTHONPATH": os.getcwd()})
            assert done.returncode == 1 and not leaked(done.stdout, done.stderr), argv


# -- the finding's folder, and the window's action ---------------------------------------
def test_the_hint_names_the_folder_and_nothing_else():
    assert allowable_folder(f"/x: ... not read {allow_hint('/a (b)')}") == "/a (b)"
    assert allowable_folder("/x: no hint here") is None


def test_the_window_action_allows_the_folder_and_reloads(qtbot, tmp_path, secret):
    from inspector.ui.main_window import MainWindow

    path = stored_in(tmp_path / "doc" / "leak.h5", str(secret))
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_paths([str(path)])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=30000)
    dock = win.findings
    rows = [i for i in range(dock.model.rowCount())
            if dock.model.finding(i)[1].code == "external.outside"]
    assert rows and not dock.act_allow.isEnabled()
    index = dock.proxy.mapFromSource(dock.model.index(rows[0], 0))
    dock.view.selectRow(index.row())
    assert dock.act_allow.isEnabled() and str(secret.parent) in dock.act_allow.text()
    dock.act_allow.trigger()
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=30000)
    tab = win.current_tab()
    assert "external.outside" not in codes_at(tab.doc, "/x")
    values = tab.doc.object_data.node("/x").read().columns[0].values
    assert leaked(*(v if isinstance(v, (str, bytes)) else str(v) for v in values))
    win.close()


def test_beckman_scan_linked_out_of_the_run_is_not_read(tmp_path):
    from tests.test_beckman_layout import data, header, write

    run = tmp_path / "run"
    write(run, "00001.RA1", ["scan", header(), *data(5)])
    outside = tmp_path / "passwd"
    outside.write_bytes(MARKER + b"\n" + header(seconds=240).encode() + b"\n" + MARKER + b"\n")
    (run / "00002.RA1").symlink_to(outside)
    with open_document(run) as doc:
        doc.verify()
        assert codes_at(doc, "00002.RA1") == ["beckman.link-outside"]
        assert not leaked(json.dumps(doc.to_json(), default=str))


def test_guard_cache_follows_the_allowed_folders(tmp_path, secret):
    path = stored_in(tmp_path / "doc" / "leak.h5", str(secret))
    with h5py.File(path) as f:
        assert not external_guard.examine(f["x"]).readable
        from inspector.formats.sources.folder_bounds import allow_folder

        allow_folder(secret.parent)
        assert external_guard.examine(f["x"]).readable
    shutil.rmtree(secret.parent)


@pytest.mark.slow
def test_many_plain_sources_are_read_and_a_deep_nest_is_not(tmp_path):
    layout = h5py.VirtualLayout(shape=(300,), dtype="f8")
    for i in range(300):  # 300 source files, more than MAX_VIRTUAL_VISITS virtual levels
        with h5py.File(tmp_path / f"s{i}.h5", "w") as s:
            s["d"] = np.array([float(i)])
        layout[i] = h5py.VirtualSource(f"s{i}.h5", "d", shape=(1,))
    with h5py.File(tmp_path / "many.h5", "w") as f:
        f.create_virtual_dataset("v", layout, fillvalue=-1)
    with open_document(tmp_path / "many.h5") as doc:
        assert doc.object_data.node("/v").read().columns[0].values.tolist() == \
            [float(i) for i in range(300)]
    depth = external_guard.MAX_VIRTUAL_DEPTH + 2
    with h5py.File(tmp_path / "deep.h5", "w") as f:
        f["d0"] = np.arange(4.0)
        for i in range(1, depth):
            _virtual(f, f"d{i}", ".", f"/d{i - 1}")
    with open_document(tmp_path / "deep.h5") as doc:
        assert "vds.recursive" in codes_at(doc, f"/d{depth - 1}")
        assert doc.object_data.node("/d3").read().columns[0].values.tolist() == [0, 1, 2, 3]
