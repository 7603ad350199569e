"""The one export menu of every plot: PNG at a chosen scale, SVG, CSV of the plotted data.

pyqtgraph puts a second "Export…" entry (its own export dialog) into every
plot's context menu; it is removed here so that a plot has one menu whose
entries say what they write:

- "Export as PNG…": the plot rendered at a scale of its size on screen
  (:data:`DEFAULT_SCALE` = 2, so that it stays sharp in documents and on
  high-density screens; the last scale chosen is remembered);
- "Export as SVG…": vector curves (:meth:`PlotView.export_svg`);
- "Export plotted data as CSV…": what is drawn, one row per point
  (:meth:`PlotView.export_csv`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QWidget,
)


class PlotView(Protocol):
    """What the export menu needs of a plot view (:class:`inspector.ui.plots.base.PlotView`)."""

    plot_item: Any
    plot_widget: Any

    def ask_png_scale(self) -> float | None: ...
    def ask_export_path(self, kind: str) -> Path | None: ...
    def export_png(self, path: Path, width: int | None = None,
                   scale: float = ...) -> tuple[int, int]: ...

#: PNG scale offered first: twice the size on screen.
DEFAULT_SCALE = 2.0
#: Largest PNG scale offered.
MAX_SCALE = 8.0
#: Where the last PNG scale is kept.
SCALE_KEY = "plotExport/pngScale"
#: The context-menu entries, in order: (text, kind).
ENTRIES = (("Export as PNG…", "png"), ("Export as SVG…", "svg"),
           ("Export plotted data as CSV…", "csv"))
FILTERS = {"png": "PNG image (*.png)", "svg": "SVG image (*.svg)", "csv": "CSV table (*.csv)"}


def screen_size(view: PlotView) -> tuple[int, int]:
    """The plot's size on screen in pixels ``(width, height)`` (what a 1x PNG has)."""
    rect = view.plot_item.sceneBoundingRect()
    return max(1, round(rect.width())), max(1, round(rect.height()))


def saved_scale() -> float:
    """The PNG scale chosen last (:data:`DEFAULT_SCALE` when none was)."""
    try:
        value = float(str(QSettings().value(SCALE_KEY, DEFAULT_SCALE)))
    except (TypeError, ValueError):
        return DEFAULT_SCALE
    return min(max(value, 0.5), MAX_SCALE)


def render_png(view: PlotView, path: Path, scale: float = DEFAULT_SCALE,
               width: int | None = None) -> tuple[int, int]:
    """Write the plot as a PNG ``scale`` times its size on screen (or ``width`` pixels wide).

    Text, lines and symbols are drawn at the larger size, not enlarged
    afterwards.  Returns the image size ``(width, height)`` in pixels.

    Raises:
        OSError: the file could not be written.
    """
    import pyqtgraph.exporters as ex

    w0, h0 = screen_size(view)
    target = int(width) if width else max(1, round(w0 * scale))
    exporter = ex.ImageExporter(view.plot_item)
    exporter.parameters()["width"] = target
    exporter.export(str(path))
    image = exporter.png
    if image is None or image.isNull() or not Path(path).is_file():
        raise OSError(f"could not write {path}")
    return image.width(), image.height()


class PngScaleDialog(QDialog):
    """Asks for the PNG scale, showing the pixel size it gives."""

    def __init__(self, size: tuple[int, int], scale: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export as PNG")
        self._size = size
        self.scale = QDoubleSpinBox(self)
        self.scale.setRange(0.5, MAX_SCALE)
        self.scale.setSingleStep(0.5)
        self.scale.setDecimals(1)
        self.scale.setSuffix(" × screen size")
        self.scale.setValue(scale)
        self.pixels = QLabel(self)
        self.scale.valueChanged.connect(self._update)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Scale:", self.scale)
        form.addRow("Image size:", self.pixels)
        form.addRow(buttons)
        self._update()

    def _update(self) -> None:
        w, h = (max(1, round(v * self.scale.value())) for v in self._size)
        self.pixels.setText(f"{w} × {h} pixels")


def ask_png_scale(view: PlotView) -> float | None:
    """Ask for the scale of a PNG export (None if cancelled); remembers the answer."""
    parent: Any = view
    dlg = PngScaleDialog(screen_size(view), saved_scale(), parent)
    if dlg.exec() != QDialog.DialogCode.Accepted:
        return None
    value = float(dlg.scale.value())
    QSettings().setValue(SCALE_KEY, value)
    return value


def ask_export(view: PlotView, kind: str) -> Path | None:
    """Context-menu entry ``kind`` (png, svg, csv): ask, write, return the path (None if not)."""
    scale = DEFAULT_SCALE
    if kind == "png":
        asked = view.ask_png_scale()
        if asked is None:
            return None
        scale = asked
    path = view.ask_export_path(kind)
    if path is None:
        return None
    if kind == "png":
        view.export_png(path, scale=scale)
    else:
        getattr(view, f"export_{kind}")(path)
    return path


def ask_path(view: PlotView, kind: str) -> Path | None:
    """The save dialog of export ``kind`` (None if cancelled)."""
    parent: Any = view
    name, _ = QFileDialog.getSaveFileName(parent, f"Export {kind.upper()}", f"plot.{kind}",
                                          FILTERS[kind])
    if not name:
        return None
    path = Path(name)
    return path if path.suffix else path.with_suffix(f".{kind}")


def install_export_menu(view: PlotView) -> None:
    """Add the export entries to ``view``'s plot menu (pyqtgraph's "Export…" is taken out by
    :func:`inspector.ui.plots.plot_menu.strip_pyqtgraph_entries`)."""
    menu = view.plot_item.vb.menu
    menu.addSeparator()
    for text, kind in ENTRIES:
        menu.addAction(text, lambda kind=kind: ask_export(view, kind))
