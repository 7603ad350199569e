"""Every rule the VneuroTK recording reader checks, declared once.

Sources: the VneuroTK format document (seed 000, by section: "Format
header", "Compatibility policy", "Schema 1 layout", "Provenance boundary",
"Safe scalar identifiers", "Trial metadata", "Atomic writes"), the reader
notes ``spec/vneurotk-recording.md`` (§1 header, §2 neural array, §3 trial
structure, §4 typed scalars, §5 metadata groups, §6 reading discipline) and
the HDF5 file format specification (superblock signature, links, virtual
datasets).  Codes and severities are stable: tests and corpus verdicts
depend on them.

Schema-0 files are checked against the trial-structure contract only to
align vision data (notes §3): the same problems are then warnings, declared
as the ``trials-v0.*`` twins of the ``trials.*`` rules (:data:`TRIALS_V0`);
one code has one severity.
"""

from __future__ import annotations

from inspector.formats.core_rules import FILE_UNREADABLE as FILE_UNREADABLE
from inspector.formats.findings import Rule, Severity, rule

# The rules about the HDF5 file itself are declared with the generic HDF5 reader; named
# here too, so that the recording reader has one rule namespace (``R``).
from inspector.formats.hdf5.rules import *  # noqa: F403

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def notes(section: str) -> str:
    """The source string of a section of the reader notes."""
    return f"VneuroTK recording notes (spec/vneurotk-recording.md) {section}"


def seed(section: str) -> str:
    """The source string of a section of the VneuroTK format document."""
    return f"VneuroTK format document (seed 000), '{section}'"


# -- header ----------------------------------------------------------------------------
HEADER_PARTIAL = rule(
    "header.partial", ERROR,
    "Only one of vneurotk_format and vneurotk_schema_version is present; a partial header "
    "is rejected, not guessed.", seed("Format header"))
HEADER_WRONG_MAGIC = rule(
    "header.wrong-magic", ERROR,
    "The root attribute vneurotk_format must be the text 'recording'.", seed("Format header"))
HEADER_VERSION_TYPE = rule(
    "header.version-type", ERROR,
    "vneurotk_schema_version must be one HDF5 integer, not a boolean, text or array.",
    seed("Format header"))
HEADER_UNSUPPORTED_VERSION = rule(
    "header.unsupported-version", ERROR,
    "Only schema versions 0 through 1 can be read.", seed("Format header"))
HEADER_MISSING_WRITER = rule(
    "header.missing-writer-version", ERROR,
    "A schema-1 file must record writer_version.", seed("Format header"))
HEADER_WRITER_EMPTY = rule(
    "header.writer-version-empty", ERROR,
    "writer_version must be text; a null-dataspace attribute holds no version.",
    seed("Format header"))
HEADER_WRITER_UNREADABLE = rule(
    "header.writer-version-unreadable", ERROR,
    "writer_version is required; a value that cannot be read (or is larger than the "
    "reader takes) records no version.", seed("Format header"))
HEADER_MISSING_DATA_MODE = rule(
    "header.missing-data-mode", ERROR,
    "A schema-1 file must record data_mode.", seed("Format header"))
HEADER_EMPTY_DATA_MODE = rule(
    "header.empty-data-mode", ERROR,
    "A schema-1 data_mode must not be empty.", seed("Format header"))
HEADER_INVALID_DATA_MODE = rule(
    "header.invalid-data-mode", ERROR,
    "After the schema-0 aliases, data_mode must be continuous, epochs or patterns.",
    seed("Compatibility policy"))
SCHEMA_HISTORICAL = rule(
    "schema.historical", INFO,
    "A file with neither header attribute is historical schema 0, read without modifying it.",
    seed("Compatibility policy"))

# -- neural array ----------------------------------------------------------------------
NEURO_FORMAT = rule(
    "neuro.format", ERROR, "neuro_format must be 'dense' (the default) or 'coo'.", notes("§2"))
