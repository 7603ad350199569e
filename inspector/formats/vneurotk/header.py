"""Format header rules: reader selection and data mode (seed, "Format header").

* Neither ``vneurotk_format`` nor ``vneurotk_schema_version``: schema 0.
* Exactly one of them: a partial header, rejected (the missing one is named).
* ``vneurotk_format`` must be ``"recording"``.
* ``vneurotk_schema_version`` must be an HDF5 integer (not bool, not string,
  not an array) in ``0..1``.
* Schema >= 1 requires ``writer_version``.
* ``data_mode``: schema 0 maps missing/empty to ``continuous`` and the typo
  ``continues`` to ``continuous``; schema 1 requires a nonempty value and has
  no aliases.  After normalisation it must be ``continuous``, ``epochs`` or
  ``patterns`` (seed, "Format header"; "Compatibility policy").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import h5py
import numpy as np

from inspector.formats.hdf5.heap import read_attribute
from inspector.formats.hdf5.source import RuleError
from inspector.formats.hdf5.values import as_text, typed
from inspector.formats.vneurotk import rules as R

MAGIC_ATTR = "vneurotk_format"
VERSION_ATTR = "vneurotk_schema_version"
WRITER_ATTR = "writer_version"
MAGIC = "recording"
MIN_SCHEMA, MAX_SCHEMA = 0, 1
DATA_MODES = ("continuous", "epochs", "patterns")
HEADER_ATTRS = (MAGIC_ATTR, VERSION_ATTR, WRITER_ATTR, "data_mode", "neuro_format")
#: Longest ``writer_version`` text taken (a version is a few characters); a longer
#: one is refused as unreadable, an error: the attribute is required.
MAX_WRITER_VERSION_CHARS = 64 << 10


@dataclass
class Header:
    """The outcome of the header rules.

    Attributes:
        raw: typed JSON of the five header attributes (None when absent).
        schema_version: the selected schema (0 or 1), or the declared integer
            when out of range, or None when the header is malformed
            (corpus README, ``schema_version``).
        writer_version: the ``writer_version`` text or None.
        errors: the rules broken, in the reference's order (the first one
            is the one the reference reader reports).
        accepted: True when the header selects a supported reader.
    """

    raw: dict[str, Any]
    schema_version: int | None = None
    writer_version: str | None = None
    errors: list[RuleError] = field(default_factory=list)
    accepted: bool = False


def _raw_attr(f: h5py.File, name: str) -> Any:
    try:
        return read_attribute(f, name)
    except (OSError, KeyError, TypeError, ValueError):
        return None


def _writer_version(f: h5py.File, hdr: Header) -> Any:
    """Set ``hdr.writer_version`` and return the raw value read (None when none).

    A null-dataspace value is a finding, not text; a value that cannot be read,
    or holds more than :data:`MAX_WRITER_VERSION_CHARS` characters, is an error
    (the attribute is required: a version that cannot be read is no version).
    """
    try:
        wv = read_attribute(f, WRITER_ATTR)
    except (OSError, KeyError, TypeError, ValueError, MemoryError) as exc:
        _unreadable_writer(hdr, f"{type(exc).__name__}: {str(exc)[:200]}")
        return None
    if isinstance(wv, h5py.Empty):
        hdr.errors.append(RuleError(
            R.HEADER_WRITER_EMPTY,
            f"root attribute '{WRITER_ATTR}' has a null dataspace ({wv.dtype}): it holds no "
            "version text", f"/@{WRITER_ATTR}"))
        return wv
    t = as_text(wv)
    text = t.value if t is not None else str(wv)
    if len(text) > MAX_WRITER_VERSION_CHARS:
        _unreadable_writer(hdr, f"it holds {len(text)} characters, more than the "
                                f"{MAX_WRITER_VERSION_CHARS} taken for a version")
        return None
    hdr.writer_version = text
    return wv


def _unreadable_writer(hdr: Header, why: str) -> None:
    hdr.errors.append(RuleError(
        R.HEADER_WRITER_UNREADABLE,
        f"root attribute '{WRITER_ATTR}' is required but cannot be read ({why}); the "
        "writer version is unknown", f"/@{WRITER_ATTR}"))


def _partial(present: set[str]) -> RuleError | None:
    """``header.partial`` when exactly one of the two header attributes is present."""
    has_magic, has_version = MAGIC_ATTR in present, VERSION_ATTR in present
    if has_magic == has_version:
        return None
    missing, other = (MAGIC_ATTR, VERSION_ATTR) if not has_magic else (VERSION_ATTR, MAGIC_ATTR)
    return RuleError(
        R.HEADER_PARTIAL,
        f"partial format header: root attribute '{missing}' is missing while '{other}' is "
        "present; a partial header is rejected, not guessed", f"/@{missing}")


def _magic(f: h5py.File) -> RuleError | None:
    magic = as_text(_raw_attr(f, MAGIC_ATTR))
    if magic is not None and magic.value == MAGIC:
        return None
    shown = magic.value if magic is not None else repr(_raw_attr(f, MAGIC_ATTR))
    return RuleError(R.HEADER_WRONG_MAGIC,
                     f"root attribute '{MAGIC_ATTR}' must be '{MAGIC}', got {shown!r}",
                     f"/@{MAGIC_ATTR}")


def _version(f: h5py.File, hdr: Header) -> RuleError | None:
    """Set ``hdr.schema_version`` from the version attribute, or say why not."""
    version = _raw_attr(f, VERSION_ATTR)
    if isinstance(version, (bool, np.bool_)) or not isinstance(version, (int, np.integer)):
        kind = "boolean" if isinstance(version, (bool, np.bool_)) else type(version).__name__
        shown = version.item() if isinstance(version, np.generic) else version
        if isinstance(version, np.ndarray):
            kind = f"{version.dtype} array of shape {version.shape}"
        return RuleError(R.HEADER_VERSION_TYPE,
                         f"root attribute '{VERSION_ATTR}' must be an integer, got {shown!r} "
                         f"({kind}); a malformed version is rejected", f"/@{VERSION_ATTR}")
    hdr.schema_version = int(version)
    if not MIN_SCHEMA <= hdr.schema_version <= MAX_SCHEMA:
        return RuleError(R.HEADER_UNSUPPORTED_VERSION,
                         f"unsupported schema version {hdr.schema_version}: supported range "
                         f"is {MIN_SCHEMA}..{MAX_SCHEMA}", f"/@{VERSION_ATTR}")
    return None


def read_header(f: h5py.File) -> Header:
    """Apply the header rules to the root attributes of ``f`` (seed, 'Format header').

    The first broken rule in the reference's order ends the checks
    (``accepted`` stays False); a null-dataspace ``writer_version`` is
    reported but does not stop reading.
    """
    present = {name for name in HEADER_ATTRS if name in f.attrs}  # never list every name
    hdr = Header({})
    writer = _writer_version(f, hdr) if WRITER_ATTR in present else None
    hdr.raw.update({name: (typed(writer) if name == WRITER_ATTR else typed(_raw_attr(f, name)))
                    if name in present else None for name in HEADER_ATTRS})
    if MAGIC_ATTR not in present and VERSION_ATTR not in present:
        hdr.schema_version = 0
        hdr.accepted = True
        return hdr
    broken = _partial(present) or _magic(f) or _version(f, hdr)
    if broken is None and WRITER_ATTR not in present and (hdr.schema_version or 0) >= 1:
        broken = RuleError(
            R.HEADER_MISSING_WRITER,
            f"schema-{hdr.schema_version} header lacks the required root attribute "
            f"'{WRITER_ATTR}'", f"/@{WRITER_ATTR}")
    if broken is not None:
        hdr.errors.append(broken)
        return hdr
    hdr.accepted = True
    return hdr


def read_data_mode(f: h5py.File, schema_version: int) -> tuple[str | None, list[RuleError]]:
    """The normalised data mode and the rules broken (seed, 'Compatibility policy').

    Schema 0 maps a missing or empty value and the typo ``continues`` to
    ``continuous``; schema 1 requires one of :data:`DATA_MODES` as written.
    """
    loc = "/@data_mode"
    if "data_mode" not in f.attrs:
        if schema_version == 0:
            return "continuous", []
        return None, [RuleError(R.HEADER_MISSING_DATA_MODE,
                                "schema-1 file lacks the required root attribute 'data_mode'",
                                loc)]
    raw = _raw_attr(f, "data_mode")
    t = as_text(raw)
    mode = t.value if t is not None else str(raw)
    if schema_version == 0 and mode in ("", "continues"):
        mode = "continuous"
    elif mode == "":
        return None, [RuleError(R.HEADER_EMPTY_DATA_MODE,
                                "schema-1 root attribute 'data_mode' is empty; it must be "
                                "nonempty", loc)]
    if mode not in DATA_MODES:
        extra = (" (the 'continues' typo is normalised only in schema 0)"
                 if mode == "continues" else "")
        return None, [RuleError(R.HEADER_INVALID_DATA_MODE,
                                f"data_mode {mode!r} is not one of continuous, epochs, "
                                f"patterns{extra}", loc)]
    return mode, []
