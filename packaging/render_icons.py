"""Render the hand-drawn SVG icons in ``resources/icons`` to the committed PNG sizes.

Run once after editing an SVG (the PNGs are committed, so no SVG renderer is a
runtime dependency)::

    QT_QPA_PLATFORM=offscreen python packaging/render_icons.py

Uses PySide6's QtSvg (part of PySide6-Essentials). Writes
``resources/icons/<name>-<size>.png`` for every size in ``SIZES``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
NAMES = ("org.vneurotk.Inspector", "application-x-aucx")
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def render(svg: Path, size: int) -> QImage:
    """Render ``svg`` to a ``size`` x ``size`` ARGB32 image with a transparent background."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not a valid SVG for QSvgRenderer")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - keeps Qt alive
    for name in NAMES:
        svg = ICONS / f"{name}.svg"
        for size in SIZES:
            out = ICONS / f"{name}-{size}.png"
            if not render(svg, size).save(str(out), "PNG"):
                raise OSError(f"could not write {out}")
            print(f"wrote {out.relative_to(ICONS.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
