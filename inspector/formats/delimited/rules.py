"""Every rule a delimited AUC source can break, with its severity and source.

The rules are those the reference importer ``openauc==0.1.0a1`` enforces
(documents ``docs/formats/generic-delimited.md``, ``manifest-v1.md`` and
``parser-detection.md`` of ``ronfinn/openauc-io``), plus Inspector's own
safety limits (docs/architecture.md, "Contracts": a bad file never makes the
inspector use memory in proportion to what it declares).  Each error rule
also names the :class:`~.errors.DelimitedError` subclass the strict API
raises when it is the first rule broken (the reference's exception class).

Nothing here imports Qt.
"""

from __future__ import annotations

from inspector.formats.delimited.errors import (
    AmbiguousSourceError,
    DataConflictError,
    DelimitedError,
    InvalidValueError,
    ManifestInvalidError,
    SourceParseError,
    UnsupportedLayoutError,
)
from inspector.formats.findings import Rule, Scope, Severity, rule

_REF = "openauc 0.1.0a1 docs/formats/"
LOADING = _REF + "generic-delimited.md, 'Loading'"
LONG_FORMAT = _REF + "generic-delimited.md, 'Long format (generic-long)'"
WIDE_FORMAT = _REF + "generic-delimited.md, 'Wide format (generic-wide)'"
UNITS = _REF + "generic-delimited.md, 'Units'"
MANIFEST_FIELDS = _REF + "manifest-v1.md, 'Top-level fields'"
MANIFEST_DEFAULTS = _REF + "manifest-v1.md, 'Defaults and conflicts'"
MANIFEST_COLUMNS = _REF + "manifest-v1.md, 'Wide-format columns'"
SELECTION = _REF + "parser-detection.md, 'Selection precedence'"
DETECTION = _REF + "parser-detection.md, 'Confidence-based detection'"
DELIMITERS = _REF + "parser-detection.md, 'Delimiter detection'"
ERRORS = _REF + "parser-detection.md, 'Errors'"
MODEL = "openauc 0.1.0a1 docs/concepts/data-model.md (canonical model: quantities, identifiers)"
LIMITS = "Inspector's safety limits (docs/architecture.md, 'Contracts')"

_ERROR_CLASS: dict[str, type[DelimitedError]] = {}


def _rule(code: str, severity: Severity, summary: str, source: str,
          raises: type[DelimitedError] | None = None) -> Rule:
    """Declare a rule; ``raises`` is the strict API's class when it is broken first.

    Every import rule has scope ``integrity``: breaking it rejects the import,
    so the document is not ok (the experiment's own consistency is judged
    separately, by :mod:`inspector.formats.auc.structure`).
    """
    declared = rule(code, severity, summary, source, Scope.INTEGRITY)
    if raises is not None:
        _ERROR_CLASS[code] = raises
    return declared


def error_class(broken: Rule) -> type[DelimitedError]:
    """The :class:`DelimitedError` subclass raised when ``broken`` is the first error."""
    return _ERROR_CLASS.get(broken.code, SourceParseError)


E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# -- finding the source -----------------------------------------------------------
SOURCE_NOT_FOUND = _rule(
    "source.not-found", E, "The path to import does not exist.", LOADING, SourceParseError)
SOURCE_UNREADABLE = _rule(
    "source.unreadable", E, "A source file cannot be read to compute its digest.", LOADING,
    SourceParseError)
SOURCE_NO_MANIFEST = _rule(
    "source.no-manifest", E,
    "A folder, or the folder of a data file, holds no manifest.json/.yaml/.yml; a data file "
    "needs a manifest for the experiment's identity.", LOADING, ManifestInvalidError)
SOURCE_AMBIGUOUS_MANIFEST = _rule(
    "source.ambiguous-manifest", E,
    "A folder holds more than one manifest, so which one applies is not decided.", ERRORS,
    AmbiguousSourceError)
SOURCE_DATA_FILE_MISSING = _rule(
    "source.data-file-missing", E,
    "The manifest's data_file does not name an existing file.", MANIFEST_FIELDS,
    SourceParseError)
SOURCE_DATA_FILE_MISMATCH = _rule(
    "source.data-file-mismatch", E,
    "The data file that was opened is not the one the manifest declares.", LOADING,
    DataConflictError)
SOURCE_DEFAULT_CONFLICT = _rule(
    "source.default-conflict", E,
    "A manifest default disagrees with a value the data supplies; neither overrides the "
    "other.", MANIFEST_DEFAULTS, DataConflictError)
SOURCE_SIGNAL_UNIT_CONFLICT = _rule(
    "source.signal-unit-conflict", E, "One data file states more than one signal unit.", UNITS,
    DataConflictError)
SOURCE_MORE_ERRORS = _rule(
    "source.more-errors", E,
    "An import stage found more errors than are listed one by one; the rest are counted.",
    LIMITS)

