"""The findings dock: the current document's findings (or every open file's), sortable.

The title counts the findings shown ("Findings: 1 error, 2 warnings, 1 note").
Messages never name the file; the File column appears only when "All open
files" is checked.  Selecting a row shows the finding's full text and the
source of its rule beside the table; clicking or activating it selects what
the finding concerns in its document.

The title bar is one line: the title, the "All open files" toggle and the
dock's float and close buttons.  With nothing to list the dock shrinks to
that line (the plot and the views get the room); when findings arrive it
opens again, tall enough for a few rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QItemSelection, QModelIndex, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QSplitter,
    QStyle,
    QTableView,
    QToolButton,
    QWidget,
)

from inspector.formats.sources.folder_bounds import allowable_folder
from inspector.models.findings_model import (
    FILE_COLUMN,
    FindingsModel,
    Row,
    SeverityRankRole,
    finding_detail_text,
    severity_counts_text,
)
from inspector.ui.copy_support import install_copy_actions

#: Shown in the detail box while no finding is selected.
DETAIL_HINT = "Select a finding to see its full text and the rule it comes from."
#: Rows the dock shows at most when it opens for new findings.
OPEN_ROWS = 5
#: Largest share of the window's height the dock takes when it opens.
OPEN_SHARE = 0.3
#: No height limit (Qt's QWIDGETSIZE_MAX).
_UNLIMITED = 16777215


class _TitleBar(QWidget):
    """The dock's one-line title bar: title, "All open files", float and close buttons."""

    def __init__(self, dock: QDockWidget, all_files: QCheckBox) -> None:
        super().__init__(dock)
        self.title = QLabel(dock.windowTitle(), self)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        dock.windowTitleChanged.connect(self.title.setText)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 1, 2, 1)
        lay.setSpacing(6)
        lay.addWidget(self.title)
        lay.addStretch(1)
        lay.addWidget(all_files)
        style = self.style()
        for pixmap, tip, slot in (
                (QStyle.StandardPixmap.SP_TitleBarNormalButton, "Float the findings",
                 lambda: dock.setFloating(not dock.isFloating())),
                (QStyle.StandardPixmap.SP_TitleBarCloseButton,
                 "Hide the findings (View > Findings shows them again)", dock.hide)):
            button = QToolButton(self)
            button.setIcon(style.standardIcon(pixmap))
            button.setAutoRaise(True)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            lay.addWidget(button)


