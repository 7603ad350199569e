"""Nothing essential elided (pytest-qt, offscreen): cells are shortened at whole words,
keeping numbers with their units; statuses are never shortened (their column is as wide as
the widest status); a row's name takes room from its value before it is cut; a list of
channel names is shown as the names."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QStyleOptionViewItem, QTreeView

from inspector.formats.capabilities import MemberCheck
from inspector.formats.hdf5.values import display_checked
from inspector.models.checksum_model import STATUS_TEXT
from inspector.models.value_text import value_text, value_type_name
from inspector.ui.columns import DETAILS, NAME, TREE_FLOORS, VALUE, tree_widths
from inspector.ui.elide import elide_words, is_number_like


def shown_text(view, index) -> str:
    """The text the view's delegate draws in ``index``'s cell."""
    opt = QStyleOptionViewItem()
    opt.widget = view
    opt.rect = view.visualRect(index)
    opt.font = view.font()
    opt.fontMetrics = view.fontMetrics()
    view.itemDelegate().initStyleOption(opt, index)
    return opt.text


def chars(width):
    return lambda s: len(s) <= width


def test_a_number_keeps_its_unit():
    # "manifest, 303 …" dropped the unit; the number and its unit are one word
    assert elide_words("manifest, 303 bytes", chars(15)) == "… 303 bytes"
    assert elide_words("data file, 12,924 bytes", chars(18)) == "… 12,924 bytes"
    assert elide_words("2 of 2 scan(s) have no rotor speed", chars(16)) == "2 of 2 scan(s) …"


def test_words_and_numbers_stay_whole():
    assert elide_words("manifest, 12 924 bytes", chars(16)) == "… 12 924 bytes"
    assert elide_words("(480, 6) float32, chunked (60, 6), gzip, shuffle",
                       chars(22)) == "(480, 6) float32, …"
    assert elide_words("dev/vit-tiny-patch16 / blocks.0", chars(40)) == \
        "dev/vit-tiny-patch16 / blocks.0"
    assert elide_words("MISMATCH", chars(6)) == "…MATCH"  # one word: its end
    assert is_number_like("12924") and is_number_like('"1.5e-3"') and not is_number_like("abc1")
    for text in ("a bb ccc 1234 dd", "x 1 2 3 4 5 6 7 8 9", "no digits at all here"):
        for width in range(1, len(text) + 1):
            got = elide_words(text, chars(width))
            assert len(got) <= width or got == "…"
            pieces = got.replace("…", " ").split()
            assert all(p in text.split(" ") or text.endswith(p) for p in pieces)


def _tree(qtbot, texts, width):
    from inspector.ui.columns import use_word_elision

    model = QStandardItemModel()
    for t in texts:
        model.appendRow([QStandardItem(t)])
    view = QTreeView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.setRootIsDecorated(False)
    use_word_elision(view)
    view.setColumnWidth(0, width)
    view.resize(width + 40, 200)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_a_size_keeps_its_number_and_unit_in_a_narrow_column(qtbot):
    view = _tree(qtbot, ["manifest, 12 924 bytes"], 0)
    metrics = view.fontMetrics()
    full = metrics.horizontalAdvance("manifest, 12 924 bytes")
    view.setColumnWidth(0, metrics.horizontalAdvance("… 12 924 bytes") + 12)
    assert full > view.columnWidth(0)
    got = shown_text(view, view.model().index(0, 0))
    assert got == "… 12 924 bytes"  # Qt's own elision gave "manifest,…924 bytes"
    view.setColumnWidth(0, full + 40)
    assert shown_text(view, view.model().index(0, 0)) == "manifest, 12 924 bytes"


def _checksum_panel(qtbot, members, width):
    from inspector.ui.checksum_panel import ChecksumPanel

    panel = ChecksumPanel(members)
    qtbot.addWidget(panel)
    panel.resize(width, 300)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.wait(50)
    return panel


def test_the_checksum_status_column_holds_its_widest_status(qtbot):
    members = [MemberCheck(f"arrays/signal_{i:03d}.npy", "a" * 64, "b" * 64, status)
               for i, status in enumerate(["ok", "mismatch", "missing-member", "unlisted"])]
    panel = _checksum_panel(qtbot, members, 520)  # the table of an archive at 1024x640
    view = panel.view
    widest = max(view.fontMetrics().horizontalAdvance(STATUS_TEXT[m.status]) for m in members)
    assert widest + 16 <= view.columnWidth(1) <= widest + 16 + 24  # text and icon, no more
    for row in range(4):
        index = view.model().index(row, 1)
        assert shown_text(view, index) == index.data()  # "MISMATCH", never "MI…CH"
    assert sum(view.columnWidth(c) for c in range(4)) <= view.viewport().width() + 1
    # a wider status streamed in widens the column
    panel.on_progress(1, 4, MemberCheck("arrays/signal_000.npy", "a" * 64, None, "cancelled"))
    qtbot.waitUntil(lambda: view.columnWidth(1) >= view.fontMetrics().horizontalAdvance(
        STATUS_TEXT["cancelled"]) + 16, timeout=2000)
    assert shown_text(view, view.model().index(0, 1)) == STATUS_TEXT["cancelled"]


def test_a_narrow_checksum_table_keeps_names_ends_and_headers_whole(qtbot):
    """The table of an archive in a 900 px window (its pane about 400 px wide)."""
    names = ["manifest.json", "experiment.json", "provenance.json", "arrays/radius.npy",
             "arrays/signal.npy", "extras/unlisted.bin", "checksums.sha256"]
    statuses = ["ok", "ok", "malformed-entry", "ok", "mismatch", "unlisted", "ok"]
    members = [MemberCheck(n, None if s == "unlisted" else "c" * 64, "d" * 64, s)
               for n, s in zip(names, statuses, strict=True)]
    panel = _checksum_panel(qtbot, members, 400)
    view = panel.view
    header = view.horizontalHeader()
    for c in range(4):  # every header whole ("Recorded", never "Record…")
        assert view.columnWidth(c) >= header.sectionSizeHint(c), header.model().headerData(
            c, header.orientation())
    assert sum(view.columnWidth(c) for c in range(4)) <= view.viewport().width() + 1
    model = view.model()
    for row, name in enumerate(names):
        shown = shown_text(view, model.index(row, 0))
        assert shown == name or (shown.startswith("…") and name.endswith(shown[1:])), shown
        assert model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole) == name
        status = model.index(row, 1)
        assert shown_text(view, status) == status.data()
    assert model.index(5, 2).data() == "—"
    assert "not listed" in model.index(5, 2).data(Qt.ItemDataRole.ToolTipRole)
    assert "SHA-256" in model.headerData(2, Qt.Orientation.Horizontal,
                                         Qt.ItemDataRole.ToolTipRole)


def test_a_name_cut_takes_room_from_a_value_above_its_floor():
    natural = {NAME: 230, VALUE: 260, 2: 40, DETAILS: 60}  # a provenance block at 1024x640
    widths = tree_widths(natural, 440)
    assert widths[NAME] == 230  # the whole name
    assert widths[VALUE] >= TREE_FLOORS[VALUE] and sum(widths.values()) == 440
    tight = tree_widths(natural, 380)  # the value gives up to its floor, no further
    assert tight[VALUE] == TREE_FLOORS[VALUE] and tight[NAME] < 230


def test_a_list_of_channel_names_is_shown_as_the_names():
    names = np.array([f"E{i}" for i in range(96)], dtype=object)
    value, ok = display_checked(names)
    assert ok and value == [f"E{i}" for i in range(96)]
    assert value_type_name(value) == "list"
    assert value_text(value).startswith('["E0", "E1", "E2"')
    fixed = np.array([f"ch{i}".encode() for i in range(96)])  # fixed-length bytes
    assert display_checked(fixed)[0][:2] == ["ch0", "ch1"]
    big = np.zeros(1000)
    assert display_checked(big)[0] == "array(1000,) float64"  # numbers: still a summary


def test_a_digest_keeps_both_ends_and_words_keep_their_reading_order(qtbot):
    from inspector.ui.elide import elide_in

    assert not is_number_like("0213482a33acb5f1") and is_number_like("12,924")
    assert elide_words("(not listed)", chars(9)) == "(not …"  # never "… listed)"
    view = _tree(qtbot, ["0213482a33acb5f19e2d7c"], 200)
    metrics = view.fontMetrics()
    shown = elide_in(metrics, "0213482a33acb5f19e2d7c", metrics.horizontalAdvance("0213482a3…"))
    assert shown.startswith("02") and shown.endswith("7c") and "…" in shown  # both ends