# -- the manifest -------------------------------------------------------------------
MANIFEST_NOT_FOUND = _rule(
    "manifest.not-found", E, "The manifest file does not exist.", LOADING, ManifestInvalidError)
MANIFEST_BAD_SUFFIX = _rule(
    "manifest.bad-suffix", E, "A manifest is a .json, .yaml or .yml file.", MANIFEST_FIELDS,
    ManifestInvalidError)
MANIFEST_TOO_LARGE = _rule(
    "manifest.too-large", E,
    "The manifest is larger than Inspector reads, or its YAML aliases expand beyond that; it "
    "is refused unparsed.", LIMITS, ManifestInvalidError)
MANIFEST_NOT_UTF8 = _rule(
    "manifest.not-utf8", E, "The manifest is not UTF-8 text.", MANIFEST_FIELDS,
    ManifestInvalidError)
MANIFEST_UNREADABLE = _rule(
    "manifest.unreadable", E, "The manifest file cannot be read.", LOADING,
    ManifestInvalidError)
# Formerly "manifest.not-json": that code is the AUCX reader's rule for an
# archive's manifest.json (one code = one rule across formats).
MANIFEST_NOT_JSON = _rule(
    "manifest.invalid-json", E, "A .json manifest is not valid JSON (RFC 8259).",
    MANIFEST_FIELDS, ManifestInvalidError)
MANIFEST_NOT_YAML = _rule(
    "manifest.not-yaml", E,
    "A .yaml/.yml manifest is not valid YAML for the safe loader (no language tags).",
    MANIFEST_FIELDS, ManifestInvalidError)
MANIFEST_TOO_DEEP = _rule(
    "manifest.too-deep", E, "The manifest is nested too deeply to be parsed.", LIMITS,
    ManifestInvalidError)
MANIFEST_BAD_VALUE = _rule(
    "manifest.bad-value", E,
    "The manifest holds a value JSON does not have (NaN, Infinity) or an integer too long "
    "to read.", MANIFEST_FIELDS, ManifestInvalidError)
MANIFEST_NOT_MAPPING = _rule(
    "manifest.not-mapping", E, "The manifest's top level is not a mapping.", MANIFEST_FIELDS,
    ManifestInvalidError)
MANIFEST_INVALID_FIELD = _rule(
    "manifest.invalid-field", E,
    "A manifest field is missing, unknown, of the wrong type, outside its allowed values, an "
    "unsafe data_file path (absolute, escaping, or holding a NUL), or an identifier longer "
    "than Inspector reads.", MANIFEST_FIELDS,
    ManifestInvalidError)
MANIFEST_CYCLIC_ALIAS = _rule(
    "manifest.cyclic-alias", INFO,
    "A YAML alias refers to a value that contains it; the free-form value is kept but shown "
    "only down to the repetition.", MANIFEST_FIELDS)
MANIFEST_DATA_FILE_OUTSIDE = _rule(
    "manifest.data-file-outside", E,
    "The manifest's data_file resolves (links followed) outside the experiment folder.",
    MANIFEST_FIELDS, ManifestInvalidError)
MANIFEST_WIDE_NEEDS_COLUMNS = _rule(
    "manifest.wide-needs-columns", E,
    "A generic-wide table needs the manifest's columns mapping.", MANIFEST_COLUMNS,
    ManifestInvalidError)

# -- choosing the layout ---------------------------------------------------------------
LAYOUT_UNKNOWN_FORMAT = _rule(
    "layout.unknown-format", E,
    "The manifest's format is neither generic-long nor generic-wide.", SELECTION,
    UnsupportedLayoutError)
LAYOUT_NOT_DETECTED = _rule(
    "layout.not-detected", E,
    "No format is declared and no layout reaches the minimum detection confidence.", DETECTION,
    UnsupportedLayoutError)
LAYOUT_AMBIGUOUS = _rule(
    "layout.ambiguous", E,
    "No format is declared and two layouts are detected within the tie margin.", DETECTION,
    AmbiguousSourceError)

# -- the data file as text -------------------------------------------------------------------
TABLE_NOT_UTF8 = _rule(
    "table.not-utf8", E, "The data file is not UTF-8 text.", DELIMITERS, SourceParseError)
TABLE_UNREADABLE = _rule(
    "table.unreadable", E, "The data file cannot be read.", LOADING, SourceParseError)
TABLE_EMPTY = _rule(
    "table.empty", E, "The data file has no non-blank line.", DELIMITERS, SourceParseError)
TABLE_DECLARED_DELIMITER_INCONSISTENT = _rule(
    "table.declared-delimiter-inconsistent", E,
    "The manifest's delimiter does not split every line into the header's field count.",
    DELIMITERS, SourceParseError)
TABLE_NO_CONSISTENT_DELIMITER = _rule(
    "table.no-consistent-delimiter", E,
    "Neither comma nor tab splits the header into two or more fields and every line alike.",
    DELIMITERS, SourceParseError)