NEURO_MISSING = rule(
    "neuro.missing", ERROR, "Dense neural data needs the dataset /neuro.", notes("§2"))
NEURO_EMPTY = rule(
    "neuro.empty", ERROR, "The dense neural dataset must hold data (not a null dataspace).",
    notes("§2"))
NEURO_DTYPE = rule(
    "neuro.dtype", ERROR,
    "Neural samples must be numbers (bool, integer, unsigned or float).", notes("§2"))
NEURO_DTYPE_UNUSUAL = rule(
    "neuro.dtype-unusual", WARNING,
    "Neural samples are expected to be real numbers; boolean or complex samples are shown "
    "as stored.", notes("§2"))
COO_MISSING_ATTR = rule(
    "neuro.coo-missing-attr", ERROR,
    "COO neural data needs the root attributes neuro_shape and neuro_dtype.", notes("§2"))
COO_MISSING_DATASET = rule(
    "neuro.coo-missing-dataset", ERROR,
    "COO neural data needs the datasets neuro_row, neuro_col and neuro_data.", notes("§2"))
COO_SHAPE = rule(
    "neuro.coo-shape", ERROR,
    "neuro_shape must be exactly three non-negative integers.", notes("§2"))
COO_DTYPE = rule(
    "neuro.coo-dtype", ERROR, "neuro_dtype must name a numeric numpy dtype.", notes("§2"))
COO_INDEX_DTYPE = rule(
    "neuro.coo-index-dtype", ERROR,
    "neuro_row and neuro_col must hold integers.", notes("§2"))
COO_DATA_DTYPE = rule(
    "neuro.coo-data-dtype", ERROR, "neuro_data must hold numbers.", notes("§2"))
COO_LENGTHS = rule(
    "neuro.coo-lengths", ERROR,
    "neuro_row, neuro_col and neuro_data must be 1-D and of equal length.", notes("§2"))
COO_OUT_OF_RANGE = rule(
    "neuro.coo-out-of-range", ERROR,
    "Every COO row and column coordinate must fall inside neuro_shape.", notes("§2"))
NEURO_UNREADABLE = rule(
    "neuro.unreadable", ERROR,
    "The neural array's data cannot be read back from the file.", notes("§2"))
NEURO_TOO_LARGE_TO_HASH = rule(
    "neuro.too-large-to-hash", WARNING,
    "The neural array is too large to hash whole; its sha256 and sum are not reported.",
    notes("§6"))
NEURO_INFO_SHAPE = rule(
    "neuro-info.shape", ERROR, "neuro_info shape must be a list of integers.", notes("§2"))
NEURO_INFO_SHAPE_MISMATCH = rule(
    "neuro-info.shape-mismatch", ERROR,
    "neuro_info shape, when present, must equal the neural array's shape.", notes("§2"))
NEURO_INFO_CH_NAMES_TYPE = rule(
    "neuro-info.ch-names-type", WARNING,
    "Channel names in neuro_info should be strings, one per channel.", notes("§2"))

# -- stimulus labels and typed scalars ------------------------------------------------
LABELS_NOT_DATASET = rule(
    "labels.not-dataset", ERROR,
    "Native and legacy stimulus labels must be a dataset.", notes("§3"))
LABELS_BAD_SHAPE = rule(
    "labels.bad-shape", ERROR, "stim_labels_shape must be a list of integers.", notes("§3"))
LABELS_SHAPE_MISMATCH = rule(
    "labels.shape-mismatch", ERROR,
    "stim_labels_shape must hold exactly the stored number of labels.", notes("§3"))
LABELS_BAD_IS_STR = rule(
    "labels.bad-is-str", ERROR,
    "stim_labels_is_str must be one boolean.", notes("§3"))
SCALAR_ENCODING = rule(
    "scalar.encoding", ERROR,
    "A typed scalar sequence is a group with encoding 'vneurotk_scalar_v1'.", notes("§4"))
