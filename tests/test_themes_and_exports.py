"""Themes (View > Theme, --theme, Qt's own options) and the one plot export menu."""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication

from inspector import cli
from inspector.models.style import is_dark
from inspector.ui import plot_export
from inspector.ui.plots import AucView, PlotPanel
from inspector.ui.theme import apply_theme, current_theme, dark_palette, saved_theme
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[1]
DEMO = FIXTURES / "aucx" / "src_demo_experiment.aucx"
FLIP = FIXTURES / "aucx" / "multi_signal_flip_unlisted_member_bad_line.aucx"
REC = FIXTURES / "vneurotk" / "v1" / "continuous_dense_f32_intids.h5"


@pytest.fixture()
def system_theme_after(qtbot):
    """The theme is application-wide: every test leaves the System theme behind."""
    yield
    apply_theme("system")


def _auc_panel(qtbot, jobs, path=DEMO):
    from inspector.formats import open_document

    doc = open_document(path)
    doc.verify()  # checksums checked: members that failed them are known
    panel = PlotPanel(doc, jobs)
    qtbot.addWidget(panel)
    panel.resize(800, 450)
    panel.show()
    panel.show_array(panel.default_array())
    qtbot.waitUntil(lambda: isinstance(panel.view, AucView) and panel.view.ready
                    and panel.view.drawn >= 1 and not panel.view.busy, timeout=10_000)
    return panel, doc


# -- Qt's own command-line options ----------------------------------------------------
def test_qt_options_are_split_from_ours():
    ours, qt = cli.split_qt_options(
        ["-style", "Fusion", "a.h5", "--theme", "dark", "-platform=offscreen", "--platform",
         "xcb", "-reverse", "--screenshot", "x.png", "--", "-style"])
    assert qt == ["-style", "Fusion", "-platform=offscreen", "--platform", "xcb", "-reverse"]
    assert ours == ["a.h5", "--theme", "dark", "--screenshot", "x.png", "--", "-style"]
    assert cli.split_qt_options(["-stylesheet=a.qss", "b.aucx"]) == (["b.aucx"],
                                                                     ["-stylesheet=a.qss"])


def test_the_window_accepts_qt_options_and_a_theme(monkeypatch):
    seen = {}

    def run_gui(files, **kwargs):
        seen.update(files=files, **kwargs)
        return 0

    import inspector.app

    monkeypatch.setattr(inspector.app, "run_gui", run_gui)
    assert cli.main(["-style", "Fusion", "--theme", "DARK", str(REC)]) == 0
    assert seen["files"] == [str(REC)] and seen["theme"] == "dark"
    assert seen["qt_options"] == ["-style", "Fusion"]


def test_an_unknown_theme_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--theme", "sepia"])
    assert exc.value.code == 2 and "--theme" in capsys.readouterr().err


# -- themes -----------------------------------------------------------------------------
@pytest.mark.slow
def test_dark_and_light_themes_switch_the_palette_and_the_plots(qtbot, jobs, system_theme_after):
    panel, doc = _auc_panel(qtbot, jobs, FLIP)
    view = panel.view
    light_first = QColor(view.colors[0])
    assert apply_theme("dark") == "dark" and current_theme() == "dark"
    qtbot.wait(50)
    app = QApplication.instance()
    assert app.style().name().lower() == "fusion" and is_dark()
    base = view.palette().color(QPalette.ColorRole.Base)
    assert base == dark_palette().color(QPalette.ColorRole.Base)
    assert view.plot_widget.backgroundBrush().color() == base  # the plot followed
    text = view.palette().color(QPalette.ColorRole.Text)
    assert view.plot_item.getAxis("left").textPen().color() == text
    assert view.colors[0] != light_first  # scans skip viridis' darkest end on dark
    swatch = view.scan_list.item(0).icon().pixmap(12, 12).toImage().pixelColor(6, 6)
    assert swatch.name() == QColor(view.colors[0]).name()
    again, doc2 = _auc_panel(qtbot, jobs, FLIP)  # a view built in the dark theme
    assert [c.name() for c in again.view.colors] == [QColor(c).name() for c in view.colors]
    doc2.close()
    assert "not verified" in panel.warning_text()
    assert panel.warning_text() in view.plot_item.titleLabel.text  # said once, on the plot
    apply_theme("light")
    qtbot.wait(50)
    assert not is_dark() and view.plot_widget.backgroundBrush().color().lightness() > 200
    assert panel.warning_text() in view.plot_item.titleLabel.text  # still said in light
    apply_theme("system")
    assert current_theme() == "system"
    doc.close()