class FindingsDock(QDockWidget):
    """Dock with a sortable table of findings, a scope toggle and a detail box.

    Attributes:
        all_files: the "All open files" check box (unchecked: the current tab only).
        detail: the read-only box with the selected finding's full text and rule.

    Signals:
        finding_activated(object finding, object owner): a row was clicked
            or activated; ``owner`` is the widget showing the finding's document.
        scope_changed(bool all_files): the toggle changed.
        allow_external(str folder, object owner): the user allowed the folder a finding
            names (``external.outside``: "Allow reading from FOLDER and reload"), for
            the document shown by ``owner``.
    """

    finding_activated = Signal(object, object)
    scope_changed = Signal(bool)
    allow_external = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Findings", parent)
        self.setObjectName("findingsDock")
        self.model = FindingsModel(self)
        self._shown_rows: list[Row] | None = None  # what set_rows showed last
        self._shown_all = False
        self.proxy = QSortFilterProxyModel(self)  # (Qt's own: sorting items calls no Python)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SeverityRankRole)
        self.view = self._make_view()
        self.all_files = QCheckBox("All open files", self)
        self.all_files.setToolTip("List the findings of every open file, "
                                  "not only the current tab's")
        self.all_files.toggled.connect(self.scope_changed)
        self.detail = QPlainTextEdit(self)
        self.detail.setReadOnly(True)
        self.detail.setObjectName("findingDetail")
        self.detail.setAccessibleName("Selected finding")
        self.detail.setPlaceholderText(DETAIL_HINT)
        self.title_bar = _TitleBar(self, self.all_files)
        self.setTitleBarWidget(self.title_bar)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setChildrenCollapsible(True)
        split.addWidget(self.view)
        split.addWidget(self.detail)
        split.setCollapsible(0, False)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([900, 300])
        self.setWidget(split)
        self.compact = False
        self.set_rows([], all_files=False)

    def _make_view(self) -> QTableView:
        view = QTableView(self)
        view.setModel(self.proxy)
        view.setSortingEnabled(True)
        view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setWordWrap(False)
        view.setAccessibleName("Findings")
        view.verticalHeader().setVisible(False)
        hh = view.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        hh.setStretchLastSection(False)
        view.setColumnWidth(0, 90)
        view.setColumnWidth(1, 200)
        view.setColumnWidth(3, 160)
        view.setColumnWidth(FILE_COLUMN, 170)
        view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
        install_copy_actions(view, value_column=2)
        self.act_allow = QAction("Allow reading external data from this folder and reload",
                                 view)
        self.act_allow.setEnabled(False)
        self.act_allow.triggered.connect(self._allow_selected)
        view.addAction(self.act_allow)
        view.clicked.connect(self._activate)
        view.activated.connect(self._activate)
        view.selectionModel().selectionChanged.connect(self._selection_changed)
        return view

    def _activate(self, index: QModelIndex) -> None:
        _label, f, owner = self.model.finding(self.proxy.mapToSource(index).row())
        self.finding_activated.emit(f, owner)

    def _selection_changed(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = self.view.selectionModel().selectedRows()
        if not rows:
            self.detail.clear()
            self.act_allow.setEnabled(False)
            return
        label, f, owner = self.model.finding(self.proxy.mapToSource(rows[0]).row())
        folder = allowable_folder(f.message)
        self.act_allow.setEnabled(folder is not None)
        self.act_allow.setText(f"Allow reading external data from {folder} and reload"
                               if folder else "Allow reading external data (no folder named)")
        text = finding_detail_text(f, label if self.showing_all else "")
        doc = getattr(owner, "doc", None)
        mismatch = getattr(doc, "mismatch", None)
        if mismatch is not None and f.code in mismatch.codes:
            text += (f"\n\nThis is a {mismatch.container}, not a {mismatch.format} "
                     f"({mismatch.reason}): the finding says why it is not one, as inspector "
                     "verify reports it; it is not a fault of the file.")
        self.detail.setPlainText(text)

    def _allow_selected(self) -> None:
        """Emit :attr:`allow_external` for the selected finding's folder (if it names one)."""
        rows = self.view.selectionModel().selectedRows()
        if not rows:
            return
        _label, f, owner = self.model.finding(self.proxy.mapToSource(rows[0]).row())
        folder = allowable_folder(f.message)
        if folder is not None:
            self.allow_external.emit(folder, owner)

    @property
    def showing_all(self) -> bool:
        """True when the findings of every open file are listed."""
        return self.all_files.isChecked()

    def set_rows(self, rows: Sequence[Row], all_files: bool | None = None) -> None:
        """Replace the findings shown: ``(file label, Finding, owner)`` triples.

        ``all_files``: whether the rows come from every open file (shows the
        File column); defaults to the toggle's state.
        """
        if all_files is None:
            all_files = self.showing_all
        if self._same_rows(rows, all_files):
            return  # (the window asks again when a tab's state changes: nothing to redo)
        self._shown_rows, self._shown_all = list(rows), all_files
        self.model.set_findings(rows)
        self.view.setColumnHidden(FILE_COLUMN, not all_files)
        self.detail.clear()
        counts = severity_counts_text(f for _, f, _ in rows) if rows else "none"
        scope = " in all open files" if all_files else ""
        self.setWindowTitle(f"Findings: {counts}{scope}")
        if self.compact == bool(rows):
            self.set_compact(not rows)
        elif rows:
            QTimer.singleShot(0, self, self.open_to_fit)  # more rows than fit: open further

    def _same_rows(self, rows: Sequence[Row], all_files: bool) -> bool:
        """``rows`` are the rows shown: equal findings of the same tabs, in order (a
        reset makes every row's items again and re-sorts them).
        Findings are compared by value: a document makes its cap notes ("... and 40
        more") afresh each time its findings are listed."""
        shown = self._shown_rows
        return shown is not None and all_files == self._shown_all and len(shown) == len(rows) \
            and all(a[2] is b[2] and a[0] == b[0] and a[1] == b[1]
                    for a, b in zip(shown, rows, strict=True))

    # -- size -----------------------------------------------------------
    def set_compact(self, compact: bool) -> None:
        """Shrink to the title line (nothing to list) or open again for a few rows."""
        if compact == self.compact:
            return
        self.compact = compact
        self.widget().setVisible(not compact)
        if compact:
            self.setFixedHeight(self.title_bar.sizeHint().height())
            return
        self.setMinimumHeight(0)
        self.setMaximumHeight(_UNLIMITED)
        # once the window has laid the dock out again (at the height it had before)
        QTimer.singleShot(0, self, lambda: self.open_to_fit(exactly=True))

    def row_height(self) -> int:
        """The height of one row as laid out (the style may make rows taller than the
        default section size asked for)."""
        rows = self.view.verticalHeader()
        shown = rows.sectionSize(0) if self.proxy.rowCount() else 0
        return max(shown, rows.defaultSectionSize(), rows.minimumSectionSize())

    def chrome_height(self) -> int:
        """The dock's height around the rows: title bar, column headers, frames, margins
        and a horizontal scroll bar when one is shown.  Measured on the dock as laid out
        when it is open and shown (:meth:`_measured`); estimated from size hints before
        (a dock just opened still has the geometry it had while it was a one-line bar)."""
        view = self.view
        if self._measured():
            return self.height() - view.viewport().height()
        bar = view.horizontalScrollBar()
        scroll = bar.sizeHint().height() if bar.isVisible() else 0
        return (self.title_bar.sizeHint().height() + view.horizontalHeader().sizeHint().height()
                + 2 * view.frameWidth() + scroll + 4)

    def open_height(self, window_height: int) -> int:
        """The height to open to: whole rows (the last row shown is never cut), all of
        them up to :data:`OPEN_ROWS`, as many as fit in :data:`OPEN_SHARE` of
        ``window_height`` (at least one)."""
        rows = max(1, min(self.model.rowCount(), OPEN_ROWS))
        chrome, row = self.chrome_height(), self.row_height()
        fit = max(1, (int(window_height * OPEN_SHARE) - chrome) // row)  # whole rows only
        return chrome + min(rows, fit) * row

    def open_to_fit(self, exactly: bool = False) -> None:
        """Make the docked, open dock :meth:`open_height` of its window tall: at least
        (a dock made taller stays so), or ``exactly`` (when it opens)."""
        win = self.parentWidget()
        if self.compact or self.isFloating() or not isinstance(win, QMainWindow):
            return
        wanted = self.open_height(win.height())
        if exactly or self.height() < wanted:
            win.resizeDocks([self], [wanted], Qt.Orientation.Vertical)
            if not self._measured():  # estimated: once laid out, size it on what it measures
                QTimer.singleShot(0, self, lambda: self._refit(exactly))

    def _refit(self, exactly: bool) -> None:
        if self._measured():
            self.open_to_fit(exactly)

    def _measured(self) -> bool:
        """True when the dock is laid out as shown (:meth:`chrome_height` measures it)."""
        view = self.view
        least = self.title_bar.sizeHint().height() + view.horizontalHeader().sizeHint().height()
        return (not self.compact and view.isVisible() and view.viewport().height() > 0
                and self.height() - view.viewport().height() >= least)
