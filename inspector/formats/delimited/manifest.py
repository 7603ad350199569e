"""Manifest schema version 1.0 (JSON canonical, YAML accepted).

Rules of ``docs/formats/manifest-v1.md`` (``ronfinn/openauc-io``) as the
reference ``openauc==0.1.0a1`` applies them: ``schema_version`` must be the
string ``"1.0"``; ``data_file`` (a relative path that neither is absolute nor
escapes the folder) and ``experiment.experiment_id`` are required; unknown
fields are rejected at every level (only ``extension`` is an open object);
text fields must be strings (a YAML ``cell: 1`` is an int and is rejected);
number fields take numbers or numeric text; ``experiment_type`` and
``optical_system`` must be one of their values exactly; ``delimiter`` is
``","``, ``"comma"`` or ``"tab"`` (any case, surrounding blanks allowed).

Every violation becomes one error finding located at
``"<manifest name>:<dotted key path>"`` (rules in :mod:`.rules`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from inspector.formats.delimited.rules import (
    MANIFEST_BAD_SUFFIX,
    MANIFEST_BAD_VALUE,
    MANIFEST_CYCLIC_ALIAS,
    MANIFEST_INVALID_FIELD,
    MANIFEST_NOT_FOUND,
    MANIFEST_NOT_JSON,
    MANIFEST_NOT_MAPPING,
    MANIFEST_NOT_UTF8,
    MANIFEST_NOT_YAML,
    MANIFEST_TOO_DEEP,
    MANIFEST_TOO_LARGE,
    MANIFEST_UNREADABLE,
)
from inspector.formats.delimited.stages import Stages
from inspector.formats.delimited.values import (
    EXPERIMENT_TYPES,
    MAX_CELL_CHARS,
    MAX_SHOWN,
    OPTICAL_SYSTEMS,
    manifest_float,
    shown,
)

SUPPORTED_SCHEMA_VERSION = "1.0"
MANIFEST_SUFFIXES = (".json", ".yaml", ".yml")

_REQUIRED = object()

# field -> (type, default). Types: str, ostr, id/oid (an identifier: a string of at
# most MAX_CELL_CHARS characters), ofloat, optical (optional), exptype,
# model:<name>, omodel:<name>, tuple:<name>, odict.
_SCHEMAS: dict[str, dict[str, tuple[str, Any]]] = {
    "manifest": {
        "schema_version": ("str", _REQUIRED),
        "format": ("ostr", None),
        "data_file": ("str", _REQUIRED),
        "experiment": ("model:experiment", _REQUIRED),
        "instrument": ("omodel:instrument", None),
        "samples": ("tuple:sample", ()),
        "defaults": ("model:defaults", {}),
        "columns": ("omodel:columns", None),
        "delimiter": ("ostr", None),
        "notes": ("ostr", None),
        "extension": ("odict", None),
    },
    "experiment": {
        "experiment_id": ("id", _REQUIRED),
        "name": ("ostr", None),
        "description": ("ostr", None),
        "experiment_type": ("exptype", "unknown"),
        "operator": ("ostr", None),
        "notes": ("ostr", None),
    },
    "instrument": {
        "manufacturer": ("ostr", None),
        "model": ("ostr", None),
        "serial_number": ("ostr", None),
        "rotor_id": ("ostr", None),
        "nominal_speed_rpm": ("ofloat", None),
        "temperature_c": ("ofloat", None),
        "cell": ("oid", None),
        "channel": ("oid", None),
        "centrepiece": ("ostr", None),
        "optical_system": ("optical", None),
        "wavelength_nm": ("ofloat", None),
    },
    "sample": {
        "sample_id": ("id", _REQUIRED),
        "description": ("ostr", None),
        "buffer_description": ("ostr", None),
        "concentration_value": ("ofloat", None),
        "concentration_unit": ("oid", None),
        "density": ("ofloat", None),
        "viscosity": ("ofloat", None),
        "partial_specific_volume": ("ofloat", None),
        "notes": ("ostr", None),
    },
    "defaults": {
        "optical_system": ("optical", None),
        "signal_unit": ("oid", None),
        "cell": ("oid", None),
        "channel": ("oid", None),
        "wavelength_nm": ("ofloat", None),
        "rotor_speed_rpm": ("ofloat", None),
        "temperature_c": ("ofloat", None),
    },
    "columns": {
        "radius": ("id", _REQUIRED),
        "scans": ("tuple:wide_scan", _REQUIRED),
    },
    "wide_scan": {
        "column": ("id", _REQUIRED),
        "scan_id": ("id", _REQUIRED),
        "elapsed_seconds": ("ofloat", None),
        "wavelength_nm": ("ofloat", None),
        "optical_system": ("optical", None),
        "rotor_speed_rpm": ("ofloat", None),
        "temperature_c": ("ofloat", None),
        "cell": ("oid", None),
        "channel": ("oid", None),
        "source_scan_id": ("oid", None),
    },
}


@dataclass
class Manifest:
    """A validated manifest.

    Attributes:
        path: the manifest file as it was found (not resolved).
        name: its file name (used in locations and provenance).
        values: validated fields, nested dicts/lists mirroring the schema;
            numbers are float, optional absent fields None.
        raw: the parsed JSON/YAML mapping, for display.
    """

    path: Path
    values: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The manifest's file name."""
        return self.path.name

    def loc(self, key: str) -> str:
        """Location of a dotted key path inside this manifest."""
        return f"{self.name}:{key}" if key else self.name

    @property
    def format(self) -> str | None:
        """The declared layout id (``format``), or None for detection."""
        return self.values["format"]

    @property
    def data_file(self) -> str:
        """The declared data file, relative to the manifest's folder."""
        return self.values["data_file"]

    @property
    def experiment(self) -> dict[str, Any]:
        """The validated ``experiment`` block."""
        return self.values["experiment"]

    @property
    def instrument(self) -> dict[str, Any] | None:
        """The validated ``instrument`` block, or None."""
        return self.values["instrument"]

    @property
    def samples(self) -> list[dict[str, Any]]:
        """The validated ``samples`` entries."""
        return self.values["samples"]

    @property
    def defaults(self) -> dict[str, Any]:
        """The validated ``defaults`` block (every key present, None when absent)."""
        return self.values["defaults"]

    @property
    def columns(self) -> dict[str, Any] | None:
        """The validated wide-format ``columns`` mapping, or None."""
        return self.values["columns"]

    @property
    def delimiter(self) -> str | None:
        """The declared ``delimiter`` text, or None."""
        return self.values["delimiter"]


