"""Every rule an AUCX archive can break, with its severity and source.

Sources:

* the AUCX 1.0 format document (seed ``002_59993c7ffff01d56.txt``), cited by
  its section names ("Structure", "Checksums", "Both radius modes",
  "Provenance", "Safety", "Atomic writes", ...);
* the AUCX on-disk notes (``spec/aucx-archive.md``), cited by section number;
* the ZIP specification (PKWARE APPNOTE 6.3.x), cited by section number;
* RFC 8259 (JSON) and NumPy's ``.npy`` format description (NEP 1).

A reader module reports a broken rule with ``findings.report(RULE, message,
location)`` or makes a :class:`~inspector.formats.findings.Finding` with
``RULE.finding(message, location)``; it never decides a severity itself.
Every finding here but ``structure.not-checked`` is integrity-scoped: these are the container
questions of the seed's "Inspection and validation" (readability, safety,
member agreement and checksums).

Nothing here imports Qt.
"""

from __future__ import annotations

from inspector.formats.core_rules import FILE_NOT_FOUND as FILE_NOT_FOUND
from inspector.formats.core_rules import FILE_UNREADABLE as FILE_UNREADABLE
from inspector.formats.core_rules import STRUCTURE_NOT_CHECKED as STRUCTURE_NOT_CHECKED
from inspector.formats.findings import Rule, Severity, rule

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

_SEED = "AUCX 1.0 format document"
_NOTES = "AUCX on-disk notes (spec/aucx-archive.md)"
_APPNOTE = "PKWARE APPNOTE 6.3.10"
_NPY = "NumPy .npy format (NEP 1, 'Format Specification: Version 1.0')"
_DEFERRED = "Inspector's reader contract (docs/architecture.md, 'Deferred work')"
_BOUNDS = ("Inspector's reader contract (docs/architecture.md, 'Contracts': memory in "
           "proportion to what is shown, never to what a file declares)")
SAFETY = f"{_SEED}, 'Safety'"
CHECKSUMS = f"{_SEED}, 'Checksums'"
STRUCTURE = f"{_SEED}, 'Structure'"
RADIUS_MODES = f"{_SEED}, 'Both radius modes'"
PROVENANCE = f"{_SEED}, 'Provenance'"
_OPENAUC_MODELS = ("openauc 0.1.0a1 metadata models (openauc/models/metadata.py, instrument.py, "
                   "sample.py, scan.py, provenance.py; AUCXExport in formats/aucx.py)")
_OPENAUC_LOADER = "openauc 0.1.0a1 AUCX loader (openauc/formats/aucx.py)"

# -- the file itself ----------------------------------------------------------
# The file rules of every format (FILE_NOT_FOUND, FILE_UNREADABLE) come from
# inspector.formats.core_rules.

# -- ZIP container (zipscan, stream) ----------------------------------------------
ZIP_NOT_A_ZIP = rule(
    "zip.not-a-zip", E,
    "The file has no ZIP end-of-central-directory record: an AUCX archive is a ZIP of parts.",
    f"{_SEED}, 'AUCX — the archival container'; {_APPNOTE} §4.3.16")
ZIP_TRUNCATED = rule(
    "zip.truncated", E,
    "The ZIP end record or central directory is missing or cut short.",
    f"{_APPNOTE} §4.3.16; {SAFETY} (unreadable ZIP)")
ZIP_PREFIXED_DATA = rule(
    "zip.prefixed-data", W,
    "Bytes precede the ZIP data; member offsets are shifted by that amount.",
    f"{_APPNOTE} §4.3.6")
ZIP_TOO_MANY_MEMBERS = rule(
    "zip.too-many-members", E,
    "The central directory holds more entries or bytes than the reader's limit; an AUCX "
    "archive has seven members, so it is not read further.",
    f"{STRUCTURE}; {_BOUNDS}")
ZIP_BAD_CENTRAL_DIRECTORY = rule(
    "zip.bad-central-directory", E,
    "A central directory entry has a bad signature or is cut short.", f"{_APPNOTE} §4.3.12")
ZIP_BAD_ZIP64_EXTRA = rule(
    "zip.bad-zip64-extra", E,
    "An entry whose size or offset field is 0xFFFFFFFF lacks a usable ZIP64 extra field.",
    f"{_APPNOTE} §4.5.3")
ZIP_ENTRY_COUNT = rule(
    "zip.entry-count", E,
    "The end record announces another number of entries than the central directory holds.",
    f"{_APPNOTE} §4.3.16")
ZIP_EMPTY = rule(
    "zip.empty", E,
    "The ZIP holds no member; an AUCX archive needs its manifest, parts and checksums.",
    STRUCTURE)
