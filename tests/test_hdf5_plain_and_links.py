"""A plain HDF5 file opens as what it is; links lead to their targets; File > Open
takes ``FILE::/path``; a recording's plotted arrays switch to their values.

A plain HDF5 file is opened by the generic HDF5 reader (``format: "hdf5"``,
ok, a note saying why it is not a VneuroTK recording), and the window shows
an HDF5 document with every generic view and no error icon or failure page.
Asked directly, the recording reader keeps the corpus verdict
(``neuro.missing``).  Link targets are compared with h5py's own view of the
links.
"""

from __future__ import annotations

import json
import os

import h5py
import numpy as np
import pytest
from PySide6.QtWidgets import QDialog

from inspector.cli import format_report, main
from inspector.formats import open_document
from inspector.formats.findings import Severity
from inspector.formats.vneurotk import open_recording
from inspector.formats.vneurotk.reader import KIND_PLAIN_HDF5, KIND_RECORDING
from inspector.models.open_failure import open_failure
from inspector.ui.data.image import ImageView
from inspector.ui.data.table import TableView
from inspector.ui.data.text import TextView
from inspector.ui.open_dialog import OpenDialog, typed_address
from tests.conftest import FIXTURES, open_window

CORPUS = FIXTURES / "vneurotk"
RECORDING = CORPUS / "v1" / "epochs_dense_f64_strids.h5"


def write_plain(path):
    """A plain HDF5 file: a compound table, images, strings, and nothing of a recording."""
    with h5py.File(path, "w") as f:
        f.attrs["title"] = "bench log"
        rows = np.zeros(5, dtype=[("t", "<f8"), ("id", "<i4"), ("ok", "?")])
        rows["t"], rows["id"], rows["ok"] = np.linspace(0, 1, 5), np.arange(5) * 10, True
        f["log/rows"] = rows
        y, x = np.mgrid[0:60, 0:80]
        f.create_dataset("images/wave", data=np.sin(x / 9.0) * np.cos(y / 7.0),
                         chunks=(20, 20), compression="gzip")
        f["images/rgb"] = np.zeros((8, 9, 3), dtype="u1")
        f["notes"] = "plain text, not a recording"
        f["names"] = np.array(["alpha", "beta", "gamma"], dtype=h5py.string_dtype())
    return path


def write_links(folder):
    """``main.h5`` with soft, external, dangling and virtual-dataset links into ``src.h5``."""
    src, main_file = folder / "src.h5", folder / "main.h5"
    with h5py.File(src, "w") as f:
        f["data"] = np.arange(5, dtype="<i4")
        f["g/img"] = np.arange(12.0).reshape(3, 4)
    with h5py.File(main_file, "w") as f:
        f["a/x"] = np.arange(3.0)
        f["a/soft"] = h5py.SoftLink("x")
        f["abs"] = h5py.SoftLink("/a/x")
        f["dang"] = h5py.SoftLink("/nope")
        f["ext"] = h5py.ExternalLink("src.h5", "/data")
        f["extimg"] = h5py.ExternalLink("src.h5", "/g/img")
        f["extdang"] = h5py.ExternalLink("missing.h5", "/data")
        layout = h5py.VirtualLayout((2, 5), dtype="<i4")
        layout[0] = h5py.VirtualSource("src.h5", "data", shape=(5,))
        layout[1] = h5py.VirtualSource("src.h5", "data", shape=(5,))
        f.create_virtual_dataset("vds", layout)
    return main_file, src


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plain")
    plain = write_plain(folder / "plain.h5")
    empty = folder / "empty.h5"
    h5py.File(empty, "w").close()
    main_file, src = write_links(folder)
    return {"plain": plain, "empty": empty, "main": main_file, "src": src}


