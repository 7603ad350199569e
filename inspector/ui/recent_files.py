"""File > Open Recent: the files and folders the user opened, newest first.

Kept in ``QSettings`` under :data:`SETTINGS_KEY` (absolute paths, at most
:data:`LIMIT`).  Only what the user asked for is added (the window decides:
the bundled samples opened when no file is given and the files of a
``--screenshot`` run stay out).  Paths that no longer exist are not listed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu

#: Where the list is kept.
SETTINGS_KEY = "recent"
#: Where the folder of the last opened file is kept (the Open dialogs start there).
LAST_DIR_KEY = "lastDir"
#: Most entries kept.
LIMIT = 10
#: The menu entry that empties the list.
CLEAR_TEXT = "&Clear Recent"


def _absolute(path: str | Path) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):  # RuntimeError: a symbolic-link loop (Python < 3.13)
        return str(Path(path).absolute())


def recent_paths() -> list[str]:
    """The remembered paths, newest first (including ones that no longer exist)."""
    value: Any = QSettings().value(SETTINGS_KEY, []) or []
    if isinstance(value, str):  # QSettings returns a one-element list as a plain string
        value = [value]
    return [str(p) for p in value if p]


def add_recent(path: str | Path) -> None:
    """Put ``path`` first in the list (once) and remember its folder for the Open dialogs."""
    key = _absolute(path)
    recent = [p for p in recent_paths() if p != key]
    recent.insert(0, key)
    settings = QSettings()
    settings.setValue(SETTINGS_KEY, recent[:LIMIT])
    settings.setValue(LAST_DIR_KEY, str(Path(key).parent))  # a file's folder, a folder's parent


def clear_recent() -> None:
    """Forget every remembered path."""
    QSettings().remove(SETTINGS_KEY)


def last_dir() -> str:
    """The folder the Open dialogs start in ("" when none was remembered)."""
    return str(QSettings().value(LAST_DIR_KEY, "") or "")


def fill_recent_menu(menu: QMenu, open_path: Callable[[Path], object]) -> None:
    """Rebuild ``menu``: one entry per existing remembered path, then Clear Recent."""
    menu.clear()
    shown = [p for p in recent_paths() if Path(p).exists()]
    for p in shown:
        act = menu.addAction(p)
        act.triggered.connect(lambda _checked=False, p=p: open_path(Path(p)))
        act.setStatusTip(f"Open {p}")
    if not shown:
        menu.addAction("(none)").setEnabled(False)
    menu.addSeparator()
    clear = menu.addAction(CLEAR_TEXT, clear_recent)
    clear.setEnabled(bool(recent_paths()))
    clear.setStatusTip("Empty this list")
