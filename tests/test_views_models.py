"""Issue 5: the item models behind the views, on hand-built documents."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QModelIndex, Qt

from inspector.formats.document import MemberCheck, Node, Stimulus
from inspector.formats.table import Table
from inspector.models.checksum_model import ChecksumModel
from inspector.models.node_filter_model import NodeFilterProxy
from inspector.models.node_tree_model import NodeTreeModel
from inspector.models.roles import CopyRole, MissingRole, StatusRole, ValueRole
from inspector.models.stimuli_model import STATE_FAILED, STATE_LOADING, StimuliModel
from inspector.models.table_model import TableModel
from inspector.ui.checksum_panel import verdict_text

D = Qt.ItemDataRole


def _tree() -> Node:
    root = Node("root", kind="group")
    g = root.add("group", kind="group", location="/g")
    g.add("as_int", 1, location="/g@as_int")
    g.add("as_str", "1", location="/g@as_str")
    g.add("unknown_field", "unknown", location="/g@u")
    g.add("data", kind="dataset", location="/g/data", detail="(3,) int64")
    root.add("other", 2.5, location="/other")
    return root


def test_typed_values_look_different(qapp):
    m = NodeTreeModel(_tree())
    g = m.index(0, 0)
    i_val, s_val = m.index(0, 1, g), m.index(1, 1, g)
    assert (i_val.data(), s_val.data()) == ("1", '"1"')
    assert (m.index(0, 2, g).data(), m.index(1, 2, g).data()) == ("int", "str")
    assert i_val.data(D.ForegroundRole) is None
    assert s_val.data(D.ForegroundRole) is not None
    unknown = m.index(2, 1, g)
    assert unknown.data(MissingRole) is True and unknown.data(D.FontRole).italic()
    ds = m.index(3, 1, g)
    assert ds.data() == "" and m.index(3, 2, g).data() == "dataset"
    assert m.index(1, 1, g).data(CopyRole) == "1"  # copies the raw string, no quotes


def test_tree_location_lookup(qapp):
    m = NodeTreeModel(_tree())
    idx = m.index_of_location("/g/data")
    assert idx.isValid() and idx.data() == "data" and idx.parent().data() == "group"
    assert not m.index_of_location("/nope").isValid()


def test_filter_keeps_parents_and_matches_values(qapp):
    m = NodeTreeModel(_tree())
    p = NodeFilterProxy()
    p.setSourceModel(m)
    p.set_text("as_str")
    assert p.rowCount() == 1
    g = p.index(0, 0)
    assert g.data() == "group" and p.rowCount(g) == 1 and p.index(0, 0, g).data() == "as_str"
    p.set_text("2.5")  # matches the value text
    assert [p.index(r, 0).data() for r in range(p.rowCount())] == ["other"]
    p.set_text("/G/DATA")  # location, case-insensitive
    assert p.rowCount() == 1 and p.rowCount(p.index(0, 0)) == 1
    p.set_text("")
    assert p.rowCount() == 2


def _frame(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rt = rng.random(n)
    rt[::7] = np.nan
    hand = pd.array(["left", "right", "", None] * (n // 4), dtype="str")
    mixed = pd.Series([1, "1", None, 2.0] * (n // 4), dtype=object)
    return pd.DataFrame({"trial": np.arange(n, dtype=np.int64), "rt": rt, "hand": hand,
                         "mixed": mixed, "n": pd.array([1, None, 3, 4] * (n // 4), dtype="Int64")})


def test_table_model_cells_and_headers(qapp):
    df = _frame(8)
    m = TableModel(Table.of_frame(df))
    assert (m.rowCount(), m.columnCount()) == (8, 5)
    assert [m.headerData(c, Qt.Orientation.Horizontal) for c in range(5)] == list(df.columns)
    assert m.headerData(1, Qt.Orientation.Horizontal, D.ToolTipRole) == "rt: dtype float64"
    assert "dtype str" in m.headerData(2, Qt.Orientation.Horizontal, D.ToolTipRole)
    assert "dtype Int64" in m.headerData(4, Qt.Orientation.Horizontal, D.ToolTipRole)
    assert m.index(0, 1).data() == "<NA>" and m.index(0, 1).data(MissingRole)
    assert m.index(0, 1).data(D.FontRole).italic()
    # '' and a missing string differ: an empty cell, not a quoted pair of quotes
    assert m.index(2, 2).data() == "" and not m.index(2, 2).data(MissingRole)
    assert m.index(2, 2).data(D.ToolTipRole) == "empty text  (str)"
    assert m.index(3, 2).data() == "<NA>" and m.index(3, 2).data(MissingRole)
    assert m.index(2, 2).data(D.FontRole) is None
    # object column: int 1 vs str "1"
    assert [m.index(r, 3).data() for r in range(4)] == ["1", '"1"', "<NA>", "2.0"]
    assert m.index(1, 3).data(ValueRole) == "1" and m.index(0, 3).data(ValueRole) == 1
    assert [m.index(r, 4).data() for r in range(4)] == ["1", "<NA>", "3", "4"]
    assert m.headerData(5, Qt.Orientation.Vertical) == "5"


@pytest.mark.slow
def test_table_model_sort_and_filter_100k(qapp):
    n = 100_000
    df = _frame(n)
    m = TableModel(Table.of_frame(df))
    assert m.rowCount() == n
    m.sort(1, Qt.SortOrder.AscendingOrder)
    vals = np.array([m.value(r, 1) for r in range(0, n, 997)], dtype=float)
    finite = vals[~np.isnan(vals)]
    assert np.all(np.diff(finite) >= 0)
    assert m.index(n - 1, 1).data() == "<NA>"  # missing last
    assert m.value(0, 1) == np.nanmin(df["rt"].to_numpy())
    m.sort(1, Qt.SortOrder.DescendingOrder)
    assert m.value(0, 1) == np.nanmax(df["rt"].to_numpy()) and m.index(n - 1, 1).data(MissingRole)
    m.sort(3, Qt.SortOrder.AscendingOrder)  # mixed types must not raise
    assert m.index(n - 1, 3).data(MissingRole)
    m.sort(-1)
    assert [m.value(r, 0) for r in range(3)] == [0, 1, 2]
    m.set_filter("RIGHT")
    assert m.rowCount() == n // 4
    assert {m.value(r, 2) for r in range(m.rowCount())} == {"right"}
    m.set_filter("")
    assert m.rowCount() == n


def test_checksum_model_live_updates(qapp):
    rows = [MemberCheck("manifest.json", "a" * 64), MemberCheck("arrays/signal.npy", "b" * 64)]
    m = ChecksumModel(rows)
    assert [m.index(r, 1).data(StatusRole) for r in range(2)] == ["pending", "pending"]
    seen = []
    m.dataChanged.connect(lambda a, b: seen.append(a.row()))
    rows[1] = dataclasses.replace(rows[1], computed="c" * 64, status="mismatch")
    m.update_member(rows[1])
    assert seen == [1]
    assert m.index(1, 1).data() == "MISMATCH" and m.index(1, 3).data() == "c" * 64
    assert m.index(1, 1).data(D.DecorationRole) is not None
    assert m.index(1, 1).data(D.ForegroundRole) != m.index(0, 1).data(D.ForegroundRole)
    m.update_member(MemberCheck("extras/x.bin", None, "d" * 64, "unlisted"))
    assert m.rowCount() == 3 and m.index(2, 2).data() == "—"
    assert m.index(2, 3).data(CopyRole) == "d" * 64
    kind, text = verdict_text(m.members(), "done")
    assert kind == "bad" and text.startswith("2 of 3 members failed: arrays/signal.npy (MISMATCH)")
    assert verdict_text([MemberCheck("a", "x", "x", "ok")] * 7, "done") == (
        "ok", "All 7 members verified")
    assert verdict_text(m.members(), "verifying")[1] == "Verifying… 2 of 3 members checked"


def test_the_checksum_models_checked_count_follows_every_streamed_row(qapp):
    import random

    from inspector.models.checksum_model import UNCHECKED

    rng = random.Random(7)
    names = [f"m{i % 40}.bin" for i in range(60)]  # (20 names listed twice)
    m = ChecksumModel([MemberCheck(n, "a" * 64) for n in names])
    statuses = ["ok", "mismatch", "cancelled", "pending", "unlisted", "refused"]
    for step in range(400):
        name = rng.choice(names + ["extra.bin"]) if step % 9 else f"new{step}.bin"
        m.update_member(MemberCheck(name, "a" * 64, "b" * 64, rng.choice(statuses)))
        assert m.checked == sum(1 for r in m.members() if r.status not in UNCHECKED)
    assert 0 < m.checked < m.rowCount()
    m.set_members(m.members()[:10])
    assert m.checked == sum(1 for r in m.members() if r.status not in UNCHECKED)


def test_the_banner_while_verifying_counts_as_the_verdict_does(qtbot):
    from inspector.ui.checksum_panel import ChecksumPanel

    members = [MemberCheck(f"m{i}.bin", "a" * 64) for i in range(5)]
    panel = ChecksumPanel(members)
    qtbot.addWidget(panel)
    panel.start()
    for i, status in enumerate(["ok", "mismatch", "ok", "cancelled"]):
        panel.on_progress(i + 1, 5, dataclasses.replace(members[i], status=status))
        assert panel.verdict == verdict_text(panel.model.members(), "verifying")[1]
    assert panel.verdict == "Verifying… 3 of 5 members checked"


def test_stimuli_model_requests_on_first_show(qapp):
    stims = [Stimulus(3, "array", "/stimuli_db/0", lambda: np.zeros((4, 4), np.uint8)),
             Stimulus("3", "path", "/stimuli_db/1", lambda: None)]
    m = StimuliModel(stims)
    asked = []
    m.thumbnail_requested.connect(asked.append)
    assert [m.index(r).data() for r in range(2)] == ["3", '"3"']
    assert asked == []
    m.index(1).data(D.DecorationRole)
    m.index(1).data(D.DecorationRole)
    assert asked == [1] and m.state(1) == STATE_LOADING
    m.set_failed(1, "FileNotFoundError: x.png")
    assert m.state(1) == STATE_FAILED and "x.png" in m.index(1).data(D.ToolTipRole)


@pytest.mark.parametrize("arr", [np.zeros((5, 6), np.uint8), np.ones((5, 6, 3), np.float32),
                                 np.arange(120, dtype=np.int16).reshape(5, 6, 4)])
def test_array_to_qimage(qapp, arr):
    from inspector.ui.image_convert import array_to_qimage, thumbnail

    img = array_to_qimage(arr)
    assert (img.width(), img.height()) == (6, 5)
    if arr.dtype == np.float32:
        assert img.pixelColor(0, 0).red() == 255
    t = thumbnail(arr, 96)
    assert max(t.width(), t.height()) == 96


def test_unused_index_is_invalid(qapp):
    assert NodeTreeModel(None).rowCount(QModelIndex()) == 0


def test_status_colours_follow_palette(qapp):
    from PySide6.QtGui import QColor, QPalette

    from inspector.models.style import is_dark, status_color

    light, dark = QPalette(), QPalette()
    light.setColor(QPalette.ColorRole.Window, QColor("#f0f0f0"))
    dark.setColor(QPalette.ColorRole.Window, QColor("#202020"))
    assert not is_dark(light) and is_dark(dark)
    for status in ("ok", "mismatch"):
        on_light, on_dark = status_color(status, light), status_color(status, dark)
        assert on_light.lightness() < 128 < on_dark.lightness()  # readable on each background