# -- the document -------------------------------------------------------------------------
def test_plain_hdf5_is_an_hdf5_file_with_a_note(files, capsys):
    with open_document(files["plain"]) as doc:
        assert doc.format == "hdf5" and doc.kind_label == "HDF5 file" and doc.ok
        assert doc.mismatch is None and open_failure(doc) is None
        assert [(f.code, f.severity) for f in doc.findings] == [
            ("format.container-only", Severity.INFO)]
        note = doc.findings.as_list()[0]
        assert "not a VneuroTK recording" in note.message and "vneurotk_format" in note.message
        header = {n.name: n.value for n in doc.header.children}
        assert header["format"] == "HDF5 file"
        with h5py.File(files["plain"]) as f:
            groups, datasets = [], []
            f.visititems(lambda _n, o: (groups if isinstance(o, h5py.Group) else datasets)
                         .append(o))
            assert header["groups"] == len(groups) and header["datasets"] == len(datasets)
            assert header["root attributes"] == len(f.attrs)
            assert doc.summary == {"groups": len(groups), "datasets": len(datasets),
                                   "links": 0, "root_attributes": len(f.attrs)}
        assert doc.provenance is None and doc.trials is None and doc.arrays == {}
        assert doc.object_data is not None
        assert "hdf5: OK" in format_report(doc)
    assert main(["verify", "--json", str(files["plain"])]) == 0
    got = json.loads(capsys.readouterr().out.splitlines()[0])
    assert got["ok"] is True and got["format"] == "hdf5"
    assert [f["code"] for f in got["findings"]] == ["format.container-only"]


def test_the_recording_reader_asked_directly_keeps_the_corpus_verdict(files):
    with open_recording(files["plain"]) as doc:
        assert doc.kind_label == KIND_PLAIN_HDF5 == "HDF5 file (not a VneuroTK recording)"
        m = doc.mismatch
        assert m is not None and m.container == "HDF5 file" and m.format == KIND_RECORDING
        assert "neuro.missing" in m.codes and "/neuro" in m.reason
        assert not doc.ok
        assert [f.code for f in doc.findings if f.severity is Severity.ERROR] == ["neuro.missing"]
        assert doc.file_findings() == []
        header = {n.name: n.value for n in doc.header.children}
        assert header["format"] == KIND_PLAIN_HDF5 and header["not a recording"] == m.reason
        text = format_report(doc)
        assert "neuro.missing" in text and "NOT OK" in text
        assert f"  {KIND_PLAIN_HDF5}: {m.reason}" in text.splitlines()


def test_corpus_plain_files_and_real_recordings(files):
    for name in ("edited/plain_unrelated.h5", "edited/external_link_target.h5"):
        with open_document(CORPUS / name) as doc:
            assert doc.format == "hdf5" and doc.ok and doc.mismatch is None, name
        with open_recording(CORPUS / name) as doc:  # the corpus verdict, asked directly
            assert doc.mismatch is not None and not doc.ok, name
    # a recording with its header but no /neuro is a broken recording, not a plain file
    with open_document(CORPUS / "edited/dense_missing_neuro.h5") as doc:
        assert doc.format == "vneurotk-recording" and doc.kind_label == KIND_RECORDING
        assert doc.mismatch is None and not doc.ok
        assert any(f.code == "neuro.missing" for f in doc.file_findings())
    with open_document(RECORDING) as doc:
        assert doc.mismatch is None and doc.ok and doc.file_findings() == doc.findings.as_list()
    # an HDF5 file with no object at all opens too (nothing to show, nothing failed)
    with open_document(files["empty"]) as doc:
        assert doc.format == "hdf5" and doc.ok and open_failure(doc) is None


def test_a_damaged_plain_file_keeps_its_own_errors(files):
    with open_document(files["main"]) as doc:
        assert doc.format == "hdf5" and not doc.ok
        errors = [(f.code, f.location) for f in doc.findings if f.severity is Severity.ERROR]
        assert errors == [("link.dangling", "/dang")]  # a soft link to nothing: broken
        # an external link whose file is not beside it: a warning, the rest is read
        unresolved = [f for f in doc.findings if f.code == "link.external-unresolved"]
        assert [(f.location, f.severity) for f in unresolved] == [("/extdang", Severity.WARNING)]
        assert "missing.h5" in unresolved[0].message