ZIP_MANY_MEMBERS = rule(
    "zip.many-members", W,
    "The archive holds far more ZIP entries than the seven members of an AUCX archive.",
    STRUCTURE)
ZIP_UNSAFE_NAME = rule(
    "zip.unsafe-name", E,
    "A member name is empty, a directory entry, absolute, traversing ('..'), uses "
    "backslashes or holds a control character (which no checksums.sha256 line can name "
    "unchanged); such a member is never decompressed.", f"{SAFETY}; {_NOTES} §4 step 2")
ZIP_DUPLICATE_MEMBER = rule(
    "zip.duplicate-member", E, "Two or more ZIP entries share one member name.", SAFETY)
ZIP_ENCRYPTED = rule(
    "zip.encrypted", E,
    "A member has the encrypted flag (general purpose bit 0) set; it is never decompressed.",
    f"{SAFETY}; {_APPNOTE} §4.4.4")
ZIP_UNSUPPORTED_COMPRESSION = rule(
    "zip.unsupported-compression", E,
    "A member uses a compression method other than stored (0) or deflate (8).",
    f"{_NOTES} §2; {_APPNOTE} §4.4.5")
ZIP_DECLARED_SIZE = rule(
    "zip.declared-size", E,
    "A member declares more than 512 MiB uncompressed; it is refused before anything is "
    "allocated.", SAFETY)
ZIP_TOTAL_SIZE = rule(
    "zip.total-size", E,
    "The members declare more than 2 GiB uncompressed in total; none is decompressed.", SAFETY)
ZIP_OVERLAP = rule(
    "zip.overlap", E,
    "An entry's local header and data overlap another entry's (ZIP bomb and ambiguity "
    "guard).", f"{SAFETY}; {_APPNOTE} §4.3.6")
ZIP_BAD_LOCAL_HEADER = rule(
    "zip.bad-local-header", E,
    "No valid local file header where the central directory says an entry starts.",
    f"{_APPNOTE} §4.3.7")
ZIP_NAME_MISMATCH = rule(
    "zip.name-mismatch", E,
    "An entry's local header names another member than its central directory entry.",
    f"{_APPNOTE} §4.3.7")
ZIP_HEADER_MISMATCH = rule(
    "zip.header-mismatch", E,
    "An entry's local and central headers disagree on the compression method.",
    f"{_APPNOTE} §4.3.7")
ZIP_DATA_OUT_OF_BOUNDS = rule(
    "zip.data-out-of-bounds", E,
    "An entry's data runs into the central directory or past the end of the file.",
    f"{_APPNOTE} §4.3.6")
ZIP_REFUSED = rule(
    "zip.refused", E,
    "A member that failed a safety check was asked to be decompressed; it never is.", SAFETY)
ZIP_CORRUPT_DATA = rule(
    "zip.corrupt-data", E,
    "A member's compressed data is corrupt or ends early.", f"{_APPNOTE} §4.4.5")
ZIP_SIZE_EXCEEDED = rule(
    "zip.size-exceeded", E,
    "A member inflates to more bytes than its headers declare; reading stops at the declared "
    "size.", f"{SAFETY} (declared sizes are limits)")
ZIP_SIZE_SHORT = rule(
    "zip.size-short", E,
    "A member inflates to fewer bytes than its headers declare.", f"{_APPNOTE} §4.4.9")
ZIP_CRC_MISMATCH = rule(
    "zip.crc-mismatch", E,
    "A member's CRC-32 differs from the one its central directory records.",
    f"{_APPNOTE} §4.4.7")

# -- members read at open ---------------------------------------------------------
MEMBER_TOO_LARGE = rule(
    "member.too-large", E,
    "A metadata member declares more bytes than the reader parses for it; it is not parsed.",
    f"{SAFETY} (declared sizes are limits); {_BOUNDS}")
MEMBER_UNREADABLE = rule(
    "member.unreadable", E,
    "A member could not be read (corrupt data, or the file vanished or cannot be read; a "
    "file replaced or rewritten since it was opened is file.changed).",
    f"{SAFETY} (low-level ZIP failures are reported with the failing member)")

# -- checksums.sha256 -----------------------------------------------------------
CHECKSUMS_MISSING = rule(
    "checksums.missing", E,
    "The archive has no checksums.sha256; it cannot be verified and is not accepted.",
    CHECKSUMS)
CHECKSUMS_NOT_UTF8 = rule(
    "checksums.not-utf8", E, "checksums.sha256 is not UTF-8 text.", f"{_NOTES} §4 step 3")
CHECKSUMS_EMPTY = rule(
    "checksums.empty", E, "checksums.sha256 lists no member.", f"{_NOTES} §4 step 3")
CHECKSUMS_TOO_MANY_LINES = rule(
    "checksums.too-many-lines", E,
    "checksums.sha256 has more lines than the reader classifies; later lines are not read.",
    f"{CHECKSUMS}; {_BOUNDS}")
