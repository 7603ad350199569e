"""The trial selection of a window not warmed up waits for its modules to be imported off
the GUI thread (inspector.ui.trials_tab.SELECTION_MODULES), then is built as before."""

from __future__ import annotations

from inspector.runtime import preload
from inspector.ui import trials_tab
from tests.conftest import FIXTURES, open_window

EPOCHS = FIXTURES / "vneurotk" / "v1" / "epochs_dense_f64_strids.h5"


def test_the_selection_waits_for_its_modules_then_is_built(qtbot, monkeypatch):
    import importlib

    held: list[tuple[str, object]] = []
    imported: set[str] = set()
    real_loaded, real_when = preload.loaded, preload.when_imported

    def loaded(name):  # not imported yet, as before the window's warm-up
        if name in trials_tab.SELECTION_MODULES and name not in imported:
            return None
        return real_loaded(name)

    def when_imported(name, on_ready, on_error=None):
        if name in trials_tab.SELECTION_MODULES:
            held.append((name, on_ready))  # the background import, finished by the test
        else:
            real_when(name, on_ready, on_error)

    monkeypatch.setattr(preload, "loaded", loaded)
    monkeypatch.setattr(preload, "when_imported", when_imported)
    win = open_window(qtbot, EPOCHS, size=(1280, 800), show=True)
    tab = win.current_tab()
    qtbot.waitUntil(lambda: bool(held), timeout=20_000)
    waiting = tab.trials_tab
    assert waiting.importing and not waiting.is_idle() and not win.is_idle()
    assert getattr(tab, "selection", None) is None  # nothing built on the GUI thread yet
    waiting.add()  # a check's result asking again meanwhile adds nothing
    assert len(held) == 1 and getattr(tab, "selection", None) is None
    done = 0
    while done < len(held):  # each import finished in turn; the next one is asked for
        name, on_ready = held[done]
        imported.add(name)
        done += 1
        on_ready(importlib.import_module(name))
    assert sorted(n for n, _ in held) == sorted(trials_tab.SELECTION_MODULES)
    assert not waiting.importing
    assert tab.selection is not None
    assert len(tab.selection.trials) == 0  # built, nothing selected yet
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert "Trials" in titles
    qtbot.waitUntil(win.is_idle, timeout=20_000)


def test_the_modules_are_the_ones_add_imports():
    # every module the selection's construction imports is awaited (else it would be
    # imported on the GUI thread)
    import inspect

    src = inspect.getsource(trials_tab.TrialsTab._add_selection)
    for name in ("inspector.models.selection", "inspector.ui.trial_link",
                 "inspector.ui.representations"):
        assert f"from {name} import" in src
        assert name in trials_tab.SELECTION_MODULES