def _link_nodes(doc):
    return {n.location: n for n in doc.tree.walk() if n.kind == "link" and n.location}


def test_link_targets_are_what_h5py_says(files):
    folder = files["main"].parent
    with open_document(files["main"]) as doc, h5py.File(files["main"]) as f:
        links = _link_nodes(doc)
        assert set(links) == {"/a/soft", "/abs", "/dang", "/ext", "/extimg", "/extdang"}
        for loc, node in links.items():
            link = f.get(loc, getlink=True)
            t = node.target
            if isinstance(link, h5py.SoftLink):
                assert t.kind == "soft" and t.in_this_file and node.value == link.path
                assert t.dangling == (loc == "/dang")
                if not t.dangling:  # the target path names the very object h5py reaches
                    assert f[t.path] == f[loc]
            else:
                assert isinstance(link, h5py.ExternalLink)
                assert (t.kind, t.file, t.path) == ("external", link.filename, link.path)
                assert t.resolved == os.path.abspath(folder / link.filename)
                assert t.dangling == (loc == "/extdang")
                assert t.address() == f"{t.resolved}::{link.path}"
        assert "dangling" in links["/dang"].detail
        dangling = [f for f in doc.findings
                    if f.code in ("link.dangling", "link.external-unresolved")]
        assert {d.location for d in dangling} == {"/dang", "/extdang"}
        vds = doc.tree.find("/vds")
        sources = [c for c in vds.children if c.kind == "link"]
        mapped = f["vds"].virtual_sources()
        assert len(sources) == len(mapped) == 2
        for node, vs in zip(sources, mapped, strict=True):
            t = node.target
            assert (t.kind, t.file, t.path) == ("virtual", vs.file_name, "/" + vs.dset_name)
            assert t.resolved == os.path.abspath(folder / vs.file_name) and not t.dangling


# -- the window ---------------------------------------------------------------------------
def _window(qtbot, *targets):
    win = open_window(qtbot, *targets, size=(1280, 800), show=True, timeout=30_000)
    for tab in win.document_tabs():
        qtbot.waitUntil(lambda t=tab: t.viewer is not None, timeout=30000)
    return win


def _wait_view(qtbot, tab, cls, location):
    panel = tab.viewer.data
    qtbot.waitUntil(lambda: panel.node is not None and panel.node.location == location
                    and isinstance(panel.view, cls), timeout=20000)
    return panel.view


def test_the_window_presents_a_plain_file_as_an_hdf5_document(qtbot, files):
    win = _window(qtbot, files["plain"])
    tab = win.current_tab()
    i = win.tabs.indexOf(tab)
    assert tab.failure is None and win.tabs.tabIcon(i).isNull()
    assert tab.doc.format == "hdf5" and "HDF5 file" in win.tabs.tabToolTip(i)
    assert tab.status_text.startswith("HDF5 file")
    assert "error" not in tab.status_text and "1 note" in tab.status_text
    assert tab.provenance is None
    # every generic view: a compound table, an image, text
    assert tab.header_panel.select_location("/log/rows", prefer_raw=True)
    table = _wait_view(qtbot, tab, TableView, "/log/rows")
    with h5py.File(files["plain"]) as f:
        rows = f["log/rows"][()]
    qtbot.waitUntil(lambda: table.model.index(4, 1).data() != "…", timeout=20000)
    headers = [table.model.headerData(c, 1) for c in range(table.model.columnCount())]
    assert headers == ["t", "id", "ok"]
    assert [table.model.index(r, 1).data() for r in range(5)] == [str(v) for v in rows["id"]]
    assert tab.header_panel.select_location("/images/wave", prefer_raw=True)
    _wait_view(qtbot, tab, ImageView, "/images/wave")
    assert tab.header_panel.select_location("/notes", prefer_raw=True)
    _wait_view(qtbot, tab, TextView, "/notes")