SCALAR_INCOMPLETE = rule(
    "scalar.incomplete", ERROR,
    "A typed scalar sequence needs the datasets types and values.", notes("§4"))
SCALAR_LENGTH_MISMATCH = rule(
    "scalar.length-mismatch", ERROR,
    "The types and values of a typed scalar sequence must be 1-D of equal length.", notes("§4"))
SCALAR_MALFORMED = rule(
    "scalar.malformed", ERROR,
    "A typed scalar's text must be valid for its type code (0/1, decimal, float.hex).",
    notes("§4"))
SCALAR_NONFINITE = rule(
    "scalar.nonfinite", ERROR,
    "Typed floats must be finite except where missing values are allowed.",
    seed("Safe scalar identifiers"))
SCALAR_TOO_LARGE = rule(
    "scalar.too-large", ERROR,
    "A typed scalar sequence is longer than any recording needs and is not read.", notes("§6"))
SCALAR_UNKNOWN_CODE = rule(
    "scalar.unknown-code", ERROR, "Typed scalar type codes run from 1 to 7.", notes("§4"))

# -- trial structure (schema 1: errors; schema 0: their advisory twins) --------------
#: The schema-0 twin of each trial-structure rule (warnings: notes §3 checks the
#: contract in schema 0 only to align vision data, which ``vision.unaligned`` reports).
TRIALS_V0: dict[Rule, Rule] = {}


def _trials(code: str, summary: str) -> Rule:
    """Declare a trial-structure rule and its ``trials-v0.*`` twin."""
    schema1 = rule(code, ERROR, summary, notes("§3"))
    TRIALS_V0[schema1] = rule(code.replace("trials.", "trials-v0.", 1), WARNING,
                              f"Schema 0, advisory: {summary}", notes("§3"))
    return schema1


TRIALS_NOT_DATASET = _trials("trials.not-dataset", "Trial arrays must be datasets holding data.")
TRIALS_TOO_LARGE = _trials(
    "trials.too-large", "A per-trial array is larger than any recording needs and is not read.")
TRIALS_SHAPE = _trials("trials.shape", "Neural data must have positive dimensions.")
TRIALS_CH_NAMES = _trials("trials.ch-names", "neuro_info ch_names must have one entry per channel.")
TRIALS_PATTERNS_NDIM = _trials("trials.patterns-ndim", "Patterns neural data must be 2-D.")
TRIALS_META_ROWS = _trials(
    "trials.meta-rows", "trial_meta must have one row per trial or pattern.")
TRIALS_MISSING = _trials(
    "trials.missing", "Continuous and epochs recordings need every trial field.")
TRIALS_NDIM = _trials("trials.ndim", "Continuous neural data must be 2-D and epochs 3-D.")
TRIALS_NOT_1D = _trials(
    "trials.not-1d", "trial_starts, trial_ends and vision_onsets must be 1-D.")
TRIALS_NOT_INTEGER = _trials(
    "trials.not-integer", "Trial boundaries and onsets must be non-boolean integers.")
TRIALS_LENGTHS = _trials(
    "trials.lengths", "trial_starts, trial_ends and vision_onsets must have equal lengths.")
TRIALS_LABELS_SHAPE = _trials(
    "trials.labels-shape", "Stimulus labels must have the shape of the sample axes.")
TRIALS_TRIAL_SHAPE = _trials(
    "trials.trial-shape", "The per-sample trial array must have the shape of the sample axes.")
TRIALS_ONSETS = _trials("trials.onsets", "Stimulus onsets must lie inside the recording or epoch.")
TRIALS_BOUNDS = _trials(
    "trials.bounds", "Every trial must satisfy 0 <= start < end <= its time axis.")