#: Manifests are a few KB; a bigger one is refused before it is parsed.
MAX_MANIFEST_BYTES = 16 << 20
#: Values a YAML manifest may expand to once its aliases are followed.
MAX_YAML_NODES = 1_000_000


#: PyYAML's safe loader on libyaml when the wheel has it (about 250 times faster
#: than the pure-Python parser: a 2 MB manifest in 0.04 s instead of 9 s),
#: with the same safe constructor and resolver.
SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ManifestTooLarge(ValueError):
    """A manifest larger than :data:`MAX_MANIFEST_BYTES` or expanding beyond
    :data:`MAX_YAML_NODES` values."""


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON value (RFC 8259 has no NaN or Infinity)")


def load_yaml_bounded(text: str) -> Any:
    """``yaml.safe_load`` that refuses documents whose aliases expand beyond
    :data:`MAX_YAML_NODES` values (a "billion laughs" manifest).

    The node graph is composed first (aliases are shared, not copied), its
    expanded size is counted with memoisation, and only then is it built.

    Raises:
        ManifestTooLarge: the expanded document is too large.
        yaml.YAMLError: not valid YAML (python tags are refused by the safe loader).
    """
    loader = SAFE_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        sizes: dict[int, int] = {}

        def expanded(n: yaml.Node) -> int:
            key = id(n)
            if key in sizes:
                return sizes[key]
            sizes[key] = 1  # guards recursive aliases while counting
            total = 1
            if isinstance(n, yaml.SequenceNode):
                for child in n.value:
                    total += expanded(child)
                    if total > MAX_YAML_NODES:
                        break
            elif isinstance(n, yaml.MappingNode):
                for k, v in n.value:
                    total += expanded(k) + expanded(v)
                    if total > MAX_YAML_NODES:
                        break
            sizes[key] = total
            return total

        if expanded(node) > MAX_YAML_NODES:
            raise ManifestTooLarge(
                f"expands to more than {MAX_YAML_NODES:,} values once its YAML aliases are "
                "followed (an alias bomb); refused")
        return loader.construct_document(node)
    finally:
        loader.dispose()