CHECKSUMS_MALFORMED_LINE = rule(
    "checksums.malformed-line", E,
    "A line is not '<digest><two spaces><member name>'.", CHECKSUMS)
CHECKSUMS_DIGEST_LENGTH = rule(
    "checksums.digest-length", E,
    "A line's digest is not 64 hexadecimal digits.", CHECKSUMS)
CHECKSUMS_DIGEST_NOT_LOWERCASE = rule(
    "checksums.digest-not-lowercase", E,
    "A line writes its digest in upper-case hex; the line format asks for lowercase.",
    CHECKSUMS)
CHECKSUMS_DUPLICATE_ENTRY = rule(
    "checksums.duplicate-entry", E, "A member is listed on more than one line.", CHECKSUMS)
CHECKSUMS_LISTED_MISSING = rule(
    "checksums.listed-missing", E,
    "checksums.sha256 lists a member that is missing from the archive.", CHECKSUMS)
CHECKSUMS_UNLISTED = rule(
    "checksums.unlisted", E,
    "The archive holds a member that checksums.sha256 does not list.", CHECKSUMS)
CHECKSUMS_MISMATCH = rule(
    "checksums.mismatch", E,
    "A member's streamed SHA-256 differs from the digest checksums.sha256 records for it.",
    CHECKSUMS)

# -- manifest.json --------------------------------------------------------------
MANIFEST_MISSING = rule(
    "manifest.missing", E, "The archive has no manifest.json.", STRUCTURE)
MANIFEST_NOT_JSON = rule(
    "manifest.not-json", E,
    "manifest.json is not strict UTF-8 JSON.", f"RFC 8259; {_NOTES} §1")
MANIFEST_NOT_OBJECT = rule(
    "manifest.not-object", E, "manifest.json does not hold a JSON object.",
    f"{_NOTES} §4 step 4")
MANIFEST_VERSION_MISSING = rule(
    "manifest.version-missing", E,
    "The manifest does not declare aucx_format_version; only 1.0 is read.",
    f"{_SEED}, 'AUCX — the archival container' (current format version); {_NOTES} §4 step 4")
MANIFEST_VERSION_UNSUPPORTED = rule(
    "manifest.version-unsupported", E,
    "The manifest declares a format version other than 1.0; archives are never migrated.",
    f"{_SEED}, 'AUCX — the archival container' (current format version); {_NOTES} §4 step 4")
MANIFEST_PARTS_INVALID = rule(
    "manifest.parts-invalid", E, "The manifest's 'parts' is not a list of member names.",
    f"{_NOTES} §1")
MANIFEST_PARTS_INCOMPLETE = rule(
    "manifest.parts-incomplete", E,
    "The manifest's 'parts' omits one of the five payload members.", f"{STRUCTURE}; "
    f"{_NOTES} §4 step 5")
MANIFEST_UNSAFE_PART_NAME = rule(
    "manifest.unsafe-part-name", E,
    "The manifest lists a part whose name is empty, absolute, traversing or uses "
    "backslashes.", SAFETY)
MANIFEST_PART_MISSING = rule(
    "manifest.part-missing", E,
    "The manifest lists a part that is absent from the archive.", STRUCTURE)
MANIFEST_MEMBER_NOT_IN_PARTS = rule(
    "manifest.member-not-in-parts", E,
    "The archive holds a member that is neither a listed part nor manifest.json or "
    "checksums.sha256.", STRUCTURE)
MANIFEST_OBSERVATIONS_INVALID = rule(
    "manifest.observations-invalid", E,
    "The manifest's 'observations' block is missing or not an object, or lacks or has a bad "
    "mode or unit, scan ids openauc cannot read (not iterable, or empty or repeated once "
    "made text) or an n_scans/n_points that int() cannot read.",
    f"{_NOTES} §1; {_OPENAUC_LOADER} (_observations_from, inspect_aucx)")
MANIFEST_MODE_INFERRED = rule(
    "manifest.mode-inferred", INFO,
    "The radius axis mode was taken from the radius array's dimensionality because the "
    "manifest does not state it usably.", RADIUS_MODES)

# -- experiment.json / provenance.json --------------------------------------------
JSON_INVALID = rule(
    "json.invalid", E,
    "experiment.json or provenance.json is not strict UTF-8 JSON.", f"RFC 8259; {_NOTES} §1")
JSON_NOT_OBJECT = rule(
    "json.not-object", E,
    "experiment.json or provenance.json does not hold a JSON object.", f"{_NOTES} §1")