TRIALS_OVERLAP = _trials("trials.overlap", "Continuous trials must not overlap.")
TRIALS_COUNT = _trials("trials.count", "Epochs need one start, end and onset per epoch.")
TRIALS_VISION_IDS = _trials("trials.vision-ids", "vision_info needs stim_ids, a 1-D sequence.")
TRIALS_N_STIM = _trials("trials.n-stim", "vision_info n_stim must equal the number of stim_ids.")
TRIALS_INFO = _trials(
    "trials.info", "trial_info needs baseline and trial_window of shape (2,) or (trials, 2).")

# -- metadata groups ---------------------------------------------------------------------
VISION_INFO_NOT_GROUP = rule(
    "vision-info.not-group", ERROR, "vision_info must be a group.", notes("§5"))
_META = seed("Trial metadata")
TM_MISSING_ATTR = rule(
    "trial-meta.missing-attr", ERROR,
    "A trial_meta series or index group lacks a required attribute.", notes("§5"))
TM_BAD_ATTR = rule(
    "trial-meta.bad-attr", ERROR, "trial_meta kind and dtype attributes must be text.",
    notes("§5"))
TM_MISSING = rule(
    "trial-meta.missing", ERROR,
    "A trial_meta group lacks a required member (columns, index, values...).", notes("§5"))
TM_NONFINITE = rule(
    "trial-meta.nonfinite", ERROR,
    "Typed values of trial_meta must be finite; NaN stands for a missing value nowhere "
    "outside stimulus labels.", _META)
TM_NOT_GROUP = rule(
    "trial-meta.not-group", ERROR, "Every trial_meta series must be a group.", notes("§5"))
TM_BAD_SERIES = rule(
    "trial-meta.bad-series", ERROR,
    "A trial_meta series must rebuild into a pandas series of its recorded dtype.", _META)
TM_UNKNOWN_KIND = rule(
    "trial-meta.unknown-kind", ERROR,
    "A series kind must be numpy, nullable, object_scalars, categorical, datetime or "
    "datetime_tz.", notes("§5"))
TM_BAD_NAME = rule(
    "trial-meta.bad-name", ERROR, "An index name must hold exactly one typed value.",
    notes("§5"))
TM_BAD_RANGE = rule(
    "trial-meta.bad-range", ERROR, "A range index needs integer start, stop and step.",
    notes("§5"))
TM_UNKNOWN_INDEX = rule(
    "trial-meta.unknown-index", ERROR, "An index kind must be range or values.", notes("§5"))
TM_LEGACY_NOT_DATASET = rule(
    "trial-meta.legacy-not-dataset", ERROR,
    "Schema-0 trial_meta columns must be datasets.", notes("§5"))
TM_LEGACY_LENGTHS = rule(
    "trial-meta.legacy-lengths", ERROR,
    "Schema-0 trial_meta columns must have equal lengths.", notes("§5"))
TM_LENGTH_MISMATCH = rule(
    "trial-meta.length-mismatch", ERROR,
    "Index and column labels must match the number of rows and columns.", _META)
TM_TOO_LARGE = rule(
    "trial-meta.too-large", ERROR,
    "A trial_meta column is larger than any table needs and is not read.", notes("§6"))

# -- visual representations -------------------------------------------------------------
VISION_NOT_GROUP = rule(
    "vision.not-group", ERROR, "vision_store and each of its records must be groups.",
    notes("§5"))
VISION_MISSING = rule(
    "vision.missing", ERROR, "A vision record needs stim_ids and array.", notes("§5"))
VISION_MISSING_ATTR = rule(
    "vision.missing-attr", ERROR,
    "A vision record needs the attributes model, module_name and module_type.", notes("§5"))
VISION_NON_NUMERIC_KEY = rule(
    "vision.non-numeric-key", ERROR,
    "vision_store and stimuli_db entries are named by integers.", notes("§5"))
VISION_PROVENANCE_JSON = rule(
    "vision.provenance-json", ERROR,
    "extraction_provenance must be a JSON object.", seed("Schema 1 layout"))