def key_path(prefix: str, name: str | int) -> str:
    """The dotted key path of ``name`` under ``prefix`` (a long name is cut, see
    :func:`~.values.shown`, so that a location never echoes a huge key)."""
    if isinstance(name, int):
        return f"{prefix}[{name}]"
    if len(name) > MAX_SHOWN:
        name = shown(name)
    return f"{prefix}.{name}" if prefix else name


class _Validator:
    """Checks parsed manifest data against :data:`_SCHEMAS`, reporting every violation."""

    def __init__(self, name: str, col: Stages) -> None:
        self.name = name
        self.col = col
        self.ok = True

    def fail(self, key: str, message: str) -> None:
        """Report ``manifest.invalid-field`` at ``key`` (the top level when empty)."""
        self.ok = False
        self.col.report(MANIFEST_INVALID_FIELD, f"field {key or '(top level)'}: {message}",
                        f"{self.name}:{key}" if key else self.name)

    def model(self, schema_name: str, data: Any, prefix: str) -> dict[str, Any] | None:
        """Validate the mapping ``data`` against schema ``schema_name``; None if not a mapping."""
        if not isinstance(data, dict):
            self.fail(prefix, f"must be a mapping (object), got {_kind(data)}")
            return None
        schema = _SCHEMAS[schema_name]
        out: dict[str, Any] = {}
        for key in data:
            if not isinstance(key, str) or key not in schema:
                self.fail(key_path(prefix, str(key)), "unknown field; unknown fields are rejected "
                          "(only 'extension' holds free-form data)")
        for fname, (ftype, default) in schema.items():
            key = key_path(prefix, fname)
            if fname not in data:
                if default is _REQUIRED:
                    self.fail(key, "required field is missing")
                    out[fname] = None
                else:
                    out[fname] = self.value(ftype, default, key) if ftype.startswith("model:") \
                        else (list(default) if isinstance(default, tuple) else default)
                continue
            out[fname] = self.value(ftype, data[fname], key)
        return out

    def text(self, ftype: str, v: Any, key: str) -> str | None:
        """A string field (YAML binary decoded as UTF-8); identifiers are bounded."""
        if isinstance(v, bytes | bytearray):
            try:
                v = bytes(v).decode("utf-8")
            except UnicodeDecodeError:
                pass
        if not isinstance(v, str):
            self.fail(key, f"must be a string, got {_kind(v)} {shown(v)}")
            return None
        if ftype in ("id", "oid") and len(v) > MAX_CELL_CHARS:
            self.fail(key, f"an identifier of {len(v):,} characters; identifiers have at most "
                      f"{MAX_CELL_CHARS:,}")
            return None
        return v

    def value(self, ftype: str, v: Any, key: str) -> Any:
        """Validate one field value of type ``ftype`` (see :data:`_SCHEMAS`)."""
        if v is None and ftype.startswith("o"):  # ostr, ofloat, optical, omodel, odict
            return None
        if ftype in ("str", "ostr", "id", "oid"):
            return self.text(ftype, v, key)
        if ftype == "ofloat":
            f = manifest_float(v)
            if f is None:
                self.fail(key, f"must be a number, got {_kind(v)} {shown(v)}")
            return f
        if ftype == "optical":
            if not isinstance(v, str) or v not in OPTICAL_SYSTEMS:
                self.fail(key, f"must be one of {list(OPTICAL_SYSTEMS)}, got {shown(v)}")
                return None
            return v
        if ftype == "exptype":
            if not isinstance(v, str) or v not in EXPERIMENT_TYPES:
                self.fail(key, f"must be one of {list(EXPERIMENT_TYPES)}, got {shown(v)}")
                return None
            return v
        if ftype.startswith(("model:", "omodel:")):
            return self.model(ftype.split(":", 1)[1], v, key)
        if ftype.startswith("tuple:"):
            if not isinstance(v, list | tuple):
                self.fail(key, f"must be a list, got {_kind(v)}")
                return []
            return [self.model(ftype.split(":", 1)[1], item, key_path(key, i))
                    for i, item in enumerate(v)]
        if ftype == "odict":
            if not isinstance(v, dict):
                self.fail(key, f"must be a mapping (object), got {_kind(v)}")
                return None
            bad = [k for k in v if not isinstance(k, str)]
            if bad:
                self.fail(key, f"keys must be strings, got {shown(bad[0])}")
            return v
        raise AssertionError(ftype)  # pragma: no cover - schema typo


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string",
            list: "list", dict: "mapping"}.get(type(v), type(v).__name__)