def test_a_plain_file_with_dangling_links_is_marked_for_them(qtbot, files):
    win = _window(qtbot, files["main"])
    tab = win.current_tab()
    # the soft link to nothing is an error; the external link whose file is missing a warning
    assert not win.tabs.tabIcon(win.tabs.indexOf(tab)).isNull()
    assert "1 error" in tab.status_text


def test_open_target_of_an_external_link_opens_its_file_at_the_node(qtbot, files):
    win = _window(qtbot, files["main"])
    tab = win.current_tab()
    raw = tab.header_panel.raw
    assert raw.select_location("/ext")
    assert raw.act_open_target.isEnabled()
    row = raw.view.currentIndex()
    assert row.siblingAtColumn(2).data() == "external link"  # the Type column
    assert row.siblingAtColumn(1).data() == '"src.h5:/data"'  # its target
    assert tab.detail.open_button.isVisibleTo(tab.detail)
    _wait_view(qtbot, tab, TableView, "/ext")  # the link shows its target's values here
    assert tab.detail.open_button.isVisibleTo(tab.detail)  # kept beside the description
    tab.detail.open_button.click()
    qtbot.waitUntil(lambda: len(win.document_tabs()) == 2 and win.all_tabs_ready(),
                    timeout=30000)
    other = win.current_tab()
    assert other.path == files["src"] and other.initial_node == "/data"
    qtbot.waitUntil(lambda: other.viewer is not None, timeout=30000)
    table = _wait_view(qtbot, other, TableView, "/data")
    qtbot.waitUntil(lambda: table.model.index(4, 0).data() != "…", timeout=20000)
    with h5py.File(files["src"]) as f:
        assert [table.model.index(r, 0).data() for r in range(5)] == [
            str(v) for v in f["data"][()]]
    # again: the open tab is brought forward at the other target, not opened twice
    win.tabs.setCurrentWidget(tab)
    assert raw.select_location("/extimg")
    raw.act_open_target.trigger()
    qtbot.waitUntil(lambda: win.current_tab() is other, timeout=10000)
    assert len(win.document_tabs()) == 2
    assert other.header_panel.raw.current_node().location == "/g/img"
    # an address into the open file that names nothing is a warning there
    win.open_paths([f"{files['src']}::/no/such"])
    assert win.current_tab() is other and len(win.document_tabs()) == 2
    qtbot.waitUntil(lambda: any(f.code == "node.not-found" and f.location == "/no/such"
                                for f in other.doc.findings), timeout=10000)


def test_open_target_of_a_soft_link_selects_it_and_dangling_links_do_nothing(qtbot, files):
    win = _window(qtbot, files["main"])
    tab = win.current_tab()
    raw = tab.header_panel.raw
    assert raw.select_location("/a/soft")
    raw.act_open_target.trigger()
    assert raw.current_node().location == "/a/x"
    _wait_view(qtbot, tab, TableView, "/a/x")
    for loc in ("/dang", "/extdang"):
        assert raw.select_location(loc)
        assert not raw.act_open_target.isEnabled()
        assert not tab.detail.open_button.isVisibleTo(tab.detail)
        assert "dangling" in tab.detail.text.toPlainText()
        raw.act_open_target.trigger()  # disabled: nothing happens, nothing raises
    assert len(win.document_tabs()) == 1
    vds_source = tab.doc.tree.find("/vds").children[0]
    raw.select_node(vds_source)
    assert raw.act_open_target.isEnabled()