VISION_PROVENANCE_VERSION = rule(
    "vision.provenance-version", ERROR,
    "Only extraction provenance serialization version 1 can be read.", seed("Schema 1 layout"))
VISION_PROVENANCE_FIELD = rule(
    "vision.provenance-field", ERROR,
    "Provenance fields must have their types (dependency_versions an object, pretrained a "
    "bool or 'unknown').", seed("Provenance boundary"))
VISION_PROVENANCE_MODEL = rule(
    "vision.provenance-model", ERROR,
    "A provenance model_id must match the record's model.", seed("Provenance boundary"))
VISION_PROVENANCE_NONSTANDARD = rule(
    "vision.provenance-nonstandard-json", WARNING,
    "JSON has no NaN or Infinity; such constants are kept as their names.",
    "RFC 8259, section 6 (numbers)")
VISION_ARRAY_SHAPE = rule(
    "vision.array-shape", ERROR,
    "A vision record's array must be a dataset with at least one dimension.", notes("§5"))
VISION_IDS_LENGTH = rule(
    "vision.ids-length", ERROR,
    "A vision record has one array row per stimulus ID.", notes("§5"))
VISION_DUPLICATE_IDS = rule(
    "vision.duplicate-ids", ERROR,
    "A vision record stores each stimulus once.", notes("§5"))
VISION_DUPLICATE_RECORD = rule(
    "vision.duplicate-record", WARNING,
    "Records repeating a model and module are dropped by the reference reader.", notes("§5"))
VISION_IDS_DIFFER = rule(
    "vision.ids-differ", ERROR,
    "All vision records must share the same stimulus IDs.", notes("§5"))
VISION_UNALIGNED = rule(
    "vision.unaligned", ERROR,
    "Vision data needs explicit per-trial stimulus IDs to be aligned to trials.",
    notes("§3 and §5"))
VISION_IDS_NOT_COVERED = rule(
    "vision.ids-not-covered", ERROR,
    "A vision record must hold every trial's stimulus ID.", notes("§5"))
VISION_TOO_LARGE = rule(
    "vision.too-large", ERROR,
    "A record's stimulus ID list is larger than any recording needs and is not read.",
    notes("§6"))
VISION_UNREADABLE = rule(
    "vision.unreadable", ERROR, "A vision record's array cannot be read.", notes("§5"))

# -- stimulus images -----------------------------------------------------------------------
STIMULI_NOT_GROUP = rule(
    "stimuli.not-group", ERROR, "stimuli_db must be a group.", notes("§5"))
STIMULI_BAD_ENTRY = rule(
    "stimuli.bad-entry", ERROR,
    "Each stimuli_db entry is a group with a typed id (or, legacy, an image dataset).",
    notes("§5"))
STIMULI_BAD_ID = rule(
    "stimuli.bad-id", ERROR, "A stimulus id holds exactly one typed value.", notes("§5"))
STIMULI_DUPLICATE_ID = rule(
    "stimuli.duplicate-id", ERROR, "Stimulus IDs must be unique.",
    seed("Safe scalar identifiers"))
STIMULI_MISSING_IMAGE = rule(
    "stimuli.missing-image", ERROR, "Each stimulus entry needs an image dataset.", notes("§5"))
STIMULI_UNKNOWN_KIND = rule(
    "stimuli.unknown-kind", WARNING,
    "An image kind is array, image_bytes or path; others are shown as stored pixels.",
    notes("§5"))
STIMULI_PATH_UNREADABLE = rule(
    "stimuli.path-unreadable", ERROR, "A legacy image path cannot be read as a path.",
    seed("Compatibility policy"))
STIMULI_PATH_MISSING = rule(
    "stimuli.path-missing", ERROR,
    "A legacy image path (relative to the recording's folder) must name an existing file.",
    seed("Compatibility policy"))
STIMULI_UNDECODABLE = rule(
    "stimuli.undecodable", ERROR, "A stored stimulus image cannot be decoded.", notes("§5"))
