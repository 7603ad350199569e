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
from dataclasses import dataclass
from pathlib import Path

from inspector.formats.delimited.lines import MAX_LINE_BYTES, scan_lines
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

DELIMITERS = (",", "\t")
SUFFIX_DELIMITER = {".csv": ",", ".tsv": "\t"}
DELIMITER_NAMES = {",": "comma", "\t": "tab"}
#: Fields a header may have (one column per scan in a wide table).
MAX_COLUMNS = 100_000


class Rows:
    """The data rows of a table, split from their lines each time they are iterated
    (never held split: a row is a tuple of strings, several times its line's size).

    Iterating yields ``(1-based line number, fields verbatim)``; ``len`` is the number
    of data lines.
    """

    def __init__(self, lines: list[tuple[int, str]], delimiter: str) -> None:
        self._lines, self._delimiter = lines, delimiter

    def __len__(self) -> int:
        return len(self._lines) - 1

    def __iter__(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        d = self._delimiter
        for k in range(1, len(self._lines)):
            n, line = self._lines[k]
            yield n, tuple(line.split(d))

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


def read_lines(path: Path, col: Stages) -> list[tuple[int, str]] | None:
    """Non-blank lines of ``path`` as ``(1-based line number, text)``; None on error.

    Read in chunks (:func:`~.lines.scan_lines`): a line longer than
    :data:`~.lines.MAX_LINE_BYTES` is never held; it is a ``table.line-too-long``
    error at ``name:LINE`` and is left out.
    """
    name = path.name
    try:
        with path.open("rb") as fh:
            scan = scan_lines(fh)
    except OSError as exc:
        col.report(TABLE_UNREADABLE, f"the data file cannot be read ({exc.strerror or exc})",
                   name)
        return None
    for long in scan.long:
        col.report(TABLE_LINE_TOO_LONG, f"line {long.number} has {long.size:,} bytes; a line "
                   f"has at most {MAX_LINE_BYTES:,} (it is not read)", f"{name}:{long.number}")
    if scan.bad_utf8 is not None:
        col.report(TABLE_NOT_UTF8, f"not UTF-8 text (byte {scan.bad_utf8})", name)
        return None
    if not scan.lines:
        if not scan.long:
            col.report(TABLE_EMPTY, "the data file is empty", name)
        return None
    return scan.lines


def field_count(line: str, delimiter: str) -> int:
    """How many fields ``line`` splits into under ``delimiter`` (without splitting it)."""
    return line.count(delimiter) + 1


def first_inconsistent(lines: list[tuple[int, str]], delimiter: str) -> int | None:
    """Line number breaking consistency under ``delimiter`` (the header if < 2 fields);
    None if consistent."""
    header_line, header = lines[0]
    count = field_count(header, delimiter)
    if count < 2:
        return header_line
    for number, line in lines[1:]:
        if field_count(line, delimiter) != count:
            return number
    return None


def _declared(lines: list[tuple[int, str]], path: Path, declared: str,
              broken: dict[str, int | None], col: Stages) -> str | None:
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


def _none_consistent(lines: list[tuple[int, str]], path: Path, broken: dict[str, int | None],
                     col: Stages) -> None:
    """Report that neither delimiter gives a consistent table, at the most telling line."""
    header_line = lines[0][0]
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


def detect_delimiter(lines: list[tuple[int, str]], path: Path, declared: str | None,
                     col: Stages) -> str | None:
    """The delimiter of the table (see module rules); None and an error otherwise."""
    broken = {d: first_inconsistent(lines, d) for d in DELIMITERS}
    viable = [d for d in DELIMITERS if broken[d] is None]
    if declared is not None:
        return _declared(lines, path, declared, broken, col)
    if not viable:
        _none_consistent(lines, path, broken, col)
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


def _longest_field(line: str, delimiter: str) -> tuple[int, int]:
    """``(index, length)`` of the longest field of ``line`` (a line of at most
    :data:`MAX_COLUMNS` fields, so splitting it costs about its own size)."""
    lengths = [len(f) for f in line.split(delimiter)]
    longest = max(lengths)
    return lengths.index(longest), longest


def check_limits(lines: list[tuple[int, str]], path: Path, delimiter: str,
                 col: Stages) -> None:
    """Report a header wider than :data:`MAX_COLUMNS` (counted, not split) or a cell
    longer than :data:`MAX_CELL_CHARS` (at ``name:line``).

    Lines are consistent here (:func:`detect_delimiter`), so every line has the
    header's field count; only lines longer than a cell can be are looked into.
    """
    header_line, header = lines[0]
    count = field_count(header, delimiter)
    if count > MAX_COLUMNS:
        col.report(TABLE_TOO_MANY_COLUMNS, f"line {header_line} (the header) has {count:,} "
                   f"fields; a table has at most {MAX_COLUMNS:,} columns",
                   f"{path.name}:{header_line}")
        return
    for number, line in lines:
        if len(line) <= MAX_CELL_CHARS:
            continue
        index, length = _longest_field(line, delimiter)
        if length > MAX_CELL_CHARS:
            what = "column name" if number == header_line else "cell"
            col.report(TABLE_CELL_TOO_LONG, f"line {number}, field {index + 1}: a {what} of "
                       f"{length:,} characters; a cell has at most {MAX_CELL_CHARS:,}",
                       f"{path.name}:{number}")


def build_table(lines: list[tuple[int, str]], path: Path, delimiter: str) -> Table:
    """Split ``lines`` into a :class:`Table` (header stripped, data fields verbatim)."""
    header_line, header_text = lines[0]
    header = tuple(f.strip() for f in header_text.split(delimiter))
    return Table(path.name, path, delimiter, header, header_line, Rows(lines, delimiter))
