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

from inspector.formats.delimited.errors import Collector
from inspector.formats.delimited.manifest import MANIFEST_SUFFIXES, Manifest

MANIFEST_NAMES = ("manifest.json", "manifest.yaml", "manifest.yml")
RULE = "[generic-delimited: loading]"


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
    """The standard manifest files present in ``folder``, in name order of :data:`MANIFEST_NAMES`."""
    return [folder / n for n in MANIFEST_NAMES if (folder / n).is_file()]


def _find_manifest(folder: Path, label: str, col: Collector) -> Path | None:
    present = manifests_in(folder)
    json_present = [p for p in present if p.suffix == ".json"]
    yaml_present = [p for p in present if p.suffix in (".yaml", ".yml")]
    names = ", ".join(p.name for p in present)
    if json_present and yaml_present:
        col.error("ambiguous", "source.ambiguous-manifest",
                  f"{label} contains both a JSON and a YAML manifest ({names}); "
                  f"open one manifest file to choose {RULE}", label)
        return None
    if len(present) > 1:
        col.error("ambiguous", "source.ambiguous-manifest",
                  f"{label} contains more than one manifest ({names}); "
                  f"open one manifest file to choose {RULE}", label)
        return None
    return present[0] if present else None


def resolve_layout(target: Path, col: Collector) -> Layout | None:
    """The :class:`Layout` of ``target`` (folder, manifest file or data file); None on error."""
    if target.is_dir():
        label = target.name or str(target)
        manifest = _find_manifest(target, label, col)
        if manifest is None:
            if not col.has_errors:
                col.error("manifest", "source.no-manifest",
                          f"{label}: no manifest found (expected one of "
                          f"{', '.join(MANIFEST_NAMES)}) {RULE}", label)
            return None
        return Layout(target, manifest, None)
    if target.suffix.lower() in MANIFEST_SUFFIXES:
        return Layout(target.parent, target, None)
    manifest = _find_manifest(target.parent, target.parent.name or str(target.parent), col)
    if manifest is None:
        if not col.has_errors:
            col.error("manifest", "source.no-manifest",
                      f"{target.name}: no manifest beside it in its folder (expected one of "
                      f"{', '.join(MANIFEST_NAMES)}); a data file needs a manifest for "
                      f"experiment identity {RULE}", target.name)
        return None
    return Layout(target.parent, manifest, target)


def resolve_data_file(layout: Layout, manifest: Manifest, col: Collector) -> Path | None:
    """The resolved data file named by ``manifest``; None (and an error) when it is unusable."""
    loc = manifest.loc("data_file")
    declared = (layout.base_dir / manifest.data_file).resolve()
    base = layout.base_dir.resolve()
    if declared.parent != base and base not in declared.parents:
        col.error("manifest", "manifest.data-file-outside",
                  f"{manifest.name}: data_file {manifest.data_file!r} resolves outside the "
                  f"experiment folder {RULE}", loc)
        return None
    if not declared.is_file():
        col.error("parse", "source.data-file-missing",
                  f"{manifest.name}: the declared data_file {manifest.data_file!r} does not exist "
                  f"or is not a file {RULE}", loc)
        return None
    if layout.explicit_data is not None and layout.explicit_data.resolve() != declared:
        col.error("conflict", "source.data-file-mismatch",
                  f"{layout.explicit_data.name}: this is not the manifest's data_file "
                  f"{manifest.data_file!r}; open the folder or the manifest instead {RULE}", loc)
        return None
    return declared
