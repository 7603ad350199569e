"""Column sizes that fit: trees keep every column in view, tables size columns to content.

Values too long for their column are shortened at whole words, keeping
numbers with their units (:mod:`inspector.ui.elide`; a single word keeps both
ends, so that both ends of a path or an ID stay readable, or a number its
end); the full value is in the cell's tooltip (the models' ``ToolTipRole``)
and in the detail pane when the row is selected.

- :func:`fit_tree_columns`: a tree's Type column keeps the width of its
  content; its Value and Details columns get the width of their content,
  at least :data:`TREE_FLOORS` and at most :data:`TREE_CAP` of the view's
  width each; the Name column stretches over the rest (see
  :func:`tree_widths`).  When the view is too narrow for that, the Value
  and Details columns give up room down to their floors first.
- :func:`fit_columns_to_width` (tables whose columns should all stay in
  view, like the checksum table): the columns share the view's width.
  Columns whose content is short (statuses) keep their width; with room to
  spare the value column gets the rest; without, the least needed columns
  give up room first, then the others shrink in proportion to what they
  need, never below :data:`MIN_WIDTH`.

Both fits are redone when the view is resized or its model reset, until the
user drags a column border (from then on the user's widths are kept).
- :func:`fit_table_columns`: each column of a table gets the width of its
  header and content, between :data:`MIN_WIDTH` and :data:`MAX_TABLE_WIDTH`
  (tables scroll sideways; they do not squeeze their columns).

Content widths are measured over at most :data:`SAMPLE_ROWS` rows (Qt's
``resizeContentsPrecision``), so large tables cost no more than small ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QTableView, QTreeView

from inspector.ui.elide import WordElideDelegate

#: The views whose columns are fitted.
ItemView = QTreeView | QTableView

#: Narrowest a shrunk column gets, in pixels.
MIN_WIDTH = 60
#: Share of the width the last column keeps before the others shrink.
LAST_SHARE = 0.2
#: Columns that need at most this much keep their width when a tree is narrow.
SHORT_WIDTH = 90
#: Widest a table column is made (a longer value is elided; the tooltip has it).
MAX_TABLE_WIDTH = 280
#: Rows measured for a column's content width.
SAMPLE_ROWS = 200
#: Rows of a table measured for a column's content width (:func:`table_widths`) ...
TABLE_SAMPLE_ROWS = 100
#: ... but no more cells than this (about 20-100 us each in Python) ...
SAMPLE_CELLS = 320
#: ... and never fewer rows than this.
MIN_SAMPLE_ROWS = 20
#: Room added to a measured width (cell margins).
PADDING = 14


def _header(view: ItemView) -> QHeaderView:
    return view.header() if isinstance(view, QTreeView) else view.horizontalHeader()


def natural_widths(view: ItemView) -> dict[int, int]:
    """What each shown column needs: its header and the text of the first
    :data:`SAMPLE_ROWS` rows shown, fewer when there are many columns (as
    :func:`table_widths`; a tree's first column adds each row's indentation
    and the branch decoration).  One ``DisplayRole`` query a cell: the delegates' size
    hints ask a dozen roles a cell (0.5-0.7 s for a few thousand cells)."""
    if isinstance(view, QTableView):
        return table_widths(view, SAMPLE_ROWS)
    header = _header(view)
    metrics = view.fontMetrics()
    shown = [c for c in range(header.count()) if not header.isSectionHidden(c)]
    content = dict.fromkeys(shown, 0)
    model = view.model()
    index = model.index(0, 0) if model is not None and model.rowCount() else None
    rows, most = 0, max(MIN_SAMPLE_ROWS, min(SAMPLE_ROWS, SAMPLE_CELLS // max(1, len(shown))))
    while index is not None and index.isValid() and rows < most:
        depth, parent = 0, index.parent()
        while parent.isValid():
            depth, parent = depth + 1, parent.parent()
        for c in shown:
            text = str(index.siblingAtColumn(c).data() or "")
            extra = (depth + int(view.rootIsDecorated())) * view.indentation() if c == 0 else 0
            content[c] = max(content[c], metrics.horizontalAdvance(text) + extra)
        index, rows = view.indexBelow(index), rows + 1
    return {c: max(header.sectionSizeHint(c), content[c] + PADDING) for c in shown}


#: A tree's columns: name, value, type, details.
NAME, VALUE, TYPE, DETAILS = range(4)
#: Narrowest a tree's name, value and details columns are made while the view allows:
#: names of about 20 characters at the second level ("stim_labels_encoding") and
#: values of about 14 ("(480, 6) float32") stay readable.
TREE_FLOORS = {NAME: 160, VALUE: 100, DETAILS: 100}
#: Widest share of the view a tree's value or details column gets (the name stretches).
TREE_CAP = 0.3
#: Widest a tree's type column gets (its texts are short: "dataset", "group", "str").
TYPE_CAP = 100


def _give_spare(widths: dict[int, int], natural: dict[int, int]) -> None:
    """Room the name column has beyond its content goes first to the value and details
    columns still short of theirs (in proportion to what they lack)."""
    spare = widths[NAME] - natural[NAME]
    lacking = {c: natural[c] - widths[c] for c in (VALUE, DETAILS)
               if c in widths and natural[c] > widths[c]}
    need = sum(lacking.values())
    if spare <= 0 or need <= 0:
        return
    give = min(spare, need)
    for c, lack in lacking.items():
        widths[c] += give * lack // need
    widths[NAME] = natural[NAME] + spare - sum(give * lack // need for lack in lacking.values())


def _name_first(widths: dict[int, int], natural: dict[int, int],
                floors: dict[int, int]) -> None:
    """A name cut while the value or details column is wider than its floor takes that room
    (down to the floors, in proportion to what each has above it): a row's name says
    what it is."""
    lack = natural[NAME] - widths[NAME]
    above = {c: widths[c] - floors[c] for c in (VALUE, DETAILS)
             if c in widths and widths[c] > floors[c]}
    room = sum(above.values())
    if lack <= 0 or room <= 0:
        return
    give = min(lack, room)
    taken = 0
    for c, extra in above.items():
        part = give * extra // room
        widths[c] -= part
        taken += part
    widths[NAME] += taken


def tree_widths(natural: dict[int, int], available: int) -> dict[int, int]:
    """Widths of a tree's columns (name, value, type, details) in ``available`` pixels.

    The type column gets what it needs (at most :data:`TYPE_CAP`); value and
    details get what they need, between their :data:`TREE_FLOORS` (or less
    if they need less) and :data:`TREE_CAP` of ``available``; the name
    column stretches over the rest.  A name column short of its content
    takes room from value and details down to their floors.  When that leaves the name less than its
    floor, value and details give room back down to their floors, in
    proportion to what they have above it; when even the floors do not fit,
    every column shrinks in proportion, never below :data:`MIN_WIDTH`.
    Columns other than these four (or hidden ones) keep what they need.
    """
    widths = dict(natural)
    if TYPE in widths:
        widths[TYPE] = min(widths[TYPE], TYPE_CAP)
    cap = int(TREE_CAP * available)
    floors = {c: min(natural[c], f) for c, f in TREE_FLOORS.items() if c in natural}
    for c in (VALUE, DETAILS):
        if c in widths:
            widths[c] = max(floors[c], min(natural[c], cap))
    if NAME not in widths:
        return widths
    others = sum(w for c, w in widths.items() if c != NAME)
    name_floor = floors[NAME]
    widths[NAME] = max(available - others, name_floor)
    _give_spare(widths, natural)
    short = sum(widths.values()) - available
    flexible = {c: widths[c] - floors[c] for c in (VALUE, DETAILS) if c in widths}
    room = sum(flexible.values())
    if short > 0 and room > 0:
        give = min(short, room)
        for c, extra in flexible.items():
            widths[c] -= round(give * extra / room)
        widths[NAME] = max(name_floor, available - sum(w for c, w in widths.items() if c != NAME))
    _name_first(widths, natural, floors)
    if sum(widths.values()) > available:  # the columns wider than MIN_WIDTH share the rest
        flexible = {c: w for c, w in widths.items() if w > MIN_WIDTH}
        room = available - sum(w for c, w in widths.items() if c not in flexible)
        scale = room / (sum(flexible.values()) or 1)
        widths.update({c: max(MIN_WIDTH, int(w * scale)) for c, w in flexible.items()})
    return widths


def share_width(natural: dict[int, int], available: int, grow: int | None = None,
                shrink: tuple[tuple[int, float], ...] | None = None) -> dict[int, int]:
    """Widths for columns needing ``natural`` pixels in ``available`` pixels.

    See the module docstring.  ``grow`` is the column given the room to
    spare (default: the second column that is not short, else the widest).
    ``shrink`` lists ``(column, share)``: the columns that give up room first,
    in order, each down to ``share`` of ``available`` (default: the last
    column, down to :data:`LAST_SHARE`); the other columns that are not short
    then shrink in proportion to what they need.
    """
    if not natural:
        return {}
    total = sum(natural.values())
    widths = dict(natural)
    if total <= available:
        wide = [c for c in natural if natural[c] > SHORT_WIDTH]
        target = grow if grow in natural else (
            wide[1] if len(wide) > 1 else max(natural, key=lambda c: natural[c]))
        widths[target] += available - total
        return widths
    order = [(c, f) for c, f in (shrink or ((max(natural), LAST_SHARE),))
             if natural.get(c, 0) > SHORT_WIDTH]
    for c, share in order:
        keep = max(MIN_WIDTH, int(share * available))
        widths[c] = max(min(natural[c], keep), natural[c] - (total - available))
        total = sum(widths.values())
        if total <= available:
            return widths
    done = {c for c, _ in order}
    fixed = {c: w for c, w in widths.items() if w <= SHORT_WIDTH or c in done}
    flexible = {c: w for c, w in widths.items() if c not in fixed}
    room = max(available - sum(fixed.values()), MIN_WIDTH * len(flexible))
    need = sum(flexible.values()) or 1
    for c, w in flexible.items():
        widths[c] = max(MIN_WIDTH, int(w * room / need))
    return widths


class _Fitter(QObject):
    """Refits a view's columns on resize and model reset until the user resizes one."""

    def __init__(self, view: ItemView, grow: int | None = None,
                 shrink: tuple[tuple[int, float], ...] | None = None,
                 policy: Callable[[dict[int, int], int], dict[int, int]] | None = None,
                 fixed: dict[int, int] | None = None) -> None:
        super().__init__(view)
        self.view = view
        self.fixed = dict(fixed or {})
        self.grow = grow
        self.shrink = shrink
        self.policy = policy
        self.user_sized = False
        self._fitting = False
        self._natural: dict[int, int] | None = None
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self.fit)
        view.viewport().installEventFilter(self)
        header = _header(view)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.sectionResized.connect(self._section_resized)
        model = view.model()
        if model is not None:
            model.modelReset.connect(self._forget)
            model.layoutChanged.connect(self._forget)
        if isinstance(view, QTreeView):
            view.expanded.connect(self._forget_soon)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self._timer.start()
        return False

    def _section_resized(self, _section: int, _old: int, _new: int) -> None:
        if not self._fitting and self.view.isVisible() and _header(self.view).underMouse():
            self.user_sized = True

    def _forget(self, *_args: object) -> None:
        self._natural = None
        self._timer.start()

    def _forget_soon(self, *_args: object) -> None:
        self._natural = None  # refit on the next resize, not while the user expands nodes

    def fit(self) -> None:
        """Share the viewport's width among the columns (see :func:`share_width`)."""
        view = self.view
        if self.user_sized or not view.isVisible() or view.model() is None:
            return
        if self._natural is None:
            self._natural = natural_widths(view)
        natural = {c: w for c, w in self._natural.items() if c not in self.fixed}
        available = view.viewport().width() - sum(self.fixed.values())
        widths = (self.policy(natural, available) if self.policy is not None
                  else share_width(natural, available, self.grow, self.shrink))
        widths.update(self.fixed)
        self._fitting = True
        try:
            for c, w in widths.items():
                view.setColumnWidth(c, w)
        finally:
            self._fitting = False