def test_a_group_asked_for_is_selected_and_expanded(qtbot, files):
    win = _window(qtbot, f"{files['plain']}::/images")
    raw = win.current_tab().header_panel.raw
    assert raw.current_node().location == "/images"
    assert raw.view.isExpanded(raw.view.currentIndex())


def test_file_open_accepts_file_and_node(qtbot, files, tmp_path):
    folder = files["plain"].parent
    assert typed_address("plain.h5::/images/wave", folder) == f"{files['plain']}::/images/wave"
    assert typed_address(f'"{files["plain"]}::/x"', tmp_path) == f"{files['plain']}::/x"
    assert typed_address("absent.h5::/x", folder) is None
    assert typed_address("plain.h5", folder) is None
    dialog = OpenDialog(None, str(folder), "All files (*)")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.name_edit().setText("plain.h5::/images/wave")
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.chosen() == [f"{files['plain']}::/images/wave"]


def test_file_open_dialog_opens_the_node(qtbot, files, monkeypatch):
    win = _window(qtbot, files["src"])
    monkeypatch.setattr(OpenDialog, "exec", lambda self: (
        self.name_edit().setText(f"{files['plain']}::/images/wave"), self.accept(),
        self.result())[-1])
    win.open_dialog()
    qtbot.waitUntil(lambda: len(win.document_tabs()) == 2 and win.all_tabs_ready(),
                    timeout=30000)
    tab = win.current_tab()
    assert tab.path == files["plain"] and tab.initial_node == "/images/wave"
    qtbot.waitUntil(lambda: tab.viewer is not None, timeout=30000)
    _wait_view(qtbot, tab, ImageView, "/images/wave")


@pytest.mark.slow
def test_a_recording_plot_switches_to_the_values_of_its_array(qtbot):
    win = _window(qtbot, f"{RECORDING}::/vision_store/0/array")
    tab = win.current_tab()
    viewer = tab.viewer
    qtbot.waitUntil(lambda: viewer.currentWidget() is tab.plot, timeout=20000)
    assert viewer.switch.isVisibleTo(viewer) and viewer.plot_button.isChecked()
    viewer.values_button.click()
    table = _wait_view(qtbot, tab, TableView, "/vision_store/0/array")  # 60 numbers
    assert viewer.values_button.isChecked()
    with h5py.File(RECORDING) as f:
        arr = f["vision_store/0/array"][()]
    qtbot.waitUntil(lambda: table.model.index(4, 11).data() != "…", timeout=20000)
    assert float(table.model.index(4, 11).data()) == pytest.approx(float(arr[4, 11]), rel=1e-6)
    tab.viewer.data.choose_view("image")
    image = _wait_view(qtbot, tab, ImageView, "/vision_store/0/array")
    qtbot.waitUntil(lambda: image.is_idle(), timeout=20000)
    viewer.plot_button.click()
    assert viewer.currentWidget() is tab.plot
    # the other objects of a recording have the generic views, and no switch
    for loc, cls in (("/trial", ImageView), ("/stimuli_db/3/image", ImageView),
                     ("/trial_meta/columns/4/codes", TableView)):
        assert tab.header_panel.select_location(loc, prefer_raw=True), loc
        _wait_view(qtbot, tab, cls, loc)
        assert not viewer.switch.isVisibleTo(viewer), loc


