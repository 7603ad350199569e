"""Attributes beyond the first thousand of an object are paged in: opening lists a
bounded number, the views read the others a page at a time, off the GUI thread, and
the last one is reached with its right value."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest

from inspector.formats import open_document
from inspector.formats.capabilities import ATTRIBUTE_PAGE, MORE_ATTRIBUTES
from inspector.formats.hdf5.attributes import MAX_ATTRIBUTES, attribute_names_from
from inspector.ui.main_window import MainWindow

N = 20 * MAX_ATTRIBUTES  # a bounded open and paging are what is tested, not the size
SOME = MAX_ATTRIBUTES + 2 * ATTRIBUTE_PAGE + 500


@pytest.fixture(scope="module")
def many(tmp_path_factory) -> Path:
    """A plain HDF5 file whose group /g holds N int64 attributes a000000.. valued by index."""
    path = tmp_path_factory.mktemp("attrs") / "many_attributes.h5"
    with h5py.File(path, "w", libver="latest") as f:  # dense attribute storage
        f.attrs["title"] = "many attributes"
        g = f.create_group("g")
        space, dtype = h5py.h5s.create(h5py.h5s.SCALAR), h5py.h5t.STD_I64LE
        for i in range(N):
            h5py.h5a.create(g.id, f"a{i:06d}".encode(), dtype, space).write(
                np.array(i, dtype="<i8"))
        h = f.create_group("h")  # a few pages: the window goes through them all
        for i in range(SOME):
            h5py.h5a.create(h.id, f"a{i:06d}".encode(), dtype, space).write(
                np.array(i, dtype="<i8"))
    return path


def _value_is_its_index(node, group: str = "g") -> bool:
    return node.kind == "attribute" and node.value == int(node.name[1:]) \
        and node.location == f"/{group}@{node.name}"


@pytest.mark.slow
def test_opening_lists_a_bounded_number_and_a_row_for_the_rest(many):
    with open_document(many) as doc:
        g = doc.tree.find("/g")
        attrs = [c for c in g.children if c.kind == "attribute"]
        assert len(attrs) == MAX_ATTRIBUTES  # not N: opening reads a bounded number
        assert all(_value_is_its_index(a) for a in attrs)
        more = g.children[-1]
        assert more.kind == MORE_ATTRIBUTES and more.location == "/g"
        assert more.name == f"{N - MAX_ATTRIBUTES:,} more attributes"
        assert f"{MAX_ATTRIBUTES:,} of {N:,} shown" in more.detail
        capped = {f.location: f for f in doc.findings if f.code == "tree.attributes-capped"}
        assert set(capped) == {"/g", "/h"}
        assert f"{N - MAX_ATTRIBUTES} are left out" in capped["/g"].message


@pytest.mark.slow
def test_every_attribute_is_in_one_page_and_the_last_has_its_value(many):
    with open_document(many) as doc:
        read = doc.object_data.attributes
        first = {c.name for c in doc.tree.find("/g").children if c.kind == "attribute"}
        page = read("/g", MAX_ATTRIBUTES, ATTRIBUTE_PAGE)
        assert (page.location, page.start, page.total) == ("/g", MAX_ATTRIBUTES, N)
        assert page.end == MAX_ATTRIBUTES + ATTRIBUTE_PAGE
        assert all(_value_is_its_index(n) for n in page.nodes)
        assert not first & {n.name for n in page.nodes}  # pages follow on, never overlap
        last = read("/g", N - ATTRIBUTE_PAGE, ATTRIBUTE_PAGE)
        assert len(last.nodes) == ATTRIBUTE_PAGE and last.end == N
        assert all(_value_is_its_index(n) for n in last.nodes)
        assert read("/g", N, ATTRIBUTE_PAGE).nodes == ()  # nothing after the last
        with pytest.raises(Exception, match="no object"):
            read("/missing", 0, 10)
    # the storage order the pages follow covers every attribute once
    with h5py.File(many, "r") as f:
        seen: list[bytes] = []
        for start in range(0, N, 10_000):
            total, names = attribute_names_from(f["g"], start, 10_000)
            assert total == N
            seen += names
    assert len(seen) == N and set(seen) == {f"a{i:06d}".encode() for i in range(N)}


@pytest.mark.slow
def test_the_window_pages_attributes_in_up_to_the_last(qtbot, many):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1024, 640)
    win.show()
    win.open_paths([str(many)], remember=False)
    qtbot.waitUntil(lambda: win.all_tabs_ready() and win.is_idle(), timeout=60000)
    tab = win.current_tab()
    pager = tab.attribute_pager
    tree = tab.header_panel.raw
    model = tree.model
    g = model.root.find("/g")
    more = g.children[-1]
    assert more.kind == MORE_ATTRIBUTES
    # the row is opened as a user opens it: activated in the view
    index = tree.proxy.mapFromSource(model.index_of_node(more))
    assert index.isValid()
    tree.view.activated.emit(index)
    assert pager.busy  # read on a job, not on the GUI thread
    assert not pager.request(more)  # one read of a row at a time
    qtbot.waitUntil(lambda: not pager.busy, timeout=30000)
    g_index = model.index_of_node(g)
    assert model.rowCount(g_index) == MAX_ATTRIBUTES + ATTRIBUTE_PAGE + 1
    assert more.name == f"{N - MAX_ATTRIBUTES - ATTRIBUTE_PAGE:,} more attributes"
    assert win.is_idle()
    # a smaller object, paged through to its last attribute as the user would
    h = model.root.find("/h")
    more = h.children[-1]
    steps = 0
    while more in h.children:
        index = tree.proxy.mapFromSource(model.index_of_node(more))
        tree.view.activated.emit(index)
        qtbot.waitUntil(lambda: not pager.busy, timeout=30000)
        steps += 1
    assert steps == 3  # 1000 listed at open, then 1000, 1000 and the last 500
    attrs = [c for c in h.children if c.kind == "attribute"]
    assert len(attrs) == SOME and len({a.name for a in attrs}) == SOME
    assert all(_value_is_its_index(a, "h") for a in attrs)
    h_index = model.index_of_node(h)
    assert model.rowCount(h_index) == SOME  # the row for the rest is gone
    last = model.index(SOME - 1, 0, h_index)
    assert last.data() == attrs[-1].name
    assert last.siblingAtColumn(1).data() == str(int(attrs[-1].name[1:]))
