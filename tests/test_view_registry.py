"""Issue 37.2: one place chooses the views (ui/tab_views.py, ui/plots/registry.py).

Each corpus document gets the view its capabilities call for, and a view added
with one registration line appears for the documents it wants, nowhere else.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from inspector.formats import open_document
from inspector.ui import tab_views
from inspector.ui.plots import registry
from inspector.ui.plots.base import PlotView
from inspector.ui.plots.panel import PlotPanel
from tests.conftest import FIXTURES, open_window

REC = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"
PATTERNS = FIXTURES / "vneurotk" / "v1" / "patterns_stim_index.h5"
ARCHIVE = FIXTURES / "aucx" / "src_demo_experiment.aucx"


def _chosen(doc, name: str) -> str:
    view = registry.choose(registry.ViewRequest(doc, name, doc.arrays.get(name), jobs=None))
    return view.title if view is not None else ""


@pytest.mark.parametrize(("path", "name", "title"), [
    (REC, "neuro", registry.LINES.title),
    (REC, "vision_store/0", registry.FEATURES.title),
    (REC, "vision_store/1", registry.FEATURES.title),
    (PATTERNS, "neuro", registry.PATTERNS.title),
    (PATTERNS, "vision_store/0", registry.FEATURES.title),
    (ARCHIVE, "signal", registry.AUC.title),
    (ARCHIVE, "radius", registry.AUC.title),
])
def test_each_array_gets_the_view_of_highest_priority(path, name, title):
    doc = open_document(path)
    try:
        assert _chosen(doc, name) == title
    finally:
        doc.close()


def test_the_trials_cut_the_one_array_they_declare():
    doc = open_document(REC)
    try:
        assert doc.neural_array() is doc.trials.neural is doc.arrays["neuro"]
        assert doc.trial_table() is doc.tables["trial_meta"]
        assert [f.array for f in doc.features] == [doc.arrays["vision_store/0"],
                                                   doc.arrays["vision_store/1"]]
        assert [f.axes for f in doc.features] == [("stimulus", "feature"),
                                                  ("stimulus", "axis 1", "feature")]
    finally:
        doc.close()


class _Marked(PlotView):
    """A stand-in view registered by a plug-in."""


def test_an_array_view_registered_in_one_line_is_chosen_where_it_ranks_first(
        qtbot, jobs, monkeypatch):
    monkeypatch.setattr(registry, "ARRAY_VIEWS", list(registry.ARRAY_VIEWS))
    registry.register(registry.ArrayView(
        "marked", lambda r: 60 if r.ref is not None and r.ref.ndim == 3 else None,
        lambda r: _Marked()))
    doc = open_document(REC)
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.show_array("vision_store/1")  # 3-D: the new view outranks the features (50)
    assert isinstance(panel.view, _Marked)
    panel.show_array("vision_store/0")  # 2-D: not wanted, the features view as before
    assert type(panel.view).__name__ == "FeatureView"


def test_a_tab_view_registered_in_one_line_appears_in_its_order(qtbot, monkeypatch):
    monkeypatch.setattr(tab_views, "TAB_VIEWS", list(tab_views.TAB_VIEWS))

    def add(tab) -> None:
        tab.views.addTab(QLabel(f"{len(tab.doc.features)} feature records"), "Features")

    tab_views.register(tab_views.TabView("Features", 55,
                                         lambda doc: bool(doc.features), add))
    win = open_window(qtbot, REC, ARCHIVE)
    rec, archive = win.document_tabs()
    titles = [rec.views.tabText(i) for i in range(rec.views.count())]
    assert titles == ["Header", "Trial metadata", "Provenance", "Stimuli (4)",
                      "Features", "Trials", "RSA"]
    assert "Features" not in [archive.views.tabText(i)
                                     for i in range(archive.views.count())]
