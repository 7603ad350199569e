"""Import provenance of a delimited source, recorded as the reference records it.

Seed ``002_59993c7ffff01d56.txt``, "Provenance": source-file checksums are
recorded at import time, one entry per file the import read
(``role`` ``manifest`` then ``data_file``: file name, ``sha256``, byte size);
``sha256`` mirrors the ``data_file`` entry.  The parser name is the layout id
(``generic-long``/``generic-wide``), the parser version is this program's
version, the time is the import instant (UTC), and the assumptions are the
parser's followed by ``manifest: <name>`` and ``data_file: <name>``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspector import __version__
from inspector.formats.delimited.values import format_datetime

CHUNK = 1 << 20


@dataclass(frozen=True)
class SourceFile:
    """One file an import read.

    Attributes:
        role: ``"manifest"`` or ``"data_file"``.
        path: the file (the data file resolved, symlinks followed).
        sha256: lowercase hex digest of its bytes.
        size: its size in bytes.
    """

    role: str
    path: Path
    sha256: str
    size: int

    @property
    def name(self) -> str:
        """The file's name."""
        return self.path.name

    def to_checksum(self) -> dict[str, Any]:
        """The ``source_checksums`` entry ``{role, filename, algorithm, value, byte_size}``."""
        return {"role": self.role, "filename": self.name, "algorithm": "sha256",
                "value": self.sha256, "byte_size": self.size}


def digest_file(role: str, path: Path) -> SourceFile:
    """Stream ``path`` through SHA-256 (1 MiB chunks). Raises OSError if unreadable
    (:class:`~inspector.formats.sources.file_identity.FileChangedError` when ``path`` is a
    snapshot path naming another file than when first opened)."""
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
            size += len(chunk)
    return SourceFile(role, path, h.hexdigest(), size)


def import_provenance(files: list[SourceFile], parser_name: str, parser_assumptions: list[str],
                      warnings: list[str] | None = None,
                      imported_at: datetime | None = None) -> dict[str, Any]:
    """The ``provenance`` object of the reference ``to_dict()`` form.

    Args:
        files: the manifest (if any) then the data file.
        parser_name: the layout id.
        parser_assumptions: the layout's assumptions (see
            :func:`inspector.formats.delimited.model.assumptions`).
        warnings: import warnings (the generic layouts record none).
        imported_at: the import instant; now (UTC) when omitted.
    """
    data = next(f for f in files if f.role == "data_file")
    manifest = next((f for f in files if f.role == "manifest"), None)
    when = imported_at or datetime.now(UTC)
    return {
        "source_path": str(data.path),
        "source_filename": data.name,
        "sha256": data.sha256,
        "source_checksums": [f.to_checksum() for f in files],
        "parser_name": parser_name,
        "parser_version": __version__,
        "imported_at": format_datetime(when),
        "transformations": [],
        "warnings": list(warnings or []),
        "assumptions": [
            *parser_assumptions,
            f"manifest: {manifest.name if manifest else '(none)'}",
            f"data_file: {data.name}",
        ],
        "supplied_values": [],
        "converted_values": [],
        "inferred_values": [],
        "user_confirmed_values": [],
        "unknown_values": [],
    }
