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

from inspector.formats.vneurotk.source import RuleError
from inspector.formats.vneurotk.values import as_text, typed

MAGIC_ATTR = "vneurotk_format"
VERSION_ATTR = "vneurotk_schema_version"
WRITER_ATTR = "writer_version"
MAGIC = "recording"
MIN_SCHEMA, MAX_SCHEMA = 0, 1
DATA_MODES = ("continuous", "epochs", "patterns")
HEADER_ATTRS = (MAGIC_ATTR, VERSION_ATTR, WRITER_ATTR, "data_mode", "neuro_format")
SEED = "VneuroTK format, 'Format header'"


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
        return f.attrs[name]
    except (OSError, KeyError, TypeError, ValueError):
        return None


def read_header(f: h5py.File) -> Header:
    """Apply the header rules to the root attributes of ``f``."""
    present = set(f.attrs.keys())
    raw = {name: (typed(_raw_attr(f, name)) if name in present else None) for name in HEADER_ATTRS}
    hdr = Header(raw)
    wv = _raw_attr(f, WRITER_ATTR) if WRITER_ATTR in present else None
    if wv is not None:
        t = as_text(wv)
        hdr.writer_version = t.value if t is not None else str(wv)
    has_magic, has_version = MAGIC_ATTR in present, VERSION_ATTR in present
    if not has_magic and not has_version:
        hdr.schema_version = 0
        hdr.accepted = True
        return hdr
    if not (has_magic and has_version):
        missing = MAGIC_ATTR if not has_magic else VERSION_ATTR
        other = VERSION_ATTR if not has_magic else MAGIC_ATTR
        hdr.errors.append(RuleError(
            "header.partial",
            f"partial format header: root attribute '{missing}' is missing while '{other}' is present; "
            f"a partial header is rejected, not guessed ({SEED})",
            f"/@{missing}",
        ))
        return hdr
    magic = as_text(_raw_attr(f, MAGIC_ATTR))
    if magic is None or magic.value != MAGIC:
        shown = magic.value if magic is not None else repr(_raw_attr(f, MAGIC_ATTR))
        hdr.errors.append(RuleError(
            "header.wrong-magic",
            f"root attribute '{MAGIC_ATTR}' must be '{MAGIC}', got {shown!r} ({SEED})",
            f"/@{MAGIC_ATTR}",
        ))
        return hdr
    version = _raw_attr(f, VERSION_ATTR)
    if isinstance(version, (bool, np.bool_)) or not isinstance(version, (int, np.integer)):
        kind = "boolean" if isinstance(version, (bool, np.bool_)) else type(version).__name__
        shown = version.item() if isinstance(version, np.generic) else version
        if isinstance(version, np.ndarray):
            kind = f"{version.dtype} array of shape {version.shape}"
        hdr.errors.append(RuleError(
            "header.version-type",
            f"root attribute '{VERSION_ATTR}' must be an integer, got {shown!r} ({kind}); "
            f"a malformed version is rejected ({SEED})",
            f"/@{VERSION_ATTR}",
        ))
        return hdr
    hdr.schema_version = int(version)
    if not MIN_SCHEMA <= hdr.schema_version <= MAX_SCHEMA:
        hdr.errors.append(RuleError(
            "header.unsupported-version",
            f"unsupported schema version {hdr.schema_version}: supported range is "
            f"{MIN_SCHEMA}..{MAX_SCHEMA} ({SEED})",
            f"/@{VERSION_ATTR}",
        ))
        return hdr
    if hdr.schema_version >= 1 and WRITER_ATTR not in present:
        hdr.errors.append(RuleError(
            "header.missing-writer-version",
            f"schema-{hdr.schema_version} header lacks the required root attribute '{WRITER_ATTR}' ({SEED})",
            f"/@{WRITER_ATTR}",
        ))
        return hdr
    hdr.accepted = True
    return hdr


def read_data_mode(f: h5py.File, schema_version: int) -> tuple[str | None, list[RuleError]]:
    """Return the normalised data mode and the rules broken (seed, 'Compatibility policy')."""
    errors: list[RuleError] = []
    loc = "/@data_mode"
    if "data_mode" not in f.attrs:
        if schema_version == 0:
            return "continuous", errors
        errors.append(RuleError(
            "header.missing-data-mode",
            "schema-1 file lacks the required root attribute 'data_mode' ("
            "VneuroTK format, 'Format header': data_mode is a nonempty required field)",
            loc,
        ))
        return None, errors
    raw = _raw_attr(f, "data_mode")
    t = as_text(raw)
    mode = t.value if t is not None else str(raw)
    if schema_version == 0:
        if mode == "":
            mode = "continuous"
        elif mode == "continues":
            mode = "continuous"
    elif mode == "":
        errors.append(RuleError(
            "header.empty-data-mode",
            "schema-1 root attribute 'data_mode' is empty; it must be nonempty (VneuroTK format, 'Format header')",
            loc,
        ))
        return None, errors
    if mode not in DATA_MODES:
        extra = (" (the 'continues' typo is normalised only in schema 0, VneuroTK format, 'Compatibility policy')"
                 if mode == "continues" else "")
        errors.append(RuleError(
            "header.invalid-data-mode",
            f"data_mode {mode!r} is not one of continuous, epochs, patterns{extra}",
            loc,
        ))
        return None, errors
    return mode, errors