TABLE_AMBIGUOUS_DELIMITER = _rule(
    "table.ambiguous-delimiter", E,
    "Both comma and tab give a consistent table and the file suffix does not decide.",
    DELIMITERS, AmbiguousSourceError)
TABLE_TOO_MANY_COLUMNS = _rule(
    "table.too-many-columns", E,
    "The header has more fields than Inspector reads; the table is refused before it is "
    "split.", LIMITS, SourceParseError)
TABLE_TOO_MANY_SCANS = _rule(
    "table.too-many-scans", E,
    "A long table names more scans than Inspector reads (1 000 000: about 400 MB to "
    "verify); reading stops at the first row of the scan past the limit, so memory stays "
    "bounded.", LIMITS,
    SourceParseError)
TABLE_LINE_TOO_LONG = _rule(
    "table.line-too-long", E,
    "A line of the data file is longer than Inspector reads; it is counted as it is read, "
    "never held, and the table is refused.", LIMITS, SourceParseError)
TABLE_CELL_TOO_LONG = _rule(
    "table.cell-too-long", E,
    "A header or data cell is longer than Inspector reads (no identifier or number is that "
    "long).", LIMITS, SourceParseError)

# -- the table's columns and rows ---------------------------------------------------------------
TABLE_MISSING_COLUMN = _rule(
    "table.missing-column", E,
    "A required column (generic-long) or a column the manifest maps (generic-wide) is not in "
    "the header.", LONG_FORMAT, SourceParseError)
TABLE_DUPLICATE_COLUMN = _rule(
    "table.duplicate-column", W,
    "A column name appears twice in the header; only the first is read.", LONG_FORMAT)
TABLE_IGNORED_COLUMN = _rule(
    "table.ignored-column", INFO, "A header column is not one the layout reads.", LONG_FORMAT)
TABLE_FIELD_COUNT = _rule(
    "table.field-count", E, "A data line has another number of fields than the header.",
    DELIMITERS, SourceParseError)
TABLE_EMPTY_SCAN_ID = _rule(
    "table.empty-scan-id", E, "A generic-long row has a blank scan identifier.", LONG_FORMAT,
    SourceParseError)
TABLE_NOT_A_NUMBER = _rule(
    "table.not-a-number", E, "A radius, signal or numeric metadata cell is not a number.",
    LONG_FORMAT, SourceParseError)
TABLE_NON_FINITE = _rule(
    "table.non-finite", E, "A radius, signal or numeric metadata cell is NaN or infinite.",
    LONG_FORMAT, SourceParseError)
TABLE_DUPLICATE_OBSERVATION = _rule(
    "table.duplicate-observation", E,
    "A generic-long table repeats a (scan, radius) pair.", LONG_FORMAT, DataConflictError)
TABLE_INCONSISTENT_SCAN_VALUE = _rule(
    "table.inconsistent-scan-value", E,
    "A per-scan optional column has two different values within one scan.", LONG_FORMAT,
    DataConflictError)
TABLE_NO_SCANS = _rule(
    "table.no-scans", E, "A generic-long table has no data row.", LONG_FORMAT,
    SourceParseError)
TABLE_BAD_TIMESTAMP = _rule(
    "table.bad-timestamp", E, "An acquisition_timestamp cell is not ISO-8601.", LONG_FORMAT,
    SourceParseError)
TABLE_UNKNOWN_OPTICAL_SYSTEM = _rule(
    "table.unknown-optical-system", E,
    "An optical_system cell names no optical system of the model.", LONG_FORMAT,
    SourceParseError)
TABLE_DUPLICATE_RADIUS = _rule(
    "table.duplicate-radius", E,
    "A generic-wide table repeats a radius; its scans share one radius axis.", WIDE_FORMAT,
    DataConflictError)

# -- values the canonical model cannot hold -----------------------------------------------------
MODEL_NON_FINITE = _rule(
    "model.non-finite", E, "A quantity is NaN or infinite.", MODEL, InvalidValueError)
MODEL_NEGATIVE = _rule(
    "model.negative", E,
    "An elapsed time, wavelength or rotor speed is negative.", MODEL, InvalidValueError)
MODEL_EMPTY_SCAN_ID = _rule(
    "model.empty-scan-id", E, "A scan identifier is blank.", MODEL, InvalidValueError)
MODEL_EMPTY_EXPERIMENT_ID = _rule(
    "model.empty-experiment-id", E, "The experiment identifier is blank.", MODEL,
    InvalidValueError)
MODEL_EMPTY_SAMPLE_ID = _rule(
    "model.empty-sample-id", E, "A sample identifier is blank.", MODEL, InvalidValueError)
MODEL_NO_SCANS = _rule(
    "model.no-scans", E, "The source holds no scan; an experiment needs at least one.", MODEL,
    InvalidValueError)
MODEL_DUPLICATE_SCAN_ID = _rule(
    "model.duplicate-scan-id", E, "Two scans have the same identifier.", MODEL,
    InvalidValueError)
