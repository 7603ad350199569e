"""Find the manifest and the data file of a delimited AUC source.

Rules of ``openauc.load`` (``docs/formats/generic-delimited.md``, "Loading";
``parser-detection.md``, "Errors"): a folder holds exactly one of
``manifest.json`` / ``manifest.yaml`` / ``manifest.yml`` (a JSON and a YAML
manifest side by side, or ``.yaml`` and ``.yml``, is ambiguous: pass the
manifest itself); a path ending ``.json``/``.yaml``/``.yml`` is the manifest;
any other file is the data file and its folder must hold one manifest.  The
manifest's ``data_file`` must resolve (symlinks followed) inside the folder,
must exist, and must be the data file that was passed, if one was.  Folders are
never searched recursively.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inspector.formats.delimited.manifest import MANIFEST_SUFFIXES, Manifest
from inspector.formats.delimited.rules import (
    MANIFEST_DATA_FILE_OUTSIDE,
    SOURCE_AMBIGUOUS_MANIFEST,
    SOURCE_DATA_FILE_MISMATCH,
    SOURCE_DATA_FILE_MISSING,
    SOURCE_NO_MANIFEST,
)
from inspector.formats.delimited.stages import Stages
from inspector.formats.delimited.values import shown
from inspector.formats.sources.folder_bounds import inside

MANIFEST_NAMES = ("manifest.json", "manifest.yaml", "manifest.yml")


@dataclass
class Layout:
    """Where the parts of a source are.

    Attributes:
        base_dir: the folder of the source (data_file is relative to it).
        manifest_file: the manifest to read.
        explicit_data: the data file that was passed, if a data file was passed.
    """

    base_dir: Path
    manifest_file: Path
    explicit_data: Path | None


def manifests_in(folder: Path) -> list[Path]:
    """The standard manifest files present in ``folder``, in the order of
    :data:`MANIFEST_NAMES`."""
    return [folder / n for n in MANIFEST_NAMES if (folder / n).is_file()]


def _find_manifest(folder: Path, label: str, col: Stages) -> Path | None:
    """The one manifest in ``folder``; None when there is none or (an error) several."""
    present = manifests_in(folder)
    json_present = [p for p in present if p.suffix == ".json"]
    yaml_present = [p for p in present if p.suffix in (".yaml", ".yml")]
    names = ", ".join(p.name for p in present)
    if json_present and yaml_present:
        col.report(SOURCE_AMBIGUOUS_MANIFEST,
                   f"the folder contains both a JSON and a YAML manifest ({names}); "
                   "open one manifest file to choose", label)
        return None
    if len(present) > 1:
        col.report(SOURCE_AMBIGUOUS_MANIFEST,
                   f"the folder contains more than one manifest ({names}); "
                   "open one manifest file to choose", label)
        return None
    return present[0] if present else None


def resolve_layout(target: Path, col: Stages) -> Layout | None:
    """The :class:`Layout` of ``target`` (folder, manifest file or data file); None on error."""
    expected = ", ".join(MANIFEST_NAMES)
    if target.is_dir():
        label = target.name or str(target)
        manifest = _find_manifest(target, label, col)
        if manifest is None:
            if not col.has_errors:
                col.report(SOURCE_NO_MANIFEST, f"no manifest found (expected one of {expected})",
                           label)
            return None
        return Layout(target, manifest, None)
    if target.suffix.lower() in MANIFEST_SUFFIXES:
        return Layout(target.parent, target, None)
    manifest = _find_manifest(target.parent, target.parent.name or str(target.parent), col)
    if manifest is None:
        if not col.has_errors:
            col.report(SOURCE_NO_MANIFEST,
                       f"no manifest beside the data file in its folder (expected one of "
                       f"{expected}); a data file needs a manifest for experiment identity",
                       target.name)
        return None
    return Layout(target.parent, manifest, target)


def resolve_data_file(layout: Layout, manifest: Manifest, col: Stages) -> Path | None:
    """The resolved data file named by ``manifest``; None (and an error) when it is unusable."""
    loc = manifest.loc("data_file")
    named = shown(manifest.data_file)
    try:
        declared = (layout.base_dir / manifest.data_file).resolve()
        base = layout.base_dir.resolve()
        is_file = declared.is_file()
    except (OSError, RuntimeError, ValueError) as exc:  # a long name; a link loop
        # (RuntimeError before Python 3.13); ValueError: a NUL, refused by the schema first
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        col.report(SOURCE_DATA_FILE_MISSING,
                   f"the declared data_file {named} cannot be resolved ({shown(reason)})", loc)
        return None
    if not inside(declared, base):
        col.report(MANIFEST_DATA_FILE_OUTSIDE,
                   f"data_file {named} resolves outside the experiment folder", loc)
        return None
    if not is_file:
        col.report(SOURCE_DATA_FILE_MISSING,
                   f"the declared data_file {named} does not exist or is not a file", loc)
        return None
    if layout.explicit_data is not None and layout.explicit_data.resolve() != declared:
        col.report(SOURCE_DATA_FILE_MISMATCH,
                   f"the opened file is not the manifest's data_file {named}; open the folder "
                   "or the manifest instead", loc)
        return None
    return declared
