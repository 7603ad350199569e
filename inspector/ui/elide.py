"""Elision that keeps words and numbers whole.

Qt elides a cell's text at characters: "MISMATCH" became "MI…CH" and
"manifest, 12 924 bytes" became "manifest,…924 bytes", hiding the one word or
number that mattered.  :func:`elide_words` cuts at spaces instead: it keeps
whole words from the start and from the end around one "…", choosing the
cut that keeps the most words holding digits (numbers with their units),
then the most text.  A text of one word too wide for its cell is cut at
characters, keeping its end (the end of a number, a path's file name).
:class:`WordElideDelegate` draws the cells of a view so (the cells of names, whose end
is the part that tells them apart, keep their end).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

ELLIPSIS = "…"


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


#: A group of three digits continuing a number written with spaces ("12 924").
_DIGIT_GROUP = re.compile(r"\d{3}\W*")


#: Words that are the unit of the number before them: kept with it ("303 bytes" is
#: never "303 …").
UNITS = frozenset({
    "bytes", "byte", "B", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
    "ms", "s", "µs", "us", "ns", "min", "h", "Hz", "kHz", "MHz", "cm", "mm", "µm", "nm",
    "px", "%", "samples", "points", "values", "elements", "items", "members", "chunks",
    "scans", "trials", "channels", "rows", "columns", "stimuli", "features", "files",
    "entries", "compressed",
})


def _is_unit_after(previous: str, word: str) -> bool:
    return bool(previous) and previous[-1].isdigit() and word.rstrip(",;:.)]") in UNITS


def words_of(text: str) -> list[str]:
    """``text`` split at single spaces, a number's digit groups and its unit kept as one
    word ("manifest, 12 924 bytes" is ``["manifest,", "12 924 bytes"]``)."""
    words: list[str] = []
    for word in text.split(" "):
        if words and words[-1][-1:].isdigit() and (_DIGIT_GROUP.fullmatch(word)
                                                   or _is_unit_after(words[-1], word)):
            words[-1] += " " + word
        else:
            words.append(word)
    return words


def elide_words(text: str, fits: Callable[[str], bool],
                cut: Callable[[str], str] | None = None) -> str:
    """``text`` if ``fits(text)``, else its widest whole-word shortening that fits.

    Candidates keep the first ``k`` and the last ``m`` words (:func:`words_of`)
    around "…"; the one kept is the one with the most words holding a digit, then the
    most words from the start (reading order: "(not …", never "… listed)" for "(not
    listed)"), then the most characters.  With no
    candidate (the first or last word alone is too wide), ``cut(text)`` (default: "…"
    and the end of ``text``, a character at a time while it does not fit).
    """
    if fits(text):
        return text
    words = words_of(text)
    n = len(words)
    best: tuple[tuple[int, int, int], str] | None = None
    m = n - 1  # the longest tail that fits can only shrink as the head grows
    for k in range(n):
        m = min(m, n - 1 - k)
        found = False
        while m >= (0 if k else 1):
            shown = " ".join([*words[:k], ELLIPSIS, *words[n - m:n if m else 0]])
            if fits(shown):
                kept = words[:k] + (words[n - m:] if m else [])
                score = (sum(map(_has_digit, kept)), k, len(shown) - 1)
                if best is None or score > best[0]:
                    best = (score, shown)
                found = True
                break
            m -= 1
        if k and not found:  # this head alone is too wide: longer ones are too
            break
        m = max(m, 0)
    if best is not None:
        return best[1]
    if cut is not None:
        return cut(text)
    for start in range(1, len(text)):
        shown = ELLIPSIS + text[start:]
        if fits(shown):
            return shown
    return ELLIPSIS


#: A number: digits with a sign, separators, a decimal point or an exponent (quoted or
#: followed by punctuation); not a digest or an ID (letters among the digits).
_NUMBER = re.compile(r"""["']?[-+]?\d[\d,._ ]*(?:[eE][-+]?\d+)?["']?\W*""")


def is_number_like(word: str) -> bool:
    """True for a number (``12924``, ``"1.5e-3"``, ``-0.25,``), False for a digest or an
    ID holding letters (``0213482a33acb``)."""
    return _NUMBER.fullmatch(word) is not None


def elide_in(metrics: QFontMetrics, text: str, width: int) -> str:
    """``text`` shortened at whole words to ``width`` pixels (:func:`elide_words`); a
    single word too wide keeps its end if it is a number, else both ends (an ID, a path)."""
    def fits(s: str) -> bool:
        return metrics.horizontalAdvance(s) <= width

    def cut(s: str) -> str:
        if is_number_like(s):
            return metrics.elidedText(s, Qt.TextElideMode.ElideLeft, width)
        return metrics.elidedText(s, Qt.TextElideMode.ElideMiddle, width)

    return elide_words(text, fits, cut)


class WordElideDelegate(QStyledItemDelegate):
    """Draws a view's cells with :func:`elide_in` (whole words and numbers, or a text's
    end) instead of Qt's elision at characters; everything else as Qt draws it."""

    def __init__(self, parent: QWidget | None = None, end_columns: frozenset[int] = frozenset()
                 ) -> None:
        super().__init__(parent)
        #: Columns whose values keep their end when cut ("…signal.npy": a member's or
        #: a path's file name), whatever their words.
        self.end_columns = end_columns

    def initStyleOption(self, option: QStyleOptionViewItem,  # noqa: N802 - Qt override
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        text = option.text
        if index.column() in self.end_columns:  # Qt's own elision keeps the end too
            option.textElideMode = Qt.TextElideMode.ElideLeft
        if not text or "\n" in text:
            return
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is None:
            return
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, widget)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        room = rect.width() - 2 * margin
        metrics = option.fontMetrics
        if room <= 0 or metrics.horizontalAdvance(text) <= room:
            return
        if index.column() in self.end_columns:
            option.text = metrics.elidedText(text, Qt.TextElideMode.ElideLeft, room)
        else:
            option.text = elide_in(metrics, text, room)
            option.textElideMode = Qt.TextElideMode.ElideRight