def fit_columns_to_width(view: ItemView, grow: int | None = None,
                         shrink: tuple[tuple[int, float], ...] | None = None,
                         policy: Callable[[dict[int, int], int], dict[int, int]] | None = None,
                         fixed: dict[int, int] | None = None) -> None:
    """Keep every column of ``view`` in view, fitted to its width; values too long are
    shortened at whole words (:mod:`inspector.ui.elide`).  ``grow`` and ``shrink``: see
    :func:`share_width`; ``policy(natural, available)``, when given, computes the widths
    instead (:func:`tree_widths`); ``fixed``: columns kept at a set width (a status
    column as wide as its widest status), the others share the rest."""
    use_word_elision(view)
    holder: Any = view  # the fitter lives as long as the view (a child QObject)
    if getattr(holder, "_column_fitter", None) is None:
        holder._column_fitter = _Fitter(view, grow, shrink, policy, fixed)


def set_fixed_width(view: ItemView, column: int, width: int) -> None:
    """Keep ``column`` of ``view`` (fitted by :func:`fit_columns_to_width`) at ``width``
    pixels from now on (a status column as wide as the widest status shown), the other
    columns refitted around it."""
    fitter: _Fitter | None = getattr(view, "_column_fitter", None)
    if fitter is None:
        view.setColumnWidth(column, width)
    elif fitter.fixed.get(column) != width:
        fitter.fixed[column] = width
        fitter._timer.start()