JSON_NON_FINITE = rule(
    "json.non-finite-number", W,
    "A JSON member writes NaN, Infinity or a number beyond the double range: not RFC 8259 "
    "JSON, but read as a non-finite float by Python's json module and so by openauc; a "
    "place that needs a finite number reports it under its own rule.",
    f"RFC 8259 §6; {_OPENAUC_LOADER} (json.loads)")
JSON_MODEL_INVALID = rule(
    "json.model-invalid", E,
    "A value of experiment.json (metadata, instrument, samples, scans) or provenance.json "
    "(import, export) breaks the openauc metadata model it is loaded into: a required key "
    "missing, an unknown key, a value of the wrong type (after pydantic's lax coercions), "
    "an enumeration value or date openauc does not know, or a quantity rule (a present "
    "value is finite, others carry none; units of the right kind; no negative speed, time "
    "or wavelength); openauc cannot load such an archive.",
    f"{_OPENAUC_MODELS}; {_OPENAUC_LOADER}")
EXPERIMENT_INVALID = rule(
    "experiment.invalid", E,
    "experiment.json's 'scans' or 'samples' is neither absent nor a list of records: "
    "openauc iterates it, so null, a number or a boolean cannot be read and non-empty text "
    "or an object yields characters or keys that are not records.",
    f"{_OPENAUC_LOADER} (_experiment_from)")
EXPERIMENT_NOT_LOADED = rule(
    "experiment.not-loaded", W,
    "The parts read at open could not be assembled into an experiment model.",
    f"{_NOTES} §4 step 7")
PROVENANCE_NO_EXPORT = rule(
    "provenance.no-export", E, "provenance.json has no 'export' object.",
    f"{PROVENANCE}; {_OPENAUC_LOADER} (_export_record)")

# -- arrays ---------------------------------------------------------------------
ARRAY_UNREADABLE = rule(
    "array.unreadable", E,
    "An array member is not a readable .npy array (magic, version or header dict).",
    f"{_NPY}; {SAFETY} (malformed .npy)")
ARRAY_PICKLED = rule(
    "array.pickled", E,
    "An array member has an object (pickled) dtype; it is rejected and never unpickled.",
    f"{_SEED}, 'Why .npy'; {SAFETY}")
ARRAY_SIZE_MISMATCH = rule(
    "array.size-mismatch", E,
    "An array member holds another number of data bytes than its .npy header announces.",
    _NPY)
ARRAY_DTYPE = rule(
    "array.dtype", E,
    "radius or signal is not floating point, or the mask is not exactly bool.",
    f"{SAFETY}; {_NOTES} §4 step 6")
ARRAY_DECLARED_DTYPE = rule(
    "array.declared-dtype", W,
    "The manifest declares another dtype for an array than the stored one.", f"{_NOTES} §1")
ARRAY_SHAPE_MISMATCH = rule(
    "array.shape-mismatch", E,
    "The manifest declares another shape for an array than the stored one.", SAFETY)
ARRAY_NDIM = rule(
    "array.ndim", E,
    "An array has the wrong dimensionality for its radius axis mode.", RADIUS_MODES)
ARRAY_SHAPE = rule(
    "array.shape", E,
    "The shapes of radius, signal and mask do not fit together.", RADIUS_MODES)
ARRAY_SCAN_COUNT = rule(
    "array.scan-count", E,
    "The number of scan ids disagrees with the signal's rows.", SAFETY)
ARRAY_DECLARED_COUNT = rule(
    "array.declared-count", W,
    "The manifest's n_scans or n_points disagrees with the signal's rows or columns; "
    "openauc reads both only as integers and describes the arrays by their shapes.",
    f"{_NOTES} §1; {_OPENAUC_LOADER} (inspect_aucx)")
ARRAY_SHARED_MASK_NOT_ALL_TRUE = rule(
    "array.shared-mask-not-all-true", E,
    "A shared-axis archive's mask has a False entry; in shared mode every value is real.",
    RADIUS_MODES)
ARRAY_NON_FINITE = rule(
    "array.non-finite", E,
    "A shared-axis radius or signal holds a non-finite value.", RADIUS_MODES)
ARRAY_MASKED_IN_NON_FINITE = rule(
    "array.masked-in-non-finite", E,
    "A per-scan radius or signal holds a non-finite value where the mask marks a real "
    "observation (padding marked valid).", RADIUS_MODES)

# -- the deferred verification ----------------------------------------------------
VERIFY_CANCELLED = rule(
    "verify.cancelled", W,
    "Verification was cancelled before every member was hashed; the archive is not "
    "verified.", f"{CHECKSUMS} (nothing is reported valid before verification succeeds); "
    f"{_DEFERRED}")

#: Every rule of this package, by code.
AUCX_RULES: dict[str, Rule] = {
    r.code: r for r in globals().values() if isinstance(r, Rule)
}

# -- structural validation not done ------------------------------------------