def check_data_file_path(value: str) -> str | None:
    """Why ``value`` is not a safe relative data-file path, or None if it is.

    Rejected (manifest-v1.md, "Top-level fields"): empty or blank, absolute
    (``/x``, ``\\x``), a drive form (``C:...``), or containing a ``..`` part;
    also a NUL character, which no file name can hold (the reference fails
    with a ``ValueError`` there).
    """
    if not value or not value.strip():
        return "must be a non-empty relative path"
    if "\x00" in value:
        return "must not contain a NUL character (no file name can)"
    pure = PurePosixPath(value)
    if pure.is_absolute() or value.startswith(("/", "\\")):
        return f"must be relative, got {shown(value)}"
    if ".." in pure.parts:
        return f"must not escape the experiment folder, got {shown(value)}"
    if len(value) >= 2 and value[1] == ":":
        return f"must be relative, got {shown(value)} (drive letter)"
    return None


def delimiter_token(declared: str) -> str:
    """The delimiter a declared ``delimiter`` field names (``comma``/``tab`` mapped)."""
    token = declared.strip().lower()
    return {"comma": ",", "tab": "\t"}.get(token, declared)


def _manifest_text(path: Path, col: Stages) -> str | None:
    """The manifest's text; None (and an error) when it is missing, too large or unreadable."""
    name = path.name
    suffix = path.suffix.lower()
    if not path.is_file():
        col.report(MANIFEST_NOT_FOUND, "manifest file not found", name)
        return None
    if suffix not in MANIFEST_SUFFIXES:
        col.report(MANIFEST_BAD_SUFFIX, f"unsupported manifest suffix {shown(suffix)} "
                   "(a manifest is .json, .yaml or .yml)", name)
        return None
    try:
        size = path.stat().st_size
        if size > MAX_MANIFEST_BYTES:
            col.report(MANIFEST_TOO_LARGE, f"{size:,} bytes; a manifest is at most "
                       f"{MAX_MANIFEST_BYTES:,} bytes and is refused unparsed", name)
            return None
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        col.report(MANIFEST_NOT_UTF8, f"not UTF-8 text (byte {exc.start})", name)
    except OSError as exc:
        col.report(MANIFEST_UNREADABLE, f"the manifest cannot be read ({exc.strerror or exc})",
                   name)
    return None


