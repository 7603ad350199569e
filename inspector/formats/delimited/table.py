"""Read a CSV/TSV scan table as raw text fields, and find its delimiter.

Rules (``docs/formats/parser-detection.md``, "Delimiter detection"): the data
file is UTF-8 text; blank lines (only whitespace) are skipped; comma and tab
are the only delimiters; a delimiter is *consistent* when the header splits
into at least two fields and every non-blank line into the same number.  A
declared ``delimiter`` must be consistent; otherwise the single consistent
delimiter is used; when both are, the suffix decides (``.csv`` comma, ``.tsv``
tab); anything else is an error, never a guess.  Fields are split verbatim:
there is no quoting, and values are not coerced or reordered here.

Limits (Inspector's, docs/architecture.md "Contracts"): a line has at most
:data:`~.lines.MAX_LINE_BYTES` bytes (a longer one is counted as it is read,
never held: :mod:`.lines`), a header at most :data:`MAX_COLUMNS` fields and a
cell at most :data:`MAX_CELL_CHARS` characters; these are checked by counting,
before any line is split, so memory follows the lines kept, never a Python
object per character.  (Finding the delimiter counts fields too.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from inspector.formats.delimited.lines import MAX_LINE_BYTES, Block, LineReader
from inspector.formats.delimited.rules import (
    TABLE_AMBIGUOUS_DELIMITER,
    TABLE_CELL_TOO_LONG,
    TABLE_DECLARED_DELIMITER_INCONSISTENT,
    TABLE_EMPTY,
    TABLE_LINE_TOO_LONG,
    TABLE_NO_CONSISTENT_DELIMITER,
    TABLE_NOT_UTF8,
    TABLE_TOO_MANY_COLUMNS,
    TABLE_UNREADABLE,
)
from inspector.formats.delimited.stages import Stages
from inspector.formats.delimited.values import MAX_CELL_CHARS, MAX_SHOWN, shown
from inspector.formats.sources.file_identity import FileChangedError

DELIMITERS = (",", "\t")
SUFFIX_DELIMITER = {".csv": ",", ".tsv": "\t"}
DELIMITER_NAMES = {",": "comma", "\t": "tab"}
#: Fields a header may have (one column per scan in a wide table).
MAX_COLUMNS = 100_000


class Rows:
    """The data rows of a table, read again from the file each time they are iterated
    (never held: the file's lines are read in blocks, :mod:`.lines`).

    Iterating yields ``(1-based line number, fields verbatim)``; :meth:`blocks` gives
    the data lines as :class:`~.lines.Block` s; ``len`` is the number of data lines.
    """

    def __init__(self, path: Path, delimiter: str, header_line: int, count: int) -> None:
        self.path, self._delimiter = path, delimiter
        self._header_line, self._count = header_line, count

    def __len__(self) -> int:
        return self._count

    def blocks(self) -> Iterator[Block]:
        """The data lines in blocks, in file order.

        Raises:
            OSError: the file cannot be read (it was read once already).
        """
        reader = LineReader()
        with self.path.open("rb") as fh:
            for block in reader.blocks(fh):
                if int(block.numbers[-1]) > self._header_line:
                    yield block.after(self._header_line)

    def __iter__(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        d = self._delimiter
        for block in self.blocks():
            for k in range(len(block)):
                yield int(block.numbers[k]), tuple(block.text(k).split(d))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Rows):
            other = list(other)
        return isinstance(other, list) and list(self) == other


@dataclass
class Table:
    """A delimited table held as raw strings.

    Attributes:
        name: the data file's name (used in locations).
        path: the data file.
        delimiter: ``","`` or ``"\\t"``.
        header: header fields, stripped of surrounding blanks.
        header_line: 1-based line number of the header.
        rows: ``(line number, fields)`` per non-blank data line, fields verbatim
            (:class:`Rows`, split as iterated).
    """

    name: str
    path: Path
    delimiter: str
    header: tuple[str, ...]
    header_line: int
    rows: Rows

    def index(self, column: str) -> int:
        """Index of the first header field equal to ``column``, -1 if absent."""
        try:
            return self.header.index(column)
        except ValueError:
            return -1

    def loc(self, where: int | str | None = None) -> str:
        """Location ``"name"``, ``"name:LINE"`` or ``"name:COLUMN"`` (a long column name is
        cut as :func:`~.values.shown` cuts it)."""
        if where is None:
            return self.name
        if isinstance(where, str) and len(where) > MAX_SHOWN:
            where = shown(where)
        return f"{self.name}:{where}"


@dataclass
class TableText:
    """What one pass over the data file learnt, before the delimiter is known.

    Attributes:
        path: the data file.
        header_line, header: number and text of the first non-blank line.
        data_lines: non-blank lines after it.
        fields: field count of the header under each delimiter.
        broken: per delimiter, the first line breaking consistency (the header when it
            has fewer than 2 fields), or None.
        wide: ``(line number, {delimiter: (field index, length)})`` of each line whose
            longest field is over :data:`~.values.MAX_CELL_CHARS` under some delimiter.
    """

    path: Path
    header_line: int = 0
    header: str = ""
    data_lines: int = 0
    fields: dict[str, int] = field(default_factory=dict)
    broken: dict[str, int | None] = field(default_factory=dict)
    wide: list[tuple[int, dict[str, tuple[int, int]]]] = field(default_factory=list)

    def take(self, block: Block) -> None:
        """Account for the next block of the file."""
        if not self.fields:
            self.header_line, self.header = int(block.numbers[0]), block.text(0)
            self._wide(block, np.array([0]))
            for d in DELIMITERS:
                self.fields[d] = field_count(self.header, d)
                self.broken[d] = self.header_line if self.fields[d] < 2 else None
            block = block.after(self.header_line)
        self.data_lines += len(block)
        for d in DELIMITERS:
            if self.broken[d] is None:
                bad = np.flatnonzero(block.count(ord(d)) + 1 != self.fields[d])
                self.broken[d] = int(block.numbers[bad[0]]) if bad.size else None
        self._wide(block, np.flatnonzero(block.ends - block.starts > MAX_CELL_CHARS))

    def _wide(self, block: Block, candidates: np.ndarray) -> None:
        for k in candidates:
            line = block.text(int(k))
            if len(line) <= MAX_CELL_CHARS:
                continue
            longest = {d: _longest_field(line, d) for d in DELIMITERS}
            if any(length > MAX_CELL_CHARS for _, length in longest.values()):
                self.wide.append((int(block.numbers[k]), longest))


def read_lines(path: Path, col: Stages) -> TableText | None:
    """One pass over ``path``: its header and what the later stages need; None on error.

    Raises :class:`~inspector.formats.sources.file_identity.FileChangedError` when ``path`` is
    a snapshot path naming another file than its first open.
    Read in blocks (:class:`~.lines.LineReader`): a line longer than
    :data:`~.lines.MAX_LINE_BYTES` is never held; it is a ``table.line-too-long``
    error at ``name:LINE`` and is left out.
    """
    name = path.name
    text = TableText(path)
    reader = LineReader()
    try:
        with path.open("rb") as fh:
            for block in reader.blocks(fh):
                text.take(block)
    except FileChangedError:
        raise
    except OSError as exc:
        col.report(TABLE_UNREADABLE, f"the data file cannot be read ({exc.strerror or exc})",
                   name)
        return None
    for long in reader.long:
        col.report(TABLE_LINE_TOO_LONG, f"line {long.number} has {long.size:,} bytes; a line "
                   f"has at most {MAX_LINE_BYTES:,} (it is not read)", f"{name}:{long.number}")
    if reader.bad_utf8 is not None:
        col.report(TABLE_NOT_UTF8, f"not UTF-8 text (byte {reader.bad_utf8})", name)
        return None
    if not text.fields:
        if not reader.long:
            col.report(TABLE_EMPTY, "the data file is empty", name)
        return None
    return text


def field_count(line: str, delimiter: str) -> int:
    """How many fields ``line`` splits into under ``delimiter`` (without splitting it)."""
    return line.count(delimiter) + 1


def first_inconsistent(text: TableText, delimiter: str) -> int | None:
    """Line number breaking consistency under ``delimiter`` (the header if < 2 fields);
    None if consistent."""
    return text.broken[delimiter]


def _declared(path: Path, declared: str, broken: dict[str, int | None],
              col: Stages) -> str | None:
    """The declared delimiter when it is consistent; None and an error otherwise."""
    if broken.get(declared, -1) is None:
        return declared
    where = broken.get(declared)
    what = DELIMITER_NAMES.get(declared, repr(declared))
    detail = f": line {where} has a different number of fields" if where else ""
    col.report(TABLE_DECLARED_DELIMITER_INCONSISTENT,
               f"the manifest's delimiter ({what}) does not yield a consistent table{detail}",
               f"{path.name}:{where}" if where else path.name)
    return None


def _none_consistent(header_line: int, path: Path, broken: dict[str, int | None],
                     col: Stages) -> None:
    """Report that neither delimiter gives a consistent table, at the most telling line."""
    detail = "; ".join(
        f"{DELIMITER_NAMES[d]}: line {broken[d]} "
        + ("has fewer than 2 fields" if broken[d] == header_line else
           "has a different number of fields than the header")
        for d in DELIMITERS)
    # point at the line that breaks a delimiter the header does split on
    plausible = [n for d in DELIMITERS if (n := broken[d]) is not None and n != header_line]
    first = min(plausible) if plausible else header_line
    col.report(TABLE_NO_CONSISTENT_DELIMITER, f"no consistent delimiter ({detail})",
               f"{path.name}:{first}")


def detect_delimiter(text: TableText, path: Path, declared: str | None,
                     col: Stages) -> str | None:
    """The delimiter of the table (see module rules); None and an error otherwise."""
    broken = {d: first_inconsistent(text, d) for d in DELIMITERS}
    viable = [d for d in DELIMITERS if broken[d] is None]
    if declared is not None:
        return _declared(path, declared, broken, col)
    if not viable:
        _none_consistent(text.header_line, path, broken, col)
        return None
    if len(viable) == 1:
        return viable[0]
    by_suffix = SUFFIX_DELIMITER.get(path.suffix.lower())
    if by_suffix in viable:
        return by_suffix
    col.report(TABLE_AMBIGUOUS_DELIMITER,
               f"both comma and tab give a consistent table and the suffix {path.suffix!r} "
               "does not decide; declare 'delimiter' in the manifest", path.name)
    return None


#: Characters of a long line looked at at once by :func:`_longest_field` (a few hundred kB of
#: arrays each).
FIELD_WINDOW = 1 << 16


def _longest_field(line: str, delimiter: str) -> tuple[int, int]:
    """``(index, length)`` of the longest field of ``line`` (the first of equals), found
    without splitting it: a line of a million short fields would be a million strings.
    The delimiters are located with NumPy, :data:`FIELD_WINDOW` characters at a time
    (a Python step per field cost about 0.3 s per million fields)."""
    code = ord(delimiter)
    best_index, best_length, index, start = 0, -1, 0, 0
    for offset in range(0, len(line), FIELD_WINDOW):
        text = line[offset:offset + FIELD_WINDOW].encode("utf-32-le", "surrogatepass")
        ends = np.flatnonzero(np.frombuffer(text, dtype="<u4") == code) + offset
        if not ends.size:
            continue
        starts = np.empty_like(ends)
        starts[0], starts[1:] = start, ends[:-1] + 1
        lengths = ends - starts
        k = int(np.argmax(lengths))
        if lengths[k] > best_length:
            best_index, best_length = index + k, int(lengths[k])
        index, start = index + ends.size, int(ends[-1]) + 1
    if len(line) - start > best_length:
        best_index, best_length = index, len(line) - start
    return best_index, best_length


def check_limits(text: TableText, path: Path, delimiter: str, col: Stages) -> None:
    """Report a header wider than :data:`MAX_COLUMNS` (counted, not split) or a cell
    longer than :data:`MAX_CELL_CHARS` (at ``name:line``).

    Lines are consistent here (:func:`detect_delimiter`), so every line has the
    header's field count; the long fields were found in the pass over the file.
    """
    count = text.fields[delimiter]
    if count > MAX_COLUMNS:
        col.report(TABLE_TOO_MANY_COLUMNS, f"line {text.header_line} (the header) has "
                   f"{count:,} fields; a table has at most {MAX_COLUMNS:,} columns",
                   f"{path.name}:{text.header_line}")
        return
    for number, longest in text.wide:
        index, length = longest[delimiter]
        if length > MAX_CELL_CHARS:
            what = "column name" if number == text.header_line else "cell"
            col.report(TABLE_CELL_TOO_LONG, f"line {number}, field {index + 1}: a {what} of "
                       f"{length:,} characters; a cell has at most {MAX_CELL_CHARS:,}",
                       f"{path.name}:{number}")


def build_table(text: TableText, path: Path, delimiter: str) -> Table:
    """The :class:`Table` of ``text`` (header stripped; data rows read as iterated)."""
    header = tuple(f.strip() for f in text.header.split(delimiter))
    return Table(path.name, path, delimiter, header, text.header_line,
                 Rows(path, delimiter, text.header_line, text.data_lines))