def test_the_theme_menu_applies_and_remembers(qtbot, system_theme_after):
    from inspector.ui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    actions = {a.data(): a for a in win.theme_menu.actions()}
    assert list(actions) == ["system", "light", "dark"]
    assert actions["system"].isChecked()
    actions["dark"].trigger()
    assert current_theme() == "dark" and saved_theme() == "dark" and actions["dark"].isChecked()
    assert QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128
    actions["system"].trigger()
    assert saved_theme() == "system" and not is_dark()


def _settings(config_home: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser()
    parser.read([str(p) for p in config_home.rglob("*.conf")])
    return parser


def _run(args: list[str], config_home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(config_home)}
    env.pop("QT_QPA_PLATFORM", None)  # the platform comes from Qt's own option below
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=180)


@pytest.mark.slow
def test_screenshot_with_qt_options_dark_and_not_remembered(tmp_path):
    config = tmp_path / "config"
    shot = tmp_path / "dark.png"
    out = _run(["-platform", "offscreen", "-style", "Fusion", "--theme", "dark",
                "--screenshot", str(shot), "--size", "900x600", str(REC)], config)
    assert out.returncode == 0, out.stderr
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (900, 600)
    assert image.pixelColor(450, 598).lightness() < 100  # the dark theme's window colour
    settings = _settings(config)
    recent = [v for s in settings.sections() for k, v in settings[s].items() if k == "recent"]
    assert recent == []  # a screenshot run leaves Open Recent alone
    assert all(v != "dark" for s in settings.sections() for k, v in settings[s].items()
               if k == "theme")  # --theme is for one run


# -- the export menu ---------------------------------------------------------------------
def _menu_texts(view) -> list[str]:
    vb = view.plot_item.vb
    menu = vb.getMenu(None)
    view.plot_widget.scene().addParentContextMenus(vb, menu, SimpleNamespace(acceptedItem=vb))
    return [a.text() for a in menu.actions() if a.text()]


def test_one_export_menu_without_pyqtgraphs_export_dialog(qtbot, jobs):
    panel, doc = _auc_panel(qtbot, jobs)
    texts = _menu_texts(panel.view)
    assert [t for t in texts if "xport" in t] == [text for text, _ in plot_export.ENTRIES]
    assert "Export..." not in texts and panel.view.plot_widget.scene().contextMenu == []
    doc.close()


@pytest.mark.slow
def test_png_is_twice_the_screen_size_by_default(qtbot, jobs, tmp_path):
    panel, doc = _auc_panel(qtbot, jobs)
    view = panel.view
    w, h = plot_export.screen_size(view)
    size = view.export_png(tmp_path / "a.png")
    image = QImage(str(tmp_path / "a.png"))
    assert size == (image.width(), image.height())
    assert abs(image.width() - 2 * w) <= 1 and abs(image.height() - 2 * h) <= 2
    assert view.export_png(tmp_path / "b.png", width=300)[0] == 300  # the old width= still works
    doc.close()


@pytest.mark.slow
def test_menu_entries_ask_then_write(qtbot, jobs, tmp_path):
    panel, doc = _auc_panel(qtbot, jobs)
    view = panel.view
    view.ask_png_scale = lambda: 3.0
    view.ask_export_path = lambda kind: tmp_path / f"plot.{kind}"
    menu = {a.text(): a for a in view.plot_item.vb.menu.actions()}
    for text, _kind in plot_export.ENTRIES:
        menu[text].trigger()
    w, _h = plot_export.screen_size(view)
    assert abs(QImage(str(tmp_path / "plot.png")).width() - 3 * w) <= 1
    assert b"<svg" in (tmp_path / "plot.svg").read_bytes()[:2000]
    lines = (tmp_path / "plot.csv").read_text().splitlines()
    assert lines[0] == "curve,x [cm],y [AU]" and len(lines) == 1 + 4 * 12
    view.ask_png_scale = lambda: None  # cancelled: nothing asked, nothing written
    (tmp_path / "plot.png").unlink()
    menu["Export as PNG…"].trigger()
    assert not (tmp_path / "plot.png").exists()
    doc.close()


def test_scale_dialog_shows_the_pixel_size(qtbot):
    dlg = plot_export.PngScaleDialog((346, 366), plot_export.DEFAULT_SCALE)
    qtbot.addWidget(dlg)
    assert dlg.scale.value() == 2.0 and dlg.pixels.text() == "692 × 732 pixels"
    dlg.scale.setValue(4.0)
    assert dlg.pixels.text() == "1384 × 1464 pixels"
    assert plot_export.saved_scale() == plot_export.DEFAULT_SCALE
