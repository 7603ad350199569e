"""Every rule a Beckman XL-A/XL-I legacy scan folder can break, with severity and source.

The layout rules are those of UltraScan III's reader of these files
(``utils/us_dataIO.cpp`` ``US_DataIO::readLegacyFile`` and
``utils/us_convert.cpp`` ``US_Convert::readLegacyData``), its writer of them
(``programs/us_export_legacy/us_export.cpp``) and the UltraScan III wiki page
"Legacy raw data formats".  Where UltraScan silently reads a damaged line as
0.0 or stops at it, Inspector reports it: nothing is guessed.  The model rules
are those of the canonical AUC model (``openauc==0.1.0a1``), and the size
limits Inspector's own (docs/architecture.md, "Contracts").

Nothing here imports Qt.
"""

from __future__ import annotations

from inspector.formats.findings import Rule, Scope, Severity, rule

US_READER = "UltraScan III utils/us_dataIO.cpp, US_DataIO::readLegacyFile"
US_FILES = "UltraScan III utils/us_convert.cpp, US_Convert::readLegacyData (file names, channels)"
US_TRIPLES = ("UltraScan III utils/us_convert.cpp, US_Convert::setCcwTriples and convert "
              "(scans grouped by cell, channel and wavelength)")
US_WRITER = "UltraScan III programs/us_export_legacy/us_export.cpp (header line per type)"
WIKI = ("UltraScan III wiki, 'Legacy raw data formats' "
        "(wiki.aucsolutions.com/ultrascan3/wiki/LegacyFormats)")
MODEL = "openauc 0.1.0a1 docs/concepts/data-model.md (canonical model: quantities, observations)"
LIMITS = "Inspector's safety limits (docs/architecture.md, 'Contracts')"
API = ("Inspector's Beckman reader, open_run (inspector/formats/beckman/README.md, "
       "'What the reader does')")

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def _rule(code: str, severity: Severity, summary: str, source: str,
          scope: Scope = Scope.INTEGRITY) -> Rule:
    """Declare a ``beckman.*`` rule (one code = one rule across formats)."""
    return rule(f"beckman.{code}", severity, summary, source, scope)


# -- the folder and its files --------------------------------------------------------
NOT_FOUND = _rule("not-found", E, "The run folder or scan file does not exist.", US_FILES)
NO_SCAN_FILES = _rule(
    "no-scan-files", E,
    "The folder holds no file named like a scan: an optional channel letter A-J, 4 to 6 "
    "digits, a dot, RA/RI/IP/FI/WA/WI and the cell digit.", US_FILES)
NAME_NOT_SCAN = _rule(
    "name-not-scan", E,
    "The file opened is not named like a scan file, so its type and cell are unknown.",
    US_FILES)
UNREADABLE = _rule("unreadable", E, "A scan file cannot be read.", US_READER)
LINK_OUTSIDE = _rule(
    "link-outside", W,
    "A scan file of a run folder is a symbolic link leading out of the folder; it is not "
    "read, and nothing of its content is quoted.", LIMITS)
FILE_TOO_LARGE = _rule(
    "file-too-large", E,
    "A scan file is larger than Inspector reads (a scan is a few thousand lines at most).",
    LIMITS)
TOO_MANY_FILES = _rule(
    "too-many-files", E, "The folder holds more scan files than Inspector reads at once.",
    LIMITS)

# -- line 1 and line 2 ------------------------------------------------------------------
DESCRIPTION_NOT_UTF8 = _rule(
    "description-not-utf8", W,
    "The description line (line 1) is not UTF-8 text; it is kept with the undecodable bytes "
    "escaped as \\xNN.", US_READER)
NO_HEADER_LINE = _rule(
    "no-header-line", E,
    "The file ends before line 2, the header line of type, cell, temperature, speed, "
    "elapsed time, omega^2t, wavelength and count.", US_READER)
HEADER_FIELDS = _rule(
    "header-fields", E,
    "Line 2 has fewer than the eight whitespace-separated fields the reader needs.",
    US_READER)
HEADER_EXTRA_FIELDS = _rule(
    "header-extra-fields", W,
    "Line 2 has more than eight fields; the fields after the eighth are ignored, as "
    "UltraScan ignores them.", US_READER)
HEADER_VALUE = _rule(
    "header-value", E,
    "A line-2 field is not a number of its kind (cell and count integers, the others "
    "decimal numbers), is not finite, or is an integer of more than 18 digits (Inspector's "
    "limit: no instrument writes more); UltraScan would read it as 0.", US_READER)
HEADER_NEGATIVE = _rule(
    "header-negative", E,
    "Rotor speed, elapsed time, omega^2t and wavelength (or radius) are never negative.",
    MODEL)
TYPE_LETTER = _rule(
    "type-letter", E,
    "The type letter of line 2 is not the one the file name's type is written with (R for "
    "RA, I for RI, P for IP, F for FI, W for WA, W or V for WI), so the optical system is "
    "not decided.", US_WRITER)
CELL_MISMATCH = _rule(
    "cell-mismatch", E,
    "The cell number of line 2 differs from the cell digit ending the file name, so the "
    "scan's cell is not decided.", WIKI)

# -- data lines ---------------------------------------------------------------------------
MALFORMED_LINE = _rule(
    "malformed-line", E,
    "A data line is not two or three numbers (radius, value and an optional third column) "
    "separated by spaces or tabs; UltraScan would read a bad number as 0.", US_READER)
NON_FINITE = _rule(
    "non-finite", E,
    "A data value is NaN or infinite; the canonical model holds finite observations only.",
    MODEL)
DATA_AFTER_BLANK = _rule(
    "data-after-blank", E,
    "A data line follows a blank line; UltraScan stops reading a scan at its first line "
    "with fewer than two fields, so the lines after it would be lost there.", US_READER)
NO_DATA = _rule("no-data", E, "The file has no data line after its header line.", US_READER)
THIRD_COLUMN_MISSING = _rule(
    "third-column-missing", W,
    "Some data lines have the optional third column and others do not; where it is absent "
    "it is recorded as missing (NaN), never filled in.", US_READER)
DUPLICATE_RADIUS = _rule(
    "duplicate-radius", W,
    "A radius appears more than once in one scan; both points are kept as recorded, never "
    "merged.", MODEL)
RADIUS_NOT_INCREASING = _rule(
    "radius-not-increasing", W,
    "The radii of a scan decrease somewhere; the points are kept in file order, never "
    "sorted.", MODEL)

# -- groups -------------------------------------------------------------------------------
MIXED_SPEEDS = _rule(
    "mixed-speeds", W,
    "The scans of one group (cell, channel, type and wavelength) were taken at more than one "
    "rotor speed; each scan keeps its own.", US_TRIPLES)
TIME_NOT_INCREASING = _rule(
    "time-not-increasing", W,
    "In file-number order the elapsed time of a group's scans decreases somewhere; the scans "
    "are kept in file-number order (UltraScan sorts them by time).", US_TRIPLES)
GROUP_NOT_FOUND = _rule(
    "group-not-found", E, "The group asked for is not one of the run's groups.", API)
WAVELENGTH_SCANS = _rule(
    "wavelength-scans", INFO,
    "The group holds wavelength scans (WA/WI: signal against wavelength at one radius), "
    "which are not radial scans, so it is not offered as an AUC experiment or for AUCX "
    "export.", WIKI)