def use_word_elision(view: ItemView) -> None:
    """Draw ``view``'s cells with :class:`~inspector.ui.elide.WordElideDelegate` (words and
    numbers whole; a single word too long keeps both ends, a number its end)."""
    view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    _header(view).setTextElideMode(Qt.TextElideMode.ElideRight)
    if not isinstance(view.itemDelegate(), WordElideDelegate):
        view.setItemDelegate(WordElideDelegate(view))


def fit_tree_columns(view: QTreeView) -> None:
    """Keep ``view``'s columns fitted to its width (:func:`tree_widths`: the name
    stretches, the others get what they need within bounds); values elide in the
    middle, the full text is in each cell's tooltip."""
    fit_columns_to_width(view, policy=tree_widths)


def table_widths(view: QTableView, rows: int = TABLE_SAMPLE_ROWS) -> dict[int, int]:
    """What each shown column of a table needs: its header and the text of its first
    ``rows`` cells, fewer in wide tables (at most :data:`SAMPLE_CELLS` cells, at least
    :data:`MIN_SAMPLE_ROWS` rows).  One ``DisplayRole`` query a cell: the delegate's
    size hints ask a dozen roles a cell, which took 0.7 s for 14 columns of 200 rows."""
    header = _header(view)
    model = view.model()
    metrics = view.fontMetrics()
    rows = max(MIN_SAMPLE_ROWS, min(rows, SAMPLE_CELLS // max(1, header.count())))
    n = min(rows, model.rowCount()) if model is not None else 0
    out = {}
    for c in range(header.count()):
        if header.isSectionHidden(c):
            continue
        texts = {str(model.index(r, c).data() or "") for r in range(n)} if n else set()
        content = max((metrics.horizontalAdvance(t) for t in texts), default=0)
        out[c] = max(header.sectionSizeHint(c), content + PADDING)
    return out


def fit_table_columns(view: QTableView) -> None:
    """Size each column of ``view`` to its header and content (bounded); values elide
    in the middle."""
    use_word_elision(view)
    for c, w in table_widths(view).items():
        view.setColumnWidth(c, max(MIN_WIDTH, min(w, MAX_TABLE_WIDTH)))
