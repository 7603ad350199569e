"""Themes: System, Light and Dark, chosen in View > Theme or with ``--theme``.

"System" is whatever Qt chose at start-up (the platform's style and palette,
or the ones given with Qt's own ``-style`` option).  "Light" and "Dark" use
Qt's Fusion style with a palette of their own, so they look the same on
every desktop.  The choice made in the menu is remembered in ``QSettings``
(key :data:`SETTINGS_KEY`); ``--theme`` applies to one run only.

Widgets follow a theme switch through Qt's palette-change events: item
models pick their colours from the application palette when they paint
(:mod:`inspector.models.style`), and the plots restyle themselves
(:mod:`inspector.ui.plots.theming`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QMenu, QStyleFactory

#: The themes offered, in menu order: name -> menu text.
THEMES = {"system": "&System", "light": "&Light", "dark": "&Dark"}
#: Where the menu's choice is kept.
SETTINGS_KEY = "theme"

_R = QPalette.ColorRole
_G = QPalette.ColorGroup

#: The dark palette: (role, active colour, disabled colour or None).
_DARK = [
    (_R.Window, "#2b2d30", None),
    (_R.WindowText, "#e4e4e4", "#7d7d7d"),
    (_R.Base, "#1e1f22", "#2b2d30"),
    (_R.AlternateBase, "#26282b", None),
    (_R.ToolTipBase, "#3b3e42", None),
    (_R.ToolTipText, "#ececec", None),
    (_R.PlaceholderText, "#8e9196", None),
    (_R.Text, "#e4e4e4", "#7d7d7d"),
    (_R.Button, "#34363a", None),
    (_R.ButtonText, "#e4e4e4", "#7d7d7d"),
    (_R.BrightText, "#ff6b6b", None),
    (_R.Light, "#4a4d52", None),
    (_R.Midlight, "#3c3f43", None),
    (_R.Mid, "#2f3134", None),
    (_R.Dark, "#18191b", None),
    (_R.Shadow, "#000000", None),
    (_R.Highlight, "#2f6bd0", "#3c3f43"),
    (_R.HighlightedText, "#ffffff", "#9a9a9a"),
    (_R.Link, "#7aa9ff", None),
    (_R.LinkVisited, "#c29bff", None),
]


class _Startup:
    """The style Qt chose before any theme was applied ("System")."""

    style: str | None = None


def _remember_startup(app: QApplication) -> None:
    if _Startup.style is None:
        _Startup.style = app.style().name()


def dark_palette() -> QPalette:
    """The palette of the Dark theme (Fusion style)."""
    pal = QPalette()
    for role, active, disabled in _DARK:
        pal.setColor(role, QColor(active))
        if disabled is not None:
            pal.setColor(_G.Disabled, role, QColor(disabled))
    return pal


def light_palette() -> QPalette:
    """The palette of the Light theme: Fusion's own standard palette."""
    fusion = QStyleFactory.create("Fusion")
    return fusion.standardPalette() if fusion is not None else QPalette()


def normalise(name: str | None) -> str:
    """``name`` as a known theme (case-insensitive), ``"system"`` for anything else."""
    key = (name or "").strip().lower()
    return key if key in THEMES else "system"


def saved_theme() -> str:
    """The theme chosen last in View > Theme (``"system"`` when never chosen)."""
    return normalise(str(QSettings().value(SETTINGS_KEY, "system") or "system"))


def save_theme(name: str) -> None:
    """Remember ``name`` for the next start."""
    QSettings().setValue(SETTINGS_KEY, normalise(name))


def current_theme() -> str:
    """The theme applied last (``"system"`` before any)."""
    app = QApplication.instance()
    value = app.property("inspectorTheme") if app is not None else None
    return normalise(str(value) if value else None)


def apply_theme(name: str) -> str:
    """Apply theme ``name`` (``system``, ``light`` or ``dark``) to the application.

    Returns the theme applied (unknown names mean ``"system"``).  Qt sends
    every widget a palette-change event, which the views use to restyle.

    Raises:
        RuntimeError: no ``QApplication`` exists yet.
    """
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        raise RuntimeError("apply_theme needs a QApplication")
    _remember_startup(app)
    theme = normalise(name)
    hints = QGuiApplication.styleHints()
    if theme == "system":
        if current_theme() == "system":
            return theme  # nothing applied yet: leave Qt's choice (and its live updates) alone
        if _Startup.style and app.style().name() != _Startup.style:
            app.setStyle(_Startup.style)
        app.setPalette(QPalette())  # an empty palette resets to the style's (or platform's)
        if hasattr(hints, "unsetColorScheme"):
            hints.unsetColorScheme()
    else:
        if app.style().name().lower() != "fusion":
            app.setStyle("Fusion")
        if hasattr(hints, "setColorScheme"):
            hints.setColorScheme(Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light)
        app.setPalette(dark_palette() if theme == "dark" else light_palette())
    app.setProperty("inspectorTheme", theme)
    return theme


def add_theme_menu(menu: QMenu, owner: QObject,
                   on_change: Callable[[str], None] | None = None) -> QMenu:
    """Add View > Theme (System, Light, Dark) to ``menu``; the choice is applied and saved.

    ``on_change(theme)`` is called after a switch (the window refreshes
    what the palette does not reach, e.g. tab icons).
    """
    sub = menu.addMenu("&Theme")
    group = QActionGroup(owner)
    group.setExclusive(True)
    current = current_theme()
    for key, text in THEMES.items():
        act = QAction(text, owner, checkable=True)
        act.setData(key)
        act.setChecked(key == current)
        act.setStatusTip(f"Use the {key} theme (remembered for the next start)")
        group.addAction(act)
        sub.addAction(act)

    def chosen(act: QAction) -> None:
        theme = apply_theme(str(act.data()))
        save_theme(theme)
        if on_change is not None:
            on_change(theme)

    def mark_current() -> None:
        for act in group.actions():
            act.setChecked(act.data() == current_theme())

    group.triggered.connect(chosen)
    sub.aboutToShow.connect(mark_current)
    return sub
