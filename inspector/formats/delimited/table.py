"""Read a CSV/TSV scan table as raw text fields, and find its delimiter.

Rules (``docs/formats/parser-detection.md``, "Delimiter detection"): the data
file is UTF-8 text; blank lines (only whitespace) are skipped; comma and tab
are the only delimiters; a delimiter is *consistent* when the header splits
into at least two fields and every non-blank line into the same number.  A
declared ``delimiter`` must be consistent; otherwise the single consistent
delimiter is used; when both are, the suffix decides (``.csv`` comma, ``.tsv``
tab); anything else is an error, never a guess.  Fields are split verbatim:
there is no quoting, and values are not coerced or reordered here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inspector.formats.delimited.errors import Collector

DELIMITERS = (",", "\t")
SUFFIX_DELIMITER = {".csv": ",", ".tsv": "\t"}
DELIMITER_NAMES = {",": "comma", "\t": "tab"}
RULE = "[parser-detection: delimiter detection]"


@dataclass
class Table:
    """A delimited table held as raw strings.

    Attributes:
        name: the data file's name (used in locations).
        path: the data file.
        delimiter: ``","`` or ``"\\t"``.
        header: header fields, stripped of surrounding blanks.
        header_line: 1-based line number of the header.
        rows: ``(line number, fields)`` per non-blank data line, fields verbatim.
    """

    name: str
    path: Path
    delimiter: str
    header: tuple[str, ...]
    header_line: int
    rows: list[tuple[int, tuple[str, ...]]]

    def index(self, column: str) -> int:
        """Index of the first header field equal to ``column``, -1 if absent."""
        try:
            return self.header.index(column)
        except ValueError:
            return -1

    def loc(self, where: int | str | None = None) -> str:
        """Location ``"name"``, ``"name:LINE"`` or ``"name:COLUMN"``."""
        return self.name if where is None else f"{self.name}:{where}"


def read_lines(path: Path, col: Collector) -> list[tuple[int, str]] | None:
    """Non-blank lines of ``path`` as ``(1-based line number, text)``; None on error."""
    name = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        col.error("parse", "table.not-utf8", f"{name}: not UTF-8 text (byte {exc.start})", name)
        return None
    except OSError as exc:
        col.error("parse", "table.unreadable", f"{name}: cannot be read: {exc}", name)
        return None
    lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        col.error("parse", "table.empty", f"{name}: the data file is empty", name)
        return None
    return lines


def first_inconsistent(lines: list[tuple[int, str]], delimiter: str) -> int | None:
    """Line number breaking consistency under ``delimiter`` (the header if < 2 fields); None if consistent."""
    header_line, header = lines[0]
    count = len(header.split(delimiter))
    if count < 2:
        return header_line
    for number, line in lines[1:]:
        if len(line.split(delimiter)) != count:
            return number
    return None


def detect_delimiter(lines: list[tuple[int, str]], path: Path, declared: str | None,
                     declared_loc: str, col: Collector) -> str | None:
    """The delimiter of the table (see module rules); None and an error otherwise."""
    name = path.name
    broken = {d: first_inconsistent(lines, d) for d in DELIMITERS}
    viable = [d for d in DELIMITERS if broken[d] is None]
    if declared is not None:
        if declared not in viable:
            where = broken.get(declared)
            what = DELIMITER_NAMES.get(declared, repr(declared))
            col.error("parse", "table.declared-delimiter-inconsistent",
                      f"{name}: the declared delimiter ({what}, {declared_loc}) does not yield a "
                      f"consistent table" + (f": line {where} has a different number of fields"
                                             if where else "") + f" {RULE}",
                      f"{name}:{where}" if where else name)
            return None
        return declared
    if not viable:
        detail = "; ".join(
            f"{DELIMITER_NAMES[d]}: line {broken[d]} "
            + ("has fewer than 2 fields" if broken[d] == lines[0][0] else
               "has a different number of fields than the header")
            for d in DELIMITERS)
        # point at the line that breaks a delimiter the header does split on
        header_line = lines[0][0]
        plausible = [broken[d] for d in DELIMITERS if broken[d] != header_line]
        first = min(plausible) if plausible else header_line
        col.error("parse", "table.no-consistent-delimiter",
                  f"{name}: no consistent delimiter ({detail}) {RULE}", f"{name}:{first}")
        return None
    if len(viable) == 1:
        return viable[0]
    by_suffix = SUFFIX_DELIMITER.get(path.suffix.lower())
    if by_suffix in viable:
        return by_suffix
    col.error("ambiguous", "table.ambiguous-delimiter",
              f"{name}: both comma and tab give a consistent table and the suffix "
              f"{path.suffix!r} does not decide; declare 'delimiter' in the manifest {RULE}", name)
    return None


def build_table(lines: list[tuple[int, str]], path: Path, delimiter: str) -> Table:
    """Split ``lines`` into a :class:`Table` (header stripped, data fields verbatim)."""
    header_line, header_text = lines[0]
    header = tuple(f.strip() for f in header_text.split(delimiter))
    rows = [(n, tuple(line.split(delimiter))) for n, line in lines[1:]]
    return Table(path.name, path, delimiter, header, header_line, rows)
