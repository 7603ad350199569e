"""What a selected difference of a Compare tab shows: an array's line in both
documents overlaid with their difference, a 2-D array or stimulus image in both side
by side (one shared colour scale) above their difference (a diverging scale centred
on 0), a table row in both with the changed cells marked, or the two values.

The plot pages (:mod:`inspector.ui.compare.pages`) are made when a difference first
needs one, over event-loop turns; the difference is shown once its page is made.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.formats.compare.model import Difference
from inspector.ui.compare.pages import (
    COLOR_DIFF,
    CurvesPage,
    ImagesPage,
    curves_page_in_steps,
    images_page_in_steps,
)
from inspector.ui.compare.session import Curves, Images, Rows
from inspector.ui.turns import run_in_turns

#: How each plot page is made over event-loop turns, by its name.
PAGE_STEPS = {"curves": curves_page_in_steps, "images": images_page_in_steps}


class DetailPane(QStackedWidget):
    """Pages: text, rows, and once first needed, curves (``curves_page``) and images
    (``images_page``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setPlaceholderText("Select a difference to see it here.")
        self.addWidget(self.text)
        self.rows_page = QWidget()
        rbox = QVBoxLayout(self.rows_page)
        rbox.setContentsMargins(0, 0, 0, 0)
        self.rows_title = QLabel()
        rbox.addWidget(self.rows_title)
        self.rows = QTableWidget()
        rbox.addWidget(self.rows, 1)
        self.addWidget(self.rows_page)
        self._pages: dict[str, QWidget] = {}  # the plot pages made, by name
        self._building: set[str] = set()
        #: the page and show of the latest difference waiting for its page, or None
        self._waiting: tuple[str, Callable[[Any], None]] | None = None

    @property
    def curves_page(self) -> CurvesPage | None:
        """The page of an array's curves, once made."""
        page = self._pages.get("curves")
        return page if isinstance(page, CurvesPage) else None

    @property
    def images_page(self) -> ImagesPage | None:
        """The page of images, once made."""
        page = self._pages.get("images")
        return page if isinstance(page, ImagesPage) else None

    def is_building(self) -> bool:
        """True while a difference waits for its page to be made."""
        return self._waiting is not None

    def show_text(self, d: Difference | None, extra: str = "") -> None:
        """The difference's values and facts as text."""
        self._waiting = None
        if d is None:
            self.text.setPlainText(extra)
        else:
            body = {k: v for k, v in d.to_json().items() if v not in (None, {}, "")}
            self.text.setPlainText(json.dumps(body, indent=2, ensure_ascii=False, default=str)
                                   + (f"\n\n{extra}" if extra else ""))
        self.setCurrentWidget(self.text)

    def show_curves(self, c: Curves) -> None:
        """Both documents' line and their difference around the first difference."""
        self._on_page("curves", lambda page: page.draw(c))

    def show_images(self, im: Images) -> None:
        """A and B side by side on one colour scale, and A − B on a scale centred on 0."""
        self._on_page("images", lambda page: page.draw(im))

    def _on_page(self, name: str, show: Callable[[Any], None]) -> None:
        """``show(page)`` on page ``name`` and make it current: now if it is made, else
        once made (unless another difference was shown meanwhile)."""
        page = self._pages.get(name)
        if page is not None:
            self._waiting = None
            show(page)
            self.setCurrentWidget(page)
            return
        self._waiting = (name, show)
        if name not in self._building:
            self._building.add(name)
            run_in_turns(self, PAGE_STEPS[name](), on_result=lambda p: self._made(name, p))

    def _made(self, name: str, page: QWidget) -> None:
        self._building.discard(name)
        self._pages[name] = page
        self.addWidget(page)
        if self._waiting is not None and self._waiting[0] == name:
            self._on_page(*self._waiting)

    def show_rows(self, r: Rows) -> None:
        """The table row in A and in B, changed cells marked."""
        self._waiting = None
        self.rows.clear()
        self.rows.setRowCount(2)
        self.rows.setColumnCount(len(r.labels))
        self.rows.setHorizontalHeaderLabels(r.labels)
        self.rows.setVerticalHeaderLabels(["A", "B"])
        mark = QColor(COLOR_DIFF)
        mark.setAlpha(70)
        for col, label in enumerate(r.labels):
            for row, values in enumerate((r.a, r.b)):
                item = QTableWidgetItem(str(values[col]))
                if label in r.changed:
                    item.setBackground(mark)
                    item.setToolTip("differs")
                self.rows.setItem(row, col, item)
        self.rows.resizeColumnsToContents()
        self.rows_title.setText(f"{r.table}: the row in A and in B "
                                f"({len(r.changed)} cell(s) differ)")
        self.setCurrentWidget(self.rows_page)
