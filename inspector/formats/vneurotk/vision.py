"""Visual representations (``/vision_store``) and stimulus images (``/stimuli_db``).

Spec section 5 and seed "Schema 1 layout" / "Provenance boundary":

* ``vision_store/<i>`` (numeric order): attributes ``model``,
  ``module_name``, ``module_type``, schema-1 ``extraction_provenance`` JSON;
  ``stim_ids`` (typed sequence, or a plain dataset in schema 0); dataset
  ``array`` with one row per stimulus ID.  Records lacking provenance read
  with every field ``"unknown"`` but keep the model.
* ``stimuli_db`` ``ordered_entries_v1``: entries ``<position>`` each with a
  one-value typed ``id`` and a dataset ``image`` whose ``kind`` attribute is
  ``array``, ``image_bytes`` or ``path``; IDs must be unique.  Legacy layout:
  one dataset per stimulus named after its ID with ``key_type``.

Images decode only on demand (:class:`~inspector.formats.document.Stimulus`).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from inspector.formats.vneurotk.scalars import is_scalar_sequence, read_sequence
from inspector.formats.vneurotk.source import H5Source, RuleError
from inspector.formats.vneurotk.values import as_text

PROVENANCE_FIELDS = (
    "serialization_version", "backend", "model_id", "model_revision", "pretrained",
    "preprocessing", "selector", "dependency_versions", "dtype", "device",
    "writer_version", "stimulus_content_hash",
)
UNKNOWN = "unknown"


def provenance_as_read(raw: dict[str, Any] | None, model: str) -> dict[str, Any]:
    """Provenance the way the reference reports it (absent fields are ``"unknown"``).

    ``raw`` None (schema-0 record): every field ``"unknown"``, the model kept,
    ``dependency_versions = {"vneurotk": "unknown"}``.

    Raises:
        RuleError: unsupported serialization version or wrongly typed fields.
    """
    if raw is None:
        return {
            "serialization_version": 1, "backend": UNKNOWN, "model_id": model,
            "model_revision": UNKNOWN, "pretrained": UNKNOWN, "preprocessing": UNKNOWN,
            "selector": UNKNOWN, "dependency_versions": {"vneurotk": UNKNOWN}, "dtype": UNKNOWN,
            "device": UNKNOWN, "writer_version": UNKNOWN, "stimulus_content_hash": None,
        }
    version = raw.get("serialization_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version != 1:
        raise RuleError("vision.provenance-version", f"unsupported extraction provenance serialization version {version!r} (VneuroTK on-disk notes §5)")
    deps = raw.get("dependency_versions", {})
    if not isinstance(deps, dict):
        raise RuleError("vision.provenance-field", "extraction provenance dependency_versions must be an object (VneuroTK on-disk notes §5)")
    pretrained = raw.get("pretrained", UNKNOWN)
    if not isinstance(pretrained, (bool, str)):
        raise RuleError("vision.provenance-field", "extraction provenance pretrained must be a bool or 'unknown' (VneuroTK on-disk notes §5)")
    h = raw.get("stimulus_content_hash")
    return {
        "serialization_version": 1,
        "backend": str(raw.get("backend", UNKNOWN)),
        "model_id": str(raw.get("model_id", UNKNOWN)),
        "model_revision": str(raw.get("model_revision", UNKNOWN)),
        "pretrained": pretrained,
        "preprocessing": str(raw.get("preprocessing", UNKNOWN)),
        "selector": str(raw.get("selector", UNKNOWN)),
        "dependency_versions": {str(k): (str(v) if v is not None else UNKNOWN) for k, v in sorted(deps.items())},
        "dtype": str(raw.get("dtype", UNKNOWN)),
        "device": str(raw.get("device", UNKNOWN)),
        "writer_version": str(raw.get("writer_version", UNKNOWN)),
        "stimulus_content_hash": None if h is None else str(h),
    }


@dataclass
class VisionRecord:
    """One ``vision_store/<key>`` record (array not read)."""

    key: str
    location: str
    model: str
    module_name: str
    module_type: str
    provenance: dict[str, Any] | None
    provenance_as_read: dict[str, Any]
    stim_ids: list[Any]
    array: h5py.Dataset


def _text(group: h5py.Group, name: str, loc: str) -> str:
    if name not in group.attrs:
        raise RuleError("vision.missing-attr", f"{loc} lacks attribute '{name}' (VneuroTK on-disk notes §5, vision_store)", f"{loc}@{name}")
    t = as_text(group.attrs[name])
    return t.value if t is not None else str(group.attrs[name])


def plain_ids(obj: h5py.Dataset) -> list[Any]:
    """Schema-0 ID dataset: text decoded to str, numbers to Python scalars."""
    raw = np.asarray(obj[()]).reshape(-1)
    if raw.dtype.kind in ("S", "O", "U"):
        out = []
        for v in raw:
            t = as_text(v)
            out.append(t.value if t is not None else str(v))
        return out
    return raw.tolist()


def _nonstandard_constant(name: str, loc: str, warnings: list[RuleError]) -> str:
    """``parse_constant`` hook: keep ``NaN``/``Infinity``/``-Infinity`` as the
    string of the same name (the corpus ``expected.json`` convention for
    non-finite floats) so summaries stay valid JSON, and record a warning
    (RFC 8259 JSON has no such constants)."""
    where = f"{loc}@extraction_provenance"
    warnings.append(RuleError("vision.provenance-nonstandard-json",
                              f"non-standard JSON constant {name} in extraction_provenance, {where}; kept as the "
                              f"string {name!r} (RFC 8259 has no NaN/Infinity; VneuroTK on-disk notes §5)", where))
    return name


def numeric_keys(group: h5py.Group, loc: str) -> list[str]:
    """Child names in numeric order; a non-numeric name breaks the rule."""
    keys = list(group.keys())
    bad = [k for k in keys if not k.lstrip("-").isdigit()]
    if bad:
        raise RuleError("vision.non-numeric-key", f"{loc}/{bad[0]}: entries must be named by integers in numeric order (VneuroTK on-disk notes §5)", f"{loc}/{bad[0]}")
    return sorted(keys, key=int)


def read_records(f: h5py.File) -> tuple[list[VisionRecord], list[RuleError]]:
    """Read every record of ``/vision_store`` (metadata only).

    Returns the records and the warnings (duplicate model/module keys the
    reference silently drops, missing schema-1 provenance).

    Raises:
        RuleError: a rule of VneuroTK on-disk notes §5 is broken.
    """
    vs = f["vision_store"]
    if not isinstance(vs, h5py.Group):
        raise RuleError("vision.not-group", "/vision_store must be a group (VneuroTK on-disk notes §5)", "/vision_store")
    records: list[VisionRecord] = []
    warnings: list[RuleError] = []
    seen: set[tuple[str, str]] = set()
    for key in numeric_keys(vs, "/vision_store"):
        grp = vs[key]
        loc = f"/vision_store/{key}"
        if not isinstance(grp, h5py.Group):
            raise RuleError("vision.not-group", f"{loc} must be a group (VneuroTK on-disk notes §5)", loc)
        if "stim_ids" not in grp or "array" not in grp:
            missing = [n for n in ("stim_ids", "array") if n not in grp]
            raise RuleError("vision.missing", f"{loc} lacks {', '.join(missing)} (VneuroTK on-disk notes §5, vision_store)", loc)
        sid = grp["stim_ids"]
        ids = read_sequence(sid, f"{loc}/stim_ids") if isinstance(sid, h5py.Group) else plain_ids(sid)
        model = _text(grp, "model", loc)
        module_name = _text(grp, "module_name", loc)
        module_type = _text(grp, "module_type", loc)
        prov_raw = None
        if "extraction_provenance" in grp.attrs:
            t = as_text(grp.attrs["extraction_provenance"])
            try:
                prov_raw = json.loads(t.value if t is not None else "",
                                      parse_constant=lambda c, loc=loc: _nonstandard_constant(c, loc, warnings))
            except json.JSONDecodeError as exc:
                raise RuleError("vision.provenance-json", f"{loc}@extraction_provenance is not valid JSON: {exc} (VneuroTK on-disk notes §5)", f"{loc}@extraction_provenance") from exc
            if not isinstance(prov_raw, dict):
                raise RuleError("vision.provenance-json", f"{loc}@extraction_provenance must hold a JSON object (VneuroTK on-disk notes §5)", f"{loc}@extraction_provenance")
        try:
            as_read = provenance_as_read(prov_raw, model)
        except RuleError as exc:
            raise RuleError(exc.code, f"{loc}: {exc.message}", f"{loc}@extraction_provenance") from exc
        if as_read["model_id"] not in (model, UNKNOWN):
            raise RuleError("vision.provenance-model", f"{loc}: provenance model_id {as_read['model_id']!r} does not match the record model {model!r} (VneuroTK on-disk notes §5)", f"{loc}@extraction_provenance")
        arr = grp["array"]
        if not isinstance(arr, h5py.Dataset) or arr.shape is None or len(arr.shape) == 0:
            raise RuleError("vision.array-shape", f"{loc}/array must be a dataset with at least one dimension (VneuroTK on-disk notes §5)", f"{loc}/array")
        if len(ids) != arr.shape[0]:
            raise RuleError("vision.ids-length", f"{loc}: {len(ids)} stim_ids but the array has {arr.shape[0]} rows (one row per stimulus, VneuroTK on-disk notes §5)", f"{loc}/stim_ids")
        if len(set(_hashable(i) for i in ids)) != len(ids):
            raise RuleError("vision.duplicate-ids", f"{loc}/stim_ids holds repeated stimulus IDs; records store unique stimuli (VneuroTK on-disk notes §5)", f"{loc}/stim_ids")
        if (model, module_name) in seen:
            warnings.append(RuleError("vision.duplicate-record", f"{loc} repeats model {model!r} module {module_name!r}; the reference keeps only the first such record", loc))
            continue
        seen.add((model, module_name))
        records.append(VisionRecord(key, loc, model, module_name, module_type, prov_raw, as_read, ids, arr))
    if records:
        ref = tuple(records[0].stim_ids)
        for r in records[1:]:
            if tuple(r.stim_ids) != ref:
                raise RuleError("vision.ids-differ", f"{r.location}/stim_ids differ from {records[0].location}/stim_ids; all records must share the same stimulus IDs (VneuroTK on-disk notes §5)", f"{r.location}/stim_ids")
    return records, warnings


def _hashable(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


@dataclass
class StimulusEntry:
    """One stimulus image entry (not decoded)."""

    stim_id: Any
    kind: str
    location: str
    dataset: h5py.Dataset


def read_stimuli_index(f: h5py.File) -> tuple[list[StimulusEntry], list[RuleError]]:
    """Index ``/stimuli_db`` (IDs, kinds) without reading image data.

    Returns the entries in the reference's index order and problems found
    (duplicate IDs are errors: VneuroTK format, 'Safe scalar identifiers'; VneuroTK on-disk notes §5).

    Raises:
        RuleError: the layout is broken (non-numeric entry names, missing id).
    """
    db = f["stimuli_db"]
    if not isinstance(db, h5py.Group):
        raise RuleError("stimuli.not-group", "/stimuli_db must be a group (VneuroTK on-disk notes §5)", "/stimuli_db")
    entries: list[StimulusEntry] = []
    problems: list[RuleError] = []
    enc = as_text(db.attrs.get("encoding", "legacy"))
    if enc is not None and enc.value == "ordered_entries_v1":
        seen: dict[Any, str] = {}
        for key in numeric_keys(db, "/stimuli_db"):
            loc = f"/stimuli_db/{key}"
            entry = db[key]
            if not isinstance(entry, h5py.Group) or not is_scalar_sequence(entry.get("id")):
                raise RuleError("stimuli.bad-entry", f"{loc} must be a group with a typed 'id' sequence (VneuroTK on-disk notes §5)", loc)
            ids = read_sequence(entry["id"], f"{loc}/id")
            if len(ids) != 1:
                raise RuleError("stimuli.bad-id", f"{loc}/id must hold exactly one value, got {len(ids)} (VneuroTK on-disk notes §5)", f"{loc}/id")
            sid = ids[0]
            k = (type(sid).__name__ if isinstance(sid, str) else "num", _hashable(sid))
            if k in seen:
                problems.append(RuleError(
                    "stimuli.duplicate-id",
                    f"{loc}/id repeats stimulus ID {sid!r} of {seen[k]}; stimulus IDs must be unique "
                    "(VneuroTK on-disk notes §5; VneuroTK format, 'Safe scalar identifiers')",
                    f"{loc}/id",
                ))
                continue
            seen[k] = loc
            img = entry.get("image")
            if not isinstance(img, h5py.Dataset):
                raise RuleError("stimuli.missing-image", f"{loc} lacks the 'image' dataset (VneuroTK on-disk notes §5)", f"{loc}/image")
            entries.append(StimulusEntry(sid, _kind(img), f"{loc}/image", img))
        return entries, problems
    for name in db:
        obj = db[name]
        ds = obj.get("image") if isinstance(obj, h5py.Group) else obj
        if not isinstance(ds, h5py.Dataset):
            raise RuleError("stimuli.bad-entry", f"/stimuli_db/{name} is neither an image dataset nor a group holding one (VneuroTK on-disk notes §5)", f"/stimuli_db/{name}")
        kt = as_text(obj.attrs.get("key_type", "str"))
        key_type = kt.value if kt is not None else "str"
        sid: Any = name
        if key_type == "int":
            try:
                sid = int(name)
            except ValueError:
                pass
        elif key_type == "float":
            try:
                sid = float(name)
            except ValueError:
                pass
        entries.append(StimulusEntry(sid, _kind(ds), ds.name, ds))
    return entries, problems


def _kind(ds: h5py.Dataset) -> str:
    t = as_text(ds.attrs.get("kind", "array"))
    return t.value if t is not None else "array"


def resolve_path(entry: StimulusEntry, folder: Path) -> Path:
    """The file a ``kind="path"`` entry points at (relative to the recording's folder)."""
    raw = entry.dataset[()]
    t = as_text(raw)
    text = t.value if t is not None else str(raw)
    p = Path(text)
    return p if p.is_absolute() else folder / p


def _pillow_rgb(opener: Any, what: str) -> np.ndarray:
    """Decode an image with Pillow to an RGB ``(height, width, 3)`` uint8 array.

    Every Pillow failure becomes ``OSError`` naming ``what``: unknown
    formats, corrupt data, and decompression bombs (images declaring more
    than ``PIL.Image.MAX_IMAGE_PIXELS`` pixels: ``DecompressionBombWarning``
    is raised as an error here, ``DecompressionBombError`` is caught), so a
    hostile header never allocates gigabytes or escapes as a traceback.
    """
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(opener()) as im:
                return np.asarray(im.convert("RGB"))
    except MemoryError as exc:
        raise OSError(f"{what}: image too large to decode ({exc})") from exc
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise OSError(f"{what}: refused to decode a possible decompression bomb: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types on hostile input
        raise OSError(f"{what}: {type(exc).__name__}: {exc}") from exc


def decode_image(source: H5Source, entry: StimulusEntry, folder: Path) -> np.ndarray:
    """Decode one stimulus image the way the reference does.

    ``array``: the stored pixels; ``image_bytes``: an encoded image file
    decoded with Pillow to RGB; ``path``: the file (relative paths resolved
    from ``folder``) decoded to RGB.

    Raises:
        OSError: the file changed, the path is missing, or Pillow cannot decode.
        ValueError: the stored value has the wrong shape for its kind.
    """
    source.check()
    if entry.kind == "path":
        path = resolve_path(entry, folder)
        return _pillow_rgb(lambda: path, f"stimulus {entry.stim_id!r}: cannot load image file {path}")
    if entry.kind == "image_bytes":
        data = np.asarray(source.read(entry.dataset, ()))
        return _pillow_rgb(lambda: io.BytesIO(data.tobytes()),
                           f"stimulus {entry.stim_id!r}: image_bytes at {entry.location} cannot be decoded")
    out = np.asarray(source.read(entry.dataset, ()) if entry.dataset.shape == () else source.read(entry.dataset, slice(None)))
    return out