def _parse(text: str, name: str, suffix: str, col: Stages) -> tuple[bool, Any]:
    """``(True, data)`` for a parsed manifest, ``(False, None)`` (and an error) otherwise."""
    try:
        if suffix in (".yaml", ".yml"):
            return True, load_yaml_bounded(text)
        return True, json.loads(text, parse_constant=_reject_constant)
    except ManifestTooLarge as exc:
        col.report(MANIFEST_TOO_LARGE, str(exc), name)
    except json.JSONDecodeError as exc:
        col.report(MANIFEST_NOT_JSON, f"not valid JSON: {exc.msg} at line {exc.lineno} "
                   f"column {exc.colno}", f"{name}:{exc.lineno}")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        col.report(MANIFEST_NOT_YAML, f"not valid YAML: {problem}", where)
    except RecursionError:
        col.report(MANIFEST_TOO_DEEP, "nested too deeply to parse", name)
    except ValueError as exc:  # NaN/Infinity literals, integers beyond Python's digit limit
        col.report(MANIFEST_BAD_VALUE, str(exc), name)
    return False, None


def cyclic_alias(raw: Any) -> str | None:
    """The key path of the first value that contains itself (a YAML alias back to an
    enclosing anchor), ``""`` for the top level, or None when there is none.

    Iterative depth-first search; each container is explored once, so the cost
    is that of the document as parsed, not as its aliases expand.
    """
    done: set[int] = set()
    open_: set[int] = set()
    stack: list[tuple[Any, str, bool]] = [(raw, "", False)]
    while stack:
        value, key, leaving = stack.pop()
        vid = id(value)
        if leaving:
            open_.discard(vid)
            done.add(vid)
            continue
        if vid in open_:
            return key
        if vid in done:
            continue
        open_.add(vid)
        stack.append((value, key, True))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, child in items:
            if isinstance(child, dict | list):
                stack.append((child, key_path(key, k if isinstance(k, int) and
                                              isinstance(value, list) else str(k)), False))
    return None


def _check_fields(v: _Validator, values: dict[str, Any]) -> None:
    """The rules on single top-level values: schema version, data_file path, delimiter."""
    sv = values.get("schema_version")
    if isinstance(sv, str) and sv != SUPPORTED_SCHEMA_VERSION:
        v.fail("schema_version", f"unsupported schema_version {shown(sv)}; only "
               f"{SUPPORTED_SCHEMA_VERSION!r} is read (manifests are never migrated)")
    df = values.get("data_file")
    if isinstance(df, str):
        why = check_data_file_path(df)
        if why:
            v.fail("data_file", why)
    delim = values.get("delimiter")
    if isinstance(delim, str) and delim.strip().lower() not in {",", "\t", "comma", "tab"}:
        v.fail("delimiter", f"must be ',', 'comma' or 'tab', got {shown(delim)}")


def read_manifest(path: Path, col: Stages) -> Manifest | None:
    """Read and validate the manifest at ``path``; errors go to ``col``.

    Returns None when the file cannot be read or parsed or is not a mapping;
    otherwise a :class:`Manifest` (check ``col.has_errors`` for field errors).
    """
    text = _manifest_text(path, col)
    if text is None:
        return None
    parsed, raw = _parse(text, path.name, path.suffix.lower(), col)
    if not parsed:
        return None
    if not isinstance(raw, dict):
        col.report(MANIFEST_NOT_MAPPING,
                   f"the top level must be a mapping (object), got {_kind(raw)}", path.name)
        return None
    v = _Validator(path.name, col)
    values = v.model("manifest", raw, "")
    assert values is not None
    _check_fields(v, values)
    cycle = cyclic_alias(raw) if isinstance(raw, dict) else None
    if cycle is not None:
        col.report(MANIFEST_CYCLIC_ALIAS, f"field {cycle or '(top level)'} refers back to a "
                   "value that contains it (a YAML alias); it is shown down to the repetition",
                   f"{path.name}:{cycle}" if cycle else path.name)
    return Manifest(path=path, values=values, raw=raw)
