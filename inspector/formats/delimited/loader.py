"""One import of a delimited AUC source, from a path to an experiment or findings.

The stages follow the reference ``openauc.load`` (``docs/formats/
generic-delimited.md``): resolve the manifest and data file, read and validate
the manifest, check the data file, find the delimiter, choose the layout,
parse, build the canonical model, record provenance.  Each stage reports every
problem it finds (:mod:`.stages`, rules in :mod:`.rules`); a stage with
errors stops the import.  Nothing raises for bad input: :func:`run_import`
returns an :class:`ImportResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from inspector.formats.auc.model import AucExperiment
from inspector.formats.delimited.errors import DelimitedError
from inspector.formats.delimited.layouts import (
    LONG,
    ParsedLayout,
    parse_long,
    select_layout,
)
from inspector.formats.delimited.manifest import Manifest, delimiter_token, read_manifest
from inspector.formats.delimited.model import assumptions, build_experiment
from inspector.formats.delimited.provenance import SourceFile, digest_file, import_provenance
from inspector.formats.delimited.resolve import Layout, resolve_data_file, resolve_layout
from inspector.formats.delimited.rules import SOURCE_NOT_FOUND, SOURCE_UNREADABLE
from inspector.formats.delimited.stages import Abort, Stages
from inspector.formats.delimited.table import (
    Table,
    TableText,
    build_table,
    check_limits,
    detect_delimiter,
    read_lines,
)
from inspector.formats.delimited.wide import parse_wide
from inspector.formats.findings import Findings
from inspector.formats.sources.file_identity import (
    FILE_CHANGED,
    FileChangedError,
    SnapshotPath,
    snapshot_path,
)


@dataclass
class ImportResult:
    """Everything one import learnt, whether or not it succeeded.

    Attributes:
        path: the path that was opened.
        experiment: the experiment (with provenance) or None when rejected.
        stages: the findings and the first rule broken.
        layout, manifest, data_file, table, format_id: what was resolved,
            as far as the import got.
        files: the source files read, with digests (manifest, data file).
    """

    path: Path
    stages: Stages = field(default_factory=Stages)
    experiment: AucExperiment | None = None
    layout: Layout | None = None
    manifest: Manifest | None = None
    data_file: Path | None = None
    table: Table | None = None
    parsed: ParsedLayout | None = None
    format_id: str | None = None
    files: list[SourceFile] = field(default_factory=list)

    @property
    def findings(self) -> Findings:
        """Every finding of the import (the collector the document keeps)."""
        return self.stages.findings

    @property
    def ok(self) -> bool:
        """True when the source was imported without an error."""
        return self.experiment is not None and not self.stages.has_errors

    def error(self) -> DelimitedError:
        """The exception for a rejected import (its ``findings`` hold every finding)."""
        return self.stages.exception()


def _digest(result: ImportResult, role: str, path: Path) -> None:
    try:
        result.files.append(digest_file(role, path))
    except OSError as exc:
        result.stages.report(SOURCE_UNREADABLE,
                             f"the {role.replace('_', ' ')} cannot be read "
                             f"({exc.strerror or exc})", path.name)


def run_import(path: str | Path, *, imported_at: datetime | None = None) -> ImportResult:
    """Import the delimited source at ``path`` (folder, manifest or data file).

    ``imported_at`` fixes the provenance time (default: now, UTC).  Never
    raises for bad input.  The data file is read in several passes (digest,
    line statistics, rows), all of one snapshot (:mod:`~inspector.formats.
    file_identity`): a file replaced or rewritten between or during them is
    ``file.changed`` and nothing is imported, rather than two versions mixed.
    """
    target = Path(path)
    result = ImportResult(target)
    try:
        _stages(result, target, imported_at)
    except Abort:
        result.experiment = None
    except FileChangedError as exc:
        result.experiment = None
        where = result.data_file.name if result.data_file is not None else target.name
        result.stages.report(FILE_CHANGED, f"the data file: {exc}; it is not imported", where)
    return result


def _stages(result: ImportResult, target: Path, imported_at: datetime | None) -> None:
    """Run every stage; each ends at a checkpoint that raises :class:`Abort` after errors."""
    col = result.stages
    if not target.exists():
        col.report(SOURCE_NOT_FOUND, "no such file or folder", target.name)
        col.checkpoint()
    manifest = _manifest_stage(result, target)
    lines = _data_file_stage(result, manifest)
    table = _table_stage(result, manifest, lines)
    format_id = select_layout(manifest, table, col)
    col.checkpoint()
    assert format_id is not None
    result.format_id = format_id
    parsed = (parse_long if format_id == LONG else parse_wide)(manifest, table, col)
    _same_snapshot(result)
    col.checkpoint()
    assert parsed is not None
    result.parsed = parsed
    exp = build_experiment(parsed, manifest, table.name, col)
    col.checkpoint()
    assert exp is not None
    exp.provenance = import_provenance(result.files, format_id, assumptions(parsed, exp),
                                       imported_at=imported_at)
    result.experiment = exp


def _same_snapshot(result: ImportResult) -> None:
    """Raise :class:`FileChangedError` when the data file is no longer the file its first
    pass read (each later pass's open is checked too: :class:`SnapshotPath`)."""
    if isinstance(result.data_file, SnapshotPath):
        result.data_file.check()


def _manifest_stage(result: ImportResult, target: Path) -> Manifest:
    """Find, read and validate the manifest (and digest it)."""
    col = result.stages
    layout = resolve_layout(target, col)
    col.checkpoint()
    assert layout is not None
    result.layout = layout
    manifest = read_manifest(layout.manifest_file, col)
    result.manifest = manifest
    if manifest is not None and layout.manifest_file.is_file():
        _digest(result, "manifest", layout.manifest_file)
    col.checkpoint()
    assert manifest is not None
    return manifest


def _data_file_stage(result: ImportResult, manifest: Manifest) -> TableText:
    """Resolve, digest and read the data file once: its header and line statistics."""
    col = result.stages
    assert result.layout is not None
    data_file = resolve_data_file(result.layout, manifest, col)
    col.checkpoint()
    assert data_file is not None
    data_file = snapshot_path(data_file)
    result.data_file = data_file
    _digest(result, "data_file", data_file)
    col.checkpoint()
    lines = read_lines(data_file, col)
    col.checkpoint()
    assert lines is not None
    return lines


def _table_stage(result: ImportResult, manifest: Manifest,
                 lines: TableText) -> Table:
    """Find the delimiter and split the lines into a :class:`Table`."""
    col = result.stages
    assert result.data_file is not None
    declared = delimiter_token(manifest.delimiter) if manifest.delimiter else None
    delimiter = detect_delimiter(lines, result.data_file, declared, col)
    col.checkpoint()
    assert delimiter is not None
    check_limits(lines, result.data_file, delimiter, col)
    col.checkpoint()
    table = build_table(lines, result.data_file, delimiter)
    result.table = table
    return table