def test_no_text_of_any_type_holds_a_lone_surrogate(tmp_path):
    """Every value, type description and tree text of every HDF5 type encodes as UTF-8,
    so none can reach Qt as a lone surrogate (invalid UTF-8 is escaped and flagged)."""
    from inspector.formats.nodes.cell_text import cell_text
    from inspector.formats.nodes.data import describe
    from tests.test_hdf5_data import write_every_type

    path = write_every_type(tmp_path / "every.h5")
    with h5py.File(path, "a") as f:  # invalid UTF-8 where h5py returns surrogate escapes
        f.attrs.create("bad", "ok\udcff".encode("utf-8", "surrogateescape"),
                       dtype=h5py.string_dtype("utf-8"))
    seen = 0
    with open_document(path) as doc:
        for n in doc.tree.walk():
            for text in (n.name, str(n.value), n.detail, n.location):
                text.encode("utf-8")
            if n.kind not in ("dataset", "attribute", "link") or not n.location:
                continue
            node = doc.object_data.node(n.location)
            if node is None:
                continue
            describe(node).encode("utf-8")
            values = node.read()
            for col in values.columns:
                for v in np.asarray(col.values, dtype=object).reshape(-1).tolist():
                    cell_text(col.kind, v).encode("utf-8")
                    seen += 1
        bad = doc.object_data.node("/@bad").read().columns[0]
        assert bad.values[()] == "ok\\xff" and bool(bad.escaped[()])
    assert seen > 100


def _dump_csv(location, path, capsys):
    import csv
    import io

    capsys.readouterr()
    assert main(["dump", f"{path}::{location}"]) == 0
    return list(csv.reader(io.StringIO(capsys.readouterr().out)))


def _same_cell(shown, dumped) -> bool:
    """A table cell shows the dumped text, or its beginning cut with "…"."""
    return shown == dumped or (shown.endswith("…") and dumped.startswith(shown[:-1]))


@pytest.mark.parametrize("location", [
    "/compound/table", "/enum", "/refs/objects", "/refs/regions", "/opaque", "/vlen/ints",
    "/complex/c16be", "/num/u8be", "/num/f4be", "/str/vlen_utf8", "/str/fixed_ascii",
    "/num/f8be", "/array_of_array", "/bitfield", "/time"])
@pytest.mark.slow
def test_the_table_model_shows_what_dump_writes(qtbot, tmp_path, capsys, location):
    from tests.test_hdf5_data import write_every_type

    path = write_every_type(tmp_path / "every.h5")
    rows = _dump_csv(location, path, capsys)
    win = _window(qtbot, f"{path}::{location}")
    tab = win.current_tab()
    panel = tab.viewer.data
    qtbot.waitUntil(lambda: panel.node is not None and panel.node.location == location,
                    timeout=20000)
    panel.choose_view("table")
    table = _wait_view(qtbot, tab, TableView, location)
    model = table.model
    n_rows, n_cols = model.rowCount(), model.columnCount()
    qtbot.waitUntil(lambda: all(model.index(r, c).data() != "…" for r in range(n_rows)
                                for c in range(n_cols)), timeout=20000)
    headers = [model.headerData(c, 1) for c in range(n_cols)]
    body = rows[1:]  # under a header row: the field names, or a matrix's column indices
    if len(headers) > 1:
        assert headers == rows[0]
    assert n_rows == len(body)
    for r, row in enumerate(body):
        for c in range(n_cols):
            assert _same_cell(model.index(r, c).data(), row[c]), (r, c)


def test_dumping_a_dangling_link_exits_1_with_its_finding(files, capsys):
    capsys.readouterr()
    assert main(["dump", f"{files['main']}::/dang"]) == 1
    err = capsys.readouterr().err
    assert "link.dangling" in err and "/nope" in err
    assert main(["dump", f"{files['main']}::/ext"]) == 0  # a working link dumps its target
    with h5py.File(files["src"]) as f:
        assert capsys.readouterr().out.split() == ["value"] + [str(v) for v in f["data"][()]]


def test_the_findings_dock_says_why_a_plain_file_is_no_recording(qtbot, files):
    win = _window(qtbot, files["plain"])
    dock = win.findings
    codes = [dock.model.finding(r)[1].code for r in range(dock.model.rowCount())]
    assert codes == ["format.container-only"]  # the dock lists what verify reports
    row = dock.proxy.mapFromSource(dock.model.index(0, 0))
    dock.view.selectRow(row.row())
    text = dock.detail.toPlainText()
    assert "not a VneuroTK recording" in text and "vneurotk_format" in text
