"""The two heat-map views (a ``patterns`` array, a vision record's features) share their
read and its failure (:mod:`inspector.ui.plots.heat_map`): a read that fails because of
the file shows why instead of the plot and gives the document the format's finding; a
read that succeeds draws the values read (pytest-qt, offscreen)."""

from __future__ import annotations

import numpy as np
import pytest

from inspector.formats.analysis.arrays import NumpyArrayRef
from inspector.formats.capabilities import StimulusFeatures
from inspector.formats.hdf5 import rules as R
from inspector.ui.plots.features import FeatureView
from inspector.ui.plots.patterns import PatternView


class BrokenRef(NumpyArrayRef):
    """An array whose stored values cannot be read back (a damaged chunk)."""

    unreadable_rule = R.DATA_UNREADABLE

    def read(self, selection=Ellipsis):
        raise OSError("chunk 3 fails its filter")


def _view(kind, ref, jobs):
    if kind == "patterns":
        return PatternView(ref, jobs)
    return FeatureView(StimulusFeatures(ref, tuple(range(ref.shape[0])),
                                        ("stimulus", "feature")), [], jobs)


@pytest.mark.parametrize("kind", ["patterns", "features"])
def test_a_failed_read_shows_why_and_reports_the_finding(qtbot, jobs, kind):
    ref = BrokenRef("vision_store/0/array", np.zeros((4, 6)), location="/vision_store/0/array")
    view = _view(kind, ref, jobs)
    qtbot.addWidget(view)
    found = []
    view.finding.connect(found.append)
    qtbot.waitUntil(view.is_idle, timeout=10000)
    assert view.placeholder_text() == \
        "cannot read vision_store/0/array: chunk 3 fails its filter"
    assert [(f.code, f.location) for f in found] == \
        [(R.DATA_UNREADABLE.code, "/vision_store/0/array")]
    assert view.image is None


@pytest.mark.parametrize("kind", ["patterns", "features"])
def test_a_read_draws_the_values_and_says_their_range(qtbot, jobs, kind):
    values = np.arange(24, dtype=np.float64).reshape(4, 6)
    view = _view(kind, NumpyArrayRef("a", values), jobs)
    qtbot.addWidget(view)
    qtbot.waitUntil(view.is_idle, timeout=10000)
    np.testing.assert_array_equal(view.image, values)
    assert view.placeholder_text() is None
    assert view.status.text().endswith("range 0 … 23")
    assert view.colorbar is not None and tuple(view.colorbar.values) == (0.0, 23.0)
