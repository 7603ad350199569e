"""Graphics items never outlive what owns them: a bare plot widget's parts made over several
event-loop turns (``ui.plots.base.plot_widget_in_steps``) are deleted when the build stops
half-way, and a drive (``ui.turns.run_in_turns``) whose owner is deleted lets go of its steps.

Left alive, such parts were Python-owned graphics items in no scene until PySide's shutdown
deleted them; those are what these tests look for.
"""

from __future__ import annotations

import gc
import weakref

import pytest
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QGraphicsItem, QWidget
from shiboken6 import Shiboken

from inspector.ui.plots.base import plot_widget_in_steps
from inspector.ui.turns import run_in_turns

#: The steps of ``plot_widget_in_steps`` before its widget (it yields None 3 times).
PART_STEPS = 3


def _parts_made(steps) -> list[QGraphicsItem]:
    """The graphics items a suspended ``plot_widget_in_steps`` holds (its frame's locals,
    and those of the ``plot_item_in_steps`` it is suspended in)."""
    names = ("view_box", "axes", "item")
    out: list[QGraphicsItem] = []
    while steps is not None:
        for name, value in steps.gi_frame.f_locals.items():
            if name in names:
                out.extend(value.values() if isinstance(value, dict) else [value])
        steps = steps.gi_yieldfrom
    return out


@pytest.mark.parametrize("made", range(1, PART_STEPS + 1))
def test_a_closed_build_deletes_the_parts_it_made(qapp, made):
    steps = plot_widget_in_steps()
    for _ in range(made):
        assert next(steps) is None
    parts = _parts_made(steps)
    assert parts and all(Shiboken.isValid(p) and p.scene() is None for p in parts)
    steps.close()
    assert [Shiboken.isValid(p) for p in parts] == [False] * len(parts)


def test_a_finished_build_keeps_its_widget(qapp):
    steps = plot_widget_in_steps()
    widget = None
    while widget is None:
        widget = next(steps)
    steps.close()
    item = widget.getPlotItem()
    assert Shiboken.isValid(widget) and Shiboken.isValid(item)
    assert item.scene() is widget.scene() and item.vb.scene() is widget.scene()
    widget.deleteLater()


class _Marker:
    """Held by the steps of a drive: alive as long as they are."""


def _steps(marker: _Marker, log: list[str]):
    try:
        for _ in range(5):
            yield None
        yield "done"
    finally:
        log.append("closed")
        del marker


@pytest.mark.parametrize("taken", [1, 2, 3])
def test_a_drive_whose_owner_is_deleted_closes_its_steps(qapp, qtbot, taken):
    owner = QWidget()
    marker = _Marker()
    alive = weakref.ref(marker)
    log: list[str] = []
    results: list[object] = []
    run_in_turns(owner, _steps(marker, log), on_result=results.append)
    del marker
    for _ in range(taken - 1):
        qapp.processEvents()
    Shiboken.delete(owner)
    qtbot.waitUntil(lambda: log == ["closed"], timeout=2000)
    gc.collect()
    assert alive() is None and results == []


def test_a_drive_whose_owner_lives_gives_its_result(qapp, qtbot):
    owner = QObject()
    log: list[str] = []
    results: list[object] = []
    run_in_turns(owner, _steps(_Marker(), log), on_result=results.append)
    qtbot.waitUntil(lambda: results == ["done"], timeout=2000)
    assert log == ["closed"]
