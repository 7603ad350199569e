"""External links and virtual-dataset sources of an HDF5 file read from a URL.

Their file names resolve beside the URL (same folder, same server), they are
never looked for on this machine (a copy of the target in the working folder
stays unopened), and "Open Target" opens the target URL at its node.
Servers are started here on 127.0.0.1 (tests/range_server.py).
"""

from __future__ import annotations

import shutil

import h5py
import numpy as np
import pytest
from range_server import RangeServer
from test_hdf5_plain_and_links import write_links

from inspector.formats.hdf5 import elink_guard
from inspector.formats.nodes.data import NodeReadError
from inspector.formats.registry import open_document
from inspector.formats.remote.path import RemotePath, split_location
from inspector.ui.main_window import MainWindow


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``main.h5`` (soft, external, dangling and virtual links into ``src.h5``) and
    ``src.h5`` at ``/lab/``, plus ``abs.h5`` whose link names an absolute local path."""
    folder = tmp_path_factory.mktemp("links")
    main_file, src = write_links(folder)
    absolute = folder / "abs.h5"
    with h5py.File(absolute, "w") as f:
        f["ext"] = h5py.ExternalLink(str(src), "/data")
    with RangeServer() as srv:
        for path in (main_file, src, absolute):
            srv.add(f"lab/{path.name}", path.read_bytes())
        yield srv, folder


@pytest.fixture
def decoy(served, tmp_path, monkeypatch):
    """A working folder holding copies of the targets, which HDF5 must never open."""
    _, folder = served
    for name in ("src.h5", "missing.h5"):
        shutil.copy(folder / "src.h5", tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_remote_path_beside_resolves_in_the_same_folder():
    rec = RemotePath("http://h:8/a/b/rec.h5")
    assert str(rec.beside("t.h5")) == "http://h:8/a/b/t.h5"
    assert str(rec.beside("sub/t 1.h5")) == "http://h:8/a/b/sub/t%201.h5"
    assert str(rec.beside("../../../up.h5")) == "http://h:8/up.h5"  # never off the server
    assert str(RemotePath("s3://bkt/data/rec.h5").beside("../x.h5")) == "s3://bkt/x.h5"
    for local in ("/home/me/t.h5", "C:\\data\\t.h5", ""):
        assert rec.beside(local) is None


def test_external_links_resolve_beside_the_url_and_are_not_followed(served, decoy):
    srv, _ = served
    with open_document(srv.url("lab/main.h5")) as doc:
        links = {n.location: n for n in doc.tree.walk() if n.kind == "link"}
        for loc, (file, path) in {"/ext": ("src.h5", "/data"),
                                  "/extimg": ("src.h5", "/g/img"),
                                  "/extdang": ("missing.h5", "/data")}.items():
            t = links[loc].target
            assert (t.kind, t.file, t.path, t.dangling) == ("external", file, path, False)
            assert t.resolved == srv.url(f"lab/{file}")
            assert t.address() == f"{srv.url(f'lab/{file}')}::{path}"
            assert "not followed over the network" in links[loc].detail
        found = {(f.code, f.location) for f in doc.findings}
        assert {("link.external-url", loc) for loc in ("/ext", "/extimg", "/extdang")} <= found
        assert not any(f.code in ("link.external", "link.dangling") and f.location != "/dang"
                       for f in doc.findings)
        assert doc.object_data.node("/ext") is None  # the decoy is not read through the link
        sources = [c.target for c in doc.tree.find("/vds").children if c.kind == "link"]
        assert [s.resolved for s in sources] == [srv.url("lab/src.h5")] * 2
        assert ("vds.external", "/vds") in found and ("vds.missing-source", "/vds") not in found
        with pytest.raises(NodeReadError) as failed:
            doc.object_data.node("/vds").read()
        assert "never read over the network" in failed.value.finding.message
        message = next(f.message for f in doc.findings if f.code == "link.external-url")
        assert "main.h5" not in message and srv.url("lab/src.h5") in message


def test_the_target_address_opens_the_target_url_at_its_node(served):
    srv, folder = served
    with open_document(srv.url("lab/main.h5")) as doc:
        address = doc.tree.find("/ext").target.address()
    url, node = split_location(address)
    with open_document(url) as target, h5py.File(folder / "src.h5") as f:
        assert node == "/data"
        values = target.object_data.node(node).read().columns[0].values
        assert np.array_equal(values, f["data"][()])


def test_an_absolute_local_name_names_nothing_to_open(served, decoy):
    srv, folder = served
    with open_document(srv.url("lab/abs.h5")) as doc:
        link = doc.tree.find("/ext")
        assert link.target.dangling and link.target.resolved == ""
        (finding,) = [f for f in doc.findings if f.code == "link.external-url"]
        assert "a local path" in finding.message and finding.location == "/ext"


def test_the_guard_forgets_a_closed_remote_file(served):
    srv, _ = served
    doc = open_document(srv.url("lab/main.h5"))
    assert len(elink_guard._refused) >= 1
    doc.close()
    assert not any("RangeFile" in name for name in elink_guard._refused)


def test_open_target_opens_the_url_at_the_node(qtbot, served):
    srv, _ = served
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    win.open_paths([srv.url("lab/main.h5")])
    qtbot.waitUntil(lambda: win.document_tabs() and win.all_tabs_ready(), timeout=30000)
    tab = win.current_tab()
    raw = tab.header_panel.raw
    assert raw.select_location("/extimg")
    assert raw.act_open_target.isEnabled()
    raw.act_open_target.trigger()
    qtbot.waitUntil(lambda: len(win.document_tabs()) == 2 and win.all_tabs_ready(),
                    timeout=30000)
    other = win.current_tab()
    assert other.path == RemotePath(srv.url("lab/src.h5"))
    assert other.initial_node == "/g/img"
    qtbot.waitUntil(lambda: other.header_panel.raw.current_node() is not None, timeout=10000)
    assert other.header_panel.raw.current_node().location == "/g/img"
